/*
 * conv2d_core.h - the one arithmetic core of conv2d, shared by the CPU
 * reference (lib/ops/conv2d/conv2d.c) and every GPU path (kernels/conv2d*.cu).
 *
 * A conv2d output sample is
 *     v = sum over i (rows), then j (columns) of tap[i][j] * p(x+j-ax, y+i-ay)
 * accumulated with conv2d_mac_*() starting from 0 in that row-major
 * order, then turned into a sample by conv2d_finish_*(): made |v| with
 * --abs, divided by the divisor, rounded half up, bias added, clamped to
 * [0, maxval].  Paths
 * differ only in how the samples p reach the accumulator, so they agree
 * bit for bit: integer modes are exact, and the real mode does the same
 * float32 operations (explicit fmaf, no contraction) in the same order.
 *
 * The separable path accumulates each row with the row factors into an
 * intermediate (int32 for integer modes, exact; float for the real mode)
 * and then each column of intermediates with the column factors.
 *
 * This header is read by C11 and by CUDA C++; keep it to plain C.
 */
#ifndef GF_CONV2D_CORE_H
#define GF_CONV2D_CORE_H

#include <math.h>
#include <string.h>

#include "gf.h"

#define CONV_MAX_K 63
/* The largest kernel side of the dp4a path (the 8-bit fast 2D kernels' largest), and its words a row. */
#define CONV_DP4A_K 9
#define CONV_DP4A_W ((CONV_DP4A_K + 3) / 4)

/*
 * Arithmetic modes, chosen once per kernel and maxval on the host:
 * integer taps, divisor and bias use int32 when every intermediate value
 * provably fits (2 * sum|taps| * maxval + 2 * div + |bias| <= INT32_MAX),
 * else int64; anything real uses float32.
 */
enum conv2d_mode {
	CONV2D_I32,
	CONV2D_I64,
	CONV2D_F32
};

/* What the core needs besides the taps (passed to kernels by value). */
struct conv2d_coef {
	int mode;               /* enum conv2d_mode */
	/*
	 * CONV2D_I32 only: every partial sum of products tap * sample (2D,
	 * and both separable passes) is an integer below 2^24 in magnitude
	 * (sum|taps| * maxval < 2^24, and sum|row| * sum|col| * maxval <
	 * 2^24), so a float32 accumulator holds each one exactly: the GPU may
	 * accumulate in float (fmaf) and convert the exact integer back to
	 * int32 before conv2d_finish_i32.  The taps are then also in the float
	 * arrays of struct conv2d_taps (exact: |tap| < 2^24).
	 */
	int fexact;
	/*
	 * CONV2D_I32 only: a square kernel of at most CONV_DP4A_K taps a side,
	 * every tap in [-128, 127].  The 8-bit fast kernels may then sum in
	 * int32 with dp4a (four byte products a step) from the packed taps
	 * in qtaps; the int32 sum is the reference's exactly.
	 */
	int dp4a;
	int kw, kh;             /* taps per row, rows */
	int ax, ay;             /* anchor: kw / 2, kh / 2 */
	int border;             /* enum gf_border */
	unsigned maxval;
	int64_t div;            /* integer modes: >= 1 */
	/*
	 * Integer modes: div is 2^(pow2 - 1) when pow2 > 0 (the finish is then
	 * a shift); 0 when it is not a power of two, or not known to be one.
	 */
	int pow2;
	int64_t bias;           /* integer modes */
	float fdiv;             /* real mode: > 0 */
	float fbias;            /* real mode */
	int abs;                /* --abs: |v| before the divisor and bias */
};

/*
 * The taps as the arithmetic uses them (the GPU keeps this struct in
 * constant memory).  Row-major kh x kw in itaps/ftaps; the separable
 * factors in row (kw) and col (kh).  A negative divisor has already been
 * folded into the signs of taps and row factors, so div > 0.
 */
struct conv2d_taps {
	int32_t itaps[CONV_MAX_K * CONV_MAX_K];
	float ftaps[CONV_MAX_K * CONV_MAX_K];
	int32_t irow[CONV_MAX_K];
	int32_t icol[CONV_MAX_K];
	float frow[CONV_MAX_K];
	float fcol[CONV_MAX_K];
	/* dp4a: row i's taps j = 4m .. 4m + 3 as signed bytes in word i * CONV_DP4A_W + m, 0 past kw */
	uint32_t qtaps[CONV_DP4A_K * CONV_DP4A_W];
};

/* One multiply-accumulate step of each mode. */
GF_HD int32_t
conv2d_mac_i32(int32_t acc, int32_t tap, int32_t v)
{
	return acc + tap * v;
}

