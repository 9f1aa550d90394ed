/*
 * otsu.cu - the gradient magnitude histogram and Otsu's threshold on the
 * GPU, for sobel -t auto and edge --auto.  Histogram: for 8-bit images
 * each thread slides three packed rows down a 16-pixel column strip
 * (16-byte loads and float column sums, as edge's 8-bit suppression
 * does) and counts into its warp's bins in shared memory; 16-bit images
 * (up to 65536 bins) go one pixel per thread.  Either way the block's
 * bins are merged into the global bins with atomics.  Otsu: one
 * block, a scan of the bins' counts and sums, then an argmax reduction
 * (sequential addressing, first step during the load, the last warp by
 * shuffles).  Scores come from otsu_score (lib/ops/otsu/otsu.h), so the threshold
 * equals the CPU's (lib/ops/otsu/otsu.c).
 */
#include "gradient.cuh"
#include "otsu.h"
#include "stencil.cuh"

#define HIST_THREADS 256

template <typename T>
__global__ void
otsu_hist(gpu_image in, int border, int l1, uint32_t *bins, int priv)
{
	extern __shared__ uint32_t sbins[];
	const int nbins = (int)in.maxval + 1;
	const size_t n = (size_t)in.width * in.height;
	px_global<T> src = {in, border};

	if (priv)
		for (int i = threadIdx.x; i < nbins; i += blockDim.x)
			sbins[i] = 0;
	__syncthreads();
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	    i += (size_t)gridDim.x * blockDim.x) {
		int x = (int)(i % in.width), y = (int)(i / in.width), gx, gy;
		grad_at(src, x, y, &gx, &gy);
		uint32_t v = grad_hist_value(gx, gy, l1, in.maxval);
		atomicAdd(priv ? &sbins[v] : &bins[v], 1u);
	}
	if (!priv)
		return;
	__syncthreads();
	for (int i = threadIdx.x; i < nbins; i += blockDim.x)
		if (sbins[i] != 0)
			atomicAdd(&bins[i], sbins[i]);
}

/* The 8-bit strip kernel's block: 32 x 8 threads, each 16 columns wide. */
#define HIST8_BW 32
#define HIST8_BH 8
#define HIST8_BINS 256

/*
 * Counts the magnitudes of one row of a strip (packed input rows w0, w1,
 * w2 around it) into bins wb: all 16 columns, or with CLIP only the
 * first n (the strip that reaches the image's right edge).
 */
template <int L1, bool CLIP>
__device__ __forceinline__ void
hist_row8(const uint32_t *w0, const uint32_t *w1, const uint32_t *w2,
    uint32_t *wb, float m, int n)
{
	float s0 = 0, s1 = 0, d0 = 0, d1 = 0;   /* sums of columns c-2, c-1 */
#pragma unroll
	for (int c = 1; c < 19; c++) {          /* packed column c: x0 - 2 + c */
		float s2, d2;
		sobel_cols8(w0[c >> 2], w1[c >> 2], w2[c >> 2], c & 3, &s2, &d2);
		if (c >= 3 && (!CLIP || c - 3 < n))
			atomicAdd(&wb[gf_unbias23(grad_hist_biased8(s2 - s0,
			    fmaf(2.0f, d1, d0) + d2, L1, m))], 1u);
		s0 = s1, s1 = s2;
		d0 = d1, d1 = d2;
	}
}

/*
 * 8-bit images: thread (tx, ty) counts the magnitudes of columns x0 ..
 * x0+15 and rows ys .. ys+rows-1 into its warp's copy of the bins,
 * sliding packed input rows y-1, y, y+1 down the strip (16-byte loads,
 * pack_row8) and taking the gradients from column sums in float, as
 * edge's 8-bit suppression does; then the block adds each bin's total
 * to the global bins.  A bin is the low bits of grad_hist_biased8's
 * float (gf_unbias23).  The counts are those of otsu_hist: a histogram
 * does not depend on the order of its additions.  One atomic a pixel is not
 * what bounds it: counting each run of equal magnitudes with one atomic
 * made edge --auto slower.
 */
