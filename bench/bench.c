/*
 * bench - make bench: each GPU strategy's kernel time on large images,
 * the effective bandwidth (1 byte read + 1 byte written per pixel for
 * 8-bit work) and the fraction of a plain copy kernel timed in the same
 * run.  Medians of many CUDA-event-timed launches, after warm-up.  The
 * 12288x12288 image (151 MB) is larger than the 50 MB L2 cache; the
 * 3840x2160 one fits in it, so its figures time the cache.
 *
 * Every timed path is first checked against the CPU reference on the
 * same image (validate, then time).
 *
 * Where the CUDA toolkit has NPP (bench_npp.h), NPP's nearest
 * equivalent of an operation is timed the same way on the same image
 * before our strategies for it, and a last column gives each strategy's
 * speed against it: x2.00 is twice as fast as NPP.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "bench_npp.h"
#include "conv2d.h"
#include "edge_tool.h"
#include "sobel_tool.h"

struct bench {
	struct gpu g;
	struct image host;      /* the test image */
	struct gpu_image in, out;
	double copy_ms;
	struct bench_npp *npp;  /* NPP for this size, NULL without NPP */
	int warmup, runs;       /* -w, -r: launches before and in a median */
	int only;               /* -m: one strategy, else 0 (every GPU one) */
	int shapes;             /* -s: sweep the launch shapes too */
	const char *what;       /* operands: the operations to time, NULL: all */
};

/* True when the command line asked for operation op (or for all). */
static int
wanted(const struct bench *b, const char *op)
{
	return b->what == NULL || strstr(b->what, op) != NULL;
}

/* True when strategy s is to be timed (-m). */
static int
strategy_wanted(const struct bench *b, int s)
{
	return b->only == 0 || b->only == s;
}

