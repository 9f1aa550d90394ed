/*
 * conv2d_lanes_cpu.c - conv2d_cpu's two paths for 8-bit integer kernels
 * in AVX2's 16-bit lanes, separable and 2D: sixteen samples an
 * instruction where the kernel's sums are known to fit 16 bits, exact,
 * so that they give the core's integers bit for bit.  Separate from
 * conv2d_cpu.c because they are written in intrinsics for one
 * instruction set rather than left to the compiler to vectorize, and
 * keep their own rings of rows and scratch layout: all they share with
 * it is the job, two row finishes and one entry a band
 * (conv2d_cpu_int.h).  Elsewhere than x86-64 with GCC or clang this file
 * is empty and conv2d_cpu.c takes the general path.  Its name ends in
 * _cpu.c so that the Makefile builds it with CPU_CFLAGS, as it does
 * conv2d_cpu.c.
 */
#include <stdlib.h>
#include <string.h>

#include "conv2d_cpu_int.h"

#ifdef CONV_SEP8
#include <immintrin.h>

/*
 * ---- 8-bit separable kernels in 16-bit lanes (x86-64 with AVX2)
 *
 * The integer separable path of conv2d_core.h for 8-bit samples whose
 * row factors are >= 0 and sum, times maxval, to at most 65535 (every
 * Gaussian and box: KSPEC_GAUSS_ONE * 255 fits).  A row pass is then
 * exact in unsigned 16-bit lanes, sixteen samples an instruction.  The
 * ring keeps each row pass as the int16 H - 2^15, so that the column
 * pass can take two rows at once with pmaddwd (int16 x int16 pairs
 * summed into int32): sum c_i (H_i - 2^15), plus 2^15 sum c_i, all
 * modulo 2^32, is the int32 sum that the core makes (which fits int32 in
 * the I32 mode), so the finish sees the same integer.
 */

/* One band's rows on this path; w16 = width rounded up to 16. */
struct sep8_rows {
	uint8_t *pad;           /* padded source row, w16 + kw - 1 + 16 bytes */
	int16_t *ring;          /* kh row passes, w16 each, less 2^15 */
	int32_t *acc;           /* the column pass, w16 */
	uint16_t *res;          /* finished samples, w16 */
	uint8_t *row8;          /* the output row, w16 bytes */
	int w16;
};

static int
sep8_width(int w)
{
	return (w + 15) / 16 * 16;
}

size_t
conv2d_sep8_scratch(const struct conv2d_coef *c, int w)
{
	size_t w16 = (size_t)sep8_width(w);

	return (w16 + c->kw + 64) + w16 * 2 * c->kh + w16 * 4 + w16 * 2 +
	    w16 + 64;
}

static void
sep8_carve(struct sep8_rows *r, const struct conv_job *j, char *m)
{
	const struct conv2d_coef *c = &j->pl->coef;
	size_t w16 = (size_t)sep8_width(j->in->width);

	r->w16 = (int)w16;
	r->ring = (int16_t *)m;
	r->acc = (int32_t *)(m + w16 * 2 * c->kh);
	r->res = (uint16_t *)((char *)r->acc + w16 * 4);
	r->row8 = (uint8_t *)((char *)r->res + w16 * 2);
	r->pad = r->row8 + w16;
}

/* Whether the plan runs on this path (and the CPU has AVX2). */
int
conv2d_sep8_takes(const struct conv2d_plan *pl)
{
	const struct conv2d_coef *c = &pl->coef;
	int64_t rsum = 0;

	if (!pl->separable || c->mode != CONV2D_I32 || c->maxval > 255 ||
	    !__builtin_cpu_supports("avx2"))
		return 0;
	for (int j = 0; j < c->kw; j++) {
		if (pl->taps.irow[j] < 0)
			return 0;
		rsum += pl->taps.irow[j];
	}
	for (int i = 0; i < c->kh; i++)
		if (pl->taps.icol[i] < -32767 || pl->taps.icol[i] > 32767)
			return 0;
	return rsum * c->maxval <= 65535;
}