GF_HD int64_t
conv2d_mac_i64(int64_t acc, int32_t tap, int64_t v)
{
	return acc + (int64_t)tap * v;
}

GF_HD float
conv2d_mac_f32(float acc, float tap, float v)
{
	return fmaf(tap, v, acc);
}

/* floor(a / d) for d > 0. */
GF_HD int64_t
conv2d_floor_div64(int64_t a, int64_t d)
{
	int64_t q = a / d;
	return (a % d != 0 && a < 0) ? q - 1 : q;
}

GF_HD int32_t
conv2d_floor_div32(int32_t a, int32_t d)
{
	int32_t q = a / d;
	return (a % d != 0 && a < 0) ? q - 1 : q;
}

/* Clamps q to [0, maxval]. */
GF_HD unsigned
conv2d_clamp64(int64_t q, unsigned maxval)
{
	return q < 0 ? 0 : q > (int64_t)maxval ? maxval : (unsigned)q;
}

/*
 * floor(v / div + 1/2) + bias, clamped: (2v + div) / (2 div) rounded
 * down is exactly v / div rounded half up, and for div = 2^s that is
 * (v + div / 2) >> s (an arithmetic shift, which rounds down on every
 * compiler this builds with).  The caller's mode choice guarantees that
 * nothing overflows.
 */
GF_HD unsigned
conv2d_finish_i32(int32_t v, const struct conv2d_coef *c)
{
	if (c->abs && v < 0)
		v = -v;         /* |v| is within the mode's bound too */
	int32_t d = (int32_t)c->div;
	int32_t q = c->pow2 > 0 ? (v + (d >> 1)) >> (c->pow2 - 1) :
	    d == 1 ? v : conv2d_floor_div32(2 * v + d, 2 * d);
	/* |q| <= |v| + 1 and the mode's bound keep q + bias inside int32. */
	int32_t r = q + (int32_t)c->bias;
	return r < 0 ? 0 : r > (int32_t)c->maxval ? c->maxval : (unsigned)r;
}

GF_HD unsigned
conv2d_finish_i64(int64_t v, const struct conv2d_coef *c)
{
	if (c->abs && v < 0)
		v = -v;
	int64_t d = c->div;
	int64_t q = c->pow2 > 0 ? (v + (d >> 1)) >> (c->pow2 - 1) :
	    d == 1 ? v : conv2d_floor_div64(2 * v + d, 2 * d);
	return conv2d_clamp64(q + c->bias, c->maxval);
}

/* v made |v| with --abs, divided by fdiv and the bias added, in float32 (IEEE, the same on both sides). */
GF_HD float
conv2d_scale_f32(float v, const struct conv2d_coef *c)
{
	if (c->abs)
		v = fabsf(v);
	if (c->fdiv != 1.0f)
		v = v / c->fdiv;
	return v + c->fbias;
}

/*
 * conv2d_scale_f32, then rounded half up exactly (v - floorf(v) is
 * exact) and clamped.
 */
GF_HD unsigned
conv2d_finish_f32(float v, const struct conv2d_coef *c)
{
	float r;

	v = conv2d_scale_f32(v, c);
	r = floorf(v);
	if (v - r >= 0.5f)
		r = r + 1.0f;
	if (!(r > 0.0f))        /* also NaN, which finite taps never make */
		return 0;
	if (r >= (float)c->maxval)
		return c->maxval;
	return (unsigned)r;
}

/* a + b rounded down (the GPU's add.rm; on the host through double, where a + b is exact here). */
GF_HD float
gf_fadd_rd(float a, float b)
{
#ifdef __CUDA_ARCH__
	return __fadd_rd(a, b);
#else
	double s = (double)a + (double)b;
	float f = (float)s;
	return (double)f > s ? nextafterf(f, -INFINITY) : f;
#endif
}

/*
 * conv2d_finish_f32's rounding and clamp of a scaled v for maxval <= 255,
 * as the GPU's 8-bit kernels make them: the sample is the low byte of
 * the word returned, which takes no conversion (the GPU's floor and
 * float-to-int issue at a quarter of the float pipe's rate).  With v
 * clamped to [0, maxval] (NaN to 0) the answer is floor(v + 1/2); v + 1/2
 * rounded down lies between that integer, a float, and v + 1/2, so it has
 * the same floor; and adding 2^23, rounded down, leaves that floor in the
 * low bits (tests/conv2d_test.c checks every float from 2^-8 to 512).
 */
GF_HD uint32_t
conv2d_round8_f32(float v, unsigned maxval)
{
	float r = gf_fadd_rd(gf_fadd_rd(fminf(fmaxf(v, 0.0f), (float)maxval), 0.5f),
	    8388608.0f);
	uint32_t u;

	memcpy(&u, &r, sizeof(u));
	return u;
}

#endif