/* Smooth content plus noise, never constant: what a photograph looks like to a stencil. */
static void
fill(struct image *img)
{
	uint32_t s = 12345;
	uint8_t *p = img->px;

	for (int y = 0; y < img->height; y++)
		for (int x = 0; x < img->width; x++) {
			s = s * 1664525u + 1013904223u;
			double v = 128 + 80 * sin(x / 37.0) * cos(y / 53.0) +
			    (int)(s >> 27) - 16;
			p[(size_t)y * img->width + x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
		}
}

static int
run_copy(struct gpu *g, void *arg, struct gf_err *e)
{
	struct bench *b = arg;

	GPU_TRY(e, bench_copy_launch(b->in.px, b->out.px,
	    b->in.pitch * b->in.height, g->sm_count, g->stream));
	return 0;
}

/*
 * Prints a table row: ms, the effective bandwidth, the fraction of the
 * copy and, with NPP, the speed against NPP's npp_ms (blank when 0: the
 * row has no NPP peer).
 */
static void
row(const struct bench *b, const char *what, double ms, double bytes_per_px,
    double npp_ms)
{
	double px = (double)b->in.width * b->in.height;
	char vs[16] = "";

	printf("| %-34s | %9.3f | %7.0f | %5.1f%% |", what, ms,
	    px * bytes_per_px / (ms * 1e6), 100.0 * b->copy_ms / ms);
	if (npp_ms > 0)
		snprintf(vs, sizeof(vs), "x%.2f", npp_ms / ms);
	if (b->npp != NULL)
		printf(" %6s |", vs);
	putchar('\n');
}

/*
 * Times NPP's peer c of the rows to come and prints its row, giving its
 * time in *ms; *ms is 0 when there is none (c NULL, or no NPP).
 */
static int
npp_peer(struct bench *b, const struct bench_npp_call *c, double *ms,
    struct gf_err *e)
{
	char what[64];

	*ms = 0;
	if (b->npp == NULL || c == NULL)
		return 0;
	if (bench_npp_time(b->npp, c, b->warmup, b->runs, ms, e) < 0)
		return -1;
	bench_npp_label(c, what, sizeof(what));
	row(b, what, *ms, 2, 0);
	return 0;
}

struct sobel_run {
	struct bench *b;
	struct sobel_params p;
	enum gf_strategy s;
	struct gf_launch l;     /* 0: the defaults */
};

static int
run_sobel(struct gpu *g, void *arg, struct gf_err *e)
{
	struct sobel_run *r = arg;

	return sobel_gpu(g, &r->b->in, &r->b->out, &r->p, 0, r->s, &r->l, e);
}

/* Checks the GPU output of the last run against the CPU reference want. */
static int
sobel_validate(struct bench *b, const struct image *want, struct gf_err *e)
{
	struct image got = b->host;

	if (img_alloc(&got, e) < 0)
		return -1;
	int ret = gpu_download(&b->g, &b->out, &got, 0, e);
	if (ret == 0 && memcmp(want->px, got.px, img_bytes(want)) != 0)
		ret = gf_fail(e, "GPU output differs from the CPU reference");
	img_free(&got);
	return ret;
}

/*
 * Validates and times every strategy for one mode, after NPP's peer npp
 * (NULL: none).
 */
static int
bench_sobel_mode(struct bench *b, const char *name, const struct sobel_params *p,
    const struct bench_npp_call *npp, struct gf_err *e)
{
	struct image want;
	double ms, npp_ms = 0;
	char what[64];
	int ret = 0;

	if ((npp != NULL && npp_peer(b, npp, &npp_ms, e) < 0) ||
	    sobel_cpu(&b->host, &want, p, 0, 0, e) < 0)
		return -1;
	for (int s = GF_FIRST_GPU; s <= GF_LAST_GPU && ret == 0; s++) {
		if (!strategy_wanted(b, s))
			continue;
		struct sobel_run r = {b, *p, (enum gf_strategy)s, {0, 0, 0}};
		ret = run_sobel(&b->g, &r, e);
		if (ret == 0)
			ret = sobel_validate(b, &want, e);
		if (ret == 0)
			ret = bench_median(&b->g, run_sobel, &r, b->warmup, b->runs, &ms, e);
		if (ret == 0) {
			snprintf(what, sizeof(what), "sobel %s %s", name,
			    gf_strategies[s].name);
			row(b, what, ms, 2, npp_ms);
		}
	}
	img_free(&want);
	return ret;
}

/* Launch shapes of shared and sliding besides the defaults, for tuning them. */
static int
bench_sobel_shapes(struct bench *b, const char *name, const struct sobel_params *p,
    struct gf_err *e)
{
	static const struct { enum gf_strategy s; struct gf_launch l; } shapes[] = {
		{GF_SHARED, {32, 4, 4}}, {GF_SHARED, {32, 4, 8}}, {GF_SHARED, {32, 8, 4}},
		{GF_SHARED, {64, 2, 8}}, {GF_SHARED, {32, 2, 16}}, {GF_SHARED, {64, 4, 4}},
		{GF_SLIDING, {32, 4, 8}}, {GF_SLIDING, {32, 4, 16}}, {GF_SLIDING, {32, 8, 8}},
		{GF_SLIDING, {64, 2, 16}}, {GF_SLIDING, {32, 2, 32}}, {GF_SLIDING, {128, 1, 16}},
		{GF_SLIDING, {32, 4, 4}}, {GF_SLIDING, {64, 4, 4}}, {GF_SLIDING, {32, 2, 8}},
		{GF_SLIDING, {32, 1, 8}}, {GF_SLIDING, {32, 2, 6}}, {GF_SLIDING, {32, 1, 6}},
	};
	char what[64];
	double ms;

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct sobel_run r = {b, *p, shapes[i].s, shapes[i].l};
		if (bench_median(&b->g, run_sobel, &r, b->warmup, b->runs, &ms, e) < 0)
			return -1;
		snprintf(what, sizeof(what), "sobel %s %s %dx%d rows %d", name,
		    gf_strategies[r.s].name, r.l.block_w, r.l.block_h, r.l.rows);
		row(b, what, ms, 2, 0);
	}
	return 0;
}

/*
 * Magnitude and threshold 100.  NPP's peers: the gradient with its
 * magnitude as 16-bit (unrounded to ours, unclamped), then that compared
 * with the threshold.  Then the magnitudes of the operators Scharr,
 * Sobel 5x5 and 7x7 (kernels/sobel_op.cu; Prewitt runs Scharr's kernel)
 * and the 3x3 Sobel's direction, with no peer.
 */
