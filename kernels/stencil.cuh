/*
 * stencil.cuh - how pixels reach a stencil core on the GPU, shared by the
 * kernels of every tool: border-aware single reads, 16-byte chunks of a
 * row (into registers, a shared-memory tile, or a ring of rows copied
 * ahead), and 16-byte stores.
 *
 * A "chunk" is the 16 bytes of one row starting at a column x that is a
 * multiple of VEC<T> (16 samples of 8 bit, 8 of 16 bit); device rows are
 * pitched in multiples of 256 bytes, so chunks are 16-byte aligned.
 */
#ifndef GF_STENCIL_CUH
#define GF_STENCIL_CUH

#include <stdint.h>

#ifndef GF_EMU_H               /* tests/emu/emu.h has its own cp.async */
#include <cuda_pipeline.h>
#endif

#include "border.h"
#include "gpu.h"

/* The bits of 2^23 as a float: OR-ing in a byte b gives 2^23 + b exactly. */
#define GF_OFF8 0x4B000000u

/*
 * Byte b (0-3) of w as an exact float: the byte under GF_OFF8's bits,
 * less 2^23.  The constant is the permute's first operand, so that its
 * selector can be the immediate: with w first, ptxas put the constant in
 * the immediate slot and made each selector in a register, an
 * instruction a sample.
 */
__device__ __forceinline__ float
gf_byte_f(uint32_t w, int b)
{
	return __uint_as_float(__byte_perm(GF_OFF8, w, 0x3004 | b)) - 8388608.0f;
}

/* The bits of 2^15 as a float: a byte b in bits 8..15 gives 2^15 + b exactly. */
#define GF_OFF15 0x47000000u

/*
 * Byte b (0-3) of w as the float 2^15 + b, in one permute (the byte goes
 * to bits 8..15, where the unit is 1; no subtraction).  Sums of such
 * samples with weights adding up to 4 stay below 2^18, where floats are
 * exact to 2^-6, so every such sum is exact and the difference of two
 * sums with equal weights is the integer the samples give.
 */
__device__ __forceinline__ float
gf_byte_f15(uint32_t w, int b)
{
	return __uint_as_float(__byte_perm(GF_OFF15, w, 0x3140 | b << 4));
}

template <typename T> struct vec_width { static const int n = 16 / sizeof(T); };
#define VEC(T) (vec_width<T>::n)

template <typename T>
__device__ __forceinline__ const T *
gf_row(const gpu_image &im, int y)
{
	return (const T *)((const char *)im.px + (size_t)y * im.pitch);
}

template <typename T>
__device__ __forceinline__ T *
gf_row_out(const gpu_image &im, int y)
{
	return (T *)((char *)im.px + (size_t)y * im.pitch);
}

/* Stores sample v at (x, y), inside the image. */
template <typename T>
__device__ __forceinline__ void
gf_store_px(const gpu_image &im, int x, int y, unsigned v)
{
	gf_row_out<T>(im, y)[x] = (T)v;
}

/* The sample at (x, y), any x and y, through the border rule. */
template <typename T>
__device__ __forceinline__ int
gf_load_px(const gpu_image &im, int x, int y, int border)
{
	int xi = gf_border_index(x, im.width, border);
	int yi = gf_border_index(y, im.height, border);
	if (xi < 0 || yi < 0)
		return 0;
	return __ldg(gf_row<T>(im, yi) + xi);
}

/* Splits a 16-byte vector into its VEC(T) samples. */
template <typename T>
__device__ __forceinline__ void
gf_unpack(uint4 q, int *v)
{
	const uint32_t w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
	for (int k = 0; k < VEC(T); k++) {
		if (sizeof(T) == 1)
			v[k] = (w[k / 4] >> (8 * (k % 4))) & 0xff;
		else
			v[k] = (w[k / 2] >> (16 * (k % 2))) & 0xffff;
	}
}

