/*
 * edge_test - the edge CPU reference on hand-computed cases, Otsu on
 * histograms with known answers, and (with a GPU) every GPU strategy
 * against the CPU reference on synthetic images, bit for bit.
 * Prints "pass NAME", "fail NAME: why" or "skip NAME: why" per case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "border.h"
#include "edge_tool.h"
#include "otsu.h"
#include "unit.h"

/* A gray w x h image with maxval m, samples from f(x, y). */
static struct image
make_image(int w, int h, unsigned m, unsigned (*f)(int, int))
{
	struct image im = {w, h, 1, m, NULL, 0};

	if (img_alloc(&im, NULL) < 0)
		abort();
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			if (m > 255)
				((uint16_t *)im.px)[y * w + x] = (uint16_t)f(x, y);
			else
				((uint8_t *)im.px)[y * w + x] = (uint8_t)f(x, y);
		}
	return im;
}

static unsigned
px(const struct image *im, int x, int y)
{
	size_t i = (size_t)y * im->width + x;
	return im->maxval > 255 ? ((uint16_t *)im->px)[i] : ((uint8_t *)im->px)[i];
}

/* Options for a CPU run without smoothing, thresholds low and high. */
static struct edge_opts
opts(double low, double high, int l1)
{
	struct edge_opts o;

	memset(&o, 0, sizeof(o));
	o.low = low;
	o.high = high;
	o.l1 = l1;
	o.common.border = GF_BORDER_REPLICATE;
	o.common.strategy = GF_CPU;
	return o;
}

/* The column that want_column() accepts (-1: none). */
static int want_col;

static int
want_column(int x, int y)
{
	(void)y;
	return x == want_col;
}

/*
 * Runs the CPU reference; 1 if the edges are exactly the interior pixels
 * that want accepts, else 0 with the first wrong pixel in why.
 */
static int
edges_match(const struct image *in, const struct edge_opts *o,
    int (*want)(int, int), char *why)
{
	struct image out = {0};
	struct edge_params p = edge_params_for(o);
	struct edge_info info;
	struct gf_err e;

	if (edge_cpu(in, &out, &p, &info, 0, &e) < 0) {
		snprintf(why, 600, "%s", e.msg);
		return 0;
	}
	for (int y = 0; y < in->height; y++)
		for (int x = 0; x < in->width; x++) {
			int interior = x > 0 && y > 0 && x < in->width - 1 &&
			    y < in->height - 1;
			unsigned w = interior && want(x, y) ? in->maxval : 0;
			if (px(&out, x, y) != w) {
				snprintf(why, 600, "(%d,%d) is %u, expected %u", x, y,
				    px(&out, x, y), w);
				img_free(&out);
				return 0;
			}
		}
	img_free(&out);
	return 1;
}

static int
edges_are_column(const struct image *in, const struct edge_opts *o, int col,
    char *why)
{
	want_col = col;
	return edges_match(in, o, want_column, why);
}

/*
 * Step 0 | 200 between columns 3 and 4: gx = 800 at x = 3 and 4, 0
 * elsewhere, gy = 0.  Both are in sector 0; x = 3 is greater than its
 * left (0) and not smaller than its right (800): kept; x = 4 is not
 * greater than its left: suppressed.  One column, x = 3, rows 1..6.
 */
static unsigned step8(int x, int y) { (void)y; return x < 4 ? 0 : 200; }
static unsigned step16(int x, int y) { (void)y; return x < 4 ? 0 : 60000; }

static void
test_step(void)
{
	struct image a = make_image(8, 8, 255, step8);
	struct image b = make_image(8, 8, 65535, step16);
	struct edge_opts o = opts(799, 799, 0), p = opts(800, 800, 0);
	char why[600] = "";

	result("cpu/step", edges_are_column(&a, &o, 3, why), "%s", why);
	/* 800^2 is not > 800^2: nothing passes. */
	result("cpu/step-at-threshold", edges_are_column(&a, &p, -1, why),
	    "%s", why);
	o.l1 = 1;
	result("cpu/step-l1", edges_are_column(&a, &o, 3, why), "%s", why);
	/* gx = 240000: gx^2 needs 64 bits. */
	o = opts(239999, 239999, 0);
	result("cpu/step-16bit", edges_are_column(&b, &o, 3, why), "%s", why);
	img_free(&a);
	img_free(&b);
}

