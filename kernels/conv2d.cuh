/*
 * conv2d.cuh - what conv2d's kernel files share: the taps in constant
 * memory (each file holds its own copy; conv2d_set_taps writes them all),
 * the core's arithmetic per accumulator type, and the declarations of
 * the kernel families' launchers.  The families: the generic strategies
 * and the separable passes (conv2d.cu), the 8-bit fast and tensor-core
 * kernels (conv2d_fast8.cu), the fused 8-bit separable kernel
 * (conv2d_sep.cu); conv8.cuh holds what the 8-bit ones share.  Each
 * file declares the dynamic shared memory conv2d_smem itself (where
 * tests/emu's rewrite finds it).
 */
#ifndef GF_CONV2D_CUH
#define GF_CONV2D_CUH

#include <cuda_runtime.h>

#include "conv2d.h"
#include "stencil.cuh"

/* Internal to each kernel file (a __constant__ is one module's). */
namespace {
__constant__ struct conv2d_taps c_taps;
}

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

/* The 8-bit families' launchers and the copies of the taps they read. */
cudaError_t conv2d_launch_fast8(int strategy, const gpu_image &in,
    const gpu_image &out, const conv2d_coef &c, const gf_launch *l,
    cudaStream_t st);
cudaError_t conv2d_fast8_set_taps(const struct conv2d_taps *t, cudaStream_t st);
cudaError_t conv2d_sep_set_taps(const struct conv2d_taps *t, cudaStream_t st);

#endif
