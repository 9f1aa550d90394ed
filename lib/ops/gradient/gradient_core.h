/*
 * gradient_core.h - what sobel's gradient means to those that threshold
 * it, shared by Otsu's threshold (lib/ops/otsu/otsu.h) and edge (lib/ops/edge/edge_core.h)
 * on the CPU and the GPU: the magnitude compared with thresholds, a
 * double threshold in those units and the one Otsu's t gives, and the
 * magnitude in sobel's units that Otsu's histogram counts.  Below both,
 * so that sobel -t auto needs nothing of edge.
 *
 * This header is read by C11 and by CUDA C++; keep it to plain C.
 */
#ifndef GF_GRADIENT_CORE_H
#define GF_GRADIENT_CORE_H

#include "gf.h"
#include "sobel_core.h"

/*
 * Thresholds in magnitude units, each stored as the largest magnitude
 * that does not pass it: floor(t^2) for L2 (compared with gx^2 + gy^2),
 * floor(t) for L1, as sobel's -t.  A pixel is weak when its magnitude
 * is > low, strong when > high (edge's classes).
 */
struct grad_thresh {
	int l1;
	uint64_t low;
	uint64_t high;
};

/* The magnitude the thresholds are compared with: gx^2 + gy^2, or |gx| + |gy|. */
GF_HD uint64_t
grad_mag(int gx, int gy, int l1)
{
	int64_t ax = gx < 0 ? -(int64_t)gx : gx, ay = gy < 0 ? -(int64_t)gy : gy;

	if (l1)
		return (uint64_t)(ax + ay);
	return (uint64_t)(ax * ax + ay * ay);
}

/* What sobel computes for Otsu's histogram: the magnitude, in norm l1 or L2. */
GF_HD struct sobel_params
grad_hist_params(int l1, unsigned maxval)
{
	struct sobel_params sp;

	sp.mode = l1 ? SOBEL_MAG_L1 : SOBEL_MAG_L2;
	sp.maxval = maxval;
	sp.thresh = 0;
	return sp;
}

/*
 * The histogram value of a gradient for Otsu: the magnitude in sobel's
 * units, min(maxval, round(sqrt(gx^2 + gy^2))) or min(maxval, |gx| + |gy|).
 */
GF_HD uint32_t
grad_hist_value(int gx, int gy, int l1, unsigned maxval)
{
	struct sobel_params sp = grad_hist_params(l1, maxval);

	return sobel_value(gx, gy, &sp);
}

/*
 * grad_hist_value for 8-bit images (maxval m <= 255) in float, plus 2^23:
 * the value is the low bits of the float (grad_hist_value8 takes them),
 * so a histogram bin needs no conversion.  The L2 root is
 * sobel_root_biased's, rounded by its proof; tests/edge_test.c checks
 * every gx, gy.  On the GPU it issues on the float pipe and has no
 * integer square root.
 */
GF_HD float
grad_hist_biased8(float gx, float gy, int l1, float m)
{
	if (l1)
		return gf_minf(fabsf(gx) + fabsf(gy), m) + 8388608.0f;
	return sobel_root_biased(gx, gy, m);
}

GF_HD uint32_t
grad_hist_value8(int gx, int gy, int l1, unsigned maxval)
{
	return gf_unbias23(grad_hist_biased8((float)gx, (float)gy, l1,
	    (float)maxval));
}

/*
 * The double threshold of Otsu's t (edge --auto): high is t, low is
 * t / 2, both exact in integers: floor((t/2)^2) = floor(t^2 / 4).
 */
GF_HD void
grad_thresh_auto(uint32_t t, int l1, struct grad_thresh *p)
{
	uint64_t t2 = (uint64_t)t * t;

	p->l1 = l1;
	p->high = l1 ? t : t2;
	p->low = l1 ? t / 2 : t2 / 4;
}

#endif
