/*
 * conv2d.cu - conv2d's GPU kernels: the four 2D strategies (global,
 * texture, shared, sliding) and the separable row and column passes.
 * The taps live in constant memory (every thread of a warp reads the same
 * tap at the same time: a broadcast).  Every kernel accumulates through
 * the core of lib/conv2d_core.h in row-major tap order, so the result is
 * the CPU reference's bit for bit; they differ only in how samples arrive.
 *
 * Templates: T is the sample type (uint8_t, uint16_t), Acc the
 * accumulator of the plan's mode (int32_t, int64_t, float).
 */
#include <cuda_runtime.h>

#include "conv2d.h"
#include "mma.cuh"
#include "stencil.cuh"

__constant__ struct conv2d_taps c_taps;

extern __shared__ __align__(16) unsigned char conv2d_smem[];

/*
 * The core's arithmetic for each accumulator type, with the taps it
 * reads: both integer modes read the int32 taps, the real mode the float
 * ones.
 */
template <typename Acc> struct conv_ops;

struct conv_itaps {
	static __device__ int32_t tap(int k) { return c_taps.itaps[k]; }
	static __device__ int32_t row(int j) { return c_taps.irow[j]; }
	static __device__ int32_t col(int i) { return c_taps.icol[i]; }
};

template <> struct conv_ops<int32_t> : conv_itaps {
	static __device__ int32_t mac(int32_t a, int32_t t, int32_t v)
	{ return conv2d_mac_i32(a, t, v); }
	static __device__ unsigned finish(int32_t a, const conv2d_coef &c)
	{ return conv2d_finish_i32(a, &c); }
};

template <> struct conv_ops<int64_t> : conv_itaps {
	static __device__ int64_t mac(int64_t a, int32_t t, int64_t v)
	{ return conv2d_mac_i64(a, t, v); }
	static __device__ unsigned finish(int64_t a, const conv2d_coef &c)
	{ return conv2d_finish_i64(a, &c); }
};

template <> struct conv_ops<float> {
	static __device__ float tap(int k) { return c_taps.ftaps[k]; }
	static __device__ float row(int j) { return c_taps.frow[j]; }
	static __device__ float col(int i) { return c_taps.fcol[i]; }
	static __device__ float mac(float a, float t, float v)
	{ return conv2d_mac_f32(a, t, v); }
	static __device__ unsigned finish(float a, const conv2d_coef &c)
	{ return conv2d_finish_f32(a, &c); }
};

/* The accumulator of the separable row pass (and type of the intermediate). */
template <typename Acc> struct row_acc { typedef int32_t type; };
template <> struct row_acc<float> { typedef float type; };

/*
 * Sample (x, y) of d with the border applied: 0 where the border says so.
 * A plain load, not stencil.cuh's gf_load_px (__ldg): the same value,
 * but these kernels' loads stay as they were measured.
 */
template <typename T>
static __device__ __forceinline__ int
load_px(const gpu_image &d, int x, int y, int border)
{
	int bx = gf_border_index(x, d.width, border);
	int by = gf_border_index(y, d.height, border);
	return bx < 0 || by < 0 ? 0 : gf_row<T>(d, by)[bx];
}

/* global: one thread per output pixel, every sample read from global memory. */
template <typename T, typename Acc>
__global__ void
conv2d_global(gpu_image in, gpu_image out, conv2d_coef c)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	Acc acc = 0;

	if (x >= in.width || y >= in.height)
		return;
	for (int i = 0; i < c.kh; i++)
		for (int j = 0; j < c.kw; j++)
			acc = conv_ops<Acc>::mac(acc, conv_ops<Acc>::tap(i * c.kw + j),
			    load_px<T>(in, x + j - c.ax, y + i - c.ay, c.border));
	gf_store_px<T>(out, x, y, conv_ops<Acc>::finish(acc, c));
}

/* texture: as global, the samples fetched through the texture cache. */
template <typename T, typename Acc>
__global__ void
conv2d_texture(cudaTextureObject_t tex, gpu_image out, conv2d_coef c)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	Acc acc = 0;

	if (x >= out.width || y >= out.height)
		return;
	for (int i = 0; i < c.kh; i++) {
		int by = gf_border_index(y + i - c.ay, out.height, c.border);
		for (int j = 0; j < c.kw; j++) {
			int bx = gf_border_index(x + j - c.ax, out.width, c.border);
			int v = bx < 0 || by < 0 ? 0 :
			    tex2D<T>(tex, bx + 0.5f, by + 0.5f);
			acc = conv_ops<Acc>::mac(acc, conv_ops<Acc>::tap(i * c.kw + j), v);
		}
	}
	gf_store_px<T>(out, x, y, conv_ops<Acc>::finish(acc, c));
}

/*
 * shared: a block of bw x bh threads makes a tile of bw x (bh * rows)
 * outputs.  It first loads the tile plus its apron (kw - 1 columns, kh - 1
 * rows, placed by the anchor) into shared memory, row by row with
 * consecutive threads on consecutive columns (coalesced), synchronizes,
 * then computes every output from shared memory.  Thread (tx, ty) makes
 * rows ty, ty + bh, ... of the tile.
 */
template <typename T, typename Acc>
__global__ void
conv2d_shared(gpu_image in, gpu_image out, conv2d_coef c, int rows)
{
	T *tile = (T *)conv2d_smem;
	const int bw = blockDim.x, bh = blockDim.y;
	const int sw = bw + c.kw - 1, sh = bh * rows + c.kh - 1;
	const int x0 = blockIdx.x * bw, y0 = blockIdx.y * bh * rows;
	const int x = x0 + threadIdx.x;

	for (int sy = threadIdx.y; sy < sh; sy += bh)
		for (int sx = threadIdx.x; sx < sw; sx += bw)
			tile[sy * sw + sx] = load_px<T>(in, x0 + sx - c.ax,
			    y0 + sy - c.ay, c.border);
	__syncthreads();
	for (int r = 0; r < rows; r++) {
		int ty = threadIdx.y + r * bh, y = y0 + ty;
		Acc acc = 0;
		if (x >= in.width || y >= in.height)
			continue;
		for (int i = 0; i < c.kh; i++) {
			const T *s = tile + (ty + i) * sw + threadIdx.x;
			for (int j = 0; j < c.kw; j++)
				acc = conv_ops<Acc>::mac(acc,
				    conv_ops<Acc>::tap(i * c.kw + j), s[j]);
		}
		gf_store_px<T>(out, x, y, conv_ops<Acc>::finish(acc, c));
	}
}

