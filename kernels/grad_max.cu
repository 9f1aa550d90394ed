/*
 * grad_max.cu - the gradient of the largest-gradient colour channel
 * (lib/ops/gradient/grad_max.h) on the GPU, four ways, for sobel
 * --colour max and edge --colour max.  Every kernel gathers each colour
 * plane's (2R+1) x (2R+1) window of an output pixel, hands it to
 * sobel_op_grad and the gradients to grad_max_pick, the very integers
 * of the CPU reference; they differ only in how the samples arrive:
 *
 *   global   one thread per pixel, every read through the border rule
 *   texture  one thread per pixel, every read through the texture cache
 *            (one texture over the stacked planes)
 *   shared   a block copies its tile of every plane and an apron of R
 *            rows and columns into shared memory; each thread then
 *            makes `rows` pixels of a column from it
 *   sliding  each thread owns `rows` pixels of a column and slides every
 *            plane's window down them in registers, loading each input
 *            row once
 *
 * What becomes of the chosen gradient is the destination's
 * (grad_max_dest): sobel's sample, the gradients (edge), or a histogram
 * bin (Otsu's threshold, percentages and quantiles).  Kernels are
 * templated on the sample type T and the radius R.
 */
#include "grad_max.h"
#include "stencil.cuh"

/* Plane c of the n stacked in in, each h rows. */
__device__ __forceinline__ gpu_image
max_plane(const gpu_image &in, int h, int c)
{
	gpu_image p = in;
	p.px = (char *)in.px + (size_t)c * h * in.pitch;
	p.height = h;
	return p;
}

/* The destination's use of pixel (x, y)'s chosen gradient. */
template <typename T>
__device__ __forceinline__ void
max_sink(const grad_max_dest &d, int w, unsigned maxval, int x, int y, int gx,
    int gy)
{
	if (d.kind == GRAD_MAX_SOBEL) {
		gf_store_px<T>(d.out, x, y, sobel_value_op(gx, gy, &d.p));
	} else if (d.kind == GRAD_MAX_FIELD) {
		size_t i = 2 * ((size_t)y * w + x);
		d.field[i] = gx;
		d.field[i + 1] = gy;
	} else {
		atomicAdd(&d.bins[grad_hist_value(gx, gy, d.l1, maxval)], 1u);
	}
}

/* Samples through the border rule from global memory. */
template <typename T>
struct max_src_global {
	gpu_image in;
	int h, border;
	__device__ __forceinline__ int at(int c, int x, int y) const
	{
		return gf_load_px<T>(max_plane(in, h, c), x, y, border);
	}
};

/* Samples through the border rule from the texture over the stacked planes. */
template <typename T>
struct max_src_texture {
	cudaTextureObject_t tex;
	int w, h, border;
	__device__ __forceinline__ int at(int c, int x, int y) const
	{
		int xi = gf_border_index(x, w, border);
		int yi = gf_border_index(y, h, border);
		if (xi < 0 || yi < 0)
			return 0;
		return tex2D<T>(tex, xi + 0.5f, c * h + yi + 0.5f);
	}
};

/* The chosen gradient of (x, y) from a source of n planes. */
template <int R, class S>
__device__ __forceinline__ void
max_pixel(const S &src, int n, int x, int y, const struct sobel_taps &t,
    int l1, int *gx, int *gy)
{
	int cx[GRAD_MAX_PLANES], cy[GRAD_MAX_PLANES], v[(2 * R + 1) * (2 * R + 1)];

	for (int c = 0; c < n; c++) {
#pragma unroll
		for (int j = 0; j <= 2 * R; j++)
#pragma unroll
			for (int i = 0; i <= 2 * R; i++)
				v[j * (2 * R + 1) + i] = src.at(c, x + i - R, y + j - R);
		sobel_op_grad(&t, R, v, 2 * R + 1, &cx[c], &cy[c]);
	}
	int k = grad_max_pick(cx, cy, n, l1);
	*gx = cx[k];
	*gy = cy[k];
}

