/*
 * edge_tool.h - the edge tool: what its command line asks for, the CPU
 * reference and the GPU pipeline that take it, and the tool the engine
 * runs (lib/edge.c, lib/edge_cpu.c), over lib/edge.h's kernels.
 */
#ifndef GF_EDGE_TOOL_H
#define GF_EDGE_TOOL_H

#include "edge.h"
#include "opts.h"
#include "tool.h"

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
 * What the command line asked for: the shared options (the border of
 * smoothing and gradients, strategy, launch shape, -j) and edge's own;
 * the per-image thresholds (struct grad_thresh) derive from it.
 */
struct edge_opts {
	struct gf_opts common;
	double sigma;           /* --sigma: Gaussian smoothing, 0 for none */
	int l1;                 /* --l1: |gx| + |gy| instead of the L2 magnitude */
	int auto_thresh;        /* --auto: high = Otsu's threshold, low = high / 2 */
	double low, high;       /* --low, --high, in the units of their kind */
	enum edge_tkind low_kind, high_kind;
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

/*
 * edge(1)'s rules for its options, for the tool and libgpufilt alike:
 * a sigma is 0 (no smoothing) or at least GF_MIN_SIGMA; the thresholds
 * are --low and --high, --high alone (low = high / 2), or --auto, also
 * the default when neither is given (have_low, have_high: given).
 */
int edge_check_sigma(double sigma, struct gf_err *e);
int edge_settle_thresholds(struct edge_opts *o, int have_low, int have_high,
    struct gf_err *e);

/*
 * Parses a --low or --high value: N, N% (0 to 100) or qF (F 0 to 1);
 * quantiles, with a plain number taken as a quantile (--quantiles).
 */
int edge_parse_thresh(const char *s, const char *what, int quantiles,
    double *v, enum edge_tkind *kind, struct gf_err *e);

/* Whether o's thresholds depend on the image's gradient histogram. */
int edge_needs_hist(const struct edge_opts *o);

/*
 * The thresholds in magnitude units (info->low, info->high) of o for an
 * image whose gradient histogram (otsu_histogram_cpu's, nbins bins) is
 * hist: a percentage p of the range is min + p/100 (max - min) of the
 * occupied bins; a quantile q is the smallest magnitude v with at least
 * q of the pixels at or below it; low of kind EDGE_T_HALF is high / 2;
 * a low above high is high.  hist may be NULL when !edge_needs_hist(o).
 * The CPU and the GPU both call it on the same histogram, so their
 * thresholds are the same doubles.
 */
void edge_resolve_thresholds(const struct edge_opts *o,
    const uint32_t *hist, int nbins, struct edge_info *info);

/* The stored double threshold of low and high in magnitude units. */
struct grad_thresh edge_params_of(double low, double high, int l1);

/* The thresholds of o for an image (not --auto, nor of the histogram). */
struct grad_thresh edge_params_for(const struct edge_opts *o);

#endif