/*
 * sliding: each thread owns column x of a strip of `rows` output rows and
 * walks down the strip's input rows once.  It keeps a window of kh
 * accumulators in registers, one per output row still open: input row u
 * adds tap row i to output row u - i.  An output opens at its first input
 * row (i = 0) and is written after its last (i = kh - 1), so each output
 * still sums tap rows in order, and each input row is read once per
 * strip.  The loop over the window is unrolled by KH (the kernel height,
 * a template parameter) so that the ring indices are constants and the
 * accumulators stay in registers; KH == 0 handles any other height with
 * the ring in local memory.
 */
template <typename T, typename Acc, int KH>
__global__ void
conv2d_sliding(gpu_image in, gpu_image out, conv2d_coef c, int rows)
{
	const int kh = KH > 0 ? KH : c.kh;
	const int x = blockIdx.x * blockDim.x + threadIdx.x;
	const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * rows;
	Acc acc[KH > 0 ? KH : CONV_MAX_K];

	if (x >= in.width || y0 >= in.height)
		return;
	const int nout = min(rows, in.height - y0), nin = nout + kh - 1;
	for (int u0 = 0; u0 < nin; u0 += kh) {
#pragma unroll
		for (int du = 0; du < kh; du++) {
			const int u = u0 + du;
			if (u >= nin)
				break;
			acc[du] = 0;
			for (int j = 0; j < c.kw; j++) {
				int v = load_px<T>(in, x + j - c.ax, y0 + u - c.ay, c.border);
#pragma unroll
				for (int i = 0; i < kh; i++)
					if (u - i >= 0 && u - i < nout)
						acc[(du - i + kh) % kh] = conv_ops<Acc>::mac(
						    acc[(du - i + kh) % kh],
						    conv_ops<Acc>::tap(i * c.kw + j), v);
			}
			if (u - (kh - 1) >= 0 && u - (kh - 1) < nout)
				gf_store_px<T>(out, x, y0 + u - (kh - 1),
				    conv_ops<Acc>::finish(acc[(du + 1) % kh], c));
		}
	}
}

/*
 * Separable row pass: tmp(x, y) = sum over j of row[j] * p(x + j - ax, y),
 * for the image's rows only (the column pass applies the border in y).
 * A block loads its tile's rows plus the horizontal apron into shared
 * memory (coalesced), synchronizes, and sums from there.
 */
template <typename T, typename R>
__global__ void
conv2d_rows(gpu_image in, R *tmp, size_t tpitch, conv2d_coef c, int rows)
{
	T *tile = (T *)conv2d_smem;
	const int bw = blockDim.x, bh = blockDim.y, th = bh * rows;
	const int sw = bw + c.kw - 1;
	const int x0 = blockIdx.x * bw, y0 = blockIdx.y * th;
	const int x = x0 + threadIdx.x;

	for (int sy = threadIdx.y; sy < th && y0 + sy < in.height; sy += bh)
		for (int sx = threadIdx.x; sx < sw; sx += bw)
			tile[sy * sw + sx] = load_px<T>(in, x0 + sx - c.ax, y0 + sy,
			    c.border);
	__syncthreads();
	for (int r = 0; r < rows; r++) {
		int ty = threadIdx.y + r * bh, y = y0 + ty;
		R acc = 0;
		if (x >= in.width || y >= in.height)
			continue;
		for (int j = 0; j < c.kw; j++)
			acc = conv_ops<R>::mac(acc, conv_ops<R>::row(j),
			    tile[ty * sw + threadIdx.x + j]);
		((R *)((char *)tmp + (size_t)y * tpitch))[x] = acc;
	}
}

/*
 * Separable column pass: out(x, y) = finish(sum over i of
 * col[i] * tmp(x, y + i - ay)), the border applied to rows of tmp.  A
 * block loads its tile's columns plus the vertical apron (coalesced),
 * synchronizes, and sums from shared memory.
 */
template <typename R, typename Acc, typename T>
__global__ void
conv2d_cols(const R *tmp, size_t tpitch, gpu_image out, conv2d_coef c,
    int rows)
{
	R *tile = (R *)conv2d_smem;
	const int bw = blockDim.x, bh = blockDim.y;
	const int sh = bh * rows + c.kh - 1;
	const int x0 = blockIdx.x * bw, y0 = blockIdx.y * bh * rows;
	const int x = x0 + threadIdx.x;

	for (int sy = threadIdx.y; sy < sh; sy += bh) {
		int by = gf_border_index(y0 + sy - c.ay, out.height, c.border);
		R v = 0;
		if (by >= 0 && x < out.width)
			v = ((const R *)((const char *)tmp + (size_t)by * tpitch))[x];
		tile[sy * bw + threadIdx.x] = v;
	}
	__syncthreads();
	for (int r = 0; r < rows; r++) {
		int ty = threadIdx.y + r * bh, y = y0 + ty;
		Acc acc = 0;
		if (x >= out.width || y >= out.height)
			continue;
		for (int i = 0; i < c.kh; i++)
			acc = conv_ops<Acc>::mac(acc, conv_ops<Acc>::col(i),
			    tile[(ty + i) * bw + threadIdx.x]);
		gf_store_px<T>(out, x, y, conv_ops<Acc>::finish(acc, c));
	}
}

/* ---- the 8-bit fast paths
 *
 * For 8-bit images whose plan accumulates in float (the real mode, or an
 * integer mode with coef.fexact), shared, sliding and the separable path
 * run kernels with the kernel size K fixed at compile time, so that every
 * loop over taps unrolls, every tap is a constant-memory operand read
 * uniformly by the warp, and the window stays in registers.  A thread
 * makes 16 consecutive outputs of a row (one 16-byte chunk).
 *
 * Exactness.  Each output still sums tap * sample with fmaf starting from
 * 0.0f, tap rows i in increasing order and, within a row, tap columns j in
 * increasing order, as the CPU reference does; in the real mode that is
 * the reference's own sequence of float operations, so the results are
 * equal bit for bit.  In an integer mode, fexact means sum|taps| * maxval
 * < 2^24 (for the separable passes also sum|row| * sum|col| * maxval <
 * 2^24): every product and every partial sum is then an integer of
 * magnitude below 2^24, which float32 represents exactly, so every fmaf
 * is exact, the accumulator ends holding the exact integer sum (in any
 * order), and (int32_t) of it equals the int32 sum of the reference; it
 * then goes through the same conv2d_finish_i32.  Samples become floats
 * exactly: 2^23 + p built by a byte permute, minus 2^23.
 */

#define FAST_THREADS 256        /* __launch_bounds__ of the fast kernels */
/*
 * Blocks of FAST_THREADS an SM that the registers of the 2D fast kernels
 * of width K must leave room for: two up to 5x5 (128 registers, none
 * spilled), so that more warps hide the loads; one for wider kernels,
 * which at 128 registers spill 400-800 bytes.  H100, 12288x12288, dp4a,
 * fractions of the copy kernel of the same run: 5x5 sliding 15% -> 24%,
 * 3x3 and 5x5 shared within 3%; 9x9 at 128 registers, sliding 18% -> 11%
 * and shared 14% -> 9%.
 */
