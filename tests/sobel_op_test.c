/*
 * sobel_op_test - sobel's operators (--operator prewitt, scharr, sobel5,
 * sobel7): the CPU reference against a step computed by hand, against the
 * window core (sobel_op_grad, what every GPU kernel calls) pixel by
 * pixel, on any number of threads; sobel_value_op against sobel_value;
 * the tool's --colour channels on the CPU against sobel_cpu of each
 * channel alone, alpha copied; then every GPU strategy and launch shape
 * against the CPU, bit for bit (skipped without a GPU).  Prints "pass NAME", "fail NAME: why" or
 * "skip NAME: why".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "border.h"
#include "otsu.h"
#include "sobel_tool.h"
#include "tool.h"
#include "unit.h"

static const char *op_names[] = {"sobel", "prewitt", "scharr", "sobel5", "sobel7"};
static const char *border_names[] = {"replicate", "zero", "reflect", "wrap"};

/*
 * The parameters of operator op, mode 0..6 (enum sobel_mode), threshold
 * t; modes 7 and 8 (OP_DEPTH16, OP_DEPTH16_L1) stand for --depth 16's
 * magnitudes, L2 and L1.
 */
#define OP_DEPTH16 (SOBEL_GRAD_Y + 1)
#define OP_DEPTH16_L1 (SOBEL_GRAD_Y + 2)
static struct sobel_params
op_params(int op, int mode, unsigned maxval, double t)
{
	struct sobel_opts o;

	memset(&o, 0, sizeof(o));
	o.l1 = mode == SOBEL_MAG_L1 || mode == SOBEL_THRESH_L1 ||
	    mode == OP_DEPTH16_L1;
	o.threshold = mode == SOBEL_THRESH_L2 || mode == SOBEL_THRESH_L1;
	o.direction = mode == SOBEL_DIRECTION;
	o.grad_xy = mode == SOBEL_GRAD_X ? 1 : mode == SOBEL_GRAD_Y ? 2 : 0;
	o.depth16 = mode >= OP_DEPTH16;
	o.t = t;
	o.op = op;
	return sobel_params_for(&o, maxval, t);
}

/*
 * A 9 x 9 16-bit image, 0 left of column 4 and 1 from it on: a vertical
 * step.  On row 4 (every row the operators read is inside), gy = 0 and gx
 * is the sum of s (the smoothing taps: 3, 16, 16, 64 for prewitt, scharr,
 * sobel5, sobel7) times the derivative taps that fall on ones.  With d =
 * -1 -4 -5 0 5 4 1 (sobel7), column x reads columns x-3 .. x+3: x = 1
 * has one 1 under d[6] = 1, so 64; x = 2 has d[5] + d[6] = 5, 320; x = 3
 * and 4 have 10, 640; x = 5 has d[2..6] = 5, 320; x = 6 has d[1..6] = 1,
 * 64; x = 7 and 8 read ones only (replicate), 0.  On the zero border
 * x = 6 reads 0 at column 9: d[1..5] = 0; x = 7: d[0..4] = -5, 320; x =
 * 8: d[0..3] = -10, 640.  sobel5 (d = -1 -2 0 2 1, s sum 16): x = 2 has
 * d[4] = 1, 16; x = 3 d[3..4] = 3, 48; x = 4 d[2..4] = 3, 48; x = 5
 * d[1..4] = 1, 16.  The 3x3 ones: x = 3 and 4 only, sum of s each.
 * Magnitude L2 of (gx, 0) is |gx|: the maxval 65535 clamps nothing.
 */
