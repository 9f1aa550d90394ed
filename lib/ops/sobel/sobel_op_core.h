/*
 * sobel_op_core.h - sobel's operators (--operator): the 3x3 Sobel of
 * sobel_core.h, Prewitt, Scharr, and OpenCV's Sobel apertures 5 and 7,
 * as the taps of a separable pair, and the one core that turns a window
 * of samples into their gradients and an output sample.  The CPU
 * reference (sobel_op_cpu.c) and every GPU strategy (kernels/sobel_op.cu)
 * compute the gradients as exact integer sums and the sample with
 * sobel_value_op, so every path agrees bit for bit.  The 3x3 Sobel keeps
 * its own faster paths (sobel_core.h, kernels/sobel.cu).
 *
 * An operator of radius r has taps s[0..2r] (smoothing) and d[0..2r]
 * (derivative); with p(x,y) the samples, as OpenCV's Sobel and Scharr
 * correlate them (dx = 1 is the x derivative, right minus left),
 *     gx(x,y) = sum_j sum_i s[j] d[i] p(x+i-r, y+j-r)
 *     gy(x,y) = sum_j sum_i d[j] s[i] p(x+i-r, y+j-r)
 */
#ifndef GF_SOBEL_OP_CORE_H
#define GF_SOBEL_OP_CORE_H

#include "gf.h"

enum sobel_op {
	SOBEL_OP_SOBEL,         /* 3x3: s = 1 2 1, d = -1 0 1 (the default) */
	SOBEL_OP_PREWITT,       /* 3x3: s = 1 1 1, d = -1 0 1 */
	SOBEL_OP_SCHARR,        /* 3x3: s = 3 10 3, d = -1 0 1 (cv2.Scharr) */
	SOBEL_OP_SOBEL5,        /* 5x5: s = 1 4 6 4 1, d = -1 -2 0 2 1 (cv2.Sobel ksize 5) */
	SOBEL_OP_SOBEL7,        /* 7x7: s = 1 6 15 20 15 6 1, d = -1 -4 -5 0 5 4 1 (ksize 7) */
	SOBEL_NOPS
};

/* The widest operator's radius: the most rows an output row reads either side. */
#define SOBEL_OP_MAX_R 3

/* An operator's taps; entries past 2r are 0. */
struct sobel_taps {
	int r;
	int s[2 * SOBEL_OP_MAX_R + 1];
	int d[2 * SOBEL_OP_MAX_R + 1];
};

/* Operator op's radius: 1 for the 3x3 ones, 2 and 3 for sobel5 and sobel7. */
GF_HD int
sobel_op_radius(int op)
{
	return op == SOBEL_OP_SOBEL7 ? 3 : op == SOBEL_OP_SOBEL5 ? 2 : 1;
}

/*
 * Operator op's taps (an unknown op gives the 3x3 Sobel's).  Each case
 * is a local initializer, no static table: the function serves the
 * host and the device alike.
 */
GF_HD struct sobel_taps
sobel_taps_of(int op)
{
	switch (op) {
	case SOBEL_OP_PREWITT: {
		struct sobel_taps t = {1, {1, 1, 1}, {-1, 0, 1}};
		return t;
	}
	case SOBEL_OP_SCHARR: {
		struct sobel_taps t = {1, {3, 10, 3}, {-1, 0, 1}};
		return t;
	}
	case SOBEL_OP_SOBEL5: {
		struct sobel_taps t = {2, {1, 4, 6, 4, 1}, {-1, -2, 0, 2, 1}};
		return t;
	}
	case SOBEL_OP_SOBEL7: {
		struct sobel_taps t = {3, {1, 6, 15, 20, 15, 6, 1},
		    {-1, -4, -5, 0, 5, 4, 1}};
		return t;
	}
	default: {
		struct sobel_taps t = {1, {1, 2, 1}, {-1, 0, 1}};
		return t;
	}
	}
}

/*
 * The gradients of the window v of R = t->r: 2R+1 rows of stride
 * samples, sample (i, j) of the window at v[j * stride + i], its centre
 * the pixel.  Exact: |gx|, |gy| <= 640 * 65535 < 2^26 for sobel7 on
 * 16-bit samples, the widest case.  The sums run row by row (smoothing
 * and derivative of each row, then weighted by the row's taps); every
 * other order gives the same integers.
 */
