/*
 * grad_max.h - the gradient of the colour channel whose gradient is
 * largest, at each pixel: what sobel --colour max and edge --colour max
 * work on, as OpenCV's Canny does on a colour image.  At each pixel the
 * gradient (gx, gy) of every colour channel is taken with an operator's
 * taps (sobel_op_core.h) and the one of largest magnitude kept: gx^2 +
 * gy^2, or |gx| + |gy| with l1, compared exactly in integers; on a tie
 * the first channel (R before G before B) keeps it, as OpenCV keeps the
 * first in memory order ("if (_norm[jn + k] > _norm[maxIdx])" in
 * modules/imgproc/src/canny.cpp).  The CPU reference
 * (lib/ops/gradient/grad_max_cpu.c) and every GPU strategy
 * (kernels/grad_max.cu) call grad_max_pick on the same integers, so
 * they agree bit for bit.
 *
 * On the device the colour planes of an image lie stacked in one
 * gpu_image, plane c at rows c * h .. c * h + h - 1 of an image h rows
 * high (the engine's layout for a tool whose planes is 1, tool.h).
 */
#ifndef GF_GRAD_MAX_H
#define GF_GRAD_MAX_H

#include "gf.h"
#include "gpu.h"
#include "gradient_core.h"
#include "sobel_core.h"
#include "sobel_op_core.h"
#include "strategy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most colour planes: RGB (alpha is never one). */
#define GRAD_MAX_PLANES 3

/*
 * Which of the n gradients (gx[c], gy[c]) is largest: its index, the
 * first of equals.
 */
GF_HD int
grad_max_pick(const int *gx, const int *gy, int n, int l1)
{
	int best = 0;
	uint64_t bm = grad_mag(gx[0], gy[0], l1);

	for (int c = 1; c < n; c++) {
		uint64_t m = grad_mag(gx[c], gy[c], l1);
		if (m > bm) {
			best = c;
			bm = m;
		}
	}
	return best;
}

/*
 * The norm sobel's parameters choose the channel by: --norm l1's modes
 * take |gx| + |gy|, the others (L2, and the direction) gx^2 + gy^2.
 */
GF_HD int
grad_max_l1_of(const struct sobel_params *p)
{
	return p->mode == SOBEL_MAG_L1 || p->mode == SOBEL_THRESH_L1;
}

/*
 * CPU (lib/ops/gradient/grad_max_cpu.c).  in has 1 to 4 interleaved
 * channels; its colour channels (img_colour_channels) are compared,
 * alpha ignored.
 *
 * grad_max_field_cpu: the chosen gx, gy of every pixel, operator op,
 * into field[2 * (y * width + x)] and the next int.
 */
int grad_max_field_cpu(const struct image *in, int op, int border, int l1,
    int *field, int nthreads, struct gf_err *e);

/*
 * sobel --colour max on the CPU: out (one channel, in's size and
 * maxval) gets sobel_value_op of the chosen gradient under p (p->op the
 * operator), which chooses by grad_max_l1_of(p).
 */
int sobel_max_cpu(const struct image *in, struct image *out,
    const struct sobel_params *p, int border, int nthreads, struct gf_err *e);

/*
 * The magnitude histogram of the chosen gradients (Otsu's, otsu.h):
 * hist[grad_hist_value(gx, gy, l1, maxval)] counts, maxval + 1 bins.
 */
void grad_max_hist(const int *field, size_t n, int l1, unsigned maxval,
    uint32_t *hist);

/* What grad_max_launch makes of the chosen gradient of each pixel. */
enum grad_max_kind {
	GRAD_MAX_SOBEL,         /* out = sobel_value_op(gx, gy, p) */
	GRAD_MAX_FIELD,         /* field[2 (y w + x)], field[.. + 1] = gx, gy */
	GRAD_MAX_HIST           /* bins[grad_hist_value(gx, gy, l1, maxval)] += 1 */
};

struct grad_max_dest {
	int kind;
	int l1;                 /* the norm that picks the channel */
	struct gpu_image out;   /* GRAD_MAX_SOBEL: one plane, the image's size */
	struct sobel_params p;  /* GRAD_MAX_SOBEL */
	int *field;             /* GRAD_MAX_FIELD: 2 * width * height ints */
	uint32_t *bins;         /* GRAD_MAX_HIST: maxval + 1 bins, zeroed */
};

/*
 * Kernels (kernels/grad_max.cu).  in holds n planes stacked (n * h rows
 * for an image h = in->height / n rows high); op is the operator.
 * grad_max_shape fills the defaults into l and gives the pixels one
 * block covers and its shared memory, for gpu_check_shape.  tex is the
 * texture strategy's object over the whole of in.
 */
void grad_max_shape(enum gf_strategy s, int op, struct gf_launch *l,
    int *tile_w, int *tile_h, size_t *smem);
cudaError_t grad_max_launch(enum gf_strategy s, const struct gpu_image *in,
    int n, int op, int border, const struct grad_max_dest *d,
    const struct gf_launch *l, cudaTextureObject_t tex, cudaStream_t stream);

/*
 * The host's side of those kernels.  grad_max_device: d of the n planes
 * stacked in in, strategy s (GF_AUTO: sliding) and launch shape l (0:
 * defaults), checked against g first; queued on g->stream.
 * grad_max_hist_device: the histogram of the chosen gradients (as
 * grad_max_hist) into hist (in->maxval + 1 host entries), in slot
 * GPU_SLOT_OTSU; waits for g->stream.
 */
int grad_max_device(struct gpu *g, const struct gpu_image *in, int n, int op,
    int border, const struct grad_max_dest *d, enum gf_strategy s,
    const struct gf_launch *l, struct gf_err *e);
int grad_max_hist_device(struct gpu *g, const struct gpu_image *in, int n,
    int op, int border, int l1, enum gf_strategy s, const struct gf_launch *l,
    uint32_t *hist, struct gf_err *e);

#ifdef __cplusplus
}
#endif

#endif