static void
test_step(void)
{
	static const struct {
		int op, border;
		unsigned want[9];
	} cases[] = {
		{SOBEL_OP_PREWITT, GF_BORDER_REPLICATE, {0, 0, 0, 3, 3, 0, 0, 0, 0}},
		{SOBEL_OP_SCHARR, GF_BORDER_REPLICATE, {0, 0, 0, 16, 16, 0, 0, 0, 0}},
		{SOBEL_OP_SOBEL5, GF_BORDER_REPLICATE, {0, 0, 16, 48, 48, 16, 0, 0, 0}},
		{SOBEL_OP_SOBEL7, GF_BORDER_REPLICATE,
		    {0, 64, 320, 640, 640, 320, 64, 0, 0}},
		{SOBEL_OP_SOBEL7, GF_BORDER_ZERO,
		    {0, 64, 320, 640, 640, 320, 0, 320, 640}},
	};
	unsigned px[81];
	char name[64];

	for (int i = 0; i < 81; i++)
		px[i] = i % 9 >= 4;
	struct image in = image_of(9, 9, 1, 65535, px);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		for (int mode = SOBEL_MAG_L2; mode <= SOBEL_MAG_L1; mode++) {
			struct sobel_params p = op_params(cases[k].op, mode, 65535, 0);
			struct image out;
			struct gf_err e = {0};
			int bad = -1;
			snprintf(name, sizeof(name), "op_step_%s_%s_%s",
			    op_names[cases[k].op], border_names[cases[k].border],
			    mode == SOBEL_MAG_L1 ? "l1" : "l2");
			if (sobel_cpu(&in, &out, &p, cases[k].border, 1, &e) < 0) {
				result(name, 0, "%s", e.msg);
				continue;
			}
			for (int x = 0; x < 9 && bad < 0; x++)
				if (img_get(&out, 4 * 9 + x) != cases[k].want[x])
					bad = x;
			result(name, bad < 0, "column %d is %u, expected %u", bad,
			    bad < 0 ? 0 : img_get(&out, 4 * 9 + bad),
			    bad < 0 ? 0 : cases[k].want[bad]);
			img_free(&out);
		}
	}
	img_free(&in);
}

/* The definition, pixel by pixel: img_sample's border rule and the window core. */
static struct image
op_plain(const struct image *in, const struct sobel_params *p, int border)
{
	struct image out = image_of(in->width, in->height, 1, p->maxval, NULL);
	const struct sobel_taps t = sobel_taps_of(p->op);
	const int R = t.r, n = 2 * R + 1;
	int v[(2 * SOBEL_OP_MAX_R + 1) * (2 * SOBEL_OP_MAX_R + 1)], gx, gy;

	for (int y = 0; y < in->height; y++)
		for (int x = 0; x < in->width; x++) {
			for (int j = 0; j < n; j++)
				for (int i = 0; i < n; i++)
					v[j * n + i] = img_sample(in, x + i - R,
					    y + j - R, border);
			sobel_op_grad(&t, R, v, n, &gx, &gy);
			img_set(&out, (size_t)y * in->width + x,
			    sobel_value_op(gx, gy, p));
		}
	return out;
}

/*
 * The signed gradients by hand, saturated as OpenCV's CV_16S: a 9 x 9
 * 8-bit step, 0 left of column 4 and 255 from it on.  On row 4, gy = 0
 * (32768) and gx is test_step's sum times 255: the 3x3 Sobel's 4 * 255
 * = 1020 at columns 3 and 4 (33788); sobel7's 64 * 255 = 16320 at column
 * 1 (49088), 320 * 255 = 81600 at column 2 and 640 * 255 at 3 and 4,
 * both past 32767 (65535).  The step the other way (255 then 0) gives
 * the negatives: -1020 (31748), -16320 (16448), and -32768 (0) where
 * saturated.  --depth 16's magnitude keeps sobel5's 48 * 255 = 12240 at
 * column 3, which the 8-bit output clamps at 255.
 */
