/*
 * sobel.c - the sobel operation on the host side: parameters, GPU
 * dispatch through the strategy table, and the tool's work on one image
 * (-t auto's threshold, then the CPU or GPU filter; the engine moves the
 * images).  The CPU path is sobel_cpu.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "border.h"
#include "grad_max.h"
#include "otsu.h"
#include "sobel_tool.h"
#include "tool.h"

/*
 * What -m auto runs on a GPU: the fastest strategy in make bench
 * (bench/figures.md), at every size it measures.  For 8-bit images,
 * sliding; for 16-bit ones, shared.
 */
#define SOBEL_AUTO(maxval) ((maxval) <= 255 ? GF_SLIDING : GF_SHARED)

/*
 * The other operators' and the direction's -m auto on a GPU: shared,
 * whose tile serves each sample's 2r+1 rows from shared memory, until
 * make bench's rows for them (sobel scharr, sobel5, sobel7, direction)
 * say otherwise.
 */
#define SOBEL_OP_AUTO GF_SHARED

/*
 * The wider outputs' -m auto (16-bit samples of an 8-bit image: the
 * signed gradients, --depth 16): shared, as the other operators', until
 * make bench has rows for them.
 */
#define SOBEL_WIDE_AUTO GF_SHARED

const char *const sobel_op_names[SOBEL_NOPS] = {
	[SOBEL_OP_SOBEL] = "sobel", [SOBEL_OP_PREWITT] = "prewitt",
	[SOBEL_OP_SCHARR] = "scharr", [SOBEL_OP_SOBEL5] = "sobel5",
	[SOBEL_OP_SOBEL7] = "sobel7"
};

int
sobel_op_parse(const char *name, int *op, struct gf_err *e)
{
	for (int k = 0; k < SOBEL_NOPS; k++) {
		if (strcmp(name, sobel_op_names[k]) == 0) {
			*op = k;
			return 0;
		}
	}
	return gf_fail(e, "'%s' is not an operator; choose sobel, prewitt, "
	    "scharr, sobel5 or sobel7", name);
}

int
sobel_gradient_parse(const char *name, struct sobel_opts *o, struct gf_err *e)
{
	if (strcmp(name, "magnitude") != 0 && strcmp(name, "direction") != 0 &&
	    strcmp(name, "x") != 0 && strcmp(name, "y") != 0)
		return gf_fail(e, "--gradient '%s' is not an output; choose "
		    "magnitude, direction, x or y", name);
	o->direction = strcmp(name, "direction") == 0;
	o->grad_xy = strcmp(name, "x") == 0 ? 1 : strcmp(name, "y") == 0 ? 2 : 0;
	return 0;
}

/*
 * The direction and the signed gradients take no threshold, and Otsu's
 * threshold (-t auto) is taken of the 3x3 Sobel's magnitudes alone;
 * --depth 16 is the magnitude's; the 16-bit outputs (x, y, --depth 16)
 * are of the gray (an alpha channel beside them would have to change
 * depth); every other combination of sobel's options is valid.
 */
int
sobel_opts_check(const struct sobel_opts *so, struct gf_err *e)
{
	const char *xy = so->grad_xy == 1 ? "x" : "y";

	if (so->direction && (so->threshold || so->threshold_auto))
		return gf_fail(e, "--gradient direction writes the direction, which "
		    "takes no threshold; leave out -t");
	if (so->grad_xy && (so->threshold || so->threshold_auto))
		return gf_fail(e, "--gradient %s writes the signed gradient, which "
		    "takes no threshold; leave out -t (or threshold the magnitude)",
		    xy);
	if (so->depth16 && (so->direction || so->threshold ||
	    so->threshold_auto))
		return gf_fail(e, "--depth 16 writes the magnitude at 16 bits; %s",
		    so->direction ? "the direction's bins are 0 to 255 at the "
		    "input's depth: leave out --depth" : "an edge map (-t) is 0 or "
		    "maxval at the input's depth: leave out --depth");
	if ((so->channels || so->max) && (so->grad_xy || so->depth16))
		return gf_fail(e, "%s%s writes 16-bit samples of the gray; "
		    "--colour %s is not taken with it: leave out --colour "
		    "or run once per channel", so->grad_xy ? "--gradient " :
		    "--depth 16", so->grad_xy ? xy : "", so->max ? "max" :
		    "channels");
	if (so->threshold_auto && so->op != SOBEL_OP_SOBEL)
		return gf_fail(e, "-t auto takes Otsu's threshold of the 3x3 Sobel "
		    "gradient only, not of --operator %s; give -t a number",
		    sobel_op_names[so->op]);
	return 0;
}

