/*
 * sobel.cu - the sobel stencil on the GPU, four ways.  Every kernel hands
 * the same nine samples to sobel_px (lib/ops/sobel/sobel_core.h); they differ only
 * in how the samples arrive:
 *
 *   global   one thread per pixel, nine reads through the border rule
 *   texture  one thread per pixel, nine reads through the texture cache
 *   shared   a block copies its tile and one-pixel apron into shared
 *            memory with 16-byte loads, then each thread computes 16-byte
 *            chunks of several rows from it
 *   sliding  each thread owns a 16-byte-wide column strip of several rows
 *            and slides a three-row window down it in registers, so each
 *            input row is loaded once per strip
 *
 * Kernels are templated on the sample type T and the output mode M, so the
 * core's switch on the mode folds away.
 */
#include <cuda_fp16.h>

#include "sobel.h"
#include "stencil.cuh"

/* The parameters with the mode fixed at compile time. */
template <int M>
__device__ __forceinline__ struct sobel_params
fixed_mode(struct sobel_params p)
{
	p.mode = M;
	return p;
}

template <typename T, int M>
__global__ void
sobel_global(gpu_image in, gpu_image out, struct sobel_params p, int border)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= in.width || y >= in.height)
		return;
	struct sobel_params q = fixed_mode<M>(p);
	int a = gf_load_px<T>(in, x - 1, y - 1, border);
	int b = gf_load_px<T>(in, x, y - 1, border);
	int c = gf_load_px<T>(in, x + 1, y - 1, border);
	int d = gf_load_px<T>(in, x - 1, y, border);
	int f = gf_load_px<T>(in, x + 1, y, border);
	int g = gf_load_px<T>(in, x - 1, y + 1, border);
	int h = gf_load_px<T>(in, x, y + 1, border);
	int i = gf_load_px<T>(in, x + 1, y + 1, border);
	gf_row_out<T>(out, y)[x] = (T)sobel_px(a, b, c, d, f, g, h, i, &q);
}

/* A texture read at (x, y) after the border rule; the zero border reads 0. */
template <typename T>
__device__ __forceinline__ int
tex_px(cudaTextureObject_t tex, int x, int y, int w, int h, int border)
{
	int xi = gf_border_index(x, w, border), yi = gf_border_index(y, h, border);
	if (xi < 0 || yi < 0)
		return 0;
	return tex2D<T>(tex, xi + 0.5f, yi + 0.5f);
}

template <typename T, int M>
__global__ void
sobel_texture(cudaTextureObject_t tex, gpu_image out, struct sobel_params p,
    int border)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int w = out.width, h = out.height;
	if (x >= w || y >= h)
		return;
	struct sobel_params q = fixed_mode<M>(p);
	int a = tex_px<T>(tex, x - 1, y - 1, w, h, border);
	int b = tex_px<T>(tex, x, y - 1, w, h, border);
	int c = tex_px<T>(tex, x + 1, y - 1, w, h, border);
	int d = tex_px<T>(tex, x - 1, y, w, h, border);
	int f = tex_px<T>(tex, x + 1, y, w, h, border);
	int g = tex_px<T>(tex, x - 1, y + 1, w, h, border);
	int hh = tex_px<T>(tex, x, y + 1, w, h, border);
	int i = tex_px<T>(tex, x + 1, y + 1, w, h, border);
	gf_row_out<T>(out, y)[x] = (T)sobel_px(a, b, c, d, f, g, hh, i, &q);
}

/* VEC(T) outputs of one row from the windows of the rows above, at and below. */
template <typename T, int M>
__device__ __forceinline__ void
sobel_chunk(const int *up, const int *mid, const int *down,
    const struct sobel_params *q, unsigned *r)
{
#pragma unroll
	for (int k = 0; k < VEC(T); k++)
		r[k] = sobel_px(up[k], up[k + 1], up[k + 2], mid[k], mid[k + 2],
		    down[k], down[k + 1], down[k + 2], q);
}