static void
test_signed(void)
{
	static const struct {
		int op, mode, down;
		unsigned want[9];
	} cases[] = {
		{SOBEL_OP_SOBEL, SOBEL_GRAD_X, 0,
		    {32768, 32768, 32768, 33788, 33788, 32768, 32768, 32768, 32768}},
		{SOBEL_OP_SOBEL, SOBEL_GRAD_X, 1,
		    {32768, 32768, 32768, 31748, 31748, 32768, 32768, 32768, 32768}},
		{SOBEL_OP_SOBEL, SOBEL_GRAD_Y, 0,
		    {32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768}},
		{SOBEL_OP_SOBEL7, SOBEL_GRAD_X, 0,
		    {32768, 49088, 65535, 65535, 65535, 65535, 49088, 32768, 32768}},
		{SOBEL_OP_SOBEL7, SOBEL_GRAD_X, 1,
		    {32768, 16448, 0, 0, 0, 0, 16448, 32768, 32768}},
		{SOBEL_OP_SOBEL5, OP_DEPTH16, 0,
		    {0, 0, 4080, 12240, 12240, 4080, 0, 0, 0}},
	};
	char name[64];

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct image in = image_of(9, 9, 1, 255, NULL), out = {0};
		struct sobel_params p = op_params(cases[k].op, cases[k].mode, 255, 0);
		struct gf_err e = {0};
		char why[200] = "";
		int ok;

		for (size_t i = 0; i < 81; i++)
			img_set(&in, i, (i % 9 >= 4) != cases[k].down ? 255 : 0);
		ok = sobel_cpu(&in, &out, &p, GF_BORDER_REPLICATE, 1, &e) == 0 &&
		    out.maxval == 65535;
		for (int x = 0; ok && x < 9; x++)
			if (img_get(&out, 4 * 9 + x) != cases[k].want[x]) {
				snprintf(why, sizeof(why), "column %d is %u, expected %u",
				    x, img_get(&out, 4 * 9 + x), cases[k].want[x]);
				ok = 0;
			}
		snprintf(name, sizeof(name), "signed_%s_%s%s", op_names[cases[k].op],
		    cases[k].mode == SOBEL_GRAD_X ? "x" : cases[k].mode ==
		    SOBEL_GRAD_Y ? "y" : "depth16", cases[k].down ? "_down" : "");
		result(name, ok, "%s %s", why, e.msg);
		img_free(&out);
		img_free(&in);
	}
}

/*
 * sobel_cpu on 1, 3 and 7 threads gives the window core's samples, for
 * every operator, border, mode (the direction, the signed gradients and
 * --depth 16's magnitudes too, at 16 bits of an 8-bit image) and depth
 * (the 3x3 Sobel's magnitudes through its own rows), on odd sizes
 * (narrower and shorter than the window too).  Thresholds sit inside the gradients'
 * range, full-range and low-contrast noise alike.
 */
static void
test_cpu_plain(void)
{
	static const int sizes[][2] = {{1, 1}, {2, 3}, {3, 40}, {37, 2}, {61, 67}};
	static const int threads[] = {1, 3, 7};
	char name[64], why[600] = "";

	for (int op = SOBEL_OP_SOBEL; op < SOBEL_NOPS; op++)
		for (int deep = 0; deep < 2; deep++) {
			unsigned m = deep ? 65535 : 255;
			static const double scale[] = {4, 3, 16, 48, 640};
			size_t bad = 0;
			for (int mode = 0; mode <= OP_DEPTH16_L1; mode++) {
				struct sobel_params p = op_params(op, mode, m,
				    m * scale[op] / 5.5);
				for (size_t k = 0; k < 5; k++)
				for (int b = 0; b < 4; b++) {
					struct image in = image_noise(sizes[k][0],
					    sizes[k][1], 1, m, k % 2 ? m : m / 16,
					    (uint32_t)(op * 97 + k * 16 + b));
					struct image want = op_plain(&in, &p, b);
					for (int th = 0; th < 3; th++) {
						struct image got;
						struct gf_err e = {0};
						if (sobel_cpu(&in, &got, &p, b,
						    threads[th], &e) < 0) {
							bad++;
							snprintf(why, sizeof(why), "%s", e.msg);
							continue;
						}
						if ((got.maxval != p.maxval ||
						    memcmp(got.px, want.px, (size_t)in.width *
						    in.height * gf_sample_bytes(p.maxval)) != 0) &&
						    bad++ == 0)
							snprintf(why, sizeof(why), "%dx%d "
							    "border %s mode %d, %d threads",
							    in.width, in.height, border_names[b],
							    mode, threads[th]);
						img_free(&got);
					}
					img_free(&want);
					img_free(&in);
				}
			}
			snprintf(name, sizeof(name), "op_cpu_%s_%d", op_names[op],
			    deep ? 16 : 8);
			result(name, bad == 0, "%zu images differ, first %s", bad, why);
		}
}

