/*
 * png_test - the fast PNG reader of lib/io/img_png.c against libpng.  The
 * filters' inverse against the PNG specification's definitions (the
 * Paeth predictor for all 2^24 inputs, rows of every pixel size); then
 * PNGs made here (every colour type and depth the fast path takes, every
 * filter type and a mix of them per row, widths 1 to 70, the image data
 * in one IDAT, in 1-byte IDATs, or in uneven ones with empty IDATs
 * among them) and by libpng's writer (adaptive filters), each decoded by
 * both paths: the fast path must take it and give libpng's bytes, which
 * must be the pixels put in.  Last, damaged PNGs (every byte changed,
 * every length cut, bad CRCs, a bad Adler-32, a bad filter type): the
 * fast path either declines or agrees with libpng, and the reader
 * refuses what libpng refuses.  Prints "pass NAME" or "fail NAME: why".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <png.h>

#include "img.h"
#include "img_int.h"
#include "img_png_filter.h"
#include "unit.h"

/* The specification's Paeth predictor, as the PNG standard writes it. */
static unsigned
spec_paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	if (pa <= pb && pa <= pc)
		return (unsigned)a;
	return (unsigned)(pb <= pc ? b : c);
}

/* The predictor of filter type for byte i of a row (0 left of the first pixel). */
static unsigned
spec_predict(unsigned type, const uint8_t *row, const uint8_t *prev,
    size_t i, size_t bpp)
{
	unsigned a = i >= bpp ? row[i - bpp] : 0, b = prev[i];
	unsigned c = i >= bpp ? prev[i - bpp] : 0;

	switch (type) {
	case 1:
		return a;
	case 2:
		return b;
	case 3:
		return (a + b) / 2;
	case 4:
		return spec_paeth((int)a, (int)b, (int)c);
	}
	return 0;
}

static void
test_paeth(void)
{
	long bad = 0;

	for (unsigned a = 0; a < 256; a++)
		for (unsigned b = 0; b < 256; b++)
			for (unsigned c = 0; c < 256; c++)
				bad += img_png_paeth(a, b, c) != spec_paeth((int)a,
				    (int)b, (int)c);
	result("paeth_all_inputs", bad == 0, "%ld of 2^24 differ", bad);
}

/* Random rows of every pixel size and filter, filtered here, unfiltered by the reader's core. */
static void
test_unfilter_rows(void)
{
	static const size_t bpps[] = {1, 2, 3, 4, 6, 8};
	uint8_t prev[8 * 9], row[8 * 9], stored[8 * 9], out[8 * 9];
	uint32_t seed = 7;
	long bad = 0;

	for (size_t k = 0; k < sizeof(bpps) / sizeof(bpps[0]); k++)
		for (unsigned type = 0; type <= 4; type++)
			for (size_t w = 1; w <= 9; w++) {
				size_t n = w * bpps[k];
				for (size_t i = 0; i < n; i++) {
					seed = seed * 1664525u + 1013904223u;
					prev[i] = (uint8_t)(seed >> 24);
					row[i] = (uint8_t)(seed >> 16);
				}
				for (size_t i = 0; i < n; i++)
					stored[i] = (uint8_t)(row[i] -
					    spec_predict(type, row, prev, i, bpps[k]));
				img_png_unfilter_row(type, stored, prev, out, n, bpps[k]);
				bad += memcmp(out, row, n) != 0;
			}
	result("unfilter_rows", bad == 0, "%ld rows differ", bad);
}

/* ---- PNGs made here */

/* Where a PNG's IHDR chunk ends: its signature, then the chunk's 25 bytes. */
#define PNG_IHDR_END_TEST (8 + 8 + 13 + 4)

/* A PNG being built in memory. */
struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void
put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		if ((b->p = realloc(b->p, b->cap)) == NULL)
			abort();
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void
put32(struct buf *b, uint32_t v)
{
	uint8_t be[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8),
	    (uint8_t)v};

	put(b, be, 4);
}

static void
put_chunk(struct buf *b, const char *type, const void *data, uint32_t n)
{
	put32(b, n);
	put(b, type, 4);
	put(b, data, n);
	put32(b, (uint32_t)libdeflate_crc32(libdeflate_crc32(0, type, 4), data, n));
}

