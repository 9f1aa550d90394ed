/*
 * conv2d_test - conv2d's kernel parsing and CPU reference against cases
 * computed by hand (the derivations are in the comments), then every GPU
 * path against the CPU reference on synthetic images (skipped without a
 * GPU).  Prints "pass NAME", "fail NAME: why" or "skip NAME: why".
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d.h"
#include "unit.h"

/* conv2d parameters for kernel text with the given options. */
static int
params(struct conv2d_filter *p, const char *ktext, int border, double div,
    double bias, struct gf_err *e)
{
	memset(p, 0, sizeof(*p));
	p->border = border;
	p->divisor = div;
	p->bias = bias;
	p->allow_separable = 1;
	return kspec_parse(ktext, &p->k, e);
}

/* Runs the CPU reference and compares samples with want (n of them). */
static void
check_cpu(const char *name, const struct image *in,
    const struct conv2d_filter *p, const int *want, size_t n)
{
	struct image out;
	struct gf_err e = {0};

	if (conv2d_cpu(in, &out, p, 0, &e) < 0) {
		result(name, 0, "%s", e.msg);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if ((int)img_get(&out, i) != want[i]) {
			result(name, 0, "sample %zu is %d, expected %d", i,
			    (int)img_get(&out, i), want[i]);
			img_free(&out);
			return;
		}
	}
	result(name, 1, NULL);
	img_free(&out);
}

static const char *border_names[] = {"replicate", "zero", "reflect", "wrap"};

/*
 * A 5x5 kernel wider than the image, three taps (divisor 1: its sum is
 * kept): k[0][1] = 1 reads
 * p(x-1, y-2), k[4][3] = 100 reads p(x+1, y+2), k[2][2] = 10000 reads
 * p(x, y).  16-bit, so nothing clamps.
 */
#define K5 "0 1 0 0 0; 0 0 0 0 0; 0 0 10000 0 0; 0 0 0 0 0; 0 0 0 100 0"

/*
 * 2x3 image p(x, y) = 1 + x + 2y.  Column maps (n = 2) of x-1, x+1:
 * replicate -1->0, 2->1; reflect and wrap -1->1, 2->0.  Row maps (n = 3)
 * of y-2, y+2: replicate -2,-1->0, 3,4->2; reflect -2->2, -1->1, 3->1,
 * 4->0; wrap -2->1, -1->2, 3->0, 4->1.  E.g. reflect at (0,0):
 * p(1,2) + 100 p(1,2) + 10000 p(0,0) = 6 + 600 + 10000 = 10606; zero at
 * (1,2): p(0,0) + 0 + 60000 = 60001.
 */
static void
test_border_2x3(void)
{
	static const unsigned px[] = {1, 2, 3, 4, 5, 6};
	static const int want[4][6] = {
		{10601, 20601, 30601, 40601, 50601, 60601},
		{10600, 20000, 30000, 40000, 50000, 60001},
		{10606, 20505, 30404, 40303, 50202, 60101},
		{10604, 20503, 30206, 40105, 50402, 60301},
	};
	struct image in = image_of(2, 3, 1, 65535, px);
	struct conv2d_filter p;
	char name[64];

	for (int b = 0; b < 4; b++) {
		snprintf(name, sizeof(name), "border_5x5_on_2x3_%s", border_names[b]);
		if (params(&p, K5, b, 1, 0, NULL) == 0)
			check_cpu(name, &in, &p, want[b], 6);
	}
	img_free(&in);
}

/* 1x1 image 5: every read is 5 (10101 * 5 = 50505) except with zero (50000). */
static void
test_border_1x1(void)
{
	static const unsigned px[] = {5};
	static const int want[4] = {50505, 50000, 50505, 50505};
	struct image in = image_of(1, 1, 1, 65535, px);
	struct conv2d_filter p;
	char name[64];

	for (int b = 0; b < 4; b++) {
		snprintf(name, sizeof(name), "border_5x5_on_1x1_%s", border_names[b]);
		if (params(&p, K5, b, 1, 0, NULL) == 0)
			check_cpu(name, &in, &p, &want[b], 1);
	}
	img_free(&in);
}

/*
 * 1x700 image p(y) = 1 + y % 5; columns x-1, x+1 map to 0 except with
 * zero (0).  Rows 0, 1, 350, 699, e.g. wrap at 0: p(698) + 100 p(2) +
 * 10000 p(0) = 4 + 300 + 10000; reflect at 699: p(697) + 100 p(697) +
 * 10000 p(699) = 3 + 300 + 50000.
 */
static void
test_border_1x700(void)
{
	static const int want[4][4] = {
		{10301, 20401, 10304, 50503},
		{10000, 20000, 10000, 50000},
		{10303, 20402, 10304, 50303},
		{10304, 20405, 10304, 50203},
	};
	static const int rows[4] = {0, 1, 350, 699};
	unsigned px[700];
	struct conv2d_filter p;
	struct image in, out;
	char name[64];

	for (int y = 0; y < 700; y++)
		px[y] = 1 + y % 5;
	in = image_of(1, 700, 1, 65535, px);
	for (int b = 0; b < 4; b++) {
		int bad = -1;
		snprintf(name, sizeof(name), "border_5x5_on_1x700_%s", border_names[b]);
		if (params(&p, K5, b, 1, 0, NULL) < 0 || conv2d_cpu(&in, &out, &p, 0, NULL) < 0) {
			result(name, 0, "failed");
			continue;
		}
		for (int r = 0; r < 4; r++)
			if ((int)img_get(&out, rows[r]) != want[b][r])
				bad = r;
		result(name, bad < 0, "row %d is %d, expected %d", bad < 0 ? 0 : rows[bad],
		    bad < 0 ? 0 : (int)img_get(&out, rows[bad]), bad < 0 ? 0 : want[b][bad]);
		img_free(&out);
	}
	img_free(&in);
}

/*
 * Even kernels (divisor 1).  "1 2; 3 4" has its anchor at (1, 1): v = p(x-1,y-1) +
 * 2 p(x,y-1) + 3 p(x-1,y) + 4 p(x,y); on 1 2 3 / 4 5 6 (replicate) at
 * (1,1): 1 + 4 + 12 + 20 = 37.  "1 2 3 4" has ax = 2: v = p(x-2) +
 * 2 p(x-1) + 3 p(x) + 4 p(x+1); on 10 20 30 40 50 (zero) / 10 at x = 4:
 * (30 + 80 + 150 + 0) / 10 = 26.
 */