/*
 * sobel_value_op equals sobel_value (the 3x3 Sobel's core) wherever the
 * latter is defined, for every mode: all 8-bit gradients' corners and a
 * pseudo-random sample of 16-bit ones.
 */
static void
test_value(void)
{
	uint32_t seed = 1;
	size_t bad = 0;

	for (int mode = 0; mode < 4; mode++)
		for (int deep = 0; deep < 2; deep++) {
			unsigned m = deep ? 65535 : 255;
			struct sobel_params p = op_params(SOBEL_OP_SOBEL, mode, m,
			    m * 1.3);
			int lim = 4 * (int)m;
			for (int k = 0; k < 200000; k++) {
				seed = seed * 1664525u + 1013904223u;
				int gx = (int)(seed >> 4) % (2 * lim + 1) - lim;
				seed = seed * 1664525u + 1013904223u;
				int gy = (int)(seed >> 4) % (2 * lim + 1) - lim;
				if (k < 4) {
					gx = k & 1 ? lim : -lim;
					gy = k & 2 ? lim : -lim;
				}
				bad += sobel_value_op(gx, gy, &p) != sobel_value(gx, gy, &p);
			}
		}
	result("op_value_equals_sobel_value", bad == 0, "%zu gradients differ", bad);
}

/*
 * --colour channels: the tool's CPU work on an RGB+alpha image, 8- and
 * 16-bit, with sobel5 and a threshold and with -t auto (each channel its
 * own Otsu threshold), is sobel_cpu (and otsu_cpu) of each colour channel
 * alone, and alpha unchanged.
 */
static void
test_channels(void)
{
	char name[64];

	for (int deep = 0; deep < 2; deep++)
		for (int autot = 0; autot < 2; autot++) {
			unsigned m = deep ? 65535 : 255;
			struct image in = image_noise(45, 31, 4, m, m / 3, 77u + deep);
			struct image plane = image_of(45, 31, 1, m, NULL), want;
			struct image got = {0, 0, 0, 0, NULL, 0};
			struct sobel_opts o;
			struct tool t;
			struct gf_times tm;
			struct gf_err e = {0};
			size_t n = 45 * 31, bad = 0;
			int ok;

			memset(&o, 0, sizeof(o));
			gf_opts_init(&o.common);
			o.channels = 1;
			o.op = autot ? SOBEL_OP_SOBEL : SOBEL_OP_SOBEL5;
			o.threshold = !autot;
			o.threshold_auto = autot;
			o.t = m * 48 / 8.5;
			sobel_tool(&t, &o);
			memset(&tm, 0, sizeof(tm));
			ok = !t.gray && t.cpu(t.ctx, &in, &got, &tm, &e) == 0 &&
			    got.channels == 4;
			for (int c = 0; ok && c < 4; c++) {
				for (size_t i = 0; i < n; i++)
					img_set(&plane, i, img_get(&in, i * 4 + c));
				if (c < 3) {
					uint32_t ot = 0;
					struct sobel_params p;
					if (autot && otsu_cpu(&plane, 0, 0, &ot, 1, &e) < 0)
						ok = 0;
					p = sobel_params_for(&o, m, autot ? ot : o.t);
					if (!ok || sobel_cpu(&plane, &want, &p, 0, 1, &e) < 0) {
						ok = 0;
						break;
					}
				} else {
					want = image_of(45, 31, 1, m, NULL);
					memcpy(want.px, plane.px, n * gf_sample_bytes(m));
				}
				for (size_t i = 0; i < n; i++)
					bad += img_get(&got, i * 4 + c) != img_get(&want, i);
				img_free(&want);
			}
			snprintf(name, sizeof(name), "op_channels_%d%s", deep ? 16 : 8,
			    autot ? "_auto" : "");
			result(name, ok && bad == 0, "%s; %zu samples differ", e.msg, bad);
			if (got.px != NULL)
				img_free(&got);
			img_free(&plane);
			img_free(&in);
		}
}