template <typename T, int R>
__global__ void
max_global(gpu_image in, int n, struct sobel_taps t, int border,
    grad_max_dest d)
{
	const int h = in.height / n;
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int gx, gy;
	if (x >= in.width || y >= h)
		return;
	max_src_global<T> src = {in, h, border};
	max_pixel<R>(src, n, x, y, t, d.l1, &gx, &gy);
	max_sink<T>(d, in.width, in.maxval, x, y, gx, gy);
}

template <typename T, int R>
__global__ void
max_texture(cudaTextureObject_t tex, int w, int h, unsigned maxval, int n,
    struct sobel_taps t, int border, grad_max_dest d)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int gx, gy;
	if (x >= w || y >= h)
		return;
	max_src_texture<T> src = {tex, w, h, border};
	max_pixel<R>(src, n, x, y, t, d.l1, &gx, &gy);
	max_sink<T>(d, w, maxval, x, y, gx, gy);
}

/* Samples of a shared tile: plane c's (tw + 2R) x (th + 2R) ints, origin (x0 - R, y0 - R). */
template <int R>
struct max_src_tile {
	const int *tile;
	int x0, y0, tw, th;
	__device__ __forceinline__ int at(int c, int x, int y) const
	{
		return tile[((size_t)c * (th + 2 * R) + (y - y0 + R)) * (tw + 2 * R) +
		    (x - x0 + R)];
	}
};

template <typename T, int R>
__global__ void
max_shared(gpu_image in, int n, struct sobel_taps t, int border,
    grad_max_dest d, int rows)
{
	extern __shared__ int max_smem[];
	const int h = in.height / n, tw = blockDim.x, th = blockDim.y * rows;
	const int x0 = blockIdx.x * tw, y0 = blockIdx.y * th;
	const int sw = tw + 2 * R, sh = th + 2 * R;
	const int tid = threadIdx.y * blockDim.x + threadIdx.x;

	for (int k = tid; k < n * sw * sh; k += blockDim.x * blockDim.y) {
		int c = k / (sw * sh), r = k % (sw * sh);
		max_smem[k] = gf_load_px<T>(max_plane(in, h, c), x0 - R + r % sw,
		    y0 - R + r / sw, border);
	}
	__syncthreads();

	const int x = x0 + threadIdx.x;
	max_src_tile<R> src = {max_smem, x0, y0, tw, th};
	for (int k = 0; k < rows; k++) {
		int y = y0 + threadIdx.y * rows + k, gx, gy;
		if (x >= in.width || y >= h)
			return;
		max_pixel<R>(src, n, x, y, t, d.l1, &gx, &gy);
		max_sink<T>(d, in.width, in.maxval, x, y, gx, gy);
	}
}

template <typename T, int R>
__global__ void
max_sliding(gpu_image in, int n, struct sobel_taps t, int border,
    grad_max_dest d, int rows)
{
	const int h = in.height / n, D = 2 * R + 1;
	const int x = blockIdx.x * blockDim.x + threadIdx.x;
	const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * rows;
	if (x >= in.width || y0 >= h)
		return;
	const int yend = min(y0 + rows, h);
	int w[GRAD_MAX_PLANES][2 * R + 1][2 * R + 1];

	for (int c = 0; c < n; c++) {
		gpu_image p = max_plane(in, h, c);
#pragma unroll
		for (int j = 0; j < 2 * R; j++)
#pragma unroll
			for (int i = 0; i < D; i++)
				w[c][j][i] = gf_load_px<T>(p, x + i - R, y0 - R + j, border);
	}
	for (int y = y0; y < yend; y++) {
		int cx[GRAD_MAX_PLANES], cy[GRAD_MAX_PLANES];
		for (int c = 0; c < n; c++) {
			gpu_image p = max_plane(in, h, c);
#pragma unroll
			for (int i = 0; i < D; i++)
				w[c][2 * R][i] = gf_load_px<T>(p, x + i - R, y + R, border);
			sobel_op_grad(&t, R, &w[c][0][0], D, &cx[c], &cy[c]);
#pragma unroll
			for (int j = 0; j < 2 * R; j++)
#pragma unroll
				for (int i = 0; i < D; i++)
					w[c][j][i] = w[c][j + 1][i];
		}
		int k = grad_max_pick(cx, cy, n, d.l1);
		max_sink<T>(d, in.width, in.maxval, x, y, cx[k], cy[k]);
	}
}