#define FAST_MINB(K) ((K) <= 5 ? 2 : 1)
#define FAST_SMEM 49152         /* shared memory every device gives a block */
#define SEP_R 8                 /* output rows per item of the column pass */
/*
 * The mode of the fast 2D kernels for a plan with coef.dp4a: int32
 * accumulators, each step four products of a sample byte and a signed
 * tap byte (dp4a), so a 5 x 5 output is 10 steps, not 25 fmaf.  Exact:
 * the sum is the reference's int32 sum, in any order.
 */
#define CONV8_DP4A 100

/* The accumulator of the fast kernels of mode M. */
template <int M> struct acc8 { typedef float type; };
template <> struct acc8<CONV8_DP4A> { typedef int32_t type; };

/* The bytes of image columns x0 - 16 .. x0 + 31 of one row. */
struct raw48 {
	uint4 a, b, c;
};

/*
 * Bytes 0 .. hi - 1 of the 16-byte chunk at image column xs of row, the
 * rest zero, each through the border rule (-1: zero), in a rolled loop:
 * gf_chunk_border's mirror, shifted in from the bottom so that the first
 * lands at byte hi - 1.
 */
static __device__ __forceinline__ uint4
chunk_to(const uint8_t *row, int xs, int hi, int width, int border)
{
	uint32_t w0 = 0, w1 = 0, w2 = 0, w3 = 0;

#pragma unroll 1
	for (int k = hi - 1; k >= 0; k--) {
		int xi = gf_border_index(xs + k, width, border);
		uint32_t v = xi < 0 ? 0u : (uint32_t)__ldg(row + xi);
		w3 = __funnelshift_l(w2, w3, 8);
		w2 = __funnelshift_l(w1, w2, 8);
		w1 = __funnelshift_l(w0, w1, 8);
		w0 = w0 << 8 | v;
	}
	return make_uint4(w0, w1, w2, w3);
}

/*
 * Row yi of im (mapped; -1 reads zeros) around the chunk at x0 (a
 * multiple of 16): only the bytes of columns x0 - K/2 .. x0 + 16 + (K - 1
 * - K/2) - 1 are used (K <= 33).  Inside the image, three aligned 16-byte
 * loads (the outer two are the neighbours' chunks, L1 hits).  Near the
 * left and right edges, each of the three chunks that is not wholly
 * inside is made column by column through the border rule, in a loop
 * kept rolled: unrolled in every step of a walk, that rare path was most
 * of the code of the kernels (sliding 5x5: 278 KB), whose warps then
 * waited on instruction fetch.  Only the columns used are made: K/2 on
 * the left, so the image's edge blocks stay nearly as fast as the rest.
 */
template <int K>
static __device__ __forceinline__ raw48
fetch8(const gpu_image &im, int yi, int x0, int border)
{
	const int A = K / 2, HI = K - 1 - A, W = im.width;
	raw48 r;

	r.a = r.b = r.c = make_uint4(0, 0, 0, 0);
	if (yi < 0)
		return r;
	const uint8_t *row = gf_row<uint8_t>(im, yi);
	if (x0 >= 16 && x0 + 32 <= W) {
		r.a = __ldg((const uint4 *)(row + x0 - 16));
		r.b = __ldg((const uint4 *)(row + x0));
		r.c = __ldg((const uint4 *)(row + x0 + 16));
		return r;
	}
	r.a = x0 >= 16 ? __ldg((const uint4 *)(row + x0 - 16)) :
	    gf_chunk_border<uint8_t>(row, x0 - 16, W, border, 16 - A);
	r.b = x0 + 16 <= W ? __ldg((const uint4 *)(row + x0)) :
	    gf_chunk_border<uint8_t>(row, x0, W, border);
	if (HI > 0)
		r.c = x0 + 32 <= W ? __ldg((const uint4 *)(row + x0 + 16)) :
		    chunk_to(row, x0 + 16, HI < 16 ? HI : 16, W, border);
	return r;
}

/* f[k] = sample of column x0 - K/2 + k, k < 16 + K - 1, as an exact float. */
template <int K>
static __device__ __forceinline__ void
conv8_unpack(const raw48 &r, float *f)
{
	const uint32_t w[12] = {r.a.x, r.a.y, r.a.z, r.a.w, r.b.x, r.b.y,
	    r.b.z, r.b.w, r.c.x, r.c.y, r.c.z, r.c.w};
#pragma unroll
	for (int k = 0; k < 16 + K - 1; k++) {
		const int b = 16 - K / 2 + k;
		f[k] = gf_byte_f(w[b / 4], b % 4);
	}
}

/*
 * The core's finish for the accumulator of mode M: a word whose low byte
 * is the sample.
 */
template <int M>
static __device__ __forceinline__ unsigned
finish8(typename acc8<M>::type a, const conv2d_coef &c)
{
	if constexpr (M == CONV2D_F32)
		return conv2d_round8_f32(conv2d_scale_f32(a, &c), c.maxval);
	else
		return conv2d_finish_i32((int32_t)a, &c);      /* exact: see above */
}

/* Four results (each <= 255) as the bytes of one word. */
static __device__ __forceinline__ uint32_t
pack4(unsigned a, unsigned b, unsigned c, unsigned d)
{
	return __byte_perm(__byte_perm(a, b, 0x0040), __byte_perm(c, d, 0x0040),
	    0x5410);
}

/* Finishes 16 accumulators and stores them at (x0, y), clipped at the width. */
template <int M>
static __device__ __forceinline__ void
store16(const gpu_image &out, int y, int x0, const typename acc8<M>::type *a,
    const conv2d_coef &c)
{
	unsigned r[16];
#pragma unroll
	for (int k = 0; k < 16; k++)
		r[k] = finish8<M>(a[k], c);
	uint8_t *row = gf_row_out<uint8_t>(out, y);
	if (x0 + 16 <= out.width) {
		*(uint4 *)(row + x0) = make_uint4(pack4(r[0], r[1], r[2], r[3]),
		    pack4(r[4], r[5], r[6], r[7]), pack4(r[8], r[9], r[10], r[11]),
		    pack4(r[12], r[13], r[14], r[15]));
		return;
	}
#pragma unroll
	for (int k = 0; k < 16; k++)
		if (x0 + k < out.width)
			row[x0 + k] = (uint8_t)r[k];
}

/* Rows from global memory (sliding): image row y, border applied. */
template <int K>
struct conv8_rows_global {
	gpu_image in;
	int x0, border;

	__device__ __forceinline__ raw48 operator()(int y) const
	{
		return fetch8<K>(in, gf_border_index(y, in.height, border), x0,
		    border);
	}
};

