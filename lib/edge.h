/*
 * edge.h - the edge tool's operation, a Canny edge detector: optional
 * Gaussian smoothing (conv2d's gauss:S), sobel's gradients, non-maximum
 * suppression in four sectors, a double threshold (given, or Otsu's on
 * the magnitude histogram, lib/otsu.h), and hysteresis.  The CPU
 * reference and the GPU pipeline (kernels/edge_nms.cu, edge_hyst.cu)
 * give the same image bit for bit; on the GPU the intermediates stay on
 * the device.
 */
#ifndef GF_EDGE_H
#define GF_EDGE_H

#include "edge_core.h"
#include "gf.h"
#include "gpu.h"
#include "opts.h"
#include "strategy.h"
#include "tool.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What the command line asked for: the shared options (the border of
 * smoothing and gradients, strategy, launch shape, -j) and edge's own;
 * the per-image thresholds (struct edge_params) derive from it.
 */
struct edge_opts {
	struct gf_opts common;
	double sigma;           /* --sigma: Gaussian smoothing, 0 for none */
	int l1;                 /* --l1: |gx| + |gy| instead of the L2 magnitude */
	int auto_thresh;        /* --auto: high = Otsu's threshold, low = high / 2 */
	double low, high;       /* --low, --high, magnitude units, low <= high */
};

/* The thresholds an image used, for -v. */
struct edge_info {
	double low, high;       /* the thresholds, in magnitude units */
};

struct tool;

/* Describes the edge tool to the engine (lib/tool.h); t->ctx is o. */
void edge_tool(struct tool *t, struct edge_opts *o);

/*
 * CPU reference on a gray image (lib/edge_cpu.c); out gets its size and
 * maxval.  nthreads threads (0: the CPUs online); the result does not
 * depend on it.
 */
int edge_cpu(const struct image *gray, struct image *out,
    const struct edge_opts *o, struct edge_info *info, int nthreads,
    struct gf_err *e);

/* The conv2d parameters of the smoothing stage (gauss:sigma, o's border). */
struct conv2d_filter;
int edge_smooth_params(const struct edge_opts *o, struct conv2d_filter *cp,
    struct gf_err *e);

/*
 * The stages after the upload, device to device: in (gray) to out (its
 * size and maxval), intermediates in slots GPU_SLOT_SMOOTHED, _CLASSES,
 * _OTSU and _HYST.  Used by
 * the tool and by the bench.
 */
int edge_run_device(struct gpu *g, const struct gpu_image *in,
    const struct gpu_image *out, const struct edge_opts *o,
    struct edge_info *info, struct gf_err *e);

/* The thresholds of o for an image (not --auto). */
struct edge_params edge_params_for(const struct edge_opts *o);

/*
 * Kernels (kernels/edge_nms.cu).  edge_nms_shape fills the defaults for
 * a width x height image into l (sliding's default rows shrink on small
 * images so that the grid keeps the GPU busy) and gives the pixels one
 * block covers and its shared memory, for checks before edge_launch_nms,
 * which writes the classes (enum edge_class) of every pixel of the gray
 * image in into lab (8 bit, in's size).  The thresholds are *dp (device
 * memory) when dp is not NULL, else *p.
 */
void edge_nms_shape(enum gf_strategy s, unsigned maxval, int width, int height,
    struct gf_launch *l, int *tile_w, int *tile_h, size_t *smem);
cudaError_t edge_launch_nms(enum gf_strategy s, const struct gpu_image *in,
    const struct gpu_image *lab, const struct edge_params *p,
    const struct edge_params *dp, int border, const struct gf_launch *l,
    cudaTextureObject_t tex, cudaStream_t stream);

/*
 * Hysteresis as connected-component labelling, a fixed number of
 * launches without waiting (see kernels/edge_hyst.cu): lab holds the
 * classes (only read), out gets maxval on the edges and 0 elsewhere.
 * scratch is edge_hyst_scratch(width, height) bytes of device memory,
 * 256-byte aligned.  Tiles are EDGE_HYST_TILE pixels square; the
 * union-find has EDGE_HYST_CAP nodes per tile, so the number of tiles
 * times EDGE_HYST_CAP must fit 32 bits.
 */
#define EDGE_HYST_TILE 32
#define EDGE_HYST_CAP 64
size_t edge_hyst_scratch(int width, int height);
cudaError_t edge_launch_hyst(const struct gpu_image *lab,
    const struct gpu_image *out, void *scratch, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