static void
test_even(void)
{
	static const unsigned px[] = {1, 2, 3, 4, 5, 6};
	static const int want[] = {10, 16, 26, 31, 37, 47};
	static const unsigned px4[] = {10, 20, 30, 40, 50};
	static const int want4[] = {11, 20, 30, 40, 26};
	struct conv2d_filter p;
	struct image in = image_of(3, 2, 1, 255, px), in4 = image_of(5, 1, 1, 255, px4);

	if (params(&p, "1 2; 3 4", GF_BORDER_REPLICATE, 1, 0, NULL) == 0)
		check_cpu("even_2x2", &in, &p, want, 6);
	if (params(&p, "1 2 3 4", GF_BORDER_ZERO, 10, 0, NULL) == 0)
		check_cpu("even_4x1_divisor", &in4, &p, want4, 5);
	img_free(&in);
	img_free(&in4);
}

/*
 * Negative taps and clamping: 8 at the centre, -1 around, bias 128, on a
 * 3x3 image that is 0 but 100 at the centre (replicate): the centre is
 * 800 + 128 -> 255 (clamped), every other pixel sees the centre once:
 * -100 + 128 = 28; without the bias they clamp to 0.
 */
static void
test_negative(void)
{
	static const unsigned px[] = {0, 0, 0, 0, 100, 0, 0, 0, 0};
	static const int want[] = {28, 28, 28, 28, 255, 28, 28, 28, 28};
	static const int want0[] = {0, 0, 0, 0, 255, 0, 0, 0, 0};
	struct conv2d_filter p;
	struct image in = image_of(3, 3, 1, 255, px);
	const char *k = "-1 -1 -1; -1 8 -1; -1 -1 -1";

	if (params(&p, k, GF_BORDER_REPLICATE, 0, 128, NULL) == 0)
		check_cpu("negative_taps_bias_clamp", &in, &p, want, 9);
	if (params(&p, k, GF_BORDER_REPLICATE, 0, 0, NULL) == 0)
		check_cpu("negative_taps_clamp_to_0", &in, &p, want0, 9);
	img_free(&in);
}

/*
 * Divisor, bias and rounding half up.  "1 1" (ax = 1): v = p(x-1) + p(x)
 * on 0 1 2 3 (replicate) is 0 1 3 5.  /2: 0, 0.5 -> 1, 1.5 -> 2,
 * 2.5 -> 3.  /-2 + 10: 10, floor(-0.5 + 0.5) + 10 = 10, floor(-1) + 10 =
 * 9, floor(-2) + 10 = 8.  Real taps 0.5 0.5 give 0 0.5 1.5 2.5: the same
 * 0 1 2 3.  Divisor 2.5: 0, 0.4, 1.2, 2 -> 0 0 1 2.  --normalize
 * divides by the tap sum 2, as /2.
 */
static void
test_divisor_bias(void)
{
	static const unsigned px[] = {0, 1, 2, 3};
	static const int half[] = {0, 1, 2, 3}, neg[] = {10, 10, 9, 8}, r25[] = {0, 0, 1, 2};
	struct conv2d_filter p;
	struct image in = image_of(4, 1, 1, 255, px);

	if (params(&p, "1 1", GF_BORDER_REPLICATE, 2, 0, NULL) == 0)
		check_cpu("divisor_half_up", &in, &p, half, 4);
	if (params(&p, "1 1", GF_BORDER_REPLICATE, -2, 10, NULL) == 0)
		check_cpu("negative_divisor_bias", &in, &p, neg, 4);
	if (params(&p, "0.5 0.5", GF_BORDER_REPLICATE, 0, 0, NULL) == 0)
		check_cpu("real_taps_half_up", &in, &p, half, 4);
	if (params(&p, "1 1", GF_BORDER_REPLICATE, 2.5, 0, NULL) == 0)
		check_cpu("real_divisor", &in, &p, r25, 4);
	if (params(&p, "1 1", GF_BORDER_REPLICATE, 0, 0, NULL) == 0) {
		p.normalize = 1;
		check_cpu("normalize", &in, &p, half, 4);
	}
	img_free(&in);
}

/*
 * Colour, channel by channel: "1 2 1" normalized on two RGB pixels
 * (10,100,200) (20,50,0), replicate.  R: (10+20+20)/4 = 12.5 -> 13,
 * (10+40+20)/4 = 17.5 -> 18; G: 350/4 -> 88, 250/4 -> 63; B: 600/4 =
 * 150, 200/4 = 50.
 */
static void
test_colour(void)
{
	static const unsigned px[] = {10, 100, 200, 20, 50, 0};
	static const int want[] = {13, 88, 150, 18, 63, 50};
	struct conv2d_filter p;
	struct image in = image_of(2, 1, 3, 255, px);

	if (params(&p, "1 2 1", GF_BORDER_REPLICATE, 0, 0, NULL) == 0) {
		p.normalize = 1;
		check_cpu("colour_per_channel", &in, &p, want, 6);
	}
	img_free(&in);
}

/*
 * 16 bit and int64: a 63x63 kernel of 1000s on a 65535 image sums to
 * 3969000 * 65535, far beyond int32; divided by 3969000 it is 65535.
 * A 5x5 kernel of 1000s on 16 bit (2 * 25000 * 65535 > 2^31) also needs
 * int64: normalized, a uniform 40000 stays 40000.
 */
