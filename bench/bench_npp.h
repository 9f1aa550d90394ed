/*
 * bench_npp.h - NVIDIA NPP's nearest equivalents of our operations, for
 * make bench to time beside our strategies, on the same device images
 * and stream.  They are the reference ../shared/PEERS.md measures
 * against, not the same computations: each row's label says how NPP's
 * differs.
 *
 * Built only where the CUDA toolkit has npp.h: the Makefile then defines
 * GF_HAVE_NPP and links bench/bench_npp.c and NPP's libraries.
 * Elsewhere the functions below are stubs, bench_npp_open gives no NPP
 * (NULL), and the bench prints what it printed without NPP.
 */
#ifndef GF_BENCH_NPP_H
#define GF_BENCH_NPP_H

#include <stddef.h>

#include "conv2d.h"
#include "gf.h"
#include "gpu.h"

/* NPP's calls, each the peer of one of our operations. */
enum bench_npp_op {
	BENCH_NPP_SOBEL_MAG,    /* GradientVectorSobelBorder: X, Y, L2 magnitude, 16-bit */
	BENCH_NPP_SOBEL_THR,    /* the same, then CompareC of the magnitude into u8 */
	BENCH_NPP_FILTER,       /* FilterBorder: integer taps, divisor 1 */
	BENCH_NPP_GAUSS5,       /* FilterGaussBorder with NPP's fixed 5x5 mask */
	BENCH_NPP_CANNY         /* FilterCannyBorder: Sobel 3x3, L2, no smoothing */
};

/*
 * One NPP call to time: op, and what it takes besides the images.
 * thresh: SOBEL_THR's threshold (a pixel passes when its magnitude is
 * above it); low, high: CANNY's thresholds; k: FILTER's kernel (integer
 * taps, anchored at the centre, as ours; for GAUSS5, ours, named in the
 * label).  Every border is replicate.
 */
struct bench_npp_call {
	enum bench_npp_op op;
	int thresh;
	int low, high;
	const struct kspec *k;
};

/* NPP's stream context and buffers for one image size (bench_npp.c). */
struct bench_npp;

#ifdef GF_HAVE_NPP

/*
 * NPP on g's stream, reading the device image in and writing out (8-bit,
 * one size), with the buffers its calls need for that size: *n, or -1
 * with the reason in e.  in and out are kept by value: they must stay
 * allocated until bench_npp_close.
 */
int bench_npp_open(struct bench_npp **n, struct gpu *g,
    const struct gpu_image *in, const struct gpu_image *out, struct gf_err *e);

/* The table row's label of call c (NPP's function, and how it differs). */
void bench_npp_label(const struct bench_npp_call *c, char *buf, size_t size);

/*
 * Times call c as bench_median times ours: warmup calls, then the
 * median of runs, each timed with CUDA events on g's stream, in ms.
 */
int bench_npp_time(struct bench_npp *n, const struct bench_npp_call *c,
    int warmup, int runs, double *ms, struct gf_err *e);

/* Frees what bench_npp_open took; n may be NULL.  -1 if a free failed. */
int bench_npp_close(struct bench_npp *n, struct gf_err *e);

#else /* no npp.h: no NPP, and nothing of it is ever called */

static inline int
bench_npp_open(struct bench_npp **n, struct gpu *g,
    const struct gpu_image *in, const struct gpu_image *out, struct gf_err *e)
{
	(void)g, (void)in, (void)out, (void)e;
	*n = NULL;
	return 0;
}

static inline void
bench_npp_label(const struct bench_npp_call *c, char *buf, size_t size)
{
	(void)c;
	if (size > 0)
		buf[0] = '\0';
}

static inline int
bench_npp_time(struct bench_npp *n, const struct bench_npp_call *c,
    int warmup, int runs, double *ms, struct gf_err *e)
{
	(void)n, (void)c, (void)warmup, (void)runs;
	*ms = 0;
	return gf_fail(e, "this bench was built without NPP (no npp.h in the CUDA toolkit)");
}

static inline int
bench_npp_close(struct bench_npp *n, struct gf_err *e)
{
	(void)n, (void)e;
	return 0;
}

#endif

#endif
