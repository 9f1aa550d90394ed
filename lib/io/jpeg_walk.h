/*
 * jpeg_walk.h - the walk of img_jpeg_check.c (libjpeg-turbo's verdict on
 * a JPEG's one scan, before the GPU's JPEG engines decode it) cut into
 * pieces that threads walk side by side: on the GPU (kernels/jpeg_walk.cu),
 * and, to hold it to the walk on one thread, the same steps one after
 * another on the CPU (jpeg_walk_cpu, jpeg_walk.c).  Read by C and CUDA.
 *
 * The plan (img_jpeg_walk_plan, from libjpeg's reading of the header)
 * holds the scan's Huffman tables, the luma's quantisation, the MCU's
 * blocks, and its coded data with the stuffing taken out.  Those bits
 * are cut into pieces of JW_PIECE bits.  A thread decodes the codes that
 * start in its piece, from a state: the bit, the block of the MCU, the
 * coefficient.  Only the first piece's state is known; the others are
 * guessed by decoding from JW_WARM bits before the piece (a Huffman
 * decode that starts off its codes falls into step with the true one,
 * state and all, within some hundreds of bits), then set again to the
 * state at which the piece before ended until none changes: five to
 * eight rounds for a photo, at most one per piece.  Then a scan over the pieces
 * gives each its first block's number and the DC predictions, and each
 * piece checks the blocks that begin in it, as walk_block does.
 */
#ifndef GF_JPEG_WALK_H
#define GF_JPEG_WALK_H

#include <stddef.h>
#include <stdint.h>

#include "gf.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JW_PIECE 1024           /* bits a thread begins codes in */
#define JW_COMPS 4              /* components in a scan, at most */
#define JW_BLOCKS 10            /* blocks in an MCU, at most */
#define JW_ROUNDS 64            /* rounds of setting states, at most */
#define JW_WARM 2048            /* bits a guess decodes before its piece */
#define JW_PAD 512              /* zero bytes past the data, on the GPU */

/*
 * The rare path (an IDCT), kept out of line and its loops rolled: a
 * kernel gets the registers of the most its calls need, and the IDCT
 * unrolled took 193 for the GPU's check, whose every other step takes
 * 32 (a sixth of the blocks an SM holds at once).
 */
#ifdef __CUDACC__
#define JW_COLD static __host__ __device__ __noinline__
#else
#define JW_COLD static inline
#endif
#ifdef __CUDA_ARCH__
#define JW_ROLLED _Pragma("unroll 1")
#else
#define JW_ROLLED
#endif
/*
 * The most a centred output sample may reach, in either direction, for
 * the engines to give libjpeg's byte (img_jpeg_check.c's CHECK_SAMPLE_MAX).
 */
#define JW_SAMPLE_MAX 480

/* A Huffman table: codes of 9 bits at most by lookup, longer ones by length. */
struct jw_huff {
	uint16_t look[512];     /* length << 8 | symbol; 0: a longer code */
	int32_t maxcode[18];    /* largest code of each length, -1: none */
	int32_t valoff[18];     /* symbol index of a code of each length */
	uint8_t val[256];
};

struct jw_plan {
	struct jw_huff huff[2 * JW_COMPS];      /* component i's DC 2i, AC 2i + 1 */
	double basis[8][8];     /* the IDCT's, img_jpeg_check.c's */
	int16_t q[64], qz[64];  /* the luma's quantisation, natural and zigzag */
	uint16_t mostz[64];     /* largest coefficient within 12 bits, zigzag */
	uint8_t natural[64];    /* zigzag index to natural */
	int32_t usable;         /* 0: every luma block counts as outside */
	int32_t nblocks;        /* in an MCU */
	uint8_t comp[JW_BLOCKS];        /* each block's component in the scan */
	uint8_t luma[JW_BLOCKS];        /* whether it is the luma's */
	uint64_t blocks;        /* in the scan */
	uint64_t bits;          /* coded data, without the stuffing */
};