static void
test_int64(void)
{
	static struct conv2d_filter p;
	struct conv2d_plan *pl = malloc(sizeof(*pl));
	struct image in = image_of(3, 2, 1, 65535, (unsigned[]){65535, 65535, 65535,
	    65535, 65535, 65535});
	struct image in5 = image_of(2, 2, 1, 65535, (unsigned[]){40000, 40000, 40000, 40000});
	int want[6] = {65535, 65535, 65535, 65535, 65535, 65535};
	int want5[4] = {40000, 40000, 40000, 40000};

	memset(&p, 0, sizeof(p));
	p.k.kw = p.k.kh = 63;
	for (int i = 0; i < 63 * 63; i++)
		p.k.taps[i] = 1000;
	kspec_classify(&p.k);
	p.divisor = 3969000;
	result("plan_int64_63x63", pl && conv2d_plan_make(&p, 65535, pl, NULL) == 0 &&
	    pl->coef.mode == CONV2D_I64 && pl->separable == 0, "expected int64, 2D");
	check_cpu("int64_63x63_16bit", &in, &p, want, 6);
	params(&p, "1000 1000 1000 1000 1000;1000 1000 1000 1000 1000;1000 1000 "
	    "1000 1000 1000;1000 1000 1000 1000 1000;1000 1000 1000 1000 1000",
	    GF_BORDER_REFLECT, 0, 0, NULL);
	p.normalize = 1;
	result("plan_int64_5x5_16bit", pl && conv2d_plan_make(&p, 65535, pl, NULL) == 0 &&
	    pl->coef.mode == CONV2D_I64, "expected int64");
	result("plan_int32_5x5_8bit", pl && conv2d_plan_make(&p, 255, pl, NULL) == 0 &&
	    pl->coef.mode == CONV2D_I32, "expected int32");
	check_cpu("int64_5x5_16bit", &in5, &p, want5, 4);
	free(pl);
	img_free(&in);
	img_free(&in5);
}

/* Counts samples of a and b that differ, and the largest difference. */
static size_t
differ(const struct image *a, const struct image *b, int *maxdiff)
{
	size_t n = (size_t)a->width * a->height * a->channels, d = 0;

	*maxdiff = 0;
	for (size_t i = 0; i < n; i++) {
		int x = abs((int)img_get(a, i) - (int)img_get(b, i));
		d += x != 0;
		if (x > *maxdiff)
			*maxdiff = x;
	}
	return d;
}

/*
 * The separable path of integer kernels equals the 2D path exactly; for
 * real ones (float intermediate) it may differ by rounding, at most one
 * level.  Every border, 8 and 16 bit, odd sizes.
 */
static void
test_separable_cpu(void)
{
	static const char *kernels[] = {"box:5", "1 2 1; 2 4 2; 1 2 1", "sobelx",
	    "2 4; 3 6", "gauss:1.5", "gauss:0.8:9"};
	static struct conv2d_filter p;
	char name[96];

	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
		size_t diffs = 0;
		int worst = 0, md, bad = 0;
		for (int b = 0; b < 4; b++) {
			for (int bits = 8; bits <= 16; bits += 8) {
				struct image in = image_noise(37, 23, 1,
				    bits == 8 ? 255 : 65535, bits == 8 ? 255 : 65535,
				    7 + b);
				struct image o1, o2;
				params(&p, kernels[k], b, 0, bits == 8 ? 0 : 3, NULL);
				p.allow_separable = 1;
				bad |= !p.k.separable || conv2d_cpu(&in, &o1, &p, 0, NULL) < 0;
				p.allow_separable = 0;
				bad |= conv2d_cpu(&in, &o2, &p, 0, NULL) < 0;
				diffs += differ(&o1, &o2, &md);
				worst = md > worst ? md : worst;
				img_free(&in);
				img_free(&o1);
				img_free(&o2);
			}
		}
		snprintf(name, sizeof(name), "separable_vs_2d_%s", kernels[k]);
		for (char *c = name; *c; c++)
			if (*c == ' ' || *c == ';' || *c == ':')
				*c = '_';
		printf("# %s: %zu samples differ, by at most %d\n", name, diffs, worst);
		result(name, !bad && (p.k.integer ? diffs == 0 : worst <= 1),
		    "%zu samples differ, by at most %d", diffs, worst);
	}
}

/*
 * The CPU's 16-bit-lane separable path (8-bit samples, row factors >= 0)
 * against the 2D path, exact: widths about the 16 samples of its lanes,
 * odd and even kernels (an odd number of rows pairs the last with
 * itself), a divisor that is a power of two (finished in the lanes) and
 * one that is not, a bias, a maxval below 255, colour, every border.
 */
static void
test_separable_lanes(void)
{
	static const char *kernels[] = {"gauss:1.4", "box:3", "1 2 3 2; 2 4 6 4",
	    "gauss:2.5", "1 2 1", "3; 5; 1"};
	static const int widths[] = {1, 2, 15, 16, 17, 33, 64, 67};
	static const unsigned maxvals[] = {255, 100};
	static struct conv2d_filter p;
	size_t diffs = 0, runs = 0;
	int md, bad = 0;

	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++)
	for (size_t wi = 0; wi < sizeof(widths) / sizeof(widths[0]); wi++)
	for (int b = 0; b < 4; b++)
	for (int m = 0; m < 2; m++) {
		int ch = wi % 3 == 2 ? 3 : 1, h = 1 + (int)(wi + k) % 12;
		struct image in = image_noise(widths[wi], h, ch, maxvals[m],
		    maxvals[m], 11 + (uint32_t)(b + 4 * wi));
		struct image o1, o2;
		params(&p, kernels[k], b, 0, m ? 9 : 0, NULL);
		bad |= conv2d_cpu(&in, &o1, &p, 2, NULL) < 0;
		p.allow_separable = 0;
		bad |= conv2d_cpu(&in, &o2, &p, 1, NULL) < 0;
		diffs += differ(&o1, &o2, &md);
		runs++;
		img_free(&in);
		img_free(&o1);
		img_free(&o2);
	}
	result("separable_lanes_vs_2d", !bad && diffs == 0,
	    "%zu samples differ over %zu images", diffs, runs);
}

/*
 * The CPU's 8-bit lane paths against its generic path, which takes the
 * same samples stored as 16 bit with maxval 256: the integers are the
 * same, so each 8-bit sample must be the 256 one clamped to 255.  2D
 * kernels of 2 to 9 taps a side, divisors that are and are not powers
 * of two, bias, --abs, colour, widths about 16, every border; separable
 * ones too.
 */