static int
bench_sobel(struct bench *b, struct gf_err *e)
{
	const int t = 100;
	struct sobel_opts o = {0};
	struct sobel_params mag = sobel_params_for(&o, 255, 0);
	struct bench_npp_call npp_mag = {BENCH_NPP_SOBEL_MAG, 0, 0, 0, NULL};
	struct bench_npp_call npp_thr = {BENCH_NPP_SOBEL_THR, t, 0, 0, NULL};

	o.threshold = 1;
	struct sobel_params thr = sobel_params_for(&o, 255, t);
	if (bench_sobel_mode(b, "magnitude", &mag, &npp_mag, e) < 0 ||
	    bench_sobel_mode(b, "threshold", &thr, &npp_thr, e) < 0)
		return -1;
	o.threshold = 0;
	for (int op = SOBEL_OP_SCHARR; op < SOBEL_NOPS; op++) {
		o.op = op;
		struct sobel_params p = sobel_params_for(&o, 255, 0);
		if (bench_sobel_mode(b, sobel_op_names[op], &p, NULL, e) < 0)
			return -1;
	}
	o.op = SOBEL_OP_SOBEL;
	o.direction = 1;
	struct sobel_params dir = sobel_params_for(&o, 255, 0);
	if (bench_sobel_mode(b, "direction", &dir, NULL, e) < 0)
		return -1;
	o.direction = 0;
	if (b->shapes && (bench_sobel_shapes(b, "mag", &mag, e) < 0 ||
	    bench_sobel_shapes(b, "thr", &thr, e) < 0))
		return -1;
	return 0;
}

struct edge_run {
	struct bench *b;
	struct edge_opts o;
};

/* The whole edge pipeline, device to device (its host syncs included). */
static int
run_edge(struct gpu *g, void *arg, struct gf_err *e)
{
	struct edge_run *r = arg;
	struct edge_info info;

	return edge_run_device(g, &r->b->in, &r->b->out, &r->o, &info, e);
}

/*
 * Suppression alone, from b->in (unsmoothed) into the class slot, with
 * the fixed thresholds of r->o: the pipeline's time less this one is
 * what smoothing, Otsu and hysteresis cost.
 */
static int
run_edge_nms(struct gpu *g, void *arg, struct gf_err *e)
{
	struct edge_run *r = arg;
	struct edge_params ep = edge_params_for(&r->o);
	struct grad_thresh p = edge_thresh_for(&ep);
	struct gpu_image lab;
	struct gf_launch l = r->o.common.launch;

	if (gpu_image_get(g, GPU_SLOT_CLASSES, r->b->in.width, r->b->in.height,
	    255, &lab, e) < 0)
		return -1;
	GPU_TRY(e, edge_launch_nms(r->o.common.strategy, &r->b->in, &lab, &p,
	    NULL, r->o.common.border, &l, 0, g->stream));
	return 0;
}

/*
 * Launch shapes of the suppression besides its defaults, for tuning
 * them: each checked (the whole pipeline against want), then timed
 * alone.
 */
static int
bench_edge_shapes(struct bench *b, const struct edge_opts *o,
    const struct image *want, struct gf_err *e)
{
	static const struct { enum gf_strategy s; struct gf_launch l; } shapes[] = {
		{GF_SHARED, {32, 4, 4}}, {GF_SHARED, {32, 8, 2}},
		{GF_SLIDING, {32, 4, 4}}, {GF_SLIDING, {32, 4, 6}}, {GF_SLIDING, {32, 4, 8}},
		{GF_SLIDING, {32, 4, 12}}, {GF_SLIDING, {32, 4, 16}}, {GF_SLIDING, {32, 2, 8}},
		{GF_SLIDING, {32, 2, 16}}, {GF_SLIDING, {64, 2, 8}}, {GF_SLIDING, {32, 8, 4}},
		{GF_SLIDING, {32, 1, 8}}, {GF_SLIDING, {32, 1, 16}},
	};
	char what[64];
	double ms;

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct edge_run r = {b, *o};
		r.o.common.strategy = shapes[i].s;
		r.o.common.launch = shapes[i].l;
		if (run_edge(&b->g, &r, e) < 0 || sobel_validate(b, want, e) < 0 ||
		    bench_median(&b->g, run_edge_nms, &r, b->warmup, b->runs, &ms,
		    e) < 0)
			return -1;
		snprintf(what, sizeof(what), "  suppression %s %dx%d rows %d",
		    gf_strategies[shapes[i].s].name, shapes[i].l.block_w,
		    shapes[i].l.block_h, shapes[i].l.rows);
		row(b, what, ms, 2, 0);
	}
	return 0;
}