/*
 * sobel_dir_bin: the axes and diagonals by hand (theta 0, 45, 90, ...:
 * bins 0, 32, 64, ...; just either side of 0 degrees: 0 and 255), then
 * every gradient with |gx|, |gy| <= 4080 (any 3x3 operator's on 8-bit
 * samples) against floor(atan2(gy, gx) * 128 / pi) mod 256: the nearest
 * boundary lies far further from any of them than atan2's error.
 */
static void
test_direction(void)
{
	static const int cases[][3] = {
		{0, 0, 0}, {1, 0, 0}, {1, 1, 32}, {0, 1, 64}, {-1, 1, 96},
		{-1, 0, 128}, {-1, -1, 160}, {0, -1, 192}, {1, -1, 224},
		{1000, 1, 0}, {1000, -1, 255}, {-1000, 1, 127}, {-1000, -1, 128},
		{1, 1000, 63}, {-1, 1000, 64}, {7, 0, 0}, {0, -5, 192},
	};
	size_t bad = 0, k;
	int bx = 0, by = 0;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
		if (sobel_dir_bin(cases[k][0], cases[k][1]) != (unsigned)cases[k][2])
			break;
	result("op_direction_by_hand", k == sizeof(cases) / sizeof(cases[0]),
	    "(%d, %d) gives %u, expected %d", cases[k % 17][0], cases[k % 17][1],
	    sobel_dir_bin(cases[k % 17][0], cases[k % 17][1]), cases[k % 17][2]);
	for (int gy = -4080; gy <= 4080; gy++)
		for (int gx = -4080; gx <= 4080; gx++) {
			double a = atan2((double)gy, (double)gx) * 128.0 / M_PI;
			int want = (int)floor(a < 0 ? a + 256.0 : a) & 255;
			if (sobel_dir_bin(gx, gy) != (unsigned)want && bad++ == 0) {
				bx = gx;
				by = gy;
			}
		}
	result("op_direction_atan2", bad == 0, "%zu gradients differ, first "
	    "(%d, %d): %u, atan2 says %g", bad, bx, by, sobel_dir_bin(bx, by),
	    atan2(by, bx) * 128.0 / M_PI);
}

/* ---- GPU against the CPU reference */

static const struct gf_launch shapes[] = {{0, 0, 0}, {7, 3, 5}, {32, 8, 2},
    {64, 1, 1}};
#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))
#define NGPU (GF_LAST_GPU - GF_FIRST_GPU + 1)

/* What one operator, strategy and shape did over every image. */
struct tally {
	size_t diffs, total;
	int failed;
	char why[600];
};