template <typename T>
__device__ __forceinline__ uint4
gf_pack(const unsigned *v)
{
	uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
	for (int k = 0; k < VEC(T); k++) {
		if (sizeof(T) == 1)
			w[k / 4] |= (v[k] & 0xff) << (8 * (k % 4));
		else
			w[k / 2] |= (v[k] & 0xffff) << (16 * (k % 2));
	}
	return make_uint4(w[0], w[1], w[2], w[3]);
}

/*
 * Samples lo .. VEC-1 of the chunk at column x0 of row, the rest zero,
 * sample by sample through the border rule (-1: zero), shifted in from
 * the top so that the first lands at sample lo; for chunks that run past
 * an edge of the image (width).  The loop is kept rolled: this rare path,
 * unrolled with the border rule's divisions wherever a kernel loads a
 * row, made most of the code of several kernels.
 */
template <typename T>
__device__ __forceinline__ uint4
gf_chunk_border(const T *row, int x0, int width, int border, int lo = 0)
{
	static_assert(sizeof(T) <= 2, "8- and 16-bit samples");
	const int B = 8 * sizeof(T);
	uint32_t a = 0, b = 0, c = 0, d = 0;
#pragma unroll 1
	for (int k = lo; k < VEC(T); k++) {
		int xi = gf_border_index(x0 + k, width, border);
		uint32_t v = xi < 0 ? 0u : (uint32_t)__ldg(row + xi);
		a = __funnelshift_r(a, b, B);
		b = __funnelshift_r(b, c, B);
		c = __funnelshift_r(c, d, B);
		d = __funnelshift_r(d, v, B);
	}
	return make_uint4(a, b, c, d);
}

/*
 * Samples x0-R .. x0+VEC+R-1 of row yi (already mapped; -1 reads zeros)
 * into v[0 .. VEC+2R-1]; x0 is a multiple of VEC.  The middle comes as
 * one 16-byte load (gf_chunk_border past the right edge) and the R
 * samples either side as single reads (L1 hits: the neighbouring threads
 * load them too), through the border rule near the edges.
 */
template <typename T, int R>
__device__ __forceinline__ void
gf_load_window(const gpu_image &im, int yi, int x0, int border, int *v)
{
	const int N = VEC(T);
	if (yi < 0) {
#pragma unroll
		for (int k = 0; k < N + 2 * R; k++)
			v[k] = 0;
		return;
	}
	const T *row = gf_row<T>(im, yi);
	if (x0 >= R && x0 + N + R <= im.width) {
		gf_unpack<T>(__ldg((const uint4 *)(row + x0)), v + R);
#pragma unroll
		for (int k = 0; k < R; k++) {
			v[k] = __ldg(row + x0 - R + k);
			v[N + R + k] = __ldg(row + x0 + N + k);
		}
		return;
	}
	gf_unpack<T>(x0 + N <= im.width ? __ldg((const uint4 *)(row + x0)) :
	    gf_chunk_border<T>(row, x0, im.width, border), v + R);
#pragma unroll
	for (int k = 0; k < R; k++) {
		int xl = gf_border_index(x0 - R + k, im.width, border);
		int xr = gf_border_index(x0 + N + k, im.width, border);
		v[k] = xl < 0 ? 0 : __ldg(row + xl);
		v[N + R + k] = xr < 0 ? 0 : __ldg(row + xr);
	}
}

/*
 * Copies the chunk at column x0 of row yi (mapped; -1 reads zeros) into
 * dst (16-byte aligned shared memory), through the border rule where the
 * chunk runs past the right edge.
 */
template <typename T>
__device__ __forceinline__ void
gf_load_chunk(const gpu_image &im, int yi, int x0, int border, T *dst)
{
	const int N = VEC(T);
	if (yi < 0) {
		*(uint4 *)dst = make_uint4(0, 0, 0, 0);
		return;
	}
	const T *row = gf_row<T>(im, yi);
	*(uint4 *)dst = x0 + N <= im.width ? __ldg((const uint4 *)(row + x0)) :
	    gf_chunk_border<T>(row, x0, im.width, border);
}