/*
 * The 8-bit path of shared and sliding.  A thread owns the 16 columns of
 * one 16-byte chunk and walks down a run of rows.  Samples become pairs of
 * half-precision numbers 1024 + p, one byte permute per pair; every sum
 * and difference the gradients need is an integer of magnitude at most
 * 2048, exact in half precision, so one instruction serves two pixels.
 * Sobel is separable:
 *
 *   gx(y) = hd(y-1) + 2 hd(y) + hd(y+1)     hd = p(x+1) - p(x-1)
 *   gy(y) = hs(y+1) - hs(y-1)               hs = p(x-1) + 2 p(x) + p(x+1)
 *
 * so each input row's hd and hs are made once, and an output row costs
 * three instructions per pair of pixels, then the mode's.  The samples
 * just left and right of a chunk are the neighbouring threads': they cross
 * by warp shuffles, and only a thread at a warp, block or image edge loads
 * its own.  Loads run three rows ahead of the arithmetic.
 */

/* Two halves as the bits of one register, and back. */
__device__ __forceinline__ __half2
h2(uint32_t u)
{
	union { uint32_t u; __half2 h; } c;
	c.u = u;
	return c.h;
}

__device__ __forceinline__ uint32_t
h2bits(__half2 h)
{
	union { uint32_t u; __half2 h; } c;
	c.h = h;
	return c.u;
}

/* Rows in flight per thread of the 8-bit sliding kernel. */
#define SLIDE_DEPTH 4

/* Bytes 0x64: permuted above a byte p they make the half 1024 + p. */
#define HALF_HI 0x64646464u

/* One row's chunk at x0, and the samples at x0 - 1 and x0 + 16 where the thread loads them. */
struct raw8 {
	uint4 q;
	uint32_t l, r;
};

/* Where a thread's row neighbours come from. */
struct lanes8 {
	unsigned mask;          /* the threads of the warp */
	bool own_l, own_r;      /* loads x0 - 1 (x0 + 16) itself, not by shuffle */
	bool slow;              /* reaches the right edge: every sample through the border rule */
};

/*
 * A thread's lanes8: its shuffle partner must hold the chunk beside it on
 * the same row, which the lanes either side in the warp do unless the
 * thread is at a warp's or a block row's end.
 */
__device__ __forceinline__ lanes8
lanes8_for(int x0, int width)
{
	const int lane = (threadIdx.y * blockDim.x + threadIdx.x) & 31;
	lanes8 ln;
	ln.mask = __activemask();
	ln.slow = x0 + 17 > width;
	ln.own_l = lane == 0 || threadIdx.x == 0 || x0 == 0 || ln.slow;
	ln.own_r = lane == 31 || threadIdx.x == blockDim.x - 1 || ln.slow;
	return ln;
}

/*
 * Row y at column x0 for a chunk that reaches the image's right edge
 * (sliding's slow threads), its neighbours from columns lx and rx (-1:
 * zero).  The chunk is one load where it lies inside the image, and
 * gf_chunk_border past the edge (a width that is not a multiple of 16):
 * unrolled in each of the walk's three steps, that rare path was most of
 * the kernel's code.
 */
__device__ __forceinline__ raw8
fetch8_edge(const gpu_image &in, int y, int x0, int border, int lx, int rx)
{
	raw8 w = {make_uint4(0, 0, 0, 0), 0, 0};
	int yi = gf_border_index(y, in.height, border);
	if (yi < 0 || x0 >= in.width)
		return w;
	const uint8_t *row = gf_row<uint8_t>(in, yi);
	w.l = lx < 0 ? 0 : __ldg(row + lx);
	w.r = rx < 0 ? 0 : __ldg(row + rx);
	w.q = x0 + 16 <= in.width ? __ldg((const uint4 *)(row + x0)) :
	    gf_chunk_border<uint8_t>(row, x0, in.width, border);
	return w;
}

/*
 * The rows of a shared tile whose row 0 holds image row y_top - 1, with
 * the border already applied (shared), one after the other.
 */
struct rows8_smem {
	const uint8_t *col;     /* column x0 of tile row 0, 16-byte aligned */
	int stride, y_top;
	lanes8 ln;
	int y, last;

	__device__ __forceinline__ void begin(int first, int last_row)
	{
		y = first;
		last = last_row;
	}

	__device__ __forceinline__ raw8 next()
	{
		raw8 w = {make_uint4(0, 0, 0, 0), 0, 0};
		if (y <= last) {
			const uint8_t *src = col + (y - y_top + 1) * stride;
			w.q = *(const uint4 *)src;
			if (ln.own_l)
				w.l = src[-1];
			if (ln.own_r)
				w.r = src[16];
		}
		y++;
		return w;
	}

	__device__ __forceinline__ void end() {}
};