/*
 * Rows from a shared tile (shared): image row y is tile row y - y_top;
 * chunk points at the thread's chunk in tile row 0, whose neighbours
 * 16 bytes either side are in the tile too.
 */
struct conv8_rows_smem {
	const uint8_t *chunk;
	int stride, y_top;

	__device__ __forceinline__ raw48 operator()(int y) const
	{
		const uint8_t *p = chunk + (y - y_top) * stride;
		raw48 r;
		r.a = *(const uint4 *)(p - 16);
		r.b = *(const uint4 *)p;
		r.c = *(const uint4 *)(p + 16);
		return r;
	}
};

/*
 * One input row as mode M sums it: mac(i, k, a) adds tap row i's
 * products for output column k to a.  Floats: the samples as exact
 * floats, one fmaf a tap in the reference's order.
 */
template <int K, int M>
struct row8 {
	float f[16 + K - 1];

	__device__ __forceinline__ row8(const raw48 &r) { conv8_unpack<K>(r, f); }

	__device__ __forceinline__ float mac(int i, int k, float a) const
	{
#pragma unroll
		for (int j = 0; j < K; j++)
			a = fmaf(c_taps.ftaps[i * K + j], f[k + j], a);
		return a;
	}
};

/*
 * dp4a: the row's bytes as they came; output k's taps 4m .. 4m + 3 meet
 * the four bytes from byte 16 - K/2 + k + 4m on: one funnel shift (none
 * when aligned) and one dp4a.
 */
template <int K>
struct row8<K, CONV8_DP4A> {
	uint32_t w[12];

	__device__ __forceinline__ row8(const raw48 &r)
	    : w{r.a.x, r.a.y, r.a.z, r.a.w, r.b.x, r.b.y, r.b.z, r.b.w, r.c.x,
	    r.c.y, r.c.z, r.c.w} {}

	__device__ __forceinline__ int32_t mac(int i, int k, int32_t a) const
	{
#pragma unroll
		for (int m = 0; m < (K + 3) / 4; m++) {
			const int b = 16 - K / 2 + k + 4 * m;
			a = dp4a_us(__funnelshift_r(w[b / 4], w[b / 4 + 1], 8 * (b % 4)),
			    c_taps.qtaps[i * CONV_DP4A_W + m], a);
		}
		return a;
	}
};

/*
 * Output rows ybeg .. yend - 1 (yend > ybeg) of the 16 columns at x0:
 * walks down the nout + K - 1 input rows once, each read, unpacked and
 * used by the K outputs that need it; the next row is fetched before the
 * current one is used.  Input row u (image row ybeg - K/2 + u) adds tap
 * row i to the open output u - i for every i, then output u - (K - 1),
 * which has all K rows, is stored.  The accumulators are a shift
 * register, slot K - 1 - i holding output u - i, moved down one slot a
 * row.  A ring indexed by output mod K moves nothing, but needs the walk
 * unrolled K times for its indices to be constants; that made the code
 * K times larger, and the warps waited on instruction fetch: the shift
 * register is faster at every width (H100, 12288x12288, fractions of
 * copy: sliding 3x3 62% -> 72%, 5x5 46% -> 49%).
 */
template <int K, int M, class Rows>
static __device__ __forceinline__ void
walk8(const Rows &rows, int ybeg, int yend, const gpu_image &out, int x0,
    const conv2d_coef &c)
{
	const int nout = yend - ybeg, nin = nout + K - 1;
	typename acc8<M>::type acc[K][16];
	raw48 next = rows(ybeg - K / 2);

#pragma unroll
	for (int s = 0; s < K; s++)
#pragma unroll
		for (int k = 0; k < 16; k++)
			acc[s][k] = 0;
	for (int u = 0; u < nin; u++) {
		const row8<K, M> row(next);
		if (u + 1 < nin)
			next = rows(ybeg - K / 2 + u + 1);
#pragma unroll
		for (int i = 0; i < K; i++) {
			const int o = u - i;
			if (o < 0 || o >= nout)
				continue;
#pragma unroll
			for (int k = 0; k < 16; k++)
				acc[K - 1 - i][k] = row.mac(i, k, i == 0 ? 0 :
				    acc[K - 1 - i][k]);
		}
		if (u >= K - 1)
			store16<M>(out, ybeg + u - (K - 1), x0, acc[0], c);
#pragma unroll
		for (int s = 0; s < K - 1; s++)
#pragma unroll
			for (int k = 0; k < 16; k++)
				acc[s][k] = acc[s + 1][k];
	}
}

/*
 * sliding, 8 bit: thread (tx, ty) of block (bx, by) owns the chunk at
 * column 16 * (bx * bw + tx) and output rows (by * bh + ty) * rows, ...,
 * reading the image through L1.
 */
template <int K, int M>
__global__ void __launch_bounds__(FAST_THREADS, FAST_MINB(K))
conv8_sliding(gpu_image in, gpu_image out, conv2d_coef c, int rows)
{
	const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
	const int ybeg = (blockIdx.y * blockDim.y + threadIdx.y) * rows;

	if (x0 >= in.width || ybeg >= in.height)
		return;
	const conv8_rows_global<K> g = {in, x0, c.border};
	walk8<K, M>(g, ybeg, min(ybeg + rows, in.height), out, x0, c);
}

/*
 * shared, 8 bit: a block of bw x bh threads makes a tile of 16 * bw
 * columns and bh * rows rows.  It copies the tile's input rows (bh * rows
 * + K - 1, from K/2 above) into shared memory, each row as bw + 2 aligned
 * 16-byte chunks (one more either side, for the horizontal apron;
 * stride 16 * bw + 32 bytes), synchronizes, and then each thread walks its
 * chunk down its rows (ty * rows, ...) from the tile.
 */
