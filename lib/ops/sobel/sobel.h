/*
 * sobel.h - the sobel operation: gradient magnitude or edge map of a gray
 * image for given parameters, on the CPU (the reference) or the GPU (any
 * strategy), and its kernels' launchers.  What the kernels include: no
 * command-line options here (those are lib/ops/sobel/sobel_tool.h's).
 */
#ifndef GF_SOBEL_H
#define GF_SOBEL_H

#include "gf.h"
#include "gpu.h"
#include "sobel_core.h"
#include "strategy.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gf_times;

/*
 * CPU reference on a gray image; out gets the same size and p->maxval
 * (the input's, or 65535 for the signed gradients and --depth 16).
 * nthreads threads (0: the CPUs online); the result does not depend on it.
 */
int sobel_cpu(const struct image *gray, struct image *out,
    const struct sobel_params *p, int border, int nthreads, struct gf_err *e);

/*
 * The same for an operator other than the 3x3 Sobel (p->op,
 * sobel_op_core.h) or the direction (sobel_op_path): sobel_cpu's work
 * then (lib/ops/sobel/sobel_op_cpu.c).
 */
int sobel_op_cpu(const struct image *gray, struct image *out,
    const struct sobel_params *p, int border, int nthreads, struct gf_err *e);

/*
 * Row y of sobel's output for p into o (a row of gray's sample type): the
 * CPU path's step, also Otsu's magnitude histogram.  zero is a row of
 * zeros as wide as gray; grad is 2 * width ints of scratch for 16-bit
 * images (NULL will do for 8-bit ones).
 */
void sobel_row_cpu(const struct image *gray, int y, const struct sobel_params *p,
    int border, const void *zero, int *grad, void *o);

/* GPU, device to device, with strategy s and launch shape l (0: defaults). */
int sobel_gpu(struct gpu *g, const struct gpu_image *in,
    const struct gpu_image *out, const struct sobel_params *p, int border,
    enum gf_strategy s, const struct gf_launch *l, struct gf_err *e);

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

/*
 * The operators' kernels (kernels/sobel_op.cu), for the parameters of
 * sobel_op_path: as sobel_shape and sobel_launch, with an apron of the
 * operator's radius.
 */
void sobel_op_shape(enum gf_strategy s, int op, unsigned maxval,
    struct gf_launch *l, int *tile_w, int *tile_h, size_t *smem);
cudaError_t sobel_op_launch(enum gf_strategy s, const struct gpu_image *in,
    const struct gpu_image *out, const struct sobel_params *p, int border,
    const struct gf_launch *l, cudaTextureObject_t tex, cudaStream_t stream);

/*
 * The wider outputs' kernels (kernels/sobel_wide.cu): 16-bit samples of
 * an 8-bit image (sobel_wide_path), for every operator, as
 * sobel_op_launch, in sobel_op_shape's shapes (the input's).
 */
cudaError_t sobel_wide_launch(enum gf_strategy s, const struct gpu_image *in,
    const struct gpu_image *out, const struct sobel_params *p, int border,
    const struct gf_launch *l, cudaTextureObject_t tex, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