/*
 * Validates and times every strategy for one set of edge options, after
 * NPP's peer npp (NULL: none).
 */
static int
bench_edge_opts(struct bench *b, const char *name, struct edge_opts *o,
    const struct bench_npp_call *npp, struct gf_err *e)
{
	struct image want;
	struct edge_params ep = edge_params_for(o);
	struct edge_info info;
	double ms, npp_ms;
	char what[64];
	int ret = 0;

	if (npp_peer(b, npp, &npp_ms, e) < 0 ||
	    edge_cpu(&b->host, &want, &ep, &info, 0, e) < 0)
		return -1;
	for (int s = GF_FIRST_GPU; s <= GF_LAST_GPU && ret == 0; s++) {
		if (!strategy_wanted(b, s))
			continue;
		struct edge_run r = {b, *o};
		r.o.common.strategy = (enum gf_strategy)s;
		ret = run_edge(&b->g, &r, e);
		if (ret == 0)
			ret = sobel_validate(b, &want, e);
		if (ret == 0)
			ret = bench_median(&b->g, run_edge, &r, b->warmup, b->runs, &ms, e);
		if (ret == 0) {
			snprintf(what, sizeof(what), "edge %s %s", name,
			    gf_strategies[s].name);
			row(b, what, ms, 2, npp_ms);
		}
		/* The suppression stage alone (texture needs its object: skipped). */
		if (ret == 0 && o->sigma == 0 && !o->auto_thresh && s != GF_TEXTURE) {
			ret = bench_median(&b->g, run_edge_nms, &r, b->warmup, b->runs,
			    &ms, e);
			snprintf(what, sizeof(what), "  of which suppression %s",
			    gf_strategies[s].name);
			if (ret == 0)
				row(b, what, ms, 2, 0);
		}
	}
	if (ret == 0 && b->shapes && o->sigma == 0 && !o->auto_thresh)
		ret = bench_edge_shapes(b, o, &want, e);
	img_free(&want);
	return ret;
}

/*
 * Canny without smoothing (NPP's FilterCannyBorder's work, its peer with
 * the same thresholds), then the default.
 */
static int
bench_edge(struct bench *b, struct gf_err *e)
{
	struct edge_opts o;

	memset(&o, 0, sizeof(o));
	o.low = 40;
	o.high = 100;
	struct bench_npp_call npp = {BENCH_NPP_CANNY, 0, (int)o.low, (int)o.high,
	    NULL};
	if (bench_edge_opts(b, "s0 40/100", &o, &npp, e) < 0)
		return -1;
	o.sigma = 1.4;
	o.auto_thresh = 1;
	return bench_edge_opts(b, "s1.4 auto", &o, NULL, e);
}

/* ---- conv2d: 2D kernels per strategy, and the separable path */

struct conv2d_run {
	const struct gpu_image *in, *out;
	const struct conv2d_plan *pl;
	enum gf_strategy s;
	struct gf_launch l;     /* 0: the defaults */
};

static int
run_conv2d(struct gpu *g, void *arg, struct gf_err *e)
{
	struct conv2d_run *r = arg;
	struct gf_launch l = r->l;

	return conv2d_gpu_run(g, r->in, r->out, r->pl, r->s, &l, e);
}

/*
 * Checks strategy s (or the separable path) at launch shape l (0: the
 * defaults) against the CPU reference want on the small image, in slots
 * of their own so b->in stays.
 */
static int
conv2d_validate(struct bench *b, const struct conv2d_filter *p,
    enum gf_strategy s, struct gf_launch l, const struct image *small,
    const struct image *want, struct gf_err *e)
{
	struct gpu_image din, dout;
	struct image got = *small;
	int ret;

	if (gpu_image_get(&b->g, GPU_SLOT_SMOOTHED, small->width, small->height,
	    255, &din, e) < 0 || gpu_image_get(&b->g, GPU_SLOT_CLASSES,
	    small->width, small->height, 255, &dout, e) < 0 ||
	    gpu_upload(&b->g, small, 0, &din, e) < 0 ||
	    conv2d_gpu(&b->g, &din, &dout, p, s, &l, e) < 0 || img_alloc(&got, e) < 0)
		return -1;
	ret = gpu_download(&b->g, &dout, &got, 0, e);
	if (ret == 0 && memcmp(want->px, got.px, img_bytes(want)) != 0)
		ret = gf_fail(e, "conv2d %s: GPU output differs from the CPU reference",
		    gf_strategies[s].name);
	img_free(&got);
	return ret;
}

