/*
 * gradient.cuh - sobel's gradient of one pixel on the GPU, from a pixel
 * source (global memory through the border rule, or the texture cache),
 * shared by edge's per-pixel suppression (edge_nms.cu) and the magnitude
 * histogram of Otsu's threshold (otsu.cu).
 */
#ifndef GF_GRADIENT_CUH
#define GF_GRADIENT_CUH

#include "edge_core.h"
#include "stencil.cuh"

template <typename T>
struct px_global {
	gpu_image im;
	int border;
	__device__ __forceinline__ int at(int x, int y) const
	{
		return gf_load_px<T>(im, x, y, border);
	}
};

template <typename T>
struct px_texture {
	cudaTextureObject_t tex;
	int w, h, border;
	__device__ __forceinline__ int at(int x, int y) const
	{
		int xi = gf_border_index(x, w, border);
		int yi = gf_border_index(y, h, border);
		if (xi < 0 || yi < 0)
			return 0;
		return tex2D<T>(tex, xi + 0.5f, yi + 0.5f);
	}
};

template <typename P>
__device__ __forceinline__ void
grad_at(const P &src, int x, int y, int *gx, int *gy)
{
	int a = src.at(x - 1, y - 1), b = src.at(x, y - 1), c = src.at(x + 1, y - 1);
	int d = src.at(x - 1, y), f = src.at(x + 1, y);
	int g = src.at(x - 1, y + 1), h = src.at(x, y + 1), i = src.at(x + 1, y + 1);
	*gx = sobel_gx(a, c, d, f, g, i);
	*gy = sobel_gy(a, b, c, g, h, i);
}

template <typename P>
__device__ __forceinline__ uint64_t
mag_at(const P &src, int x, int y, int l1)
{
	int gx, gy;
	grad_at(src, x, y, &gx, &gy);
	return edge_mag(gx, gy, l1);
}

#endif
