/*
 * img_png_filter.h - undoing PNG's row filters (None, Sub, Up, Average,
 * Paeth) for the fast PNG reader of img_png.c, in a header of its own so
 * that tests/png_test.c can hold each one against the PNG
 * specification's definition: the Paeth predictor for all 2^24 inputs,
 * whole rows for every pixel size.
 */
#ifndef GF_IMG_PNG_FILTER_H
#define GF_IMG_PNG_FILTER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * The Paeth predictor of a (left), b (above) and c (above left): of the
 * three, the nearest to p = a + b - c, a on a tie, then b.  With lo and
 * hi the smaller and the larger of a and b, p is as far from hi as c is
 * from lo, as far from lo as c is from hi, and |lo + hi - 2c| from c:
 * hi is nearest when 2 (c - lo) <= hi - c, lo when 2 (hi - c) <= c - lo,
 * else c.  (Both hold only when a == b == c; a tie of a and b means
 * a == b.)  Unlike the specification's form this has no branch on the
 * data (both choices are made, then one taken: conditional moves) and a
 * short dependency on a, which the next pixel waits for.
 */
static inline unsigned
img_png_paeth(unsigned a, unsigned b, unsigned c)
{
	int lo = (int)(a < b ? a : b), hi = (int)(a < b ? b : a);
	int c3 = 3 * (int)c;
	unsigned lo_or_c = c3 >= lo + 2 * hi ? (unsigned)lo : c;

	return c3 <= 2 * lo + hi ? (unsigned)hi : lo_or_c;
}

/*
 * Undoes filter type (0-4) on one row of n bytes: in, the row as stored
 * (after its filter byte); prev, the row above, unfiltered (zeros above
 * the first row); out, where the row goes.  bpp, a pixel's bytes, is the
 * distance to the byte on the left; bytes left of the first pixel count
 * as zeros.  Sub, Average and Paeth wait on the pixel just made: its
 * bytes are carried in left[] (the ones above it in upleft[]), which
 * live in registers when bpp is a constant (img_png_unfilter_row), not
 * read back from out.
 */
static inline __attribute__((always_inline)) void
img_png_unfilter_bpp(unsigned type, const uint8_t *restrict in,
    const uint8_t *restrict prev, uint8_t *restrict out, size_t n,
    const size_t bpp)
{
	uint8_t left[8] = {0}, upleft[8] = {0};

	switch (type) {
	case 0:
		memcpy(out, in, n);
		break;
	case 1:
		for (size_t i = 0; i < n; i += bpp)
#pragma GCC unroll 8
			for (size_t k = 0; k < bpp; k++)
				out[i + k] = left[k] = (uint8_t)(in[i + k] + left[k]);
		break;
	case 2:
		for (size_t i = 0; i < n; i++)
			out[i] = (uint8_t)(in[i] + prev[i]);
		break;
	case 3:
		for (size_t i = 0; i < n; i += bpp)
#pragma GCC unroll 8
			for (size_t k = 0; k < bpp; k++)
				out[i + k] = left[k] = (uint8_t)(in[i + k] +
				    ((left[k] + prev[i + k]) >> 1));
		break;
	case 4:
		for (size_t i = 0; i < n; i += bpp)
#pragma GCC unroll 8
			for (size_t k = 0; k < bpp; k++) {
				out[i + k] = left[k] = (uint8_t)(in[i + k] +
				    img_png_paeth(left[k], prev[i + k], upleft[k]));
				upleft[k] = prev[i + k];
			}
		break;
	}
}

/*
 * img_png_unfilter_bpp for the pixel sizes of 8- and 16-bit PNGs (1, 2,
 * 3, 4, 6 or 8 bytes), each made with its bpp a constant.
 */
static inline void
img_png_unfilter_row(unsigned type, const uint8_t *in, const uint8_t *prev,
    uint8_t *out, size_t n, size_t bpp)
{
	switch (bpp) {
	case 1:
		img_png_unfilter_bpp(type, in, prev, out, n, 1);
		break;
	case 2:
		img_png_unfilter_bpp(type, in, prev, out, n, 2);
		break;
	case 3:
		img_png_unfilter_bpp(type, in, prev, out, n, 3);
		break;
	case 4:
		img_png_unfilter_bpp(type, in, prev, out, n, 4);
		break;
	case 6:
		img_png_unfilter_bpp(type, in, prev, out, n, 6);
		break;
	case 8:
		img_png_unfilter_bpp(type, in, prev, out, n, 8);
		break;
	}
}

#endif
