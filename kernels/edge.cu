/*
 * edge.cu - the Canny stages on the GPU.  Every kernel hands pixels to the
 * cores of lib/edge_core.h and lib/otsu.h, so every path equals the CPU
 * reference (lib/edge.c) bit for bit.
 *
 * Suppression and double threshold ("nms"), one stencil of radius 2 (a
 * magnitude needs a 3x3 neighbourhood, the suppression the magnitudes
 * around a pixel), four ways:
 *
 *   global   one thread per pixel, reads through the border rule; the two
 *            neighbour magnitudes are computed only when the pixel passes
 *            the low threshold
 *   texture  the same, reads through the texture cache
 *   shared   a block copies its tile and two-pixel apron into shared
 *            memory with 16-byte loads, then each thread slides down a
 *            16-byte-wide strip of it
 *   sliding  each thread owns a 16-byte-wide column strip and slides a
 *            window of input rows and of magnitude rows down it in
 *            registers, loading each input row once per strip
 *
 * Histogram (--auto): per-block bins in shared memory, merged into the
 * global bins with atomics.  Otsu: one block, a scan of the bins' counts
 * and sums, then an argmax reduction (sequential addressing, first step
 * during the load, the last warp by shuffles).
 *
 * Hysteresis: sweeps over 32x32 tiles; a block grows edges inside its
 * tile (plus a read-only apron) in shared memory until stable, and the
 * host repeats sweeps until one changes nothing.  Only tiles next to a
 * change are worked on after the first sweep.
 */
#include "edge.h"
#include "otsu.h"
#include "stencil.cuh"

/* Magnitudes fit 32 bits for 8-bit images (at most 2 * 1020^2). */
template <typename T> struct mag_type { typedef uint64_t t; };
template <> struct mag_type<uint8_t> { typedef uint32_t t; };

__device__ __forceinline__ struct edge_params
thresholds(const struct edge_params &p, const struct edge_params *dp)
{
	return dp != NULL ? *dp : p;
}

/* ---- one thread per pixel: global and texture ---- */

template <typename T>
struct px_global {
	gpu_image im;
	int border;
	__device__ __forceinline__ int at(int x, int y) const
	{
		return gf_load_px<T>(im, x, y, border);
	}
};

template <typename T>
struct px_texture {
	cudaTextureObject_t tex;
	int w, h, border;
	__device__ __forceinline__ int at(int x, int y) const
	{
		int xi = gf_border_index(x, w, border);
		int yi = gf_border_index(y, h, border);
		if (xi < 0 || yi < 0)
			return 0;
		return tex2D<T>(tex, xi + 0.5f, yi + 0.5f);
	}
};

template <typename P>
__device__ __forceinline__ void
grad_at(const P &src, int x, int y, int *gx, int *gy)
{
	int a = src.at(x - 1, y - 1), b = src.at(x, y - 1), c = src.at(x + 1, y - 1);
	int d = src.at(x - 1, y), f = src.at(x + 1, y);
	int g = src.at(x - 1, y + 1), h = src.at(x, y + 1), i = src.at(x + 1, y + 1);
	*gx = sobel_gx(a, c, d, f, g, i);
	*gy = sobel_gy(a, b, c, g, h, i);
}

template <typename P>
__device__ __forceinline__ uint64_t
mag_at(const P &src, int x, int y, int l1)
{
	int gx, gy;
	grad_at(src, x, y, &gx, &gy);
	return edge_mag(gx, gy, l1);
}

template <typename P>
__global__ void
edge_nms_pixel(P src, gpu_image lab, struct edge_params p0,
    const struct edge_params *dp)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= lab.width || y >= lab.height)
		return;
	uint8_t *out = gf_row_out<uint8_t>(lab, y) + x;
	if (edge_in_frame(x, y, lab.width, lab.height)) {
		*out = EDGE_NONE;
		return;
	}
	struct edge_params p = thresholds(p0, dp);
	int gx, gy, dx, dy;
	grad_at(src, x, y, &gx, &gy);
	uint64_t m = edge_mag(gx, gy, p.l1);
	if (m <= p.low) {
		*out = EDGE_NONE;
		return;
	}
	int s = edge_sector(gx, gy);
	edge_sector_offset(s, &dx, &dy);
	uint64_t before = mag_at(src, x + dx, y + dy, p.l1);
	uint64_t after = mag_at(src, x - dx, y - dy, p.l1);
	*out = (uint8_t)edge_classify(m, before, after, s, &p);
}

