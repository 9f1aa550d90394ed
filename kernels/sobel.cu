/*
 * sobel.cu - the sobel stencil on the GPU, four ways.  Every kernel hands
 * the same nine samples to sobel_px (lib/sobel_core.h); they differ only
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
 * The 8-bit path of shared and sliding.  A thread computes 16 outputs of a
 * row at a time.  Samples become offset floats 2^23 + p with one byte
 * permute each, so differences of them are exact small integers; gx comes
 * from each row's horizontal differences p(x+1) - p(x-1), computed once
 * per row and used by the three output rows that need it, and gy from the
 * vertical differences of the rows above and below.  The arithmetic stays
 * on the float pipe (sobel_value_f), and results are packed back to bytes
 * by permutes as well.
 */

/* Samples x0-1 .. x0+16 of a row as loaded, before unpacking. */
struct row8 {
	uint4 q;                /* x0 .. x0+15 */
	uint32_t l, r;          /* x0-1 and x0+16 */
};

/* Row yi (mapped; -1 reads zeros) of the image, at column x0. */
struct sobel_rows_global {
	gpu_image in;
	int x0, border;

	__device__ __forceinline__ row8 operator()(int y) const
	{
		int yi = gf_border_index(y, in.height, border);
		row8 w;
		if (yi >= 0 && x0 >= 1 && x0 + 17 <= in.width) {
			const uint8_t *row = gf_row<uint8_t>(in, yi);
			w.q = __ldg((const uint4 *)(row + x0));
			w.l = __ldg(row + x0 - 1);
			w.r = __ldg(row + x0 + 16);
			return w;
		}
		int v[18];
		unsigned mid[16];
		gf_load_window<uint8_t, 1>(in, yi, x0, border, v);
#pragma unroll
		for (int k = 0; k < 16; k++)
			mid[k] = v[k + 1];
		w.q = gf_pack<uint8_t>(mid);
		w.l = v[0];
		w.r = v[17];
		return w;
	}
};

/* Image row y from a shared tile whose row 0 holds image row y_top - 1. */
struct sobel_rows_smem {
	const uint8_t *col;     /* column x0 of tile row 0, 16-byte aligned */
	int stride, y_top;

	__device__ __forceinline__ row8 operator()(int y) const
	{
		const uint8_t *src = col + (y - y_top + 1) * stride;
		row8 w;
		w.q = *(const uint4 *)src;
		w.l = src[-1];
		w.r = src[16];
		return w;
	}
};

__device__ __forceinline__ void
sobel_unpack8(const row8 &w, float *f)
{
	const uint32_t q[4] = {w.q.x, w.q.y, w.q.z, w.q.w};
	f[0] = __uint_as_float(GF_OFF8 | w.l);
#pragma unroll
	for (int k = 0; k < 16; k++)
		f[k + 1] = __uint_as_float(__byte_perm(q[k / 4], GF_OFF8, 0x7440 | (k % 4)));
	f[17] = __uint_as_float(GF_OFF8 | w.r);
}

/* p(x+1) - p(x-1) for the 16 columns of a row. */
__device__ __forceinline__ void
hdiff8(const float *f, float *hd)
{
#pragma unroll
	for (int k = 0; k < 16; k++)
		hd[k] = f[k + 2] - f[k];
}

/* 16 output bytes of a row from the rows above and below and three rows' hd. */
template <int M>
__device__ __forceinline__ uint4
chunk8(const float *f_up, const float *f_down, const float *hd_up,
    const float *hd_mid, const float *hd_down, const struct sobel_params *q)
{
	float cd[18];
	uint32_t u[16], w[4];
#pragma unroll
	for (int j = 0; j < 18; j++)
		cd[j] = f_down[j] - f_up[j];
#pragma unroll
	for (int k = 0; k < 16; k++) {
		float gx = fmaf(2.0f, hd_mid[k], hd_up[k]) + hd_down[k];
		float gy = fmaf(2.0f, cd[k + 1], cd[k]) + cd[k + 2];
		u[k] = __float_as_uint(sobel_value_f(gx, gy, q) + 8388608.0f);
	}
#pragma unroll
	for (int i = 0; i < 4; i++)
		w[i] = __byte_perm(__byte_perm(u[4 * i], u[4 * i + 1], 0x0040),
		    __byte_perm(u[4 * i + 2], u[4 * i + 3], 0x0040), 0x5410);
	return make_uint4(w[0], w[1], w[2], w[3]);
}

__device__ __forceinline__ void
store8(const gpu_image &out, int y, int x0, uint4 v)
{
	uint8_t *row = gf_row_out<uint8_t>(out, y);
	if (x0 + 16 <= out.width) {
		*(uint4 *)(row + x0) = v;
		return;
	}
	const uint32_t w[4] = {v.x, v.y, v.z, v.w};
	for (int k = 0; k < 16 && x0 + k < out.width; k++)
		row[x0 + k] = (uint8_t)(w[k / 4] >> (8 * (k % 4)));
}

/*
 * Output row y: the row below arrives (prefetched last step), the one after
 * it is fetched, and the result is stored.  u/m/d name the rows above, at
 * and below y; the caller rotates the three buffers instead of copying.
 */