/*
 * One row: strategy s (GF_AUTO with p->allow_separable: the separable
 * path) at launch shape l, checked against the CPU reference on the small
 * image, then timed.  l 0 is the defaults; a swept shape is named in the
 * row, with "(generic)" where the fast kernel cannot take it.
 */
static int
conv2d_row(struct bench *b, const char *name, struct conv2d_filter *p,
    const struct image *small, struct conv2d_plan *pl, enum gf_strategy s,
    struct gf_launch l, double npp_ms, struct gf_err *e)
{
	struct conv2d_run r = {&b->in, &b->out, pl, s, l};
	struct image want;
	char what[64];
	double ms;
	int ret;

	if (conv2d_cpu(small, &want, p, 0, e) < 0)
		return -1;
	ret = conv2d_validate(b, p, s, l, small, &want, e);
	img_free(&want);
	if (ret < 0 || conv2d_plan_make(p, 255, pl, e) < 0)
		return -1;
	GPU_TRY(e, conv2d_set_taps(&pl->taps, b->g.stream));
	if (bench_median(&b->g, run_conv2d, &r, b->warmup, b->runs, &ms, e) < 0)
		return -1;
	if (l.block_w == 0)
		snprintf(what, sizeof(what), "conv2d %s %s", name,
		    p->allow_separable ? "separable" : gf_strategies[s].name);
	else
		snprintf(what, sizeof(what), "conv2d %s %s %dx%d rows %d%s", name,
		    gf_strategies[s].name, l.block_w, l.block_h, l.rows,
		    conv2d_tile_w(&pl->coef, s, &l) == 16 * l.block_w ? "" :
		    " (generic)");
	row(b, what, ms, 2, npp_ms);
	return 0;
}

/* Every path of one kernel that -m asks for, after NPP's peer npp. */
static int
bench_conv2d_kernel(struct bench *b, const char *name, struct conv2d_filter *p,
    const struct image *small, struct conv2d_plan *pl,
    const struct bench_npp_call *npp, struct gf_err *e)
{
	const struct gf_launch defaults = {0, 0, 0};
	double npp_ms;

	if (npp_peer(b, npp, &npp_ms, e) < 0)
		return -1;
	for (int s = GF_FIRST_GPU; s <= GF_LAST_GPU + 1; s++) {
		p->allow_separable = s > GF_LAST_GPU;
		if (p->allow_separable && !p->k.separable)
			break;
		/* -m picks the 2D strategy; the separable path always runs. */
		if (s <= GF_LAST_GPU && !strategy_wanted(b, s))
			continue;
		if (conv2d_row(b, name, p, small, pl, p->allow_separable ? GF_AUTO :
		    (enum gf_strategy)s, defaults, npp_ms, e) < 0)
			return -1;
	}
	return 0;
}

/*
 * Launch shapes of shared and sliding besides the defaults, for tuning
 * the 8-bit fast kernels (16 columns a thread, at most 256 threads a
 * block).
 */
static int
bench_conv2d_shapes(struct bench *b, const char *name, struct conv2d_filter *p,
    const struct image *small, struct conv2d_plan *pl, struct gf_err *e)
{
	static const struct { enum gf_strategy s; struct gf_launch l; } shapes[] = {
		{GF_SHARED, {32, 4, 8}}, {GF_SHARED, {32, 4, 4}}, {GF_SHARED, {32, 8, 4}},
		{GF_SHARED, {32, 2, 16}}, {GF_SHARED, {64, 2, 8}}, {GF_SHARED, {16, 8, 8}},
		{GF_SHARED, {32, 8, 8}}, {GF_SHARED, {64, 4, 4}}, {GF_SHARED, {8, 32, 2}},
		{GF_SHARED, {8, 32, 4}}, {GF_SHARED, {8, 32, 8}}, {GF_SHARED, {8, 16, 2}},
		{GF_SHARED, {8, 16, 4}}, {GF_SHARED, {8, 16, 8}}, {GF_SHARED, {8, 32, 1}},
		{GF_SLIDING, {32, 4, 32}}, {GF_SLIDING, {32, 4, 16}}, {GF_SLIDING, {32, 8, 16}},
		{GF_SLIDING, {64, 2, 32}}, {GF_SLIDING, {32, 2, 64}}, {GF_SLIDING, {128, 1, 32}},
		{GF_SLIDING, {32, 4, 64}}, {GF_SLIDING, {64, 4, 16}},
	};

	p->allow_separable = 0;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		if (strategy_wanted(b, shapes[i].s) && conv2d_row(b, name, p, small,
		    pl, shapes[i].s, shapes[i].l, 0, e) < 0)
			return -1;
	return 0;
}