/* ---- a strip of VEC(T) columns: shared and sliding ---- */

/*
 * The registers of one thread's strip: input rows r-2, r-1, r (columns
 * x0-2 .. x0+N+1), magnitude rows (columns x0-1 .. x0+N) and the sectors
 * of two gradient rows, two bits per column.
 */
template <typename T>
struct strip {
	enum { N = VEC(T) };
	typedef typename mag_type<T>::t M;
	int in0[N + 4], in1[N + 4], in2[N + 4];
	M m0[N + 2], m1[N + 2], m2[N + 2];
	uint32_t sec_prev, sec_cur;

	/* After loading input row r into in2: gradient row r-1 into m2, sec_cur. */
	__device__ __forceinline__ void grad_row(int l1)
	{
		sec_prev = sec_cur;
		sec_cur = 0;
#pragma unroll
		for (int k = 0; k < N + 2; k++) {
			int gx = sobel_gx(in0[k], in0[k + 2], in1[k], in1[k + 2],
			    in2[k], in2[k + 2]);
			int gy = sobel_gy(in0[k], in0[k + 1], in0[k + 2], in2[k],
			    in2[k + 1], in2[k + 2]);
			m0[k] = m1[k];
			m1[k] = m2[k];
			m2[k] = (M)edge_mag(gx, gy, l1);
			if (k >= 1 && k <= N)
				sec_cur |= (uint32_t)edge_sector(gx, gy) << (2 * (k - 1));
		}
	}

	/* Classes of the middle magnitude row (columns x0 .. x0+N-1). */
	__device__ __forceinline__ void classify(const struct edge_params &p,
	    unsigned *res)
	{
#pragma unroll
		for (int j = 0; j < N; j++) {
			int s = (sec_prev >> (2 * j)) & 3;
			uint64_t b, a;
			if (s == EDGE_SECTOR_0) {
				b = m1[j]; a = m1[j + 2];
			} else if (s == EDGE_SECTOR_90) {
				b = m0[j + 1]; a = m2[j + 1];
			} else if (s == EDGE_SECTOR_45) {
				b = m0[j]; a = m2[j + 2];
			} else {
				b = m0[j + 2]; a = m2[j];
			}
			res[j] = edge_classify(m1[j + 1], b, a, s, &p);
		}
	}

	__device__ __forceinline__ void shift_input()
	{
#pragma unroll
		for (int k = 0; k < N + 4; k++) {
			in0[k] = in1[k];
			in1[k] = in2[k];
		}
	}
};

/* Stores the N classes of row y from column x0 (8 or 16 bytes inside the image). */
template <int N>
__device__ __forceinline__ void
store_classes(const gpu_image &lab, int y, int x0, unsigned *res)
{
	uint8_t *row = gf_row_out<uint8_t>(lab, y);

	if (x0 >= 1 && x0 + N <= lab.width - 1) {
		if (N == 16) {
			gf_store_chunk<uint8_t>(lab, y, x0, res);
		} else {
			uint32_t w[2] = {0, 0};
#pragma unroll
			for (int k = 0; k < N; k++)
				w[k / 4] |= (res[k] & 0xff) << (8 * (k % 4));
			*(uint2 *)(row + x0) = make_uint2(w[0], w[1]);
		}
		return;
	}
#pragma unroll
	for (int k = 0; k < N; k++)
		if (x0 + k < lab.width)
			row[x0 + k] = edge_in_frame(x0 + k, y, lab.width, lab.height) ?
			    EDGE_NONE : (uint8_t)res[k];
}

/*
 * Walks one strip: output rows ys .. ye-1 of columns x0 .. x0+N-1, with
 * load(r, v) giving input row r's samples x0-2 .. x0+N+1 in v.
 */
template <typename T, typename L>
__device__ __forceinline__ void
walk_strip(const L &load, const gpu_image &lab, int x0, int ys, int ye,
    const struct edge_params &p)
{
	strip<T> st;
	unsigned res[VEC(T)];

	st.sec_cur = 0;
	load(ys - 2, st.in1);
	load(ys - 1, st.in2);
	for (int r = ys; r <= ye + 1; r++) {
		st.shift_input();
		load(r, st.in2);
		st.grad_row(p.l1);
		if (r < ys + 2)
			continue;
		int y = r - 2;
		st.classify(p, res);
		if (y == 0 || y == lab.height - 1) {
#pragma unroll
			for (int k = 0; k < VEC(T); k++)
				res[k] = EDGE_NONE;
		}
		store_classes<VEC(T)>(lab, y, x0, res);
	}
}

