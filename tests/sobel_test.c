/*
 * sobel_test - the sobel CPU reference against cases computed by hand
 * (the arithmetic is in the comments): border rules, thresholds at their
 * boundary, L1, rounding of the magnitude, clamping, colour to gray, 16
 * bit; the exact integer square roots against their definition; then
 * every GPU strategy and launch shape against the CPU reference, bit for
 * bit (skipped without a GPU).  Prints "pass NAME", "fail NAME: why" or
 * "skip NAME: why".
 *
 * The neighbourhood of a pixel is named
 *     a b c
 *     d e f
 *     g h i
 * gx = (c + 2f + i) - (a + 2d + g), gy = (g + 2h + i) - (a + 2b + c).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "border.h"
#include "sobel_tool.h"
#include "unit.h"

static const char *border_names[] = {"replicate", "zero", "reflect", "wrap"};
static const char *mode_names[] = {"l2", "l1", "thresh_l2", "thresh_l1"};

/* Parameters as the tool derives them: mode 0..3 as enum sobel_mode. */
static struct sobel_params
params(int mode, unsigned maxval, double t)
{
	struct sobel_opts o;

	memset(&o, 0, sizeof(o));
	o.l1 = mode == SOBEL_MAG_L1 || mode == SOBEL_THRESH_L1;
	o.threshold = mode == SOBEL_THRESH_L2 || mode == SOBEL_THRESH_L1;
	o.t = t;
	return sobel_params_for(&o, maxval, t);
}

/*
 * Runs the CPU reference on in and compares the n samples at idx
 * (NULL: 0..n-1) with want.
 */
static void
check_cpu(const char *name, const struct image *in, int mode, double t,
    int border, const size_t *idx, const unsigned *want, size_t n)
{
	struct sobel_params p = params(mode, in->maxval, t);
	struct image out;
	struct gf_err e = {0};

	if (sobel_cpu(in, &out, &p, border, 0, &e) < 0) {
		result(name, 0, "%s", e.msg);
		return;
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = idx ? idx[k] : k;
		if (img_get(&out, i) != want[k]) {
			result(name, 0, "sample %zu is %u, expected %u", i,
			    img_get(&out, i), want[k]);
			img_free(&out);
			return;
		}
	}
	result(name, 1, NULL);
	img_free(&out);
}

/* ---- gf_border_index */

struct bcase {
	int i, n, want[4];      /* replicate, zero, reflect, wrap */
};

/*
 * n = 1: replicate, reflect and wrap all read 0, zero reads nothing (-1).
 * n = 2: reflect has period 2(n-1) = 2: -1 -> 1, 2 -> 0, 3 -> 1, -2 -> 0,
 * the same as wrap (period 2).  n = 4 (abcd): reflect, period 6, reads
 * dcb|abcd|cba: -1 -> 1, -3 -> 3, -4 -> 2, 4 -> 2, 6 -> 0, 7 -> 1;
 * 1000 = 166*6 + 4 -> 6-4 = 2, and -1000 likewise (reflect(-i) =
 * reflect(i)); wrap, period 4: -1 -> 3, -4 -> 0, -5 -> 3, 1000 -> 0,
 * -1001 -> 3.  INT_MIN = -2^31: 2^31 = 357913941*6 + 2 -> reflect 2,
 * 2^31 % 4 = 0 -> wrap 0; INT_MAX = 2^31-1: 1 (reflect), 3 (wrap).
 * n = 3: reflect period 4: -1 -> 1, -2 -> 2, -3 -> 1, 3 -> 1, 4 -> 0.
 */
