/*
 * gradient.cuh - sobel's gradient on the GPU, shared by edge's
 * suppression (edge_nms.cu) and the magnitude histogram of Otsu's
 * threshold (otsu.cu): of one pixel from a pixel source (global memory
 * through the border rule, or the texture cache), and of the 8-bit
 * strips, from packed rows by column sums.
 */
#ifndef GF_GRADIENT_CUH
#define GF_GRADIENT_CUH

#include "gradient_core.h"
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
	return grad_mag(gx, gy, l1);
}

/*
 * Input row r of an 8-bit strip as 20 packed bytes: byte j of w[0..4]
 * (little-endian) is sample x0 - 2 + j.  L holds samples x0-2, x0-1, q
 * x0 .. x0+15, R x0+16, x0+17.
 */
__device__ __forceinline__ void
pack_row8(uint32_t L, uint4 q, uint32_t R, uint32_t *w)
{
	w[0] = L | q.x << 16;
	w[1] = q.x >> 16 | q.y << 16;
	w[2] = q.y >> 16 | q.z << 16;
	w[3] = q.z >> 16 | q.w << 16;
	w[4] = q.w >> 16 | R << 16;
}

/*
 * Row yi (mapped; -1 reads zeros) of a strip at the image's left or
 * right edge, or on the zero border, through the border rule: one
 * sample at a time, shifted into the five words from the top, in a loop
 * kept rolled so that this rare path adds no registers to the common one.
 */
__device__ __forceinline__ void
load_row8_border(const gpu_image &im, int yi, int x0, int border, uint32_t *w)
{
	const uint8_t *row = gf_row<uint8_t>(im, yi < 0 ? 0 : yi);
	uint32_t w0 = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0;
#pragma unroll 1
	for (int k = 0; k < 20; k++) {
		int xi = gf_border_index(x0 - 2 + k, im.width, border);
		uint32_t v = yi < 0 || xi < 0 ? 0 : __ldg(row + xi);
		w0 = w0 >> 8 | w1 << 24;
		w1 = w1 >> 8 | w2 << 24;
		w2 = w2 >> 8 | w3 << 24;
		w3 = w3 >> 8 | w4 << 24;
		w4 = w4 >> 8 | v << 24;
	}
	w[0] = w0;
	w[1] = w1;
	w[2] = w2;
	w[3] = w3;
	w[4] = w4;
}

struct rows_global8 {
	gpu_image im;
	int x0, border;
	__device__ __forceinline__ void operator()(int r, uint32_t *w) const
	{
		int yi = gf_border_index(r, im.height, border);
		if (yi >= 0 && x0 >= 2 && x0 + 18 <= im.width) {
			const uint8_t *row = gf_row<uint8_t>(im, yi);
			pack_row8(__ldg((const uint16_t *)(row + x0 - 2)),
			    __ldg((const uint4 *)(row + x0)),
			    __ldg((const uint16_t *)(row + x0 + 16)), w);
			return;
		}
		load_row8_border(im, yi, x0, border, w);
	}
};

/*
 * Sobel's sums of one column of an 8-bit strip, byte b of the packed
 * rows w0 (above), w1, w2 (below): *s = a + 2b + c + 2^17, gx's smoothing,
 * and *d = c - a, gy's difference.  Column k's gradient is then gx =
 * s(k+1) - s(k-1) and gy = d(k-1) + 2 d(k) + d(k+1), all exact (the
 * samples come as 2^15 + p: gf_byte_f15).
 */
__device__ __forceinline__ void
sobel_cols8(uint32_t w0, uint32_t w1, uint32_t w2, int b, float *s, float *d)
{
	float a = gf_byte_f15(w0, b), m = gf_byte_f15(w1, b), c = gf_byte_f15(w2, b);

	*s = fmaf(2.0f, m, a) + c;
	*d = c - a;
}

#endif
