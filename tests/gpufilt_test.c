/*
 * gpufilt_test - the public API (lib/api/gpufilt.h) through its header
 * alone: golden cases of the three tools through the host calls on the
 * CPU (the same bytes as the tools' goldens), strided and colour inputs,
 * option values refused with the tools' messages and codes, contexts on
 * a machine with and without a GPU, several threads on one context;
 * against the tools' own output (bin/ beside the test), the signed
 * gradients saved to TIFF and the colour modes on RGBA and JPEG; on
 * a GPU, every strategy through the host calls and the device calls (in
 * a stream of the test's, on buffers from cudaMallocPitch) against the
 * same goldens, and the host calls on images tall enough to go in
 * strips against the CPU's bytes.  Without a GPU those cases print
 * "skip".  Run from the project root.
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "gpufilt.h"
#include "strategy.h"

static int nfail;

static void __attribute__((format(printf, 3, 4)))
result(const char *name, int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s", ok ? "pass" : "fail", name);
	if (!ok) {
		nfail++;
		printf(": ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	printf("\n");
}

static void
skip(const char *name, const char *why)
{
	printf("skip %s: %s\n", name, why);
}

enum op { SOBEL, CONV2D, EDGE };

/* A golden case: the tool's options as gf_options, and its golden file. */
struct gcase {
	const char *name;
	enum op op;
	const char *sample;
	void (*set)(gf_options *o);
	const char *golden;
};

static void set_none(gf_options *o) { (void)o; }
static void set_thr90(gf_options *o) { o->threshold = 90; }
static void set_wrap(gf_options *o) { o->border = "wrap"; }
static void
set_l1auto(gf_options *o)
{
	o->l1 = 1;
	o->auto_threshold = 1;
	o->border = "reflect";
}
static void set_gauss14(gf_options *o) { o->kernel = "gauss:1.4"; }
static void
set_blur3(gf_options *o)
{
	o->kernel = "1,2,1;2,4,2;1,2,1";
	o->normalize = 1;
}
static void
set_k9wrap(gf_options *o)
{
	o->kernel = "@tests/kernels/nonsep9x9.txt";
	o->divisor = 4;
	o->bias = 128;
	o->border = "wrap";
}
static void
set_real_abs(gf_options *o)
{
	o->kernel = "0.5,-1,0;-1,0.25,1;0,1,-0.5";
	o->abs = 1;
	o->bias = 3;
	o->border = "zero";
}
static void
set_s0auto(gf_options *o)
{
	o->sigma = 0;
	o->auto_threshold = 1;
}
static void
set_edge_l1_16(gf_options *o)
{
	o->l1 = 1;
	o->sigma = 1;
	o->low = 12850;
	o->high = 30840;
}
static void
set_high(gf_options *o)
{
	o->sigma = 2.5;
	o->high = 30;
}
static void set_gx(gf_options *o) { o->gradient = "x"; }
static void
set_gyreflect(gf_options *o)
{
	o->gradient = "y";
	o->border = "reflect";
}
static void set_depth16(gf_options *o) { o->depth = 16; }
static void
set_gysobel7(gf_options *o)
{
	o->gradient = "y";
	o->op = "sobel7";
	o->border = "wrap";
}
static void set_chan(gf_options *o) { o->colour = "channels"; }
static void
set_chanauto(gf_options *o)
{
	o->colour = "channels";
	o->auto_threshold = 1;
	o->border = "reflect";
}
static void set_max(gf_options *o) { o->colour = "max"; }
static void
set_maxsch(gf_options *o)
{
	o->colour = "max";
	o->op = "scharr";
	o->l1 = 1;
	o->threshold = 200;
}
static void
set_maxdir(gf_options *o)
{
	o->colour = "max";
	o->gradient = "direction";
}
static void
set_max_s7thr(gf_options *o)
{
	o->colour = "max";
	o->op = "sobel7";
	o->threshold = 9000.5;
	o->border = "wrap";
}
static void
set_edge_chan(gf_options *o)
{
	o->colour = "channels";
	o->sigma = 0;
	o->low = 40;
	o->high = 100;
}
static void
set_edge_max(gf_options *o)
{
	set_edge_chan(o);
	o->colour = "max";
}
static void
set_edge_max_pct(gf_options *o)
{
	o->colour = "max";
	o->sigma = 0;
	o->high_spec = "30%";
}
static void
set_edge_max_q(gf_options *o)
{
	o->colour = "max";
	o->sigma = 0;
	o->low_spec = "q0.7";
	o->high_spec = "q0.9";
	o->border = "reflect";
}
static void
set_edge_quantiles(gf_options *o)
{
	o->quantiles = 1;
	o->low_spec = "0.7";
	o->high_spec = "0.9";
}
static void
set_edge_max_l1(gf_options *o)
{
	o->colour = "max";
	o->l1 = 1;
	o->sigma = 1;
	o->low = 50;
	o->high = 120;
	o->border = "zero";
}

