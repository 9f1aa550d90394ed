/*
 * copy.cu - the yardstick: a plain copy with 16-byte vectors and a
 * grid-stride loop.  make bench reports every kernel as a fraction of it.
 */
#include <stdint.h>

#include "bench.h"

__global__ void
copy16(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	    i += (size_t)gridDim.x * blockDim.x)
		dst[i] = src[i];
}

extern "C" cudaError_t
bench_copy_launch(const void *src, void *dst, size_t bytes, int sm_count,
    cudaStream_t stream)
{
	copy16<<<sm_count * 8, 256, 0, stream>>>((const uint4 *)src, (uint4 *)dst,
	    bytes / 16);
	return cudaGetLastError();
}