/* How a made PNG is laid out: each row's filter, how IDAT is split. */
struct make {
	int color, depth;       /* PNG colour type 0, 2, 4 or 6; 8 or 16 */
	int filter;             /* 0-4 every row, 5: row y gets (y + w) % 5 */
	int split;              /* 0: one IDAT; 1: 1-byte IDATs; 2: uneven, with empty ones */
};

/*
 * A w x h PNG of colour type and depth m says whose image data is raw
 * (rawlen bytes, filter bytes included), compressed by libdeflate (a
 * 32 KiB window) and split as m says, in b.
 */
static void
png_from_raw(int w, int h, const struct make *m, const uint8_t *raw,
    size_t rawlen, struct buf *b)
{
	uint8_t ihdr[13] = {(uint8_t)(w >> 24), (uint8_t)(w >> 16),
	    (uint8_t)(w >> 8), (uint8_t)w, (uint8_t)(h >> 24), (uint8_t)(h >> 16),
	    (uint8_t)(h >> 8), (uint8_t)h, (uint8_t)m->depth, (uint8_t)m->color,
	    0, 0, 0};
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
	size_t zcap, zlen, pos = 0;
	uint8_t *z;

	if (c == NULL)
		abort();
	zcap = libdeflate_zlib_compress_bound(c, rawlen);
	if ((z = malloc(zcap)) == NULL)
		abort();
	zlen = libdeflate_zlib_compress(c, raw, rawlen, z, zcap);
	b->len = 0;
	put(b, "\x89PNG\r\n\x1a\n", 8);
	put_chunk(b, "IHDR", ihdr, 13);
	put_chunk(b, "tEXt", "Comment\0made by png_test", 24);
	for (size_t k = 0; pos < zlen; k++) {
		size_t part = m->split == 0 ? zlen : m->split == 1 ? 1 : k % 3 == 1 ?
		    0 : 1 + k * 7 % 23;
		part = part < zlen - pos ? part : zlen - pos;
		put_chunk(b, "IDAT", z + pos, (uint32_t)part);
		pos += part;
	}
	put_chunk(b, "IEND", "", 0);
	libdeflate_free_compressor(c);
	free(z);
}

/*
 * The samples of img (maxval 255 or 65535, the channels of m->color) as
 * a PNG filtered and split as m says, in b: the filters computed by the
 * specification's predictors, not the reader's.
 */
static void
make_png(const struct image *img, const struct make *m, struct buf *b)
{
	size_t sb = (size_t)m->depth / 8, bpp = (size_t)img->channels * sb;
	size_t n = (size_t)img->width * bpp, rawlen = (1 + n) * img->height;
	uint8_t *raw = malloc(rawlen), *rows = malloc(n * img->height);
	uint8_t *zeros = calloc(1, n);

	if (raw == NULL || rows == NULL || zeros == NULL)
		abort();
	for (size_t i = 0; i < n / sb * img->height; i++) {     /* big-endian samples */
		unsigned v = img_get(img, i);
		if (sb == 2)
			rows[2 * i] = (uint8_t)(v >> 8), rows[2 * i + 1] = (uint8_t)v;
		else
			rows[i] = (uint8_t)v;
	}
	for (int y = 0; y < img->height; y++) {
		unsigned type = m->filter < 5 ? (unsigned)m->filter :
		    (unsigned)(y + img->width) % 5;
		uint8_t *row = rows + y * n, *prev = y ? row - n : zeros;
		raw[y * (1 + n)] = (uint8_t)type;
		for (size_t i = 0; i < n; i++)
			raw[y * (1 + n) + 1 + i] = (uint8_t)(row[i] -
			    spec_predict(type, row, prev, i, bpp));
	}
	png_from_raw(img->width, img->height, m, raw, rawlen, b);
	free(raw), free(rows), free(zeros);
}

/* ---- decoding by both paths */

/* One path's decoding of a PNG in memory: its return and, for 1, the image. */
struct decoded {
	int ret;
	struct image img;
	struct gf_err e;
};

