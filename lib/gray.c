/*
 * gray.c - colour to gray on the CPU (img_to_gray, declared in img.h),
 * for the tools that work on gray images.  A file of its own so that the
 * image module's readers and writers (img.c) stay apart from it; the
 * GPU's version of the formula is kernels/planes.cu.
 */
#include "img.h"
#include "pool.h"

/* Y of n 8-bit RGB pixels (the formula in img.h). */
GF_CLONES static void
gray_row8(const uint8_t *in, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = (uint8_t)((299 * in[3 * i] + 587 * in[3 * i + 1] +
		    114 * in[3 * i + 2] + 500) / 1000);
}

int
img_to_gray(const struct image *in, struct image *gray, struct gf_err *e)
{
	size_t n = (size_t)in->width * in->height, ch = (size_t)in->channels;

	*gray = *in;
	gray->channels = 1;
	if (img_alloc(gray, e) < 0)
		return -1;
	if (in->maxval <= 255 && ch == 3) {
		gray_row8(in->px, gray->px, n);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned r = img_get(in, ch * i), g, b;
		if (ch < 3) {           /* gray+alpha: the gray */
			img_set(gray, i, r);
			continue;
		}
		g = img_get(in, ch * i + 1);
		b = img_get(in, ch * i + 2);
		img_set(gray, i, (299 * r + 587 * g + 114 * b + 500) / 1000);
	}
	return 0;
}