/*
 * Ramp 0 0 0 50 100 150 200 200 ...: gx = 4 (p(x+1) - p(x-1)) is 200,
 * 400, 400, 400, 200 at x = 2..6.  Only x = 3 is greater than its left
 * and not smaller than its right: a ramp gives one thin line.  With
 * low = high = 300, x = 2 and 6 (200) are below the threshold anyway.
 */
static unsigned
ramp(int x, int y)
{
	(void)y;
	return x < 3 ? 0 : x > 6 ? 200 : (unsigned)(x - 2) * 50;
}

static void
test_ramp(void)
{
	struct image a = make_image(10, 7, 255, ramp);
	struct edge_opts o = opts(300, 300, 0);
	char why[600] = "";

	result("cpu/ramp", edges_are_column(&a, &o, 3, why), "%s", why);
	o = opts(100, 100, 0);
	result("cpu/ramp-low-threshold", edges_are_column(&a, &o, 3, why),
	    "%s", why);
	img_free(&a);
}

/* The only step is on the frame (column 0): x = 1 equals x = 0, suppressed. */
static unsigned frame_step(int x, int y) { (void)y; return x == 0 ? 200 : 0; }

static void
test_frame(void)
{
	struct image a = make_image(6, 6, 255, frame_step);
	struct edge_opts o = opts(10, 10, 0);
	char why[600] = "";

	result("cpu/frame-never-edge", edges_are_column(&a, &o, -1, why),
	    "%s", why);
	img_free(&a);
}

/*
 * Hysteresis.  A step 0 | A between columns 3 and 4 with A = 200 in rows
 * 0..5 and A = 100 in rows 6..11.  Column 3 has gx = A(y-1) + 2A(y) +
 * A(y+1) and gy = A(y+1) - A(y-1); column 4 the same gx and three times
 * that gy.  Rows 1..4: (3,y) has 800^2, its right neighbour equal: kept,
 * strong (high 500).  Rows 5 and 6 (gx 700 and 500, gy -100 at column 3,
 * -300 at column 4): column 4 is larger, and its gradient falls in the
 * 135-degree sector, where its neighbours (5,y-1) and (3,y+1) are
 * smaller: (4,5) and (4,6) are kept, strong (580000 and 340000 >
 * 250000).  Rows 7..10: gx = 400: (3,y) kept, weak (160000 is above
 * low^2 = 90000, not above 250000), joined to (4,6) diagonally: edges.
 * The change of contrast is itself a horizontal edge: at (5,5) and (6,5)
 * gx = 0, gy = 4 (100 - 200), sector 90, above the 0 at row 4 and not
 * below the equal 400^2 at row 6 (which row 6 does not beat): weak,
 * joined to (4,5).  With high 900 nothing is strong, so nothing is an
 * edge.
 */
static unsigned
chain(int x, int y)
{
	return x < 4 ? 0 : y < 6 ? 200 : 100;
}

static int
want_two(int x, int y)
{
	(void)y;
	return x == 3 || x == 11;
}

static int
want_chain(int x, int y)
{
	if (x == 3)
		return y != 5 && y != 6;
	return (x == 4 && (y == 5 || y == 6)) || (x > 4 && y == 5);
}

/*
 * Two steps: 0 | 200 at columns 3/4 (gx 800, strong) and 200 | 250 at
 * columns 11/12 (gx 200, weak with low 150, high 500), not touching:
 * only column 3 is an edge.
 */
static unsigned
two_steps(int x, int y)
{
	(void)y;
	return x < 4 ? 0 : x < 12 ? 200 : 250;
}

static void
test_chains(void)
{
	struct image a = make_image(8, 12, 255, chain);
	struct image b = make_image(16, 8, 255, two_steps);
	struct edge_opts o = opts(300, 500, 0);
	char why[600] = "";

	result("cpu/weak-chain-connected", edges_match(&a, &o, want_chain, why),
	    "%s", why);
	o = opts(300, 900, 0);
	result("cpu/weak-chain-no-strong", edges_are_column(&a, &o, -1, why),
	    "%s", why);
	o = opts(150, 500, 0);
	result("cpu/weak-chain-not-connected", edges_are_column(&b, &o, 3, why),
	    "%s", why);
	o = opts(150, 150, 0);
	want_col = -1;
	result("cpu/both-strong", edges_match(&b, &o, want_two, why),
	    "%s", why);
	img_free(&a);
	img_free(&b);
}

