/*
 * fuzz_img - libFuzzer target for the image reader: the bytes are one
 * input stream (any format, or several PNM images one after another) read
 * through fmemopen by img_reader_open / img_read_next until the end or
 * an error, with the pixel limit lowered to 2^20 to keep runs fast.  An
 * odd-sized input has its pixels put in memory of the caller's
 * (img_reader_set_buffer), an even-sized one in img_alloc'd memory; one
 * whose size is 2 or 3 modulo 4 lets colour come out gray
 * (img_reader_set_gray), and one whose size is 4 to 7 modulo 8 is read
 * as a pipe (a FILE that cannot seek), so that the bytes a decoder reads
 * past an image come back through the reader's pushback, not a seek.  Each small image read is written back as PNM,
 * PNG and TIFF to a memory stream, with its ICC profile (and as JPEG
 * and WebP where its profile fits), so that a profile from hostile bytes
 * meets every writer that may embed it.  One whose size is 8 to 15 modulo 16
 * and that starts as a stream's images do (JPEG, PNG, PNM) is read a
 * second time as the engine's decode pool reads a stream
 * (img_jpeg_frame_read, each JPEG frame then decoded from its bytes
 * alone, any other image by img_read_next; and each frame offered to
 * the server's engines, img_jpeg_frame_bits), and must give the same
 * images and profiles, the same end and the same message: abort() if
 * not.  Any other
 * format is read a second time too, by img_read_next: a reader that
 * leaves pixels unwritten gives different bytes from one reading to the
 * next (stb's BMP palette did, with colours from its stack).
 * Built by `make fuzz` (clang -fsanitize=fuzzer,address,undefined); with
 * tests/fuzz/driver.c instead of libFuzzer it runs files (AFL++).
 */
#define _GNU_SOURCE             /* fopencookie */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_io.h"
#include "img.h"

/*
 * Writes img as PNM, PNG and TIFF into memory with its profile icc, and
 * as JPEG and WebP where the profile fits, to run the writers too.
 */
static void
fuzz_write(const struct image *img, const struct img_icc *icc)
{
	struct gf_err e;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if ((size_t)img->width * img->height > 4096)
		return;
	f = open_memstream(&buf, &len);
	if (f == NULL)
		return;
	(void)img_write_icc(f, img, IMG_FORMAT_PNM, 0, icc, "memory", &e);
	(void)img_write_icc(f, img, IMG_FORMAT_PNG, 0, icc, "memory", &e);
	(void)img_write_icc(f, img, IMG_FORMAT_TIFF, 0, icc, "memory", &e);
	if (img->maxval <= 255 && (img_icc_fits(icc, img, IMG_FORMAT_JPEG) ||
	    img_icc_fits(icc, img, IMG_FORMAT_WEBP))) {
		(void)img_write_icc(f, img, IMG_FORMAT_JPEG, 0, icc, "memory", &e);
		(void)img_write_icc(f, img, IMG_FORMAT_WEBP, 0, icc, "memory", &e);
	}
	fclose(f);
	free(buf);
}

/* What one reading of the stream gave: its images (a hash) and its end. */
struct fuzz_pass {
	uint64_t hash;
	int images, ret;
	struct gf_err e;
};

/* Adds img, its shape and pixels, and its profile icc to p. */
static void
fuzz_pass_add(struct fuzz_pass *p, const struct image *img,
    const struct img_icc *icc)
{
	const unsigned char *b = img->px;
	size_t n = img_bytes(img);
	uint64_t h = p->hash ^ (uint64_t)img->width << 40 ^
	    (uint64_t)img->height << 16 ^ (uint64_t)img->channels << 8 ^ img->maxval;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	h ^= icc->len;
	for (size_t i = 0; i < icc->len; i++)
		h = (h ^ icc->p[i]) * 1099511628211ULL;
	p->hash = h * 1099511628211ULL;
	p->images++;
}

/* A JPEG frame's bytes decoded alone, as the decode pool does, with its profile. */
static int
fuzz_frame_decode(const struct img_frame *fr, int gray, struct image *img,
    struct img_icc *icc, struct gf_err *e)
{
	FILE *f = fmemopen(fr->p, fr->len + fr->tail, "rb");
	struct img_reader *r;
	int got = -1;