template <int L1>
__global__ void
__launch_bounds__(HIST8_BW * HIST8_BH, 3)
otsu_hist8(gpu_image in, int border, uint32_t *bins, int rows)
{
	__shared__ uint32_t sbins[HIST8_BW * HIST8_BH / 32][HIST8_BINS];
	const int tid = threadIdx.y * HIST8_BW + threadIdx.x, nb = (int)in.maxval + 1;
	const int x0 = (blockIdx.x * HIST8_BW + threadIdx.x) * 16;
	const int ys = (blockIdx.y * HIST8_BH + threadIdx.y) * rows;
	const int ye = min(ys + rows, in.height);
	const float m = (float)in.maxval;
	uint32_t *wb = sbins[tid / 32];

	for (int i = tid; i < HIST8_BW * HIST8_BH / 32 * HIST8_BINS; i += HIST8_BW * HIST8_BH)
		(&sbins[0][0])[i] = 0;
	__syncthreads();
	if (x0 < in.width && ys < ye) {
		const rows_global8 load = {in, x0, border};
		const int n = in.width - x0;    /* columns of the strip in the image */
		uint32_t w0[5], w1[5];
		load(ys - 1, w0);
		load(ys, w1);
		for (int y = ys; y < ye; y++) {
			uint32_t w2[5];
			load(y + 1, w2);
			if (n >= 16)
				hist_row8<L1, false>(w0, w1, w2, wb, m, n);
			else
				hist_row8<L1, true>(w0, w1, w2, wb, m, n);
#pragma unroll
			for (int k = 0; k < 5; k++) {
				w0[k] = w1[k];
				w1[k] = w2[k];
			}
		}
	}
	__syncthreads();
	for (int i = tid; i < nb; i += HIST8_BW * HIST8_BH) {
		uint32_t t = 0;
#pragma unroll
		for (int w = 0; w < HIST8_BW * HIST8_BH / 32; w++)
			t += sbins[w][i];
		if (t != 0)
			atomicAdd(&bins[i], t);
	}
}

/*
 * The 8-bit launch: blocks of strips, at least nblocks of them where the
 * image allows (1 to 16 rows per thread: a short strip per thread keeps
 * a large image at several waves of blocks, so no wave runs half empty).
 */
static cudaError_t
otsu_launch_hist8(const struct gpu_image *in, int border, int l1,
    uint32_t *bins, int nblocks, cudaStream_t stream)
{
	const int bx = (in->width + 16 * HIST8_BW - 1) / (16 * HIST8_BW);
	const int by_want = (nblocks + bx - 1) / bx;
	int rows = (in->height + by_want * HIST8_BH - 1) / (by_want * HIST8_BH);

	rows = rows < 1 ? 1 : rows > 16 ? 16 : rows;
	dim3 grid(bx, (in->height + rows * HIST8_BH - 1) / (rows * HIST8_BH));
	if (l1)
		otsu_hist8<1><<<grid, dim3(HIST8_BW, HIST8_BH), 0, stream>>>(*in,
		    border, bins, rows);
	else
		otsu_hist8<0><<<grid, dim3(HIST8_BW, HIST8_BH), 0, stream>>>(*in,
		    border, bins, rows);
	return cudaGetLastError();
}

extern "C" cudaError_t
otsu_launch_hist(const struct gpu_image *in, int border, int l1,
    uint32_t *bins, int nblocks, int priv, cudaStream_t stream)
{
	size_t smem = priv ? ((size_t)in->maxval + 1) * sizeof(uint32_t) : 0;

	if (in->maxval <= 255)
		return otsu_launch_hist8(in, border, l1, bins, nblocks, stream);
	otsu_hist<uint16_t><<<nblocks, HIST_THREADS, smem, stream>>>(*in, border,
	    l1, bins, priv);
	return cudaGetLastError();
}

#define OTSU_THREADS 1024

/* (score a, bin ia) beats (b, ib): higher score, or equal and first. */
__device__ __forceinline__ bool
otsu_better(double a, int ia, double b, int ib)
{
	return a > b || (a == b && ia < ib);
}