static void
test_border_index(void)
{
	static const struct bcase cases[] = {
		{0, 1, {0, 0, 0, 0}}, {-1, 1, {0, -1, 0, 0}}, {1, 1, {0, -1, 0, 0}},
		{-7, 1, {0, -1, 0, 0}}, {100, 1, {0, -1, 0, 0}},
		{INT_MIN, 1, {0, -1, 0, 0}}, {INT_MAX, 1, {0, -1, 0, 0}},
		{1, 2, {1, 1, 1, 1}}, {-1, 2, {0, -1, 1, 1}}, {2, 2, {1, -1, 0, 0}},
		{3, 2, {1, -1, 1, 1}}, {-2, 2, {0, -1, 0, 0}},
		{-1, 3, {0, -1, 1, 2}}, {-2, 3, {0, -1, 2, 1}}, {-3, 3, {0, -1, 1, 0}},
		{3, 3, {2, -1, 1, 0}}, {4, 3, {2, -1, 0, 1}},
		{3, 4, {3, 3, 3, 3}}, {-1, 4, {0, -1, 1, 3}}, {-3, 4, {0, -1, 3, 1}},
		{-4, 4, {0, -1, 2, 0}}, {-5, 4, {0, -1, 1, 3}}, {4, 4, {3, -1, 2, 0}},
		{6, 4, {3, -1, 0, 2}}, {7, 4, {3, -1, 1, 3}},
		{1000, 4, {3, -1, 2, 0}}, {-1000, 4, {0, -1, 2, 0}},
		{-1001, 4, {0, -1, 1, 3}},
		{INT_MIN, 4, {0, -1, 2, 0}}, {INT_MAX, 4, {3, -1, 1, 3}},
	};
	char name[64];

	for (int b = 0; b < 4; b++) {
		int bad = -1;
		for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
			if (bad < 0 && gf_border_index(cases[k].i, cases[k].n, b) !=
			    cases[k].want[b])
				bad = (int)k;
		snprintf(name, sizeof(name), "border_index_%s", border_names[b]);
		result(name, bad < 0, "i=%d n=%d gives %d, expected %d",
		    bad < 0 ? 0 : cases[bad].i, bad < 0 ? 0 : cases[bad].n,
		    bad < 0 ? 0 : gf_border_index(cases[bad].i, cases[bad].n, b),
		    bad < 0 ? 0 : cases[bad].want[b]);
	}
}

/* ---- sobel on a 3x3 image, each border */

/*
 * The image p(x, y):
 *     10 20 40
 *     30 50 60
 *      0 90 70
 * Checked at (0,0), (1,0), (2,1) and (1,1), indices 0, 1, 5, 4.  Outside
 * columns/rows -1 and 3 read: replicate 0 and 2, zero nothing, reflect
 * 1 and 1, wrap 2 and 0.
 *
 * (0,0) replicate: a b c = 10 10 20, d f = 10 20, g h i = 30 30 50:
 *   gx = 110 - 60 = 50, gy = 140 - 50 = 90; L1 140, sqrt(10600) = 102.96 -> 103.
 * (0,0) zero: a b c d g = 0, f 20, h 30, i 50: gx = 90, gy = 110;
 *   L1 200, sqrt(20200) = 142.13 -> 142.
 * (0,0) reflect: the neighbourhood is mirror symmetric: gx = gy = 0.
 * (0,0) wrap: a b c = 70 0 90, d f = 40 20, g h i = 60 30 50:
 *   gx = 180 - 210 = -30, gy = 170 - 160 = 10; L1 40, sqrt(1000) = 31.6 -> 32.
 * (1,0) replicate: a b c = 10 20 40, d f = 10 40, g h i = 30 50 60:
 *   gx = 180 - 60 = 120, gy = 190 - 90 = 100; L1 220, sqrt(24400) = 156.2 -> 156.
 * (1,0) zero: a b c = 0: gx = 140 - 50 = 90, gy = 190; L1 280,
 *   sqrt(44200) = 210.2 -> 210.
 * (1,0) reflect: a b c = row 1 = 30 50 60 = g h i: gx = 200 - 80 = 120,
 *   gy = 0; L1 = L2 = 120.
 * (1,0) wrap: a b c = row 2 = 0 90 70: gx = 210 - 50 = 160,
 *   gy = 190 - 250 = -60; L1 220, sqrt(29200) = 170.9 -> 171.
 * (2,1) replicate: a b c = 20 40 40, d f = 50 60, g h i = 90 70 70:
 *   gx = 230 - 210 = 20, gy = 300 - 140 = 160; L1 180, sqrt(26000) = 161.2 -> 161.
 * (2,1) zero: c f i = 0: gx = 0 - 210 = -210, gy = 230 - 100 = 130;
 *   L1 340, sqrt(61000) = 246.98 -> 247.
 * (2,1) reflect: c f i = a d g: gx = 0, gy = 320 - 120 = 200; L1 = L2 = 200.
 * (2,1) wrap: c f i = column 0 = 10 30 0: gx = 70 - 210 = -140,
 *   gy = 230 - 110 = 120; L1 260, sqrt(34000) = 184.4 -> 184.
 * (1,1), no border involved: gx = 230 - 70 = 160, gy = 250 - 90 = 160;
 *   L1 320, sqrt(51200) = 226.3 -> 226.
 * L2 runs on the 8-bit image, L1 on the same samples with maxval 65535
 * (so 320 and 340 do not clamp).
 */
