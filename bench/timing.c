/*
 * bench.c - median kernel times with CUDA events.
 */
#include <stdlib.h>

#include "bench.h"

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int
bench_median(struct gpu *g, bench_fn fn, void *arg, int warmup, int runs,
    double *ms, struct gf_err *e)
{
	double *t = calloc((size_t)runs, sizeof(*t));
	float one;
	int ret = -1;

	if (t == NULL)
		return gf_fail(e, "out of memory");
	for (int i = 0; i < warmup; i++)
		if (fn(g, arg, e) < 0)
			goto done;
	for (int i = 0; i < runs; i++) {
		if (gpu_timer_start(g, e) < 0 || fn(g, arg, e) < 0 ||
		    gpu_timer_stop(g, &one, e) < 0)
			goto done;
		t[i] = one;
	}
	qsort(t, (size_t)runs, sizeof(*t), cmp_double);
	*ms = t[runs / 2];
	ret = 0;
done:
	free(t);
	return ret;
}