static const struct gcase gcases[] = {
	{"sobel_coins_mag", SOBEL, "coins.pgm", set_none, "sobel/coins.mag.pgm"},
	{"sobel_chelsea_thr", SOBEL, "chelsea.png", set_thr90, "sobel/chelsea.thr.pgm"},
	{"sobel_coins_wrap", SOBEL, "coins.pgm", set_wrap, "sobel/coins.wrap.pgm"},
	{"sobel_astro16_l1auto", SOBEL, "astro16.pgm", set_l1auto,
	    "sobel/astro16.l1auto.pgm"},
	{"sobel_coins_gx", SOBEL, "coins.pgm", set_gx, "sobel/coins.gx.pgm"},
	{"sobel_astro16_gyreflect", SOBEL, "astro16.pgm", set_gyreflect,
	    "sobel/astro16.gyreflect.pgm"},
	{"sobel_coins_mag16", SOBEL, "coins.pgm", set_depth16,
	    "sobel/coins.mag16.pgm"},
	{"sobel_chelsea_mag16", SOBEL, "chelsea.png", set_depth16,
	    "sobel/chelsea.mag16.pgm"},
	{"sobel_chelsea_gysobel7", SOBEL, "chelsea.png", set_gysobel7,
	    "sobel/chelsea.gysobel7.pgm"},
	{"sobel_chelsea_chan", SOBEL, "chelsea.png", set_chan,
	    "sobel/chelsea.chan.ppm"},
	{"sobel_chelsea_chanauto", SOBEL, "chelsea.png", set_chanauto,
	    "sobel/chelsea.chanauto.ppm"},
	{"sobel_coins_chanauto", SOBEL, "coins.pgm", set_chanauto,
	    "sobel/coins.chanauto.pgm"},
	{"sobel_chelsea_max", SOBEL, "chelsea.png", set_max,
	    "sobel/chelsea.max.pgm"},
	{"sobel_chelsea_maxsch", SOBEL, "chelsea.png", set_maxsch,
	    "sobel/chelsea.maxsch.pgm"},
	{"sobel_chelsea_maxdir", SOBEL, "chelsea.png", set_maxdir,
	    "sobel/chelsea.maxdir.pgm"},
	{"sobel_coins_max", SOBEL, "coins.pgm", set_max, "sobel/coins.max.pgm"},
	{"sobel_rgba8_max_s7thr", SOBEL, "max/rgba8.pam", set_max_s7thr,
	    "max/rgba8.sobel.s7thr.pgm"},
	{"sobel_rgba16_maxdir", SOBEL, "max/rgba16.pam", set_maxdir,
	    "max/rgba16.sobel.dir.pgm"},
	{"conv2d_chelsea_gauss14", CONV2D, "chelsea.png", set_gauss14,
	    "conv2d/chelsea.gauss14.ppm"},
	{"conv2d_coins_blur3", CONV2D, "coins.pgm", set_blur3,
	    "conv2d/coins.blur3.pgm"},
	{"conv2d_astro16_k9wrap", CONV2D, "astro16.pgm", set_k9wrap,
	    "conv2d/astro16.k9wrap.pgm"},
	{"conv2d_coins_real_abs", CONV2D, "coins.pgm", set_real_abs,
	    "conv2d/coins.real-abs.pgm"},
	{"edge_coins_default", EDGE, "coins.pgm", set_none, "edge/coins.default.pgm"},
	{"edge_chelsea_s0auto", EDGE, "chelsea.png", set_s0auto,
	    "edge/chelsea.s0auto.pgm"},
	{"edge_astro16_l1", EDGE, "astro16.pgm", set_edge_l1_16,
	    "edge/astro16.l1.pgm"},
	{"edge_coins_high", EDGE, "coins.pgm", set_high, "edge/coins.high.pgm"},
	{"edge_chelsea_chan", EDGE, "chelsea.png", set_edge_chan,
	    "edge/chelsea.chan.ppm"},
	{"edge_chelsea_chanauto", EDGE, "chelsea.png", set_chan,
	    "edge/chelsea.chanauto.ppm"},
	{"edge_chelsea_max", EDGE, "chelsea.png", set_edge_max,
	    "edge/chelsea.max.pgm"},
	{"edge_chelsea_maxauto", EDGE, "chelsea.png", set_max,
	    "edge/chelsea.maxauto.pgm"},
	{"edge_coins_max", EDGE, "coins.pgm", set_edge_max, "edge/coins.max.pgm"},
	{"edge_rgba8_max_l1", EDGE, "max/rgba8.pam", set_edge_max_l1,
	    "max/rgba8.edge.l1.pgm"},
	{"edge_rgba8_max_pct", EDGE, "max/rgba8.pam", set_edge_max_pct,
	    "max/rgba8.edge.pct.pgm"},
	{"edge_rgba16_max_q", EDGE, "max/rgba16.pam", set_edge_max_q,
	    "max/rgba16.edge.q.pgm"},
};
#define NGCASES (sizeof(gcases) / sizeof(gcases[0]))

static int
run_host(enum op op, gf_context *ctx, const gf_image *in, gf_image *out,
    const gf_options *o, gf_error *err)
{
	if (op == SOBEL)
		return gf_sobel(ctx, in, out, o, err);
	if (op == CONV2D)
		return gf_conv2d(ctx, in, out, o, err);
	return gf_edge(ctx, in, out, o, err);
}

static int
run_device(enum op op, gf_context *ctx, const gf_image *in,
    const gf_image *out, const gf_options *o, cudaStream_t s, gf_error *err)
{
	if (op == SOBEL)
		return gf_sobel_device(ctx, in, out, o, s, err);
	if (op == CONV2D)
		return gf_conv2d_device(ctx, in, out, o, s, err);
	return gf_edge_device(ctx, in, out, o, s, err);
}