static void
decode(int fast, const uint8_t *p, size_t len, struct decoded *d)
{
	struct img_reader *r;

	memset(d, 0, sizeof(*d));
	if (img_reader_open(&r, stdin, "test.png", &d->e) < 0)
		abort();
	img_reader_set_max_pixels(r, 1 << 22);
	d->ret = fast ? img_png_read_fast(r, p, len, &d->img, &d->e) :
	    img_png_read_libpng(r, p, len, &d->img, &d->e);
	img_reader_close(r);
}

static int
same_image(const struct image *a, const struct image *b)
{
	return a->width == b->width && a->height == b->height &&
	    a->channels == b->channels && a->maxval == b->maxval &&
	    memcmp(a->px, b->px, img_bytes(a)) == 0;
}

/*
 * Decodes p by both paths.  must_take: the fast path has to read it.
 * want (may be NULL): the pixels both must give.  Returns 0 and says why
 * in why when they disagree, the fast path declines what it must take,
 * or it reads what libpng refuses.
 */
static int
both_paths(const uint8_t *p, size_t len, int must_take,
    const struct image *want, char *why, size_t whylen)
{
	struct decoded f, l;
	int ok = 1;

	decode(1, p, len, &f);
	decode(0, p, len, &l);
	if (f.ret < 0 || (must_take && f.ret == 0)) {
		snprintf(why, whylen, "fast path gave %d: %.200s", f.ret, f.e.msg);
		ok = 0;
	} else if (f.ret > 0 && l.ret <= 0) {
		snprintf(why, whylen, "fast path read what libpng refuses: %.200s",
		    l.e.msg);
		ok = 0;
	} else if (f.ret > 0 && !same_image(&f.img, &l.img)) {
		snprintf(why, whylen, "fast path's pixels differ from libpng's");
		ok = 0;
	} else if (want != NULL && (l.ret <= 0 || !same_image(&l.img, want))) {
		snprintf(why, whylen, "libpng gave %d (%.200s) or other pixels", l.ret,
		    l.e.msg);
		ok = 0;
	}
	if (f.ret > 0)
		img_free(&f.img);
	if (l.ret > 0)
		img_free(&l.img);
	return ok;
}

static const int colors[] = {0, 2, 4, 6};
static const int channels_of[] = {1, 0, 3, 0, 2, 0, 4};

/* Every colour type and depth, widths 1 to 70, filters mixed per row, each IDAT split. */
static void
test_made(void)
{
	struct buf b = {0};
	char why[300] = "";
	int bad = 0, n = 0;

	for (int k = 0; k < 4; k++)
		for (int depth = 8; depth <= 16; depth += 8)
			for (int w = 1; w <= 70; w++) {
				int h = 1 + w % 7, ch = channels_of[colors[k]];
				unsigned top = depth == 16 ? 65535 : 255;
				struct image img = image_noise(w, h, ch, top, top,
				    (uint32_t)(w * 8 + k));
				for (int filter = 0; filter <= 5; filter++) {
					struct make m = {colors[k], depth, filter, (w + filter) % 3};
					make_png(&img, &m, &b);
					n++;
					if (!both_paths(b.p, b.len, 1, &img, why, sizeof(why)) &&
					    bad++ == 0)
						printf("# color %d depth %d width %d filter %d "
						    "split %d: %s\n", m.color, depth, w, filter,
						    m.split, why);
				}
				img_free(&img);
			}
	result("made_pngs", bad == 0, "%d of %d differ: %s", bad, n, why);
	free(b.p);
}

/* libpng's writer into memory. */
static void
png_put(png_structp png, png_bytep data, size_t n)
{
	put(png_get_io_ptr(png), data, n);
}

static void
png_flush_none(png_structp png)
{
	(void)png;
}

/*
 * img written by libpng with its adaptive filters (all five tried on
 * each row) and the given IDAT size, into b.  libpng shrinks the zlib
 * window of image data under 16 KiB, which the fast path leaves to
 * libpng.
 */