static void
test_border_3x3(void)
{
	static const unsigned px[] = {10, 20, 40, 30, 50, 60, 0, 90, 70};
	static const size_t idx[] = {0, 1, 5, 4};
	static const unsigned l2[4][4] = {
		{103, 156, 161, 226}, {142, 210, 247, 226},
		{0, 120, 200, 226}, {32, 171, 184, 226},
	};
	static const unsigned l1[4][4] = {
		{140, 220, 180, 320}, {200, 280, 340, 320},
		{0, 120, 200, 320}, {40, 220, 260, 320},
	};
	struct image in8 = image_of(3, 3, 1, 255, px);
	struct image in16 = image_of(3, 3, 1, 65535, px);
	char name[64];

	for (int b = 0; b < 4; b++) {
		snprintf(name, sizeof(name), "3x3_%s_l2_8bit", border_names[b]);
		check_cpu(name, &in8, SOBEL_MAG_L2, 0, b, idx, l2[b], 4);
		snprintf(name, sizeof(name), "3x3_%s_l1_16bit", border_names[b]);
		check_cpu(name, &in16, SOBEL_MAG_L1, 0, b, idx, l1[b], 4);
	}
	img_free(&in8);
	img_free(&in16);
}

/*
 * 1x1 image: with any border the eight neighbours are all equal (the
 * pixel itself, or 0 with zero) and e is not used: 0 everywhere.
 */
static void
test_1x1(void)
{
	static const unsigned px[] = {200}, want[] = {0};
	struct image in = image_of(1, 1, 1, 255, px);
	char name[64];

	for (int b = 0; b < 4; b++) {
		snprintf(name, sizeof(name), "1x1_%s", border_names[b]);
		check_cpu(name, &in, SOBEL_MAG_L2, 0, b, NULL, want, 1);
	}
	img_free(&in);
}

/* ---- gradients made to order */

/*
 * A 3x3 image whose centre has gradients (gx, gy), gx >= 0: with a = d =
 * g = c = f = 0 and i = gx, gx = i and gy = 2h + gx - 2b, so h - b =
 * (gy - gx) / 2.  In any image gx + gy = 2(f + h + i - a - b - d) is
 * even, so only pairs of equal parity exist.
 */
static struct image
grad_image(int gx, int gy, unsigned maxval)
{
	unsigned px[9] = {0};

	if (gx < 0 || (gx + gy) % 2 != 0)
		abort();
	px[8] = (unsigned)gx;
	if (gy >= gx)
		px[7] = (unsigned)(gy - gx) / 2;
	else
		px[1] = (unsigned)(gx - gy) / 2;
	return image_of(3, 3, 1, maxval, px);
}

/* A case of grad_image: the centre sample in mode with threshold t is want. */
struct grad_case {
	const char *name;
	int gx, gy;
	unsigned maxval;
	int mode;
	double t;
	unsigned want;
};

/* Runs the n cases of c on the CPU, each on its own grad_image. */
static void
check_grads(const struct grad_case *c, size_t n)
{
	static const size_t centre[] = {4};

	for (size_t i = 0; i < n; i++) {
		struct image in = grad_image(c[i].gx, c[i].gy, c[i].maxval);
		check_cpu(c[i].name, &in, c[i].mode, c[i].t, GF_BORDER_REPLICATE,
		    centre, &c[i].want, 1);
		img_free(&in);
	}
}