template <typename T>
struct rows_global {
	gpu_image im;
	int x0, border;
	__device__ __forceinline__ void operator()(int r, int *v) const
	{
		int yi = gf_border_index(r, im.height, border);
		gf_load_window<T, 2>(im, yi, x0, border, v);
	}
};

/* Rows of a shared tile whose row 0 is image row y0 - 2; src is the strip's column. */
template <typename T>
struct rows_shared {
	const T *src;
	int stride, y0;
	__device__ __forceinline__ void operator()(int r, int *v) const
	{
		gf_smem_window<T, 2>(src + (r - y0 + 2) * stride, v);
	}
};

template <typename T>
__global__ void
edge_nms_sliding(gpu_image in, gpu_image lab, struct edge_params p0,
    const struct edge_params *dp, int border, int rows)
{
	const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * VEC(T);
	const int ys = (blockIdx.y * blockDim.y + threadIdx.y) * rows;
	if (x0 >= in.width || ys >= in.height)
		return;
	struct edge_params p = thresholds(p0, dp);
	rows_global<T> load = {in, x0, border};
	walk_strip<T>(load, lab, x0, ys, min(ys + rows, in.height), p);
}

/*
 * Shared tile layout: (tile rows + 4) rows of stride (block_w + 2) * VEC
 * samples; row r holds image row y0 - 2 + r, column VEC + j image column
 * x0 + j, so the two left apron samples sit at VEC - 2, VEC - 1 and the
 * right ones at VEC + tile width and one more.
 */
template <typename T>
__device__ __forceinline__ void
load_tile(const gpu_image &in, int border, T *tile, int x0, int y0, int tw,
    int th)
{
	const int N = VEC(T), stride = tw + 2 * N;
	const int tid = threadIdx.y * blockDim.x + threadIdx.x;
	const int nthreads = blockDim.x * blockDim.y;

	for (int i = tid; i < (th + 4) * (int)blockDim.x; i += nthreads) {
		int r = i / blockDim.x, cx = i % blockDim.x;
		int yi = gf_border_index(y0 - 2 + r, in.height, border);
		gf_load_chunk<T>(in, yi, x0 + cx * N, border, tile + r * stride + N + cx * N);
	}
	for (int i = tid; i < (th + 4) * 4; i += nthreads) {
		int r = i >> 2, k = i & 3;
		int x = k < 2 ? x0 - 2 + k : x0 + tw + k - 2;
		int yi = gf_border_index(y0 - 2 + r, in.height, border);
		int xi = gf_border_index(x, in.width, border);
		tile[r * stride + N + x - x0] = yi < 0 || xi < 0 ? 0 : gf_row<T>(in, yi)[xi];
	}
}

template <typename T>
__global__ void
edge_nms_shared(gpu_image in, gpu_image lab, struct edge_params p0,
    const struct edge_params *dp, int border, int rows)
{
	extern __shared__ uint4 smem[];
	T *tile = (T *)smem;
	const int N = VEC(T), tw = blockDim.x * N, th = blockDim.y * rows;
	const int x0 = blockIdx.x * tw, y0 = blockIdx.y * th;

	load_tile<T>(in, border, tile, x0, y0, tw, th);
	__syncthreads();

	const int x = x0 + threadIdx.x * N, ys = y0 + threadIdx.y * rows;
	if (x >= in.width || ys >= in.height)
		return;
	struct edge_params p = thresholds(p0, dp);
	rows_shared<T> load = {tile + N + threadIdx.x * N, tw + 2 * N, y0};
	walk_strip<T>(load, lab, x, ys, min(ys + rows, in.height), p);
}

/* Default launch shapes (make bench tunes them). */
static const struct gf_launch edge_defaults[GF_NSTRATEGIES] = {
	{0, 0, 0}, {0, 0, 0},
	{32, 8, 1},     /* global */
	{32, 8, 1},     /* texture */
	{32, 8, 4},     /* shared */
	{32, 4, 32},    /* sliding */
};

extern "C" void
edge_nms_shape(enum gf_strategy s, unsigned maxval, struct gf_launch *l,
    int *tile_w, int *tile_h, size_t *smem)
{
	gf_launch_shape(s, edge_defaults, maxval, 2, l, tile_w, tile_h, smem);
}

