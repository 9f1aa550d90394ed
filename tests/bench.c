/*
 * bench - make bench: each GPU strategy's kernel time on large images,
 * the effective bandwidth (1 byte read + 1 byte written per pixel for
 * 8-bit work) and the fraction of a plain copy kernel timed in the same
 * run.  Medians of many CUDA-event-timed launches, after warm-up.  The
 * 12288x12288 image (151 MB) is larger than the 50 MB L2 cache; the
 * 3840x2160 one fits in it, so its figures time the cache.
 *
 * Every timed path is first checked against the CPU reference on the
 * same image (validate, then time).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "sobel.h"

#define WARMUP 5
#define RUNS 30

struct bench {
	struct gpu g;
	struct image host;      /* the test image */
	struct gpu_image in, out;
	double copy_ms;
};

/* Smooth content plus noise, never constant: what a photograph looks like to a stencil. */
static void
fill(struct image *img)
{
	uint32_t s = 12345;
	uint8_t *p = img->px;

	for (int y = 0; y < img->height; y++)
		for (int x = 0; x < img->width; x++) {
			s = s * 1664525u + 1013904223u;
			double v = 128 + 80 * sin(x / 37.0) * cos(y / 53.0) +
			    (int)(s >> 27) - 16;
			p[(size_t)y * img->width + x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
		}
}

static int
run_copy(struct gpu *g, void *arg, struct gf_err *e)
{
	struct bench *b = arg;

	GPU_TRY(e, bench_copy_launch(b->in.px, b->out.px,
	    b->in.pitch * b->in.height, g->sm_count, g->stream));
	return 0;
}

static void
row(const struct bench *b, const char *what, double ms, double bytes_per_px)
{
	double px = (double)b->in.width * b->in.height;

	printf("| %-34s | %9.3f | %7.0f | %5.1f%% |\n", what, ms,
	    px * bytes_per_px / (ms * 1e6), 100.0 * b->copy_ms / ms);
}

struct sobel_run {
	struct bench *b;
	struct sobel_params p;
	enum gf_strategy s;
};

static int
run_sobel(struct gpu *g, void *arg, struct gf_err *e)
{
	struct sobel_run *r = arg;
	struct gf_launch l = {0, 0, 0};

	return sobel_gpu(g, &r->b->in, &r->b->out, &r->p, 0, r->s, &l, e);
}

/* Checks the GPU output of the last run against the CPU reference want. */
static int
sobel_validate(struct bench *b, const struct image *want, struct gf_err *e)
{
	struct image got = b->host;

	if (img_alloc(&got, e) < 0)
		return -1;
	int ret = gpu_download(&b->g, &b->out, &got, 0, e);
	if (ret == 0 && memcmp(want->px, got.px, img_bytes(want)) != 0)
		ret = gf_fail(e, "GPU output differs from the CPU reference");
	img_free(&got);
	return ret;
}

/* Validates and times every strategy for one mode. */
static int
bench_sobel_mode(struct bench *b, const char *name, const struct sobel_params *p,
    struct gf_err *e)
{
	struct image want;
	double ms;
	char what[64];
	int ret = 0;

	if (sobel_cpu(&b->host, &want, p, 0, e) < 0)
		return -1;
	for (int s = GF_FIRST_GPU; s <= GF_LAST_GPU && ret == 0; s++) {
		struct sobel_run r = {b, *p, (enum gf_strategy)s};
		ret = run_sobel(&b->g, &r, e);
		if (ret == 0)
			ret = sobel_validate(b, &want, e);
		if (ret == 0)
			ret = bench_median(&b->g, run_sobel, &r, WARMUP, RUNS, &ms, e);
		if (ret == 0) {
			snprintf(what, sizeof(what), "sobel %s %s", name,
			    gf_strategies[s].name);
			row(b, what, ms, 2);
		}
	}
	img_free(&want);
	return ret;
}

static int
bench_sobel(struct bench *b, struct gf_err *e)
{
	struct sobel_opts o = {0};
	struct sobel_params mag = sobel_params_for(&o, 255, 0);

	o.threshold = 1;
	struct sobel_params thr = sobel_params_for(&o, 255, 100);
	if (bench_sobel_mode(b, "magnitude", &mag, e) < 0 ||
	    bench_sobel_mode(b, "threshold", &thr, e) < 0)
		return -1;
	return 0;
}

static int
bench_size(struct bench *b, int w, int h, struct gf_err *e)
{
	b->host = (struct image){w, h, 1, 255, NULL};
	if (img_alloc(&b->host, e) < 0)
		return -1;
	fill(&b->host);
	if (gpu_image_get(&b->g, GPU_SLOT_IN, w, h, 255, &b->in, e) < 0 ||
	    gpu_image_get(&b->g, GPU_SLOT_OUT, w, h, 255, &b->out, e) < 0 ||
	    gpu_upload(&b->g, &b->host, 0, &b->in, e) < 0 ||
	    bench_median(&b->g, run_copy, b, WARMUP, RUNS, &b->copy_ms, e) < 0)
		return -1;
	printf("\n%dx%d u8 on %s (median of %d runs)\n\n", w, h, b->g.name, RUNS);
	printf("| %-34s | %9s | %7s | %6s |\n", "kernel", "ms", "GB/s", "copy");
	printf("|%s|%s|%s|%s|\n", "------------------------------------",
	    "-----------", "---------", "--------");
	row(b, "copy (16-byte vectors)", b->copy_ms, 2);
	int ret = bench_sobel(b, e);
	img_free(&b->host);
	return ret;
}

int
main(void)
{
	static struct bench b;
	struct gf_err e;

	if (gpu_open(&b.g, -1, &e) < 0) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return 1;
	}
	if (bench_size(&b, 12288, 12288, &e) < 0 || bench_size(&b, 3840, 2160, &e) < 0) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return 1;
	}
	gpu_close(&b.g);
	return 0;
}