template <int K, int M>
__global__ void __launch_bounds__(FAST_THREADS, FAST_MINB(K))
conv8_shared(gpu_image in, gpu_image out, conv2d_coef c, int rows)
{
	uint8_t *tile = (uint8_t *)conv2d_smem;
	const int bw = blockDim.x, bh = blockDim.y;
	const int th = bh * rows, stride = 16 * bw + 32, nrows = th + K - 1;
	const int bx0 = blockIdx.x * 16 * bw, by0 = blockIdx.y * th;
	const int nchunks = bw + 2, nt = bw * bh;
	const int tid = threadIdx.y * bw + threadIdx.x;

	for (int i = tid; i < nrows * nchunks; i += nt) {
		const int r = i / nchunks, cx = i % nchunks;
		const int yi = gf_border_index(by0 - K / 2 + r, in.height, c.border);
		const int x = bx0 - 16 + 16 * cx;
		uint4 v = make_uint4(0, 0, 0, 0);
		if (yi >= 0) {
			const uint8_t *row = gf_row<uint8_t>(in, yi);
			if (x >= 0 && x + 16 <= in.width) {
				v = __ldg((const uint4 *)(row + x));
			} else {
				uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
				for (int b = 0; b < 16; b++) {
					int xi = gf_border_index(x + b, in.width, c.border);
					uint32_t s = xi < 0 ? 0u : (uint32_t)__ldg(row + xi);
					w[b / 4] |= s << (8 * (b % 4));
				}
				v = make_uint4(w[0], w[1], w[2], w[3]);
			}
		}
		*(uint4 *)(tile + r * stride + 16 * cx) = v;
	}
	__syncthreads();
	const int x0 = bx0 + 16 * threadIdx.x, ybeg = by0 + threadIdx.y * rows;
	if (x0 >= in.width || ybeg >= in.height)
		return;
	const conv8_rows_smem sr = {tile + 16 + 16 * threadIdx.x, stride, by0 - K / 2};
	walk8<K, M>(sr, ybeg, min(ybeg + rows, in.height), out, x0, c);
}

/*
 * shared, 8 bit, taps in dp4a's range: the tensor cores (kernels/mma.cuh).
 * A block of 8 x bh threads (bh 16 or 32: groups of 4 warps, mma_shape)
 * makes a tile of 128 columns and th = bh * rows rows.  It copies the
 * tile's th + K - 1 input rows into shared memory, then each warp makes
 * 16 x 32 output pieces (four 16 x 8 products side by side, K rows each)
 * into the output tile, whose lines the block stores as 16-byte vectors.
 * The int32 sums are the dp4a kernels'.  PLAIN says the plan neither
 * divides nor takes |v|: the bias then starts the sums and the finish is
 * a clamp; otherwise it is conv2d_finish_i32.
 */
template <int K, bool PLAIN>
__global__ void __launch_bounds__(FAST_THREADS)
conv8_mma(gpu_image in, gpu_image out, conv2d_coef c, int rows)
{
	uint8_t *tile = (uint8_t *)conv2d_smem;
	const int nt = 8 * blockDim.y, tid = threadIdx.y * 8 + threadIdx.x;
	const int th = blockDim.y * rows, nrows = th + K - 1;
	const int bx0 = blockIdx.x * MMA_TW, by0 = blockIdx.y * th;
	uint8_t *otile = tile + nrows * MMA_IS;

	mma_load_tile(tile, in, bx0, by0 - K / 2, nrows, c.border, tid, nt);
	const int lane = tid & 31, g = lane >> 2, t = lane & 3;
	uint32_t b[K];
#pragma unroll
	for (int i = 0; i < K; i++)
		b[i] = mma_bword<K>(lane, c_taps.qtaps + i * CONV_DP4A_W);
	const int32_t d0 = PLAIN ? (int32_t)c.bias : 0;
	const int maxval = (int)c.maxval;
	__pipeline_wait_prior(0);
	__syncthreads();

	/* Warp w: column group w % 4 (32 columns), bands w / 4, + nt / 128, ... */
	const int xg = 32 * ((tid >> 5) & 3);
	const uint8_t *src0 = tile + g * MMA_IS + 12 + xg + 4 * t;
	uint8_t *dst0 = otile + g * MMA_OS + xg + 2 * t;
	for (int y = 16 * (tid >> 7); y < th; y += nt / 8) {
		if (by0 + y >= in.height)
			break;
		const uint8_t *src = src0 + y * MMA_IS;
		uint8_t *dst = dst0 + y * MMA_OS;
#pragma unroll
		for (int n = 0; n < 4; n++) {
			uint32_t a[K + 8];
#pragma unroll
			for (int r = 0; r < K + 8; r++)
				if (r < K || r >= 8)
					a[r] = *(const uint32_t *)(src + r * MMA_IS + 8 * n);
			int32_t d[4] = {d0, d0, d0, d0};
#pragma unroll
			for (int i = 0; i + 1 < K; i += 2) {
				const uint32_t ai[4] = {a[i], a[i + 8], a[i + 1], a[i + 9]};
				mma_k32(d, ai, b[i], b[i + 1]);
			}
			if (K % 2 == 1)
				mma_k16(d, a[K - 1], a[K + 7], b[K - 1]);
			unsigned f[4];
#pragma unroll
			for (int k = 0; k < 4; k++)
				f[k] = PLAIN ? (unsigned)min(max(d[k], 0), maxval) :
				    conv2d_finish_i32(d[k], &c);
			*(uint16_t *)(dst + 8 * n) = (uint16_t)__byte_perm(f[0], f[1], 0x0040);
			*(uint16_t *)(dst + 8 * MMA_OS + 8 * n) =
			    (uint16_t)__byte_perm(f[2], f[3], 0x0040);
		}
	}
	__syncthreads();
	mma_store_tile(otile, out, bx0, by0, th, tid, nt);
}

/*
 * The separable path, 8 bit, both passes in one kernel.  A block of
 * bw x bh threads makes a tile of 16 * bw columns and th = bh * rows rows.
 * Row pass: for the tile's th' + K - 1 input rows (th' = th rounded up to
 * SEP_R; row r is image row by0 - K/2 + r, border applied, 0.0f where
 * the border gives zeros, as the reference reads them) and each chunk, a
 * thread sums the row factors over its 16 + K - 1 window into 16 floats,
 * kept in shared memory (stride 16 * bw floats).  Synchronize.  Column
 * pass: an item is 4 columns and SEP_R output rows; it streams the
 * SEP_R + K - 1 tile rows it needs through registers (16-byte reads) and
 * adds column factor i = t - r of tile row ty + t to output row ty + r.
 */