static void
test_lanes_vs_generic(void)
{
	static const struct { const char *k; double div, bias; int abs, sep; } ks[] = {
		{"0 -1 -2 -1 0; -1 2 4 2 -1; -2 4 12 4 -2; -1 2 4 2 -1; "
		    "0 -1 -2 -1 0", 16, 0, 0, 0},
		{"box:5", 0, 0, 0, 0},
		{"1 -2 3 -4; 5 6 -7 8", 3, 7, 0, 0},
		{"laplace", 3, 0, 1, 0},
		{"@tests/kernels/nonsep9x9.txt", 4, 128, 0, 0},
		{"box:7", 0, 0, 0, 0},
		{"gauss:1.4", 0, 0, 0, 1},
		{"1 2 3 2; 2 4 6 4", 5, 3, 0, 1},
		{"box:3", 0, 0, 0, 1},
	};
	static const int widths[] = {1, 3, 16, 17, 31, 40};
	static struct conv2d_filter p;
	size_t diffs = 0, runs = 0;
	int bad = 0;

	for (size_t k = 0; k < sizeof(ks) / sizeof(ks[0]); k++)
	for (size_t wi = 0; wi < sizeof(widths) / sizeof(widths[0]); wi++)
	for (int b = 0; b < 4; b++) {
		int ch = wi == 4 ? 3 : 1, h = 2 + (int)(k + wi) % 9;
		struct image a = image_noise(widths[wi], h, ch, 255, 255,
		    3 + (uint32_t)(b + 7 * k + 31 * wi));
		struct image a16 = image_of(widths[wi], h, ch, 256, NULL), o8, o16;
		for (size_t i = 0; i < (size_t)widths[wi] * h * ch; i++)
			img_set(&a16, i, img_get(&a, i));
		bad |= params(&p, ks[k].k, b, ks[k].div, ks[k].bias, NULL) < 0;
		p.abs = ks[k].abs;
		p.allow_separable = ks[k].sep;
		bad |= conv2d_cpu(&a, &o8, &p, 2, NULL) < 0 ||
		    conv2d_cpu(&a16, &o16, &p, 1, NULL) < 0;
		for (size_t i = 0; !bad && i < (size_t)widths[wi] * h * ch; i++) {
			unsigned v = img_get(&o16, i);
			diffs += img_get(&o8, i) != (v > 255 ? 255 : v);
		}
		runs++;
		img_free(&a);
		img_free(&a16);
		img_free(&o8);
		img_free(&o16);
	}
	result("lanes_vs_generic", !bad && diffs == 0,
	    "%zu samples differ over %zu images", diffs, runs);
}

/* ---- kernel parsing */

static void
expect_kernel(const char *name, const char *text, int kw, int kh,
    const double *taps, int integer, int separable)
{
	static struct kspec k;
	struct gf_err e = {0};

	if (kspec_parse(text, &k, &e) < 0) {
		result(name, 0, "%s", e.msg);
		return;
	}
	int ok = k.kw == kw && k.kh == kh && k.integer == integer &&
	    k.separable == separable;
	for (int i = 0; ok && taps && i < kw * kh; i++)
		ok = k.taps[i] == taps[i];
	for (int i = 0; ok && separable && i < kh; i++)
		for (int j = 0; ok && j < kw; j++)
			ok = k.integer ? k.col[i] * k.row[j] == k.taps[i * kw + j] :
			    fabs(k.col[i] * k.row[j] - k.taps[i * kw + j]) < 1e-6;
	result(name, ok, "got %dx%d integer %d separable %d", k.kw, k.kh,
	    k.integer, k.separable);
}

/*
 * Gaussian taps in fixed point, worked by hand from the man page's rule.
 * sigma 1.4, 11 taps: exp(-d^2 / 3.92) / 3.5092 * 256 for d = 5..1 is
 * 0.124, 1.231, 7.340, 26.29, 56.54; rounding from the outside with the
 * error carried in: 0.124 -> 0 (0.124 left), 1.355 -> 1 (0.355), 7.695 ->
 * 8 (-0.305), 25.98 -> 26 (-0.02), 56.52 -> 57; the centre takes 256 -
 * 2 * 92 = 72; the zero end pair is dropped unless the size was given.
 * sigma 2, 5 taps: 0.6065 and 0.8825 of 3.9781, times 256: 39.03 -> 39,
 * 56.79 + 0.03 -> 57, centre 256 - 192 = 64.
 */
static void
test_gauss_taps(void)
{
	static const struct { const char *k; int n; double row[11]; } cases[] = {
		{"gauss:1.4", 9, {1, 8, 26, 57, 72, 57, 26, 8, 1}},
		{"gauss:1.4:11", 11, {0, 1, 8, 26, 57, 72, 57, 26, 8, 1, 0}},
		{"gauss:2:5", 5, {39, 57, 64, 57, 39}},
	};
	static struct kspec k;
	struct gf_err e = {0};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		int ok = kspec_parse(cases[c].k, &k, &e) == 0 && k.kw == cases[c].n;
		for (int i = 0; ok && i < cases[c].n; i++)
			ok = k.row[i] == cases[c].row[i] && k.col[i] == cases[c].row[i];
		result(cases[c].k, ok, "got %d taps, the middle one %g", k.kw,
		    k.row[k.kw / 2]);
	}
}

static void
expect_error(const char *name, const char *text, const char *needle)
{
	static struct kspec k;
	struct gf_err e = {0};

	if (kspec_parse(text, &k, &e) == 0)
		result(name, 0, "'%s' was accepted", text);
	else
		result(name, strstr(e.msg, needle) != NULL,
		    "message '%s' lacks '%s'", e.msg, needle);
}