/*
 * Default launch shapes: one thread a pixel, 32x8 threads; shared and
 * sliding make 4 rows a thread.
 */
static const struct gf_launch max_defaults[GF_NSTRATEGIES] = {
	{0, 0, 0},              /* auto: resolved before launch */
	{0, 0, 0},              /* cpu */
	{32, 8, 1},             /* global */
	{32, 8, 1},             /* texture */
	{32, 8, 4},             /* shared */
	{32, 8, 4},             /* sliding */
};

extern "C" void
grad_max_shape(enum gf_strategy s, int op, struct gf_launch *l, int *tile_w,
    int *tile_h, size_t *smem)
{
	const int R = sobel_op_radius(op);

	gf_launch_default(s, &max_defaults[s], l);
	*tile_w = l->block_w;
	*tile_h = l->block_h * (gf_strategies[s].per_pixel ? 1 : l->rows);
	*smem = !gf_strategies[s].tile ? 0 : (size_t)GRAD_MAX_PLANES *
	    (*tile_w + 2 * R) * (*tile_h + 2 * R) * sizeof(int);
}

template <typename T, int R>
static cudaError_t
max_launch(enum gf_strategy s, const gpu_image &in, int n, int op, int border,
    const grad_max_dest &d, const struct gf_launch *l, cudaTextureObject_t tex,
    cudaStream_t st)
{
	const struct sobel_taps t = sobel_taps_of(op);
	struct gf_launch shape = *l;
	int tw, th, h = in.height / n;
	size_t smem;

	grad_max_shape(s, op, &shape, &tw, &th, &smem);
	dim3 block(shape.block_w, shape.block_h);
	dim3 grid((in.width + tw - 1) / tw, (h + th - 1) / th);
	switch (s) {
	case GF_GLOBAL:
		max_global<T, R><<<grid, block, 0, st>>>(in, n, t, border, d);
		break;
	case GF_TEXTURE:
		max_texture<T, R><<<grid, block, 0, st>>>(tex, in.width, h,
		    in.maxval, n, t, border, d);
		break;
	case GF_SHARED:
		max_shared<T, R><<<grid, block, smem, st>>>(in, n, t, border, d,
		    shape.rows);
		break;
	case GF_SLIDING:
		max_sliding<T, R><<<grid, block, 0, st>>>(in, n, t, border, d,
		    shape.rows);
		break;
	default:
		return cudaErrorInvalidValue;
	}
	return cudaGetLastError();
}

template <typename T>
static cudaError_t
max_launch_type(enum gf_strategy s, const gpu_image &in, int n, int op,
    int border, const grad_max_dest &d, const struct gf_launch *l,
    cudaTextureObject_t tex, cudaStream_t st)
{
	switch (sobel_op_radius(op)) {
	case 1:
		return max_launch<T, 1>(s, in, n, op, border, d, l, tex, st);
	case 2:
		return max_launch<T, 2>(s, in, n, op, border, d, l, tex, st);
	default:
		return max_launch<T, 3>(s, in, n, op, border, d, l, tex, st);
	}
}

extern "C" cudaError_t
grad_max_launch(enum gf_strategy s, const struct gpu_image *in, int n, int op,
    int border, const struct grad_max_dest *d, const struct gf_launch *l,
    cudaTextureObject_t tex, cudaStream_t stream)
{
	if (n < 1 || n > GRAD_MAX_PLANES || in->height % n != 0 || op < 0 ||
	    op >= SOBEL_NOPS || s < 0 || s >= GF_NSTRATEGIES)
		return cudaErrorInvalidValue;
	if (in->maxval > 255)
		return max_launch_type<uint16_t>(s, *in, n, op, border, *d, l, tex,
		    stream);
	return max_launch_type<uint8_t>(s, *in, n, op, border, *d, l, tex, stream);
}
