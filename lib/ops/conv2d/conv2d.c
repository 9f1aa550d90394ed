/*
 * conv2d.c - conv2d on the host: the plan (arithmetic mode, divisor,
 * separable or not) that the CPU and the GPU both obey, the GPU
 * dispatch over the strategy table, and the tool's per-image filter.
 * The arithmetic itself is in conv2d_core.h, the CPU path in
 * conv2d_cpu.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d_tool.h"
#include "tool.h"

/*
 * The divisor before sign folding: --divisor; else the tap sum when
 * normalizing (conv2d_normalizes); else 1; the first and the last times
 * the kernel's unit (gauss's fixed point), whose taps stand for the
 * kernel times it.
 */
static double
plan_divisor(const struct conv2d_filter *p)
{
	const struct kspec *k = &p->k;
	double sum = 0, unit = k->unit > 0 ? k->unit : 1;

	if (p->divisor != 0)
		return p->divisor * unit;
	if (!conv2d_normalizes(p))
		return unit;
	for (int i = 0; i < k->kw * k->kh; i++)
		sum += k->taps[i];
	return sum != 0 ? sum : 1;
}

int
conv2d_normalizes(const struct conv2d_filter *p)
{
	const struct kspec *k = &p->k;

	if (p->divisor != 0)
		return 0;
	if (p->normalize || k->normalized)
		return 1;
	if (k->unit_sum)
		return 0;
	for (int i = 0; i < k->kw * k->kh; i++)
		if (k->taps[i] < 0)
			return 0;
	return 1;
}

/*
 * Whether an integer plan's taps fit dp4a (struct conv2d_coef), and if
 * so, packs them.  GPUFILT_DP4A=0 says no, for the bench to compare.
 */
static void
plan_dp4a(struct conv2d_plan *pl)
{
	struct conv2d_coef *c = &pl->coef;
	const char *env = getenv("GPUFILT_DP4A");

	c->dp4a = c->mode == CONV2D_I32 && c->kw == c->kh && c->kw <= CONV_DP4A_K &&
	    (env == NULL || strcmp(env, "0") != 0);
	for (int i = 0; c->dp4a && i < c->kw * c->kh; i++)
		if (pl->taps.itaps[i] < -128 || pl->taps.itaps[i] > 127)
			c->dp4a = 0;
	if (!c->dp4a)
		return;
	for (int i = 0; i < c->kh; i++)
		for (int j = 0; j < c->kw; j++)
			pl->taps.qtaps[i * CONV_DP4A_W + j / 4] |=
			    (uint32_t)(uint8_t)(int8_t)pl->taps.itaps[i * c->kw + j] << 8 * (j % 4);
}

/* Integer modes: exact int32 or int64 taps, divisor d >= 1, bias. */
static void
plan_integer(const struct conv2d_filter *p, int sign, double d,
    struct conv2d_plan *pl)
{
	const struct kspec *k = &p->k;
	struct conv2d_coef *c = &pl->coef;
	int64_t sumabs = 0, rowabs = 0, colabs = 0, bound, rowbound;

	for (int i = 0; i < k->kw * k->kh; i++) {
		pl->taps.itaps[i] = sign * (int32_t)k->taps[i];
		sumabs += (int64_t)fabs(k->taps[i]);
	}
	for (int j = 0; j < k->kw; j++) {
		pl->taps.irow[j] = sign * (int32_t)k->row[j];
		rowabs += (int64_t)fabs(k->row[j]);
	}
	for (int i = 0; i < k->kh; i++) {
		pl->taps.icol[i] = (int32_t)k->col[i];
		colabs += (int64_t)fabs(k->col[i]);
	}
	/* Float copies for the GPU's float accumulators (used when fexact). */
	for (int i = 0; i < k->kw * k->kh; i++)
		pl->taps.ftaps[i] = (float)pl->taps.itaps[i];
	for (int j = 0; j < k->kw; j++)
		pl->taps.frow[j] = (float)pl->taps.irow[j];
	for (int i = 0; i < k->kh; i++)
		pl->taps.fcol[i] = (float)pl->taps.icol[i];
	c->div = (int64_t)d;
	c->pow2 = 0;
	for (int s = 0; s < 62 && c->pow2 == 0; s++)
		if (c->div == (int64_t)1 << s)
			c->pow2 = s + 1;
	c->bias = (int64_t)p->bias;
	bound = sumabs * (int64_t)c->maxval;
	rowbound = rowabs * (int64_t)c->maxval;
	c->mode = 2 * bound + 2 * c->div + llabs(c->bias) <= INT32_MAX ?
	    CONV2D_I32 : CONV2D_I64;
	pl->separable = p->allow_separable && k->separable &&
	    rowbound <= INT32_MAX;
	c->fexact = c->mode == CONV2D_I32 && (double)bound < 16777216.0 &&
	    (!pl->separable ||
	    (double)rowabs * (double)colabs * c->maxval < 16777216.0);
	plan_dp4a(pl);
}