static void
test_kspec(void)
{
	static const double blur[] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
	static const double sharpen[] = {0, -1, 0, -1, 5, -1, 0, -1, 0};
	static const double emboss[] = {-2, -1, 0, -1, 1, 1, 0, 1, 2};
	static const double sobely[] = {-1, -2, -1, 0, 0, 0, 1, 2, 1};
	static const double odd[] = {1, 2, 3, 4, 5, 6};
	static const double lap8[] = {-1, -1, -1, -1, 8, -1, -1, -1, -1};
	static const double pad[] = {1, 2, 0};
	const char *path = "/tmp/conv2d_test_kernel.txt";
	FILE *f;

	expect_kernel("kspec_inline", "1 2 1; 2 4 2; 1 2 1", 3, 3, blur, 1, 1);
	expect_kernel("kspec_commas", "1,2,1;2,4,2;1,2,1;", 3, 3, blur, 1, 1);
	expect_kernel("kspec_sharpen", "sharpen", 3, 3, sharpen, 1, 0);
	expect_kernel("kspec_emboss", "emboss", 3, 3, emboss, 1, 0);
	expect_kernel("kspec_sobely", "sobely", 3, 3, sobely, 1, 1);
	expect_kernel("kspec_laplace", "laplace", 3, 3, NULL, 1, 0);
	expect_kernel("kspec_identity", "identity", 3, 3, NULL, 1, 1);
	expect_kernel("kspec_box", "box:4", 4, 4, NULL, 1, 1);
	expect_kernel("kspec_gauss_size", "gauss:1.4", 9, 9, NULL, 1, 1);
	expect_kernel("kspec_gauss4_23", "gauss:4", 23, 23, NULL, 1, 1);
	expect_kernel("kspec_gauss_given_size", "gauss:2:5", 5, 5, NULL, 1, 1);
	expect_kernel("kspec_2x3", "1 2 3; 4 5 6", 3, 2, odd, 1, 0);
	expect_kernel("kspec_rank1_int", "2 4; 3 6", 2, 2, NULL, 1, 1);
	expect_kernel("kspec_rank1_neg", "0 0 0; -2 0 2; -1 0 1", 3, 3, NULL, 1, 1);
	expect_kernel("kspec_zero_not_sep", "0 0; 0 0", 2, 2, NULL, 1, 0);
	expect_kernel("kspec_rank1_real", "0.1 0.2; 0.2 0.4", 2, 2, NULL, 0, 1);
	expect_kernel("kspec_rank2_real", "0.1 0.2; 0.2 0.401", 2, 2, NULL, 0, 0);
	f = fopen(path, "w");
	if (f) {
		fputs("# a blur\n1 2 1   # first row\n\n2 4 2\n1,2,1\n", f);
		fclose(f);
	}
	expect_kernel("kspec_file", "@/tmp/conv2d_test_kernel.txt", 3, 3, blur, 1, 1);
	f = fopen(path, "w");
	if (f) {
		fputs("# bad\n1 2 1\n2 x 2\n", f);
		fclose(f);
	}
	expect_error("kspec_file_bad", "@/tmp/conv2d_test_kernel.txt", "line 3: kernel row 2, value 2");
	remove(path);
	expect_error("kspec_file_missing", "@/nonexistent/k.txt", "cannot open");
	expect_error("kspec_file_dir", "@/tmp", "kernel file");
	expect_error("kspec_ragged", "1 2 1; 2 4", "row 2 has 2 values; row 1 has 3");
	expect_error("kspec_ragged_long", "1 2; 2 4 5", "row 2 has more values");
	expect_error("kspec_nan_value", "1 2; 3 abc", "row 2, value 2: 'abc'");
	expect_error("kspec_inf", "1 inf", "row 1, value 2");
	expect_error("kspec_empty", "", "empty");
	expect_error("kspec_blank", " ; ", "row 1 is empty");
	expect_error("kspec_empty_row", "1 2;;3 4", "row 2 is empty");
	expect_error("kspec_huge_tap", "1 1e12", "too large");
	expect_error("kspec_unknown_name", "blur", "not a kernel");
	expect_error("kspec_box0", "box:0", "box size");
	expect_error("kspec_box64", "box:64", "box size");
	expect_error("kspec_gauss0", "gauss:0", "gauss sigma");
	expect_error("kspec_gauss_big", "gauss:11", "more than 63");
	expect_error("kspec_gauss_even", "gauss:1:4", "odd");
	expect_error("kspec_gauss_bad", "gauss:x", "gauss sigma");
	expect_error("kspec_at_nothing", "@", "names no file");
	expect_kernel("kspec_laplacian8", "laplacian", 3, 3, lap8, 1, 0);
	expect_kernel("kspec_odd_square_row", "-1,-1,-1,-1,8,-1,-1,-1,-1", 3, 3,
	    lap8, 1, 0);
	expect_kernel("kspec_im_3x3", "3x3: -1,-1,-1,-1,8,-1,-1,-1,-1", 3, 3,
	    lap8, 1, 0);
	expect_kernel("kspec_im_3", "3: -1 -1 -1 -1 8 -1 -1 -1 -1", 3, 3, lap8,
	    1, 0);
	expect_kernel("kspec_im_anchor", "2x1+1+0: 1 2", 3, 1, pad, 1, 1);
	expect_kernel("kspec_row_of_9_kept", "1 2 3 4 5 6 7 8 9;", 9, 1, NULL, 1, 1);
	expect_kernel("kspec_log_size", "log:1.4", 13, 13, NULL, 1, 0);
	expect_kernel("kspec_dog_size", "dog:1,2", 13, 13, NULL, 1, 0);
	expect_kernel("kspec_unsharp_size", "unsharp:1,0.5", 7, 7, NULL, 1, 0);
	expect_kernel("kspec_unsharp_0", "unsharp:1,0", 1, 1, NULL, 1, 1);
	expect_error("kspec_im_count", "3x3: 1 2 3", "needs 9 values (3x3); 3 given");
	expect_error("kspec_im_anchor_out", "3x3+3+0: 1 2 3 4 5 6 7 8 9", "outside");
	expect_error("kspec_im_too_wide", "64x1: 1", "sides must be 1 to 63");
	expect_error("kspec_dog_equal", "dog:1,1", "equal");
	expect_error("kspec_dog_one", "dog:1", "two numbers");
	expect_error("kspec_unsharp_one", "unsharp:1", "two numbers");
	expect_error("kspec_unsharp_big", "unsharp:1,17", "AMOUNT");
	expect_error("kspec_log_small", "log:0.1", "log sigma");
	expect_error("kspec_log_big", "log:8", "log sigma");
	{
		char big[82 * 3 + 1] = "";
		for (int i = 0; i < 81; i++)
			strcat(big, "1 ");
		expect_kernel("kspec_81_values_9x9", big, 9, 9, NULL, 1, 1);
		strcat(big, "1 1 1 1");
		expect_error("kspec_85_values", big, "not the square of an odd side");
	}
	{
		char big[64 * 4 + 1] = "";
		for (int i = 0; i < 64; i++)
			strcat(big, "1 ");
		expect_error("kspec_64_columns", big, "more than 63 values");
		memset(big, 0, sizeof(big));
		for (int i = 0; i < 64; i++)
			strcat(big, "1;");
		expect_error("kspec_64_rows", big, "more than 63 rows");
	}
}