/*
 * Tiny images have no interior: no edges, no crash.
 */
static unsigned noise(int x, int y) { return (unsigned)(x * 7919 + y * 104729) % 251; }

static void
test_tiny(void)
{
	static const int sizes[][2] = {{1, 1}, {2, 3}, {1, 9}, {9, 1}, {2, 2}};
	char name[64], why[600] = "";

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct image a = make_image(sizes[i][0], sizes[i][1], 255, noise);
		struct edge_opts o = opts(0, 0, 0);
		snprintf(name, sizeof(name), "cpu/tiny-%dx%d", sizes[i][0], sizes[i][1]);
		result(name, edges_are_column(&a, &o, -1, why), "%s", why);
		img_free(&a);
	}
}

/* Otsu's threshold of the first n bins of h is want, or case name fails. */
static void
check_otsu(const char *name, const uint32_t *h, int n, uint32_t want)
{
	uint32_t t = otsu_threshold(h, n);

	result(name, t == want, "got %u, expected %u", t, want);
}

/* Otsu on histograms whose answers are worked out by hand. */
static void
test_otsu(void)
{
	static uint32_t h[256];

	/* Two spikes at 50 and 200: every t in 50..199 splits them alike; the first wins. */
	memset(h, 0, sizeof(h));
	h[50] = 1000;
	h[200] = 300;
	check_otsu("otsu/two-spikes", h, 256, 50);

	/*
	 * Values 0 (1 pixel), 1 (1), 3 (2): t = 0 scores 1 * 3 * (7/3)^2 =
	 * 16.3, t = 1 and 2 score 2 * 2 * (3 - 1/2)^2 = 25: t = 1.
	 */
	memset(h, 0, sizeof(h));
	h[0] = 1;
	h[1] = 1;
	h[3] = 2;
	check_otsu("otsu/three-values", h, 4, 1);

	/* Bimodal: 40..59 and 160..179 with equal counts; the gap 59..159 ties, first wins. */
	memset(h, 0, sizeof(h));
	for (int i = 40; i < 60; i++)
		h[i] = h[i + 120] = 10 + (uint32_t)(i % 3);
	check_otsu("otsu/bimodal", h, 256, 59);

	memset(h, 0, sizeof(h));
	h[7] = 5;
	check_otsu("otsu/one-value", h, 256, 7);
	memset(h, 0, sizeof(h));
	check_otsu("otsu/empty", h, 256, 0);
}

/* ---- GPU against the CPU reference ---- */

static uint32_t rng_state = 12345;

static unsigned
rng(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 8;
}

/* Smooth blobs plus noise: many edges of every direction and strength. */
static unsigned
photo_like(int x, int y)
{
	int v = ((x / 9 + y / 13) % 3) * 70 + ((x * x + y * y) / 400) % 50;
	return (unsigned)(v + (int)(rng() % 17)) % 256;
}

static unsigned
photo_like16(int x, int y)
{
	return photo_like(x, y) * 257 + rng() % 257;
}

/*
 * A serpentine of faint lines (value 40) spanning the image, with one
 * bright block at its start: the weak chain crosses many hysteresis
 * tiles, so the labelling must join it across tile borders.
 */
static unsigned
serpentine(int x, int y)
{
	int band = y / 6, w = 700;
	if (x < 6 && y < 6)
		return 255;
	if (y % 6 == 3 && x >= 2 && x < w - 3)
		return 40;
	if (x == (band % 2 ? 2 : w - 4) && y % 6 >= 3)
		return 40;
	if (x == (band % 2 ? w - 4 : 2) && y % 6 < 3 && band > 0)
		return 40;
	return 0;
}

struct gpu_case {
	const char *name;
	int w, h;
	unsigned maxval;
	unsigned (*f)(int, int);
	double sigma, low, high;
	int l1, auto_thresh, border;
	struct gf_launch launch;
};