/* Whether a and b hold the same pixels (strides may differ); why if not. */
static int
same_image(const gf_image *a, const gf_image *b, char *why, size_t n)
{
	size_t row = (size_t)a->width * a->channels * (a->maxval > 255 ? 2 : 1);
	size_t sa = a->stride ? a->stride : row, sb = b->stride ? b->stride : row;

	if (a->width != b->width || a->height != b->height ||
	    a->channels != b->channels || a->maxval != b->maxval) {
		snprintf(why, n, "%dx%d, %d channels, maxval %u against %dx%d, %d, %u",
		    a->width, a->height, a->channels, a->maxval, b->width,
		    b->height, b->channels, b->maxval);
		return 0;
	}
	for (int y = 0; y < a->height; y++)
		if (memcmp((const char *)a->data + y * sa,
		    (const char *)b->data + y * sb, row) != 0) {
			snprintf(why, n, "row %d differs", y);
			return 0;
		}
	return 1;
}

/* Loads samples/name (or build/golden/name, unpacked by
 * tests/golden/unpack.sh); aborts the test if it cannot. */
static gf_image
load(const char *dir, const char *name)
{
	char path[256];
	gf_image img;
	gf_error err;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (gf_load(path, &img, 0, &err) != GF_OK) {
		printf("fail load_%s: %s\n", name, err.message);
		exit(1);
	}
	return img;
}

/* A case's input: a sample, or one of the goldens' inputs (max/rgba8.pam). */
static gf_image
load_sample(const char *name)
{
	return load(strchr(name, '/') != NULL ? "build/golden" : "samples", name);
}

/* Whether options o ask sobel for a signed output (gradient x or y). */
static int
signed_output(enum op op, const gf_options *o)
{
	return op == SOBEL && o->gradient != NULL &&
	    (strcmp(o->gradient, "x") == 0 || strcmp(o->gradient, "y") == 0);
}

/*
 * The golden cases through the host calls on ctx with strategy s; the
 * output says it is offset binary exactly when it is sobel's x or y.
 */
static void
golden_host(gf_context *ctx, const char *strategy, const char *tag)
{
	char name[128], why[256];

	for (size_t i = 0; i < NGCASES; i++) {
		const struct gcase *c = &gcases[i];
		gf_image in = load_sample(c->sample), want = load("build/golden",
		    c->golden), out;
		gf_options o;
		gf_error err;
		int code;

		gf_options_init(&o);
		c->set(&o);
		o.strategy = strategy;
		snprintf(name, sizeof(name), "%s_%s", tag, c->name);
		code = run_host(c->op, ctx, &in, &out, &o, &err);
		if (code != GF_OK)
			result(name, 0, "code %d: %s", code, err.message);
		else {
			int same = same_image(&out, &want, why, sizeof(why));
			if (same && out.offset_binary != signed_output(c->op, &o))
				snprintf(why, sizeof(why), "offset_binary is %d",
				    out.offset_binary);
			result(name, same && out.offset_binary == signed_output(c->op,
			    &o), "%s", why);
			gf_image_free(&out);
		}
		gf_image_free(&in);
		gf_image_free(&want);
	}
}

/* Input with rows 64 bytes apart beyond their width gives the same result. */
static void
test_stride(gf_context *ctx, const char *name)
{
	gf_image in = load("samples", "coins.pgm"), want, out, wide = in;
	gf_options o;
	gf_error err;
	char why[256];

	gf_options_init(&o);
	wide.stride = (size_t)in.width + 64;
	if ((wide.data = malloc(wide.stride * in.height)) == NULL)
		abort();
	for (int y = 0; y < in.height; y++)
		memcpy((char *)wide.data + y * wide.stride,
		    (char *)in.data + (size_t)y * in.width, (size_t)in.width);
	if (gf_sobel(ctx, &in, &want, &o, &err) != GF_OK ||
	    gf_sobel(ctx, &wide, &out, NULL, &err) != GF_OK) {
		result(name, 0, "%s", err.message);
	} else {
		result(name, same_image(&out, &want, why,
		    sizeof(why)), "%s", why);
		gf_image_free(&out);
		gf_image_free(&want);
	}
	gf_image_free(&in);
	free(wide.data);
}

/* conv2d keeps alpha: an RGBA identity comes back as it was. */
static void
test_alpha(gf_context *ctx, const char *name)
{
	unsigned char px[2 * 3 * 4];
	gf_image in = {2, 3, 4, 255, 0, px, 0}, out;
	gf_options o;
	gf_error err;
	char why[256];

	for (size_t i = 0; i < sizeof(px); i++)
		px[i] = (unsigned char)(i * 37);
	gf_options_init(&o);
	o.kernel = "identity";
	if (gf_conv2d(ctx, &in, &out, &o, &err) != GF_OK) {
		result(name, 0, "%s", err.message);
		return;
	}
	result(name, same_image(&out, &in, why, sizeof(why)), "%s", why);
	gf_image_free(&out);
}

