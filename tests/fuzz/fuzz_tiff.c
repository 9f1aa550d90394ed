/*
 * fuzz_tiff - libFuzzer target for the TIFF reader (lib/io/img_tiff.c) and
 * the weighing of its pages against its bytes (issue 31): the bytes, with
 * a TIFF signature put over their first four, are one TIFF read page
 * after page with img_read_next, pixel limit 2^20.  An odd-sized input
 * is a regular file (memfd), which libtiff reads in place through pread
 * as it reads a file given by name, its pages into memory of the
 * caller's (img_reader_set_buffer), as the engine reuses it; an
 * even-sized one is a stream (fmemopen), read whole into memory, its
 * pages into img_alloc'd memory.  Built by `make fuzz` like fuzz_img.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_io.h"
#include "img.h"

/* One buffer of the caller's, grown as pages need, kept between pages. */
struct fuzz_buf {
	void *p;
	size_t cap;
};

static void *
fuzz_get_kept(void *arg, size_t bytes)
{
	struct fuzz_buf *b = arg;

	if (bytes > b->cap) {
		free(b->p);
		b->cap = bytes;
		b->p = malloc(bytes > 0 ? bytes : 1);
		if (b->p == NULL)
			b->cap = 0;
	}
	return b->p;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_buf mine = {NULL, 0};
	struct img_buffer b = {fuzz_get_kept, &mine};
	struct img_reader *r;
	struct image img;
	struct gf_err e;
	struct fuzz_pipe fp;
	uint8_t *copy;
	FILE *f;

	if (size < 8 || (copy = malloc(size)) == NULL)
		return 0;
	memcpy(copy, data, size);
	memcpy(copy, data[0] == 'M' ? "MM\0*" : "II*\0", 4);
	if ((f = fuzz_stream(&fp, copy, size, size % 2 ? FUZZ_FILE : FUZZ_MEMORY)) ==
	    NULL) {
		free(copy);
		return 0;
	}
	if (img_reader_open(&r, f, "fuzz", &e) == 0) {
		img_reader_set_max_pixels(r, 1 << 20);
		if (size % 2)
			img_reader_set_buffer(r, &b);
		while (img_read_next(r, &img, &e) > 0)
			if (size % 2 == 0)
				img_free(&img);
		img_reader_close(r);
	}
	fclose(f);
	free(mine.p);
	free(copy);
	return 0;
}