static const struct gpu_case gpu_cases[] = {
	{"photo", 517, 333, 255, photo_like, 0, 40, 90, 0, 0, 0, {0, 0, 0}},
	{"photo-l1", 517, 333, 255, photo_like, 0, 60, 120, 1, 0, 0, {0, 0, 0}},
	{"photo-auto", 517, 333, 255, photo_like, 0, 0, 0, 0, 1, 0, {0, 0, 0}},
	{"photo-sigma", 517, 333, 255, photo_like, 1.4, 10, 30, 0, 0, 0, {0, 0, 0}},
	{"photo-reflect", 301, 203, 255, photo_like, 0, 40, 90, 0, 0, GF_BORDER_REFLECT, {0, 0, 0}},
	{"photo-zero", 301, 203, 255, photo_like, 0, 40, 90, 0, 0, GF_BORDER_ZERO, {0, 0, 0}},
	{"photo-wrap-auto-l1", 301, 203, 255, photo_like, 0, 0, 0, 1, 1, GF_BORDER_WRAP, {0, 0, 0}},
	{"photo16", 333, 257, 65535, photo_like16, 0, 8000, 20000, 0, 0, 0, {0, 0, 0}},
	{"photo16-auto", 333, 257, 65535, photo_like16, 0, 0, 0, 0, 1, 0, {0, 0, 0}},
	{"photo16-sigma-l1", 333, 257, 65535, photo_like16, 2, 3000, 9000, 1, 0, 0, {0, 0, 0}},
	{"serpentine", 700, 600, 255, serpentine, 0, 20, 400, 0, 0, 0, {0, 0, 0}},
	{"block13x7-rows5", 517, 333, 255, photo_like, 0, 40, 90, 0, 0, 0, {13, 7, 5}},
	{"block64x1-rows1", 517, 333, 255, photo_like, 0, 40, 90, 0, 0, 0, {64, 1, 1}},
	{"block2x2-rows300", 517, 333, 255, photo_like, 0, 40, 90, 0, 0, 0, {2, 2, 300}},
	{"1x1", 1, 1, 255, photo_like, 0, 0, 0, 0, 0, 0, {0, 0, 0}},
	{"2x3", 2, 3, 255, photo_like, 0, 0, 0, 0, 0, 0, {0, 0, 0}},
	{"3x3", 3, 3, 255, photo_like, 0, 0, 0, 0, 0, 0, {0, 0, 0}},
	{"1x700", 1, 700, 255, photo_like, 0, 0, 0, 0, 0, 0, {0, 0, 0}},
	{"700x1", 700, 1, 255, photo_like, 0, 0, 0, 0, 0, 0, {0, 0, 0}},
	{"5x700", 5, 700, 255, photo_like, 0, 10, 20, 0, 0, 0, {0, 0, 0}},
	{"700x5-auto", 700, 5, 255, photo_like, 0, 0, 0, 0, 1, 0, {0, 0, 0}},
};
#define NGPU_CASES (sizeof(gpu_cases) / sizeof(gpu_cases[0]))

/* Upload, the device stages, download: the GPU's answer for gray. */
static int
edge_on_gpu(struct gpu *g, const struct image *gray, struct image *out,
    const struct edge_opts *o, struct edge_info *info, struct gf_err *e)
{
	struct gpu_image din, dout;

	if (img_alloc_like(out, gray, 1, e) < 0)
		return -1;
	if (gpu_image_get(g, GPU_SLOT_IN, gray->width, gray->height, gray->maxval,
	    &din, e) < 0 || gpu_image_get(g, GPU_SLOT_OUT, gray->width,
	    gray->height, gray->maxval, &dout, e) < 0 ||
	    gpu_upload(g, gray, 0, &din, e) < 0 ||
	    edge_run_device(g, &din, &dout, o, info, e) < 0 ||
	    gpu_download(g, &dout, out, 0, e) < 0) {
		img_free(out);
		return -1;
	}
	return 0;
}