/* The centre samples of grad_image, worked out by hand. */
static void
test_grads(void)
{
	static const struct grad_case cases[] = {
		/*
		 * Threshold "> t": (6, 8) has gx^2 + gy^2 = 100 = 10^2, not
		 * above t = 10: 0; t = 9.999 (t^2 = 99.98): 255.  t = 2.5,
		 * t^2 = 6.25: (2, 0) s = 4 and (1, 1) s = 2 give 0, (2, 2)
		 * s = 8 gives 255.  t = 2.9, t^2 = 8.41: (2, 2) gives 0,
		 * (3, 1) s = 10 gives 255.  L1 (|gx| + |gy| > t): (6, 8) is
		 * 14: t = 14 gives 0, t = 13.5 and 13.999 give 255.  maxval
		 * 100: the edge value is 100, not 255.
		 */
		{"thresh_l2_equal", 6, 8, 255, SOBEL_THRESH_L2, 10, 0},
		{"thresh_l2_just_below", 6, 8, 255, SOBEL_THRESH_L2, 9.999, 255},
		{"thresh_l2_2.5_s4", 2, 0, 255, SOBEL_THRESH_L2, 2.5, 0},
		{"thresh_l2_2.5_s2", 1, 1, 255, SOBEL_THRESH_L2, 2.5, 0},
		{"thresh_l2_2.5_s8", 2, 2, 255, SOBEL_THRESH_L2, 2.5, 255},
		{"thresh_l2_2.9_s8", 2, 2, 255, SOBEL_THRESH_L2, 2.9, 0},
		{"thresh_l2_2.9_s10", 3, 1, 255, SOBEL_THRESH_L2, 2.9, 255},
		{"thresh_l1_equal", 6, 8, 255, SOBEL_THRESH_L1, 14, 0},
		{"thresh_l1_13.5", 6, 8, 255, SOBEL_THRESH_L1, 13.5, 255},
		{"thresh_l1_13.999", 6, 8, 255, SOBEL_THRESH_L1, 13.999, 255},
		{"thresh_l2_16bit_equal", 6, 8, 65535, SOBEL_THRESH_L2, 10, 0},
		{"thresh_l2_16bit_below", 6, 8, 65535, SOBEL_THRESH_L2, 9.99, 65535},
		{"thresh_maxval_100", 6, 8, 100, SOBEL_THRESH_L2, 5, 100},
		/*
		 * L2 rounds half up: r for r*r - r < s <= r*r + r.  Reachable
		 * in an image (equal parity): (1, 1) s = 2 = 1*1 + 1 -> 1
		 * (1.414); (4, 2) s = 20 = 4*4 + 4 -> 4 (4.472); (6, 6)
		 * s = 72 = 8*8 + 8 -> 8 (8.485); (9, 3) s = 90 = 9*9 + 9 -> 9
		 * (9.487); (2, 0) -> 2.  L1 of (9, 3) is 12.
		 */
		{"round_1_1", 1, 1, 255, SOBEL_MAG_L2, 0, 1},
		{"round_4_2", 4, 2, 255, SOBEL_MAG_L2, 0, 4},
		{"round_6_6", 6, 6, 255, SOBEL_MAG_L2, 0, 8},
		{"round_9_3", 9, 3, 255, SOBEL_MAG_L2, 0, 9},
		{"round_9_3_16bit", 9, 3, 65535, SOBEL_MAG_L2, 0, 9},
		{"round_2_0", 2, 0, 255, SOBEL_MAG_L2, 0, 2},
		{"l1_9_3", 9, 3, 255, SOBEL_MAG_L1, 0, 12},
	};
	struct sobel_params p = params(SOBEL_THRESH_L2, 255, 2.5);
	struct sobel_params q = params(SOBEL_THRESH_L1, 255, 2.5);

	check_grads(cases, sizeof(cases) / sizeof(cases[0]));
	result("thresh_params_2.5", p.thresh == 6 && q.thresh == 2,
	    "thresh is %llu (l2) and %llu (l1), expected 6 and 2",
	    (unsigned long long)p.thresh, (unsigned long long)q.thresh);
}

/*
 * The rounding cases of odd parity, only reachable through the core:
 * (1, 0) s = 1 = 0*0 + 0 + 1 -> 1; (2, 1) s = 5 -> 2 (2.236); (3, 2)
 * s = 13 = 3*3 + 3 + 1 -> 4 (3.606); (8, 3) s = 73 = 8*8 + 8 + 1 -> 9
 * (8.544); (-8, 3) the same; (0, 0) -> 0.  Both square roots (8 and 16
 * bit).
 */
static void
test_rounding_core(void)
{
	static const int g[][3] = {{1, 0, 1}, {2, 1, 2}, {3, 2, 4}, {8, 3, 9},
	    {-8, 3, 9}, {0, 0, 0}, {-2, -2, 3}};
	char name[64];

	for (int m = 0; m < 2; m++) {
		struct sobel_params p = params(SOBEL_MAG_L2, m ? 65535 : 255, 0);
		for (size_t k = 0; k < sizeof(g) / sizeof(g[0]); k++) {
			unsigned v = sobel_value(g[k][0], g[k][1], &p);
			snprintf(name, sizeof(name), "core_round_%d_%d_%s", g[k][0],
			    g[k][1], m ? "16bit" : "8bit");
			result(name, v == (unsigned)g[k][2], "got %u, expected %d", v,
			    g[k][2]);
		}
	}
}

/*
 * Clamping, 4x3 step 0 0 S S (replicate): gy = 0, gx = 4S at x = 1 and
 * 2, 0 at x = 0 and 3.  S = 255: 1020 -> 255 (L2 and L1).  maxval 100,
 * S = 100: 400 -> 100.  S = 30, maxval 100: 120 -> 100; S = 20: 80.
 */
