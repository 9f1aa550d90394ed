/*
 * sobel_core.h - the one stencil core of sobel: from a 3x3 neighbourhood
 * to an output sample.  The CPU reference and every GPU strategy call
 * these functions; the strategies differ only in how the nine samples
 * reach them, which is why every path agrees bit for bit.
 *
 * Neighbourhood naming, by row then column:
 *     a b c
 *     d e f
 *     g h i
 */
#ifndef GF_SOBEL_CORE_H
#define GF_SOBEL_CORE_H

#include <math.h>
#include <string.h>

#include "gf.h"
#include "sobel_op_core.h"

enum sobel_mode {
	SOBEL_MAG_L2,           /* min(maxval, round(sqrt(gx^2 + gy^2))) */
	SOBEL_MAG_L1,           /* min(maxval, |gx| + |gy|) */
	SOBEL_THRESH_L2,        /* maxval if gx^2 + gy^2 > t^2, else 0 */
	SOBEL_THRESH_L1,        /* maxval if |gx| + |gy| > t, else 0 */
	SOBEL_DIRECTION,        /* sobel_dir_bin: 0 .. 255 (sobel_op_core.h's paths) */
	SOBEL_GRAD_X,           /* sobel_offset16(gx): the signed gx at 16 bits */
	SOBEL_GRAD_Y            /* sobel_offset16(gy) */
};

/*
 * What the core needs besides the pixels.  thresh is the largest value
 * that does not pass: floor(t^2) for L2, floor(t) for L1, so the test
 * "value > t" is done exactly in integers.  op is the operator (enum
 * sobel_op): the 3x3 Sobel's paths are this header's and
 * kernels/sobel.cu's, the others' sobel_op_core.h's and
 * kernels/sobel_op.cu's.  maxval is the output's: the input's, or 65535
 * for the signed gradients (SOBEL_GRAD_X, SOBEL_GRAD_Y) and sobel
 * --depth 16; where that makes the output wider than the input (an
 * 8-bit image), sobel_wide_path holds and kernels/sobel_wide.cu runs.
 */
struct sobel_params {
	int mode;
	unsigned maxval;
	uint64_t thresh;
	int op;
};

GF_HD int
sobel_gx(int a, int c, int d, int f, int g, int i)
{
	return (c + 2 * f + i) - (a + 2 * d + g);
}

GF_HD int
sobel_gy(int a, int b, int c, int g, int h, int i)
{
	return (g + 2 * h + i) - (a + 2 * b + c);
}

/*
 * round(sqrt(s)) with halves rounded up, exactly, for s < 2^62: the
 * float estimate is corrected in integers so that (r - 1/2)^2 <= s <
 * (r + 1/2)^2, which for integer s reads r*r - r < s <= r*r + r.
 */
GF_HD uint32_t
gf_isqrt_round(uint64_t s)
{
	uint64_t r = (uint64_t)sqrt((double)s + 0.25);
	while (r > 0 && r * r - r >= s)
		r--;
	while (r * r + r < s)
		r++;
	return (uint32_t)r;
}

/* The same for s < 2^24 (8-bit images), in 32-bit arithmetic. */
GF_HD uint32_t
gf_isqrt_round32(uint32_t s)
{
	uint32_t r = (uint32_t)(sqrtf((float)s) + 0.5f);
	if (r > 0 && r * r - r >= s)
		r--;
	else if (r * r + r < s)
		r++;
	return r;
}

/* One output sample from the gradients. */
GF_HD unsigned
sobel_value(int gx, int gy, const struct sobel_params *p)
{
	uint32_t ax = gx < 0 ? -gx : gx, ay = gy < 0 ? -gy : gy;
	uint32_t l1 = ax + ay, m;
	uint64_t s;

	switch (p->mode) {
	case SOBEL_MAG_L1:
		return l1 < p->maxval ? l1 : p->maxval;
	case SOBEL_THRESH_L1:
		return l1 > p->thresh ? p->maxval : 0;
	case SOBEL_THRESH_L2:
		s = (uint64_t)ax * ax + (uint64_t)ay * ay;
		return s > p->thresh ? p->maxval : 0;
	default:
		if (p->maxval <= 255)
			m = gf_isqrt_round32(ax * ax + ay * ay);
		else
			m = gf_isqrt_round((uint64_t)ax * ax + (uint64_t)ay * ay);
		return m < p->maxval ? m : p->maxval;
	}
}

