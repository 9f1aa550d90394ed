/*
 * pool.h - what the CPU filters share: machine-code clones of their row
 * loops, and threads: a call runs a function over the bands of an image
 * on a few threads and returns when every band is done.  Nothing is
 * kept between calls: the threads live for one call.
 */
#ifndef GF_POOL_H
#define GF_POOL_H

#include "gf.h"

/*
 * Marks a row loop of a CPU filter for a second, AVX2 + FMA machine-code
 * version chosen at run time; the binary stays baseline x86-64.  Both
 * versions do the same IEEE operations (fmaf is fused either way), so
 * they give the same bits.
 */
#ifndef GF_CLONES       /* -DGF_CLONES= builds the baseline loops alone */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GF_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define GF_CLONES
#endif
#endif

/* Most threads one call may use (-j's upper bound). */
#define POOL_MAX_THREADS 1024

/*
 * Works on band number band (0..nbands-1) with the calling thread's
 * scratch memory (pool_run's scratch bytes, reused by every band the
 * thread takes); returns 0, or -1 on failure, which pool_run reports.
 * Bands must be independent: any band may run on any thread in any
 * order.
 */
typedef int (*pool_fn)(void *arg, int band, void *scratch);

/* The threads a call uses for asked (0: the CPUs online), 1..POOL_MAX_THREADS. */
int pool_threads(int asked);

/*
 * The threads worth starting for work of px pixels of about sobel's
 * cost each (a costlier filter counts each of its pixels as several):
 * pool_threads(asked), but one for each POOL_PIXELS of work at most, and
 * at least one.  Starting and joining a thread costs about what sobel
 * does on that many pixels, so that a small image on a machine of many
 * cores would wait for its threads more than it gains from them; the
 * bytes are the same with any number of threads.
 */
#define POOL_PIXELS (1 << 17)
int pool_threads_for(int asked, double px);

/*
 * Runs fn(arg, b, scratch) for every b in 0..nbands-1 on up to nthreads
 * threads (0: the CPUs online), the calling thread among them, and
 * waits for all.  Each thread has scratch bytes of its own (64-byte
 * aligned, not zeroed), all allocated here before any thread starts:
 * band functions do not allocate, so a run never depends on what a
 * many-threaded malloc can get (per-thread arenas under a small
 * ulimit -v).  Returns -1 if that allocation fails or any band returned
 * -1; a thread that cannot be started only means fewer threads.
 */
int pool_run(int nthreads, int nbands, size_t scratch, pool_fn fn, void *arg);

/*
 * The bands of n rows for nthreads threads: a few per thread so that
 * uneven bands even out, none under min_rows rows (at least 1 band).
 */
int pool_bands(int n, int nthreads, int min_rows);

/* Rows [*y0, *y1) of band b of nbands over n rows. */
void pool_band_rows(int n, int nbands, int b, int *y0, int *y1);

#endif