/* Options refused with the tools' messages; each call fills err with GF_EINVAL. */
static void
test_refused(gf_context *ctx)
{
	static const struct {
		const char *name;
		enum op op;
		const char *field, *text;
		double v;
		const char *needle;
	} cases[] = {
		{"strategy_bogus", SOBEL, "strategy", "bogus", 0, "bogus"},
		{"border_bogus", SOBEL, "border", "mirror", 0, "mirror"},
		{"threshold_nan", SOBEL, "threshold", NULL, NAN, "not a number"},
		{"threshold_huge", SOBEL, "threshold", NULL, 2e9, "-t is"},
		{"no_kernel", CONV2D, "kernel", NULL, 0, "no kernel"},
		{"kernel_bad", CONV2D, "kernel", "1 2; 3", 0, "row"},
		{"normalize_divisor", CONV2D, "divisor", "1 2 1", 4, "exclude"},
		{"sigma_tiny", EDGE, "sigma", NULL, 1e-9, "too small"},
		{"low_above_high", EDGE, "low", NULL, 50, "greater than --high"},
		{"block_zero", EDGE, "block", NULL, 0, "1 to 1024"},
		{"gradient_bogus", SOBEL, "gradient", "z", 0, "choose magnitude, "
		    "direction, x or y"},
		{"gradient_x_threshold", SOBEL, "gradient", "x", 30, "takes no threshold"},
		{"depth_8", SOBEL, "depth", NULL, 8, "depth is 8; it must be 16"},
		{"depth_direction", SOBEL, "depth", "direction", 16, "bins are 0 to 255"},
		{"colour_bogus", SOBEL, "colour", "rgb", 0, "--colour 'rgb' is not "
		    "a colour mode; choose gray, channels or max"},
		{"edge_colour_bogus", EDGE, "colour", "all", 0, "'all' is not a "
		    "colour mode"},
		{"colour_max_gx", SOBEL, "colour", "max", 1, "--colour max is not "
		    "taken with it"},
		{"op_bogus", SOBEL, "op", "kirsch", 0, "'kirsch' is not an operator"},
		{"op_auto", SOBEL, "op", "scharr", 1, "not of --operator scharr"},
		{"high_spec_bogus", EDGE, "high_spec", "150%", 0, "--high 150%: give "
		    "a percentage of 0% to 100%"},
		{"high_twice", EDGE, "high_spec", "q0.9", 40, "--high is given "
		    "twice, as 40 and as 'q0.9'"},
		{"low_spec_above_high", EDGE, "low_spec", "q0.95", 0, "--low q0.95 "
		    "is greater than --high q0.9"},
		{"quantiles_numbers", EDGE, "quantiles", NULL, 40, "give the "
		    "thresholds there"},
	};
	unsigned char px[16] = {0};
	gf_image in = {4, 4, 1, 255, 0, px, 0}, out = {0};
	char name[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gf_options o;
		gf_error err = {0, ""};
		int code;

		gf_options_init(&o);
		if (strcmp(cases[i].field, "strategy") == 0)
			o.strategy = cases[i].text;
		else if (strcmp(cases[i].field, "border") == 0)
			o.border = cases[i].text;
		else if (strcmp(cases[i].field, "threshold") == 0)
			o.threshold = cases[i].v;
		else if (strcmp(cases[i].field, "gradient") == 0) {
			o.gradient = cases[i].text;
			o.threshold = cases[i].v != 0 ? cases[i].v : -1;
		} else if (strcmp(cases[i].field, "depth") == 0) {
			o.depth = (int)cases[i].v;
			o.gradient = cases[i].text;
		}
		else if (strcmp(cases[i].field, "colour") == 0) {
			o.colour = cases[i].text;
			o.gradient = cases[i].v != 0 ? "x" : NULL;
		} else if (strcmp(cases[i].field, "high_spec") == 0) {
			o.high_spec = cases[i].text;
			o.high = cases[i].v != 0 ? cases[i].v : -1;
		} else if (strcmp(cases[i].field, "low_spec") == 0) {
			o.low_spec = cases[i].text;
			o.high_spec = "q0.9";
		} else if (strcmp(cases[i].field, "quantiles") == 0) {
			o.quantiles = 1;
			o.high = cases[i].v;
		} else if (strcmp(cases[i].field, "op") == 0) {
			o.op = cases[i].text;
			o.auto_threshold = cases[i].v != 0;
		} else if (strcmp(cases[i].field, "kernel") == 0)
			o.kernel = cases[i].text;
		else if (strcmp(cases[i].field, "divisor") == 0) {
			o.kernel = cases[i].text;
			o.normalize = 1;
			o.divisor = cases[i].v;
		} else if (strcmp(cases[i].field, "sigma") == 0)
			o.sigma = cases[i].v;
		else if (strcmp(cases[i].field, "low") == 0) {
			o.low = cases[i].v;
			o.high = 40;
		} else {
			o.block_w = 0;
			o.block_h = 8;
		}
		code = run_host(cases[i].op, ctx, &in, &out, &o, &err);
		snprintf(name, sizeof(name), "refused_%s", cases[i].name);
		printf("# %s: %s\n", name, err.message);
		result(name, code == GF_EINVAL && err.code == GF_EINVAL &&
		    strstr(err.message, cases[i].needle) != NULL && out.data == NULL,
		    "code %d, message '%s' lacks '%s'", code, err.message,
		    cases[i].needle);
	}
}

