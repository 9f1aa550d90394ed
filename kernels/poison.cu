/*
 * poison.cu - gpu_poison (poison.h): a write to an address no
 * allocation has, which leaves the context with an error that sticks.
 */
#include "poison.h"

__global__ void
poison_write(volatile int *p)
{
	*p = 1;
}

extern "C" int
gpu_poison(const struct gpu *g, struct gf_err *e)
{
	cudaError_t err;

	if ((err = cudaSetDevice(g->device)) == cudaSuccess) {
		poison_write<<<1, 1, 0, g->stream>>>((volatile int *)64);
		err = cudaDeviceSynchronize();
	}
	return gf_fail(e, "GPUFILTD_FAULT: GPU %d was made to fault: %s",
	    g->device, cudaGetErrorString(err));
}
