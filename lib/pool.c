/*
 * pool.c - running the bands of a CPU filter on threads (see pool.h).
 * Threads take the next band from a shared atomic counter, so the work
 * balances itself and the bands' results never depend on which thread
 * made them.
 */
#include <pthread.h>
#include <stdatomic.h>
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

static void *
pool_worker(void *p)
{
	struct pool_job *job = p;
	int b;

	while ((b = atomic_fetch_add(&job->next, 1)) < job->nbands)
		if (job->fn(job->arg, b) < 0)
			atomic_store(&job->failed, 1);
	return NULL;
}

int
pool_run(int nthreads, int nbands, pool_fn fn, void *arg)
{
	struct pool_job job = {.fn = fn, .arg = arg, .nbands = nbands};
	pthread_t tid[POOL_MAX_THREADS];
	int n = pool_threads(nthreads), started = 0;

	atomic_init(&job.next, 0);
	atomic_init(&job.failed, 0);
	if (n > nbands)
		n = nbands;
	while (started < n - 1 &&
	    pthread_create(&tid[started], NULL, pool_worker, &job) == 0)
		started++;
	pool_worker(&job);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
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