/* ---- GPU against the CPU reference */

struct gpu_case {
	const char *name, *kernel;
	double div, bias;
	int allow_separable;
};

/* Compares every GPU strategy with the CPU on one kernel, all borders and sizes. */
static void
gpu_compare(struct gpu *g, const struct gpu_case *gc, enum gf_strategy s,
    const struct gf_launch *l, const char *lname)
{
	static const int sizes[][2] = {{1, 1}, {2, 3}, {1, 700}, {700, 1}, {37, 29},
	    {130, 67}, {67, 130}};
	static struct conv2d_filter p;
	struct gf_err e = {0};
	size_t diffs = 0, total = 0;
	int worst = 0, md, ok = 1;
	char name[128];

	snprintf(name, sizeof(name), "gpu_%s_%s%s", gc->name,
	    gc->allow_separable ? "separable" : gf_strategies[s].name, lname);
	for (size_t z = 0; ok && z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		for (int b = 0; ok && b < 4; b++) {
			for (int bits = 8; ok && bits <= 16; bits += 8) {
				unsigned mv = bits == 8 ? 255 : 65535;
				struct image in = image_noise(sizes[z][0],
				    sizes[z][1], 1, mv, mv, 99 + z);
				struct image want, got = in;
				struct gpu_image din, dout;
				ok = params(&p, gc->kernel, b, gc->div, gc->bias, &e) == 0;
				p.allow_separable = gc->allow_separable;
				ok = ok && conv2d_cpu(&in, &want, &p, 0, &e) == 0 &&
				    img_alloc(&got, &e) == 0 &&
				    gpu_image_get(g, GPU_SLOT_IN, in.width, in.height, mv, &din, &e) == 0 &&
				    gpu_image_get(g, GPU_SLOT_OUT, in.width, in.height, mv, &dout, &e) == 0 &&
				    gpu_upload(g, &in, 0, &din, &e) == 0 &&
				    conv2d_gpu(g, &din, &dout, &p, s, l, &e) == 0 &&
				    gpu_download(g, &dout, &got, 0, &e) == 0;
				if (ok) {
					diffs += differ(&want, &got, &md);
					worst = md > worst ? md : worst;
					total += (size_t)in.width * in.height;
					img_free(&want);
				}
				img_free(&got);
				img_free(&in);
			}
		}
	}
	if (!ok) {
		result(name, 0, "%s", e.msg);
		return;
	}
	printf("# %s: %zu of %zu samples differ from the CPU, by at most %d\n",
	    name, diffs, total, worst);
	result(name, diffs == 0, "%zu of %zu samples differ, by at most %d",
	    diffs, total, worst);
}

static void
test_gpu(void)
{
	static const struct gpu_case cases[] = {
		{"sharpen", "sharpen", 0, 0, 0},
		{"even_4x2", "1 -2 3 -4; 5 6 -7 8", 3, 7, 0},
		{"int_9x9", "@tests/kernels/nonsep9x9.txt", 0, 128, 0},
		{"real_5x5", "0.1 0.2 -0.3 0.05 0.01; 0.5 0.25 0.125 -0.2 0.3; 0 1 "
		    "0.7 0 0.1; 0.2 0.2 0.2 -0.1 0; 0.01 0.02 0.03 0.04 0.05", 1.7, 2.5, 0},
		{"int64_7x7", "@tests/kernels/wide7x7.txt", 1e6, 0, 0},
		{"gauss4_2d", "gauss:4", 0, 0, 0},
		{"box5", "box:5", 0, 0, 1},
		{"sobelx", "sobelx", -1, 100, 1},
		{"gauss1.5", "gauss:1.5", 0, 0, 1},
		{"gauss4", "gauss:4", 0, 0, 1},
		{"even_sep_4x2", "2 4 6 8; -3 -6 -9 -12", 5, 200, 1},
		{"real_sep_1x7", "0.1 0.2 0.3 0.4 0.3 0.2 0.1", 0, 0.5, 1},
	};
	static const struct { struct gf_launch l; const char *name; } shapes[] = {
		{{0, 0, 0}, ""}, {{13, 7, 3}, "_13x7r3"}, {{64, 1, 1}, "_64x1r1"},
	};
	struct gpu g;
	struct gf_err e = {0};
	int have = gpu_open(&g, -1, &e) == 0;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		for (size_t l = 0; l < sizeof(shapes) / sizeof(shapes[0]); l++) {
			for (int s = GF_FIRST_GPU; s <= GF_LAST_GPU; s++) {
				if (cases[c].allow_separable && s != GF_FIRST_GPU)
					break;
				if (!have) {
					printf("skip gpu_%s_%s%s: no GPU (%s)\n", cases[c].name,
					    cases[c].allow_separable ? "separable" :
					    gf_strategies[s].name, shapes[l].name, e.msg);
					continue;
				}
				gpu_compare(&g, &cases[c], (enum gf_strategy)s, &shapes[l].l,
				    shapes[l].name);
			}
		}
	}
	if (have)
		gpu_close(&g);
}

/*
 * Checks conv2d_finish_row_i32 against conv2d_finish_i32 for the
 * accumulators v0 .. v0 + count - 1 with divisor d, and with --abs if
 * abs; the bias puts the quotients of the block inside 0..65535, so no
 * clamp hides them.  Returns the samples that differ.
 */