/* The real mode: float taps, divisor and bias, rounded once from double. */
static int
plan_real(const struct conv2d_filter *p, int sign, double d,
    struct conv2d_plan *pl, struct gf_err *e)
{
	const struct kspec *k = &p->k;
	struct conv2d_coef *c = &pl->coef;

	for (int i = 0; i < k->kw * k->kh; i++)
		pl->taps.ftaps[i] = (float)(sign * k->taps[i]);
	for (int j = 0; j < k->kw; j++)
		pl->taps.frow[j] = (float)(sign * k->row[j]);
	for (int i = 0; i < k->kh; i++)
		pl->taps.fcol[i] = (float)k->col[i];
	c->mode = CONV2D_F32;
	c->fdiv = (float)d;
	c->fbias = (float)p->bias;
	if (!(c->fdiv > 0) || isinf(c->fdiv))
		return gf_fail(e, "divisor %g is out of range for float arithmetic",
		    d * sign);
	pl->separable = p->allow_separable && k->separable;
	return 0;
}

int
conv2d_plan_make(const struct conv2d_filter *p, unsigned maxval,
    struct conv2d_plan *pl, struct gf_err *e)
{
	const struct kspec *k = &p->k;
	double d = plan_divisor(p);
	int sign = d < 0 ? -1 : 1;

	if (k->kw < 1 || k->kh < 1 || k->kw > CONV_MAX_K || k->kh > CONV_MAX_K)
		return gf_fail(e, "a %d x %d kernel is not supported (each side "
		    "must be 1 to %d)", k->kw, k->kh, CONV_MAX_K);
	if (fabs(p->bias) > KSPEC_MAX_TAP || fabs(d) > 1e13)
		return gf_fail(e, "bias %g or divisor %g is too large", p->bias, d);
	if (maxval < 1 || maxval > 65535)
		return gf_fail(e, "maxval %u is not 1 to 65535", maxval);
	memset(pl, 0, sizeof(*pl));
	pl->coef.kw = k->kw;
	pl->coef.kh = k->kh;
	pl->coef.ax = k->kw / 2;
	pl->coef.ay = k->kh / 2;
	pl->coef.border = p->border;
	pl->coef.maxval = maxval;
	pl->coef.abs = p->abs;
	d = fabs(d);
	if (k->integer && d == floor(d) && p->bias == floor(p->bias)) {
		plan_integer(p, sign, d, pl);
		return 0;
	}
	return plan_real(p, sign, d, pl, e);
}

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
 * kernels are queued, and taps that differ from the last ones are written
 * only after the device has finished everything queued before.
 */
static int
taps_set(struct gpu *g, const struct conv2d_taps *t, struct gf_err *e)
{
	struct gpu_shared *sh = g->shared;

	if (sh->consts != NULL && sh->consts_bytes == sizeof(*t) &&
	    memcmp(sh->consts, t, sizeof(*t)) == 0)
		return 0;
	if (sh->consts == NULL && (sh->consts = malloc(sizeof(*t))) == NULL)
		return gf_fail(e, "out of memory");
	sh->consts_bytes = 0;
	GPU_TRY(e, cudaDeviceSynchronize());
	GPU_TRY(e, conv2d_set_taps(t, g->stream));
	GPU_TRY(e, cudaStreamSynchronize(g->stream));
	memcpy(sh->consts, t, sizeof(*t));
	sh->consts_bytes = sizeof(*t);
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
		return gf_fail(e, "out of memory");
	if (conv2d_plan_make(p, in->maxval, pl, e) == 0) {
		pthread_mutex_lock(&g->shared->lock);
		if (taps_set(g, &pl->taps, e) == 0)
			rc = conv2d_gpu_run(g, in, out, pl, s, l, e);
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
	memset(t, 0, sizeof(*t));
	t->name = "conv2d";
	t->gray = 0;
	/* The anchor row is kh / 2: no tap is further than that above or below. */
	t->halo = o->filter.border == GF_BORDER_WRAP ? -1 : k->kh / 2;
	t->cpu = conv2d_tool_cpu;
	t->gpu = conv2d_tool_gpu;
	t->ctx = o;
}
