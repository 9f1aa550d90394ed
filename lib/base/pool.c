/*
 * pool.c - running the bands of a CPU filter on threads (see pool.h).
 * Threads take the next band from a shared atomic counter, so the work
 * balances itself and the bands' results never depend on which thread
 * made them.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "pool.h"

/* What the threads of one pool_run share. */
struct pool_job {
	pool_fn fn;
	void *arg;
	int nbands;
	atomic_int next;        /* the next band to take */
	atomic_int failed;
};

/* One thread of a pool_run: the shared job and its own scratch. */
struct pool_worker {
	struct pool_job *job;
	void *scratch;
};

/*
 * Stack of each started thread: the band functions keep rows in their
 * scratch, not on the stack, so the default (8 MiB, or more under
 * ulimit -s unlimited) would only spend address space.
 */
#define POOL_STACK (1 << 20)

int
pool_threads(int asked)
{
	long n = asked;

	if (n <= 0)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	return n > POOL_MAX_THREADS ? POOL_MAX_THREADS : (int)n;
}

int
pool_threads_for(int asked, double px)
{
	int n = pool_threads(asked);
	double most = px / POOL_PIXELS;

	if (most < 1)
		most = 1;
	return n > most ? (int)most : n;
}

static void *
pool_worker(void *p)
{
	struct pool_worker *w = p;
	struct pool_job *job = w->job;
	int b;

	while ((b = atomic_fetch_add(&job->next, 1)) < job->nbands)
		if (job->fn(job->arg, b, w->scratch) < 0)
			atomic_store(&job->failed, 1);
	return NULL;
}

int
pool_run(int nthreads, int nbands, size_t scratch, pool_fn fn, void *arg)
{
	struct pool_job job = {.fn = fn, .arg = arg, .nbands = nbands};
	struct pool_worker w[POOL_MAX_THREADS];
	pthread_t tid[POOL_MAX_THREADS];
	pthread_attr_t attr;
	int n = pool_threads(nthreads), started = 0, attr_made, attr_ok;
	size_t each = (scratch + 63) / 64 * 64;
	char *mem = NULL;

	atomic_init(&job.next, 0);
	atomic_init(&job.failed, 0);
	if (n > nbands)
		n = nbands;
	if (n < 1)
		n = 1;
	if (each > 0 && (each > SIZE_MAX / n ||
	    (mem = aligned_alloc(64, each * n)) == NULL))
		return -1;
	for (int i = 0; i < n; i++)
		w[i] = (struct pool_worker){&job, mem ? mem + each * i : NULL};
	attr_made = pthread_attr_init(&attr) == 0;
	attr_ok = attr_made && pthread_attr_setstacksize(&attr, POOL_STACK) == 0;
	while (started < n - 1 && pthread_create(&tid[started],
	    attr_ok ? &attr : NULL, pool_worker, &w[started + 1]) == 0)
		started++;
	pool_worker(&w[0]);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	if (attr_made)
		pthread_attr_destroy(&attr);
	free(mem);
	return atomic_load(&job.failed) ? -1 : 0;
}

int
pool_bands(int n, int nthreads, int min_rows)
{
	int t = pool_threads(nthreads), nb = 4 * t;

	if (t == 1)
		return 1;
	if (min_rows < 1)
		min_rows = 1;
	if (nb > n / min_rows)
		nb = n / min_rows;
	return nb < 1 ? 1 : nb;
}

void
pool_band_rows(int n, int nbands, int b, int *y0, int *y1)
{
	*y0 = (int)((long long)n * b / nbands);
	*y1 = (int)((long long)n * (b + 1) / nbands);
}