	if (f == NULL)
		return gf_fail(e, "out of memory");
	if (img_reader_open(&r, f, "fuzz", e) == 0) {
		img_reader_set_max_pixels(r, 1 << 20);
		img_reader_set_gray(r, gray);
		img_reader_set_frame(r, fr);
		got = img_read_next(r, img, e);
		/* A frame is one image, whose decoder stops at the walk's EOI. */
		if (got == 0 || (got > 0 && ftello(f) != (off_t)fr->len))
			abort();
		img_reader_take_icc(r, icc);
		img_reader_close(r);
	}
	fclose(f);
	return got;
}

/*
 * A frame as a served stream offers it to the server's engines
 * (img_jpeg_frame_bits): taken, its bytes are the frame's, its sizes the
 * header's as the frame read them, its orientation one of EXIF's.
 */
static void
fuzz_frame_bits(const struct img_frame *fr, int gray)
{
	struct img_icc icc = {0};
	struct img_bits_opts o = {1 << 20, 1, gray, {NULL, NULL}, &icc};
	struct img_jpeg_bits b;

	if (img_jpeg_frame_bits(fr->p, fr->len, "fuzz", &o, &b) &&
	    (b.p != fr->p || b.len != fr->len || b.width != fr->width ||
	    b.height != fr->height || b.orientation < 1 || b.orientation > 8))
		abort();
	img_icc_free(&icc);
}

/* The stream read as the engine's decode pool reads it, into p. */
static void
fuzz_split_pass(const uint8_t *data, size_t size, int gray, int pipe,
    struct fuzz_pass *p)
{
	struct img_frame fr = {0};
	struct fuzz_pipe fp;
	struct img_reader *r;
	struct image img;
	struct img_icc icc = {0};
	FILE *f = fuzz_stream(&fp, data, size, pipe ? FUZZ_PIPE : FUZZ_MEMORY);
	int got = -1;

	if (f == NULL || img_reader_open(&r, f, "fuzz", &p->e) < 0)
		abort();
	img_reader_set_max_pixels(r, 1 << 20);
	img_reader_set_gray(r, gray);
	for (;;) {
		if ((got = img_jpeg_frame_read(r, &fr, &p->e)) > 0) {
			fuzz_frame_bits(&fr, gray);
			got = fuzz_frame_decode(&fr, gray, &img, &icc, &p->e);
		} else if (got == 0) {
			got = img_read_next(r, &img, &p->e);
			img_reader_take_icc(r, &icc);
		}
		if (got <= 0)
			break;
		fuzz_pass_add(p, &img, &icc);
		img_free(&img);
	}
	img_icc_free(&icc);
	p->ret = got;
	free(fr.p);
	img_reader_close(r);
	fclose(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_pass a = {0}, b2 = {0};
	int got;
	struct img_reader *r;
	struct img_buffer b;
	struct image img;
	struct img_icc icc = {0};
	struct gf_err e;
	void *mine = NULL;
	struct fuzz_pipe fp;
	FILE *f;

	if (size == 0)
		return 0;
	if ((f = fuzz_stream(&fp, data, size, size % 8 >= 4 ? FUZZ_PIPE :
	    FUZZ_MEMORY)) == NULL)
		return 0;
	if (img_reader_open(&r, f, "fuzz", &e) == 0) {
		img_reader_set_max_pixels(r, 1 << 20);
		b.get = fuzz_get;
		b.arg = &mine;
		if (size % 2)
			img_reader_set_buffer(r, &b);
		img_reader_set_gray(r, size % 4 >= 2);
		while ((got = img_read_next(r, &img, &e)) > 0) {
			img_reader_take_icc(r, &icc);
			fuzz_pass_add(&a, &img, &icc);
			fuzz_write(&img, &icc);
			if (size % 2)
				free(mine), mine = NULL;
			else
				img_free(&img);
		}
		a.ret = got;
		a.e = e;
		free(mine);
		img_icc_free(&icc);
		img_reader_close(r);
	}
	fclose(f);
	if (size % 16 < 8)
		return 0;
	fuzz_split_pass(data, size, size % 4 >= 2, size % 8 >= 4, &b2);
	if (a.images != b2.images || a.hash != b2.hash || a.ret != b2.ret ||
	    (a.ret < 0 && strcmp(a.e.msg, b2.e.msg) != 0)) {
		fprintf(stderr, "fuzz_img: the stream read whole gave %d images "
		    "and %d (%s); split into frames, %d and %d (%s)\n", a.images,
		    a.ret, a.e.msg, b2.images, b2.ret, b2.e.msg);
		abort();
	}
	return 0;
}