/* Channel c of image row ry, padded through xmap, into pad (bytes). */
static void
sep8_load(const struct conv_job *j, int c, int ry, uint8_t *pad)
{
	const struct image *in = j->in;
	int w = in->width, ch = in->channels, ax = j->pl->coef.ax;
	int rw = w + j->pl->coef.kw - 1;
	const uint8_t *src = (const uint8_t *)in->px + (size_t)ry * w * ch + c;

	if (ch == 1)
		memcpy(pad + ax, src, (size_t)w);
	else
		for (int x = 0; x < w; x++)
			pad[ax + x] = src[(size_t)x * ch];
	for (int x = 0; x < rw; x++) {
		int xi = j->xmap[x];
		if (x == ax)
			x += w - 1;
		else
			pad[x] = xi < 0 ? 0 : src[(size_t)xi * ch];
	}
}

/* dst[x] = sum_j row[j] pad[x + j] - 2^15 for x < w16, in 16-bit lanes. */
__attribute__((target("avx2"))) static void
sep8_row_pass(const uint8_t *pad, int16_t *dst, const int32_t *row, int kw,
    int w16)
{
	const __m256i flip = _mm256_set1_epi16((short)0x8000);
	__m256i t[CONV_MAX_K];
	int sym = 1;

	for (int j = 0; j < kw; j++) {
		t[j] = _mm256_set1_epi16((short)row[j]);
		sym &= row[j] == row[kw - 1 - j];
	}
	for (int x = 0; x < w16; x += 16) {
		const uint8_t *p = pad + x;
		__m256i a = flip;
		int j = 0;
		/* A symmetric pair sums its two samples first (<= 510). */
		for (; sym && j < kw / 2; j++) {
			__m256i u = _mm256_cvtepu8_epi16(_mm_loadu_si128(
			    (const __m128i *)(p + j)));
			__m256i v = _mm256_cvtepu8_epi16(_mm_loadu_si128(
			    (const __m128i *)(p + kw - 1 - j)));
			a = _mm256_add_epi16(a, _mm256_mullo_epi16(
			    _mm256_add_epi16(u, v), t[j]));
		}
		for (int k = sym ? kw / 2 : 0; k < (sym ? (kw + 1) / 2 : kw); k++) {
			__m256i u = _mm256_cvtepu8_epi16(_mm_loadu_si128(
			    (const __m128i *)(p + k)));
			a = _mm256_add_epi16(a, _mm256_mullo_epi16(u, t[k]));
		}
		_mm256_storeu_si256((__m256i *)(dst + x), a);
	}
}

/*
 * The column pass of output row y over np pairs of ring rows src[2k],
 * src[2k + 1] with taps t[k] (col[2k] low, col[2k + 1] high: pmaddwd's
 * two products summed): acc[x] = sum_i col[i] H_{y+i}[x] (exact int32;
 * base folds in the rows' 2^15 offsets).  With a power-of-two divisor
 * and no --abs it also finishes: out8 (w bytes) gets conv2d_finish_i32's
 * samples, each (acc + div/2) >> s plus the bias, clamped to [0, maxval]
 * (int16 saturation on the way keeps the clamp's answer, maxval being at
 * most 255), and acc is not written.  Inlined with np a constant, so that
 * the rows and taps stay in registers.
 */
