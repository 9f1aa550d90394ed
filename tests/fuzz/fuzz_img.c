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
 * PNG and TIFF to a memory stream.
 * Built by `make fuzz` (clang -fsanitize=fuzzer,address,undefined); with
 * tests/fuzz/driver.c instead of libFuzzer it runs files (AFL++).
 */
#define _GNU_SOURCE             /* fopencookie */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "img.h"

/* The caller's-memory path: a fresh malloc per image, freed by the target. */
static void *
fuzz_get(void *arg, size_t bytes)
{
	void **slot = arg;

	*slot = malloc(bytes > 0 ? bytes : 1);
	return *slot;
}

/* The input as a pipe: its bytes in order, no seeking. */
struct fuzz_pipe {
	const uint8_t *p;
	size_t n;
};

static ssize_t
fuzz_pipe_read(void *cookie, char *buf, size_t size)
{
	struct fuzz_pipe *fp = cookie;

	if (size > fp->n)
		size = fp->n;
	memcpy(buf, fp->p, size);
	fp->p += size;
	fp->n -= size;
	return (ssize_t)size;
}

/* Writes img as PNM, PNG and TIFF into memory, to run the writers too. */
static void
fuzz_write(const struct image *img)
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
	(void)img_write(f, img, IMG_FORMAT_PNM, 0, "memory", &e);
	(void)img_write(f, img, IMG_FORMAT_PNG, 0, "memory", &e);
	(void)img_write(f, img, IMG_FORMAT_TIFF, 0, "memory", &e);
	fclose(f);
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct img_reader *r;
	struct img_buffer b;
	struct image img;
	struct gf_err e;
	void *mine = NULL;
	static const cookie_io_functions_t pipe_io = {fuzz_pipe_read, NULL, NULL,
	    NULL};
	struct fuzz_pipe fp = {data, size};
	FILE *f;

	if (size == 0)
		return 0;
	if (size % 8 >= 4)
		f = fopencookie(&fp, "rb", pipe_io);
	else
		f = fmemopen((void *)data, size, "rb");
	if (f == NULL)
		return 0;
	if (img_reader_open(&r, f, "fuzz", &e) == 0) {
		img_reader_set_max_pixels(r, 1 << 20);
		b.get = fuzz_get;
		b.arg = &mine;
		if (size % 2)
			img_reader_set_buffer(r, &b);
		img_reader_set_gray(r, size % 4 >= 2);
		while (img_read_next(r, &img, &e) > 0) {
			fuzz_write(&img);
			if (size % 2)
				free(mine), mine = NULL;
			else
				img_free(&img);
		}
		free(mine);
		img_reader_close(r);
	}
	fclose(f);
	return 0;
}
