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
 * With -w, each file's check is also planned and walked in pieces
 * (jpeg_walk.h, on the CPU as the GPU's threads go): "bad FILE" where
 * the pieced walk gives other than the walk, blocks outside or unsure.
 * With -g, the pieced walk runs on the GPU (kernels/jpeg_walk.cu); exit
 * 2 when there is none to run it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "img.h"
#include "jpeg_gpu.h"

static struct jpeg_walker *walker;     /* -g */
static double gpu_ms;                  /* its walks' */

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

/* Reads (check 1: checks; 2: plans, then walks in pieces) the JPEG of n bytes at p as gray, into v. */
static void
judge(const char *name, unsigned char *p, size_t n, int check, struct verdict *v)
{
	struct jw_plan pl;
	struct img_jpeg_plan pp = {&pl, NULL, n, 0};
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
	if (check == 2 && (pp.data = walker != NULL ? jpeg_walker_buffer(walker, n,
	    &e) : malloc(n)) != NULL)
		img_reader_set_plan(r, &pp);
	v->got = img_read_next(r, &img, &e);
	v->outside = check ? img_reader_check_outside(r) : 0;
	if (check == 2 && v->got > 0 && v->outside == 0 && walker == NULL)
		v->outside = jpeg_walk_cpu(&pl, pp.data, pp.len);
	else if (check == 2 && v->got > 0 && v->outside == 0) {
		double t1 = now_ms();
		if (jpeg_walker_run(walker, &pl, pp.len, 0, &v->outside, &e) < 0) {
			fprintf(stderr, "jpegcheck: %s\n", e.msg);
			exit(2);
		}
		gpu_ms += now_ms() - t1;
	}
	if (walker == NULL)
		free(pp.data);
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
	int gpu = argc > 1 && strcmp(argv[1], "-g") == 0;
	int pieced = gpu || (argc > 1 && strcmp(argv[1], "-w") == 0);
	int verbose = getenv("JPEGCHECK_VERBOSE") != NULL;
	int clean = 0, damaged = 0, outside = 0, unsure = 0, bad = 0, stricter = 0;
	int unplanned = 0;
	double check_ms = 0, full_ms = 0, walk_ms = 0;
	struct gf_err e;

	if (gpu && jpeg_walker_open(&walker, &e) < 0) {
		fprintf(stderr, "jpegcheck: no GPU for the walk: %s\n", e.msg);
		return 2;
	}

	for (int i = 1 + timing + pieced; i < argc; i++) {
		struct verdict c, d, w;
		size_t n;
		unsigned char *p = slurp(argv[i], &n);

		if (p == NULL) {
			printf("bad %s cannot read it\n", argv[i]);
			bad++;
			continue;
		}
		judge(argv[i], p, n, 1, &c);
		judge(argv[i], p, n, 0, &d);
		if (pieced) {
			judge(argv[i], p, n, 2, &w);
			walk_ms += w.ms;
		}
		free(p);
		/*
		 * The pieced walk gives the walk's count, or is unsure where the
		 * walk is not (restarts and arithmetic coding are not planned, and
		 * states that do not settle in JW_ROUNDS): never clean otherwise.
		 */
		if (pieced && w.got == c.got && w.outside < 0 && c.outside >= 0)
			unplanned++;
		else if (pieced && (w.got != c.got || w.outside != c.outside)) {
			printf("bad %s walk %d, %ld outside; pieced walk %d, %ld outside\n",
			    argv[i], c.got, c.outside, w.got, w.outside);
			bad++;
			continue;
		}
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
	    "%d where the check is wrong\n", argc - 1 - timing - pieced, clean, damaged,
	    stricter, outside, unsure, bad);
	if (pieced)
		fprintf(stderr, "jpegcheck: the pieced walk unsure of %d the walk "
		    "decides\n", unplanned);
	if (pieced && argc - 2 > 0)
		fprintf(stderr, "jpegcheck: check %.2f ms a file, pieced walk %.2f ms "
		    "(header, plan and walk; %.2f ms the walk on the GPU)\n",
		    check_ms / (argc - 2), walk_ms / (argc - 2), gpu_ms / (argc - 2));
	if (timing && argc - 1 - timing > 0)
		fprintf(stderr, "jpegcheck: check %.2f ms a file, full decode %.2f ms\n",
		    check_ms / (argc - 1 - timing), full_ms / (argc - 1 - timing));
	return bad > 0;
}
