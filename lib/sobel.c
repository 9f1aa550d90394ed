/*
 * sobel.c - the sobel operation on the host side: parameters, GPU
 * dispatch through the strategy table, and the tool's per-image filter
 * (gray conversion, transfers, timing).  The CPU path is sobel_cpu.c.
 */
#include <math.h>
#include <string.h>

#include "border.h"
#include "edge.h"
#include "sobel.h"
#include "tool.h"

/*
 * What -m auto runs on a GPU: the fastest strategy in make bench on an
 * H100 (shared: 0.23 ms thresholded, 0.38 ms magnitude at 12288x12288,
 * and twice as fast as sliding at 3840x2160).
 */
#define SOBEL_AUTO GF_SHARED

struct sobel_params
sobel_params_for(const struct sobel_opts *o, unsigned maxval, double t)
{
	struct sobel_params p;

	p.maxval = maxval;
	p.thresh = 0;
	if (!o->threshold && !o->threshold_auto) {
		p.mode = o->l1 ? SOBEL_MAG_L1 : SOBEL_MAG_L2;
		return p;
	}
	/* The largest value that does not pass "> t" (t <= 1e9 from the parser). */
	p.mode = o->l1 ? SOBEL_THRESH_L1 : SOBEL_THRESH_L2;
	p.thresh = (uint64_t)floor(o->l1 ? t : t * t);
	return p;
}

int
sobel_gpu(struct gpu *g, const struct gpu_image *in, const struct gpu_image *out,
    const struct sobel_params *p, int border, enum gf_strategy s,
    const struct gf_launch *l, struct gf_err *e)
{
	struct gf_launch shape = *l;
	cudaTextureObject_t tex = 0;
	int tw, th;
	size_t smem;

	if (s == GF_AUTO)
		s = SOBEL_AUTO;
	sobel_shape(s, in->maxval, &shape, &tw, &th, &smem);
	if (gpu_check_shape(g, gf_strategies[s].name, shape.block_w,
	    shape.block_h, tw, th, in->width, in->height, smem, e) < 0)
		return -1;
	if (s == GF_TEXTURE && gpu_texture(g, in, &tex, e) < 0)
		return -1;
	return gpu_check_launch(sobel_launch(s, in, out, p, border, &shape, tex,
	    g->stream), gf_strategies[s].name, shape.block_w, shape.block_h, e);
}

/* Upload, kernel, download of one gray image; out is allocated already. */
static int
sobel_on_gpu(struct gpu *g, const struct sobel_opts *o, const struct image *gray,
    struct image *out, struct sobel_params *p, struct gf_times *t,
    struct gf_err *e)
{
	struct gpu_image din, dout;
	float ms;
	double t0 = gf_now_ms();

	if (gpu_image_get(g, GPU_SLOT_IN, gray->width, gray->height, gray->maxval,
	    &din, e) < 0 || gpu_image_get(g, GPU_SLOT_OUT, gray->width,
	    gray->height, gray->maxval, &dout, e) < 0 ||
	    gpu_upload(g, gray, 0, &din, e) < 0)
		return -1;
	t->upload = gf_now_ms() - t0;
	if (o->threshold_auto) {
		uint32_t otsu;
		if (edge_otsu_gpu(g, &din, o->border, o->l1, &otsu, e) < 0)
			return -1;
		*p = sobel_params_for(o, gray->maxval, otsu);
		t->auto_threshold = 1;
		t->threshold = otsu;
	}
	if (gpu_timer_start(g, e) < 0 ||
	    sobel_gpu(g, &din, &dout, p, o->border, o->strategy, &o->launch, e) < 0 ||
	    gpu_timer_stop(g, &ms, e) < 0)
		return -1;
	t->kernel = ms;
	t->kernel_bytes = 2.0 * img_bytes(gray);
	t0 = gf_now_ms();
	if (gpu_download(g, &dout, out, 0, e) < 0)
		return -1;
	t->download = gf_now_ms() - t0;
	return 0;
}

int
sobel_filter(void *ctx, struct gpu *g, const struct image *in,
    struct image *out, struct gf_times *t, struct gf_err *e)
{
	const struct sobel_opts *o = ctx;
	struct image gray = *in;
	struct sobel_params p;
	int ret;

	if (in->channels != 1 && img_to_gray(in, &gray, e) < 0)
		return -1;
	p = sobel_params_for(o, in->maxval, o->t);
	if (g == NULL) {
		ret = sobel_filter_cpu(o, &gray, out, t, e);
	} else {
		ret = img_alloc_like(out, &gray, 1, e);
		if (ret == 0 && (ret = sobel_on_gpu(g, o, &gray, out, &p, t, e)) < 0)
			img_free(out);
	}
	if (gray.px != in->px)
		img_free(&gray);
	return ret;
}
