/*
 * strategy.c - the table of kernel strategies shared by every tool.
 */
#include <stdio.h>
#include <string.h>

#include "strategy.h"

const struct gf_strategy_info gf_strategies[GF_NSTRATEGIES] = {
	/* name, --help's line; per pixel, texture, tile */
	[GF_AUTO] = {"auto", "the fastest strategy for the device; the CPU without a GPU",
	    0, 0, 0},
	[GF_CPU] = {"cpu", "the CPU reference that every GPU path matches bit for bit",
	    0, 0, 0},
	[GF_GLOBAL] = {"global", "one thread per pixel, every read from global memory",
	    1, 0, 0},
	[GF_TEXTURE] = {"texture", "one thread per pixel, reads through the texture cache",
	    1, 1, 0},
	[GF_SHARED] = {"shared", "a block loads its tile and apron into shared memory",
	    0, 0, 1},
	[GF_SLIDING] = {"sliding", "each thread slides a register window down a column strip",
	    0, 0, 0},
};

int
gf_strategy_parse(const char *s, enum gf_strategy *out, struct gf_err *e)
{
	char names[256] = "";
	size_t n = 0;

	for (int i = 0; i < GF_NSTRATEGIES; i++) {
		if (strcmp(s, gf_strategies[i].name) == 0) {
			*out = (enum gf_strategy)i;
			return 0;
		}
	}
	/* "a, b, ... or z", from the table. */
	for (int i = 0; i < GF_NSTRATEGIES && n < sizeof(names); i++)
		n += snprintf(names + n, sizeof(names) - n, "%s%s",
		    i == 0 ? "" : i == GF_NSTRATEGIES - 1 ? " or " : ", ",
		    gf_strategies[i].name);
	return gf_fail(e, "'%s' is not a strategy; choose %s", s, names);
}

void
gf_launch_default(enum gf_strategy s, const struct gf_launch *d,
    struct gf_launch *l)
{
	if (l->block_w == 0 || l->block_h == 0) {
		l->block_w = d->block_w;
		l->block_h = d->block_h;
	}
	if (l->rows == 0 || gf_strategies[s].per_pixel)
		l->rows = d->rows;
}

void
gf_launch_shape(enum gf_strategy s, const struct gf_launch *defaults,
    unsigned maxval, int apron, struct gf_launch *l, int *tile_w,
    int *tile_h, size_t *smem)
{
	int n = 16 / gf_sample_bytes(maxval);

	gf_launch_default(s, &defaults[s], l);
	*smem = 0;
	if (gf_strategies[s].per_pixel) {
		*tile_w = l->block_w;
		*tile_h = l->block_h;
		return;
	}
	*tile_w = l->block_w * n;
	*tile_h = l->block_h * l->rows;
	if (gf_strategies[s].tile)
		*smem = (size_t)(*tile_h + 2 * apron) * (l->block_w + 2) * 16;
}
