/*
 * img_tiff_float.c - floating-point TIFF samples made 16-bit, for the
 * TIFF reader (lib/io/img_tiff.c): the one rule by which a float TIFF
 * becomes an image of maxval 65535, apart from the reading of strips and
 * tiles, which is the same for every kind of sample.
 */
#include <math.h>
#include <string.h>

#include "img_int.h"
#include "img_tiff_int.h"

/*
 * A floating-point sample as a 16-bit one, the rule of ImageMagick and
 * libvips for float TIFF: [0, 1] is black to white, scaled to [0, 65535]
 * and rounded to nearest, half up; below 0 (and -infinity) is 0, above 1
 * (and infinity) 65535, NaN 0.  Values outside [0, 1] are clipped, not
 * rescaled: the SMinSampleValue and SMaxSampleValue tags are not read.
 */
static unsigned
float_sample(double v)
{
	if (!(v > 0))           /* NaN too */
		return 0;
	if (v >= 1)
		return 65535;
	return (unsigned)(v * 65535.0 + 0.5);
}

/* An IEEE 754 half (binary16) as a double, exactly. */
static double
float_half(uint16_t h)
{
	unsigned ex = (h >> 10) & 31, m = h & 1023;
	double v;

	if (ex == 31)
		v = m != 0 ? NAN : INFINITY;
	else if (ex == 0)
		v = m / 16777216.0;                               /* m 2^-24 */
	else
		v = (1024 + m) * (double)(1u << ex) / 33554432.0; /* 2^(ex-25) */
	return h & 0x8000 ? -v : v;
}

void
img_tiff_float_put(struct image *img, size_t k, const unsigned char *src,
    size_t n, unsigned bits)
{
	uint16_t h;
	float f;
	double d;

	for (size_t i = 0; i < n; i++) {
		if (bits == 16) {
			memcpy(&h, src + 2 * i, 2);
			d = float_half(h);
		} else if (bits == 32) {
			memcpy(&f, src + 4 * i, 4);
			d = f;
		} else {
			memcpy(&d, src + 8 * i, 8);
		}
		img_set(img, k + i, float_sample(d));
	}
}
