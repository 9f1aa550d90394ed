/*
 * edge_max.h - edge --colour max: Canny on the gradient of the colour
 * channel whose gradient is largest at each pixel (grad_max.h), as
 * OpenCV's Canny does on a colour image.  Each colour channel is
 * smoothed alone (--sigma, conv2d's gauss:S), the chosen gx, gy of every
 * pixel kept as a field, and suppression, the double threshold and
 * hysteresis run on it as on a gray image's (edge_core.h's rules);
 * --auto and the percentages and quantiles take the histogram of the
 * chosen gradient's magnitude.  The CPU reference (lib/ops/edge/
 * edge_max.c) and the GPU pipeline agree bit for bit.
 */
#ifndef GF_EDGE_MAX_H
#define GF_EDGE_MAX_H

#include "edge.h"
#include "grad_max.h"

#ifdef __cplusplus
extern "C" {
#endif

struct edge_opts;

/*
 * CPU reference on in (1 to 4 interleaved channels; its colour
 * channels are compared, alpha ignored): out gets one channel, in's size
 * and maxval.
 */
int edge_max_cpu(const struct image *in, struct image *out,
    const struct edge_params *p, struct edge_info *info, int nthreads,
    struct gf_err *e);

/*
 * The GPU pipeline on n colour planes stacked in in (grad_max.h's
 * layout), into out (one plane, the image's size), o's strategy for the
 * smoothing and the gradients.  Waits for the stream where a threshold
 * comes of the histogram.
 */
int edge_max_device(struct gpu *g, const struct gpu_image *in, int n,
    const struct gpu_image *out, const struct edge_opts *o,
    struct edge_info *info, struct gf_err *e);

/*
 * The classes (enum edge_class) of a width x height field of gradients
 * (int gx, gy a pixel) for thresholds p: edge_classify on the field's
 * magnitudes, EDGE_NONE on the outer frame.  On the CPU into lab
 * (width x height bytes), and kernels/edge_max.cu's kernel into the
 * 8-bit device image lab.
 */
void edge_max_classify_cpu(const int *field, int width, int height,
    const struct grad_thresh *p, uint8_t *lab);
cudaError_t edge_max_launch_nms(const int *field, const struct gpu_image *lab,
    const struct grad_thresh *p, cudaStream_t stream);

/*
 * edge_cpu's end (lib/ops/edge/edge_cpu.c): hysteresis on the classes
 * lab of an image like like, then out (allocated, one channel) maxval
 * on the edges.
 */
int edge_finish_cpu(uint8_t *lab, const struct image *like, struct image *out,
    struct gf_err *e);

/*
 * Hysteresis on the device (lib/ops/edge/edge.c): the classes lab to
 * out, maxval on the edges, queued without waiting.
 */
int edge_hysteresis_device(struct gpu *g, const struct gpu_image *lab,
    const struct gpu_image *out, struct gf_err *e);

#ifdef __cplusplus
}
#endif

#endif
