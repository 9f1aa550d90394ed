/*
 * edge.c - the edge tool: its option rules, the operation's parameters
 * from its options, and the GPU pipeline that keeps every intermediate
 * on the device and equals the CPU reference (edge_cpu.c) bit for bit.
 */
#include <stdlib.h>
#include <string.h>

#include "conv2d.h"
#include "edge_tool.h"
#include "otsu.h"
#include "tool.h"

/* ---- edge(1)'s option rules (the tool and libgpufilt) ---- */

int
edge_check_sigma(double sigma, struct gf_err *e)
{
	if (sigma > 0 && sigma < GF_MIN_SIGMA)
		return gf_fail(e, "--sigma %g is too small to smooth with; give 0 "
		    "for no smoothing or at least %g", sigma, GF_MIN_SIGMA);
	return 0;
}

int
edge_settle_thresholds(struct edge_opts *o, int have_low, int have_high,
    struct gf_err *e)
{
	if (o->auto_thresh && (have_low || have_high))
		return gf_fail(e, "--auto chooses the thresholds; do not give "
		    "--low or --high with it");
	if (have_low && !have_high)
		return gf_fail(e, "--low %g needs --high", o->low);
	if (!have_high) {
		o->auto_thresh = 1;
		return 0;
	}
	if (!have_low)
		o->low = o->high / 2;
	if (o->low > o->high)
		return gf_fail(e, "--low %g is greater than --high %g", o->low,
		    o->high);
	return 0;
}

struct edge_params
edge_params_for(const struct edge_opts *o)
{
	struct edge_params p;

	p.border = o->common.border;
	p.sigma = o->sigma;
	p.l1 = o->l1;
	p.auto_thresh = o->auto_thresh;
	p.low = o->low;
	p.high = o->high;
	return p;
}

/* ---- GPU pipeline ---- */

/* Suppression and double threshold on the device, o's strategy. */
static int
nms_device(struct gpu *g, const struct gpu_image *src,
    const struct gpu_image *lab, const struct grad_thresh *p,
    const struct grad_thresh *dp, const struct edge_opts *o,
    struct gf_err *e)
{
	enum gf_strategy s = o->common.strategy == GF_AUTO ? GF_SLIDING :
	    o->common.strategy;
	struct gf_launch l = o->common.launch;
	cudaTextureObject_t tex;
	int tile_w, tile_h;
	size_t smem;

	edge_nms_shape(s, src->maxval, src->width, src->height, &l, &tile_w,
	    &tile_h, &smem);
	if (gpu_check_shape(g, gf_strategies[s].name, &l, tile_w, tile_h,
	    src->width, src->height, smem, e) < 0 ||
	    gpu_strategy_input(g, s, src, &tex, e) < 0)
		return -1;
	GPU_TRY(e, edge_launch_nms(s, src, lab, p, dp, o->common.border, &l, tex,
	    g->stream));
	return 0;
}

/*
 * Hysteresis on the device: one connected-component labelling of the
 * classes (kernels/edge_hyst.cu), queued without waiting.  Writes out.
 */
static int
hysteresis_device(struct gpu *g, const struct gpu_image *lab,
    const struct gpu_image *out, struct gf_err *e)
{
	size_t tx = ((size_t)lab->width + EDGE_HYST_TILE - 1) / EDGE_HYST_TILE;
	size_t ty = ((size_t)lab->height + EDGE_HYST_TILE - 1) / EDGE_HYST_TILE;
	size_t nodes = tx * ty * EDGE_HYST_CAP;
	void *scratch;

	if (nodes > UINT32_MAX || tx > (size_t)g->max_grid[0] ||
	    ty > (size_t)g->max_grid[1] ||
	    (nodes + 255) / 256 > (size_t)g->max_grid[0])
		return gf_fail(e, "a %d x %d image is too large for the GPU "
		    "hysteresis", lab->width, lab->height);
	if (gpu_scratch(g, GPU_SLOT_HYST, edge_hyst_scratch(lab->width,
	    lab->height), &scratch, e) < 0)
		return -1;
	GPU_TRY(e, edge_launch_hyst(lab, out, scratch, g->stream));
	return 0;
}