/*
 * Strategy s with shape l on din into dout (first filled with noise, so
 * that a sample never written shows), against want.
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
			    "mode %d: %s", want->width, want->height, want->maxval,
			    border_names[border], p->mode, e.msg);
		t->failed = 1;
	} else {
		size_t d = 0, n = (size_t)want->width * want->height;
		for (size_t i = 0; i < n; i++)
			d += img_get(want, i) != img_get(&got, i);
		if (d && !t->failed && t->diffs == 0)
			snprintf(t->why, sizeof(t->why), "first at %dx%d maxval %u "
			    "border %s mode %d", want->width, want->height,
			    want->maxval, border_names[border], p->mode);
		t->diffs += d;
		t->total += n;
	}
	img_free(&got);
}

/* One image, operator, border and mode through the CPU and every strategy and shape. */
static void
gpu_case(struct gpu *g, const struct image *in, int op, int border, int mode,
    struct tally t[NGPU][NSHAPES])
{
	static const double scale[] = {4, 3, 16, 48, 640};
	struct sobel_params p = op_params(op, mode, in->maxval,
	    in->maxval * scale[op] / 5.5);
	struct gpu_image din, dout;
	struct image want;
	struct gf_err e = {0};

	if (sobel_cpu(in, &want, &p, border, 0, &e) < 0 ||
	    gpu_image_get(g, GPU_SLOT_IN, in->width, in->height, in->maxval, &din, &e) < 0 ||
	    gpu_image_get(g, GPU_SLOT_OUT, in->width, in->height, p.maxval, &dout, &e) < 0 ||
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
			    (enum gf_strategy)(GF_FIRST_GPU + s), &shapes[l], &t[s][l]);
	img_free(&want);
}

/*
 * Random 8- and 16-bit images, full range and low contrast, of odd sizes
 * (narrower than a window, a tile's width plus one), every operator,
 * border and mode, and the 3x3 Sobel's direction, through every strategy
 * and shape: the CPU's samples.  One case per operator, strategy and
 * shape (op_gpu_sobel_*: the direction alone), and apart from them the
 * 16-bit outputs of every operator, the 3x3 Sobel's too: the signed
 * gradients and --depth 16's magnitudes (sobel_wide_gpu_*;
 * kernels/sobel_wide.cu for 8-bit images, sobel_op.cu for 16-bit ones).
 */
static void
test_gpu(void)
{
	static const int sizes[][2] = {{1, 1}, {2, 3}, {1, 300}, {300, 1}, {33, 17},
	    {513, 131}};
	static struct tally t[SOBEL_NOPS][NGPU][NSHAPES], tw[SOBEL_NOPS][NGPU][NSHAPES];
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
				    11 + (uint32_t)z * 37 + div);
				for (int op = SOBEL_OP_SOBEL; op < SOBEL_NOPS; op++)
					for (int b = 0; b < 4; b++)
						for (int m = 0; m <= OP_DEPTH16_L1; m++)
							if (m >= SOBEL_GRAD_X)
								gpu_case(&g, &in, op, b, m, tw[op]);
							else if (op != SOBEL_OP_SOBEL ||
							    m == SOBEL_DIRECTION)
								gpu_case(&g, &in, op, b, m, t[op]);
				img_free(&in);
			}
	for (int w = 0; w < 2; w++)
	for (int op = SOBEL_OP_SOBEL; op < SOBEL_NOPS; op++)
		for (int s = 0; s < NGPU; s++)
			for (size_t l = 0; l < NSHAPES; l++) {
				struct tally *c = w ? &tw[op][s][l] : &t[op][s][l];
				snprintf(name, sizeof(name), "%s_%s_%s_%dx%dx%d",
				    w ? "sobel_wide_gpu" : "op_gpu",
				    op_names[op], gf_strategies[GF_FIRST_GPU + s].name,
				    shapes[l].block_w, shapes[l].block_h, shapes[l].rows);
				if (!have)
					printf("skip %s: no GPU (%s)\n", name, e.msg);
				else if (c->failed)
					result(name, 0, "%s", c->why);
				else
					result(name, c->diffs == 0 && c->total > 0,
					    "%zu of %zu samples differ from the CPU, %s",
					    c->diffs, c->total, c->why);
			}
	if (have)
		gpu_close(&g);
}

int
main(void)
{
	test_step();
	test_signed();
	test_cpu_plain();
	test_value();
	test_direction();
	test_channels();
	test_gpu();
	return nfail ? 1 : 0;
}
