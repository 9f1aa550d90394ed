/*
 * jpeg_walk.c - the pieced walk of jpeg_walk.h on the CPU, each round
 * and each piece one after another, in the order the GPU's threads take
 * them side by side (kernels/jpeg_walk.cu): so that the tests and the
 * fuzzer hold the pieced walk to img_jpeg_check.c's on machines without
 * a GPU.
 */
#include <stdlib.h>
#include <string.h>

#include "jpeg_walk.h"

long
jpeg_walk_cpu(const struct jw_plan *pl, const unsigned char *d, size_t n)
{
	uint64_t np = pl->bits / JW_PIECE + 1, g = 0;
	struct jw_piece *p = calloc(np, sizeof(*p));
	struct jw_state *ex = calloc(np, sizeof(*ex));
	struct jw_state *prev = calloc(np, sizeof(*prev));
	int64_t pred[JW_COMPS] = {0};
	long outside = 0, o;
	int changed = 1, rounds = 0, ends = 0, e;

	if (p == NULL || ex == NULL || prev == NULL) {
		free(p);
		free(ex);
		free(prev);
		return -1;
	}
	/* The first piece starts at the first DC; the others guess. */
	for (uint64_t j = 0; j < np; j++) {
		p[j].start = j == 0 ? jw_mcu_at(0) : jw_guess(pl, d, n, j * JW_PIECE);
		ex[j] = jw_piece_round(pl, d, n, (j + 1) * JW_PIECE, &p[j]);
	}
	/* Each round sets a piece's start to the end of the piece before. */
	while (changed && rounds++ < JW_ROUNDS) {
		memcpy(prev, ex, np * sizeof(*prev));
		changed = 0;
		for (uint64_t j = 1; j < np; j++) {
			if (jw_same(p[j].start, prev[j - 1]))
				continue;
			p[j].start = prev[j - 1];
			ex[j] = jw_piece_round(pl, d, n, (j + 1) * JW_PIECE, &p[j]);
			changed = 1;
		}
	}
	for (uint64_t j = 0; !changed && j < np && outside >= 0; j++) {
		o = jw_piece_check(pl, d, n, j, &p[j], g, pred, &e);
		outside = o < 0 ? -1 : outside + o;
		ends += e;
		g += p[j].dcs;
		for (int c = 0; c < JW_COMPS; c++)
			pred[c] += p[j].dcsum[c];
	}
	free(p);
	free(ex);
	free(prev);
	return changed || ends != 1 ? -1 : outside;
}
