/*
 * sobel_wide.cu - sobel's outputs that are wider than their input, on
 * the GPU: 16-bit samples of an 8-bit image (sobel_wide_path), the
 * signed gradients (--gradient x, y: sobel_offset16) and the magnitude
 * at 16 bits (--depth 16), for every operator, the 3x3 Sobel's included,
 * four ways.  Kept apart from sobel_op.cu, whose kernels read and write
 * one sample type, so that each file's kernels stay templated on the
 * types they need: here the input is 8-bit and the output 16-bit,
 * always.  Every kernel gathers the (2R+1) x (2R+1) window of an output
 * pixel and hands it to sobel_op_grad and sobel_value_op
 * (lib/ops/sobel/sobel_op_core.h, sobel_core.h), the core of the CPU
 * reference (sobel_op_cpu), so every path agrees bit for bit; they
 * differ only in how the samples arrive, as sobel_op.cu's:
 *
 *   global   one thread per pixel, every read through the border rule
 *   texture  one thread per pixel, every read through the texture cache
 *   shared   a block copies its tile and an apron of R rows and columns
 *            into shared memory, then each thread slides a window of
 *            2R+1 rows of 16-sample chunks down several output rows
 *   sliding  each thread owns a 16-sample column strip of several rows
 *            and slides the same window down it in registers
 *
 * A chunk's 16 outputs are 32 bytes: two 16-byte stores.  A 16-bit
 * input's wider outputs need no kernel of their own (its output has its
 * sample type): sobel_op.cu's serve them.
 */
#include "gradient.cuh"
#include "sobel.h"
#include "sobel_op.cuh"
#include "stencil.cuh"

/* The input's sample type and the output's. */
typedef uint8_t wide_in;
typedef uint16_t wide_out;

template <int R>
__global__ void
wide_global(gpu_image in, gpu_image out, struct sobel_params p,
    struct sobel_taps t, int border)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= in.width || y >= in.height)
		return;
	px_global<wide_in> src = {in, border};
	gf_store_px<wide_out>(out, x, y, op_pixel<R>(src, x, y, t, p));
}

template <int R>
__global__ void
wide_texture(cudaTextureObject_t tex, gpu_image out, struct sobel_params p,
    struct sobel_taps t, int border)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= out.width || y >= out.height)
		return;
	px_texture<wide_in> src = {tex, out.width, out.height, border};
	gf_store_px<wide_out>(out, x, y, op_pixel<R>(src, x, y, t, p));
}

/*
 * Stores the VEC(wide_in) outputs r of the chunk at (x0, y): as two
 * chunks of the output's type (x0 is a multiple of 16, so each is 16-byte
 * aligned), each cut at the image's right edge by gf_store_chunk.
 */
__device__ __forceinline__ void
wide_store(const gpu_image &out, int y, int x0, const unsigned *r)
{
	const int N = VEC(wide_out);
#pragma unroll
	for (int h = 0; h < VEC(wide_in) / N; h++)
		if (x0 + h * N < out.width)
			gf_store_chunk<wide_out>(out, y, x0 + h * N, r + h * N);
}

/* The shared tile's layout is gf_tile_load's (stencil.cuh), with an apron of R. */
template <int R>
__global__ void
wide_shared(gpu_image in, gpu_image out, struct sobel_params p,
    struct sobel_taps t, int border, int rows)
{
	extern __shared__ uint4 smem[];
	const int N = VEC(wide_in), tw = blockDim.x * N, th = blockDim.y * rows;
	const int x0 = blockIdx.x * tw, y0 = blockIdx.y * th;
	const int stride = tw + 2 * N;
	wide_in *tile = (wide_in *)smem;

	gf_tile_load<wide_in>(tile, in, x0, y0, tw, th, R, border);
	__syncthreads();

	const int x = x0 + threadIdx.x * N, ty = threadIdx.y * rows;
	if (x >= out.width || y0 + ty >= out.height)
		return;
	const wide_in *src = tile + ty * stride + N + threadIdx.x * N;
	int w[2 * R + 1][OP_WIN(wide_in, R)];
	unsigned res[VEC(wide_in)];
#pragma unroll
	for (int j = 0; j < 2 * R; j++)
		gf_smem_window<wide_in, R>(src + j * stride, w[j]);
	for (int k = 0; k < rows && y0 + ty + k < out.height; k++) {
		gf_smem_window<wide_in, R>(src + (k + 2 * R) * stride, w[2 * R]);
		op_chunk<wide_in, R>(w, t, p, res);
		wide_store(out, y0 + ty + k, x, res);
		op_slide<wide_in, R>(w);
	}
}