__attribute__((target("avx2"), always_inline)) static inline void
sep8_cols(const struct sep8_rows *r, const struct conv2d_coef *c,
    const int16_t *const *src, const __m256i *t, int np, uint32_t base,
    uint8_t *out8, int w)
{
	const int s = c->pow2 - 1;
	const __m256i half = _mm256_set1_epi32((int32_t)(c->div >> 1));
	const __m256i bias = _mm256_set1_epi32((int32_t)c->bias);
	const __m256i top = _mm256_set1_epi16((short)c->maxval);
	const __m256i zero = _mm256_setzero_si256();

	for (int x = 0; x < r->w16; x += 16) {
		__m256i lo = _mm256_set1_epi32((int32_t)base), hi = lo;
		for (int k = 0; k < np; k++) {
			__m256i a = _mm256_loadu_si256((const __m256i *)(src[2 * k] + x));
			__m256i b = _mm256_loadu_si256((const __m256i *)(src[2 * k + 1] + x));
			lo = _mm256_add_epi32(lo, _mm256_madd_epi16(
			    _mm256_unpacklo_epi16(a, b), t[k]));
			hi = _mm256_add_epi32(hi, _mm256_madd_epi16(
			    _mm256_unpackhi_epi16(a, b), t[k]));
		}
		/* unpack works within 128-bit halves: lo holds x..x+3, x+8..x+11 */
		if (out8 == NULL) {
			_mm256_storeu_si256((__m256i *)(r->acc + x),
			    _mm256_permute2x128_si256(lo, hi, 0x20));
			_mm256_storeu_si256((__m256i *)(r->acc + x + 8),
			    _mm256_permute2x128_si256(lo, hi, 0x31));
			continue;
		}
		lo = _mm256_add_epi32(_mm256_srai_epi32(_mm256_add_epi32(lo, half),
		    s), bias);
		hi = _mm256_add_epi32(_mm256_srai_epi32(_mm256_add_epi32(hi, half),
		    s), bias);
		/* packs undoes unpack's order: x..x+7 | x+8..x+15 */
		__m256i v = _mm256_min_epi16(_mm256_max_epi16(
		    _mm256_packs_epi32(lo, hi), zero), top);
		v = _mm256_permute4x64_epi64(_mm256_packus_epi16(v, v), 0x08);
		if (x + 16 <= w) {
			_mm_storeu_si128((__m128i *)(out8 + x), _mm256_castsi256_si128(v));
		} else {
			uint8_t last[16];
			_mm_storeu_si128((__m128i *)last, _mm256_castsi256_si128(v));
			memcpy(out8 + x, last, (size_t)(w - x));
		}
	}
}

/*
 * sep8_cols for output row y, w samples wide (out8 NULL: into r->acc).  An odd last row
 * pairs with itself under a high tap of 0.
 */
__attribute__((target("avx2"))) static void
sep8_col_pass(const struct sep8_rows *r, const struct conv2d_coef *c,
    const int32_t *col, int y, uint8_t *out8, int w)
{
	const int16_t *src[CONV_MAX_K + 1];
	__m256i t[(CONV_MAX_K + 1) / 2];
	const int kh = c->kh, np = (kh + 1) / 2;
	uint32_t base = 0;

	for (int i = 0; i < kh; i++) {
		src[i] = r->ring + (size_t)((y + i) % kh) * r->w16;
		base += (uint32_t)col[i] * 32768u;
	}
	src[kh] = r->ring;       /* any row: its tap is 0 */
	for (int i = 0; i < kh; i += 2) {
		int32_t hi = i + 1 < kh ? col[i + 1] : 0;
		t[i / 2] = _mm256_set1_epi32((int32_t)(((uint32_t)hi << 16) |
		    (uint16_t)col[i]));
	}
	switch (np) {
	case 2: sep8_cols(r, c, src, t, 2, base, out8, w); break;
	case 3: sep8_cols(r, c, src, t, 3, base, out8, w); break;
	case 4: sep8_cols(r, c, src, t, 4, base, out8, w); break;
	case 5: sep8_cols(r, c, src, t, 5, base, out8, w); break;
	default: sep8_cols(r, c, src, t, np, base, out8, w); break;
	}
}

/* Output row y of channel c from the ring. */
static void
sep8_out_row(const struct conv_job *j, struct sep8_rows *r, int c, int y)
{
	const struct conv2d_coef *co = &j->pl->coef;
	struct image *out = j->out;
	int w = out->width, ch = out->channels;
	uint8_t *dst = (uint8_t *)out->px + (size_t)y * w * ch + c;

	if (co->pow2 > 0 && !co->abs) {
		sep8_col_pass(r, co, j->pl->taps.icol, y, ch == 1 ? dst : r->row8,
		    w);
		for (int x = 0; ch > 1 && x < w; x++)
			dst[(size_t)x * ch] = r->row8[x];
		return;
	}
	sep8_col_pass(r, co, j->pl->taps.icol, y, NULL, w);
	conv2d_finish_row_i32(r->acc, r->res, w, co);
	if (ch == 1) {
		conv2d_narrow_row8(r->res, dst, w);
		return;
	}
	for (int x = 0; x < w; x++)
		dst[(size_t)x * ch] = (uint8_t)r->res[x];
}