/* One case on strategy s: the GPU output equals the CPU's, byte for byte. */
static void
gpu_case_run(struct gpu *g, const struct gpu_case *c, enum gf_strategy s)
{
	struct edge_opts o = opts(c->low, c->high, c->l1);
	struct image in, a = {0}, b = {0};
	struct edge_info ia, ib;
	struct gf_err e;
	char name[128], why[600] = "";
	int ok;

	rng_state = 12345;
	in = make_image(c->w, c->h, c->maxval, c->f);
	o.sigma = c->sigma;
	o.auto_thresh = c->auto_thresh;
	o.common.border = c->border;
	o.common.strategy = s;
	o.common.launch = c->launch;
	snprintf(name, sizeof(name), "gpu/%s/%s", gf_strategies[s].name, c->name);
	struct edge_params p = edge_params_for(&o);
	ok = edge_cpu(&in, &a, &p, &ia, 0, &e) == 0;
	if (!ok)
		snprintf(why, sizeof(why), "cpu: %s", e.msg);
	else if (!(ok = edge_on_gpu(g, &in, &b, &o, &ib, &e) == 0))
		snprintf(why, sizeof(why), "gpu: %s", e.msg);
	else if (!(ok = memcmp(a.px, b.px, img_bytes(&a)) == 0))
		snprintf(why, sizeof(why), "output differs from the CPU reference");
	else if (!(ok = ia.low == ib.low && ia.high == ib.high))
		snprintf(why, sizeof(why), "thresholds %g %g, CPU %g %g", ib.low,
		    ib.high, ia.low, ia.high);
	result(name, ok, "%s", why);
	img_free(&in);
	img_free(&a);
	img_free(&b);
}

/* Otsu's threshold from the GPU histogram and search equals the CPU's. */
static void
gpu_otsu_run(struct gpu *g, unsigned maxval, int l1)
{
	struct image in;
	struct gpu_image d;
	struct gf_err e;
	uint32_t tc = 0, tg = 1;
	char name[64], why[600] = "";
	int ok;

	rng_state = 777;
	in = make_image(611, 419, maxval, maxval > 255 ? photo_like16 : photo_like);
	snprintf(name, sizeof(name), "gpu/otsu-%ubit%s", maxval > 255 ? 16 : 8,
	    l1 ? "-l1" : "");
	ok = otsu_cpu(&in, GF_BORDER_REPLICATE, l1, &tc, 0, &e) == 0 &&
	    gpu_image_get(g, GPU_SLOT_IN, in.width, in.height, maxval, &d, &e) == 0 &&
	    gpu_upload(g, &in, 0, &d, &e) == 0 &&
	    otsu_gpu(g, &d, GF_BORDER_REPLICATE, l1, &tg, &e) == 0;
	if (!ok)
		snprintf(why, sizeof(why), "%s", e.msg);
	else if (!(ok = tc == tg))
		snprintf(why, sizeof(why), "GPU %u, CPU %u", tg, tc);
	result(name, ok, "%s", why);
	img_free(&in);
}

static void
test_gpu(void)
{
	struct gpu g;
	struct gf_err e;

	if (gpu_open(&g, -1, &e) < 0) {
		for (int s = GF_FIRST_GPU; s <= GF_LAST_GPU; s++)
			for (size_t i = 0; i < NGPU_CASES; i++)
				printf("skip gpu/%s/%s: no GPU\n", gf_strategies[s].name,
				    gpu_cases[i].name);
		printf("skip gpu/otsu: no GPU\n");
		return;
	}
	for (int s = GF_FIRST_GPU; s <= GF_LAST_GPU; s++)
		for (size_t i = 0; i < NGPU_CASES; i++)
			gpu_case_run(&g, &gpu_cases[i], (enum gf_strategy)s);
	gpu_otsu_run(&g, 255, 0);
	gpu_otsu_run(&g, 255, 1);
	gpu_otsu_run(&g, 65535, 0);
	gpu_otsu_run(&g, 4095, 1);
	gpu_close(&g);
}

/*
 * edge_classify against its rule as the comment in edge_core.h states it,
 * with early exits: every magnitude, neighbour and threshold in 0..4
 * (ties and every order) in every sector.
 */
static void
test_classify_rule(void)
{
	long bad = 0;

	for (int s = 0; s < 4; s++)
	for (uint64_t m = 0; m < 5; m++)
	for (uint64_t b = 0; b < 5; b++)
	for (uint64_t a = 0; a < 5; a++)
	for (uint64_t lo = 0; lo < 5; lo++)
	for (uint64_t hi = lo; hi < 5; hi++) {
		struct grad_thresh p = {0, lo, hi};
		int diag = s == EDGE_SECTOR_45 || s == EDGE_SECTOR_135, want;
		if (m <= lo || m <= b || (diag ? m <= a : m < a))
			want = EDGE_NONE;
		else
			want = m > hi ? EDGE_STRONG : EDGE_WEAK;
		bad += edge_classify(m, b, a, s, &p) != want;
	}
	result("classify_rule", bad == 0, "edge_classify breaks its rule");
}

