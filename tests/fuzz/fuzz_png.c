/*
 * fuzz_png - libFuzzer target that holds the fast PNG reader of
 * lib/io/img_png.c to libpng: the bytes, taken as one PNG in memory, are
 * decoded by both (img_png_read_fast, img_png_read_libpng), pixel limit
 * 2^20.  Whenever the fast path reads an image, libpng must read the
 * same bytes; otherwise the target aborts.  A declined or refused input
 * is fine.  An even-sized input has every chunk's CRC made right first,
 * so that mutations get past the CRC checks to the chunks, the zlib
 * stream and the filters; an odd-sized one is taken as it is.  Built by
 * `make fuzz` like fuzz_img.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

#include "img.h"
#include "img_int.h"

/* Rewrites the CRC of each whole chunk of the n bytes at p, past the signature. */
static void
fuzz_fix_crcs(uint8_t *p, size_t n)
{
	for (size_t pos = 8; n - pos >= 12; ) {
		size_t len = (size_t)p[pos] << 24 | (size_t)p[pos + 1] << 16 |
		    (size_t)p[pos + 2] << 8 | p[pos + 3];
		uint32_t crc;

		if (len > n - pos - 12)
			break;
		crc = (uint32_t)libdeflate_crc32(0, p + pos + 4, 4 + len);
		for (int k = 0; k < 4; k++)
			p[pos + 8 + len + k] = (uint8_t)(crc >> (24 - 8 * k));
		pos += 12 + len;
	}
}

/* One path's verdict on the PNG; its image in img when 1. */
static int
fuzz_decode(int fast, const uint8_t *data, size_t size, struct image *img)
{
	struct img_reader *r;
	struct gf_err e;
	int ret;

	if (img_reader_open(&r, stdin, "fuzz", &e) < 0)
		abort();
	img_reader_set_max_pixels(r, 1 << 20);
	ret = fast ? img_png_read_fast(r, data, size, img, &e) :
	    img_png_read_libpng(r, data, size, img, &e);
	img_reader_close(r);
	return ret;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image f = {0}, l = {0};
	uint8_t *png;
	int fret, lret = 0;

	if (size < 8 || memcmp(data, "\x89PNG\r\n\x1a\n", 8) != 0 ||
	    (png = malloc(size)) == NULL)
		return 0;
	memcpy(png, data, size);
	if (size % 2 == 0)
		fuzz_fix_crcs(png, size);
	fret = fuzz_decode(1, png, size, &f);
	if (fret > 0)
		lret = fuzz_decode(0, png, size, &l);
	free(png);
	if (fret <= 0)
		return 0;
	if (lret <= 0 || f.width != l.width || f.height != l.height ||
	    f.channels != l.channels || f.maxval != l.maxval ||
	    memcmp(f.px, l.px, img_bytes(&f)) != 0) {
		fprintf(stderr, "fuzz_png: the fast path read an image that libpng "
		    "%s\n", lret <= 0 ? "refuses" : "reads otherwise");
		abort();
	}
	img_free(&f);
	img_free(&l);
	return 0;
}