/*
 * The words beside a sliding thread's chunk that it copies itself: the
 * aligned 4 bytes that hold its neighbour, where that lies at a warp or
 * block edge.  A thread whose chunk crosses the right edge of the image
 * copies nothing and reads every sample through the border rule.
 */
struct sides8 {
	lanes8 ln;
	int lx, rx;             /* columns of the neighbours (-1: zero) */

	__device__ __forceinline__ bool off() const { return ln.slow; }

	__device__ __forceinline__ void copy(const uint8_t *row, int, uint32_t *l,
	    uint32_t *r, int yi) const
	{
		if (ln.own_l)
			__pipeline_memcpy_async(l, row + (lx & ~3), 4,
			    yi < 0 || lx < 0 ? 4 : 0);
		if (ln.own_r)
			__pipeline_memcpy_async(r, row + (rx & ~3), 4,
			    yi < 0 || rx < 0 ? 4 : 0);
	}
};

/*
 * The rows of the image at column x0 one after the other (sliding),
 * copied SLIDE_DEPTH rows ahead into a ring of shared memory (gf_ring8).
 */
struct rows8_ring {
	gf_ring8<SLIDE_DEPTH, sides8> ring;

	__device__ __forceinline__ void begin(int first, int last_row)
	{
		sides8 &sd = ring.sides;
		sd.lx = gf_border_index(ring.x0 - 1, ring.in.width, ring.border);
		sd.rx = gf_border_index(ring.x0 + 16, ring.in.width, ring.border);
		ring.begin(first, last_row);
	}

	__device__ __forceinline__ raw8 next()
	{
		const sides8 &sd = ring.sides;
		raw8 w;
		if (sd.ln.slow) {
			w = fetch8_edge(ring.in, ring.y, ring.x0, ring.border, sd.lx, sd.rx);
		} else {
			const int o = ring.wait();
			w.q = ring.q[o];
			w.l = sd.ln.own_l ? (ring.l[o] >> 8 * (sd.lx & 3)) & 0xff : 0;
			w.r = sd.ln.own_r ? (ring.r[o] >> 8 * (sd.rx & 3)) & 0xff : 0;
		}
		ring.next();
		return w;
	}

	__device__ __forceinline__ void end()
	{
		ring.end();
	}
};

/* One input row as the output rows need it: hd and hs of its 8 column pairs. */
struct grad8 {
	__half2 hd[8];          /* p(x+1) - p(x-1) */
	__half2 hs[8];          /* p(x-1) + 2 p(x) + p(x+1), plus 1024 */
};

/*
 * The grad8 of a loaded row.  With f[i] = 1024 + p(x0 - 1 + i), pair a[j]
 * is (f[2j], f[2j+1]) and b[j] is (f[2j+1], f[2j+2]): then column pair j
 * (x0 + 2j, x0 + 2j + 1) has hd = a[j+1] - a[j] and hs = a[j] + 2 b[j] +
 * a[j+1] - 3072, summed in an order that keeps every partial sum within
 * 2048.  The neighbours l and r come from the threads beside by shuffle.
 */
__device__ __forceinline__ grad8
grad8_of(const raw8 &w, const lanes8 &ln)
{
	const uint4 q = w.q;
	uint32_t l = __shfl_up_sync(ln.mask, __byte_perm(q.w, HALF_HI, 0x4443), 1);
	uint32_t r = __shfl_down_sync(ln.mask, __byte_perm(q.x, HALF_HI, 0x4440), 1);
	if (ln.own_l)
		l = 0x6400u | w.l;
	if (ln.own_r)
		r = 0x6400u | w.r;

	const uint32_t w1 = __funnelshift_r(q.x, q.y, 24);     /* bytes 3..6 */
	const uint32_t w2 = __funnelshift_r(q.y, q.z, 24);     /* 7..10 */
	const uint32_t w3 = __funnelshift_r(q.z, q.w, 24);     /* 11..14 */
	const uint32_t a[9] = {
		__byte_perm(q.x, l, 0x5054), __byte_perm(q.x, HALF_HI, 0x4241),
		__byte_perm(w1, HALF_HI, 0x4140), __byte_perm(w1, HALF_HI, 0x4342),
		__byte_perm(w2, HALF_HI, 0x4140), __byte_perm(w2, HALF_HI, 0x4342),
		__byte_perm(w3, HALF_HI, 0x4140), __byte_perm(w3, HALF_HI, 0x4342),
		__byte_perm(q.w, r, 0x5453),
	};
	const uint32_t qw[4] = {q.x, q.y, q.z, q.w};
	const __half2 two = __float2half2_rn(2.0f), m3072 = __float2half2_rn(-3072.0f);
	grad8 g;
#pragma unroll
	for (int j = 0; j < 8; j++) {
		__half2 b = h2(__byte_perm(qw[j / 2], HALF_HI, j % 2 ? 0x4342 : 0x4140));
		g.hd[j] = __hsub2(h2(a[j + 1]), h2(a[j]));
		g.hs[j] = __hadd2(__hadd2(h2(a[j]), __hfma2(two, b, m3072)), h2(a[j + 1]));
	}
	return g;
}

