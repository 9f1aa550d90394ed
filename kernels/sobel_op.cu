/*
 * sobel_op.cu - sobel's other operators (--operator prewitt, scharr,
 * sobel5, sobel7) and the direction of any operator (--gradient
 * direction) on the GPU, four ways.  Every kernel gathers the
 * (2R+1) x (2R+1) window of an output pixel and hands it to
 * sobel_op_grad and sobel_value_op (lib/ops/sobel/sobel_op_core.h), the
 * core that the CPU reference's integers equal; they differ only in how
 * the samples arrive:
 *
 *   global   one thread per pixel, every read through the border rule
 *   texture  one thread per pixel, every read through the texture cache
 *   shared   a block copies its tile and an apron of R rows and columns
 *            into shared memory, then each thread slides a window of
 *            2R+1 rows of 16-byte chunks down several output rows
 *   sliding  each thread owns a 16-byte-wide column strip of several
 *            rows and slides the same window down it in registers,
 *            loading each input row once per strip
 *
 * Kernels are templated on the sample type T and the radius R (1 for
 * Prewitt and Scharr, 2 and 3 for the Sobel apertures 5 and 7); the taps
 * come as a parameter.  The 3x3 Sobel has its own kernels (sobel.cu).
 */
#include "gradient.cuh"
#include "sobel.h"
#include "sobel_op.cuh"
#include "stencil.cuh"

template <typename T, int R>
__global__ void
op_global(gpu_image in, gpu_image out, struct sobel_params p,
    struct sobel_taps t, int border)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= in.width || y >= in.height)
		return;
	px_global<T> src = {in, border};
	gf_store_px<T>(out, x, y, op_pixel<R>(src, x, y, t, p));
}

template <typename T, int R>
__global__ void
op_texture(cudaTextureObject_t tex, gpu_image out, struct sobel_params p,
    struct sobel_taps t, int border)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= out.width || y >= out.height)
		return;
	px_texture<T> src = {tex, out.width, out.height, border};
	gf_store_px<T>(out, x, y, op_pixel<R>(src, x, y, t, p));
}

/* The shared tile's layout is gf_tile_load's (stencil.cuh), with an apron of R. */
template <typename T, int R>
__global__ void
op_shared(gpu_image in, gpu_image out, struct sobel_params p,
    struct sobel_taps t, int border, int rows)
{
	extern __shared__ uint4 smem[];
	const int N = VEC(T), tw = blockDim.x * N, th = blockDim.y * rows;
	const int x0 = blockIdx.x * tw, y0 = blockIdx.y * th;
	const int stride = tw + 2 * N;
	T *tile = (T *)smem;

	gf_tile_load<T>(tile, in, x0, y0, tw, th, R, border);
	__syncthreads();

	const int x = x0 + threadIdx.x * N, ty = threadIdx.y * rows;
	if (x >= out.width || y0 + ty >= out.height)
		return;
	const T *src = tile + ty * stride + N + threadIdx.x * N;
	int w[2 * R + 1][OP_WIN(T, R)];
	unsigned res[VEC(T)];
#pragma unroll
	for (int j = 0; j < 2 * R; j++)
		gf_smem_window<T, R>(src + j * stride, w[j]);
	for (int k = 0; k < rows && y0 + ty + k < out.height; k++) {
		gf_smem_window<T, R>(src + (k + 2 * R) * stride, w[2 * R]);
		op_chunk<T, R>(w, t, p, res);
		gf_store_chunk<T>(out, y0 + ty + k, x, res);
		op_slide<T, R>(w);
	}
}

template <typename T, int R>
__global__ void
op_sliding(gpu_image in, gpu_image out, struct sobel_params p,
    struct sobel_taps t, int border, int rows)
{
	const int N = VEC(T);
	const int x = (blockIdx.x * blockDim.x + threadIdx.x) * N;
	const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * rows;
	if (x >= in.width || y0 >= in.height)
		return;
	const int yend = min(y0 + rows, in.height);
	int w[2 * R + 1][OP_WIN(T, R)];
	unsigned res[VEC(T)];

#pragma unroll
	for (int j = 0; j < 2 * R; j++)
		gf_load_window<T, R>(in, gf_border_index(y0 - R + j, in.height,
		    border), x, border, w[j]);
	for (int y = y0; y < yend; y++) {
		gf_load_window<T, R>(in, gf_border_index(y + R, in.height, border),
		    x, border, w[2 * R]);
		op_chunk<T, R>(w, t, p, res);
		gf_store_chunk<T>(out, y, x, res);
		op_slide<T, R>(w);
	}
}

