/*
 * jpegcheck - holds the check that stands before the GPU's JPEG engines
 * (img_reader_set_check, lib/io/img_jpeg_check.c) against libjpeg-turbo's
 * full decode, file by file, each read as the engine reads a batch's file
 * (its bytes in memory, read as the file would be): a file the check
 * finds clean must decode cleanly, to the same sizes.  The check may be
 * stricter: it decodes every MCU on libjpeg-turbo's careful path, which
 * warns of a bad Huffman code (the decode's fast path takes one as a
 * zero) and reads ahead differently (its count of extraneous bytes may
 * differ); a file it refuses is decoded on the CPU, whose verdict and
 * message the user then gets.  Prints "ok
 * FILE", or "bad FILE why", a line each (tests/t_jpeg_check.sh tallies
 * them), and on stderr how many the check found clean, damaged and
 * outside the engines' range (each file's with JPEGCHECK_VERBOSE set).  With -t, the time per file of the check
 * and of the full decode (the check's cost for the closing figures).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "img.h"

struct verdict {
	int got;                /* img_read_next's */
	long outside;
	char msg[512];
	double ms;
};

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Reads (check 1: checks) the JPEG of n bytes at p as gray, into v. */
static void
judge(const char *name, unsigned char *p, size_t n, int check, struct verdict *v)
{
	struct img_frame fr = {.len = n, .file = 1};
	struct img_reader *r;
	struct image img = {0};
	struct gf_err e = {0};
	double t0 = now_ms();
	FILE *f = fmemopen(p, n, "rb");

	memset(v, 0, sizeof(*v));
	v->got = -1;
	if (f == NULL || img_reader_open(&r, f, name, &e) < 0) {
		snprintf(v->msg, sizeof(v->msg), "cannot open: %.400s", e.msg);
		if (f != NULL)
			fclose(f);
		return;
	}
	img_reader_set_gray(r, 1);
	img_reader_set_frame(r, &fr);
	img_reader_set_check(r, check ? p : NULL, n);
	v->got = img_read_next(r, &img, &e);
	v->outside = check ? img_reader_check_outside(r) : 0;
	snprintf(v->msg, sizeof(v->msg), "%s", v->got < 0 ? e.msg : "");
	if (!check && v->got > 0)
		img_free(&img);
	img_reader_close(r);
	fclose(f);
	v->ms = now_ms() - t0;
}

static unsigned char *
slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = NULL;
	long len;

	if (f != NULL && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (p = malloc((size_t)len)) != NULL &&
	    fread(p, 1, (size_t)len, f) != (size_t)len) {
		free(p);
		p = NULL;
	}
	if (f != NULL)
		fclose(f);
	*n = p != NULL ? (size_t)len : 0;
	return p;
}

int
main(int argc, char **argv)
{
	int timing = argc > 1 && strcmp(argv[1], "-t") == 0;
	int verbose = getenv("JPEGCHECK_VERBOSE") != NULL;
	int clean = 0, damaged = 0, outside = 0, unsure = 0, bad = 0, stricter = 0;
	double check_ms = 0, full_ms = 0;

	for (int i = 1 + timing; i < argc; i++) {
		struct verdict c, d;
		size_t n;
		unsigned char *p = slurp(argv[i], &n);

		if (p == NULL) {
			printf("bad %s cannot read it\n", argv[i]);
			bad++;
			continue;
		}
		judge(argv[i], p, n, 1, &c);
		judge(argv[i], p, n, 0, &d);
		free(p);
		check_ms += c.ms;
		full_ms += d.ms;
		/*
		 * Clean by the check means clean by the decode; the check may be
		 * stricter (a bad Huffman code, which the decode's fast path
		 * takes as a zero without a word): such a file goes to the CPU.
		 */
		if (c.got > 0 && c.outside >= 0 && d.got <= 0) {
			printf("bad %s check %d \"%s\", decode %d \"%s\"\n", argv[i],
			    c.got, c.msg, d.got, d.msg);
			bad++;
			continue;
		}
		if (c.got <= 0 && d.got > 0)
			stricter++;
		printf("ok %s\n", argv[i]);
		if (verbose)
			fprintf(stderr, "%s: %s, %ld blocks outside, check %.2f ms, "
			    "decode %.2f ms\n", argv[i], c.got <= 0 ? "refused" : "read",
			    c.outside, c.ms, d.ms);
		if (c.got <= 0)
			damaged++;
		else if (c.outside < 0)
			unsure++;
		else if (c.outside > 0)
			outside++;
		else
			clean++;
	}
	fprintf(stderr, "jpegcheck: %d files: %d clean, %d refused (%d of them read "
	    "by the decode), %d with blocks outside the engines' range, %d unsure; "
	    "%d where the check is wrong\n", argc - 1 - timing, clean, damaged,
	    stricter, outside, unsure, bad);
	if (timing && argc - 1 - timing > 0)
		fprintf(stderr, "jpegcheck: check %.2f ms a file, full decode %.2f ms\n",
		    check_ms / (argc - 1 - timing), full_ms / (argc - 1 - timing));
	return bad > 0;
}