GF_HD void
sobel_op_grad(const struct sobel_taps *t, int R, const int *v, int stride,
    int *gx, int *gy)
{
	int sx = 0, sy = 0;

	for (int j = 0; j <= 2 * R; j++) {
		int hs = 0, hd = 0;
		for (int i = 0; i <= 2 * R; i++) {
			hs += t->s[i] * v[j * stride + i];
			hd += t->d[i] * v[j * stride + i];
		}
		sx += t->s[j] * hd;
		sy += t->d[j] * hs;
	}
	*gx = sx;
	*gy = sy;
}

/*
 * tan(k * 45 / 32 degrees) for k = 1 .. 31, the boundaries of the
 * direction bins inside an octant, each the double nearest the true
 * value (from a 60-digit computation), written out so that the host and
 * the device compare with the very same numbers.
 */
#define SOBEL_DIR_TANS(X) \
	X(0.024548622108925444) X(0.049126849769467254) X(0.07376443152244928) \
	X(0.09849140335716425) X(0.12333823613673868) X(0.14833598753834742) \
	X(0.17351646013785577) X(0.198912367379658) X(0.2245575093171293) \
	X(0.25048696019130545) X(0.2767372701404143) X(0.3033466836073424) \
	X(0.3303553773443339) X(0.3578057213145241) X(0.38574256627112125) \
	X(0.41421356237309503) X(0.44326951389086433) X(0.4729647758913199) \
	X(0.5033576997992942) X(0.5345111359507917) X(0.566493002730344) \
	X(0.5993769336819238) X(0.6332430161775692) X(0.6681786379192989) \
	X(0.7042794608650442) X(0.7416505462720354) X(0.7804076596539437) \
	X(0.8206787908286604) X(0.8626059322567399) X(0.9063471690191471) \
	X(0.9520791467009253)

/* One term of sobel_dir_bin's counts: 1 where the boundary lies at or below y / x. */
#define SOBEL_DIR_LE(t) + ((t) * fx <= fy)
/* 1 where the boundary lies below x / y. */
#define SOBEL_DIR_LT(t) + ((t) * fy < fx)

/*
 * The direction of the gradient (gx, gy) in 256 bins of 360/256 degrees:
 * floor(theta * 256 / 360) for theta = atan2(gy, gx) in [0, 360) degrees,
 * from +x towards +y (down the image), as cv2.phase measures it; 0 for a
 * zero gradient.  No atan2, whose last bits differ between libraries:
 * (gx, gy) is turned by multiples of 90 degrees in integers into the
 * first quadrant (64 bins each, q of them below), where theta' < 45
 * (y < x) has bin floor(theta' * 32 / 45), the boundaries tan_k x <= y
 * that hold, and theta' >= 45 has 64 - ceil((90 - theta') * 32 / 45),
 * 64 less the boundaries k = 0 .. 31 with tan_k y < x.  No boundary but
 * k = 0 has a rational tangent, so no integer point lies on one; the
 * double products (correctly rounded on the host and the device alike)
 * decide every gradient the same way on every path, and as the real
 * numbers do for every gradient of an 8-bit image under the 3x3
 * operators (tests/sobel_op_test.c checks |gx|, |gy| <= 4080 against
 * atan2).
 */
GF_HD unsigned
sobel_dir_bin(int gx, int gy)
{
	int x = gx, y = gy, t;
	unsigned q = 0;
	double fx, fy;

	if (x == 0 && y == 0)
		return 0;
	if (y < 0 || (y == 0 && x < 0)) {
		x = -x;
		y = -y;
		q = 2;
	}
	if (x <= 0) {
		t = x;
		x = y;
		y = -t;
		q++;
	}
	fx = x;
	fy = y;
	if (y < x)
		return 64 * q + (0 SOBEL_DIR_TANS(SOBEL_DIR_LE));
	return 64 * q + 63 - (0 SOBEL_DIR_TANS(SOBEL_DIR_LT));
}

#endif