template <typename T>
static void
launch_nms(enum gf_strategy s, const gpu_image &in, const gpu_image &lab,
    const struct edge_params &p, const struct edge_params *dp, int border,
    const struct gf_launch *l, cudaTextureObject_t tex, cudaStream_t st)
{
	int tw, th;
	size_t smem;
	struct gf_launch sh = *l;
	edge_nms_shape(s, in.maxval, &sh, &tw, &th, &smem);
	dim3 block(sh.block_w, sh.block_h);
	dim3 grid((in.width + tw - 1) / tw, (in.height + th - 1) / th);

	switch (s) {
	case GF_GLOBAL: {
		px_global<T> src = {in, border};
		edge_nms_pixel<<<grid, block, 0, st>>>(src, lab, p, dp);
		break;
	}
	case GF_TEXTURE: {
		px_texture<T> src = {tex, in.width, in.height, border};
		edge_nms_pixel<<<grid, block, 0, st>>>(src, lab, p, dp);
		break;
	}
	case GF_SHARED:
		edge_nms_shared<T><<<grid, block, smem, st>>>(in, lab, p, dp, border, sh.rows);
		break;
	default:
		edge_nms_sliding<T><<<grid, block, 0, st>>>(in, lab, p, dp, border, sh.rows);
		break;
	}
}

extern "C" cudaError_t
edge_launch_nms(enum gf_strategy s, const struct gpu_image *in,
    const struct gpu_image *lab, const struct edge_params *p,
    const struct edge_params *dp, int border, const struct gf_launch *l,
    cudaTextureObject_t tex, cudaStream_t stream)
{
	if (in->maxval > 255)
		launch_nms<uint16_t>(s, *in, *lab, *p, dp, border, l, tex, stream);
	else
		launch_nms<uint8_t>(s, *in, *lab, *p, dp, border, l, tex, stream);
	return cudaGetLastError();
}

/* ---- histogram and Otsu ---- */

#define HIST_THREADS 256

template <typename T>
__global__ void
edge_hist(gpu_image in, int border, int l1, uint32_t *bins, int priv)
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
		uint32_t v = edge_hist_value(gx, gy, l1, in.maxval);
		atomicAdd(priv ? &sbins[v] : &bins[v], 1u);
	}
	if (!priv)
		return;
	__syncthreads();
	for (int i = threadIdx.x; i < nbins; i += blockDim.x)
		if (sbins[i] != 0)
			atomicAdd(&bins[i], sbins[i]);
}

extern "C" cudaError_t
edge_launch_hist(const struct gpu_image *in, int border, int l1,
    uint32_t *bins, int nblocks, int priv, cudaStream_t stream)
{
	size_t smem = priv ? ((size_t)in->maxval + 1) * sizeof(uint32_t) : 0;

	if (in->maxval > 255)
		edge_hist<uint16_t><<<nblocks, HIST_THREADS, smem, stream>>>(*in,
		    border, l1, bins, priv);
	else
		edge_hist<uint8_t><<<nblocks, HIST_THREADS, smem, stream>>>(*in,
		    border, l1, bins, priv);
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
edge_otsu(const uint32_t *bins, int nbins, int l1, uint32_t *dt,
    struct edge_params *dp)
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
		edge_auto_params((uint32_t)bi, l1, dp);
	}
}

extern "C" cudaError_t
edge_launch_otsu(const uint32_t *bins, int nbins, int l1, uint32_t *dt,
    struct edge_params *dp, cudaStream_t stream)
{
	edge_otsu<<<1, OTSU_THREADS, 0, stream>>>(bins, nbins, l1, dt, dp);
	return cudaGetLastError();
}

/* ---- hysteresis ---- */

/*
 * Hysteresis is connected-component labelling: the edges are the
 * non-NONE pixels whose 8-connected component holds a strong pixel.  A
 * fixed number of launches, no host round trip, no iteration to a fixed
 * point:
 *
 *   local   per 32x32 tile: union-find of the tile's pixels in shared
 *           memory (atomicMin on the root, which is then the smallest
 *           index of the component whatever the order); a component with
 *           a strong pixel is written as edges, one without that does not
 *           touch the tile's outer ring is not; each component that
 *           touches the ring gets a rank r (< EDGE_HYST_CAP) and a global
 *           node tile * CAP + r, its pixels' ranks go to the tile's ring
 *           arrays, and the pixels of such a component without a strong
 *           pixel get the code 3 + r in the class map ("pending")
 *   merge   one thread per ring pixel on the right and bottom side of a
 *           tile: union of its node with the nodes of its 8-neighbours in
 *           the next tile (global union-find, Playne and Hawick's)
 *   strong  each strong node marks its root strong
 *   final   in tiles with pending components whose root is strong, their
 *           pixels become edges
 *
 * The union of the components holding a strong pixel is what the CPU's
 * flood fill gives, so the output is the same whatever the order of work.
 */