struct sobel_params
sobel_params_for(const struct sobel_opts *o, unsigned maxval, double t)
{
	struct sobel_params p;

	p.maxval = o->grad_xy || o->depth16 ? 65535 : maxval;
	p.thresh = 0;
	p.op = o->op;
	if (o->grad_xy) {
		p.mode = o->grad_xy == 1 ? SOBEL_GRAD_X : SOBEL_GRAD_Y;
		return p;
	}
	if (o->direction) {
		p.mode = SOBEL_DIRECTION;
		return p;
	}
	if (!o->threshold && !o->threshold_auto) {
		p.mode = o->l1 ? SOBEL_MAG_L1 : SOBEL_MAG_L2;
		return p;
	}
	/* The largest value that does not pass "> t" (t <= 1e9 from the parser). */
	p.mode = o->l1 ? SOBEL_THRESH_L1 : SOBEL_THRESH_L2;
	p.thresh = (uint64_t)floor(o->l1 ? t : t * t);
	return p;
}

/*
 * sobel_gpu for the operators of kernels/sobel_op.cu, and for an output
 * wider than its input (sobel_wide_path: 16-bit samples of an 8-bit
 * image), kernels/sobel_wide.cu's, in the same shapes.
 */
static int
sobel_op_gpu(struct gpu *g, const struct gpu_image *in,
    const struct gpu_image *out, const struct sobel_params *p, int border,
    enum gf_strategy s, const struct gf_launch *l, struct gf_err *e)
{
	const int wide = sobel_wide_path(p, in->maxval);
	struct gf_launch shape = *l;
	cudaTextureObject_t tex;
	int tw, th;
	size_t smem;

	if (p->mode == SOBEL_DIRECTION && in->maxval < 255)
		return gf_fail(e, "the direction's bins 0 to 255 need a maxval of "
		    "255 or more; this image's is %u", in->maxval);
	if (out->maxval != p->maxval)
		return gf_fail(e, "sobel's output of maxval %u was given a device "
		    "image of maxval %u", p->maxval, out->maxval);
	if (s == GF_AUTO)
		s = wide ? SOBEL_WIDE_AUTO : SOBEL_OP_AUTO;
	sobel_op_shape(s, p->op, in->maxval, &shape, &tw, &th, &smem);
	if (gpu_check_shape(g, gf_strategies[s].name, &shape, tw, th, in->width,
	    in->height, smem, e) < 0 || gpu_strategy_input(g, s, in, &tex, e) < 0)
		return -1;
	return gpu_check_launch((wide ? sobel_wide_launch : sobel_op_launch)(s,
	    in, out, p, border, &shape, tex, g->stream), gf_strategies[s].name,
	    &shape, e);
}

int
sobel_gpu(struct gpu *g, const struct gpu_image *in, const struct gpu_image *out,
    const struct sobel_params *p, int border, enum gf_strategy s,
    const struct gf_launch *l, struct gf_err *e)
{
	struct gf_launch shape = *l;
	cudaTextureObject_t tex;
	int tw, th;
	size_t smem;

	if (sobel_op_path(p) || sobel_wide_path(p, in->maxval))
		return sobel_op_gpu(g, in, out, p, border, s, l, e);
	if (s == GF_AUTO)
		s = SOBEL_AUTO(in->maxval);
	sobel_shape(s, in->maxval, in->width, in->height, &shape, &tw, &th, &smem);
	if (gpu_check_shape(g, gf_strategies[s].name, &shape, tw, th, in->width,
	    in->height, smem, e) < 0 || gpu_strategy_input(g, s, in, &tex, e) < 0)
		return -1;
	return gpu_check_launch(sobel_launch(s, in, out, p, border, &shape, tex,
	    g->stream), gf_strategies[s].name, &shape, e);
}

/*
 * The parameters of one image, whose Otsu threshold is otsu when -t auto
 * asked for it; the threshold is noted in t for -v.
 */
static struct sobel_params
image_params(struct gf_times *t, const struct sobel_opts *o, unsigned maxval,
    uint32_t otsu)
{
	double thresh = o->threshold_auto ? otsu : o->t;

	if (o->threshold || o->threshold_auto) {
		t->thresholds = 1;
		t->otsu = o->threshold_auto;
		t->high = thresh;
	}
	return sobel_params_for(o, maxval, thresh);
}

/* The CPU's work on a one-channel image: -t auto's threshold, then the filter. */
static int
sobel_plane_cpu(void *ctx, const struct image *in, struct image *out,
    struct gf_times *t, struct gf_err *e)
{
	const struct sobel_opts *o = ctx;
	const int border = o->common.border, nthreads = o->common.threads;
	struct sobel_params p;
	uint32_t otsu = 0;

	if (o->threshold_auto &&
	    otsu_cpu(in, border, o->l1, &otsu, nthreads, e) < 0)
		return -1;
	p = image_params(t, o, in->maxval, otsu);
	return sobel_cpu(in, out, &p, border, nthreads, e);
}

/*
 * --colour max on the CPU: -t auto's threshold of the chosen gradients'
 * histogram, then the filter on the chosen gradient (grad_max.h).
 */
static int
sobel_max_tool_cpu(const struct sobel_opts *o, const struct image *in,
    struct image *out, struct gf_times *t, struct gf_err *e)
{
	const int border = o->common.border, nthreads = o->common.threads;
	const size_t n = (size_t)in->width * in->height;
	struct sobel_params p;
	uint32_t otsu = 0, *hist;
	int *field;