/* ---- the CPU path on threads ---- */

/* Samples of a and b (the same size) that differ. */
static size_t
count_differ(const struct image *a, const struct image *b)
{
	size_t d = 0;

	for (int y = 0; y < a->height; y++)
		for (int x = 0; x < a->width; x++)
			d += px(a, x, y) != px(b, x, y);
	return d;
}

/* edge_cpu of in with o on 1, 2, 3 and 7 threads; the first failure in why. */
static size_t
threads_differ(const struct image *in, const struct edge_opts *o,
    char *why, size_t n)
{
	static const int threads[] = {1, 2, 3, 7};
	struct image out[4] = {{0}};
	struct edge_info info[4];
	struct edge_params p = edge_params_for(o);
	size_t bad = 0;

	/* All outputs live at once: none reuses another's memory. */
	for (int t = 0; t < 4; t++) {
		struct gf_err e = {0};
		size_t d = edge_cpu(in, &out[t], &p, &info[t], threads[t], &e) < 0 ?
		    1 : count_differ(&out[0], &out[t]) +
		    (info[t].high != info[0].high);
		if (d > 0 && bad++ == 0)
			snprintf(why, n, "%dx%d maxval %u border %d sigma %g%s%s, %d "
			    "threads: %zu differ from 1 thread %s", in->width,
			    in->height, in->maxval, o->common.border, o->sigma,
			    o->auto_thresh ? " auto" : "", o->l1 ? " l1" : "",
			    threads[t], d, e.msg);
	}
	for (int t = 0; t < 4; t++)
		img_free(&out[t]);
	return bad;
}

/*
 * edge_cpu on 1, 2, 3 and 7 threads gives the same edges and
 * thresholds: odd sizes, every border, 8 and 16 bit, with and without
 * smoothing, given and Otsu thresholds, both norms.
 */
static void
test_cpu_threads(void)
{
	static const int sizes[][2] = {{1, 1}, {2, 40}, {37, 3}, {23, 300},
	    {61, 67}};
	char name[64], why[640] = "";

	for (int deep = 0; deep < 2; deep++)
	for (int smooth = 0; smooth < 2; smooth++) {
		size_t bad = 0;
		for (int k = 0; k < 5; k++)
		for (int v = 0; v < 4; v++) {
			unsigned m = deep ? 65535 : 255;
			struct image in = make_image(sizes[k][0], sizes[k][1], m,
			    deep ? photo_like16 : photo_like);
			struct edge_opts o = opts(40.0 * m / 255, 90.0 * m / 255, v & 1);
			o.sigma = smooth ? 1.4 : 0;
			o.auto_thresh = v >> 1;
			for (int b = 0; b < 4; b++) {
				o.common.border = b;
				bad += threads_differ(&in, &o, why, bad ? 0 : sizeof(why));
			}
			img_free(&in);
		}
		snprintf(name, sizeof(name), "cpu_threads_%dbit%s", deep ? 16 : 8,
		    smooth ? "_sigma1.4" : "");
		result(name, bad == 0, "%s", why);
	}
}

/*
 * The float cores of the GPU's 8-bit kernels equal the 64-bit integer
 * ones for every gradient an 8-bit image gives (|gx|, |gy| <= 1020), and
 * the double threshold keeps its answer with thresholds past 2^24.
 */
static void
test_coresf(void)
{
	static const uint64_t lows[] = {0, 1, 1599, 1600, 2080800, 2080801,
	    (1u << 24) - 1, 1u << 24, (1u << 24) + 1, 0xffffffffull,
	    0x100000000ull, ~0ull};
	char why[160] = "";
	int bad = 0;

	for (int gx = -1020; gx <= 1020 && !bad; gx++)
		for (int gy = -1020; gy <= 1020 && !bad; gy++) {
			float fx = (float)gx, fy = (float)gy;
			if (edge_magf(fx, fy, 0) != (float)grad_mag(gx, gy, 0) ||
			    edge_magf(fx, fy, 1) != (float)grad_mag(gx, gy, 1) ||
			    edge_sectorf(fx, fy) != edge_sector(gx, gy)) {
				snprintf(why, sizeof(why), "gx %d gy %d", gx, gy);
				bad = 1;
			}
		}
	result("coresf/mag-sector", !bad, "%s", why);
	/* The strips compare magnitudes with the clamped thresholds. */
	for (size_t i = 0; i < sizeof(lows) / sizeof(lows[0]) && !bad; i++) {
		struct grad_thresh p = {0, lows[i], lows[i]};
		struct edge_paramsf q = edge_params_f(&p);
		for (uint32_t m = 0; m <= 2 * 1020 * 1020 && !bad; m++)
			if (((float)m > q.low) != (m > p.low) ||
			    ((float)m > q.high) != (m > p.high)) {
				snprintf(why, sizeof(why), "threshold %llu, m %u",
				    (unsigned long long)lows[i], m);
				bad = 1;
			}
	}
	result("coresf/thresholds", !bad, "%s", why);
}

