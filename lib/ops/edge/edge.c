/*
 * edge.c - the edge tool: its option rules, the operation's parameters
 * from its options, and the GPU pipeline that keeps every intermediate
 * on the device and equals the CPU reference (edge_cpu.c) bit for bit.
 */
#include <stdlib.h>
#include <string.h>

#include "conv2d.h"
#include "edge_max.h"
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
edge_parse_thresh(const char *s, const char *what, int quantiles,
    double *v, enum edge_tkind *kind, struct gf_err *e)
{
	size_t n = strlen(s);
	char buf[64];

	if (n > 0 && s[n - 1] == '%' && n < sizeof(buf)) {
		memcpy(buf, s, n - 1);
		buf[n - 1] = '\0';
		*kind = EDGE_T_PERCENT;
		if (gf_parse_double(buf, what, 0, 100, v, e) < 0)
			return gf_fail(e, "%s %s: give a percentage of 0%% to 100%% of "
			    "the range of the image's gradient magnitudes", what, s);
		return 0;
	}
	if (s[0] == 'q' || quantiles) {
		*kind = EDGE_T_QUANTILE;
		if (gf_parse_double(s + (s[0] == 'q'), what, 0, 1, v, e) < 0)
			return gf_fail(e, "%s %s: give a quantile of 0 to 1%s, such as "
			    "%s0.9 (90%% of the gradient magnitudes below it)", what, s,
			    quantiles ? " (--quantiles)" : " after q", quantiles ? "" :
			    "q");
		return 0;
	}
	*kind = EDGE_T_VALUE;
	return gf_parse_double(s, what, 0, 1e6, v, e);
}

/* "40", "30%" or "q0.9": a threshold as it was given, for messages. */
static const char *
thresh_text(double v, enum edge_tkind kind, char *buf, size_t n)
{
	snprintf(buf, n, kind == EDGE_T_PERCENT ? "%g%%" : kind ==
	    EDGE_T_QUANTILE ? "q%g" : "%g", v);
	return buf;
}

int
edge_settle_thresholds(struct edge_opts *o, int have_low, int have_high,
    struct gf_err *e)
{
	char a[32], b[32];

