/*
 * border.h - where a read outside the image lands, shared by the CPU
 * references and every GPU kernel so that all paths agree at the edges.
 */
#ifndef GF_BORDER_H
#define GF_BORDER_H

#include "gf.h"

enum gf_border {
	GF_BORDER_REPLICATE,    /* nearest edge pixel: aaa|abcd|ddd */
	GF_BORDER_ZERO,         /* 0 outside: 000|abcd|000 */
	GF_BORDER_REFLECT,      /* mirror, edge not repeated: dcb|abcd|cba (period 2(n-1)) */
	GF_BORDER_WRAP          /* periodic: bcd|abcd|abc (period n) */
};

/*
 * Maps coordinate i (any int) of an axis of n >= 1 samples to the index
 * that is read, or -1 when the value read is 0 (zero border only).
 * Reflect with n == 1 reads index 0.
 */
GF_HD int
gf_border_index(int i, int n, int border)
{
	if (i >= 0 && i < n)
		return i;
	switch (border) {
	case GF_BORDER_ZERO:
		return -1;
	case GF_BORDER_REFLECT: {
		if (n == 1)
			return 0;
		int period = 2 * (n - 1);
		int m = i % period;
		if (m < 0)
			m += period;
		return m < n ? m : period - m;
	}
	case GF_BORDER_WRAP: {
		int m = i % n;
		return m < 0 ? m + n : m;
	}
	default:
		return i < 0 ? 0 : n - 1;
	}
}

/*
 * Sample (x, y) of a one-channel host image through the border rule: the
 * CPU references read their neighbourhoods through it.
 */
static inline int
img_sample(const struct image *img, int x, int y, int border)
{
	int xi = gf_border_index(x, img->width, border);
	int yi = gf_border_index(y, img->height, border);
	if (xi < 0 || yi < 0)
		return 0;
	return (int)img_get(img, (size_t)yi * img->width + xi);
}

#endif
