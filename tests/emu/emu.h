/*
 * emu.h - just enough of CUDA's device side to run gpufilt's kernels on
 * the CPU, for checking a kernel's logic where no GPU is at hand (it
 * proves nothing about speed, and a sanitizer on the GPU still has the
 * last word on races).  Every CUDA thread is a host thread; a block's
 * threads run together (__syncthreads is a barrier, a warp's shuffles
 * meet at a warp barrier), blocks one after another, so __shared__
 * variables can be function statics.  Atomics are the compiler's.
 *
 * tests/emu/run.sh rewrites a kernel file for it: launches become
 * emu_launch calls, extern __shared__ arrays point into emu_dyn_smem.
 */
#ifndef GF_EMU_H
#define GF_EMU_H

#define __host__
#define __device__
#define __global__
#define __shared__ static
#define __constant__ static
#define __launch_bounds__(...)

#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#undef cudaGetLastError
#define cudaGetLastError() cudaSuccess

extern thread_local uint3 emu_threadIdx, emu_blockIdx;
extern dim3 emu_blockDim, emu_gridDim;
#define threadIdx emu_threadIdx
#define blockIdx emu_blockIdx
#define blockDim emu_blockDim
#define gridDim emu_gridDim
extern unsigned char emu_dyn_smem[];

void __syncthreads(void);
int __syncthreads_or(int p);
int emu_warp_exchange(int v, int src_lane);
/* Every lane of the warp gets every lane's v: all[l] is lane l's. */
void emu_warp_gather(int v, int *all);
unsigned emu_ballot(int p);

