/*
 * sobel_op.cuh - what the kernels of sobel's operators share
 * (kernels/sobel_op.cu, and sobel_wide.cu's 16-bit outputs of 8-bit
 * images): an output from a pixel source, and the register window of
 * the shared and sliding kernels, over the core of
 * lib/ops/sobel/sobel_op_core.h.
 */
#ifndef GF_SOBEL_OP_CUH
#define GF_SOBEL_OP_CUH

#include "sobel.h"
#include "stencil.cuh"

/* The output at (x, y) from pixel source src (gradient.cuh's px_global, px_texture). */
template <int R, class P>
__device__ __forceinline__ unsigned
op_pixel(const P &src, int x, int y, const struct sobel_taps &t,
    const struct sobel_params &p)
{
	int v[(2 * R + 1) * (2 * R + 1)], gx, gy;
#pragma unroll
	for (int j = 0; j <= 2 * R; j++)
#pragma unroll
		for (int i = 0; i <= 2 * R; i++)
			v[j * (2 * R + 1) + i] = src.at(x + i - R, y + j - R);
	sobel_op_grad(&t, R, v, 2 * R + 1, &gx, &gy);
	return sobel_value_op(gx, gy, &p);
}

/* Samples of one window row: a chunk and R either side. */
#define OP_WIN(T, R) (VEC(T) + 2 * (R))

/*
 * VEC(T) outputs of one row from the window w: 2R+1 rows of OP_WIN
 * samples, row j holding the input row j - R rows from the output's,
 * sample k the column k - R from the chunk's first.
 */
template <typename T, int R>
__device__ __forceinline__ void
op_chunk(const int (*w)[OP_WIN(T, R)], const struct sobel_taps &t,
    const struct sobel_params &p, unsigned *r)
{
#pragma unroll
	for (int k = 0; k < VEC(T); k++) {
		int gx, gy;
		sobel_op_grad(&t, R, &w[0][k], OP_WIN(T, R), &gx, &gy);
		r[k] = sobel_value_op(gx, gy, &p);
	}
}

/* Moves the window up by a row: row j takes row j + 1; row 2R is then free. */
template <typename T, int R>
__device__ __forceinline__ void
op_slide(int (*w)[OP_WIN(T, R)])
{
#pragma unroll
	for (int j = 0; j < 2 * R; j++)
#pragma unroll
		for (int k = 0; k < OP_WIN(T, R); k++)
			w[j][k] = w[j + 1][k];
}

#endif
