/*
 * planes.cu - moving colour between the packed host layout and the
 * one-channel device images the stencils work on.  Images cross the bus
 * as they are stored (rows of interleaved samples, no padding); these
 * kernels turn them into pitched planes on the device, so the host never
 * spends a pass de-interleaving or converting to gray.
 */
#include <stdint.h>

#include "gpu.h"
#include "planes.h"

/* The gray of one RGB pixel: the formula of img_to_gray, in integers. */
__device__ __forceinline__ unsigned
gray_of(unsigned r, unsigned g, unsigned b)
{
	return (299 * r + 587 * g + 114 * b + 500) / 1000;
}

template <typename T>
__global__ void
gray_kernel(const T *__restrict__ packed, int channels, gpu_image dst)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	for (int y = blockIdx.y; x < dst.width && y < dst.height; y += gridDim.y) {
		const T *p = packed + ((size_t)y * dst.width + x) * channels;
		T *row = (T *)((char *)dst.px + (size_t)y * dst.pitch);
		row[x] = channels < 3 ? p[0] : (T)gray_of(p[0], p[1], p[2]);
	}
}

/* dir 0: channel c of packed into plane; dir 1: plane into channel c. */
template <typename T>
__global__ void
plane_kernel(T *packed, int channels, int c, gpu_image plane, int dir)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	for (int y = blockIdx.y; x < plane.width && y < plane.height; y += gridDim.y) {
		T *p = packed + ((size_t)y * plane.width + x) * channels + c;
		T *q = (T *)((char *)plane.px + (size_t)y * plane.pitch) + x;
		if (dir == 0)
			*q = *p;
		else
			*p = *q;
	}
}

static dim3
grid_for(const struct gpu_image *d)
{
	return dim3((unsigned)((d->width + 255) / 256),
	    (unsigned)(d->height < 65535 ? d->height : 65535));
}

extern "C" cudaError_t
planes_launch_gray(const void *packed, int channels,
    const struct gpu_image *dst, cudaStream_t stream)
{
	if (dst->maxval > 255)
		gray_kernel<uint16_t><<<grid_for(dst), 256, 0, stream>>>(
		    (const uint16_t *)packed, channels, *dst);
	else
		gray_kernel<uint8_t><<<grid_for(dst), 256, 0, stream>>>(
		    (const uint8_t *)packed, channels, *dst);
	return cudaGetLastError();
}

extern "C" cudaError_t
planes_launch_copy(void *packed, int channels, int c,
    const struct gpu_image *plane, int to_packed, cudaStream_t stream)
{
	if (plane->maxval > 255)
		plane_kernel<uint16_t><<<grid_for(plane), 256, 0, stream>>>(
		    (uint16_t *)packed, channels, c, *plane, to_packed);
	else
		plane_kernel<uint8_t><<<grid_for(plane), 256, 0, stream>>>(
		    (uint8_t *)packed, channels, c, *plane, to_packed);
	return cudaGetLastError();
}

/*
 * dst pixel (x, y) from the stored image src, as EXIF orientation o
 * says (lib/io/img_orient.c's walks: src index = start + x * dx + y * dy,
 * here as a column and a row of src).
 */
__global__ void
orient_kernel(gpu_image src, int o, gpu_image dst)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int w = src.width - 1, h = src.height - 1;

	for (int y = blockIdx.y; x < dst.width && y < dst.height; y += gridDim.y) {
		int sx = x, sy = y;
		switch (o) {
		case 2: sx = w - x; break;
		case 3: sx = w - x; sy = h - y; break;
		case 4: sy = h - y; break;
		case 5: sx = y; sy = x; break;
		case 6: sx = y; sy = h - x; break;
		case 7: sx = w - y; sy = h - x; break;
		case 8: sx = w - y; sy = x; break;
		}
		((uint8_t *)dst.px + (size_t)y * dst.pitch)[x] =
		    ((const uint8_t *)src.px + (size_t)sy * src.pitch)[sx];
	}
}

extern "C" cudaError_t
planes_launch_orient(const struct gpu_image *src, int orientation,
    const struct gpu_image *dst, cudaStream_t stream)
{
	orient_kernel<<<grid_for(dst), 256, 0, stream>>>(*src, orientation, *dst);
	return cudaGetLastError();
}