template <int K, int M>
__global__ void __launch_bounds__(FAST_THREADS)
conv8_sep(gpu_image in, gpu_image out, conv2d_coef c, int rows)
{
	float *tmp = (float *)conv2d_smem;
	const int bw = blockDim.x, bh = blockDim.y, nt = bw * bh;
	const int tid = threadIdx.y * bw + threadIdx.x;
	const int tw = 16 * bw, th = bh * rows;
	const int thp = (th + SEP_R - 1) / SEP_R * SEP_R, nrows = thp + K - 1;
	const int bx0 = blockIdx.x * tw, by0 = blockIdx.y * th;

	for (int i = tid; i < nrows * bw; i += nt) {
		const int r = i / bw, cx = i % bw;
		const int yi = gf_border_index(by0 - K / 2 + r, in.height, c.border);
		float h[16];
#pragma unroll
		for (int k = 0; k < 16; k++)
			h[k] = 0.0f;
		if (yi >= 0) {
			float f[16 + K - 1];
			conv8_unpack<K>(fetch8<K>(in, yi, bx0 + 16 * cx, c.border), f);
#pragma unroll
			for (int k = 0; k < 16; k++) {
				float a = 0.0f;
#pragma unroll
				for (int j = 0; j < K; j++)
					a = fmaf(c_taps.frow[j], f[k + j], a);
				h[k] = a;
			}
		}
		float4 *dst = (float4 *)(tmp + r * tw + 16 * cx);
#pragma unroll
		for (int q = 0; q < 4; q++)
			dst[q] = make_float4(h[4 * q], h[4 * q + 1], h[4 * q + 2],
			    h[4 * q + 3]);
	}
	__syncthreads();
	const int ncg = tw / 4, nitems = ncg * (thp / SEP_R);
	for (int it = tid; it < nitems; it += nt) {
		const int cg = it % ncg, ty = it / ncg * SEP_R;
		const int x = bx0 + 4 * cg;
		if (x >= out.width || by0 + ty >= out.height)
			continue;
		float a[SEP_R][4];
#pragma unroll
		for (int r = 0; r < SEP_R; r++)
#pragma unroll
			for (int q = 0; q < 4; q++)
				a[r][q] = 0.0f;
#pragma unroll
		for (int t = 0; t < SEP_R + K - 1; t++) {
			const float4 v4 = *(const float4 *)(tmp + (ty + t) * tw + 4 * cg);
			const float v[4] = {v4.x, v4.y, v4.z, v4.w};
#pragma unroll
			for (int r = 0; r < SEP_R; r++) {
				const int i = t - r;
				if (i < 0 || i >= K)
					continue;
#pragma unroll
				for (int q = 0; q < 4; q++)
					a[r][q] = fmaf(c_taps.fcol[i], v[q],
					    i == 0 ? 0.0f : a[r][q]);
			}
		}
#pragma unroll
		for (int r = 0; r < SEP_R; r++) {
			const int y = by0 + ty + r;
			if (ty + r >= th || y >= out.height)
				break;
			unsigned res[4];
#pragma unroll
			for (int q = 0; q < 4; q++)
				res[q] = finish8<M>(a[r][q], c);
			uint8_t *row = gf_row_out<uint8_t>(out, y);
			if (x + 4 <= out.width) {
				*(uint32_t *)(row + x) = pack4(res[0], res[1], res[2], res[3]);
			} else {
#pragma unroll
				for (int q = 0; q < 4; q++)
					if (x + q < out.width)
						row[x + q] = (uint8_t)res[q];
			}
		}
	}
}

/* ---- launch shapes and the choice of the fast paths (host) */

/*
 * K when strategy (GF_SHARED, GF_SLIDING, or GF_AUTO for the separable
 * path) has an 8-bit fast kernel for c, else 0.
 */
static int
fast_k(const conv2d_coef &c, int strategy)
{
	if (c.maxval > 255 || c.kw != c.kh ||
	    !(c.mode == CONV2D_F32 || (c.mode == CONV2D_I32 && c.fexact)))
		return 0;
	if (strategy == GF_AUTO)
		return c.kw >= 3 && c.kw <= 25 && c.kw % 2 == 1 ? c.kw : 0;
	if (strategy == GF_SHARED || strategy == GF_SLIDING)
		return c.kw == 3 || c.kw == 5 || c.kw == 7 || c.kw == 9 ? c.kw : 0;
	return 0;
}

/*
 * Whether shared runs the tensor cores' kernel (conv8_mma) for c at
 * shape l: taps in dp4a's range, 8 threads across (128 columns), whole
 * groups of 4 warps (one per 32 columns).
 */
static bool
mma_takes(const conv2d_coef &c, const gf_launch *l)
{
	return c.dp4a && mma_shape(l->block_w, l->block_h);
}

/* Shared memory of the fast kernel of strategy for shape l. */
static size_t
fast_smem(const conv2d_coef &c, int strategy, const gf_launch *l)
{
	size_t th = (size_t)l->block_h * l->rows;

	if (strategy == GF_SHARED && mma_takes(c, l))
		return mma_smem(c.kw, (int)th);
	if (strategy == GF_SHARED)
		return (th + c.kw - 1) * (16 * (size_t)l->block_w + 32);
	if (strategy == GF_AUTO)
		return ((th + SEP_R - 1) / SEP_R * SEP_R + c.kw - 1) *
		    16 * (size_t)l->block_w * 4;
	return 0;
}

/* Whether the fast kernel runs for this shape (else the generic one does). */
static bool
fast_runs(const conv2d_coef &c, int strategy, const gf_launch *l)
{
	return fast_k(c, strategy) != 0 && l->block_w >= 1 && l->block_h >= 1 &&
	    l->rows >= 1 && (long)l->block_w * l->block_h <= FAST_THREADS &&
	    fast_smem(c, strategy, l) <= FAST_SMEM;
}

/*
 * Default launch shapes by strategy, chosen by the bench's sweep on an
 * H100 (build/bench/bench -s conv2d, 12288x12288): for the generic
 * kernels, and for the 8-bit fast ones, whose threads make 16 columns
 * each, up to 5x5 and wider.  The separable path runs for every strategy
 * when the plan is separable; it takes the auto row.
 */
static const struct conv2d_defaults {
	struct gf_launch generic, fast8, fast8_wide;
} conv2d_defaults[GF_NSTRATEGIES] = {
	/* generic        fast8        fast8, K > 5 */
	{{32, 8, 4},    {8, 16, 4},  {8, 16, 4}},    /* auto: the separable path */
	{{0, 0, 0},     {0, 0, 0},   {0, 0, 0}},     /* cpu */
	{{32, 8, 1},    {32, 8, 1},  {32, 8, 1}},    /* global (no fast kernel) */
	{{32, 8, 1},    {32, 8, 1},  {32, 8, 1}},    /* texture (no fast kernel) */
	{{32, 8, 4},    {16, 8, 8},  {16, 8, 8}},    /* shared */
	{{128, 1, 32},  {32, 4, 16}, {32, 4, 32}},   /* sliding */
};

/*
 * Besides the table, from the same sweep.  shared's tensor-core kernel
 * (dp4a taps): 32-row tiles of 8x16 threads up to 5x5, whose apron of
 * K - 1 rows is short (3x3: 85% of copy against 78% for 64 rows), 64
 * rows wider (9x9: 66% against 61%).  The fused separable kernel above
 * 11 taps: tiles of 32 columns and 256 rows, whose row pass recomputes
 * K - 1 apron rows for 256 outputs, not 64 (gauss:4, 25 taps: 0.457 ms
 * against 0.516 for the auto row; gauss:1.4, 11 taps: 0.287 against
 * 0.282, and box:5 0.334 against 0.323, so narrower kernels keep it).
 */