static void
libpng_write(const struct image *img, int color, size_t idat, struct buf *b)
{
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL,
	    NULL, NULL);
	png_infop info = png_create_info_struct(png);
	size_t rowbytes = (size_t)img->width * img->channels *
	    gf_sample_bytes(img->maxval);

	b->len = 0;
	if (setjmp(png_jmpbuf(png)) != 0)
		abort();
	png_set_write_fn(png, b, png_put, png_flush_none);
	png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height,
	    img->maxval > 255 ? 16 : 8, color, PNG_INTERLACE_NONE,
	    PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_ALL_FILTERS);
	png_set_compression_buffer_size(png, idat);
	png_write_info(png, info);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (img->maxval > 255)
		png_set_swap(png);
#endif
	for (int y = 0; y < img->height; y++)
		png_write_row(png, (png_const_bytep)img->px + y * rowbytes);
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &info);
}

/* A smooth w x h image with some noise: gradients that every filter predicts somewhere. */
static struct image
image_smooth(int w, int h, int ch, unsigned top)
{
	struct image img = image_noise(w, h, ch, top, top / 64, 11);

	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			for (int c = 0; c < ch; c++) {
				size_t i = ((size_t)y * w + x) * ch + c;
				unsigned v = img_get(&img, i) + (unsigned)((x * (c + 1) +
				    y * 3 + (x * y) / 17) % 200) * (top / 255);
				img_set(&img, i, v % (top + 1));
			}
	return img;
}

static void
test_libpng_written(void)
{
	static const size_t idats[] = {8192, 1000, 64};
	struct buf b = {0};
	char why[300] = "";
	int bad = 0, n = 0;

	for (int k = 0; k < 4; k++)
		for (int depth = 8; depth <= 16; depth += 8)
			for (size_t s = 0; s < 3; s++) {
				int w = 181 + k, h = 101 + (int)s;  /* past 16 KiB: a 32 KiB window */
				struct image img = image_smooth(w, h, channels_of[colors[k]],
				    depth == 16 ? 65535 : 255);
				libpng_write(&img, colors[k], idats[s], &b);
				n++;
				if (!both_paths(b.p, b.len, 1, &img, why, sizeof(why)) &&
				    bad++ == 0)
					printf("# color %d depth %d idat %zu: %s\n", colors[k],
					    depth, idats[s], why);
				img_free(&img);
			}
	result("libpng_adaptive_filters", bad == 0, "%d of %d differ: %s", bad, n,
	    why);
	free(b.p);
}

/* ---- damaged PNGs */

/* Offsets in a made PNG: where its first IDAT chunk and its IEND begin. */
static size_t
chunk_at(const struct buf *b, const char *type)
{
	for (size_t pos = 8; pos + 8 <= b->len; ) {
		size_t n = (size_t)b->p[pos] << 24 | (size_t)b->p[pos + 1] << 16 |
		    (size_t)b->p[pos + 2] << 8 | b->p[pos + 3];
		if (memcmp(b->p + pos + 4, type, 4) == 0)
			return pos;
		pos += 12 + n;
	}
	abort();
}

/* The reader on bytes p, as a stream: 1 for the image, else -1 and the message. */
static int
reader_verdict(const uint8_t *p, size_t len, struct gf_err *e)
{
	FILE *f = fmemopen((void *)p, len, "rb");
	struct img_reader *r;
	struct image img;
	int ret = -1;

	if (f == NULL || img_reader_open(&r, f, "test.png", e) < 0)
		abort();
	ret = img_read_next(r, &img, e);
	if (ret > 0)
		img_free(&img);
	img_reader_close(r);
	fclose(f);
	return ret;
}

/* The reader must refuse p with a message containing needle; the fast path must decline it. */
static void
expect_refused(const char *name, const uint8_t *p, size_t len,
    const char *needle)
{
	struct gf_err e = {0};
	struct decoded f;
	int ret = reader_verdict(p, len, &e);

	decode(1, p, len, &f);
	if (f.ret > 0)
		img_free(&f.img);
	printf("# %s: %s\n", name, e.msg);
	result(name, ret < 0 && f.ret == 0 && strstr(e.msg, needle),
	    "reader gave %d (%s), fast path %d", ret, e.msg, f.ret);
}