#define HW EDGE_HYST_TILE
#define HH EDGE_HYST_TILE
#define HCAP EDGE_HYST_CAP
#define HTHREADS (HW * HH / 4)  /* each thread owns 4 pixels of a row */
#define HNONE 0xff              /* ring arrays: no component */
#define HCODE 3                 /* class map: pending component r is HCODE + r */

/* The scratch of one image of ntiles tiles, carved from one buffer. */
struct hyst_mem {
	uint32_t *node;         /* [ntiles * HCAP] union-find parents */
	uint8_t *strong;        /* [ntiles * HCAP] node holds a strong pixel (then: root is an edge) */
	unsigned long long *pend; /* [ntiles] bit r: node r is pending */
	uint8_t *ring;          /* [ntiles][4][HW]: top, bottom, left, right ranks, HNONE */
	uint8_t *nnodes;        /* [ntiles] */
};

static struct hyst_mem
hyst_carve(void *scratch, size_t ntiles)
{
	struct hyst_mem m;
	char *p = (char *)scratch;

	m.node = (uint32_t *)p;
	p += ntiles * HCAP * sizeof(uint32_t);
	m.strong = (uint8_t *)p;
	p += ntiles * HCAP;
	m.pend = (unsigned long long *)p;
	p += ntiles * sizeof(unsigned long long);
	m.ring = (uint8_t *)p;
	p += ntiles * 4 * HW;
	m.nnodes = (uint8_t *)p;
	return m;
}

extern "C" size_t
edge_hyst_scratch(int width, int height)
{
	size_t ntiles = (size_t)((width + HW - 1) / HW) * ((height + HH - 1) / HH);

	return ntiles * (HCAP * sizeof(uint32_t) + HCAP +
	    sizeof(unsigned long long) + 4 * HW + 1);
}

/*
 * Shared-memory union-find of the local stage.  While unions run, every
 * access to par is atomic (reads as atomicOr with 0), so no thread reads
 * a plain value that another writes.  par[x] <= x always, so the loops
 * end; the root of a set is its smallest index.
 */
__device__ __forceinline__ int
sfind(int *par, int x)
{
	int p;

	while ((p = atomicOr(par + x, 0)) != x)
		x = p;
	return x;
}

__device__ void
sunite(int *par, int a, int b)
{
	for (;;) {
		a = sfind(par, a);
		b = sfind(par, b);
		if (a == b)
			return;
		if (a > b) {
			int t = a;
			a = b;
			b = t;
		}
		int old = atomicMin(par + b, a);
		if (old == b)
			return;
		b = old;
	}
}

/* Root of x once no union runs any more (plain reads). */
__device__ __forceinline__ int
sroot(const int *par, int x)
{
	int p;

	while ((p = par[x]) != x)
		x = p;
	return x;
}

/* Class byte of tile pixel (r, c) from the packed rows. */
__device__ __forceinline__ unsigned
scls(const uint32_t (*cls)[HW / 4], int r, int c)
{
	return (cls[r][c >> 2] >> (8 * (c & 3))) & 0xff;
}