	if (o->auto_thresh && (have_low || have_high))
		return gf_fail(e, "--auto chooses the thresholds; do not give "
		    "--low or --high with it");
	if (have_low && !have_high)
		return gf_fail(e, "--low %s needs --high", thresh_text(o->low,
		    o->low_kind, a, sizeof(a)));
	if (!have_high) {
		o->auto_thresh = 1;
		return 0;
	}
	if (!have_low) {
		o->low_kind = o->high_kind == EDGE_T_VALUE ? EDGE_T_VALUE :
		    EDGE_T_HALF;
		o->low = o->high / 2;
	}
	if (o->low_kind == o->high_kind && o->low > o->high)
		return gf_fail(e, "--low %s is greater than --high %s",
		    thresh_text(o->low, o->low_kind, a, sizeof(a)),
		    thresh_text(o->high, o->high_kind, b, sizeof(b)));
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
	p.low_kind = o->low_kind;
	p.high_kind = o->high_kind;
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
int
edge_hysteresis_device(struct gpu *g, const struct gpu_image *lab,
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

/*
 * Thresholds of the image's gradient histogram (percentages, quantiles):
 * the histogram Otsu's search counts (otsu_queue), copied to the host
 * and read there by edge_resolve_thresholds, as the CPU reads its own,
 * bin for bin the same.  Waits for the stream.
 */
static int
hist_thresholds_device(struct gpu *g, const struct gpu_image *src,
    const struct edge_params *ep, struct edge_info *info, struct gf_err *e)
{
	int nbins = (int)src->maxval + 1;
	struct otsu_device *od;
	uint32_t *hist = malloc((size_t)nbins * sizeof(*hist));
	cudaError_t ce;

	if (hist == NULL)
		return gf_nomem(e, "out of memory for the gradient histogram");
	if (otsu_queue(g, src, ep->border, ep->l1, &od, e) < 0) {
		free(hist);
		return -1;
	}
	ce = cudaMemcpyAsync(hist, od->bins, (size_t)nbins * sizeof(*hist),
	    cudaMemcpyDeviceToHost, g->stream);
	if (ce == cudaSuccess)
		ce = cudaStreamSynchronize(g->stream);
	if (ce == cudaSuccess)
		edge_resolve_thresholds(ep, hist, nbins, info);
	free(hist);
	GPU_TRY(e, ce);
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
	struct edge_info hi = {o->low, o->high};
	uint32_t t = 0;

	if (smooth_device(g, in, o, &sm, &src, e) < 0)
		return -1;
	if (edge_needs_hist(&ep)) {
		if (hist_thresholds_device(g, src, &ep, &hi, e) < 0)
			return -1;
		p = edge_thresh_of(hi.low, hi.high, ep.l1);
	}
	if (o->auto_thresh &&
	    otsu_queue(g, src, o->common.border, o->l1, &od, e) < 0)
		return -1;
	if (gpu_image_get(g, GPU_SLOT_CLASSES, in->width, in->height, 255, &lab,
	    e) < 0 || nms_device(g, src, &lab, &p, od != NULL ? &od->p : NULL, o,
	    e) < 0)
		return -1;
	if (edge_hysteresis_device(g, &lab, out, e) < 0)
		return -1;
	if (o->auto_thresh) {
		GPU_TRY(e, cudaMemcpyAsync(&t, &od->t, sizeof(t),
		    cudaMemcpyDeviceToHost, g->stream));
		GPU_TRY(e, cudaStreamSynchronize(g->stream));
	}
	info->low = o->auto_thresh ? t / 2.0 : hi.low;
	info->high = o->auto_thresh ? t : hi.high;
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
edge_plane_cpu(void *ctx, const struct image *in, struct image *out,
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

/*
 * A colour image reaches the CPU path under --colour channels (each
 * channel detected alone, its own thresholds, as the GPU path is handed
 * each plane) and --colour max (edge_max.h).
 */
static int
edge_tool_cpu(void *ctx, const struct image *in, struct image *out,
    struct gf_times *t, struct gf_err *e)
{
	const struct edge_opts *o = ctx;
	struct edge_params p = edge_params_for(o);
	struct edge_info info;

	if (in->channels > 1 && o->max) {
		if (edge_max_cpu(in, out, &p, &info, o->common.threads, e) < 0)
			return -1;
		note_thresholds(t, o, &info);
		return 0;
	}
	if (in->channels > 1)
		return tool_channels_cpu(in, out, edge_plane_cpu, ctx, t, e);
	return edge_plane_cpu(ctx, in, out, t, e);
}

static int
edge_tool_gpu(void *ctx, struct gpu *g, const struct gpu_image *in,
    const struct gpu_image *out, struct gf_times *t, struct gf_err *e)
{
	const struct edge_opts *o = ctx;
	struct edge_info info;

	if (o->max && in->height > out->height) {
		if (edge_max_device(g, in, in->height / out->height, out, o, &info,
		    e) < 0)
			return -1;
	} else if (edge_run_device(g, in, out, o, &info, e) < 0)
		return -1;
	note_thresholds(t, o, &info);
	return 0;
}

void
edge_tool(struct tool *t, struct edge_opts *o)
{
	memset(t, 0, sizeof(*t));
	t->name = "edge";
	/*
	 * --colour channels: the engine hands the GPU path each colour plane;
	 * --colour max: all of them at once.
	 */
	t->gray = !o->channels && !o->max;
	t->planes = o->max;
	t->halo = -1;           /* hysteresis links pixels across the whole image */
	/*
	 * The smoothing's taps grow with sigma; the other stages' do not,
	 * so this overstates a larger sigma's cost, on the safe side.
	 */
	t->cpu_weight = o->sigma / 1.4;
	/* --colour max: 8 times the default's time on chelsea.png (-j 1). */
	if (o->max)
		t->cpu_weight = 8 * (t->cpu_weight > 1 ? t->cpu_weight : 1);
	/*
	 * A warm server overtakes edge's CPU work at about a quarter of
	 * sobel's and conv2d's crossover (bench/crossover.sh SERVED=1).
	 */
	t->served_weight = 4;
	t->cpu = edge_tool_cpu;
	t->gpu = edge_tool_gpu;
	t->ctx = o;
}