	if (o->threshold_auto) {
		int ret = -1;
		field = malloc(2 * n * sizeof(*field));
		hist = malloc(((size_t)in->maxval + 1) * sizeof(*hist));
		if (field == NULL || hist == NULL)
			gf_nomem(e, "out of memory for the gradients of a %d x %d "
			    "image", in->width, in->height);
		else if ((ret = grad_max_field_cpu(in, SOBEL_OP_SOBEL, border,
		    o->l1, field, nthreads, e)) == 0) {
			grad_max_hist(field, n, o->l1, in->maxval, hist);
			otsu = otsu_threshold(hist, (int)in->maxval + 1);
		}
		free(field);
		free(hist);
		if (ret < 0)
			return -1;
	}
	p = image_params(t, o, in->maxval, otsu);
	return sobel_max_cpu(in, out, &p, border, nthreads, e);
}

/*
 * A colour image reaches the CPU path under --colour channels (each
 * channel filtered alone, its own -t auto threshold, as the GPU path is
 * handed each plane) and --colour max.
 */
static int
sobel_tool_cpu(void *ctx, const struct image *in, struct image *out,
    struct gf_times *t, struct gf_err *e)
{
	const struct sobel_opts *o = ctx;

	if (in->channels > 1 && o->max)
		return sobel_max_tool_cpu(o, in, out, t, e);
	if (in->channels > 1)
		return tool_channels_cpu(in, out, sobel_plane_cpu, ctx, t, e);
	return sobel_plane_cpu(ctx, in, out, t, e);
}

/*
 * --colour max on the GPU, in the n > 1 colour planes stacked in in:
 * as sobel_tool_gpu, on the chosen gradients.
 */
static int
sobel_max_tool_gpu(const struct sobel_opts *o, struct gpu *g,
    const struct gpu_image *in, int n, const struct gpu_image *out,
    struct gf_times *t, struct gf_err *e)
{
	const int border = o->common.border;
	struct grad_max_dest d;
	uint32_t otsu = 0, *hist;
	int ret;

	if (o->threshold_auto) {
		if ((hist = malloc(((size_t)in->maxval + 1) * sizeof(*hist))) == NULL)
			return gf_nomem(e, "out of memory for the gradient histogram");
		ret = grad_max_hist_device(g, in, n, SOBEL_OP_SOBEL, border, o->l1,
		    o->common.strategy, &o->common.launch, hist, e);
		if (ret == 0)
			otsu = otsu_threshold(hist, (int)in->maxval + 1);
		free(hist);
		if (ret < 0)
			return -1;
	}
	memset(&d, 0, sizeof(d));
	d.kind = GRAD_MAX_SOBEL;
	d.p = image_params(t, o, in->maxval, otsu);
	d.l1 = grad_max_l1_of(&d.p);
	d.out = *out;
	if (d.p.mode == SOBEL_DIRECTION && in->maxval < 255)
		return gf_fail(e, "the direction's bins 0 to 255 need a maxval of "
		    "255 or more; this image's is %u", in->maxval);
	return grad_max_device(g, in, n, d.p.op, border, &d, o->common.strategy,
	    &o->common.launch, e);
}

static int
sobel_tool_gpu(void *ctx, struct gpu *g, const struct gpu_image *in,
    const struct gpu_image *out, struct gf_times *t, struct gf_err *e)
{
	const struct sobel_opts *o = ctx;
	struct sobel_params p;
	uint32_t otsu = 0;

	if (o->max && in->height > out->height)
		return sobel_max_tool_gpu(o, g, in, in->height / out->height, out,
		    t, e);
	if (o->threshold_auto &&
	    otsu_gpu(g, in, o->common.border, o->l1, &otsu, e) < 0)
		return -1;
	p = image_params(t, o, in->maxval, otsu);
	return sobel_gpu(g, in, out, &p, o->common.border, o->common.strategy,
	    &o->common.launch, e);
}

void
sobel_tool(struct tool *t, struct sobel_opts *o)
{
	memset(t, 0, sizeof(*t));
	t->name = "sobel";
	/*
	 * --colour channels: the engine hands the GPU path each colour plane;
	 * --colour max: all of them at once.
	 */
	t->gray = !o->channels && !o->max;
	t->planes = o->max;
	/*
	 * Otsu's threshold is the whole image's; a wrapping border reads the
	 * far edge; else an output row reads the operator's radius of rows
	 * either side.
	 */
	t->halo = o->threshold_auto || o->common.border == GF_BORDER_WRAP ?
	    -1 : sobel_op_radius(o->op);
	/*
	 * --colour max's CPU path (every colour channel's gradients through
	 * the operators' integer passes, grad_max_cpu.c) took 40 times the
	 * default's time on chelsea.png at -j 1.
	 */
	t->cpu_weight = o->max ? 40 : 0;
	/* The signed gradients and --depth 16: 16-bit samples at any depth. */
	t->out_maxval = o->grad_xy || o->depth16 ? 65535 : 0;
	t->out_signed = o->grad_xy != 0;
	t->cpu = sobel_tool_cpu;
	t->gpu = sobel_tool_gpu;
	t->ctx = o;
}