static void
test_clamp(void)
{
	static const unsigned s255[] = {0, 0, 255, 255, 0, 0, 255, 255, 0, 0, 255, 255};
	static const unsigned s100[] = {0, 0, 100, 100, 0, 0, 100, 100, 0, 0, 100, 100};
	static const unsigned s20[] = {0, 0, 20, 20, 0, 0, 20, 20, 0, 0, 20, 20};
	static const unsigned w255[] = {0, 255, 255, 0, 0, 255, 255, 0, 0, 255, 255, 0};
	static const unsigned w100[] = {0, 100, 100, 0, 0, 100, 100, 0, 0, 100, 100, 0};
	static const unsigned w80[] = {0, 80, 80, 0, 0, 80, 80, 0, 0, 80, 80, 0};
	struct image a = image_of(4, 3, 1, 255, s255);
	struct image b = image_of(4, 3, 1, 100, s100);
	struct image c = image_of(4, 3, 1, 100, s20);

	check_cpu("clamp_l2_255", &a, SOBEL_MAG_L2, 0, GF_BORDER_REPLICATE, NULL, w255, 12);
	check_cpu("clamp_l1_255", &a, SOBEL_MAG_L1, 0, GF_BORDER_REPLICATE, NULL, w255, 12);
	check_cpu("clamp_l2_maxval_100", &b, SOBEL_MAG_L2, 0, GF_BORDER_REPLICATE, NULL,
	    w100, 12);
	check_cpu("clamp_l1_maxval_100", &b, SOBEL_MAG_L1, 0, GF_BORDER_REPLICATE, NULL,
	    w100, 12);
	check_cpu("no_clamp_maxval_100", &c, SOBEL_MAG_L2, 0, GF_BORDER_REPLICATE, NULL,
	    w80, 12);
	img_free(&a);
	img_free(&b);
	img_free(&c);
}

/*
 * 16 bit.  The step 0 0 S S of test_clamp with S = 1000: 0 4000 4000 0
 * (L2 and L1); with S = 65535: 4 * 65535 = 262140 -> 65535.  A 3x3
 * image 0 but i = 1000: the centre has gx = gy = 1000, sqrt(2000000) =
 * 1414.21 -> 1414.  A 3x3 image with f = h = i = 65535: the centre has
 * gx = gy = 3 * 65535 = 196605, s = 77307052050 > 2^32 -> 65535 (in 32
 * bits s would wrap to 4292608018, giving 65518).
 */
static void
test_16bit(void)
{
	static const unsigned s1000[] = {0, 0, 1000, 1000, 0, 0, 1000, 1000, 0, 0,
	    1000, 1000};
	static const unsigned w4000[] = {0, 4000, 4000, 0, 0, 4000, 4000, 0, 0,
	    4000, 4000, 0};
	static const unsigned smax[] = {0, 0, 65535, 65535, 0, 0, 65535, 65535, 0, 0,
	    65535, 65535};
	static const unsigned wmax[] = {0, 65535, 65535, 0, 0, 65535, 65535, 0, 0,
	    65535, 65535, 0};
	static const unsigned diag[] = {0, 0, 0, 0, 0, 0, 0, 0, 1000};
	static const unsigned big[] = {0, 0, 0, 0, 0, 65535, 0, 65535, 65535};
	static const size_t centre[] = {4};
	static const unsigned w1414[] = {1414}, w65535[] = {65535};
	struct image a = image_of(4, 3, 1, 65535, s1000);
	struct image b = image_of(4, 3, 1, 65535, smax);
	struct image c = image_of(3, 3, 1, 65535, diag);
	struct image d = image_of(3, 3, 1, 65535, big);
	const int r = GF_BORDER_REPLICATE;

	check_cpu("16bit_step_1000_l2", &a, SOBEL_MAG_L2, 0, r, NULL, w4000, 12);
	check_cpu("16bit_step_1000_l1", &a, SOBEL_MAG_L1, 0, r, NULL, w4000, 12);
	check_cpu("16bit_step_65535_l2", &b, SOBEL_MAG_L2, 0, r, NULL, wmax, 12);
	check_cpu("16bit_step_65535_l1", &b, SOBEL_MAG_L1, 0, r, NULL, wmax, 12);
	check_cpu("16bit_diagonal_1414", &c, SOBEL_MAG_L2, 0, r, centre, w1414, 1);
	check_cpu("16bit_s_above_2^32", &d, SOBEL_MAG_L2, 0, r, centre, w65535, 1);
	img_free(&a);
	img_free(&b);
	img_free(&c);
	img_free(&d);
}

/* ---- colour to gray */