/*
 * 0xff in bytes 0 and 1 where a is negative, in bytes 2 and 3 where b is,
 * else 0: the byte permute's sign mode (selector 8 + byte: that byte's
 * top bit copied through), which __byte_perm does not offer.
 */
__device__ __forceinline__ uint32_t
sign_bytes(float a, float b)
{
	uint32_t r;
	asm("prmt.b32 %0, %1, %2, 0xffbb;" : "=r"(r) : "r"(__float_as_uint(a)),
	    "r"(__float_as_uint(b)));
	return r;
}

/*
 * Two outputs, as the low bytes of the halves of a register, from their
 * gradients (for the L2 threshold, 0xff where a pixel passes: emit8 masks
 * a word of four at once with maxval).
 */
template <int M>
__device__ __forceinline__ uint32_t
pair8(__half2 gx, __half2 gy, const struct sobel_params *q)
{
	if (M == SOBEL_MAG_L1 || M == SOBEL_THRESH_L1) {
		__half2 l1 = __hadd2(__habs2(gx), __habs2(gy));        /* <= 2040 */
		if (M == SOBEL_MAG_L1)
			return h2bits(__hadd2(__hmin2(l1, __float2half2_rn((float)q->maxval)),
			    __float2half2_rn(1024.0f)));
		float t = q->thresh > 2048 ? 2048.0f : (float)q->thresh;
		return __hgt2_mask(l1, __float2half2_rn(t)) & (q->maxval * 0x10001u);
	}
	float2 fx = __half22float2(gx), fy = __half22float2(gy);
	if (M == SOBEL_THRESH_L2) {
		/*
		 * t - gx^2 - gy^2 is exact in float (integers below 2^24), and
		 * negative just where the pixel passes: its sign bit, spread
		 * over the output byte, is the answer.
		 */
		float t = sobel_thresh_f(q);
		float d0 = fmaf(-fx.x, fx.x, fmaf(-fy.x, fy.x, t));
		float d1 = fmaf(-fx.y, fx.y, fmaf(-fy.y, fy.y, t));
		return sign_bytes(d0, d1);      /* emit8 keeps maxval's bits */
	}
	float m = (float)q->maxval;
	return __byte_perm(__float_as_uint(sobel_root_biased(fx.x, fy.x, m)),
	    __float_as_uint(sobel_root_biased(fx.y, fy.y, m)), 0x0400);
}

/* Output row y at x0 from the grad8 of the rows above, at and below. */
template <int M>
__device__ __forceinline__ void
emit8(const gpu_image &out, int y, int x0, const grad8 &u, const grad8 &m,
    const grad8 &d, const struct sobel_params *q)
{
	const __half2 two = __float2half2_rn(2.0f);
	uint32_t pr[8], w[4];
#pragma unroll
	for (int j = 0; j < 8; j++) {
		__half2 gx = __hadd2(__hfma2(two, m.hd[j], u.hd[j]), d.hd[j]);
		__half2 gy = __hsub2(d.hs[j], u.hs[j]);
		pr[j] = pair8<M>(gx, gy, q);
	}
#pragma unroll
	for (int i = 0; i < 4; i++) {
		w[i] = __byte_perm(pr[2 * i], pr[2 * i + 1], 0x6420);
		if (M == SOBEL_THRESH_L2)
			w[i] &= q->maxval * 0x01010101u;
	}
	uint8_t *row = gf_row_out<uint8_t>(out, y);
	if (x0 + 16 <= out.width)
		*(uint4 *)(row + x0) = make_uint4(w[0], w[1], w[2], w[3]);
	else
		gf_store_bytes(row + x0, make_uint4(w[0], w[1], w[2], w[3]), out.width - x0);
}