template <int R>
__global__ void
wide_sliding(gpu_image in, gpu_image out, struct sobel_params p,
    struct sobel_taps t, int border, int rows)
{
	const int N = VEC(wide_in);
	const int x = (blockIdx.x * blockDim.x + threadIdx.x) * N;
	const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * rows;
	if (x >= in.width || y0 >= in.height)
		return;
	const int yend = min(y0 + rows, in.height);
	int w[2 * R + 1][OP_WIN(wide_in, R)];
	unsigned res[VEC(wide_in)];

#pragma unroll
	for (int j = 0; j < 2 * R; j++)
		gf_load_window<wide_in, R>(in, gf_border_index(y0 - R + j, in.height,
		    border), x, border, w[j]);
	for (int y = y0; y < yend; y++) {
		gf_load_window<wide_in, R>(in, gf_border_index(y + R, in.height,
		    border), x, border, w[2 * R]);
		op_chunk<wide_in, R>(w, t, p, res);
		wide_store(out, y, x, res);
		op_slide<wide_in, R>(w);
	}
}

/* The kernel of strategy s for R, for its limits; NULL if none. */
template <int R>
static const void *
wide_kernel(enum gf_strategy s)
{
	switch (s) {
	case GF_GLOBAL:
		return (const void *)wide_global<R>;
	case GF_TEXTURE:
		return (const void *)wide_texture<R>;
	case GF_SHARED:
		return (const void *)wide_shared<R>;
	case GF_SLIDING:
		return (const void *)wide_sliding<R>;
	default:
		return NULL;
	}
}

template <int R>
static cudaError_t
wide_launch(enum gf_strategy s, const gpu_image &in, const gpu_image &out,
    const struct sobel_params &p, int border, const struct gf_launch *l,
    cudaTextureObject_t tex, cudaStream_t st)
{
	const struct sobel_taps t = sobel_taps_of(p.op);
	const void *k = s >= 0 && s < GF_NSTRATEGIES ? wide_kernel<R>(s) : NULL;
	struct gf_launch shape = *l;
	struct stencil_launch a;
	int tw, th;

	if (k == NULL)
		return cudaErrorInvalidValue;
	/* sobel_op.cu's shapes: the same input, the same tiles. */
	sobel_op_shape(s, p.op, in.maxval, &shape, &tw, &th, &a.smem);
#ifndef GF_EMU_H                /* tests/emu runs the kernels on the CPU */
	struct cudaFuncAttributes attr;
	cudaError_t err = cudaFuncGetAttributes(&attr, k);
	if (err == cudaSuccess &&
	    shape.block_w * shape.block_h > attr.maxThreadsPerBlock)
		err = cudaErrorLaunchOutOfResources;
	if (err != cudaSuccess)
		return err;
#endif
	stencil_launch_set(a, in, border, shape, tw, th, tex, st);
	switch (s) {
	case GF_GLOBAL:
		wide_global<R><<<a.grid, a.block, 0, a.st>>>(a.in, out, p, t, a.border);
		break;
	case GF_TEXTURE:
		wide_texture<R><<<a.grid, a.block, 0, a.st>>>(a.tex, out, p, t,
		    a.border);
		break;
	case GF_SHARED:
		wide_shared<R><<<a.grid, a.block, a.smem, a.st>>>(a.in, out, p, t,
		    a.border, a.rows);
		break;
	default:
		wide_sliding<R><<<a.grid, a.block, 0, a.st>>>(a.in, out, p, t,
		    a.border, a.rows);
		break;
	}
	return cudaGetLastError();
}

extern "C" cudaError_t
sobel_wide_launch(enum gf_strategy s, const struct gpu_image *in,
    const struct gpu_image *out, const struct sobel_params *p, int border,
    const struct gf_launch *l, cudaTextureObject_t tex, cudaStream_t stream)
{
	if (!sobel_wide_path(p, in->maxval) || out->maxval <= 255 ||
	    p->op < 0 || p->op >= SOBEL_NOPS)
		return cudaErrorInvalidValue;
	switch (sobel_op_radius(p->op)) {
	case 1:
		return wide_launch<1>(s, *in, *out, *p, border, l, tex, stream);
	case 2:
		return wide_launch<2>(s, *in, *out, *p, border, l, tex, stream);
	default:
		return wide_launch<3>(s, *in, *out, *p, border, l, tex, stream);
	}
}
