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

#include "gf.h"

enum sobel_mode {
	SOBEL_MAG_L2,           /* min(maxval, round(sqrt(gx^2 + gy^2))) */
	SOBEL_MAG_L1,           /* min(maxval, |gx| + |gy|) */
	SOBEL_THRESH_L2,        /* maxval if gx^2 + gy^2 > t^2, else 0 */
	SOBEL_THRESH_L1         /* maxval if |gx| + |gy| > t, else 0 */
};

/*
 * What the core needs besides the pixels.  thresh is the largest value
 * that does not pass: floor(t^2) for L2, floor(t) for L1, so the test
 * "value > t" is done exactly in integers.
 */
struct sobel_params {
	int mode;
	unsigned maxval;
	uint64_t thresh;
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
 * round(sqrt(s)) with halves rounded up, for integer-valued 0 <= s < 2^22
 * in float, from an integer guess r within 1 of the answer: the answer is
 * the r with r*r - r < s <= r*r + r (0 for s = 0), all exact in float.
 */
GF_HD float
gf_round_sqrt_f(float s, float r)
{
	if (s > fmaf(r, r, r))
		r += 1.0f;
	else if (r > 0.0f && s <= fmaf(r, r, -r))
		r -= 1.0f;
	return r;
}

/*
 * The same from y, an estimate of 1 / sqrt(max(s, 1)) with a relative
 * error below 2^-13 (the GPU's rsqrtf is within 2 ulps): t = s * y + 1/4
 * lies within 1/4 below sqrt(s) + 1/2, so floor(t) is the answer or one
 * less, and r (r + 1) < s tells which.  Fewer steps than from a rounded
 * guess, which can be off either way.
 */
GF_HD float
gf_round_sqrt_y(float s, float y)
{
	float r = floorf(fmaf(s, y, 0.25f));
	return fmaf(r, r, r) < s ? r + 1.0f : r;
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
 * The same for 8-bit images (|gx|, |gy| <= 1020), in float32: every value
 * is an integer below 2^24, so every operation is exact and the result
 * equals sobel_value's (tests/sobel_test.c checks all gx, gy).  It keeps
 * the work on the GPU's float pipe, which issues twice as fast as its
 * integer one.  The result is an integer-valued float.
 */
GF_HD float
sobel_value_f(float gx, float gy, const struct sobel_params *p)
{
	float m = (float)p->maxval, l1 = fabsf(gx) + fabsf(gy), s;
	float t = sobel_thresh_f(p);

	switch (p->mode) {
	case SOBEL_MAG_L1:
		return gf_minf(l1, m);
	case SOBEL_THRESH_L1:
		return l1 > t ? m : 0.0f;
	}
	s = fmaf(gx, gx, gy * gy);
	if (p->mode == SOBEL_THRESH_L2)
		return s > t ? m : 0.0f;
	/*
	 * Every s above m^2 + m rounds to m or more, and m^2 + m to m: with
	 * s clamped there, the root needs no clamp after.
	 */
#ifdef __CUDA_ARCH__
	float y;
	s = fminf(s, fmaf(m, m, m));
	/* rsqrtf's guard for denormals costs three instructions; s >= 1 has none. */
	asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(fmaxf(s, 1.0f)));
	return gf_round_sqrt_y(s, y);
#else
	s = gf_minf(s, fmaf(m, m, m));
	return gf_round_sqrt_f(s, rintf(sqrtf(s)));
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