/*
 * Output rows ybeg .. ybeg + nrows - 1 (those above yend) of the chunk at
 * x0, from the rows of src.  Every thread of a warp takes each step while
 * any needs it (the shuffles need them all); src reads only up to the last
 * row the outputs need.  g0, g1, g2 rotate instead of being copied.
 */
template <int M, class Rows>
__device__ __forceinline__ void
walk8(Rows &src, const lanes8 &ln, int ybeg, int nrows, int yend,
    const gpu_image &out, int x0, const struct sobel_params *q)
{
	const int last = min(ybeg + nrows, yend);
	const bool store = x0 < out.width;

	src.begin(ybeg - 1, last);
	grad8 g0 = grad8_of(src.next(), ln), g1 = grad8_of(src.next(), ln), g2;
	for (int y = ybeg; __any_sync(ln.mask, y < last); y += 3) {
		g2 = grad8_of(src.next(), ln);
		if (store && y < last)
			emit8<M>(out, y, x0, g0, g1, g2, q);
		g0 = grad8_of(src.next(), ln);
		if (store && y + 1 < last)
			emit8<M>(out, y + 1, x0, g1, g2, g0, q);
		g1 = grad8_of(src.next(), ln);
		if (store && y + 2 < last)
			emit8<M>(out, y + 2, x0, g2, g0, g1, q);
	}
	src.end();
}

/* Moves the three-row window down by one row. */
template <typename T>
__device__ __forceinline__ void
slide_rows(int *up, int *mid, const int *down)
{
#pragma unroll
	for (int k = 0; k < VEC(T) + 2; k++) {
		up[k] = mid[k];
		mid[k] = down[k];
	}
}

/*
 * Shared tile layout: (rows per block + 2) rows of stride
 * (block_w + 2) * VEC samples; row r holds image row y0 - 1 + r, and
 * column VEC + j holds image column x0 + j, so the left apron sample sits
 * at VEC - 1 and the right one at VEC + tile width.
 */
template <typename T, int M>
__global__ void __launch_bounds__(512, 2)
sobel_shared(gpu_image in, gpu_image out, struct sobel_params p, int border,
    int rows)
{
	extern __shared__ uint4 smem[];
	T *tile = (T *)smem;
	const int N = VEC(T);
	const int tw = blockDim.x * N, th = blockDim.y * rows;
	const int stride = tw + 2 * N;
	const int x0 = blockIdx.x * tw, y0 = blockIdx.y * th;
	const int tid = threadIdx.y * blockDim.x + threadIdx.x;
	const int nthreads = blockDim.x * blockDim.y;

#pragma unroll 4
	for (int i = tid; i < (th + 2) * (int)blockDim.x; i += nthreads) {
		int r = i / blockDim.x, cx = i % blockDim.x;
		int yi = gf_border_index(y0 - 1 + r, in.height, border);
		gf_load_chunk<T>(in, yi, x0 + cx * N, border, tile + r * stride + N + cx * N);
	}
	for (int i = tid; i < (th + 2) * 2; i += nthreads) {
		int r = i >> 1, right = i & 1;
		int yi = gf_border_index(y0 - 1 + r, in.height, border);
		int xi = gf_border_index(right ? x0 + tw : x0 - 1, in.width, border);
		tile[r * stride + (right ? N + tw : N - 1)] =
		    yi < 0 || xi < 0 ? 0 : gf_row<T>(in, yi)[xi];
	}
	__syncthreads();

	struct sobel_params q = fixed_mode<M>(p);
	const int x = x0 + threadIdx.x * N, ty = threadIdx.y * rows;
	if (sizeof(T) == 1) {
		lanes8 ln = lanes8_for(x, out.width);
		ln.slow = false;        /* the tile has the border applied */
		rows8_smem rows8;
		rows8.col = (const uint8_t *)tile + N + threadIdx.x * N;
		rows8.stride = stride;
		rows8.y_top = y0;
		rows8.ln = ln;
		walk8<M>(rows8, ln, y0 + ty, rows, out.height, out, x, &q);
		return;
	}
	const T *src = tile + ty * stride + N + threadIdx.x * N;
	int up[VEC(T) + 2], mid[VEC(T) + 2], down[VEC(T) + 2];
	unsigned res[VEC(T)];
	if (x >= out.width || y0 + ty >= out.height)
		return;
	gf_smem_window<T, 1>(src, up);
	gf_smem_window<T, 1>(src + stride, mid);
	for (int k = 0; k < rows && y0 + ty + k < out.height; k++) {
		gf_smem_window<T, 1>(src + (k + 2) * stride, down);
		sobel_chunk<T, M>(up, mid, down, &q, res);
		gf_store_chunk<T>(out, y0 + ty + k, x, res);
		slide_rows<T>(up, mid, down);
	}
}

