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
	if (x >= out.width)
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
__global__ void
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
	int n = maxval > 255 ? 8 : 16;
	const struct gf_launch *d = &sobel_defaults[s];

	if (l->block_w == 0 || l->block_h == 0) {
		l->block_w = d->block_w;
		l->block_h = d->block_h;
	}
	if (l->rows == 0 || s == GF_GLOBAL || s == GF_TEXTURE)
		l->rows = d->rows;
	*smem = 0;
	if (s == GF_GLOBAL || s == GF_TEXTURE) {
		*tile_w = l->block_w;
		*tile_h = l->block_h;
		return;
	}
	*tile_w = l->block_w * n;
	*tile_h = l->block_h * l->rows;
	if (s == GF_SHARED)
		*smem = (size_t)(*tile_h + 2) * (l->block_w + 2) * 16;
}

template <typename T, int M>
static void
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
}

template <typename T>
static void
launch_type(enum gf_strategy s, const gpu_image &in, const gpu_image &out,
    const struct sobel_params &p, int border, const struct gf_launch *l,
    cudaTextureObject_t tex, cudaStream_t st)
{
	switch (p.mode) {
	case SOBEL_MAG_L1:
		launch_mode<T, SOBEL_MAG_L1>(s, in, out, p, border, l, tex, st);
		break;
	case SOBEL_THRESH_L2:
		launch_mode<T, SOBEL_THRESH_L2>(s, in, out, p, border, l, tex, st);
		break;
	case SOBEL_THRESH_L1:
		launch_mode<T, SOBEL_THRESH_L1>(s, in, out, p, border, l, tex, st);
		break;
	default:
		launch_mode<T, SOBEL_MAG_L2>(s, in, out, p, border, l, tex, st);
		break;
	}
}

extern "C" cudaError_t
sobel_launch(enum gf_strategy s, const struct gpu_image *in,
    const struct gpu_image *out, const struct sobel_params *p, int border,
    const struct gf_launch *l, cudaTextureObject_t tex, cudaStream_t stream)
{
	if (in->maxval > 255)
		launch_type<uint16_t>(s, *in, *out, *p, border, l, tex, stream);
	else
		launch_type<uint8_t>(s, *in, *out, *p, border, l, tex, stream);
	return cudaGetLastError();
}
