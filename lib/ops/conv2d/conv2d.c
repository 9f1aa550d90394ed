/*
 * conv2d.c - conv2d on the host: the GPU dispatch over the strategy
 * table and the tool's per-image filter.  The plan that the CPU and the
 * GPU both obey is conv2d_plan.c's, the arithmetic conv2d_core.h's, the
 * CPU path conv2d_cpu.c's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d_tool.h"
#include "tool.h"

/* ---- GPU dispatch */

/*
 * The separable path: for 8-bit plans with a fast kernel, both passes in
 * one kernel; else the row pass into GPU_SLOT_CONV_TMP, then the column
 * pass into out.
 */
static int
gpu_separable(struct gpu *g, const struct gpu_image *in,
    const struct gpu_image *out, const struct conv2d_plan *pl,
    const struct gf_launch *l, struct gf_err *e)
{
	const struct conv2d_coef *c = &pl->coef;
	struct gf_launch sh = *l;
	size_t pitch = ((size_t)in->width * 4 + 255) / 256 * 256, smem;
	int th, w = in->width, h = in->height;
	void *tmp;

	conv2d_shape(c, GF_AUTO, &sh);
	th = sh.block_h * sh.rows;
	if ((smem = conv2d_smem_sep(c, &sh)) > 0) {
		if (gpu_check_shape(g, "separable", &sh, 16 * sh.block_w, th, w,
		    h, smem, e) < 0)
			return -1;
		return gpu_check_launch(conv2d_launch_sep(in, out, c, &sh,
		    g->stream), "separable", &sh, e);
	}
	if (gpu_check_shape(g, "separable row pass", &sh, sh.block_w, th, w, h,
	    conv2d_smem_rows(c, &sh), e) < 0 ||
	    gpu_check_shape(g, "separable column pass", &sh, sh.block_w, th, w, h,
	    conv2d_smem_cols(c, &sh), e) < 0)
		return -1;
	if (gpu_scratch(g, GPU_SLOT_CONV_TMP, pitch * in->height, &tmp, e) < 0)
		return -1;
	GPU_TRY(e, conv2d_launch_rows(in, tmp, pitch, c, &sh, g->stream));
	GPU_TRY(e, conv2d_launch_cols(tmp, pitch, out, c, &sh, g->stream));
	return 0;
}

/* One 2D strategy. */
static int
gpu_2d(struct gpu *g, const struct gpu_image *in, const struct gpu_image *out,
    const struct conv2d_plan *pl, enum gf_strategy s, const struct gf_launch *l,
    struct gf_err *e)
{
	const struct conv2d_coef *c = &pl->coef;
	struct gf_launch sh = *l;
	cudaTextureObject_t tex;
	size_t smem = 0;

	if (s == GF_AUTO)
		s = conv2d_auto(c);
	if (s < GF_FIRST_GPU || s > GF_LAST_GPU)
		return gf_fail(e, "conv2d_gpu: '%s' is not a GPU strategy",
		    gf_strategies[s].name);
	conv2d_shape(c, s, &sh);
	if (gf_strategies[s].tile)
		smem = conv2d_smem_tile(c, &sh);
	if (gpu_check_shape(g, gf_strategies[s].name, &sh,
	    conv2d_tile_w(c, s, &sh), sh.block_h * sh.rows, in->width,
	    in->height, smem, e) < 0 ||
	    gpu_strategy_input(g, s, in, &tex, e) < 0)
		return -1;
	return gpu_check_launch(conv2d_launch_2d(s, in, out, tex, c, &sh,
	    g->stream), gf_strategies[s].name, &sh, e);
}

int
conv2d_gpu_run(struct gpu *g, const struct gpu_image *in,
    const struct gpu_image *out, const struct conv2d_plan *pl,
    enum gf_strategy s, const struct gf_launch *l, struct gf_err *e)
{
	if (out->width != in->width || out->height != in->height ||
	    out->maxval != in->maxval || pl->coef.maxval != in->maxval)
		return gf_fail(e, "conv2d: the output is %d x %d (maxval %u), the "
		    "input %d x %d (maxval %u), the plan is for maxval %u",
		    out->width, out->height, out->maxval, in->width, in->height,
		    in->maxval, pl->coef.maxval);
	if (pl->separable)
		return gpu_separable(g, in, out, pl, l, e);
	return gpu_2d(g, in, out, pl, s, l, e);
}

/*
 * Makes c_taps hold t on g's device.  Streams of one device share that
 * constant memory: the caller holds g->shared->lock from here until its
 * kernels are queued (and taps_used has recorded them), and taps that
 * differ from the last ones are written only after every kernel queued
 * to read the last ones has finished (their events), on any stream.
 */