static void
test_damaged(void)
{
	struct image img = image_noise(23, 9, 3, 255, 255, 5);
	struct make m = {2, 8, 5, 2};
	struct buf b = {0}, d = {0};
	char why[300] = "";
	size_t idat, iend;
	int bad = 0;

	make_png(&img, &m, &b);
	idat = chunk_at(&b, "IDAT");
	iend = chunk_at(&b, "IEND");
	d.p = malloc(b.len);
	d.len = b.len;
	/* Every byte changed in turn: declined, or libpng's pixels. */
	for (size_t i = 8; i < b.len; i++) {
		memcpy(d.p, b.p, b.len);
		d.p[i] ^= 0x55;
		if (!both_paths(d.p, d.len, 0, NULL, why, sizeof(why)) && bad++ == 0)
			printf("# byte %zu changed: %s\n", i, why);
	}
	result("every_byte_changed", bad == 0, "%d cases: %s", bad, why);
	/* Every length cut short: refused before IEND, the image after. */
	bad = 0;
	for (size_t len = 0; len < b.len; len++) {
		struct gf_err e = {0};
		int ret = len >= 8 ? reader_verdict(b.p, len, &e) : -1;
		int want = len >= iend ? 1 : -1;
		if (len >= 8 && !both_paths(b.p, len, len >= iend, NULL, why,
		    sizeof(why)) && bad++ == 0)
			printf("# cut at %zu: %s\n", len, why);
		else if (ret != want && bad++ == 0)
			printf("# cut at %zu: reader gave %d: %s\n", len, ret, e.msg);
	}
	result("every_length_cut", bad == 0, "%d cases: %s", bad, why);

	memcpy(d.p, b.p, b.len);
	d.p[8 + 8 + 13] ^= 1;                   /* the CRC of IHDR */
	expect_refused("ihdr_crc", d.p, d.len, "CRC error");
	memcpy(d.p, b.p, b.len);
	d.p[idat + 8 + 2] ^= 1;                 /* the first IDAT's data, not its CRC */
	expect_refused("idat_crc", d.p, d.len, "CRC error");
	free(d.p);

	/* A filter type of 5 on the last row. */
	{
		size_t rawlen = (1 + 23 * 3) * 9;
		uint8_t *raw = calloc(1, rawlen);
		if (raw == NULL)
			abort();
		raw[8 * (1 + 23 * 3)] = 5;
		png_from_raw(23, 9, &m, raw, rawlen, &b);
		free(raw);
	}
	expect_refused("filter_type_5", b.p, b.len, "filter");
	free(b.p);
	img_free(&img);
}

/*
 * A wrong Adler-32, the IDAT's CRC made anew: libdeflate finds it and
 * the fast path declines; libpng checks the end of the stream too once
 * every row is read, and refuses.
 */
static void
test_bad_adler(void)
{
	struct image img = image_noise(40, 6, 1, 255, 255, 9);
	struct make m = {0, 8, 4, 0};
	struct buf b = {0};
	size_t idat, iend;
	uint32_t crc;

	make_png(&img, &m, &b);
	idat = chunk_at(&b, "IDAT");
	iend = chunk_at(&b, "IEND");
	b.p[iend - 5] ^= 1;                     /* the Adler-32's last byte */
	crc = (uint32_t)libdeflate_crc32(0, b.p + idat + 4, iend - 4 - idat - 4);
	for (int k = 0; k < 4; k++)
		b.p[iend - 4 + k] = (uint8_t)(crc >> (24 - 8 * k));
	expect_refused("bad_adler", b.p, b.len, "incorrect data check");
	free(b.p);
	img_free(&img);
}

/*
 * An iCCP chunk whose profile libpng rejects, named with the words of
 * libpng's own warning of image data past the last row: its warning
 * quotes the name, and must not fail an image that is whole.
 */