template <typename T>
__global__ void
__launch_bounds__(HTHREADS)
edge_hyst_local(gpu_image lab, gpu_image out, struct hyst_mem m)
{
	__shared__ int par[HH * HW];
	__shared__ unsigned flg[HH * HW];       /* roots: bit 0 strong, bit 1 ring */
	__shared__ uint8_t rk[HH * HW];         /* ring roots: their rank */
	__shared__ uint32_t cls[HH][HW / 4];
	__shared__ int wsum[HTHREADS / 32];
	__shared__ unsigned long long spend;
	const int t = threadIdx.x, ly = t / (HW / 4), lx0 = (t % (HW / 4)) * 4;
	const int x = blockIdx.x * HW + lx0, y = blockIdx.y * HH + ly;
	const int i0 = ly * HW + lx0;
	const size_t tile = (size_t)blockIdx.y * gridDim.x + blockIdx.x;

	/* The 4 classes; 0 (none) outside the image. */
	uint32_t c4 = 0;
	if (y < lab.height) {
		const uint8_t *row = gf_row<uint8_t>(lab, y);
		if (x + 4 <= lab.width) {
			c4 = *(const uint32_t *)(row + x);
		} else {
#pragma unroll
			for (int k = 0; k < 4; k++)
				if (x + k < lab.width)
					c4 |= (uint32_t)row[x + k] << (8 * k);
		}
	}
	cls[ly][lx0 / 4] = c4;
	/* Start with the runs inside the 4 pixels already joined. */
	int run = i0;
#pragma unroll
	for (int k = 0; k < 4; k++) {
		bool fg = (c4 >> (8 * k)) & 0xff;
		bool prev = k > 0 && ((c4 >> (8 * (k - 1))) & 0xff);
		if (!(fg && prev))
			run = i0 + k;
		par[i0 + k] = run;
		flg[i0 + k] = 0;
	}
	if (t == 0)
		spend = 0;
	__syncthreads();

	/*
	 * Unions with the left neighbour (first pixel of the 4 only) and the
	 * row above.  The diagonals are needed only when the pixel above is
	 * not set: else both are joined through it.
	 */
#pragma unroll
	for (int k = 0; k < 4; k++) {
		const int lx = lx0 + k, i = i0 + k;
		if (((c4 >> (8 * k)) & 0xff) == 0)
			continue;
		if (k == 0 && lx > 0 && scls(cls, ly, lx - 1))
			sunite(par, i, i - 1);
		if (ly == 0)
			continue;
		if (scls(cls, ly - 1, lx)) {
			sunite(par, i, i - HW);
		} else {
			if (lx > 0 && scls(cls, ly - 1, lx - 1))
				sunite(par, i, i - HW - 1);
			if (lx < HW - 1 && scls(cls, ly - 1, lx + 1))
				sunite(par, i, i - HW + 1);
		}
	}
	__syncthreads();

	/* Each component's flags on its root. */
	int root[4];
#pragma unroll
	for (int k = 0; k < 4; k++) {
		const int lx = lx0 + k, i = i0 + k;
		unsigned c = (c4 >> (8 * k)) & 0xff;
		root[k] = i;
		if (c == 0)
			continue;
		root[k] = sroot(par, i);
		unsigned bits = (c == EDGE_STRONG ? 1u : 0u) |
		    (ly == 0 || ly == HH - 1 || lx == 0 || lx == HW - 1 ? 2u : 0u);
		if (bits)
			atomicOr(&flg[root[k]], bits);
	}
	__syncthreads();

	/*
	 * Ranks of the roots of components touching the ring, in index
	 * order (a block scan).  The ring of a tile has at most 4 HW - 4
	 * pixels and two ring neighbours that are both set are joined, so
	 * there are at most 2 HW - 2 < HCAP such components.
	 */
	unsigned mine = 0;
	int n = 0;
#pragma unroll
	for (int k = 0; k < 4; k++)
		if (((c4 >> (8 * k)) & 0xff) && root[k] == i0 + k &&
		    (flg[i0 + k] & 2)) {
			mine |= 1u << k;
			n++;
		}
	const int lane = t & 31, wid = t >> 5;
	int inc = n;
#pragma unroll
	for (int o = 1; o < 32; o <<= 1) {
		int v = __shfl_up_sync(0xffffffffu, inc, o);
		if (lane >= o)
			inc += v;
	}
	if (lane == 31)
		wsum[wid] = inc;
	__syncthreads();
	int r = inc - n, total = 0;
#pragma unroll
	for (int w = 0; w < HTHREADS / 32; w++) {
		int s = wsum[w];
		if (w < wid)
			r += s;
		total += s;
	}
#pragma unroll
	for (int k = 0; k < 4; k++) {
		if (!((mine >> k) & 1))
			continue;
		const int i = i0 + k;
		const uint32_t g = (uint32_t)(tile * HCAP + r);
		rk[i] = (uint8_t)r;
		m.node[g] = g;
		m.strong[g] = flg[i] & 1;
		if (!(flg[i] & 1))
			atomicOr(&spend, 1ull << r);
		r++;
	}
	__syncthreads();

	/* Outputs: edges, pending codes, ring ranks. */
	unsigned ov[4], rb[4];
#pragma unroll
	for (int k = 0; k < 4; k++) {
		unsigned c = (c4 >> (8 * k)) & 0xff;
		unsigned f = c ? flg[root[k]] : 0;
		ov[k] = f & 1 ? out.maxval : 0;
		rb[k] = f & 2 ? rk[root[k]] : HNONE;
		if ((f & 3) == 2)
			gf_row_out<uint8_t>(lab, y)[x + k] = (uint8_t)(HCODE + rb[k]);
	}
	if (y < out.height) {
		T *orow = gf_row_out<T>(out, y);
		if (x + 4 <= out.width) {
			if (sizeof(T) == 1)
				*(uint32_t *)(orow + x) = ov[0] | ov[1] << 8 |
				    ov[2] << 16 | ov[3] << 24;
			else
				*(uint2 *)(orow + x) = make_uint2(ov[0] | ov[1] << 16,
				    ov[2] | ov[3] << 16);
		} else {
#pragma unroll
			for (int k = 0; k < 4; k++)
				if (x + k < out.width)
					orow[x + k] = (T)ov[k];
		}
	}
	uint8_t *ring = m.ring + tile * 4 * HW;
	uint32_t rw = rb[0] | rb[1] << 8 | rb[2] << 16 | rb[3] << 24;
	if (ly == 0)
		*(uint32_t *)(ring + lx0) = rw;
	if (ly == HH - 1)
		*(uint32_t *)(ring + HW + lx0) = rw;
	if (lx0 == 0)
		ring[2 * HW + ly] = (uint8_t)rb[0];
	if (lx0 == HW - 4)
		ring[3 * HW + ly] = (uint8_t)rb[3];
	if (t == 0) {
		m.nnodes[tile] = (uint8_t)total;
		m.pend[tile] = spend;
	}
}

