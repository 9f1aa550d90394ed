/*
 * fuzz_jpegcheck - libFuzzer target that holds the check before the GPU's
 * JPEG engines (img_reader_set_check, lib/io/img_jpeg_check.c) to libjpeg-
 * turbo's full decode: the bytes, taken as one JPEG file in memory and
 * read as gray as a batch's reader reads it (img_reader_set_frame), are
 * checked, then decoded, pixel limit 2^20.  A check that says clean
 * where the decode warns or fails aborts, as does one that gives other
 * sizes (the check's are as stored; the decode turns by EXIF
 * Orientation).  The check may refuse what the decode reads (a bad
 * Huffman code, which only its careful path sees).  The walk in pieces
 * (jpeg_walk.h, as the GPU's threads take it, run here on the CPU) must
 * give the walk's count, or be unsure: never clean otherwise.  Seeds:
 * build/fuzz/seeds/jpeg
 * (tests/fuzz/seeds.py).  Built by `make fuzz` like fuzz_img.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "img.h"
#include "jpeg_walk.h"

struct verdict {
	int got;
	long outside;           /* the check's: -1 unsure */
	int width, height;
	char msg[sizeof(((struct gf_err *)0)->msg)];
};

/*
 * Reads (check 1: checks; 2: plans, then walks in pieces) the n bytes at
 * p as one JPEG file, gray.
 */
static void
fuzz_judge(const uint8_t *p, size_t n, int check, struct verdict *v)
{
	struct jw_plan pl;
	struct img_jpeg_plan pp = {&pl, NULL, n, 0};
	struct img_frame fr = {.len = n, .file = 1};
	struct img_reader *r;
	struct image img = {0};
	struct gf_err e = {0};
	FILE *f = fmemopen((void *)p, n, "rb");

	memset(v, 0, sizeof(*v));
	v->got = -2;
	if (f == NULL)
		return;
	if (img_reader_open(&r, f, "input", &e) == 0) {
		img_reader_set_max_pixels(r, 1 << 20);
		img_reader_set_gray(r, 1);
		img_reader_set_frame(r, &fr);
		img_reader_set_check(r, check ? p : NULL, n);
		if (check == 2 && (pp.data = malloc(n)) != NULL)
			img_reader_set_plan(r, &pp);
		v->got = img_read_next(r, &img, &e);
		v->outside = check ? img_reader_check_outside(r) : 0;
		if (check == 2 && v->got > 0 && v->outside == 0)
			v->outside = jpeg_walk_cpu(&pl, pp.data, pp.len);
		free(pp.data);
		if (v->got > 0) {
			v->width = img.width;
			v->height = img.height;
			if (!check)
				img_free(&img);
		} else {
			memcpy(v->msg, e.msg, sizeof(v->msg));
		}
		img_reader_close(r);
	}
	fclose(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct verdict c, d, w;

	/* Only a JPEG is checked; anything else is read as usual by both. */
	if (size < 3 || data[0] != 0xff || data[1] != 0xd8 || data[2] != 0xff)
		return 0;
	fuzz_judge(data, size, 1, &c);
	fuzz_judge(data, size, 0, &d);
	fuzz_judge(data, size, 2, &w);
	if (c.got != -2 && w.got != -2 && w.got > 0 && w.outside >= 0 &&
	    (c.got != w.got || c.outside != w.outside)) {
		fprintf(stderr, "fuzz_jpegcheck: walk %d, %ld outside; pieced walk "
		    "%d, %ld outside\n", c.got, c.outside, w.got, w.outside);
		abort();
	}
	if (c.got == -2 || d.got == -2 || (c.got > 0 && c.outside < 0))
		return 0;       /* out of memory, or the check unsure: no verdict */
	/*
	 * Clean by the check means clean by the decode, of the same sizes
	 * (the check gives them as stored; the decode turns by EXIF
	 * Orientation).  The check may be stricter: its careful path warns
	 * of a bad Huffman code, which the decode's fast path takes as 0.
	 */
	if ((c.got > 0 && d.got <= 0) ||
	    (c.got > 0 && !(c.width == d.width && c.height == d.height) &&
	    !(c.width == d.height && c.height == d.width))) {
		fprintf(stderr, "fuzz_jpegcheck: check %d %dx%d \"%s\", decode %d "
		    "%dx%d \"%s\"\n", c.got, c.width, c.height, c.msg, d.got,
		    d.width, d.height, d.msg);
		abort();
	}
	return 0;
}