/*
 * Inclusive scan of (count, sum) over the block (Hillis-Steele: read,
 * barrier, add, barrier).  Every thread calls it.
 */
__device__ void
otsu_scan(unsigned long long *sn, unsigned long long *ss)
{
	const int tid = threadIdx.x;

	for (int off = 1; off < OTSU_THREADS; off <<= 1) {
		unsigned long long a = tid >= off ? sn[tid - off] : 0;
		unsigned long long b = tid >= off ? ss[tid - off] : 0;
		__syncthreads();
		sn[tid] += a;
		ss[tid] += b;
		__syncthreads();
	}
}

/* Argmax of (sbest, sidx) over the block into lane 0 of warp 0's registers. */
__device__ void
otsu_argmax(double *sbest, int *sidx, double *best, int *bi)
{
	const int tid = threadIdx.x;

	for (int s = OTSU_THREADS / 2; s >= 32; s >>= 1) {
		if (tid < s && otsu_better(sbest[tid + s], sidx[tid + s], sbest[tid],
		    sidx[tid])) {
			sbest[tid] = sbest[tid + s];
			sidx[tid] = sidx[tid + s];
		}
		__syncthreads();
	}
	if (tid >= 32)
		return;
	*best = sbest[tid];
	*bi = sidx[tid];
	for (int off = 16; off > 0; off >>= 1) {
		double ob = __shfl_down_sync(0xffffffffu, *best, off);
		int oi = __shfl_down_sync(0xffffffffu, *bi, off);
		if (otsu_better(ob, oi, *best, *bi)) {
			*best = ob;
			*bi = oi;
		}
	}
}

/*
 * One block.  Each thread owns a run of consecutive bins: it sums them
 * while loading (the first reduction step), the block scans those sums
 * for the prefix counts, each thread scores its bins with otsu_score()
 * in order keeping the first best, and the block reduces to the first
 * best overall: the CPU's answer.
 */
__global__ void
__launch_bounds__(OTSU_THREADS)
otsu_search(const uint32_t *bins, int nbins, int l1, uint32_t *dt,
    struct grad_thresh *dp)
{
	__shared__ unsigned long long sn[OTSU_THREADS], ss[OTSU_THREADS];
	__shared__ double sbest[OTSU_THREADS];
	__shared__ int sidx[OTSU_THREADS];
	const int tid = threadIdx.x, run = (nbins + OTSU_THREADS - 1) / OTSU_THREADS;
	const int lo = min(tid * run, nbins), hi = min(lo + run, nbins);
	unsigned long long n = 0, s = 0;

	for (int i = lo; i < hi; i++) {
		n += bins[i];
		s += (unsigned long long)i * bins[i];
	}
	sn[tid] = n;
	ss[tid] = s;
	__syncthreads();
	otsu_scan(sn, ss);
	unsigned long long total_n = sn[OTSU_THREADS - 1], total_s = ss[OTSU_THREADS - 1];
	unsigned long long n0 = sn[tid] - n, s0 = ss[tid] - s;
	double best = -2.0;
	int bi = nbins;
	for (int i = lo; i < hi; i++) {
		n0 += bins[i];
		s0 += (unsigned long long)i * bins[i];
		double score = otsu_score(n0, s0, total_n, total_s);
		if (score > best) {
			best = score;
			bi = i;
		}
	}
	sbest[tid] = best;
	sidx[tid] = bi;
	__syncthreads();
	otsu_argmax(sbest, sidx, &best, &bi);
	if (tid == 0) {
		*dt = (uint32_t)bi;
		grad_thresh_auto((uint32_t)bi, l1, dp);
	}
}

extern "C" cudaError_t
otsu_launch_search(const uint32_t *bins, int nbins, int l1, uint32_t *dt,
    struct grad_thresh *dp, cudaStream_t stream)
{
	otsu_search<<<1, OTSU_THREADS, 0, stream>>>(bins, nbins, l1, dt, dp);
	return cudaGetLastError();
}