/* Smoothing into slot GPU_SLOT_SMOOTHED when o asks for it; *src is what follows reads. */
static int
smooth_device(struct gpu *g, const struct gpu_image *in,
    const struct edge_opts *o, struct gpu_image *sm,
    const struct gpu_image **src, struct gf_err *e)
{
	struct conv2d_filter cp;
	struct edge_params ep = edge_params_for(o);
	enum gf_strategy s = o->common.strategy;

	*src = in;
	if (o->sigma <= 0)
		return 0;
	if (edge_smooth_filter(&ep, &cp, e) < 0 ||
	    gpu_image_get(g, GPU_SLOT_SMOOTHED, in->width, in->height, in->maxval,
	    sm, e) < 0 || conv2d_gpu(g, in, sm, &cp, s, &o->common.launch, e) < 0)
		return -1;
	*src = sm;
	return 0;
}

int
edge_run_device(struct gpu *g, const struct gpu_image *in,
    const struct gpu_image *out, const struct edge_opts *o,
    struct edge_info *info, struct gf_err *e)
{
	struct gpu_image sm, lab;
	const struct gpu_image *src;
	struct edge_params ep = edge_params_for(o);
	struct grad_thresh p = edge_thresh_for(&ep);
	struct otsu_device *od = NULL;
	uint32_t t = 0;

	if (smooth_device(g, in, o, &sm, &src, e) < 0)
		return -1;
	if (o->auto_thresh &&
	    otsu_queue(g, src, o->common.border, o->l1, &od, e) < 0)
		return -1;
	if (gpu_image_get(g, GPU_SLOT_CLASSES, in->width, in->height, 255, &lab,
	    e) < 0 || nms_device(g, src, &lab, &p, od != NULL ? &od->p : NULL, o,
	    e) < 0)
		return -1;
	if (hysteresis_device(g, &lab, out, e) < 0)
		return -1;
	if (o->auto_thresh) {
		GPU_TRY(e, cudaMemcpyAsync(&t, &od->t, sizeof(t),
		    cudaMemcpyDeviceToHost, g->stream));
		GPU_TRY(e, cudaStreamSynchronize(g->stream));
	}
	info->low = o->auto_thresh ? t / 2.0 : o->low;
	info->high = o->auto_thresh ? t : o->high;
	return 0;
}

/* Records the thresholds an image used, for -v. */
static void
note_thresholds(struct gf_times *t, const struct edge_opts *o,
    const struct edge_info *info)
{
	t->thresholds = 2;
	t->otsu = o->auto_thresh;
	t->low = info->low;
	t->high = info->high;
}

static int
edge_tool_cpu(void *ctx, const struct image *in, struct image *out,
    struct gf_times *t, struct gf_err *e)
{
	const struct edge_opts *o = ctx;
	struct edge_params p = edge_params_for(o);
	struct edge_info info;

	if (edge_cpu(in, out, &p, &info, o->common.threads, e) < 0)
		return -1;
	note_thresholds(t, o, &info);
	return 0;
}

static int
edge_tool_gpu(void *ctx, struct gpu *g, const struct gpu_image *in,
    const struct gpu_image *out, struct gf_times *t, struct gf_err *e)
{
	const struct edge_opts *o = ctx;
	struct edge_info info;

	if (edge_run_device(g, in, out, o, &info, e) < 0)
		return -1;
	note_thresholds(t, o, &info);
	return 0;
}

void
edge_tool(struct tool *t, struct edge_opts *o)
{
	memset(t, 0, sizeof(*t));
	t->name = "edge";
	t->gray = 1;
	t->halo = -1;           /* hysteresis links pixels across the whole image */
	t->cpu = edge_tool_cpu;
	t->gpu = edge_tool_gpu;
	t->ctx = o;
}