/*
 * Launch shapes of the fused 8-bit separable kernel besides its default
 * (16 columns a thread, at most 256 threads and 48 KB a block; taller
 * tiles recompute fewer apron rows in the row pass).
 */
static int
bench_conv2d_sep_shapes(struct bench *b, const char *name,
    struct conv2d_filter *p, const struct image *small, struct conv2d_plan *pl,
    struct gf_err *e)
{
	static const struct gf_launch shapes[] = {
		{8, 16, 2}, {8, 32, 2}, {4, 16, 4}, {4, 16, 8}, {4, 32, 4},
		{4, 64, 2}, {2, 32, 8}, {2, 64, 4},
	};

	p->allow_separable = 1;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		if (conv2d_row(b, name, p, small, pl, GF_AUTO, shapes[i], 0, e) < 0)
			return -1;
	return 0;
}

/*
 * 3x3, 5x5, 9x9 (integer, not separable) and gauss:4 (25x25, real).
 * NPP's peers: FilterBorder with the 5x5 taps, and for the Gaussian
 * FilterGaussBorder with its fixed 5x5 mask (PEERS.md's figure; NPP has
 * no 25x25 one).
 */
static int
bench_conv2d(struct bench *b, struct gf_err *e)
{
	static const struct {
		const char *name, *text;
		int npp;        /* enum bench_npp_op, -1: no NPP peer */
	} kernels[] = {
		{"3x3", "sharpen", -1},
		{"5x5", "1 2 0 -1 3; 2 -4 1 0 1; 0 1 8 1 0; 1 0 1 -4 2; 3 -1 0 2 1",
		    BENCH_NPP_FILTER},
		{"9x9", "@tests/kernels/nonsep9x9.txt", -1},
		{"gauss:4", "gauss:4", BENCH_NPP_GAUSS5},
	};
	static struct conv2d_filter p;
	static struct conv2d_plan pl;
	struct image small = {1031, 517, 1, 255, NULL};
	int ret = 0;

	if (img_alloc(&small, e) < 0)
		return -1;
	fill(&small);
	for (size_t k = 0; ret == 0 && k < sizeof(kernels) / sizeof(kernels[0]); k++) {
		memset(&p, 0, sizeof(p));
		p.border = GF_BORDER_REPLICATE;
		ret = kspec_parse(kernels[k].text, &p.k, e);
		struct bench_npp_call npp = {(enum bench_npp_op)kernels[k].npp, 0,
		    0, 0, &p.k};
		if (ret == 0)
			ret = bench_conv2d_kernel(b, kernels[k].name, &p, &small, &pl,
			    kernels[k].npp < 0 ? NULL : &npp, e);
		/* The sweep: the 2D kernels of at most 9x9, which the fast path takes. */
		if (ret == 0 && b->shapes && p.k.kw <= 9)
			ret = bench_conv2d_shapes(b, kernels[k].name, &p, &small, &pl, e);
		if (ret == 0 && b->shapes && p.k.separable)
			ret = bench_conv2d_sep_shapes(b, kernels[k].name, &p, &small,
			    &pl, e);
	}
	img_free(&small);
	return ret;
}

/*
 * The operations, in the order of the table printed: each tool's bench,
 * and the one width it runs at (0: every size).
 */
static const struct operation {
	const char *name;
	int (*run)(struct bench *b, struct gf_err *e);
	int only_width;
} operations[] = {
	{"sobel", bench_sobel, 0},
	{"conv2d", bench_conv2d, 12288},
	{"edge", bench_edge, 0},
};
#define NOPERATIONS (sizeof(operations) / sizeof(operations[0]))

