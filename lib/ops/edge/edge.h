/*
 * edge.h - the edge tool's operation, a Canny edge detector: optional
 * Gaussian smoothing (conv2d's gauss:S), sobel's gradients, non-maximum
 * suppression in four sectors, a double threshold (given, or Otsu's on
 * the magnitude histogram, lib/ops/otsu/otsu.h), and hysteresis.  The CPU
 * reference and the GPU pipeline (kernels/edge_nms.cu, edge_hyst.cu)
 * give the same image bit for bit; on the GPU the intermediates stay on
 * the device.  This header holds what the kernels need; the tool, its
 * options and its pipeline are lib/ops/edge/edge_tool.h's.
 */
#ifndef GF_EDGE_H
#define GF_EDGE_H

#include "edge_core.h"
#include "gf.h"
#include "gpu.h"
#include "strategy.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What a threshold's number is: magnitude units (--high 40), a
 * percentage of the image's range of magnitudes (--high 30%), a
 * quantile of its magnitudes (--high q0.9), or, for low only, half of
 * high as resolved (--high alone).
 */
enum edge_tkind {
	EDGE_T_VALUE,
	EDGE_T_PERCENT,
	EDGE_T_QUANTILE,
	EDGE_T_HALF
};

/*
 * What one run of the detector takes: the operation's parameters, which
 * the edge tool derives from its options (edge_params_for, edge_tool.h).
 */
struct edge_params {
	int border;             /* enum gf_border, of smoothing and gradients */
	double sigma;           /* Gaussian smoothing, 0 for none */
	int l1;                 /* |gx| + |gy| instead of the L2 magnitude */
	int auto_thresh;        /* high = Otsu's threshold, low = high / 2 */
	double low, high;       /* in the units of their kind (not auto) */
	enum edge_tkind low_kind, high_kind;
};

/* The thresholds an image used, for -v. */
struct edge_info {
	double low, high;       /* the thresholds, in magnitude units */
};

/*
 * CPU reference on a gray image (lib/ops/edge/edge_cpu.c); out gets its
 * size and maxval.  nthreads threads (0: the CPUs online); the result
 * does not depend on it.
 */
int edge_cpu(const struct image *gray, struct image *out,
    const struct edge_params *p, struct edge_info *info, int nthreads,
    struct gf_err *e);

/*
 * The core's thresholds of p (not auto_thresh, thresholds in magnitude
 * units), for the CPU and the GPU; edge_thresh_of of low and high given.
 */
struct grad_thresh edge_thresh_for(const struct edge_params *p);
struct grad_thresh edge_thresh_of(double low, double high, int l1);

/* Whether p's thresholds depend on the image's gradient histogram. */
int edge_needs_hist(const struct edge_params *p);

/*
 * The thresholds in magnitude units (info->low, info->high) of p for an
 * image whose gradient histogram (otsu_histogram_cpu's, nbins bins) is
 * hist: a percentage p of the range is min + p/100 (max - min) of the
 * occupied bins; a quantile q is the smallest magnitude v with at least
 * q of the pixels at or below it; low of kind EDGE_T_HALF is high / 2;
 * a low above high is high.  hist may be NULL when !edge_needs_hist(p).
 * The CPU and the GPU both call it on the same histogram, so their
 * thresholds are the same doubles.
 */
void edge_resolve_thresholds(const struct edge_params *p,
    const uint32_t *hist, int nbins, struct edge_info *info);

/* The conv2d filter of the smoothing stage (gauss:sigma, p's border). */
struct conv2d_filter;
int edge_smooth_filter(const struct edge_params *p, struct conv2d_filter *cp,
    struct gf_err *e);

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
    const struct gpu_image *lab, const struct grad_thresh *p,
    const struct grad_thresh *dp, int border, const struct gf_launch *l,
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
