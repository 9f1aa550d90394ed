/*
 * edge_core.h - the cores of edge (Canny), shared by the CPU reference
 * (lib/ops/edge/edge_cpu.c) and every GPU strategy (kernels/edge_nms.cu): the gradient
 * magnitude, its direction quantized to four sectors, the non-maximum
 * suppression test with the double threshold, and the automatic
 * thresholds.  The paths differ only in how pixels and magnitudes reach
 * these functions, so they agree bit for bit.
 *
 * Everything is integer.  The L2 magnitude is kept squared
 * (gx^2 + gy^2) and compared with squared thresholds, as OpenCV's Canny
 * does with L2gradient=true; --l1 uses |gx| + |gy|.
 *
 * This header is read by C11 and by CUDA C++; keep it to plain C.
 */
#ifndef GF_EDGE_CORE_H
#define GF_EDGE_CORE_H

#include "gf.h"
#include "gradient_core.h"
#include "sobel_core.h"

/* Pixel classes after suppression and thresholding, then after hysteresis. */
enum edge_class {
	EDGE_NONE = 0,          /* not an edge */
	EDGE_WEAK = 1,          /* a local maximum above low, not above high */
	EDGE_STRONG = 2         /* above high, or a weak pixel joined to one: an edge */
};

/*
 * Gradient direction sectors.  The two neighbours compared across the
 * edge are "before" at (x + dx, y + dy) and "after" at (x - dx, y - dy)
 * with (dx, dy) from edge_sector_offset().  y grows downwards.
 */
enum edge_sector {
	EDGE_SECTOR_0,          /* gradient near horizontal: left, right */
	EDGE_SECTOR_45,         /* gx, gy of one sign: up-left, down-right */
	EDGE_SECTOR_90,         /* gradient near vertical: up, down */
	EDGE_SECTOR_135         /* gx, gy of opposite signs: up-right, down-left */
};

/*
 * The sector of the gradient direction, with OpenCV's fixed-point test:
 * tan(22.5 deg) = 13573 / 2^15 and tan(67.5 deg) = (13573 + 2^16) / 2^15.
 * |gy| < |gx| tan 22.5 is sector 0, |gy| > |gx| tan 67.5 sector 90, and in
 * between a diagonal chosen by the signs.  64-bit: 16-bit images give
 * |gx| up to 262140.
 */
GF_HD int
edge_sector(int gx, int gy)
{
	int64_t ax = gx < 0 ? -(int64_t)gx : gx;
	int64_t ay = (gy < 0 ? -(int64_t)gy : gy) * 32768;
	int64_t tg22 = ax * 13573;

	if (ay < tg22)
		return EDGE_SECTOR_0;
	if (ay > tg22 + ax * 65536)
		return EDGE_SECTOR_90;
	return (gx < 0) == (gy < 0) ? EDGE_SECTOR_45 : EDGE_SECTOR_135;
}

/* Offset (dx, dy) of the "before" neighbour of sector s; "after" is the opposite. */
GF_HD void
edge_sector_offset(int s, int *dx, int *dy)
{
	*dx = s == EDGE_SECTOR_0 || s == EDGE_SECTOR_45 ? -1 :
	    s == EDGE_SECTOR_135 ? 1 : 0;
	*dy = s == EDGE_SECTOR_0 ? 0 : -1;
}

/*
 * Non-maximum suppression and the double threshold for an interior pixel
 * of magnitude m in sector s, whose neighbours across the edge have
 * magnitudes before and after.  The tie rule is OpenCV's: in sectors 0
 * and 90 the pixel must be greater than the neighbour before it (left,
 * up) and not smaller than the one after it (right, down); in the
 * diagonal sectors greater than both.  So a survivor is never smaller
 * than either neighbour, and a plateau two pixels wide keeps one pixel.
 */
/*
 * The rule, for edge_classify and edge_classify32 alike (diag: sector
 * 45 or 135): comparisons joined with &, no early exit, so that a row of
 * them vectorizes.
 */
#define EDGE_CLASS(m, before, after, diag, low, high)                       \
	(((m) > (low)) & ((m) > (before)) &                                 \
	    ((diag) ? (m) > (after) : (m) >= (after)) ?                     \
	    ((m) > (high) ? EDGE_STRONG : EDGE_WEAK) : EDGE_NONE)

GF_HD int
edge_classify(uint64_t m, uint64_t before, uint64_t after, int s,
    const struct grad_thresh *p)
{
	int diag = s == EDGE_SECTOR_45 || s == EDGE_SECTOR_135;

	return EDGE_CLASS(m, before, after, diag, p->low, p->high);
}

/*
 * The integer cores for 8-bit images in 32-bit lanes, where the CPU sums
 * twice as many at once: there |gx|, |gy| <= 1020, so gx^2 + gy^2 <=
 * 2080800, and in edge_sector32 |gy| * 2^15 and |gx| * (13573 + 2^16) are
 * below 2^27: every value is edge_sector's and grad_mag's exactly
 * (tests/edge_test.c checks every 8-bit gradient).  The thresholds are
 * clamped at 2^32 - 1, which no such magnitude reaches, so each
 * comparison keeps its answer.
 */