/* NULLs and a missing file are codes, not crashes; err may be NULL. */
static void
test_arguments(gf_context *ctx)
{
	gf_image img = {0}, out;
	gf_error err = {0, ""};

	result("load_missing", gf_load("samples/nosuch.png", &img, 0, &err) ==
	    GF_EIMAGE && strstr(err.message, "nosuch.png") && img.data == NULL,
	    "code %d: %s", err.code, err.message);
	result("load_null_path", gf_load(NULL, &img, 0, NULL) == GF_EINVAL,
	    "unexpected result");
	result("load_bad_flags", gf_load("samples/coins.pgm", &img, 8, &err) ==
	    GF_EINVAL && strstr(err.message, "0x8"), "code %d: %s", err.code,
	    err.message);
	result("sobel_null_input", gf_sobel(ctx, NULL, &out, NULL, &err) ==
	    GF_EINVAL && strstr(err.message, "NULL"), "%s", err.message);
	result("save_bad_extension", gf_save("/tmp/gpufilt_test.gif", &img, &err)
	    == GF_EINVAL, "code %d: %s", err.code, err.message);
	result("strerror", strcmp(gf_strerror(GF_ENOGPU), "no usable GPU") == 0 &&
	    strcmp(gf_strerror(99), "unknown error code") == 0, "unexpected result");
	result("version", strcmp(gf_version(), GF_VERSION_STRING) == 0, "%s",
	    gf_version());
	result("open_bad_device", gf_open(-7, &err) == NULL &&
	    err.code == GF_EINVAL, "code %d: %s", err.code, err.message);
	/* A NULL context is a bad argument, not a missing GPU (issue 45). */
	for (int op = SOBEL; op <= EDGE; op++) {
		static const char *const names[] = {"sobel", "conv2d", "edge"};
		char name[64];
		int code = run_device((enum op)op, NULL, &img, &img, NULL, NULL, &err);
		snprintf(name, sizeof(name), "device_null_context_%s", names[op]);
		result(name, code == GF_EINVAL && err.code == GF_EINVAL &&
		    strstr(err.message, "context is NULL"), "code %d: %s", code,
		    err.message);
	}
	result("device_null_context_no_err", gf_edge_device(NULL, NULL, NULL,
	    NULL, NULL, NULL) == GF_EINVAL, "unexpected result");
}

/* Four threads run sobel on one context at once; each gets the golden bytes. */
struct worker {
	gf_context *ctx;
	const gf_image *in, *want;
	int ok;
};

static void *
work(void *arg)
{
	struct worker *w = arg;
	char why[256];

	w->ok = 1;
	for (int k = 0; k < 4 && w->ok; k++) {
		gf_image out;
		w->ok = gf_sobel(w->ctx, w->in, &out, NULL, NULL) == GF_OK &&
		    same_image(&out, w->want, why, sizeof(why));
		if (w->ok)
			gf_image_free(&out);
	}
	return NULL;
}

static void
test_threads(gf_context *ctx, const char *name)
{
	gf_image in = load("samples", "coins.pgm"), want = load("build/golden",
	    "sobel/coins.mag.pgm");
	struct worker w[4];
	pthread_t t[4];
	int ok = 1;

	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ctx, &in, &want, 0};
		if (pthread_create(&t[i], NULL, work, &w[i]) != 0)
			abort();
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		ok = ok && w[i].ok;
	}
	result(name, ok, "a thread's result differs or failed");
	gf_image_free(&in);
	gf_image_free(&want);
}

/* ---- the tools' own bytes */

/*
 * Where the tools of this build are: bin/ beside build/tests/gpufilt_test,
 * build/asan/bin beside build/asan/tests/gpufilt_test.
 */
static void
tools_dir(const char *argv0, char *dir, size_t n)
{
	const char *t = strstr(argv0, "tests/gpufilt_test");
	int len = t != NULL ? (int)(t - argv0) : 0;

	/* argv0 up to its "tests/": "build/", "build/asan/", "/x/build/" */
	if (len >= 6 && strncmp(argv0 + len - 6, "build/", 6) == 0 &&
	    (len == 6 || argv0[len - 7] == '/'))
		snprintf(dir, n, "%.*sbin", len - 6, argv0);
	else
		snprintf(dir, n, "%.*sbin", len, argv0);
}

/* Whether files a and b hold the same bytes; why if not. */
static int
same_file(const char *a, const char *b, char *why, size_t n)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	int ca, cb, same = fa != NULL && fb != NULL;
	long at = 0;

	if (!same)
		snprintf(why, n, "cannot open %s or %s", a, b);
	while (same) {
		ca = getc(fa);
		cb = getc(fb);
		if (ca != cb) {
			snprintf(why, n, "%s and %s differ at byte %ld", a, b, at);
			same = 0;
		}
		if (ca == EOF)
			break;
		at++;
	}
	if (fa != NULL)
		fclose(fa);
	if (fb != NULL)
		fclose(fb);
	return same;
}

/*
 * The host calls against the tools' own files, where goldens hold no such
 * case: the signed gradients written to TIFF as sobel writes them (int16
 * samples, from the output's offset_binary) and to PNG, --colour channels
 * of RGBA (alpha kept) and --colour max of a colour JPEG.  Each tool runs
 * on the CPU (its bytes are every strategy's), the library on ctx.
 */
