/*
 * edge_tool.h - the edge tool: what its command line asks for, the CPU
 * reference and the GPU pipeline that take it, and the tool the engine
 * runs (lib/ops/edge/edge.c, lib/ops/edge/edge_cpu.c), over lib/ops/edge/edge.h's kernels.
 */
#ifndef GF_EDGE_TOOL_H
#define GF_EDGE_TOOL_H

#include "edge.h"
#include "opts.h"
#include "tool.h"

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
	int channels;           /* --colour channels: each colour channel alone */
	int max;                /* --colour max: the largest-gradient channel */
};

struct tool;

/* Describes the edge tool to the engine (lib/tool/tool.h); t->ctx is o. */
void edge_tool(struct tool *t, struct edge_opts *o);

/* The operation's parameters that o asks for (lib/ops/edge/edge.h). */
struct edge_params edge_params_for(const struct edge_opts *o);

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

#endif
