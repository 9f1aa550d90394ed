/*
 * bench.h - timing kernels for make bench: a plain copy kernel as the
 * yardstick, and the median of many CUDA-event-timed runs of any launch.
 */
#ifndef GF_BENCH_H
#define GF_BENCH_H

#include "gf.h"
#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Copies bytes (a multiple of 16) from src to dst on the device. */
cudaError_t bench_copy_launch(const void *src, void *dst, size_t bytes,
    int sm_count, cudaStream_t stream);

/* One launch of the thing timed; returns -1 with e on failure. */
typedef int (*bench_fn)(struct gpu *g, void *arg, struct gf_err *e);

/*
 * Runs fn warmup times, then times runs launches one by one with CUDA
 * events and gives the median in ms.
 */
int bench_median(struct gpu *g, bench_fn fn, void *arg, int warmup, int runs,
    double *ms, struct gf_err *e);

#ifdef __cplusplus
}
#endif

#endif