template <typename T, int M>
__global__ void __launch_bounds__(256, 3)
sobel_sliding(gpu_image in, gpu_image out, struct sobel_params p, int border,
    int rows)
{
	const int N = VEC(T);
	const int x = (blockIdx.x * blockDim.x + threadIdx.x) * N;
	const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * rows;
	struct sobel_params q = fixed_mode<M>(p);
	if (sizeof(T) == 1) {
		extern __shared__ uint4 ring[];
		rows8_ring rows8;
		rows8.ring.init(in, x, border, ring);
		rows8.ring.sides.ln = lanes8_for(x, in.width);
		walk8<M>(rows8, rows8.ring.sides.ln, y0, rows, in.height, out, x, &q);
		return;
	}
	if (x >= in.width || y0 >= in.height)
		return;
	int up[VEC(T) + 2], mid[VEC(T) + 2], down[VEC(T) + 2];
	unsigned res[VEC(T)];
	const int yend = min(y0 + rows, in.height);

	gf_load_window<T, 1>(in, gf_border_index(y0 - 1, in.height, border), x, border, up);
	gf_load_window<T, 1>(in, gf_border_index(y0, in.height, border), x, border, mid);
	for (int y = y0; y < yend; y++) {
		gf_load_window<T, 1>(in, gf_border_index(y + 1, in.height, border), x,
		    border, down);
		sobel_chunk<T, M>(up, mid, down, &q, res);
		gf_store_chunk<T>(out, y, x, res);
		slide_rows<T>(up, mid, down);
	}
}

/*
 * Default launch shapes, from the bench's sweep (bench -s sobel).  The
 * table serves 16-bit images; 8-bit sliding has its own.
 */
static const struct gf_launch sobel_defaults[GF_NSTRATEGIES] = {
	{0, 0, 0},              /* auto: resolved before launch */
	{0, 0, 0},              /* cpu */
	{32, 8, 1},             /* global */
	{32, 8, 1},             /* texture */
	{32, 4, 8},             /* shared */
	{32, 8, 8},             /* sliding */
};

/*
 * 8-bit sliding: 32x2 threads of 32 rows, whose long strips reload few
 * apron rows (faster than 32x8 of 8 rows for a threshold, the same for a
 * magnitude); where that makes fewer than SLIDE_MANY blocks, too few to
 * fill the GPU several times over, 32x2 of 6 rows: 3840x2160 then makes
 * 1440 blocks, all resident at once, and small blocks share the SMs more
 * evenly than 544 of 32x4 of 8 rows, which gave some SMs five and others
 * four (and 253 blocks of 32x8 were slower again).
 */
static const struct gf_launch slide8_large = {32, 2, 32}, slide8_small = {32, 2, 6};
#define SLIDE_MANY 1024

extern "C" void
sobel_shape(enum gf_strategy s, unsigned maxval, int width, int height,
    struct gf_launch *l, int *tile_w, int *tile_h, size_t *smem)
{
	if (s == GF_SLIDING && maxval <= 255 && l->block_w == 0 && l->block_h == 0) {
		const struct gf_launch *d = &slide8_large;
		const long rows = l->rows > 0 ? l->rows : d->rows;
		const long bx = (width + 16L * d->block_w - 1) / (16L * d->block_w);
		const long by = (height + rows * d->block_h - 1) / (rows * d->block_h);
		if (bx * by < SLIDE_MANY)
			d = &slide8_small;
		l->block_w = d->block_w;
		l->block_h = d->block_h;
		if (l->rows == 0)
			l->rows = d->rows;
	}
	gf_launch_shape(s, sobel_defaults, maxval, 1, l, tile_w, tile_h, smem);
	if (s == GF_SLIDING && maxval <= 255)
		*smem = GF_RING8_BYTES(SLIDE_DEPTH, l->block_w * l->block_h);
}

/* What a launch of any strategy is given. */
struct sobel_args : stencil_launch {
	gpu_image out;
	struct sobel_params p;
};