static const struct gf_launch mma8 = {8, 16, 2}, mma8_wide = {8, 16, 4};
static const struct gf_launch sep8_tall = {2, 64, 4};

extern "C" void
conv2d_shape(const struct conv2d_coef *c, enum gf_strategy s,
    struct gf_launch *l)
{
	const struct conv2d_defaults *d = &conv2d_defaults[s];
	const int k = fast_k(*c, s);

	if (s == GF_AUTO && k > 11)
		gf_launch_default(s, &sep8_tall, l);
	else if (s == GF_SHARED && k != 0 && c->dp4a)
		gf_launch_default(s, k <= 5 ? &mma8 : &mma8_wide, l);
	else
		gf_launch_default(s, k == 0 ? &d->generic : k <= 5 ? &d->fast8 :
		    &d->fast8_wide, l);
}

/* shared where the tensor cores take the taps, sliding where another fast kernel runs. */
extern "C" enum gf_strategy
conv2d_auto(const struct conv2d_coef *c)
{
	return fast_k(*c, GF_SLIDING) != 0 && !c->dp4a ? GF_SLIDING : GF_SHARED;
}

extern "C" int
conv2d_tile_w(const struct conv2d_coef *c, int strategy,
    const struct gf_launch *l)
{
	return fast_runs(*c, strategy, l) ? 16 * l->block_w : l->block_w;
}

extern "C" size_t
conv2d_smem_sep(const struct conv2d_coef *c, const struct gf_launch *l)
{
	return fast_runs(*c, GF_AUTO, l) ? fast_smem(*c, GF_AUTO, l) : 0;
}

/* ---- launchers */

extern "C" size_t
conv2d_smem_tile(const struct conv2d_coef *c, const struct gf_launch *l)
{
	if (fast_runs(*c, GF_SHARED, l))
		return fast_smem(*c, GF_SHARED, l);
	return (size_t)(l->block_w + c->kw - 1) *
	    ((size_t)l->block_h * l->rows + c->kh - 1) * gf_sample_bytes(c->maxval);
}

extern "C" size_t
conv2d_smem_rows(const struct conv2d_coef *c, const struct gf_launch *l)
{
	return (size_t)(l->block_w + c->kw - 1) * l->block_h * l->rows *
	    gf_sample_bytes(c->maxval);
}

extern "C" size_t
conv2d_smem_cols(const struct conv2d_coef *c, const struct gf_launch *l)
{
	return (size_t)l->block_w * ((size_t)l->block_h * l->rows + c->kh - 1) * 4;
}

extern "C" cudaError_t
conv2d_set_taps(const struct conv2d_taps *t, cudaStream_t st)
{
	return cudaMemcpyToSymbolAsync(c_taps, t, sizeof(*t), 0,
	    cudaMemcpyHostToDevice, st);
}

/* Blocks covering a width x height output, each making a tile of bw x (bh * rows). */
static dim3
conv2d_grid(int width, int height, const struct gf_launch *l)
{
	int th = l->block_h * l->rows;
	return dim3((width + l->block_w - 1) / l->block_w, (height + th - 1) / th);
}

template <typename T, typename Acc>
static void
launch_sliding(const gpu_image &in, const gpu_image &out, const conv2d_coef &c,
    const gf_launch *l, cudaStream_t st)
{
	dim3 grid = conv2d_grid(in.width, in.height, l);
	dim3 block(l->block_w, l->block_h);

	switch (c.kh) {
	case 3: conv2d_sliding<T, Acc, 3><<<grid, block, 0, st>>>(in, out, c, l->rows); break;
	case 5: conv2d_sliding<T, Acc, 5><<<grid, block, 0, st>>>(in, out, c, l->rows); break;
	case 7: conv2d_sliding<T, Acc, 7><<<grid, block, 0, st>>>(in, out, c, l->rows); break;
	case 9: conv2d_sliding<T, Acc, 9><<<grid, block, 0, st>>>(in, out, c, l->rows); break;
	default: conv2d_sliding<T, Acc, 0><<<grid, block, 0, st>>>(in, out, c, l->rows); break;
	}
}

/* The fast 2D kernel of strategy (shared or sliding) for size K and mode M. */
template <int K, int M>
static void
launch_fast2d_km(int strategy, const gpu_image &in, const gpu_image &out,
    const conv2d_coef &c, const gf_launch *l, cudaStream_t st)
{
	int th = l->block_h * l->rows, tw = 16 * l->block_w;
	dim3 grid((in.width + tw - 1) / tw, (in.height + th - 1) / th);
	dim3 block(l->block_w, l->block_h);
	const size_t smem = fast_smem(c, strategy, l);

	if (strategy == GF_SHARED && M == CONV8_DP4A && mma_takes(c, l)) {
		if (c.div == 1 && !c.abs)
			conv8_mma<K, true><<<grid, block, smem, st>>>(in, out, c, l->rows);
		else
			conv8_mma<K, false><<<grid, block, smem, st>>>(in, out, c, l->rows);
	} else if (strategy == GF_SHARED)
		conv8_shared<K, M><<<grid, block, smem, st>>>(in, out, c, l->rows);
	else
		conv8_sliding<K, M><<<grid, block, 0, st>>>(in, out, c, l->rows);
}

template <int M>
static void
launch_fast2d_m(int strategy, const gpu_image &in, const gpu_image &out,
    const conv2d_coef &c, const gf_launch *l, cudaStream_t st)
{
	switch (c.kw) {
	case 3: launch_fast2d_km<3, M>(strategy, in, out, c, l, st); break;
	case 5: launch_fast2d_km<5, M>(strategy, in, out, c, l, st); break;
	case 7: launch_fast2d_km<7, M>(strategy, in, out, c, l, st); break;
	default: launch_fast2d_km<9, M>(strategy, in, out, c, l, st); break;
	}
}

template <typename T, typename Acc>
static cudaError_t
launch_2d(int strategy, const gpu_image &in, const gpu_image &out,
    cudaTextureObject_t tex, const conv2d_coef &c, const gf_launch *l,
    cudaStream_t st)
{
	dim3 grid = conv2d_grid(in.width, in.height, l);
	dim3 block(l->block_w, l->block_h);

	switch (strategy) {
	case GF_GLOBAL:
		conv2d_global<T, Acc><<<grid, block, 0, st>>>(in, out, c);
		break;
	case GF_TEXTURE:
		conv2d_texture<T, Acc><<<grid, block, 0, st>>>(tex, out, c);
		break;
	case GF_SHARED:
		conv2d_shared<T, Acc><<<grid, block, conv2d_smem_tile(&c, l), st>>>(
		    in, out, c, l->rows);
		break;
	case GF_SLIDING:
		launch_sliding<T, Acc>(in, out, c, l, st);
		break;
	default:
		return cudaErrorInvalidValue;
	}
	return cudaGetLastError();
}

