/*
 * gray.c - colour to gray on the CPU (img_to_gray and img_gray_in_place,
 * declared in img.h), for the tools that work on gray images.  A file of
 * its own so that the image module's readers and writers (img.c) stay
 * apart from it; the GPU's version of the formula is kernels/planes.cu.
 */
#include "img.h"
#include "pool.h"

/* Y of n 8-bit RGB pixels (the formula in img.h); in and out apart. */
GF_CLONES static void
gray_row8(const uint8_t *restrict in, uint8_t *restrict out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = (uint8_t)((299 * in[3 * i] + 587 * in[3 * i + 1] +
		    114 * in[3 * i + 2] + 500) / 1000);
}

/*
 * Gray samples first .. first+n-1 of in into out, one at a time, any
 * depth and channel count.  out may be in itself: sample i is written
 * after samples ch*i .. ch*i+2 are read, and later reads lie above i.
 */
static void
gray_any(const struct image *in, struct image *out, size_t first, size_t n)
{
	size_t ch = (size_t)in->channels;

	for (size_t i = first; i < first + n; i++) {
		unsigned r = img_get(in, ch * i), g, b;
		if (ch < 3) {           /* gray+alpha: the gray */
			img_set(out, i, r);
			continue;
		}
		g = img_get(in, ch * i + 1);
		b = img_get(in, ch * i + 2);
		img_set(out, i, (299 * r + 587 * g + 114 * b + 500) / 1000);
	}
}

int
img_to_gray(const struct image *in, struct image *gray, struct gf_err *e)
{
	size_t n = (size_t)in->width * in->height;

	*gray = *in;
	gray->channels = 1;
	if (img_alloc(gray, e) < 0)
		return -1;
	if (in->maxval <= 255 && in->channels == 3)
		gray_row8(in->px, gray->px, n);
	else
		gray_any(in, gray, 0, n);
	return 0;
}

/*
 * The same in img's own buffer.  Row y >= 1 of the gray (w samples from
 * w*y) lies below row y of the colour (from 3*w*y) and above every row
 * still unread, so 8-bit RGB goes row by row through gray_row8; row 0,
 * and every other kind, one sample at a time.
 */
void
img_gray_in_place(struct image *img)
{
	size_t w = (size_t)img->width, n = w * img->height;
	uint8_t *p = img->px;
	int rgb8 = img->maxval <= 255 && img->channels == 3;

	gray_any(img, img, 0, rgb8 ? w : n);
	for (size_t y = 1; rgb8 && y < (size_t)img->height; y++)
		gray_row8(p + 3 * w * y, p + w * y, w);
	img->channels = 1;
}