/*
 * Y = (299 R + 587 G + 114 B + 500) / 1000.  Red 255: 76245 + 500 ->
 * 76; green: 149685 + 500 -> 150; blue: 29070 + 500 -> 29; white:
 * 255000 + 500 -> 255; (0, 12, 4): 7044 + 456 = 7500, exactly 7.5 -> 8;
 * (12, 0, 8): 3588 + 912 = 4500, 4.5 -> 5; (0, 12, 3): 7386 -> 7.
 * 16 bit: red 65535: 19594965 + 500 -> 19595; white 65535.
 */
static void
test_gray(void)
{
	static const unsigned rgb[] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255,
	    0, 12, 4, 12, 0, 8, 0, 12, 3};
	static const unsigned want[] = {76, 150, 29, 255, 8, 5, 7};
	static const unsigned rgb16[] = {65535, 0, 0, 65535, 65535, 65535, 0, 12, 4};
	static const unsigned want16[] = {19595, 65535, 8};
	struct image in = image_of(7, 1, 3, 255, rgb), in16 = image_of(3, 1, 3, 65535, rgb16);
	struct image g = {0}, g16 = {0};
	struct gf_err e = {0};
	int ok = img_to_gray(&in, &g, &e) == 0 && img_to_gray(&in16, &g16, &e) == 0;
	int bad = -1, bad16 = -1;

	for (int i = 0; ok && i < 7; i++)
		if (bad < 0 && img_get(&g, i) != want[i])
			bad = i;
	for (int i = 0; ok && i < 3; i++)
		if (bad16 < 0 && img_get(&g16, i) != want16[i])
			bad16 = i;
	ok = ok && g.channels == 1 && g.maxval == 255 && g16.maxval == 65535;
	result("gray_8bit", ok && bad < 0, "%s pixel %d is %u, expected %u", e.msg, bad,
	    ok && bad >= 0 ? img_get(&g, bad) : 0, bad >= 0 ? want[bad] : 0);
	result("gray_16bit", ok && bad16 < 0, "%s pixel %d is %u, expected %u", e.msg,
	    bad16, ok && bad16 >= 0 ? img_get(&g16, bad16) : 0,
	    bad16 >= 0 ? want16[bad16] : 0);
	img_free(&in);
	img_free(&in16);
	img_free(&g);
	img_free(&g16);
}

/* ---- the integer square roots */

/* The definition: 0 for 0, else the r with r*r - r < s <= r*r + r. */
static int
is_round_sqrt(uint64_t s, uint64_t r)
{
	if (s == 0)
		return r == 0;
	return r > 0 && r * r - r < s && s <= r * r + r;
}

/*
 * Every s in 0..2^22 (both) and 0..2^24-1 (the 32-bit one's range)
 * against a brute-force walk: r grows by one each time s passes r*r + r.
 */
static void
test_isqrt_all(void)
{
	uint64_t r = 0, bad64 = UINT64_MAX, bad32 = UINT64_MAX;

	for (uint64_t s = 0; s < (1u << 24); s++) {
		while (s > r * r + r)
			r++;
		if (s <= (1u << 22) && gf_isqrt_round(s) != r && bad64 == UINT64_MAX)
			bad64 = s;
		if (gf_isqrt_round32((uint32_t)s) != r && bad32 == UINT64_MAX)
			bad32 = s;
	}
	result("isqrt_round_0_to_2^22", bad64 == UINT64_MAX, "wrong at s = %llu",
	    (unsigned long long)bad64);
	result("isqrt_round32_0_to_2^24", bad32 == UINT64_MAX, "wrong at s = %llu",
	    (unsigned long long)bad32);
}

static uint64_t
xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * Large s: random s below 2^38 (16 bit needs s <= 2 * 262140^2 < 2^37),
 * and the edges of every interval around random r < 2^19: r*r - r
 * belongs to r - 1, r*r - r + 1 and r*r + r to r, r*r + r + 1 to r + 1.
 */
static void
test_isqrt_large(void)
{
	uint64_t x = 88172645463325252ull, bad = UINT64_MAX;

	for (int k = 0; k < 4000000 && bad == UINT64_MAX; k++) {
		uint64_t s = xorshift(&x) >> 26;
		if (!is_round_sqrt(s, gf_isqrt_round(s)))
			bad = s;
	}
	result("isqrt_round_random_2^38", bad == UINT64_MAX, "wrong at s = %llu",
	    (unsigned long long)bad);
	bad = UINT64_MAX;
	for (int k = 0; k < 1000000 && bad == UINT64_MAX; k++) {
		uint64_t r = (xorshift(&x) >> 45) + 2;
		uint64_t s[4] = {r * r - r, r * r - r + 1, r * r + r, r * r + r + 1};
		uint64_t want[4] = {r - 1, r, r, r + 1};
		for (int j = 0; j < 4; j++)
			if (gf_isqrt_round(s[j]) != want[j] && bad == UINT64_MAX)
				bad = s[j];
	}
	result("isqrt_round_interval_edges", bad == UINT64_MAX, "wrong at s = %llu",
	    (unsigned long long)bad);
}