template <typename T, int M>
static void
run_global(const sobel_args &a)
{
	sobel_global<T, M><<<a.grid, a.block, 0, a.st>>>(a.in, a.out, a.p, a.border);
}

template <typename T, int M>
static void
run_texture(const sobel_args &a)
{
	sobel_texture<T, M><<<a.grid, a.block, 0, a.st>>>(a.tex, a.out, a.p, a.border);
}

template <typename T, int M>
static void
run_shared(const sobel_args &a)
{
	sobel_shared<T, M><<<a.grid, a.block, a.smem, a.st>>>(a.in, a.out, a.p,
	    a.border, a.rows);
}

template <typename T, int M>
static void
run_sliding(const sobel_args &a)
{
	sobel_sliding<T, M><<<a.grid, a.block, a.smem, a.st>>>(a.in, a.out, a.p,
	    a.border, a.rows);
}

/*
 * sobel's column of the strategy table, for sample type T and mode M:
 * each GPU strategy's kernel (for its limits) and its launch; the
 * default shapes are sobel_defaults.
 */
struct sobel_kernel {
	const void *fn;
	void (*run)(const sobel_args &a);
};

template <typename T, int M>
struct sobel_kernels {
	static const struct sobel_kernel row[GF_NSTRATEGIES];
};

template <typename T, int M>
const struct sobel_kernel sobel_kernels<T, M>::row[GF_NSTRATEGIES] = {
	{NULL, NULL},           /* auto: resolved before launch */
	{NULL, NULL},           /* cpu */
	{(const void *)sobel_global<T, M>, run_global<T, M>},
	{(const void *)sobel_texture<T, M>, run_texture<T, M>},
	{(const void *)sobel_shared<T, M>, run_shared<T, M>},
	{(const void *)sobel_sliding<T, M>, run_sliding<T, M>},
};

template <typename T, int M>
static cudaError_t
launch_mode(enum gf_strategy s, const gpu_image &in, const gpu_image &out,
    const struct sobel_params &p, int border, const struct gf_launch *l,
    cudaTextureObject_t tex, cudaStream_t st)
{
	struct gf_launch shape = *l;
	struct cudaFuncAttributes attr;
	sobel_args a;
	int tw, th;

	if (s < 0 || s >= GF_NSTRATEGIES || sobel_kernels<T, M>::row[s].run == NULL)
		return cudaErrorInvalidValue;
	const struct sobel_kernel *k = &sobel_kernels<T, M>::row[s];
	sobel_shape(s, in.maxval, in.width, in.height, &shape, &tw, &th, &a.smem);
	cudaError_t err = cudaFuncGetAttributes(&attr, k->fn);
	if (err != cudaSuccess)
		return err;
	if (shape.block_w * shape.block_h > attr.maxThreadsPerBlock)
		return cudaErrorLaunchOutOfResources;
	stencil_launch_set(a, in, border, shape, tw, th, tex, st);
	a.out = out;
	a.p = p;
	k->run(a);
	return cudaGetLastError();
}

template <typename T>
static cudaError_t
launch_type(enum gf_strategy s, const gpu_image &in, const gpu_image &out,
    const struct sobel_params &p, int border, const struct gf_launch *l,
    cudaTextureObject_t tex, cudaStream_t st)
{
	switch (p.mode) {
	case SOBEL_MAG_L1:
		return launch_mode<T, SOBEL_MAG_L1>(s, in, out, p, border, l, tex, st);
	case SOBEL_THRESH_L2:
		return launch_mode<T, SOBEL_THRESH_L2>(s, in, out, p, border, l, tex, st);
	case SOBEL_THRESH_L1:
		return launch_mode<T, SOBEL_THRESH_L1>(s, in, out, p, border, l, tex, st);
	default:
		return launch_mode<T, SOBEL_MAG_L2>(s, in, out, p, border, l, tex, st);
	}
}

extern "C" cudaError_t
sobel_launch(enum gf_strategy s, const struct gpu_image *in,
    const struct gpu_image *out, const struct sobel_params *p, int border,
    const struct gf_launch *l, cudaTextureObject_t tex, cudaStream_t stream)
{
	if (in->maxval > 255)
		return launch_type<uint16_t>(s, *in, *out, *p, border, l, tex, stream);
	return launch_type<uint8_t>(s, *in, *out, *p, border, l, tex, stream);
}