static long
finish_block(int32_t d, int64_t v0, int count, int abs)
{
	static int32_t acc[4096];
	static uint16_t res[4096];
	struct conv2d_coef c;
	long bad = 0;

	memset(&c, 0, sizeof(c));
	c.mode = CONV2D_I32;
	c.maxval = 65535;
	c.div = d;
	c.abs = abs;
	/* |v| of the block's first accumulator is the largest, or near 0 */
	int64_t m = abs && v0 < 0 ? -v0 : v0;
	c.bias = 30000 - conv2d_floor_div64(2 * m + d, 2 * (int64_t)d);
	for (int i = 0; i < count; i++)
		acc[i] = (int32_t)(v0 + i);
	conv2d_finish_row_i32(acc, res, count, &c);
	for (int i = 0; i < count; i++)
		bad += res[i] != conv2d_finish_i32(acc[i], &c);
	return bad;
}

/*
 * The CPU's row finish of the I32 mode (the division in double) equals
 * conv2d_finish_i32: every accumulator in [-2^21, 2^21), and 2^16 at
 * each end of the range the mode allows for the divisor and bias, for
 * small, odd, power-of-two and large divisors, with and without --abs.
 */
static void
test_finish_row(void)
{
	static const int32_t divs[] = {1, 2, 3, 7, 16, 255, 1000, 65535,
	    1 << 20, (1 << 29) + 1};
	long bad = 0;
	int32_t d0 = 0;

	for (size_t k = 0; k < sizeof(divs) / sizeof(divs[0]); k++) {
		int32_t d = divs[k];
		/* 2|v| + 2d + |bias| <= INT32_MAX with |bias| <= |v| / d + 30000 */
		int64_t top = (int64_t)((INT32_MAX - 2.0 * d - 40000) /
		    (2 + 1.0 / d));
		long b0 = bad;
		for (int abs = 0; abs <= 1; abs++) {
			for (int64_t v = -(1 << 21); v < (1 << 21); v += 4096)
				bad += finish_block(d, v, 4096, abs);
			for (int64_t v = top - 65536; v < top; v += 4096)
				bad += finish_block(d, v + 1, 4096, abs);
			for (int64_t v = -top; v < -top + 65536; v += 4096)
				bad += finish_block(d, v, 4096, abs);
		}
		if (bad > b0 && d0 == 0)
			d0 = d;
	}
	result("finish_row_i32", bad == 0, "%ld samples differ, first with "
	    "divisor %d", bad, d0);
}

/*
 * conv2d_round8_f32 (the 8-bit GPU kernels' rounding) against
 * conv2d_finish_f32 for every float from 2^-8 to 512, their negatives
 * down to -2^-8, and the edge cases, for several maxvals.
 */
static void
test_round8(void)
{
	static const unsigned maxvals[] = {255, 100, 1};
	static const float special[] = {0.0f, -0.0f, 1e-30f, -1e-30f, 0.5f,
	    -0.5f, 0.49999997f, 1e30f, -1e30f, INFINITY, -INFINITY, NAN};
	struct conv2d_coef c;
	long bad = 0;
	float v0 = 0;

	memset(&c, 0, sizeof(c));
	c.fdiv = 1.0f;
	for (int m = 0; m < 3; m++) {
		c.maxval = maxvals[m];
		for (uint32_t u = 0x3b800000u; u < 0x44000000u; u += m == 0 ? 1 : 7) {
			for (int s = 0; s <= 1; s++) {
				float v;
				uint32_t w = u | (uint32_t)s << 31;
				memcpy(&v, &w, sizeof(v));
				if ((conv2d_round8_f32(v, c.maxval) & 0xff) !=
				    conv2d_finish_f32(v, &c) && bad++ == 0)
					v0 = v;
			}
		}
		for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
			if ((conv2d_round8_f32(special[i], c.maxval) & 0xff) !=
			    conv2d_finish_f32(special[i], &c) && bad++ == 0)
				v0 = special[i];
	}
	result("round8_f32", bad == 0, "%ld values differ, first %a", bad, v0);
}

/* ---- the CPU path: threads and row loops against the plain definition */

/* Row ry (in range) of the separable row pass at column x, in the plan's type. */
static void
plain_row_pass(const struct image *in, const struct conv2d_plan *pl, int x,
    int ry, int32_t *iv, float *fv)
{
	const struct conv2d_coef *k = &pl->coef;

	*iv = 0;
	*fv = 0;
	for (int j = 0; j < k->kw; j++) {
		int v = img_sample(in, x + j - k->ax, ry, k->border);
		if (k->mode == CONV2D_F32)
			*fv = conv2d_mac_f32(*fv, pl->taps.frow[j], (float)v);
		else
			*iv = conv2d_mac_i32(*iv, pl->taps.irow[j], v);
	}
}

/*
 * The definition of one output sample of a gray image, pixel by pixel
 * through img_sample: conv2d_core.h's steps in row-major tap order, or
 * the separable passes (a row pass, then a column pass over its values,
 * 0 for rows the zero border drops).
 */
static unsigned
plain_px(const struct image *in, const struct conv2d_plan *pl, int x, int y)
{
	const struct conv2d_coef *k = &pl->coef;
	int32_t a32 = 0, iv;
	int64_t a64 = 0;
	float af = 0, fv;

	for (int i = 0; i < k->kh; i++) {
		int ry = gf_border_index(y + i - k->ay, in->height, k->border);
		for (int j = 0; j < (pl->separable ? 1 : k->kw); j++) {
			int t = i * k->kw + j;
			if (pl->separable && ry < 0)
				iv = 0, fv = 0;
			else if (pl->separable)
				plain_row_pass(in, pl, x, ry, &iv, &fv);
			else
				iv = img_sample(in, x + j - k->ax, y + i - k->ay,
				    k->border), fv = (float)iv;
			if (k->mode == CONV2D_F32)
				af = conv2d_mac_f32(af, pl->separable ?
				    pl->taps.fcol[i] : pl->taps.ftaps[t], fv);
			else if (k->mode == CONV2D_I64)
				a64 = conv2d_mac_i64(a64, pl->separable ?
				    pl->taps.icol[i] : pl->taps.itaps[t], iv);
			else
				a32 = conv2d_mac_i32(a32, pl->separable ?
				    pl->taps.icol[i] : pl->taps.itaps[t], iv);
		}
	}
	return k->mode == CONV2D_F32 ? conv2d_finish_f32(af, k) :
	    k->mode == CONV2D_I64 ? conv2d_finish_i64(a64, k) :
	    conv2d_finish_i32(a32, k);
}