/*
 * A signed gradient g as a 16-bit sample: g saturated to [-32768, 32767]
 * (what OpenCV's saturate_cast to CV_16S does: sobel5's and sobel7's
 * gradients of 8-bit images, and any operator's of 16-bit ones, can
 * leave that range), plus 32768: offset binary, 0 for -32768, 32768 for
 * 0, 65535 for 32767.  Its top bit flipped is the int16 of cv2.Sobel(img,
 * cv2.CV_16S, ...) in two's complement.
 */
GF_HD unsigned
sobel_offset16(int g)
{
	return (unsigned)((g < -32768 ? -32768 : g > 32767 ? 32767 : g) + 32768);
}

/*
 * One output sample from the gradients of any operator: sobel_value's
 * rules, or the direction's bin, in 64-bit arithmetic at every depth (sobel7's gradients of
 * 16-bit samples reach 640 * 65535; their squares need 52 bits).  For the
 * 3x3 Sobel it equals sobel_value.
 */
GF_HD unsigned
sobel_value_op(int gx, int gy, const struct sobel_params *p)
{
	uint64_t ax = gx < 0 ? (uint64_t)-(int64_t)gx : (uint64_t)gx;
	uint64_t ay = gy < 0 ? (uint64_t)-(int64_t)gy : (uint64_t)gy;
	uint64_t l1 = ax + ay, s = ax * ax + ay * ay, m;

	switch (p->mode) {
	case SOBEL_MAG_L1:
		return l1 < p->maxval ? (unsigned)l1 : p->maxval;
	case SOBEL_THRESH_L1:
		return l1 > p->thresh ? p->maxval : 0;
	case SOBEL_THRESH_L2:
		return s > p->thresh ? p->maxval : 0;
	case SOBEL_DIRECTION:
		return sobel_dir_bin(gx, gy);
	case SOBEL_GRAD_X:
		return sobel_offset16(gx);
	case SOBEL_GRAD_Y:
		return sobel_offset16(gy);
	default:
		m = gf_isqrt_round(s);
		return m < p->maxval ? (unsigned)m : p->maxval;
	}
}

/*
 * Whether p runs through sobel_op_core.h's paths (sobel_op_cpu,
 * kernels/sobel_op.cu): an operator other than the 3x3 Sobel, the
 * direction, or a signed gradient.
 */
GF_HD int
sobel_op_path(const struct sobel_params *p)
{
	return p->op != SOBEL_OP_SOBEL || p->mode >= SOBEL_DIRECTION;
}

/*
 * Whether p's output (of maxval p->maxval) is wider than an input of
 * maxval in_maxval: 16-bit samples of an 8-bit image (the signed
 * gradients, --depth 16), which sobel_op_cpu writes and
 * kernels/sobel_wide.cu's kernels make on the GPU, for every operator.
 */
GF_HD int
sobel_wide_path(const struct sobel_params *p, unsigned in_maxval)
{
	return gf_sample_bytes(p->maxval) > gf_sample_bytes(in_maxval);
}

/*
 * round(sqrt(s)) + 2^23 for an integer-valued float 0 <= s <= 65280 (the
 * m^2 + m of any m <= 255), or s = 2^-30 standing for 0, from y, an
 * estimate of 1 / sqrt(s) within 8 ulps (the GPU's rsqrt is within 2).
 * No integer lies within 1/4 of the square of a half-integer h, so sqrt(s)
 * lies at least 1/4 / (sqrt(s) + h) >= 1/2044 from every h <= 255.5, and
 * s * y is within 8 * 2^-23 * 255.5 < 1/4096 of sqrt(s): on the same side
 * of every h.  Adding 2^23 in the same fused step rounds it to the nearest
 * integer, which is the answer, in the low bits of the float.
 */