static inline int emu_lane(void)
{
	return (int)((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) & 31;
}

template <typename T> static inline T __shfl_up_sync(unsigned, T v, int o)
{
	int l = emu_lane();
	return (T)emu_warp_exchange((int)v, l >= o ? l - o : l);
}
template <typename T> static inline T __shfl_down_sync(unsigned, T v, int o)
{
	int l = emu_lane();
	return (T)emu_warp_exchange((int)v, l + o < 32 ? l + o : l);
}
template <typename T> static inline T __shfl_sync(unsigned, T v, int src)
{
	return (T)emu_warp_exchange((int)v, src & 31);
}
static inline double __shfl_down_sync(unsigned, double v, int o)
{
	long long b;
	memcpy(&b, &v, 8);
	int l = emu_lane(), s = l + o < 32 ? l + o : l;
	unsigned lo = (unsigned)emu_warp_exchange((int)(unsigned)b, s);
	unsigned hi = (unsigned)emu_warp_exchange((int)(unsigned)(b >> 32), s);
	b = (long long)((unsigned long long)hi << 32 | lo);
	memcpy(&v, &b, 8);
	return v;
}
static inline void __syncwarp(unsigned = 0xffffffffu) { emu_warp_exchange(0, emu_lane()); }
static inline unsigned __ballot_sync(unsigned, int p) { return emu_ballot(p); }
static inline int __any_sync(unsigned, int p) { return emu_ballot(p) != 0; }
static inline int __all_sync(unsigned m, int p) { return emu_ballot(p) == emu_ballot(1) && m; }

template <typename T> static inline T __ldg(const T *p) { return *p; }
template <typename T> static inline T __ldcg(const T *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
template <typename T> static inline T __ldcv(const T *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
template <typename T> static inline void __stcg(T *p, T v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
template <typename T, typename U> static inline T atomicAdd(T *p, U v) { return __atomic_fetch_add(p, (T)v, __ATOMIC_SEQ_CST); }
template <typename T, typename U> static inline T atomicOr(T *p, U v) { return __atomic_fetch_or(p, (T)v, __ATOMIC_SEQ_CST); }
template <typename T, typename U> static inline T atomicAnd(T *p, U v) { return __atomic_fetch_and(p, (T)v, __ATOMIC_SEQ_CST); }
template <typename T, typename U> static inline T atomicExch(T *p, U v) { return __atomic_exchange_n(p, (T)v, __ATOMIC_SEQ_CST); }
template <typename T, typename U> static inline T atomicMin(T *p, U v)
{
	T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
	while (old > (T)v && !__atomic_compare_exchange_n(p, &old, (T)v, false,
	    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	return old;
}
template <typename T, typename U> static inline T atomicMax(T *p, U v)
{
	T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
	while (old < (T)v && !__atomic_compare_exchange_n(p, &old, (T)v, false,
	    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	return old;
}
template <typename T> static inline T atomicCAS(T *p, T cmp, T v)
{
	__atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return cmp;
}
static inline int __popc(unsigned v) { return __builtin_popcount(v); }
static inline unsigned __brev(unsigned v)
{
	unsigned r = 0;
	for (int i = 0; i < 32; i++)
		r |= (v >> i & 1) << (31 - i);
	return r;
}
static inline int __popcll(unsigned long long v) { return __builtin_popcountll(v); }
static inline int __ffs(int v) { return __builtin_ffs(v); }
static inline int __ffsll(long long v) { return __builtin_ffsll(v); }
static inline int __clz(int v) { return v == 0 ? 32 : __builtin_clz((unsigned)v); }
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s)
{
	unsigned long long b = (unsigned long long)y << 32 | x;
	unsigned r = 0;
	for (int i = 0; i < 4; i++)
		r |= (unsigned)((b >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
	return r;
}
static inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned n)
{
	return (unsigned)((((unsigned long long)hi << 32) | lo) >> (n & 31));
}
static inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned n)
{
	return (unsigned)(((((unsigned long long)hi << 32) | lo) << (n & 31)) >> 32);
}
static inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
static inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
/* cp.async as a plain copy (zero-filling the last zfill bytes), done at once. */
static inline void __pipeline_memcpy_async(void *dst, const void *src, size_t n,
    size_t zfill = 0)
{
	memcpy(dst, src, n - zfill);
	memset((char *)dst + (n - zfill), 0, zfill);
}
static inline void __pipeline_commit(void) {}
static inline void __pipeline_wait_prior(size_t) {}
/* Constant memory is a plain static here. */
#define cudaMemcpyToSymbolAsync(sym, src, n, off, kind, st) \
	(memcpy((char *)&(sym) + (off), (src), (n)), cudaSuccess)
static inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
static inline void __threadfence(void) { std::atomic_thread_fence(std::memory_order_seq_cst); }
/*
 * Textures: a check registers a device image (host memory here) with
 * emu_tex_make and passes the number it gives as the texture object;
 * tex2D reads it point-sampled, clamped, unnormalized, as gpu_texture's
 * objects do.  Kernels read no texture that was not registered.
 */
struct emu_tex {
	const void *px;
	size_t pitch;
	int width, height;
};
inline emu_tex emu_texs[16];
inline int emu_ntex;
static inline cudaTextureObject_t emu_tex_make(const void *px, size_t pitch,
    int width, int height)
{
	if (emu_ntex == 16)
		abort();
	emu_texs[emu_ntex] = {px, pitch, width, height};
	return (cudaTextureObject_t)++emu_ntex;
}
template <typename T> static inline T tex2D(cudaTextureObject_t t, float x, float y)
{
	if (t < 1 || t > (cudaTextureObject_t)emu_ntex)
		abort();
	const emu_tex &e = emu_texs[t - 1];
	int xi = (int)std::floor(x), yi = (int)std::floor(y);
	xi = xi < 0 ? 0 : xi >= e.width ? e.width - 1 : xi;
	yi = yi < 0 ? 0 : yi >= e.height ? e.height - 1 : yi;
	return ((const T *)((const char *)e.px + (size_t)yi * e.pitch))[xi];
}
using std::min;
using std::max;

/* Runs one grid: blocks one at a time, each block's threads together. */
void emu_run(dim3 grid, dim3 block, size_t smem, const std::function<void()> &f);

template <typename G, typename B, typename F>
static inline void emu_launch(G grid, B block, size_t smem, cudaStream_t, F f)
{
	emu_run(dim3(grid), dim3(block), smem, f);
}

#endif
