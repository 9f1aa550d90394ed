/*
 * cpuops - the CPU path's operations timed in process, compute only: the
 * image is read once, then each operation runs RUNS times on THREADS
 * threads and its median and minimum are printed in milliseconds, one
 * line an operation.  The same basis as OpenCV called from Python in a loop
 * (bench/cpu.sh prints the two side by side): output buffers are
 * allocated by every call, as cv2's are, from memory the process has
 * already touched.
 * Usage: cpuops IMAGE THREADS RUNS [NAME]   (NAME: only the operations
 * whose name holds it)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conv2d.h"
#include "edge_tool.h"
#include "img.h"
#include "sobel_tool.h"

#define MAX_RUNS 101

/* What one operation needs: the filter or options it runs with. */
struct op {
	const char *name;
	int kind;               /* 0 sobel, 1 conv2d, 2 edge */
	const char *kernel;     /* conv2d: -k */
	int separable;          /* conv2d: 0 for --no-separable */
	int divisor;            /* conv2d: --divisor, 0 none */
	double sigma, low, high;        /* edge */
};

static const struct op ops[] = {
	{"sobel -t 100", 0, NULL, 0, 0, 0, 0, 0},
	{"conv2d gauss:1.4", 1, "gauss:1.4", 1, 0, 0, 0, 0},
	{"conv2d box:5 --no-separable", 1, "box:5", 0, 0, 0, 0, 0},
	{"conv2d 5x5 int /16", 1, "0 -1 -2 -1 0; -1 2 4 2 -1; -2 4 12 4 -2; "
	    "-1 2 4 2 -1; 0 -1 -2 -1 0", 1, 16, 0, 0, 0},
	{"edge --sigma 1.4 30/60", 2, NULL, 0, 0, 1.4, 30, 60},
	{"edge --sigma 0 40/100", 2, NULL, 0, 0, 0, 40, 100},
};

/* Wall time, or with CPUOPS_CPU=1 in the environment the process's CPU time (steadier on a loaded machine, for one thread). */
static double
now_ms(void)
{
	static int cpu = -1;
	struct timespec t;

	if (cpu < 0)
		cpu = getenv("CPUOPS_CPU") != NULL && strcmp(getenv("CPUOPS_CPU"), "1") == 0;
	clock_gettime(cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One run of op o on in with n threads; 0 or -1 (e). */
static int
run_op(const struct op *o, const struct image *in, int n, struct gf_err *e)
{
	struct image out = {0};
	int rc;

	if (o->kind == 0) {
		struct sobel_opts so;
		memset(&so, 0, sizeof(so));
		gf_opts_init(&so.common);
		so.threshold = 1;
		so.t = 100;
		struct sobel_params p = sobel_params_for(&so, in->maxval, 100);
		rc = sobel_cpu(in, &out, &p, GF_BORDER_REPLICATE, n, e);
	} else if (o->kind == 1) {
		static struct conv2d_filter f;
		memset(&f, 0, sizeof(f));
		if (kspec_parse(o->kernel, &f.k, e) < 0)
			return -1;
		f.allow_separable = o->separable;
		f.divisor = o->divisor;
		f.border = GF_BORDER_REPLICATE;
		rc = conv2d_cpu(in, &out, &f, n, e);
	} else {
		struct edge_opts eo;
		struct edge_params ep;
		struct edge_info info;
		memset(&eo, 0, sizeof(eo));
		gf_opts_init(&eo.common);
		eo.sigma = o->sigma;
		eo.low = o->low;
		eo.high = o->high;
		ep = edge_params_for(&eo);
		rc = edge_cpu(in, &out, &ep, &info, n, e);
	}
	img_free(&out);
	return rc;
}

int
main(int argc, char **argv)
{
	struct gf_err e = {0};
	struct image in = {0};
	double t[MAX_RUNS];
	int n, runs;

	if (argc < 4 || argc > 5 || (n = atoi(argv[2])) < 1 || (runs = atoi(argv[3])) < 1 ||
	    runs > MAX_RUNS) {
		fprintf(stderr, "usage: cpuops IMAGE THREADS RUNS [NAME] (RUNS 1 to %d)\n",
		    MAX_RUNS);
		return 2;
	}
	if (img_load(argv[1], &in, &e) < 0) {
		fprintf(stderr, "cpuops: %s\n", e.msg);
		return 1;
	}
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		if (argc == 5 && strstr(ops[k].name, argv[4]) == NULL)
			continue;
		for (int i = 0; i < runs; i++) {
			double t0 = now_ms();
			if (run_op(&ops[k], &in, n, &e) < 0) {
				fprintf(stderr, "cpuops: %s: %s\n", ops[k].name, e.msg);
				return 1;
			}
			t[i] = now_ms() - t0;
		}
		qsort(t, (size_t)runs, sizeof(t[0]), cmp_double);
		printf("%s\t%.2f\t%.2f\n", ops[k].name, t[(runs - 1) / 2], t[0]);
	}
	img_free(&in);
	return fclose(stdout) != 0;
}