/* Ring row for virtual row vi: the row pass of its source row, or zeros. */
static void
sep8_fill(const struct conv_job *j, struct sep8_rows *r, int c, int vi)
{
	const struct conv2d_coef *co = &j->pl->coef;
	int ry = j->ymap[vi];
	int16_t *dst = r->ring + (size_t)(vi % co->kh) * r->w16;

	if (ry < 0) {
		for (int x = 0; x < r->w16; x++)
			dst[x] = INT16_MIN;
		return;
	}
	sep8_load(j, c, ry, r->pad);
	sep8_row_pass(r->pad, dst, j->pl->taps.irow, co->kw, r->w16);
}

void
conv2d_sep8_band(const struct conv_job *j, void *scratch, int y0, int y1)
{
	int kh = j->pl->coef.kh;
	struct sep8_rows r;

	sep8_carve(&r, j, scratch);
	memset(r.pad, 0, (size_t)r.w16 + j->pl->coef.kw + 64);
	for (int c = 0; c < img_colour_channels(j->in) && y0 < y1; c++) {
		for (int v = y0; v < y0 + kh - 1; v++)
			sep8_fill(j, &r, c, v);
		for (int y = y0; y < y1; y++) {
			sep8_fill(j, &r, c, y + kh - 1);
			sep8_out_row(j, &r, c, y);
		}
	}
}

/*
 * ---- 8-bit 2D kernels in 16-bit lanes (x86-64 with AVX2)
 *
 * The 2D integer path for 8-bit samples when sum |taps| * maxval <= 32767:
 * then every partial sum of products, in any order, is an int16, and
 * sixteen output samples are summed an instruction, exactly the core's
 * integer.  The ring keeps kh padded source rows as bytes.  The finish is
 * conv2d_finish_i32 in 32-bit lanes: a shift for a power-of-two divisor,
 * else floor((2v + d) / 2d) in float, exact because |2v + d| < 2^24 (a
 * quotient that is not an integer is at least 1 / 2d from one, more than
 * float's rounding error there).
 */
#define CONV_LANES_MAX_DIV (1 << 22)

static size_t
lanes2d_row_bytes(const struct conv2d_coef *c, int w)
{
	return ((size_t)sep8_width(w) + c->kw + 64 + 63) / 64 * 64;
}

size_t
conv2d_lanes2d_scratch(const struct conv2d_coef *c, int w)
{
	return lanes2d_row_bytes(c, w) * c->kh + (size_t)sep8_width(w) + 64;
}

/* Whether the plan runs on this path (and the CPU has AVX2). */
int
conv2d_lanes2d_takes(const struct conv2d_plan *pl)
{
	const struct conv2d_coef *c = &pl->coef;
	int64_t sum = 0;

	if (pl->separable || c->mode != CONV2D_I32 || c->maxval > 255 ||
	    c->div >= CONV_LANES_MAX_DIV || !__builtin_cpu_supports("avx2"))
		return 0;
	for (int i = 0; i < c->kw * c->kh; i++)
		sum += llabs((long long)pl->taps.itaps[i]);
	return sum * c->maxval <= 32767;
}

/*
 * conv2d_finish_i32 of the 16 sums v (x .. x+15 in order) into 16 bytes
 * at out8 + x, or fewer where the row ends at w.
 */
__attribute__((target("avx2"))) static void
lanes2d_finish(__m256i v, const struct conv2d_coef *c, uint8_t *out8, int x,
    int w)
{
	const __m256i bias = _mm256_set1_epi32((int32_t)c->bias);
	const __m256i top = _mm256_set1_epi16((short)c->maxval);
	const __m256i zero = _mm256_setzero_si256();
	__m256i q[2];

	if (c->abs)
		v = _mm256_abs_epi16(v);
	q[0] = _mm256_cvtepi16_epi32(_mm256_castsi256_si128(v));
	q[1] = _mm256_cvtepi16_epi32(_mm256_extracti128_si256(v, 1));
	for (int k = 0; k < 2; k++) {
		if (c->pow2 > 0) {
			q[k] = _mm256_srai_epi32(_mm256_add_epi32(q[k],
			    _mm256_set1_epi32((int32_t)(c->div >> 1))), c->pow2 - 1);
		} else {
			__m256 n = _mm256_cvtepi32_ps(_mm256_add_epi32(
			    _mm256_add_epi32(q[k], q[k]),
			    _mm256_set1_epi32((int32_t)c->div)));
			q[k] = _mm256_cvtps_epi32(_mm256_floor_ps(_mm256_div_ps(n,
			    _mm256_set1_ps(2.0f * (float)c->div))));
		}
		q[k] = _mm256_add_epi32(q[k], bias);
	}
	/* packs interleaves 128-bit halves: q0 = x..x+7, q1 = x+8..x+15 */
	__m256i p = _mm256_permute4x64_epi64(_mm256_packs_epi32(q[0], q[1]), 0xd8);
	p = _mm256_min_epi16(_mm256_max_epi16(p, zero), top);
	p = _mm256_permute4x64_epi64(_mm256_packus_epi16(p, p), 0x08);
	if (x + 16 <= w) {
		_mm_storeu_si128((__m128i *)(out8 + x), _mm256_castsi256_si128(p));
	} else {
		uint8_t last[16];
		_mm_storeu_si128((__m128i *)last, _mm256_castsi256_si128(p));
		memcpy(out8 + x, last, (size_t)(w - x));
	}
}