/* Where a decode stands: at bit pos, block b of the MCU, coefficient k. */
struct jw_state {
	uint64_t pos;
	int32_t b;
	int32_t k;              /* 0: the block's DC comes next */
};

/* A piece's first round, and what the scan over pieces gives it. */
struct jw_piece {
	struct jw_state start;
	uint64_t dcs;           /* DC codes that begin in the piece */
	int64_t dcsum[JW_COMPS];        /* their differences, per component */
};

enum { JW_ERR = -1, JW_DC, JW_AC, JW_RUN };

/* The state at an MCU's first DC at bit pos. */
GF_HD struct jw_state
jw_mcu_at(uint64_t pos)
{
	struct jw_state st;

	st.pos = pos;
	st.b = 0;
	st.k = 0;
	return st;
}

GF_HD int
jw_same(struct jw_state a, struct jw_state b)
{
	return a.pos == b.pos && a.b == b.b && a.k == b.k;
}

/*
 * 32 bits of d (n bytes, zeros past them) from bit pos, the first
 * highest.  On the GPU by two aligned words: d is aligned to 4 bytes
 * there, and JW_PAD zero bytes follow its n (jpeg_walker_run's buffer):
 * no walk reads further than a block past its last piece's end.
 */
GF_HD uint32_t
jw_peek(const unsigned char *d, uint64_t n, uint64_t pos)
{
#ifdef __CUDA_ARCH__
	const uint32_t *w = (const uint32_t *)d + (pos >> 5);
	uint64_t v = (uint64_t)__byte_perm(__ldg(w), 0, 0x0123) << 32 |
	    __byte_perm(__ldg(w + 1), 0, 0x0123);

	(void)n;
	return (uint32_t)(v >> (32 - (pos & 31)));
#else
	uint64_t i = pos >> 3, w = 0;

	for (int k = 0; k < 5; k++)
		w = w << 8 | (i + k < n ? d[i + k] : 0);
	return (uint32_t)(w >> (8 - (pos & 7)));
#endif
}

/* The symbol whose code begins w's bits, its length in *len; -1: a bad code. */
GF_HD int
jw_decode(const struct jw_huff *h, uint32_t w, int *len)
{
	unsigned e = h->look[w >> 23];
	int code = (int)(w >> 23), n = 9;

	if (e != 0) {
		*len = (int)(e >> 8);
		return (int)(e & 0xff);
	}
	while (code > h->maxcode[n]) {
		if (n == 16)
			return -1;
		code = code << 1 | (int)(w >> (31 - n) & 1);
		n++;
	}
	*len = n;
	return h->val[(code + h->valoff[n]) & 0xff];
}

/* The s value bits (1-15) that follow a code of len bits in w, as JPEG signs them. */
GF_HD int
jw_value(uint32_t w, int len, int s)
{
	int r = (int)((w << len) >> (32 - s));

	return r < 1 << (s - 1) ? r - (1 << s) + 1 : r;
}

/*
 * One code and its value bits at *st, as walk_block reads them: JW_DC
 * (the difference in *val), JW_AC (the value in *val, its zigzag index
 * in *at), JW_RUN (an end of block or a run of 16 zeros), or JW_ERR
 * where walk_block is unsure.  The state moves past it: to the next
 * block's DC once a block ends.
 */
GF_HD int
jw_step(const struct jw_plan *pl, const unsigned char *d, uint64_t n,
    struct jw_state *st, int *val, int *at)
{
	uint32_t w = jw_peek(d, n, st->pos);
	int c = pl->comp[st->b], len, sym, r, s, kind = JW_RUN;

