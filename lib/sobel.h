/*
 * sobel.h - the sobel tool's operation: gradient magnitude or edge map of
 * a gray image, on the CPU (the reference) or the GPU (any strategy).
 */
#ifndef GF_SOBEL_H
#define GF_SOBEL_H

#include "gf.h"
#include "gpu.h"
#include "opts.h"
#include "sobel_core.h"
#include "strategy.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gf_times;

/*
 * What the command line asked for: the shared options (border, strategy,
 * launch shape, -j) and sobel's own; the per-image parameters (struct
 * sobel_params) derive from it.
 */
struct sobel_opts {
	struct gf_opts common;
	int l1;                 /* --norm l1 */
	int threshold;          /* -t given */
	int threshold_auto;     /* -t auto: Otsu's threshold per image */
	double t;
};

/* The core's parameters for an image of maxval m and threshold t. */
struct sobel_params sobel_params_for(const struct sobel_opts *o, unsigned m,
    double t);

/*
 * CPU reference on a gray image; out gets the same size and maxval.
 * nthreads threads (0: the CPUs online); the result does not depend on it.
 */
int sobel_cpu(const struct image *gray, struct image *out,
    const struct sobel_params *p, int border, int nthreads, struct gf_err *e);

/*
 * The tool's filter on the CPU (lib/sobel_cpu.c): -t auto, then
 * sobel_cpu with o->threads; fills t->cpu.
 */
/*
 * Rows y-1, y, y+1 of a gray image through the border rule, for the CPU
 * paths: r[k] points at a row of gray, or at zero (a row of zeros) where
 * the zero border reads outside.
 */
void sobel_rows_at(const struct image *gray, int y, int border,
    const void *zero, const void *r[3]);

/*
 * Row y of sobel's output for p into o (a row of gray's sample type): the
 * CPU path's step, also edge's gradient histogram.  zero is a row of
 * zeros as wide as gray; grad is 2 * width ints of scratch for 16-bit
 * images (NULL will do for 8-bit ones).
 */
void sobel_row_cpu(const struct image *gray, int y, const struct sobel_params *p,
    int border, const void *zero, int *grad, void *o);

/*
 * gx and gy of every column 0..w-1 of the middle row of r (samples
 * 16-bit when wide, else 8-bit), the border rule applied to columns.
 */
void sobel_grad_row(const void *const r[3], int wide, int w, int border,
    int *gx, int *gy);

/* GPU, device to device, with strategy s and launch shape l (0: defaults). */
int sobel_gpu(struct gpu *g, const struct gpu_image *in,
    const struct gpu_image *out, const struct sobel_params *p, int border,
    enum gf_strategy s, const struct gf_launch *l, struct gf_err *e);

struct tool;

/* Describes the sobel tool to the engine (lib/tool.h); t->ctx is o. */
void sobel_tool(struct tool *t, struct sobel_opts *o);

/*
 * Kernels (kernels/sobel.cu).  sobel_shape fills the defaults for a
 * width x height image into l and gives the pixels one block covers and
 * its shared memory, for checks before sobel_launch.
 */
void sobel_shape(enum gf_strategy s, unsigned maxval, int width, int height,
    struct gf_launch *l, int *tile_w, int *tile_h, size_t *smem);
cudaError_t sobel_launch(enum gf_strategy s, const struct gpu_image *in,
    const struct gpu_image *out, const struct sobel_params *p, int border,
    const struct gf_launch *l, cudaTextureObject_t tex, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
