/*
 * edge_max.c - edge --colour max (edge_max.h): the CPU reference and the
 * GPU pipeline, stage for stage the same: each colour channel smoothed
 * alone, the chosen gradients as a field (grad_max.h), the thresholds
 * of their histogram where asked, suppression and the double threshold
 * on the field, and hysteresis.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d.h"
#include "edge_max.h"
#include "edge_tool.h"
#include "otsu.h"

/* ---- CPU */

void
edge_max_classify_cpu(const int *f, int w, int h, const struct grad_thresh *p,
    uint8_t *lab)
{
	for (int y = 0; y < h; y++) {
		for (int x = 0; x < w; x++) {
			size_t i = (size_t)y * w + x, b, a;
			int s, dx, dy;
			if (edge_in_frame(x, y, w, h)) {
				lab[i] = EDGE_NONE;
				continue;
			}
			s = edge_sector(f[2 * i], f[2 * i + 1]);
			edge_sector_offset(s, &dx, &dy);
			b = i + (ptrdiff_t)dy * w + dx;
			a = i - (ptrdiff_t)dy * w - dx;
			lab[i] = (uint8_t)edge_classify(grad_mag(f[2 * i], f[2 * i + 1],
			    p->l1), grad_mag(f[2 * b], f[2 * b + 1], p->l1),
			    grad_mag(f[2 * a], f[2 * a + 1], p->l1), s, p);
		}
	}
}

/*
 * The thresholds of the histogram hist (nbins bins) where ep asks for
 * them (percentages, quantiles, --auto), else ep's own; the same on the
 * CPU and the GPU, which both call it.
 */
static void
max_thresholds(const struct edge_params *ep, const uint32_t *hist, int nbins,
    struct grad_thresh *p, struct edge_info *info)
{
	uint32_t t;

	if (edge_needs_hist(ep)) {
		edge_resolve_thresholds(ep, hist, nbins, info);
		*p = edge_thresh_of(info->low, info->high, ep->l1);
	} else if (ep->auto_thresh) {
		t = otsu_threshold(hist, nbins);
		grad_thresh_auto(t, ep->l1, p);
		info->high = t;
		info->low = t / 2.0;
	} else {
		*p = edge_thresh_for(ep);
		info->low = ep->low;
		info->high = ep->high;
	}
}

/* Each colour channel of in smoothed alone into sm (in's colour channels). */
static int
smooth_cpu(const struct image *in, const struct edge_params *ep,
    struct image *sm, int nthreads, struct gf_err *e)
{
	const int nc = img_colour_channels(in), ch = in->channels;
	const size_t n = (size_t)in->width * in->height;
	struct image plane = {in->width, in->height, 1, in->maxval, NULL, 0}, po;
	struct conv2d_filter cp;
	int ret = 0;

	if (edge_smooth_filter(ep, &cp, e) < 0 || img_alloc_like(sm, in, nc, e) < 0)
		return -1;
	if (img_alloc(&plane, e) < 0) {
		img_free(sm);
		return -1;
	}
	for (int c = 0; c < nc && ret == 0; c++) {
		for (size_t i = 0; i < n; i++)
			img_set(&plane, i, img_get(in, i * ch + c));
		if ((ret = conv2d_cpu(&plane, &po, &cp, nthreads, e)) < 0)
			break;
		for (size_t i = 0; i < n; i++)
			img_set(sm, i * nc + c, img_get(&po, i));
		img_free(&po);
	}
	img_free(&plane);
	if (ret < 0)
		img_free(sm);
	return ret;
}

int
edge_max_cpu(const struct image *in, struct image *out,
    const struct edge_params *ep, struct edge_info *info, int nthreads,
    struct gf_err *e)
{
	const size_t n = (size_t)in->width * in->height;
	const int nbins = (int)in->maxval + 1;
	struct image sm = {0};
	const struct image *src = in;
	struct grad_thresh p;
	int *field = NULL, ret = -1;
	uint32_t *hist = NULL;
	uint8_t *lab = NULL;

