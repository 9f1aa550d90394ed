/*
 * img_png_write.c - PNG out through libpng: 8 or 16 bits, alpha kept,
 * encoded straight from the image one row at a time.  Apart from
 * img_png.c, which reads, because the two share nothing but libpng.
 * libpng reports errors by longjmp to the jmp_buf in its own png struct;
 * its messages go into the call's struct png_out.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "img_int.h"

/*
 * PNG output: zlib level 2 and the Up filter on every row.  On large
 * gray maps and photographs that writes about twice as fast as adaptive
 * filters and several times as fast as stb_image_write, in files smaller
 * than stb's.
 */
#define PNG_WRITE_LEVEL 2
#define PNG_WRITE_FILTERS PNG_FILTER_UP

/* One write call: the file, one scaled row, and what went wrong. */
struct png_out {
	FILE *f;
	uint8_t *row;
	int io_errno;           /* errno of a failed fwrite */
	char msg[200];          /* libpng's reason, escaped */
};

static void
png_out_error(png_structp png, png_const_charp msg)
{
	struct png_out *c = png_get_error_ptr(png);

	gf_escape(c->msg, sizeof(c->msg), msg);
	png_longjmp(png, 1);
}

/* libpng's warnings while writing say nothing of the file: dropped. */
static void
png_out_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

/* libpng's output: fwrite, a short write is an error. */
static void
png_sink(png_structp png, png_bytep data, size_t n)
{
	struct png_out *c = png_get_io_ptr(png);

	if (fwrite(data, 1, n, c->f) != n) {
		c->io_errno = errno;
		png_error(png, "write error");
	}
}

static void
png_sink_flush(png_structp png)
{
	(void)png;
}

/*
 * Writes the header (icc's iCCP chunk in it, when there is one) and every
 * row; called under the caller's setjmp.
 */
static void
png_encode(png_structp png, png_infop info, const struct image *img,
    const struct img_icc *icc, struct png_out *c)
{
	static const int types[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
	    PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
	int bits = img->maxval > 255 ? 16 : 8;

	png_set_write_fn(png, c, png_sink, png_sink_flush);
	png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height,
	    bits, types[img->channels - 1],
	    PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
	    PNG_FILTER_TYPE_DEFAULT);
	if (icc != NULL)
		png_set_iCCP(png, info, img_icc_name_ok(icc->name) ? icc->name :
		    IMG_ICC_NAME, PNG_COMPRESSION_TYPE_BASE, icc->p,
		    (png_uint_32)icc->len);
	png_set_compression_level(png, PNG_WRITE_LEVEL);
	png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_WRITE_FILTERS);
	png_write_info(png, info);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (bits == 16)
		png_set_swap(png);
#endif
	for (int y = 0; y < img->height; y++)
		png_write_row(png, (png_const_bytep)img_out_row(img, y,
		    bits == 16 ? 65535 : 255, c->row));
	png_write_end(png, NULL);
}

static int
png_write_guarded(png_structp png, png_infop info, const struct image *img,
    const struct img_icc *icc, struct png_out *c, const char *name,
    struct gf_err *e)
{
	if (setjmp(png_jmpbuf(png)) != 0)
		return gf_fail(e, "cannot write %s as PNG: %s", name, c->io_errno ?
		    strerror(c->io_errno) : c->msg);
	png_encode(png, info, img, icc, c);
	return 0;
}

int
img_png_write(FILE *f, const struct image *img, enum img_format fmt,
    int quality, const struct img_icc *icc, const char *name,
    struct gf_err *e)
{
	struct png_out c = {.f = f};
	png_structp png;
	png_infop info = NULL;
	int ret;

	(void)fmt;
	(void)quality;
	c.row = malloc((size_t)img->width * img->channels * 2);
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &c, png_out_error,
	    png_out_warning);
	if (png != NULL)
		info = png_create_info_struct(png);
	if (info == NULL || c.row == NULL) {
		png_destroy_write_struct(&png, info != NULL ? &info : NULL);
		free(c.row);
		return gf_nomem(e, "out of memory");
	}
	/* A profile libpng would still refuse is left out, not an error. */
	if (icc != NULL)
		png_set_benign_errors(png, 1);
	ret = png_write_guarded(png, info, img, icc, &c, name, e);
	png_destroy_write_struct(&png, &info);
	free(c.row);
	if (ret == 0 && ferror(f))
		return gf_fail(e, "cannot write %s as PNG: %s", name, strerror(errno));
	return ret;
}