	if (st->k == 0) {
		sym = jw_decode(&pl->huff[2 * c], w, &len);
		if (sym < 0 || sym > 11)
			return JW_ERR;
		*val = sym > 0 ? jw_value(w, len, sym) : 0;
		st->pos += (uint64_t)(len + sym);
		st->k = 1;
		return JW_DC;
	}
	sym = jw_decode(&pl->huff[2 * c + 1], w, &len);
	if (sym < 0)
		return JW_ERR;
	r = sym >> 4;
	s = sym & 15;
	if (s == 0 && r == 0) {
		st->k = 64;                     /* end of block */
	} else if (s == 0) {
		if (r != 15 || st->k + 15 > 63)
			return JW_ERR;
		st->k += 16;
	} else {
		st->k += r;
		if (s > 10 || st->k > 63)
			return JW_ERR;
		*val = jw_value(w, len, s);
		*at = st->k++;
		kind = JW_AC;
	}
	st->pos += (uint64_t)(len + s);
	if (st->k == 64) {
		st->k = 0;
		st->b = st->b + 1 == pl->nblocks ? 0 : st->b + 1;
	}
	return kind;
}

/*
 * A piece's round: the codes that begin before bit end, from p->start,
 * counted into p; the state after them.  A bad code means the start was
 * not the true one (or the scan is damaged, which jw_piece_check finds):
 * the decode starts again a bit on, at an MCU's first DC.
 */
GF_HD struct jw_state
jw_piece_round(const struct jw_plan *pl, const unsigned char *d, uint64_t n,
    uint64_t end, struct jw_piece *p)
{
	struct jw_state st = p->start;
	int v = 0, at = 0;

	p->dcs = 0;
	for (int c = 0; c < JW_COMPS; c++)
		p->dcsum[c] = 0;
	while (st.pos < end) {
		uint64_t was = st.pos;
		int c = pl->comp[st.b], kind = jw_step(pl, d, n, &st, &v, &at);
		if (kind == JW_ERR)
			st = jw_mcu_at(was + 1);
		else if (kind == JW_DC) {
			p->dcs++;
			p->dcsum[c] += v;
		}
	}
	return st;
}

/*
 * A guess at the state at bit at: a decode from bit from (an MCU's
 * first DC guessed there, and again a bit on after a bad code) to its
 * first code that begins at or past at.  Decodes fall into step within
 * a few hundred bits, so the guess from JW_WARM bits back is mostly the
 * true state.
 */
GF_HD struct jw_state
jw_guess(const struct jw_plan *pl, const unsigned char *d, uint64_t n,
    uint64_t at)
{
	struct jw_state st = jw_mcu_at(at > JW_WARM ? at - JW_WARM : 0);
	int v = 0, k = 0;

	while (st.pos < at) {
		uint64_t was = st.pos;
		if (jw_step(pl, d, n, &st, &v, &k) == JW_ERR)
			st = jw_mcu_at(was + 1);
	}
	return st;
}

/* img_jpeg_check.c's check_idct_in_range, on the same doubles. */
JW_COLD int
jw_idct_in_range(const struct jw_plan *pl, const int *blk)
{
	double t[8][8];

	JW_ROLLED
	for (int v = 0; v < 8; v++) {
		JW_ROLLED
		for (int x = 0; x < 8; x++) {
			double s = 0;
			JW_ROLLED
			for (int u = 0; u < 8; u++)
				s += pl->basis[x][u] * blk[v * 8 + u] * pl->q[v * 8 + u];
			t[v][x] = s;
		}
	}
	JW_ROLLED
	for (int y = 0; y < 8; y++) {
		JW_ROLLED
		for (int x = 0; x < 8; x++) {
			double s = 0;
			JW_ROLLED
			for (int v = 0; v < 8; v++)
				s += pl->basis[y][v] * t[v][x];
			if (s > JW_SAMPLE_MAX || s < -JW_SAMPLE_MAX)
				return 0;
		}
	}
	return 1;
}

/*
 * The samples of the luma block at st (its DC next), its DC dc, within
 * JW_SAMPLE_MAX: the block decoded again, its coefficients put in place
 * (only for the few blocks jw_block's bound does not settle).
 */