/*
 * Global union-find (Playne and Hawick): parents only ever decrease
 * (atomicMin), a link succeeds only on a node that was still a root, and
 * a failed one retries with the node it found; reads bypass L1.
 */
__device__ __forceinline__ uint32_t
gfind(const uint32_t *node, uint32_t x)
{
	uint32_t p;

	while ((p = __ldcg(node + x)) != x)
		x = p;
	return x;
}

__device__ void
gunite(uint32_t *node, uint32_t a, uint32_t b)
{
	for (;;) {
		a = gfind(node, a);
		b = gfind(node, b);
		if (a == b)
			return;
		if (a > b) {
			uint32_t t = a;
			a = b;
			b = t;
		}
		uint32_t old = atomicMin(node + b, a);
		if (old == b)
			return;
		b = old;
	}
}

/*
 * Root of x when no union runs any more, halving the path on the way:
 * every node it writes gets an ancestor (smaller, same tree) through
 * atomicMin, so the trees stay the same sets, whatever runs beside.
 */
__device__ __forceinline__ uint32_t
gfind_halve(uint32_t *node, uint32_t x)
{
	for (;;) {
		uint32_t p = __ldcg(node + x);
		if (p == x)
			return x;
		uint32_t g = __ldcg(node + p);
		if (g == p)
			return p;
		atomicMin(node + x, g);
		x = g;
	}
}

/*
 * Thread (tile, k): k < HW, the right ring pixel of row k against its
 * neighbours in the tile column to the right; k >= HW, the bottom ring
 * pixel of column k - HW against its neighbours in the tile row below.
 * A tile with a neighbour to the right (below) is full width (height),
 * so the pixel and its neighbours are in the image.
 */
__global__ void
edge_hyst_merge(struct hyst_mem m, int ntx, int nty, int width, int height)
{
	const size_t id = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	const size_t ntiles = (size_t)ntx * nty;

	if (id >= ntiles * 2 * HW)
		return;
	const size_t tile = id / (2 * HW);
	const int k = (int)(id % (2 * HW));
	const int tx = (int)(tile % ntx), ty = (int)(tile / ntx);
	const uint8_t *ring = m.ring + tile * 4 * HW;

	if (k < HW) {
		const int y = ty * HH + k;
		if (tx + 1 >= ntx || y >= height || ring[3 * HW + k] == HNONE)
			return;
		const uint32_t a = (uint32_t)(tile * HCAP + ring[3 * HW + k]);
		for (int y2 = max(y - 1, 0); y2 <= min(y + 1, height - 1); y2++) {
			const size_t t2 = (size_t)(y2 / HH) * ntx + tx + 1;
			unsigned b = m.ring[t2 * 4 * HW + 2 * HW + y2 % HH];
			if (b != HNONE)
				gunite(m.node, a, (uint32_t)(t2 * HCAP + b));
		}
	} else {
		const int lx = k - HW, x = tx * HW + lx;
		if (ty + 1 >= nty || x >= width || ring[HW + lx] == HNONE)
			return;
		const uint32_t a = (uint32_t)(tile * HCAP + ring[HW + lx]);
		for (int x2 = max(x - 1, 0); x2 <= min(x + 1, width - 1); x2++) {
			const size_t t2 = (size_t)(ty + 1) * ntx + x2 / HW;
			unsigned b = m.ring[t2 * 4 * HW + x2 % HW];
			if (b != HNONE)
				gunite(m.node, a, (uint32_t)(t2 * HCAP + b));
		}
	}
}