	if (ep->sigma > 0) {
		if (smooth_cpu(in, ep, &sm, nthreads, e) < 0)
			return -1;
		src = &sm;
	}
	field = malloc(2 * n * sizeof(*field));
	hist = malloc((size_t)nbins * sizeof(*hist));
	lab = malloc(n);
	if (field == NULL || hist == NULL || lab == NULL) {
		gf_nomem(e, "out of memory for the gradients of a %d x %d image",
		    in->width, in->height);
		goto done;
	}
	if (grad_max_field_cpu(src, SOBEL_OP_SOBEL, ep->border, ep->l1, field,
	    nthreads, e) < 0)
		goto done;
	grad_max_hist(field, n, ep->l1, in->maxval, hist);
	max_thresholds(ep, hist, nbins, &p, info);
	edge_max_classify_cpu(field, in->width, in->height, &p, lab);
	ret = edge_finish_cpu(lab, in, out, e);
done:
	free(field);
	free(hist);
	free(lab);
	img_free(&sm);
	return ret;
}

/* ---- GPU */

/* Plane c of the n stacked in in, each h rows. */
static struct gpu_image
plane_of(const struct gpu_image *in, int h, int c)
{
	struct gpu_image p = *in;

	p.px = (char *)in->px + (size_t)c * h * in->pitch;
	p.height = h;
	return p;
}

int
edge_max_device(struct gpu *g, const struct gpu_image *in, int n,
    const struct gpu_image *out, const struct edge_opts *o,
    struct edge_info *info, struct gf_err *e)
{
	const int w = out->width, h = out->height, nbins = (int)in->maxval + 1;
	const enum gf_strategy s = o->common.strategy;
	struct edge_params ep = edge_params_for(o);
	struct grad_thresh p;
	struct gpu_image sm, lab;
	const struct gpu_image *src = in;
	struct grad_max_dest d;
	uint32_t *hist = NULL;
	void *field;
	int ret;

	if ((h + 7) / 8 > g->max_grid[1])
		return gf_fail(e, "a %d x %d image is too tall for edge --colour "
		    "max on the GPU", w, h);
	if (o->sigma > 0) {
		struct conv2d_filter cp;
		if (edge_smooth_filter(&ep, &cp, e) < 0 || gpu_image_get(g,
		    GPU_SLOT_SMOOTHED, w, n * h, in->maxval, &sm, e) < 0)
			return -1;
		for (int c = 0; c < n; c++) {
			struct gpu_image pi = plane_of(in, h, c), ps = plane_of(&sm, h, c);
			/*
			 * A texture's base must be aligned (cudaDeviceProp's
			 * textureAlignment, 512 bytes); a plane past the first may
			 * not be: it is smoothed from a copy in out, which the
			 * hysteresis writes last.
			 */
			if ((uintptr_t)pi.px % 512 != 0) {
				GPU_TRY(e, cudaMemcpy2DAsync(out->px, out->pitch, pi.px,
				    pi.pitch, (size_t)w * gf_sample_bytes(in->maxval), h,
				    cudaMemcpyDeviceToDevice, g->stream));
				pi.px = out->px;
				pi.pitch = out->pitch;
			}
			if (conv2d_gpu(g, &pi, &ps, &cp, s, &o->common.launch, e) < 0)
				return -1;
		}
		src = &sm;
	}
	if (ep.auto_thresh || edge_needs_hist(&ep)) {
		if ((hist = malloc((size_t)nbins * sizeof(*hist))) == NULL)
			return gf_nomem(e, "out of memory for the gradient histogram");
		ret = grad_max_hist_device(g, src, n, SOBEL_OP_SOBEL, ep.border, ep.l1,
		    s, &o->common.launch, hist, e);
		if (ret == 0)
			max_thresholds(&ep, hist, nbins, &p, info);
		free(hist);
		if (ret < 0)
			return -1;
	} else {
		max_thresholds(&ep, NULL, nbins, &p, info);
	}
	memset(&d, 0, sizeof(d));
	d.kind = GRAD_MAX_FIELD;
	d.l1 = ep.l1;
	if (gpu_scratch(g, GPU_SLOT_GRAD, 2 * (size_t)w * h * sizeof(int), &field,
	    e) < 0)
		return -1;
	d.field = field;
	if (grad_max_device(g, src, n, SOBEL_OP_SOBEL, ep.border, &d, s,
	    &o->common.launch, e) < 0 ||
	    gpu_image_get(g, GPU_SLOT_CLASSES, w, h, 255, &lab, e) < 0)
		return -1;
	GPU_TRY(e, edge_max_launch_nms(field, &lab, &p, g->stream));
	return edge_hysteresis_device(g, &lab, out, e);
}