JW_COLD int
jw_block_in_range(const struct jw_plan *pl, const unsigned char *d, uint64_t n,
    struct jw_state st, int64_t dc)
{
	int blk[64] = {0}, v = 0, at = 0;

	(void)jw_step(pl, d, n, &st, &v, &at);
	blk[0] = (int)dc;
	while (st.k != 0)
		if (jw_step(pl, d, n, &st, &v, &at) == JW_AC)
			blk[pl->natural[at]] = v;
	return jw_idct_in_range(pl, blk);
}

/*
 * Block g of the scan, from *st (its DC next), as walk_block checks it,
 * its component's prediction in *pred: 0, or -1 unsure; *outside 1 when
 * a luma block the engines may decode otherwise.
 */
GF_HD int
jw_block(const struct jw_plan *pl, const unsigned char *d, uint64_t n,
    struct jw_state *st, int64_t *pred, int *outside)
{
	struct jw_state from = *st;
	int luma = pl->luma[st->b], v = 0, at = 0, over = 0, kind, a;
	long long sum = 0;

	if (jw_step(pl, d, n, st, &v, &at) != JW_DC)
		return -1;
	*pred += v;
	if (*pred > 32767 || *pred < -32767)
		return -1;
	while (st->k != 0) {
		if ((kind = jw_step(pl, d, n, st, &v, &at)) == JW_ERR)
			return -1;
		if (kind == JW_AC && luma) {
			a = v < 0 ? -v : v;
			over |= a > pl->mostz[at];
			sum += (long long)a * pl->qz[at];
		}
	}
	if (st->pos > pl->bits)
		return -1;              /* bits past the data: libjpeg warns */
	*outside = 0;
	if (luma) {
		a = (int)(*pred < 0 ? -*pred : *pred);
		over |= a > pl->mostz[0];
		if (!pl->usable || over)
			*outside = 1;
		else if (2 * sum + (long long)a * pl->q[0] > 8 * JW_SAMPLE_MAX)
			*outside = !jw_block_in_range(pl, d, n, from, *pred);
	}
	return 0;
}

/*
 * The check of piece j (its bits from j * JW_PIECE; p its round, the
 * scan's first block number g and predictions pred of its first block
 * put there): the blocks that begin in it, to the scan's last.  -1
 * unsure, else the luma blocks outside; *ends 1 when it held the last.
 */
GF_HD long
jw_piece_check(const struct jw_plan *pl, const unsigned char *d, uint64_t n,
    uint64_t j, const struct jw_piece *p, uint64_t g, const int64_t *pred0,
    int *ends)
{
	struct jw_state st = p->start;
	uint64_t end = (j + 1) * JW_PIECE;
	int64_t pred[JW_COMPS];
	long outside = 0;
	int v = 0, at = 0, out;

	*ends = 0;
	for (int c = 0; c < JW_COMPS; c++)
		pred[c] = pred0[c];
	if (g >= pl->blocks)
		return 0;
	while (st.k != 0)       /* a block the piece before began: its own */
		if (jw_step(pl, d, n, &st, &v, &at) == JW_ERR)
			return 0;
	while (g < pl->blocks && st.pos < end) {
		if (jw_block(pl, d, n, &st, &pred[pl->comp[st.b]], &out) < 0)
			return -1;
		outside += out;
		g++;
	}
	if (g == pl->blocks) {
		*ends = 1;
		if (pl->bits - st.pos >= 8)
			return -1;      /* a byte or more before EOI */
	}
	return outside;
}

/*
 * The walk of plan pl over its data d (n bytes) on the CPU, piece by
 * piece as the GPU's threads go: what img_jpeg_check_scan gives, the
 * luma blocks outside, or -1 (unsure).  For the tests and the fuzzer.
 */
long jpeg_walk_cpu(const struct jw_plan *pl, const unsigned char *d, size_t n);

#ifdef __cplusplus
}
#endif

#endif