template <int M, class Rows>
__device__ __forceinline__ void
step8(const Rows &rows, int y, int yend, row8 &next, const float *f_up,
    float *f_down, const float *hd_up, const float *hd_mid, float *hd_down,
    const gpu_image &out, int x0, const struct sobel_params *q)
{
	sobel_unpack8(next, f_down);
	if (y + 1 < yend)
		next = rows(y + 2);
	hdiff8(f_down, hd_down);
	store8(out, y, x0, chunk8<M>(f_up, f_down, hd_up, hd_mid, hd_down, q));
}

/* Output rows ybeg .. yend-1 of the 16 columns at x0. */
template <int M, class Rows>
__device__ __forceinline__ void
walk8(const Rows &rows, int ybeg, int yend, const gpu_image &out, int x0,
    const struct sobel_params *q)
{
	float fa[18], fb[18], fc[18], ha[16], hb[16], hc[16];
	row8 next;

	sobel_unpack8(rows(ybeg - 1), fa);
	hdiff8(fa, ha);
	sobel_unpack8(rows(ybeg), fb);
	hdiff8(fb, hb);
	next = rows(ybeg + 1);
	for (int y = ybeg; y < yend; y += 3) {
		step8<M>(rows, y, yend, next, fa, fc, ha, hb, hc, out, x0, q);
		if (y + 1 >= yend)
			break;
		step8<M>(rows, y + 1, yend, next, fb, fa, hb, hc, ha, out, x0, q);
		if (y + 2 >= yend)
			break;
		step8<M>(rows, y + 2, yend, next, fc, fb, hc, ha, hb, out, x0, q);
	}
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
__global__ void
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
	const T *src = tile + ty * stride + N + threadIdx.x * N;
	int up[VEC(T) + 2], mid[VEC(T) + 2], down[VEC(T) + 2];
	unsigned res[VEC(T)];
	if (x >= out.width || y0 + ty >= out.height)
		return;
	if (sizeof(T) == 1) {
		sobel_rows_smem rows8 = {(const uint8_t *)tile + N + threadIdx.x * N,
		    stride, y0};
		walk8<M>(rows8, y0 + ty, min(y0 + ty + rows, out.height), out, x, &q);
		return;
	}
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
__global__ void __launch_bounds__(256, 2)
sobel_sliding(gpu_image in, gpu_image out, struct sobel_params p, int border,
    int rows)
{
	const int N = VEC(T);
	const int x = (blockIdx.x * blockDim.x + threadIdx.x) * N;
	const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * rows;
	if (x >= in.width || y0 >= in.height)
		return;
	struct sobel_params q = fixed_mode<M>(p);
	int up[VEC(T) + 2], mid[VEC(T) + 2], down[VEC(T) + 2];
	unsigned res[VEC(T)];
	const int yend = min(y0 + rows, in.height);

	if (sizeof(T) == 1) {
		walk8<M>(sobel_rows_global{in, x, border}, y0, yend, out, x, &q);
		return;
	}

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

/* Default launch shapes, tuned on an H100 (make bench). */
static const struct gf_launch sobel_defaults[GF_NSTRATEGIES] = {
	{0, 0, 0},              /* auto: resolved before launch */
	{0, 0, 0},              /* cpu */
	{32, 8, 1},             /* global */
	{32, 8, 1},             /* texture */
	{32, 8, 4},             /* shared */
	{32, 4, 16},            /* sliding */
};

extern "C" void
sobel_shape(enum gf_strategy s, unsigned maxval, struct gf_launch *l,
    int *tile_w, int *tile_h, size_t *smem)
{
	gf_launch_shape(s, sobel_defaults, maxval, 1, l, tile_w, tile_h, smem);
}

template <typename T, int M>
static cudaError_t
launch_mode(enum gf_strategy s, const gpu_image &in, const gpu_image &out,
    const struct sobel_params &p, int border, const struct gf_launch *l,
    cudaTextureObject_t tex, cudaStream_t st)
{
	int tw, th;
	size_t smem;
	struct gf_launch shape = *l;
	sobel_shape(s, in.maxval, &shape, &tw, &th, &smem);
	dim3 block(shape.block_w, shape.block_h);
	dim3 grid((in.width + tw - 1) / tw, (in.height + th - 1) / th);

	const void *kernels[GF_NSTRATEGIES] = {NULL, NULL,
	    (const void *)sobel_global<T, M>, (const void *)sobel_texture<T, M>,
	    (const void *)sobel_shared<T, M>, (const void *)sobel_sliding<T, M>};
	struct cudaFuncAttributes a;
	cudaError_t err = cudaFuncGetAttributes(&a, kernels[s]);
	if (err != cudaSuccess)
		return err;
	if (shape.block_w * shape.block_h > a.maxThreadsPerBlock)
		return cudaErrorLaunchOutOfResources;
	switch (s) {
	case GF_GLOBAL:
		sobel_global<T, M><<<grid, block, 0, st>>>(in, out, p, border);
		break;
	case GF_TEXTURE:
		sobel_texture<T, M><<<grid, block, 0, st>>>(tex, out, p, border);
		break;
	case GF_SHARED:
		sobel_shared<T, M><<<grid, block, smem, st>>>(in, out, p, border, shape.rows);
		break;
	default:
		sobel_sliding<T, M><<<grid, block, 0, st>>>(in, out, p, border, shape.rows);
		break;
	}
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