/*
 * The 32-bit cores of the CPU's 8-bit rows equal the 64-bit ones for
 * every gradient an 8-bit image gives, and edge_classify32 with clamped
 * thresholds equals edge_classify for every magnitude there, in every
 * sector, at the edge of each comparison.
 */
static void
test_cores32(void)
{
	static const uint64_t ts[] = {0, 1, 1599, 1600, 2080799, 2080800,
	    0xffffffffull, 0x100000000ull, ~0ull};
	static const uint32_t ms[] = {0, 1, 2, 1599, 1600, 1601, 2080799, 2080800};
	char why[160] = "";
	int bad = 0;

	for (int gx = -1020; gx <= 1020 && !bad; gx++)
		for (int gy = -1020; gy <= 1020 && !bad; gy++)
			if (edge_mag32(gx, gy, 0) != grad_mag(gx, gy, 0) ||
			    edge_mag32(gx, gy, 1) != grad_mag(gx, gy, 1) ||
			    edge_sector32(gx, gy) != edge_sector(gx, gy)) {
				snprintf(why, sizeof(why), "gx %d gy %d", gx, gy);
				bad = 1;
			}
	result("cores32/mag-sector", !bad, "%s", why);
	for (size_t l = 0; l < sizeof(ts) / sizeof(ts[0]); l++)
	for (size_t h = l; h < sizeof(ts) / sizeof(ts[0]); h++) {
		struct grad_thresh p = {0, ts[l], ts[h]};
		struct edge_params32 q = edge_params_32(&p);
		for (size_t a = 0; a < 8; a++)
		for (size_t b = 0; b < 8; b++)
		for (size_t c = 0; c < 8; c++)
		for (int sec = 0; sec < 4 && !bad; sec++)
			if (edge_classify32(ms[a], ms[b], ms[c], sec, &q) !=
			    edge_classify(ms[a], ms[b], ms[c], sec, &p)) {
				snprintf(why, sizeof(why), "low %llu high %llu m %u",
				    (unsigned long long)ts[l],
				    (unsigned long long)ts[h], ms[a]);
				bad = 1;
			}
	}
	result("cores32/classify", !bad, "%s", why);
}

/* otsu_hist8's float histogram value equals grad_hist_value for every 8-bit gradient. */
static void
test_hist_value8(void)
{
	static const unsigned maxvals[] = {255, 100, 1};
	char why[96] = "";
	int bad = 0;

	for (int m = 0; m < 3 && !bad; m++)
		for (int l1 = 0; l1 <= 1 && !bad; l1++)
			for (int gx = -1020; gx <= 1020 && !bad; gx++)
				for (int gy = -1020; gy <= 1020; gy++) {
					uint32_t f = grad_hist_value8(gx, gy, l1, maxvals[m]);
					uint32_t i = grad_hist_value(gx, gy, l1, maxvals[m]);
					if (f != i) {
						snprintf(why, sizeof(why), "maxval %u l1 %d (%d, %d): %u, not %u",
						    maxvals[m], l1, gx, gy, f, i);
						bad = 1;
						break;
					}
				}
	result("hist-value8/all-gradients", !bad, "%s", why);
}

int
main(void)
{
	test_step();
	test_ramp();
	test_frame();
	test_chains();
	test_tiny();
	test_otsu();
	test_hist_value8();
	test_classify_rule();
	test_coresf();
	test_cores32();
	test_cpu_threads();
	test_gpu();
	return nfail ? 1 : 0;
}
