/*
 * edge_max.cu - edge --colour max's suppression and double threshold on
 * the GPU, from the field of chosen gradients that kernels/grad_max.cu
 * wrote (any strategy): one thread a pixel, edge_core.h's sector and
 * classification on the field's magnitudes, as edge_max_classify_cpu.
 */
#include "edge_max.h"

__device__ __forceinline__ uint64_t
field_mag(const int *f, size_t i, int l1)
{
	return grad_mag(f[2 * i], f[2 * i + 1], l1);
}

__global__ void
max_nms(const int *__restrict__ f, gpu_image lab, struct grad_thresh p)
{
	const int w = lab.width, h = lab.height;
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int c = EDGE_NONE;

	if (x >= w || y >= h)
		return;
	if (!edge_in_frame(x, y, w, h)) {
		size_t i = (size_t)y * w + x;
		int s = edge_sector(f[2 * i], f[2 * i + 1]), dx, dy;
		edge_sector_offset(s, &dx, &dy);
		c = edge_classify(field_mag(f, i, p.l1),
		    field_mag(f, i + (ptrdiff_t)dy * w + dx, p.l1),
		    field_mag(f, i - (ptrdiff_t)dy * w - dx, p.l1), s, &p);
	}
	((uint8_t *)lab.px + (size_t)y * lab.pitch)[x] = (uint8_t)c;
}

extern "C" cudaError_t
edge_max_launch_nms(const int *field, const struct gpu_image *lab,
    const struct grad_thresh *p, cudaStream_t stream)
{
	dim3 block(32, 8), grid((lab->width + 31) / 32, (lab->height + 7) / 8);

	max_nms<<<grid, block, 0, stream>>>(field, *lab, *p);
	return cudaGetLastError();
}