static void
test_tool_bytes(gf_context *ctx, const char *tools, const char *tag)
{
	static const struct {
		const char *name, *args, *input;
		enum op op;
		void (*set)(gf_options *o);
		const char *ext;
	} cases[] = {
		{"sobel_gx_tiff", "sobel --gradient x", "samples/coins.pgm", SOBEL,
		    set_gx, "tif"},
		{"sobel_gy_reflect_tiff16", "sobel --gradient y --border reflect",
		    "samples/astro16.pgm", SOBEL, set_gyreflect, "tif"},
		{"sobel_gx_png", "sobel --gradient x", "samples/chelsea.png", SOBEL,
		    set_gx, "png"},
		{"sobel_chan_rgba8", "sobel --colour channels",
		    "build/golden/max/rgba8.pam", SOBEL, set_chan, "pam"},
		{"edge_chan_rgba16", "edge --colour channels",
		    "build/golden/max/rgba16.pam", EDGE, set_chan, "pam"},
		{"sobel_max_jpeg", "sobel --colour max", "samples/small.jpg", SOBEL,
		    set_max, "png"},
		{"edge_max_jpeg", "edge --colour max", "samples/small.jpg", EDGE,
		    set_max, "pgm"},
		{"edge_quantiles", "edge --quantiles --low 0.7 --high 0.9",
		    "samples/coins.pgm", EDGE, set_edge_quantiles, "pgm"},
	};
	char dir[] = "/tmp/gpufilt_test.XXXXXX", cmd[1024], tool[256], lib[256];
	char name[128], why[1024];

	snprintf(tool, sizeof(tool), "%s/sobel", tools);
	if (access(tool, X_OK) != 0 || mkdtemp(dir) == NULL) {
		skip(tag, "no tools beside the test, or no temporary directory");
		return;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gf_image in, out;
		gf_options o;
		gf_error err;
		int ok;

		snprintf(name, sizeof(name), "%s_%s", tag, cases[i].name);
		snprintf(tool, sizeof(tool), "%s/tool.%s", dir, cases[i].ext);
		snprintf(lib, sizeof(lib), "%s/lib.%s", dir, cases[i].ext);
		snprintf(cmd, sizeof(cmd), "%s/%s -q --cpu %s %s", tools,
		    cases[i].args, cases[i].input, tool);
		if (system(cmd) != 0) {
			result(name, 0, "%s failed", cmd);
			continue;
		}
		gf_options_init(&o);
		cases[i].set(&o);
		if (gf_load(cases[i].input, &in, 0, &err) != GF_OK) {
			result(name, 0, "%s", err.message);
			continue;
		}
		ok = run_host(cases[i].op, ctx, &in, &out, &o, &err) == GF_OK;
		gf_image_free(&in);
		if (ok) {
			ok = gf_save(lib, &out, &err) == GF_OK;
			gf_image_free(&out);
		}
		if (!ok)
			snprintf(why, sizeof(why), "code %d: %s", err.code, err.message);
		result(name, ok && same_file(lib, tool, why, sizeof(why)), "%s", why);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		result(tag, 0, "cannot remove %s", dir);
}

/*
 * gf_save refuses an offset binary image that is not 16-bit (its TIFF
 * rows would be read as 16-bit ones), and the flag travels: loaded
 * images have it 0, a host filter's x gradient 1, a magnitude 0.
 */
static void
test_offset_binary(gf_context *ctx)
{
	unsigned char px[16] = {0};
	gf_image in = {4, 4, 1, 255, 0, px, 1}, out;
	gf_options o;
	gf_error err = {0, ""};
	int code = gf_save("/tmp/gpufilt_test_never.tif", &in, &err);

	result("save_offset_binary_8bit", code == GF_EINVAL &&
	    strstr(err.message, "maxval 255") != NULL &&
	    access("/tmp/gpufilt_test_never.tif", F_OK) != 0, "code %d: %s",
	    code, err.message);
	gf_options_init(&o);
	o.gradient = "x";
	code = gf_sobel(ctx, &in, &out, &o, &err);
	result("sobel_x_offset_binary", code == GF_OK && out.offset_binary == 1 &&
	    out.maxval == 65535, "code %d: %s", code, err.message);
	if (code == GF_OK)
		gf_image_free(&out);
	/* An offset binary input is read as unsigned samples: the flag is the output's. */
	code = gf_sobel(ctx, &in, &out, NULL, &err);
	result("sobel_magnitude_not_offset_binary", code == GF_OK &&
	    out.offset_binary == 0, "code %d: %s", code, err.message);
	if (code == GF_OK)
		gf_image_free(&out);
	in = load("samples", "coins.pgm");
	result("load_not_offset_binary", in.offset_binary == 0, "it is %d",
	    in.offset_binary);
	gf_image_free(&in);
}

/* ---- on a GPU */

/* Records a failed CUDA call of the test and says which. */
#define CUDA_OK(expr, why, n) cuda_ok((expr), #expr, why, n)

static int
cuda_ok(cudaError_t err, const char *expr, char *why, size_t n)
{
	if (err != cudaSuccess)
		snprintf(why, n, "%s: %s", expr, cudaGetErrorString(err));
	return err == cudaSuccess;
}

/*
 * One golden case (of a one-channel sample) through a device call with
 * strategy s: the input uploaded into a pitched buffer, filtered in stream st, downloaded.
 */
static int
device_case(gf_context *ctx, const struct gcase *c, const char *s,
    cudaStream_t st, char *why, size_t n)
{
	gf_image in = load_sample(c->sample), want = load("build/golden",
	    c->golden), host;
	gf_image din = {in.width, in.height, 1, in.maxval, 0, NULL, 0}, dout;
	size_t row = (size_t)in.width * (in.maxval > 255 ? 2 : 1);
	/* The output's rows: 16-bit ones of an 8-bit input (sobel x, y, depth 16). */
	size_t orow = (size_t)in.width * (want.maxval > 255 ? 2 : 1);
	gf_options o;
	gf_error err;
	int ok = 0;
	void *res = malloc(orow * in.height);

	gf_options_init(&o);
	c->set(&o);
	o.strategy = s;
	if (res == NULL ||
	    !CUDA_OK(cudaMallocPitch(&din.data, &din.stride, row, in.height), why, n))
		goto done;
	dout = din;
	dout.maxval = want.maxval;
	if (!CUDA_OK(cudaMallocPitch(&dout.data, &dout.stride, orow, in.height),
	    why, n))
		goto free_in;
	if (!CUDA_OK(cudaMemcpy2DAsync(din.data, din.stride, in.data, row, row,
	    in.height, cudaMemcpyHostToDevice, st), why, n))
		goto free_out;
	if (run_device(c->op, ctx, &din, &dout, &o, st, &err) != GF_OK) {
		snprintf(why, n, "code %d: %.400s", err.code, err.message);
		goto free_out;
	}
	if (!CUDA_OK(cudaMemcpy2DAsync(res, orow, dout.data, dout.stride, orow,
	    in.height, cudaMemcpyDeviceToHost, st), why, n) ||
	    !CUDA_OK(cudaStreamSynchronize(st), why, n))
		goto free_out;
	host = (gf_image){in.width, in.height, 1, want.maxval, orow,
	    res, 0};
	ok = same_image(&host, &want, why, n);
free_out:
	ok = CUDA_OK(cudaFree(dout.data), why, n) && ok;
free_in:
	ok = CUDA_OK(cudaFree(din.data), why, n) && ok;
done:
	free(res);
	gf_image_free(&in);
	gf_image_free(&want);
	return ok;
}

/*
 * A w x h image of channels samples a pixel: a ramp down the rows plus
 * noise of an eighth of maxval (a fixed LCG), so that edges are neither
 * all flat nor all clipped.  Free with gf_image_free.
 */
static gf_image
ramp_noise(int w, int h, int channels, unsigned maxval)
{
	size_t n = (size_t)w * h * channels;
	gf_image im = {w, h, channels, maxval, 0,
	    malloc(n * (maxval > 255 ? 2 : 1)), 0};
	uint32_t x = 12345;

	if (im.data == NULL)
		abort();
	for (size_t i = 0; i < n; i++) {
		size_t y = i / ((size_t)w * channels);
		unsigned v;
		x = x * 1664525u + 1013904223u;
		v = (unsigned)((y * maxval / h + (x >> 8) % (maxval / 8 + 1)) %
		    (maxval + 1));
		if (maxval > 255)
			((uint16_t *)im.data)[i] = (uint16_t)v;
		else
			((uint8_t *)im.data)[i] = (uint8_t)v;
	}
	return im;
}

/*
 * Images tall enough that the context's worker cuts them into strips
 * (16 MiB of input a strip, the last one a few rows), through every GPU
 * strategy, each against the same call with -m cpu: sobel on 8-bit
 * gray, conv2d on 16-bit RGBA (planes split on the device, alpha
 * carried through), sobel on that RGBA (made gray on the device),
 * sobel's x gradient of 8-bit RGB (16-bit output rows of 8-bit input),
 * --colour max of 8-bit RGB (the planes stacked in each strip) and
 * --colour channels of 16-bit RGBA.
 */
static void
test_strips(gf_context *ctx, const char *const *strategies, size_t n)
{
	static const struct {
		const char *name;
		enum op op;
		int w, h, channels;
		unsigned maxval;
		void (*set)(gf_options *o);
	} cases[] = {
		{"sobel_gray8", SOBEL, 4096, 8200, 1, 255, set_none},
		{"conv2d_rgba16", CONV2D, 1024, 4100, 4, 65535, set_gauss14},
		{"sobel_rgba16", SOBEL, 1024, 4100, 4, 65535, set_none},
		{"sobel_gx_rgb8", SOBEL, 2048, 5500, 3, 255, set_gx},
		{"sobel_max_rgb8", SOBEL, 2048, 5500, 3, 255, set_max},
		{"sobel_chan_rgba16", SOBEL, 1024, 4100, 4, 65535, set_chan},
	};
	char name[128], why[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gf_image in = ramp_noise(cases[i].w, cases[i].h, cases[i].channels,
		    cases[i].maxval), want, out;
		gf_options o;
		gf_error err;

		gf_options_init(&o);
		cases[i].set(&o);
		o.strategy = "cpu";
		if (run_host(cases[i].op, ctx, &in, &want, &o, &err) != GF_OK) {
			snprintf(name, sizeof(name), "gpu_host_strips_cpu_%s",
			    cases[i].name);
			result(name, 0, "%s", err.message);
			gf_image_free(&in);
			continue;
		}
		for (size_t s = 0; s < n; s++) {
			snprintf(name, sizeof(name), "gpu_host_strips_%s_%s",
			    strategies[s], cases[i].name);
			o.strategy = strategies[s];
			if (run_host(cases[i].op, ctx, &in, &out, &o, &err) != GF_OK) {
				result(name, 0, "code %d: %s", err.code, err.message);
				continue;
			}
			result(name, same_image(&out, &want, why, sizeof(why)), "%s",
			    why);
			gf_image_free(&out);
		}
		gf_image_free(&want);
		gf_image_free(&in);
	}
}

static void
test_gpu(const char *tools)
{
	/* Every row of the strategy table that runs on a GPU, auto first. */
	const char *strategies[GF_NSTRATEGIES];
	size_t nstrategies = 0;
	gf_context *ctx;
	gf_error err;
	cudaStream_t st;
	char name[128], why[512];
	/* Aligned as a device image must be, so that only its kind is wrong. */
	_Alignas(256) unsigned char host[256];
	int refused;
	gf_image hin = {16, 16, 1, 255, 256, host, 0};

	for (int s = 0; s < GF_NSTRATEGIES; s++)
		if (s != GF_CPU)
			strategies[nstrategies++] = gf_strategies[s].name;
	if ((ctx = gf_open(0, &err)) == NULL) {
		result("gpu_open", 0, "%s", err.message);
		return;
	}
	for (size_t s = 0; s < nstrategies; s++) {
		snprintf(name, sizeof(name), "gpu_host_%s", strategies[s]);
		golden_host(ctx, strategies[s], name);
	}
	test_stride(ctx, "gpu_host_strided_input");
	test_alpha(ctx, "gpu_host_conv2d_alpha_kept");
	test_strips(ctx, strategies, nstrategies);
	if (!CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), why,
	    sizeof(why))) {
		result("gpu_stream", 0, "%s", why);
		gf_close(ctx);
		return;
	}
	for (size_t s = 0; s < nstrategies; s++)
		for (size_t i = 0; i < NGCASES; i++) {
			gf_image in = load_sample(gcases[i].sample);
			int channels = in.channels;
			gf_image_free(&in);
			if (channels != 1)
				continue;       /* device images are one channel */
			why[0] = '\0';
			snprintf(name, sizeof(name), "gpu_device_%s_%s", strategies[s],
			    gcases[i].name);
			result(name, device_case(ctx, &gcases[i], strategies[s], st, why,
			    sizeof(why)), "%s", why);
		}
	refused = gf_sobel_device(ctx, &hin, &hin, NULL, st, &err) == GF_EINVAL &&
	    strstr(err.message, "not device memory") != NULL;
	result("gpu_device_host_pointer_refused", refused, "code %d: %s",
	    err.code, err.message);
	hin.channels = 3;
	refused = gf_edge_device(ctx, &hin, &hin, NULL, st, &err) == GF_EINVAL &&
	    strstr(err.message, "take the host calls") != NULL;
	result("gpu_device_colour_refused", refused, "code %d: %s", err.code,
	    err.message);
	test_tool_bytes(ctx, tools, "gpu_tool_bytes");
	test_threads(ctx, "gpu_threads_one_context");
	(void)CUDA_OK(cudaStreamDestroy(st), why, sizeof(why));
	gf_close(ctx);
}