/* ---- GPU against the CPU reference */

static size_t
differ(const struct image *a, const struct image *b)
{
	size_t n = (size_t)a->width * a->height, d = 0;

	for (size_t i = 0; i < n; i++)
		d += img_get(a, i) != img_get(b, i);
	return d;
}

static const struct {
	struct gf_launch l;
	const char *name;
} shapes[] = {
	{{0, 0, 0}, ""}, {{7, 3, 5}, "_7x3r5"}, {{32, 8, 4}, "_32x8r4"},
	{{64, 1, 1}, "_64x1r1"},
};
#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))
#define NGPU (GF_LAST_GPU - GF_FIRST_GPU + 1)

/* What one strategy and shape did over every image. */
struct tally {
	size_t diffs, total;
	int failed;
	char why[600];
};

/*
 * Runs strategy s with shape l on din (already uploaded) into dout,
 * which is first filled with junk so that a pixel never written shows.
 */
static void
gpu_one(struct gpu *g, const struct gpu_image *din, const struct gpu_image *dout,
    const struct image *want, const struct sobel_params *p, int border,
    enum gf_strategy s, const struct gf_launch *l, struct tally *t)
{
	struct image got = image_noise(want->width, want->height, 1,
	    want->maxval, want->maxval, 12345);
	struct gf_err e = {0};

	if (gpu_upload(g, &got, 0, dout, &e) < 0 ||
	    sobel_gpu(g, din, dout, p, border, s, l, &e) < 0 ||
	    gpu_download(g, dout, &got, 0, &e) < 0) {
		if (!t->failed)
			snprintf(t->why, sizeof(t->why), "%dx%d maxval %u border %s "
			    "mode %s: %s", want->width, want->height, want->maxval,
			    border_names[border], mode_names[p->mode], e.msg);
		t->failed = 1;
	} else {
		size_t d = differ(want, &got);
		if (d && !t->failed && t->diffs == 0)
			snprintf(t->why, sizeof(t->why), "first at %dx%d maxval %u "
			    "border %s mode %s", want->width, want->height,
			    want->maxval, border_names[border], mode_names[p->mode]);
		t->diffs += d;
		t->total += (size_t)want->width * want->height;
	}
	img_free(&got);
}

/* One input image through the CPU and every strategy and shape. */
static void
gpu_image_case(struct gpu *g, const struct image *in, int border, int mode,
    struct tally t[NGPU][NSHAPES])
{
	double thr = in->maxval > 255 ? (mode == SOBEL_THRESH_L1 ? 70000 : 50000.5) :
	    (mode == SOBEL_THRESH_L1 ? 300 : 200.5);
	struct sobel_params p = params(mode, in->maxval, thr);
	struct gpu_image din, dout;
	struct image want;
	struct gf_err e = {0};

	if (sobel_cpu(in, &want, &p, border, 0, &e) < 0 ||
	    gpu_image_get(g, GPU_SLOT_IN, in->width, in->height, in->maxval, &din, &e) < 0 ||
	    gpu_image_get(g, GPU_SLOT_OUT, in->width, in->height, in->maxval, &dout, &e) < 0 ||
	    gpu_upload(g, in, 0, &din, &e) < 0) {
		for (int s = 0; s < NGPU; s++)
			for (size_t l = 0; l < NSHAPES; l++)
				if (!t[s][l].failed) {
					t[s][l].failed = 1;
					snprintf(t[s][l].why, sizeof(t[s][l].why), "%s", e.msg);
				}
		return;
	}
	for (int s = 0; s < NGPU; s++)
		for (size_t l = 0; l < NSHAPES; l++)
			gpu_one(g, &din, &dout, &want, &p, border,
			    (enum gf_strategy)(GF_FIRST_GPU + s), &shapes[l].l, &t[s][l]);
	img_free(&want);
}

/*
 * Random 8- and 16-bit images, full range and low contrast (amplitude
 * maxval / 16, so that L2 does not saturate), of odd sizes, each border
 * and mode, through every strategy and shape: the same samples as the
 * CPU.  One case per strategy and shape.
 */