/* Thread (tile, r): a node holding a strong pixel makes its root strong. */
__global__ void
edge_hyst_strong(struct hyst_mem m, size_t ntiles)
{
	const size_t id = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (id >= ntiles * HCAP)
		return;
	const size_t tile = id / HCAP;
	const int r = (int)(id % HCAP);
	if (r >= m.nnodes[tile] || !m.strong[id])
		return;
	m.strong[gfind_halve(m.node, (uint32_t)id)] = 1;
}

/* Pending pixels of components whose root is strong become edges. */
template <typename T>
__global__ void
__launch_bounds__(HTHREADS)
edge_hyst_final(gpu_image lab, gpu_image out, struct hyst_mem m)
{
	__shared__ uint8_t fix[HCAP];
	const int t = threadIdx.x;
	const size_t tile = (size_t)blockIdx.y * gridDim.x + blockIdx.x;
	const unsigned long long pend = m.pend[tile];

	if (pend == 0)
		return;
	int f = 0;
	if (t < HCAP) {
		if ((pend >> t) & 1)
			f = m.strong[gfind_halve(m.node, (uint32_t)(tile * HCAP + t))];
		fix[t] = (uint8_t)f;
	}
	if (!__syncthreads_or(f))
		return;
	const int ly = t / (HW / 4), lx0 = (t % (HW / 4)) * 4;
	const int x = blockIdx.x * HW + lx0, y = blockIdx.y * HH + ly;
	if (y >= lab.height)
		return;
	const uint8_t *row = gf_row<uint8_t>(lab, y);
	T *orow = gf_row_out<T>(out, y);
#pragma unroll
	for (int k = 0; k < 4; k++) {
		if (x + k >= lab.width)
			break;
		unsigned v = row[x + k];
		if (v >= HCODE && v - HCODE < HCAP && fix[v - HCODE])
			orow[x + k] = (T)out.maxval;
	}
}

extern "C" cudaError_t
edge_launch_hyst(const struct gpu_image *lab, const struct gpu_image *out,
    void *scratch, cudaStream_t stream)
{
	const int ntx = (lab->width + HW - 1) / HW, nty = (lab->height + HH - 1) / HH;
	const size_t ntiles = (size_t)ntx * nty;
	struct hyst_mem m = hyst_carve(scratch, ntiles);
	dim3 grid(ntx, nty);
	cudaError_t err;

	if (out->maxval > 255)
		edge_hyst_local<uint16_t><<<grid, HTHREADS, 0, stream>>>(*lab, *out, m);
	else
		edge_hyst_local<uint8_t><<<grid, HTHREADS, 0, stream>>>(*lab, *out, m);
	if ((err = cudaGetLastError()) != cudaSuccess)
		return err;
	edge_hyst_merge<<<(unsigned)((ntiles * 2 * HW + 255) / 256), 256, 0,
	    stream>>>(m, ntx, nty, lab->width, lab->height);
	if ((err = cudaGetLastError()) != cudaSuccess)
		return err;
	edge_hyst_strong<<<(unsigned)((ntiles * HCAP + 255) / 256), 256, 0,
	    stream>>>(m, ntiles);
	if ((err = cudaGetLastError()) != cudaSuccess)
		return err;
	if (out->maxval > 255)
		edge_hyst_final<uint16_t><<<grid, HTHREADS, 0, stream>>>(*lab, *out, m);
	else
		edge_hyst_final<uint8_t><<<grid, HTHREADS, 0, stream>>>(*lab, *out, m);
	return cudaGetLastError();
}