static int
bench_size(struct bench *b, int w, int h, struct gf_err *e)
{
	b->host = (struct image){w, h, 1, 255, NULL};
	if (img_alloc(&b->host, e) < 0)
		return -1;
	fill(&b->host);
	if (gpu_image_get(&b->g, GPU_SLOT_IN, w, h, 255, &b->in, e) < 0 ||
	    gpu_image_get(&b->g, GPU_SLOT_OUT, w, h, 255, &b->out, e) < 0 ||
	    gpu_upload(&b->g, &b->host, 0, &b->in, e) < 0 ||
	    bench_median(&b->g, run_copy, b, b->warmup, b->runs, &b->copy_ms, e) < 0 ||
	    bench_npp_open(&b->npp, &b->g, &b->in, &b->out, e) < 0)
		return -1;
	printf("\n%dx%d u8 on %s (median of %d runs)\n\n", w, h, b->g.name, b->runs);
	printf("| %-34s | %9s | %7s | %6s |", "kernel", "ms", "GB/s", "copy");
	if (b->npp != NULL)
		printf(" %6s |", "NPP");
	printf("\n|%s|%s|%s|%s|", "------------------------------------",
	    "-----------", "---------", "--------");
	if (b->npp != NULL)
		printf("%s|", "--------");
	putchar('\n');
	row(b, "copy (16-byte vectors)", b->copy_ms, 2, 0);
	int ret = 0;
	for (size_t i = 0; ret == 0 && i < NOPERATIONS; i++)
		if (wanted(b, operations[i].name) &&
		    (operations[i].only_width == 0 || w == operations[i].only_width))
			ret = operations[i].run(b, e);
	img_free(&b->host);
	if (ret == 0)
		ret = bench_npp_close(b->npp, e);
	else {
		struct gf_err ignored;  /* e says what failed first */
		(void)bench_npp_close(b->npp, &ignored);
	}
	b->npp = NULL;
	return ret;
}

static void
usage(void)
{
	fprintf(stderr, "usage: bench [-s] [-r runs] [-w warmup] [-m strategy] "
	    "[-z WxH] [");
	for (size_t i = 0; i < NOPERATIONS; i++)
		fprintf(stderr, "%s%s", i > 0 ? "|" : "", operations[i].name);
	fprintf(stderr, " ...]\n");
	exit(2);
}

/*
 * bench [-r runs] [-w warmup] [-m strategy] [-z WxH] [operation ...]:
 * by default every operation, every GPU strategy, both sizes, median of
 * 30 runs after 5; the options narrow it (for ncu, -r 1 -w 0).
 */
int
main(int argc, char **argv)
{
	static struct bench b;
	static char ops[256];
	struct gf_err e;
	int w = 0, h = 0, c;
	enum gf_strategy s;

	b.warmup = 5;
	b.runs = 30;
	while ((c = getopt(argc, argv, "sr:w:m:z:")) != -1) {
		switch (c) {
		case 's': b.shapes = 1; break;
		case 'r': b.runs = atoi(optarg); break;
		case 'w': b.warmup = atoi(optarg); break;
		case 'm':
			if (gf_strategy_parse(optarg, &s, &e) < 0 || s < GF_FIRST_GPU) {
				fprintf(stderr, "bench: %s is not a GPU strategy.\n", optarg);
				return 2;
			}
			b.only = s;
			break;
		case 'z':
			if (sscanf(optarg, "%dx%d", &w, &h) != 2 || w < 1 || h < 1)
				usage();
			break;
		default: usage();
		}
	}
	if (b.runs < 1 || b.warmup < 0)
		usage();
	for (int i = optind; i < argc; i++) {
		strncat(ops, argv[i], sizeof(ops) - strlen(ops) - 2);
		strcat(ops, " ");
	}
	b.what = optind < argc ? ops : NULL;
	if (gpu_open(&b.g, -1, &e) < 0) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return 1;
	}
	int ret = w > 0 ? bench_size(&b, w, h, &e) :
	    bench_size(&b, 12288, 12288, &e) < 0 ? -1 : bench_size(&b, 3840, 2160, &e);
	if (ret < 0) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return 1;
	}
	gpu_close(&b.g);
	return 0;
}