GF_HD float
gf_root_biased(float s, float y)
{
	return fmaf(s, y, 8388608.0f);
}

/* The integer n of v = 2^23 + n (0 <= n < 2^23): v's bits less 2^23's. */
GF_HD uint32_t
gf_unbias23(float v)
{
	uint32_t u;

	memcpy(&u, &v, sizeof(u));
	return u - 0x4B000000u;
}

/*
 * The smaller of a and b, neither of them NaN: what fminf gives there,
 * as a select, so that a row of it vectorizes on the host (fminf's NaN
 * rule keeps it a libm call).
 */
GF_HD float
gf_minf(float a, float b)
{
	return a < b ? a : b;
}

/*
 * The L2 threshold as a float for 8-bit images: above 2^24 no
 * gx^2 + gy^2 can pass, and below the float is exact.
 */
GF_HD float
sobel_thresh_f(const struct sobel_params *p)
{
	return p->thresh > (1u << 24) ? (float)(1u << 24) : (float)p->thresh;
}

/*
 * The L2 magnitude of an 8-bit gradient, at most m <= 255, plus 2^23 (its
 * byte is the low byte of the float's bits).  gy^2 + 2^-30 rounds to gy^2
 * unless gy is 0, so s is gx^2 + gy^2, or 2^-30 where that is 0: never a
 * zero for the root, which would give 0 * inf.
 */
GF_HD float
sobel_root_biased(float gx, float gy, float m)
{
	float s = fminf(fmaf(gx, gx, fmaf(gy, gy, 0x1p-30f)), fmaf(m, m, m)), y;

#ifdef __CUDA_ARCH__
	/* rsqrtf's guard for denormals costs three instructions; s has none. */
	asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(s));
#else
	y = 1.0f / sqrtf(s);
#endif
	return gf_root_biased(s, y);
}

/*
 * The same for 8-bit images (|gx|, |gy| <= 1020), in float32: every value
 * is an integer below 2^24, so every operation is exact and the result
 * equals sobel_value's (tests/core_test.c checks all gx, gy).  It keeps
 * the work on the GPU's float pipe, which issues twice as fast as its
 * integer one.  The result is an integer-valued float.
 */
GF_HD float
sobel_value_f(float gx, float gy, const struct sobel_params *p)
{
	float m = (float)p->maxval, l1 = fabsf(gx) + fabsf(gy);
	float t = sobel_thresh_f(p);

	switch (p->mode) {
	case SOBEL_MAG_L1:
		return gf_minf(l1, m);
	case SOBEL_THRESH_L1:
		return l1 > t ? m : 0.0f;
	}
	if (p->mode == SOBEL_THRESH_L2)
		return fmaf(gx, gx, gy * gy) > t ? m : 0.0f;
	/*
	 * Every s above m^2 + m rounds to m or more, and m^2 + m to m: with
	 * s clamped there, the root needs no clamp after, and s <= 65280.
	 */
#ifdef __CUDA_ARCH__
	return sobel_root_biased(gx, gy, m) - 8388608.0f;
#else
	/* sqrtf is within 2^-24 of sqrt(s): as gf_root_biased, nearest is exact. */
	return rintf(sqrtf(gf_minf(fmaf(gx, gx, gy * gy), fmaf(m, m, m))));
#endif
}

/* The core: one output sample from the neighbourhood a..i (e unused). */
GF_HD unsigned
sobel_px(int a, int b, int c, int d, int f, int g, int h, int i,
    const struct sobel_params *p)
{
	int gx = sobel_gx(a, c, d, f, g, i), gy = sobel_gy(a, b, c, g, h, i);

	if (p->maxval <= 255)
		return (unsigned)sobel_value_f((float)gx, (float)gy, p);
	return sobel_value(gx, gy, p);
}

#endif