static void
test_gpu(void)
{
	static const int sizes[][2] = {{1, 1}, {2, 3}, {1, 700}, {700, 1}, {33, 17},
	    {1031, 517}};
	static struct tally t[NGPU][NSHAPES];
	struct gpu g;
	struct gf_err e = {0};
	char name[96];
	int have = gpu_open(&g, -1, &e) == 0;

	for (size_t z = 0; have && z < sizeof(sizes) / sizeof(sizes[0]); z++)
		for (int bits = 8; bits <= 16; bits += 8)
			for (unsigned div = 1; div <= 16; div *= 16) {
				unsigned mv = bits == 8 ? 255 : 65535;
				struct image in = image_noise(sizes[z][0],
				    sizes[z][1], 1, mv, mv / div,
				    7 + (uint32_t)z * 31 + div);
				for (int b = 0; b < 4; b++)
					for (int m = 0; m < 4; m++)
						gpu_image_case(&g, &in, b, m, t);
				img_free(&in);
			}
	for (int s = 0; s < NGPU; s++)
		for (size_t l = 0; l < NSHAPES; l++) {
			struct tally *c = &t[s][l];
			snprintf(name, sizeof(name), "gpu_%s%s",
			    gf_strategies[GF_FIRST_GPU + s].name, shapes[l].name);
			if (!have) {
				printf("skip %s: no GPU (%s)\n", name, e.msg);
				continue;
			}
			if (c->failed)
				result(name, 0, "%s", c->why);
			else
				result(name, c->diffs == 0 && c->total > 0,
				    "%zu of %zu samples differ from the CPU, %s",
				    c->diffs, c->total, c->why);
		}
	if (have)
		gpu_close(&g);
}

/* ---- the CPU path: threads and row loops against the plain definition */

/* The definition, pixel by pixel: img_sample's border rule and sobel_px. */
static struct image
sobel_plain(const struct image *in, const struct sobel_params *p, int border)
{
	struct image out = image_of(in->width, in->height, 1, in->maxval, NULL);

	for (int y = 0; y < in->height; y++)
		for (int x = 0; x < in->width; x++)
			img_set(&out, (size_t)y * in->width + x, sobel_px(
			    img_sample(in, x - 1, y - 1, border),
			    img_sample(in, x, y - 1, border),
			    img_sample(in, x + 1, y - 1, border),
			    img_sample(in, x - 1, y, border),
			    img_sample(in, x + 1, y, border),
			    img_sample(in, x - 1, y + 1, border),
			    img_sample(in, x, y + 1, border),
			    img_sample(in, x + 1, y + 1, border), p));
	return out;
}

/*
 * sobel_cpu on 1, 2, 3 and 7 threads gives the plain definition's
 * samples: odd sizes (narrow, flat, many bands), every border, per
 * depth and mode.  Thresholds sit inside the gradients' range.
 */
static void
test_cpu_threads(void)
{
	static const int sizes[][2] = {{1, 1}, {2, 40}, {37, 3}, {23, 300},
	    {61, 67}};
	static const int threads[] = {1, 2, 3, 7};
	char name[64], why[640];

	for (int deep = 0; deep < 2; deep++)
	for (int mode = 0; mode < 4; mode++) {
		unsigned m = deep ? 65535 : 255;
		struct sobel_params p = params(mode, m, m * 1.7);
		size_t bad = 0;
		for (size_t k = 0; k < 5; k++)
		for (int b = 0; b < 4; b++) {
			struct image in = image_noise(sizes[k][0],
			    sizes[k][1], 1, m, m, (uint32_t)(k * 16 + b));
			/* All outputs live at once: none reuses another's memory. */
			struct image want = sobel_plain(&in, &p, b), out[4] = {{0}};
			for (int t = 0; t < 4; t++) {
				struct gf_err e = {0};
				size_t d = sobel_cpu(&in, &out[t], &p, b, threads[t],
				    &e) < 0 ? 1 : differ(&want, &out[t]);
				if (d > 0 && bad++ == 0)
					snprintf(why, sizeof(why), "%dx%d %s border, "
					    "%d threads: %zu samples differ %s",
					    in.width, in.height, border_names[b],
					    threads[t], d, e.msg);
			}
			for (int t = 0; t < 4; t++)
				img_free(&out[t]);
			img_free(&want);
			img_free(&in);
		}
		snprintf(name, sizeof(name), "cpu_threads_%dbit_%s", deep ? 16 : 8,
		    mode_names[mode]);
		result(name, bad == 0, "%s", why);
	}
}

int
main(void)
{
	test_border_index();
	test_border_3x3();
	test_1x1();
	test_grads();
	test_rounding_core();
	test_clamp();
	test_16bit();
	test_gray();
	test_isqrt_all();
	test_isqrt_large();
	test_cpu_threads();
	test_gpu();
	return nfail ? 1 : 0;
}