/*
 * One output row into out8 (w bytes) from the kh padded rows src:
 * v = sum over (i, j) of tap * src[i][x + j], taps of 0 skipped and of
 * +-1 added or subtracted without a multiply, with kw
 * a constant where inlined from lanes2d_row.
 */
__attribute__((target("avx2"), always_inline)) static inline void
lanes2d_sums(const uint8_t *const *src, const int32_t *taps, int kw, int kh,
    const struct conv2d_coef *c, uint8_t *out8, int w)
{
	for (int x = 0; x < w; x += 16) {
		__m256i v = _mm256_setzero_si256();
		for (int i = 0; i < kh; i++) {
			const uint8_t *p = src[i] + x;
			for (int j = 0; j < kw; j++) {
				int32_t t = taps[i * kw + j];
				if (t == 0)
					continue;
				__m256i u = _mm256_cvtepu8_epi16(_mm_loadu_si128(
				    (const __m128i *)(p + j)));
				if (t == 1)
					v = _mm256_add_epi16(v, u);
				else if (t == -1)
					v = _mm256_sub_epi16(v, u);
				else
					v = _mm256_add_epi16(v, _mm256_mullo_epi16(u,
					    _mm256_set1_epi16((short)t)));
			}
		}
		lanes2d_finish(v, c, out8, x, w);
	}
}

__attribute__((target("avx2"))) static void
lanes2d_row(const uint8_t *const *src, const struct conv2d_plan *pl,
    uint8_t *out8, int w)
{
	const struct conv2d_coef *c = &pl->coef;
	const int32_t *t = pl->taps.itaps;

	switch (c->kw) {
	case 3: lanes2d_sums(src, t, 3, c->kh, c, out8, w); break;
	case 5: lanes2d_sums(src, t, 5, c->kh, c, out8, w); break;
	case 7: lanes2d_sums(src, t, 7, c->kh, c, out8, w); break;
	default: lanes2d_sums(src, t, c->kw, c->kh, c, out8, w); break;
	}
}

void
conv2d_lanes2d_band(const struct conv_job *j, void *scratch, int y0, int y1)
{
	const struct conv2d_coef *co = &j->pl->coef;
	struct image *out = j->out;
	int kh = co->kh, w = out->width, ch = out->channels;
	size_t rb = lanes2d_row_bytes(co, w);
	uint8_t *ring = scratch, *row8 = ring + rb * kh;
	const uint8_t *src[CONV_MAX_K];

	memset(scratch, 0, conv2d_lanes2d_scratch(co, w));
	for (int c = 0; c < img_colour_channels(j->in) && y0 < y1; c++) {
		for (int v = y0; v < y1 + kh - 1; v++) {
			uint8_t *dst = ring + (size_t)(v % kh) * rb;
			int ry = j->ymap[v];
			if (ry < 0)
				memset(dst, 0, rb);
			else
				sep8_load(j, c, ry, dst);
			if (v < y0 + kh - 1)
				continue;
			int y = v - kh + 1;
			uint8_t *o = (uint8_t *)out->px + (size_t)y * w * ch + c;
			for (int i = 0; i < kh; i++)
				src[i] = ring + (size_t)((y + i) % kh) * rb;
			lanes2d_row(src, j->pl, ch == 1 ? o : row8, w);
			for (int x = 0; ch > 1 && x < w; x++)
				o[(size_t)x * ch] = row8[x];
		}
	}
}
#endif