GF_HD uint32_t
edge_mag32(int gx, int gy, int l1)
{
	int ax = gx < 0 ? -gx : gx, ay = gy < 0 ? -gy : gy;

	return (uint32_t)(l1 ? ax + ay : ax * ax + ay * ay);
}

GF_HD int
edge_sector32(int gx, int gy)
{
	int ax = gx < 0 ? -gx : gx, ay = (gy < 0 ? -gy : gy) * 32768;
	int tg22 = ax * 13573;

	if (ay < tg22)
		return EDGE_SECTOR_0;
	if (ay > tg22 + ax * 65536)
		return EDGE_SECTOR_90;
	return (gx < 0) == (gy < 0) ? EDGE_SECTOR_45 : EDGE_SECTOR_135;
}

struct edge_params32 {
	uint32_t low, high;
};

GF_HD struct edge_params32
edge_params_32(const struct grad_thresh *p)
{
	struct edge_params32 q;

	q.low = p->low > UINT32_MAX ? UINT32_MAX : (uint32_t)p->low;
	q.high = p->high > UINT32_MAX ? UINT32_MAX : (uint32_t)p->high;
	return q;
}

/* edge_classify in 32 bits (the same comparisons, joined the same way). */
GF_HD int
edge_classify32(uint32_t m, uint32_t before, uint32_t after, int s,
    const struct edge_params32 *p)
{
	int diag = s == EDGE_SECTOR_45 || s == EDGE_SECTOR_135;

	return EDGE_CLASS(m, before, after, diag, p->low, p->high);
}

/*
 * Magnitude, sector and thresholds for 8-bit images in float, for the
 * GPU's strip kernels (which make edge_classify's comparisons themselves,
 * split over two rows), whose integer work is the GPU's slower pipe:
 * there |gx|, |gy| <= 1020, so every gx, gy, gx^2 + gy^2 <= 2080800 and
 * |gx| * 13573 is an integer below 2^24, exact in float, and each
 * function gives its integer twin's answer for every such gradient
 * (tests/edge_test.c checks them all).  The thresholds are clamped at
 * 2^24, which no magnitude reaches, so "m > low" keeps its answer.
 */
struct edge_paramsf {
	float low, high;
};

GF_HD struct edge_paramsf
edge_params_f(const struct grad_thresh *p)
{
	const uint64_t top = 1u << 24;
	struct edge_paramsf q;

	q.low = (float)(p->low > top ? top : p->low);
	q.high = (float)(p->high > top ? top : p->high);
	return q;
}

GF_HD float
edge_magf(float gx, float gy, int l1)
{
	return l1 ? fabsf(gx) + fabsf(gy) : fmaf(gx, gx, gy * gy);
}

/*
 * edge_sector's tests as three numbers, each made on its own so that a
 * row of them is straight-line code, whose sign bits are the answers
 * (none is ever -0): *h, the sector is 0; *v, it is 90; *ns, gx and gy
 * have different signs (135 rather than 45 where neither h nor v).  With
 * t = 13573 / 2^15, *h is |gy| - t |gx| and *v is (2 + t) |gx| - |gy|
 * (|gy| * 2^15 > |gx| * (13573 + 2^16)): one fused multiply-add each,
 * whose product is exact inside it and whose one rounding keeps the
 * sign (2 + t is a float).  A zero gx or gy, where edge_sector's sign
 * test looks at 0's sign, gives sector 0 or 90 (or 45 with both zero,
 * as there).
 */
GF_HD void
edge_sector_signs(float gx, float gy, float *h, float *v, float *ns)
{
	const float ax = fabsf(gx), ay = fabsf(gy);

	*h = fmaf(-ax, 13573.0f / 32768.0f, ay);
	*v = fmaf(ax, 2.0f + 13573.0f / 32768.0f, -ay);
	*ns = gx * gy;
}

GF_HD int
edge_sectorf(float gx, float gy)
{
	float h, v, ns;

	edge_sector_signs(gx, gy, &h, &v, &ns);
	return signbit(h) ? EDGE_SECTOR_0 : signbit(v) ? EDGE_SECTOR_90 :
	    signbit(ns) ? EDGE_SECTOR_135 : EDGE_SECTOR_45;
}

/* True when (x, y) is in the outer one-pixel frame, which is never an edge. */
GF_HD int
edge_in_frame(int x, int y, int width, int height)
{
	return x < 1 || y < 1 || x > width - 2 || y > height - 2;
}

/* Stored form of threshold t (t >= 0): floor(t^2) for L2, floor(t) for L1. */
GF_HD uint64_t
edge_thresh_store(double t, int l1)
{
	return (uint64_t)(l1 ? t : t * t);
}

#endif