static void
test_quoted_warning(void)
{
	static const char name[] = "Extra compressed data Too much image data";
	struct image img = image_noise(17, 5, 1, 255, 255, 3);
	struct make m = {0, 8, 1, 0};
	struct buf b = {0}, d = {0}, icc = {0};
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
	uint8_t junk[200], z[400];
	size_t zlen;
	char why[300] = "";

	if (c == NULL)
		abort();
	for (size_t i = 0; i < sizeof(junk); i++)    /* no ICC profile */
		junk[i] = (uint8_t)(i * 7 + 3);
	junk[0] = junk[1] = junk[2] = 0;        /* its length: past the header */
	junk[3] = sizeof(junk);
	zlen = libdeflate_zlib_compress(c, junk, sizeof(junk), z, sizeof(z));
	libdeflate_free_compressor(c);
	put(&icc, name, sizeof(name));          /* the keyword, its NUL */
	put(&icc, "", 1);                       /* compression method 0 */
	put(&icc, z, zlen);
	make_png(&img, &m, &b);
	put(&d, b.p, PNG_IHDR_END_TEST);
	put_chunk(&d, "iCCP", icc.p, (uint32_t)icc.len);
	put(&d, b.p + PNG_IHDR_END_TEST, b.len - PNG_IHDR_END_TEST);
	result("warning_quoting_the_file", both_paths(d.p, d.len, 1, &img, why,
	    sizeof(why)), "%s", why);
	free(b.p), free(d.p), free(icc.p);
	img_free(&img);
}

/* ---- the caller's buffer: asked for once per image, whichever path reads it */

struct counted {
	int calls;
	uint8_t *mem;
	size_t cap;
};

static void *
counted_get(void *arg, size_t bytes)
{
	struct counted *c = arg;

	c->calls++;
	return bytes <= c->cap ? c->mem : NULL;
}

/* Reads the PNG of len bytes at p through img_read_next into c's memory. */
static int
read_counted(const uint8_t *p, size_t len, struct counted *c, struct image *img,
    struct gf_err *e)
{
	struct img_buffer b = {counted_get, c};
	struct img_reader *r;
	FILE *f = fmemopen((void *)p, len, "rb");
	int ret = -1;

	if (f == NULL)
		abort();
	if (img_reader_open(&r, f, "counted.png", e) == 0) {
		img_reader_set_buffer(r, &b);
		ret = img_read_next(r, img, e);
		img_reader_close(r);
	}
	fclose(f);
	return ret;
}

/*
 * The fast path asks for the image's buffer before it inflates: when it
 * then declines (a zlib window under 32 KiB, which libpng writes for
 * small images; a wrong Adler-32), libpng fills that same buffer, and the
 * caller's get is asked once, not twice (a get that gives fresh memory
 * each time would lose the first).
 */
static void
test_buffer_kept(void)
{
	static uint8_t mem[1 << 16];
	struct image img = image_smooth(40, 30, 1, 255), got = {0};
	struct counted c = {0, mem, sizeof(mem)};
	struct decoded d;
	struct buf b = {0};
	struct gf_err e = {0};
	int ret, fast;

	libpng_write(&img, PNG_COLOR_TYPE_GRAY, 8192, &b);
	decode(1, b.p, b.len, &d);
	fast = d.ret;
	ret = read_counted(b.p, b.len, &c, &got, &e);
	result("buffer_kept_small_window", fast == 0 && ret == 1 && c.calls == 1 &&
	    got.px == mem && img_bytes(&got) == img_bytes(&img) &&
	    memcmp(got.px, img.px, img_bytes(&img)) == 0, "fast path %d, read %d "
	    "(%s), get asked %d times", fast, ret, e.msg, c.calls);
	img_free(&img);

	img = image_noise(40, 6, 1, 255, 255, 9);
	make_png(&img, &(struct make){0, 8, 4, 0}, &b);
	b.p[chunk_at(&b, "IEND") - 5] ^= 1;      /* the Adler-32; CRC checks are libpng's */
	c.calls = 0;
	ret = read_counted(b.p, b.len, &c, &got, &e);
	result("buffer_kept_refused", ret == -1 && c.calls <= 1, "read %d (%s), get "
	    "asked %d times", ret, e.msg, c.calls);
	img_free(&img);
	free(b.p);
}

int
main(void)
{
	test_paeth();
	test_unfilter_rows();
	test_made();
	test_libpng_written();
	test_damaged();
	test_bad_adler();
	test_quoted_warning();
	test_buffer_kept();
	return nfail != 0;
}