/*
 * Copies a block's tile of th rows of tw samples at (x0, y0) of im, with
 * an apron of R rows and columns around it (R < VEC), into tile, through
 * the border rule; the block's threads share the copies, and the caller
 * synchronizes after.  Layout: th + 2R rows of stride tw + 2 VEC
 * samples; row r holds image row y0 - R + r, and column VEC + j image
 * column x0 + j, so the left apron sits at VEC - R .. VEC - 1 and the
 * right one at VEC + tw on: every chunk and row 16-byte aligned.  The
 * tile takes gf_launch_shape's shared memory with apron R.
 */
template <typename T>
__device__ __forceinline__ void
gf_tile_load(T *tile, const gpu_image &im, int x0, int y0, int tw, int th,
    int R, int border)
{
	const int N = VEC(T), stride = tw + 2 * N, cols = tw / N;
	const int tid = threadIdx.y * blockDim.x + threadIdx.x;
	const int nthreads = blockDim.x * blockDim.y;

	for (int i = tid; i < (th + 2 * R) * cols; i += nthreads) {
		int r = i / cols, cx = i % cols;
		int yi = gf_border_index(y0 - R + r, im.height, border);
		gf_load_chunk<T>(im, yi, x0 + cx * N, border, tile + r * stride + N + cx * N);
	}
	for (int i = tid; i < (th + 2 * R) * 2 * R; i += nthreads) {
		int r = i / (2 * R), k = i % (2 * R), right = k >= R;
		int off = right ? k - R : k;
		int yi = gf_border_index(y0 - R + r, im.height, border);
		int xi = gf_border_index(right ? x0 + tw + off : x0 - R + off,
		    im.width, border);
		tile[r * stride + (right ? N + tw + off : N - R + off)] =
		    yi < 0 || xi < 0 ? 0 : gf_row<T>(im, yi)[xi];
	}
}

/* Samples src[-R .. VEC+R-1] of a shared-memory row; src is 16-byte aligned. */
template <typename T, int R>
__device__ __forceinline__ void
gf_smem_window(const T *src, int *v)
{
	const int N = VEC(T);
	gf_unpack<T>(*(const uint4 *)src, v + R);
#pragma unroll
	for (int k = 0; k < R; k++) {
		v[k] = src[k - R];
		v[N + R + k] = src[N + k];
	}
}

/*
 * Stores the first n (< 16) bytes of q at p one by one, q shifting down a
 * byte at a time: a chunk cut by the image's right edge.  Indexing the
 * words of q by k instead puts them in local memory, and the store to it
 * lands on every chunk's path, not only the cut one's.
 */
__device__ __forceinline__ void
gf_store_bytes(uint8_t *p, uint4 q, int n)
{
#pragma unroll 1
	for (int k = 0; k < n; k++) {
		p[k] = (uint8_t)q.x;
		q.x = __funnelshift_r(q.x, q.y, 8);
		q.y = __funnelshift_r(q.y, q.z, 8);
		q.z = __funnelshift_r(q.z, q.w, 8);
		q.w >>= 8;
	}
}

/* Stores VEC(T) results at (x0, y): one 16-byte store inside the image. */
template <typename T>
__device__ __forceinline__ void
gf_store_chunk(const gpu_image &im, int y, int x0, const unsigned *r)
{
	const int N = VEC(T);
	T *row = gf_row_out<T>(im, y);
	if (x0 + N <= im.width) {
		*(uint4 *)(row + x0) = gf_pack<T>(r);
		return;
	}
#pragma unroll
	for (int k = 0; k < N; k++)
		if (x0 + k < im.width)
			row[x0 + k] = (T)r[k];
}