static int
taps_set(struct gpu *g, const struct conv2d_taps *t, struct gf_err *e)
{
	struct gpu_shared *sh = g->shared;

	if (sh->consts != NULL && sh->consts_bytes == sizeof(*t) &&
	    memcmp(sh->consts, t, sizeof(*t)) == 0)
		return 0;
	if (sh->consts == NULL && (sh->consts = malloc(sizeof(*t))) == NULL)
		return gf_nomem(e, "out of memory");
	sh->consts_bytes = 0;
	for (int i = 0; i < sh->nuses; i++)
		GPU_TRY(e, cudaEventSynchronize(sh->uses[i]));
	GPU_TRY(e, conv2d_set_taps(t, g->stream));
	GPU_TRY(e, cudaStreamSynchronize(g->stream));
	memcpy(sh->consts, t, sizeof(*t));
	sh->consts_bytes = sizeof(*t);
	return 0;
}

/*
 * The kernels just queued on g's stream read c_taps: an event after them
 * joins the shared uses (under g->shared->lock), in the place of one
 * that has completed, so that the uses grow only with the streams that
 * have kernels in flight.  On failure (e) nothing was recorded, and the
 * caller waits for its stream before the lock goes.
 */
static int
taps_used(struct gpu *g, struct gf_err *e)
{
	struct gpu_shared *sh = g->shared;
	int i = 0;

	while (i < sh->nuses && cudaEventQuery(sh->uses[i]) != cudaSuccess)
		i++;
	if (i == sh->nuses) {
		if (sh->nuses == sh->cap) {
			int cap = sh->cap > 0 ? 2 * sh->cap : 8;
			cudaEvent_t *u = realloc(sh->uses, (size_t)cap * sizeof(*u));
			if (u == NULL)
				return gf_nomem(e, "out of memory");
			sh->uses = u;
			sh->cap = cap;
		}
		GPU_TRY(e, cudaEventCreateWithFlags(&sh->uses[i],
		    cudaEventDisableTiming));
		sh->nuses++;
	}
	GPU_TRY(e, cudaEventRecord(sh->uses[i], g->stream));
	return 0;
}

int
conv2d_gpu(struct gpu *g, const struct gpu_image *in, struct gpu_image *out,
    const struct conv2d_filter *p, enum gf_strategy s, const struct gf_launch *l,
    struct gf_err *e)
{
	struct conv2d_plan *pl = malloc(sizeof(*pl));
	int rc = -1;

	if (pl == NULL)
		return gf_nomem(e, "out of memory");
	if (conv2d_plan_make(p, in->maxval, pl, e) == 0) {
		struct gf_err ue;
		pthread_mutex_lock(&g->shared->lock);
		if (taps_set(g, &pl->taps, e) == 0) {
			rc = conv2d_gpu_run(g, in, out, pl, s, l, e);
			/* What was queued reads the taps, whether or not all was. */
			if (taps_used(g, &ue) < 0) {
				cudaStreamSynchronize(g->stream);
				if (rc == 0)
					*e = ue;
				rc = -1;
			}
		}
		pthread_mutex_unlock(&g->shared->lock);
	}
	free(pl);
	return rc;
}

/* ---- the tool */

static int
conv2d_tool_cpu(void *ctx, const struct image *in, struct image *out,
    struct gf_times *t, struct gf_err *e)
{
	const struct conv2d_opts *o = ctx;

	(void)t;
	return conv2d_cpu(in, out, &o->filter, o->common.threads, e);
}

static int
conv2d_tool_gpu(void *ctx, struct gpu *g, const struct gpu_image *in,
    const struct gpu_image *out, struct gf_times *t, struct gf_err *e)
{
	const struct conv2d_opts *o = ctx;
	struct gpu_image dst = *out;

	(void)t;
	return conv2d_gpu(g, in, &dst, &o->filter, o->common.strategy,
	    &o->common.launch, e);
}

void
conv2d_tool(struct tool *t, struct conv2d_opts *o)
{
	const struct kspec *k = &o->filter.k;

	o->filter.border = o->common.border;
	o->filter.no_dp4a = !o->common.set.dp4a;
	memset(t, 0, sizeof(*t));
	t->name = "conv2d";
	t->gray = 0;
	/* The anchor row is kh / 2: no tap is further than that above or below. */
	t->halo = o->filter.border == GF_BORDER_WRAP ? -1 : k->kh / 2;
	/* Taps per sample, against gauss:1.4's 9 + 9 (separable, 9x9). */
	t->cpu_weight = (k->separable && o->filter.allow_separable ?
	    k->kw + k->kh : k->kw * k->kh) / 18.0;
	t->cpu = conv2d_tool_cpu;
	t->gpu = conv2d_tool_gpu;
	t->ctx = o;
}