int
main(int argc, char **argv)
{
	gf_context *cpu, *any;
	gf_error err;
	char tools[512];
	int ngpu = 0;

	(void)argc;
	tools_dir(argv[0], tools, sizeof(tools));

	if ((cpu = gf_open(GF_DEVICE_CPU, &err)) == NULL) {
		printf("fail open_cpu: %s\n", err.message);
		return 1;
	}
	result("open_cpu", gf_device(cpu) == -1 && err.code == GF_OK, "unexpected result");
	golden_host(cpu, NULL, "cpu");
	golden_host(cpu, "cpu", "cpu_explicit");
	test_stride(cpu, "host_strided_input");
	test_alpha(cpu, "host_conv2d_alpha_kept");
	test_refused(cpu);
	test_arguments(cpu);
	test_threads(cpu, "cpu_threads_one_context");
	test_tool_bytes(cpu, tools, "tool_bytes");
	test_offset_binary(cpu);
	if (cudaGetDeviceCount(&ngpu) != cudaSuccess)
		ngpu = 0;
	any = gf_open(GF_DEVICE_AUTO, &err);
	result("open_auto", any != NULL && (ngpu > 0) == (gf_device(any) >= 0),
	    "%d GPUs, context on %d: %s", ngpu, gf_device(any), err.message);
	if (ngpu == 0) {
		gf_image out;
		gf_options o;
		unsigned char px[16] = {0};
		gf_image in = {4, 4, 1, 255, 0, px, 0};

		result("open_gpu_without_one", gf_open(0, &err) == NULL &&
		    err.code == GF_ENOGPU && err.message[0] != '\0', "code %d: %s",
		    err.code, err.message);
		gf_options_init(&o);
		o.strategy = "shared";
		result("gpu_strategy_on_cpu", gf_sobel(cpu, &in, &out, &o, &err) ==
		    GF_ENOGPU && strstr(err.message, "-m shared needs a GPU"),
		    "code %d: %s", err.code, err.message);
		result("device_call_on_cpu", gf_sobel_device(cpu, &in, &in, NULL,
		    NULL, &err) == GF_ENOGPU, "code %d: %s", err.code, err.message);
		skip("gpu", "no GPU");
	} else
		test_gpu(tools);
	gf_close(any);
	gf_close(cpu);
	return nfail > 0;
}