/*
 * The rows of an 8-bit sliding strip, copied D rows ahead of the walk
 * (cp.async) into a ring of D slots of shared memory per thread, so that
 * rows in flight cost no registers: each row's 16-byte chunk at column
 * x0 and the aligned 4-byte words either side that the walk needs for
 * its neighbours, which Sides copies:
 *
 *   bool off()        the strip reads its rows itself (at the image's
 *                     edge): the ring copies nothing;
 *   void copy(row, x0, l, r, yi)
 *                     copies the words of row yi into l and r (zeros
 *                     when yi < 0, a row off the image; row is then
 *                     row 0).
 *
 * Rows go through the border rule; one off the image is zeros.  The
 * slots of the block's n threads interleave, 24 bytes a thread a slot
 * (GF_RING8_BYTES).  The walk calls wait() for the next row's slot,
 * reads it, then next().  sobel's and edge's sliding kernels use it.
 */
#define GF_RING8_BYTES(D, n) ((size_t)(D) * (n) * 24)

template <int D, typename Sides>
struct gf_ring8 {
	gpu_image in;
	int x0, border;
	Sides sides;
	uint4 *q;               /* the chunk in slot 0; slot s is s * n on */
	uint32_t *l, *r;        /* the side words in slot 0 */
	int n;
	/*
	 * The next row taken, the last one copied, and the rows taken: the
	 * slot is k mod D, not y mod D, so that begin's slots are constants
	 * (with y's, sobel's walk took 40 more PTX instructions).
	 */
	int y, last, k;

	static_assert((D & (D - 1)) == 0, "the slots are counted modulo D");

	/*
	 * This thread's ring in the block's dynamic shared memory sm, for
	 * its strip at column x of im.
	 */
	__device__ __forceinline__ void init(const gpu_image &im, int x, int b,
	    uint4 *sm)
	{
		const int t = threadIdx.y * blockDim.x + threadIdx.x;
		in = im;
		x0 = x;
		border = b;
		n = blockDim.x * blockDim.y;
		q = sm + t;
		l = (uint32_t *)(sm + D * n) + t;
		r = l + D * n;
	}

	__device__ __forceinline__ void copy(int yy, int s)
	{
		if (yy > last || sides.off())
			return;
		const int yi = gf_border_index(yy, in.height, border);
		const uint8_t *row = gf_row<uint8_t>(in, yi < 0 ? 0 : yi);
		__pipeline_memcpy_async(q + s * n, row + x0, 16, yi < 0 ? 16 : 0);
		sides.copy(row, x0, l + s * n, r + s * n, yi);
	}

	/* Starts the copies of rows first .. last_row. */
	__device__ __forceinline__ void begin(int first, int last_row)
	{
		y = first;
		last = last_row;
		k = 0;
#pragma unroll
		for (int s = 0; s < D; s++) {
			copy(first + s, s);
			__pipeline_commit();
		}
	}

	/* The slot of the next row, once it has arrived. */
	__device__ __forceinline__ int wait()
	{
		__pipeline_wait_prior(D - 1);
		return (k & (D - 1)) * n;
	}

	/* Done with the next row: its slot takes the row D further on. */
	__device__ __forceinline__ void next()
	{
		copy(y + D, k & (D - 1));
		__pipeline_commit();
		y++;
		k++;
	}

	__device__ __forceinline__ void end()
	{
		__pipeline_wait_prior(0);
	}
};

/*
 * What a launch of a stencil kernel takes besides its operation's own
 * parameters (sobel's, suppression's): the input and its border, rows a
 * thread, the grid of blocks over tiles, shared memory, the texture of
 * the texture strategy, and the stream.
 */
struct stencil_launch {
	gpu_image in;
	int border, rows;
	cudaTextureObject_t tex;
	dim3 grid, block;
	size_t smem;
	cudaStream_t st;
};

/*
 * Fills a (but for smem) for in, in tiles of tw x th pixels, a block of
 * l's shape each.
 */
static inline void
stencil_launch_set(struct stencil_launch &a, const gpu_image &in, int border,
    const struct gf_launch &l, int tw, int th, cudaTextureObject_t tex,
    cudaStream_t st)
{
	a.in = in;
	a.border = border;
	a.rows = l.rows;
	a.tex = tex;
	a.block = dim3(l.block_w, l.block_h);
	a.grid = dim3((in.width + tw - 1) / tw, (in.height + th - 1) / th);
	a.st = st;
}

#endif