/*
 * Default launch shapes: global and texture as the 3x3 Sobel's; shared
 * and sliding at 32x4 threads of 4 rows, whose window of up to 7 rows of
 * 22 samples a thread keeps in registers (make bench times the defaults
 * but does not sweep other shapes for these kernels yet).
 */
static const struct gf_launch op_defaults[GF_NSTRATEGIES] = {
	{0, 0, 0},              /* auto: resolved before launch */
	{0, 0, 0},              /* cpu */
	{32, 8, 1},             /* global */
	{32, 8, 1},             /* texture */
	{32, 4, 4},             /* shared */
	{32, 4, 4},             /* sliding */
};

extern "C" void
sobel_op_shape(enum gf_strategy s, int op, unsigned maxval,
    struct gf_launch *l, int *tile_w, int *tile_h, size_t *smem)
{
	gf_launch_shape(s, op_defaults, maxval, sobel_op_radius(op), l, tile_w,
	    tile_h, smem);
}

/* The kernel of strategy s for T and R, for its limits; NULL if none. */
template <typename T, int R>
static const void *
op_kernel(enum gf_strategy s)
{
	switch (s) {
	case GF_GLOBAL:
		return (const void *)op_global<T, R>;
	case GF_TEXTURE:
		return (const void *)op_texture<T, R>;
	case GF_SHARED:
		return (const void *)op_shared<T, R>;
	case GF_SLIDING:
		return (const void *)op_sliding<T, R>;
	default:
		return NULL;
	}
}

template <typename T, int R>
static cudaError_t
op_launch(enum gf_strategy s, const gpu_image &in, const gpu_image &out,
    const struct sobel_params &p, int border, const struct gf_launch *l,
    cudaTextureObject_t tex, cudaStream_t st)
{
	const struct sobel_taps t = sobel_taps_of(p.op);
	struct gf_launch shape = *l;
	struct stencil_launch a;
	int tw, th;

	if (s < 0 || s >= GF_NSTRATEGIES || op_kernel<T, R>(s) == NULL)
		return cudaErrorInvalidValue;
	sobel_op_shape(s, p.op, in.maxval, &shape, &tw, &th, &a.smem);
#ifndef GF_EMU_H                /* tests/emu runs the kernels on the CPU */
	struct cudaFuncAttributes attr;
	cudaError_t err = cudaFuncGetAttributes(&attr, op_kernel<T, R>(s));
	if (err != cudaSuccess)
		return err;
	if (shape.block_w * shape.block_h > attr.maxThreadsPerBlock)
		return cudaErrorLaunchOutOfResources;
#endif
	stencil_launch_set(a, in, border, shape, tw, th, tex, st);
	switch (s) {
	case GF_GLOBAL:
		op_global<T, R><<<a.grid, a.block, 0, a.st>>>(a.in, out, p, t, a.border);
		break;
	case GF_TEXTURE:
		op_texture<T, R><<<a.grid, a.block, 0, a.st>>>(a.tex, out, p, t, a.border);
		break;
	case GF_SHARED:
		op_shared<T, R><<<a.grid, a.block, a.smem, a.st>>>(a.in, out, p, t,
		    a.border, a.rows);
		break;
	default:
		op_sliding<T, R><<<a.grid, a.block, 0, a.st>>>(a.in, out, p, t,
		    a.border, a.rows);
		break;
	}
	return cudaGetLastError();
}

template <typename T>
static cudaError_t
op_launch_type(enum gf_strategy s, const gpu_image &in, const gpu_image &out,
    const struct sobel_params &p, int border, const struct gf_launch *l,
    cudaTextureObject_t tex, cudaStream_t st)
{
	switch (sobel_op_radius(p.op)) {
	case 1:
		return op_launch<T, 1>(s, in, out, p, border, l, tex, st);
	case 2:
		return op_launch<T, 2>(s, in, out, p, border, l, tex, st);
	default:
		return op_launch<T, 3>(s, in, out, p, border, l, tex, st);
	}
}

extern "C" cudaError_t
sobel_op_launch(enum gf_strategy s, const struct gpu_image *in,
    const struct gpu_image *out, const struct sobel_params *p, int border,
    const struct gf_launch *l, cudaTextureObject_t tex, cudaStream_t stream)
{
	if (!sobel_op_path(p) || p->op < 0 || p->op >= SOBEL_NOPS)
		return cudaErrorInvalidValue;
	if (in->maxval > 255)
		return op_launch_type<uint16_t>(s, *in, *out, *p, border, l, tex, stream);
	return op_launch_type<uint8_t>(s, *in, *out, *p, border, l, tex, stream);
}
