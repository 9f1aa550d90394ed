/*
 * otsu.h - Otsu's threshold on a histogram: the value t that splits the
 * bins into [0, t] and [t+1, nbins-1] with the largest between-class
 * variance, and the histogram of sobel's gradient magnitude it is taken
 * of.  Used by edge --auto and sobel -t auto.  The score is a GF_HD
 * function so that the GPU search (kernels/otsu.cu) computes the very
 * same doubles from the very same integer prefix sums, and the CPU and
 * GPU thresholds are equal.
 *
 * This header is read by C11 and by CUDA C++; keep it to plain C.
 */
#ifndef GF_OTSU_H
#define GF_OTSU_H

#include "gf.h"
#include "gpu.h"
#include "gradient_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest number of bins: one per value of a 16-bit sample. */
#define OTSU_MAX_BINS 65536

/*
 * The score of splitting after bin t, where n0 pixels with value sum s0
 * lie in [0, t] and n pixels with value sum s in all bins:
 *   -1 when [0, t] is empty (t below the smallest value),
 *    0 when [t+1, ..] is empty (t at or above the largest value),
 *   else n0 n1 (mu0 - mu1)^2 > 0, the between-class variance times n^2.
 * Taking the first t with the largest score therefore gives the best
 * split, or, with a single occupied value v, t = v (nothing above t),
 * or 0 for an empty histogram.  Sums are exact integers; the doubles
 * are computed in one fixed order without contraction on every path.
 */
GF_HD double
otsu_score(uint64_t n0, uint64_t s0, uint64_t n, uint64_t s)
{
	uint64_t n1 = n - n0, s1 = s - s0;
	double mu0, mu1, d;

	if (n0 == 0)
		return -1.0;
	if (n1 == 0)
		return 0.0;
	mu0 = (double)s0 / (double)n0;
	mu1 = (double)s1 / (double)n1;
	d = mu0 - mu1;
	return (double)n0 * (double)n1 * (d * d);
}

/*
 * Otsu's threshold of hist[0..nbins-1] (1 <= nbins <= OTSU_MAX_BINS;
 * bin i counts the pixels of value i): the t in [0, nbins-1] of
 * otsu_score's rule.  Pixels "above the threshold" are those with value
 * > t, which is how sobel -t and edge --high read it.
 */
uint32_t otsu_threshold(const uint32_t *hist, int nbins);

/*
 * Histogram of sobel's gradient magnitude of gray (every pixel, border
 * rule border): hist[v] for v = 0..gray->maxval counts the pixels whose
 * magnitude, min(maxval, round(sqrt(gx^2 + gy^2))) or min(maxval,
 * |gx| + |gy|) with l1, is v.  hist has gray->maxval + 1 entries.
 * nthreads threads (0: the CPUs online); lib/ops/otsu/otsu_cpu.c.
 */
int otsu_histogram_cpu(const struct image *gray, int border, int l1,
    uint32_t *hist, int nthreads, struct gf_err *e);

/*
 * Otsu's threshold of that histogram into *t: sobel -t auto uses -t *t;
 * edge --auto uses high = *t, low = *t / 2.  otsu_gpu works on a device
 * image and gives the same *t as otsu_cpu.
 */
int otsu_cpu(const struct image *gray, int border, int l1, uint32_t *t,
    int nthreads, struct gf_err *e);
int otsu_gpu(struct gpu *g, const struct gpu_image *in, int border, int l1,
    uint32_t *t, struct gf_err *e);

/* Device memory of one search (slot GPU_SLOT_OTSU): its bins and results. */
struct otsu_device {
	uint32_t bins[OTSU_MAX_BINS];
	struct grad_thresh p;   /* the double threshold of t (grad_thresh_auto) */
	uint32_t t;             /* the threshold */
};

/*
 * Queues the histogram of in and the search on g->stream without
 * waiting; *d (in slot GPU_SLOT_OTSU) then holds the threshold and
 * edge --auto's parameters once the stream gets there.
 */
int otsu_queue(struct gpu *g, const struct gpu_image *in, int border, int l1,
    struct otsu_device **d, struct gf_err *e);

/*
 * Kernels (kernels/otsu.cu).  otsu_launch_hist adds the magnitude
 * histogram of in to bins[0..in->maxval] (zeroed by the caller): for
 * 16-bit images with nblocks blocks, privatized in shared memory when
 * priv (needs (maxval + 1) * 4 bytes of it), else with global atomics;
 * 8-bit images always count in shared memory, in at least nblocks
 * blocks where the image is large enough.
 * otsu_launch_search puts Otsu's threshold of bins[0..nbins-1] into *dt,
 * and grad_thresh_auto(*dt) into *dp.
 */
cudaError_t otsu_launch_hist(const struct gpu_image *in, int border, int l1,
    uint32_t *bins, int nblocks, int priv, cudaStream_t stream);
cudaError_t otsu_launch_search(const uint32_t *bins, int nbins, int l1,
    uint32_t *dt, struct grad_thresh *dp, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