/* Compares channel 0 of out (gray images only) with plain_px; differing samples. */
static size_t
plain_differ(const struct image *in, const struct conv2d_filter *p,
    const struct image *out)
{
	struct conv2d_plan pl;
	size_t d = 0;

	if (conv2d_plan_make(p, in->maxval, &pl, NULL) < 0)
		return 1;
	for (int y = 0; y < in->height; y++)
		for (int x = 0; x < in->width; x++)
			d += img_get(out, (size_t)y * in->width + x) !=
			    plain_px(in, &pl, x, y);
	return d;
}

/*
 * conv2d_cpu on 1, 2, 3 and 7 threads: gray images give the plain
 * definition's samples, colour ones the 1-thread samples; odd sizes,
 * every border, 8 and 16 bit, a kernel per path (2D and separable, each
 * arithmetic mode: the big one is int64 at 16 bit; even and one-row
 * shapes).
 */
static void
test_cpu_threads(void)
{
	static const struct { const char *name, *k; int sep, div, centre; } ks[] = {
		{"sep_i32", "1 2 1; 2 4 2; 1 2 1", 1, 16, 0},
		{"2d_i32", "0 -1 -2 -1 0; -1 2 4 2 -1; -2 4 12 4 -2; "
		    "-1 2 4 2 -1; 0 -1 -2 -1 0", 1, 3, 0},
		{"2d_big_even", "20000 -20000; -20000 20001", 1, 20000, 1},
		{"row_1x7", "1 2 3 4 3 2 1", 1, 0, 0},
		{"sep_gauss", "gauss:1.4", 1, 0, 0},
		{"2d_gauss", "gauss:1.1", 0, 0, 0},
		{"sep_f32", "0.01 0.02 0.04 0.02 0.01; 0.02 0.04 0.08 0.04 0.02; "
		    "0.04 0.08 0.16 0.08 0.04; 0.02 0.04 0.08 0.04 0.02; "
		    "0.01 0.02 0.04 0.02 0.01", 1, 0, 0},
		{"2d_f32", "0.1 0.2 0.1; 0.2 -0.5 0.3; 0 0.25 0.1", 0, 0, 0},
	};
	static const int sizes[][3] = {{1, 1, 1}, {3, 40, 1}, {29, 3, 1},
	    {23, 150, 1}, {61, 67, 1}, {17, 45, 3}};
	static const int threads[] = {1, 2, 3, 7};
	char name[64], why[640];

	for (size_t ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++)
	for (int deep = 0; deep < 2; deep++) {
		unsigned m = deep ? 65535 : 255;
		size_t bad = 0;
		for (size_t si = 0; si < 6; si++)
		for (int b = 0; b < 4; b++) {
			struct conv2d_filter p;
			struct image in = image_noise(sizes[si][0],
			    sizes[si][1], sizes[si][2], m, m,
			    (uint32_t)(si * 8 + b)), out[4] = {{0}};
			params(&p, ks[ki].k, b, ks[ki].div, ks[ki].centre ? m / 2 : 0,
			    NULL);
			p.allow_separable = ks[ki].sep;
			for (int t = 0; t < 4; t++) {
				struct gf_err e = {0};
				int dm;
				size_t d = conv2d_cpu(&in, &out[t], &p, threads[t], &e) < 0 ?
				    1 : in.channels == 1 ? plain_differ(&in, &p, &out[t]) :
				    differ(&out[0], &out[t], &dm);
				if (d > 0 && bad++ == 0)
					snprintf(why, sizeof(why), "%dx%dx%d %s border, "
					    "%d threads: %zu samples differ %s", in.width,
					    in.height, in.channels, border_names[b],
					    threads[t], d, e.msg);
			}
			for (int t = 0; t < 4; t++)
				img_free(&out[t]);
			img_free(&in);
		}
		snprintf(name, sizeof(name), "cpu_threads_%s_%dbit", ks[ki].name,
		    deep ? 16 : 8);
		result(name, bad == 0, "%s", why);
	}
}

/*
 * Taps none of which is negative are divided by their sum unless a
 * divisor is given (as ImageMagick's -convolve): "1 2 1" on 10 20 40
 * (replicate) at x = 1 is (10 + 40 + 40) / 4 = 22.5, rounded to 23; with
 * divisor 1 it is 90.  A negative tap keeps the sum: "-1 2 1" gives
 * -10 + 40 + 40 = 70.  gauss is not divided again.
 */
static void
test_autonormalize(void)
{
	static const unsigned px[] = {10, 20, 40};
	static const int want[] = {13, 23, 35}, want1[] = {50, 90, 140},
	    wantneg[] = {30, 70, 100};
	struct image in = image_of(3, 1, 1, 255, px);
	struct conv2d_filter p;

	if (params(&p, "1 2 1", GF_BORDER_REPLICATE, 0, 0, NULL) == 0) {
		result("autonormalize/decided", conv2d_normalizes(&p), "no");
		check_cpu("autonormalize/nonnegative", &in, &p, want, 3);
	}
	if (params(&p, "1 2 1", GF_BORDER_REPLICATE, 1, 0, NULL) == 0)
		check_cpu("autonormalize/divisor-1", &in, &p, want1, 3);
	if (params(&p, "-1 2 1", GF_BORDER_REPLICATE, 0, 0, NULL) == 0)
		check_cpu("autonormalize/negative-tap", &in, &p, wantneg, 3);
	if (params(&p, "gauss:1.4", GF_BORDER_REPLICATE, 0, 0, NULL) == 0)
		result("autonormalize/gauss", !conv2d_normalizes(&p),
		    "gauss is divided by its sum again");
	img_free(&in);
}

int
main(void)
{
	test_kspec();
	test_gauss_taps();
	test_separable_lanes();
	test_lanes_vs_generic();
	test_border_1x1();
	test_border_2x3();
	test_border_1x700();
	test_even();
	test_autonormalize();
	test_negative();
	test_divisor_bias();
	test_colour();
	test_int64();
	test_separable_cpu();
	test_finish_row();
	test_round8();
	test_cpu_threads();
	test_gpu();
	return nfail ? 1 : 0;
}
