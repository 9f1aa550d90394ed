/*
 * img_orient.c - turning a decoded image the way its EXIF or TIFF
 * Orientation tag says it is displayed (img_orient, img_int.h), shared
 * by the JPEG, TIFF and WebP readers, and the tag read from an EXIF
 * block through libexif (img_exif_orientation: JPEG, WebP).  The tag's values, by where the stored
 * first row goes: 1 top (as stored), 2 top mirrored, 3 bottom (180
 * degrees), 4 bottom mirrored, 5 left column (transposed), 6 right
 * column (90 degrees clockwise), 7 right column mirrored (transverse),
 * 8 left column read upwards (90 degrees counter-clockwise).
 */
#include <stdlib.h>
#include <string.h>

#include <libexif/exif-data.h>

#include "img_int.h"

int
img_exif_orientation(const unsigned char *p, size_t n)
{
	unsigned char *block = NULL;
	ExifData *ed;
	ExifEntry *en;
	int o = 1;

	if (n < 6 || memcmp(p, "Exif\0\0", 6) != 0) {    /* a bare TIFF header */
		if (n > (size_t)1 << 30 || (block = malloc(n + 6)) == NULL)
			return 1;
		memcpy(block, "Exif\0\0", 6);
		memcpy(block + 6, p, n);
		p = block;
		n += 6;
	}
	if ((ed = exif_data_new()) != NULL) {
		exif_data_unset_option(ed, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
		exif_data_load_data(ed, p, (unsigned)n);
		en = exif_content_get_entry(ed->ifd[EXIF_IFD_0],
		    EXIF_TAG_ORIENTATION);
		if (en != NULL && en->format == EXIF_FORMAT_SHORT &&
		    en->components == 1 && en->size >= 2 && en->data != NULL)
			o = exif_get_short(en->data, exif_data_get_byte_order(ed));
		exif_data_unref(ed);
	}
	free(block);
	return o;
}

/*
 * Where output pixel (x, y) comes from in the stored image, as a start
 * and steps in stored pixels: src = start + x * dx + y * dy.
 */
struct orient_walk {
	long long start, dx, dy;
};

/* The walk for orientation o over a stored image w x h. */
static struct orient_walk
orient_walk_for(int o, long long w, long long h)
{
	switch (o) {
	case 2:
		return (struct orient_walk){w - 1, -1, w};
	case 3:
		return (struct orient_walk){w * h - 1, -1, -w};
	case 4:
		return (struct orient_walk){(h - 1) * w, 1, -w};
	case 5:
		return (struct orient_walk){0, w, 1};
	case 6:
		return (struct orient_walk){(h - 1) * w, -w, 1};
	case 7:
		return (struct orient_walk){w * h - 1, -w, -1};
	case 8:
		return (struct orient_walk){w - 1, w, -1};
	}
	return (struct orient_walk){0, 1, w};
}

int
img_orient(struct image *img, int orientation, struct gf_err *e)
{
	size_t bytes = img_bytes(img), px = (size_t)img->channels *
	    gf_sample_bytes(img->maxval);
	struct orient_walk wk;
	unsigned char *src, *dst = img->px;

	if (orientation < 2 || orientation > 8)
		return 0;
	if ((src = malloc(bytes)) == NULL)
		return gf_nomem(e, "out of memory turning a %d x %d image",
		    img->width, img->height);
	memcpy(src, img->px, bytes);
	wk = orient_walk_for(orientation, img->width, img->height);
	if (orientation >= 5) {
		int w = img->width;
		img->width = img->height;
		img->height = w;
	}
	for (long long y = 0; y < img->height; y++) {
		long long s = wk.start + y * wk.dy;
		for (long long x = 0; x < img->width; x++, s += wk.dx, dst += px)
			memcpy(dst, src + (size_t)s * px, px);
	}
	free(src);
	return 0;
}