template <typename T>
static cudaError_t
launch_2d_mode(int strategy, const gpu_image &in, const gpu_image &out,
    cudaTextureObject_t tex, const conv2d_coef &c, const gf_launch *l,
    cudaStream_t st)
{
	switch (c.mode) {
	case CONV2D_I32: return launch_2d<T, int32_t>(strategy, in, out, tex, c, l, st);
	case CONV2D_I64: return launch_2d<T, int64_t>(strategy, in, out, tex, c, l, st);
	default: return launch_2d<T, float>(strategy, in, out, tex, c, l, st);
	}
}

extern "C" cudaError_t
conv2d_launch_2d(int strategy, const struct gpu_image *in,
    const struct gpu_image *out, cudaTextureObject_t tex,
    const struct conv2d_coef *c, const struct gf_launch *l, cudaStream_t st)
{
	if (in->maxval <= 255 && fast_runs(*c, strategy, l)) {
		if (c->dp4a)
			launch_fast2d_m<CONV8_DP4A>(strategy, *in, *out, *c, l, st);
		else if (c->mode == CONV2D_F32)
			launch_fast2d_m<CONV2D_F32>(strategy, *in, *out, *c, l, st);
		else
			launch_fast2d_m<CONV2D_I32>(strategy, *in, *out, *c, l, st);
		return cudaGetLastError();
	}
	if (in->maxval > 255)
		return launch_2d_mode<uint16_t>(strategy, *in, *out, tex, *c, l, st);
	return launch_2d_mode<uint8_t>(strategy, *in, *out, tex, *c, l, st);
}

template <typename T, typename R>
static cudaError_t
launch_rows(const gpu_image &in, void *tmp, size_t tpitch, const conv2d_coef &c,
    const gf_launch *l, cudaStream_t st)
{
	conv2d_rows<T, R><<<conv2d_grid(in.width, in.height, l),
	    dim3(l->block_w, l->block_h), conv2d_smem_rows(&c, l), st>>>(
	    in, (R *)tmp, tpitch, c, l->rows);
	return cudaGetLastError();
}

extern "C" cudaError_t
conv2d_launch_rows(const struct gpu_image *in, void *tmp, size_t tmp_pitch,
    const struct conv2d_coef *c, const struct gf_launch *l, cudaStream_t st)
{
	int f = c->mode == CONV2D_F32;

	if (in->maxval > 255)
		return f ? launch_rows<uint16_t, float>(*in, tmp, tmp_pitch, *c, l, st) :
		    launch_rows<uint16_t, int32_t>(*in, tmp, tmp_pitch, *c, l, st);
	return f ? launch_rows<uint8_t, float>(*in, tmp, tmp_pitch, *c, l, st) :
	    launch_rows<uint8_t, int32_t>(*in, tmp, tmp_pitch, *c, l, st);
}

template <typename Acc, typename T>
static cudaError_t
launch_cols(const void *tmp, size_t tpitch, const gpu_image &out,
    const conv2d_coef &c, const gf_launch *l, cudaStream_t st)
{
	typedef typename row_acc<Acc>::type R;

	conv2d_cols<R, Acc, T><<<conv2d_grid(out.width, out.height, l),
	    dim3(l->block_w, l->block_h), conv2d_smem_cols(&c, l), st>>>(
	    (const R *)tmp, tpitch, out, c, l->rows);
	return cudaGetLastError();
}

template <typename T>
static cudaError_t
launch_cols_mode(const void *tmp, size_t tpitch, const gpu_image &out,
    const conv2d_coef &c, const gf_launch *l, cudaStream_t st)
{
	switch (c.mode) {
	case CONV2D_I32: return launch_cols<int32_t, T>(tmp, tpitch, out, c, l, st);
	case CONV2D_I64: return launch_cols<int64_t, T>(tmp, tpitch, out, c, l, st);
	default: return launch_cols<float, T>(tmp, tpitch, out, c, l, st);
	}
}

extern "C" cudaError_t
conv2d_launch_cols(const void *tmp, size_t tmp_pitch,
    const struct gpu_image *out, const struct conv2d_coef *c,
    const struct gf_launch *l, cudaStream_t st)
{
	if (out->maxval > 255)
		return launch_cols_mode<uint16_t>(tmp, tmp_pitch, *out, *c, l, st);
	return launch_cols_mode<uint8_t>(tmp, tmp_pitch, *out, *c, l, st);
}

/* ---- the fused 8-bit separable path */

template <int K, int M>
static void
launch_sep_km(const gpu_image &in, const gpu_image &out, const conv2d_coef &c,
    const gf_launch *l, cudaStream_t st)
{
	int th = l->block_h * l->rows, tw = 16 * l->block_w;
	dim3 grid((in.width + tw - 1) / tw, (in.height + th - 1) / th);

	conv8_sep<K, M><<<grid, dim3(l->block_w, l->block_h),
	    fast_smem(c, GF_AUTO, l), st>>>(in, out, c, l->rows);
}

template <int M>
static void
launch_sep_m(const gpu_image &in, const gpu_image &out, const conv2d_coef &c,
    const gf_launch *l, cudaStream_t st)
{
	switch (c.kw) {
	case 3: launch_sep_km<3, M>(in, out, c, l, st); break;
	case 5: launch_sep_km<5, M>(in, out, c, l, st); break;
	case 7: launch_sep_km<7, M>(in, out, c, l, st); break;
	case 9: launch_sep_km<9, M>(in, out, c, l, st); break;
	case 11: launch_sep_km<11, M>(in, out, c, l, st); break;
	case 13: launch_sep_km<13, M>(in, out, c, l, st); break;
	case 15: launch_sep_km<15, M>(in, out, c, l, st); break;
	case 17: launch_sep_km<17, M>(in, out, c, l, st); break;
	case 19: launch_sep_km<19, M>(in, out, c, l, st); break;
	case 21: launch_sep_km<21, M>(in, out, c, l, st); break;
	case 23: launch_sep_km<23, M>(in, out, c, l, st); break;
	default: launch_sep_km<25, M>(in, out, c, l, st); break;
	}
}

extern "C" cudaError_t
conv2d_launch_sep(const struct gpu_image *in, const struct gpu_image *out,
    const struct conv2d_coef *c, const struct gf_launch *l, cudaStream_t st)
{
	if (in->maxval > 255 || !fast_runs(*c, GF_AUTO, l))
		return cudaErrorInvalidValue;
	if (c->mode == CONV2D_F32)
		launch_sep_m<CONV2D_F32>(*in, *out, *c, l, st);
	else
		launch_sep_m<CONV2D_I32>(*in, *out, *c, l, st);
	return cudaGetLastError();
}
