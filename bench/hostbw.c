/*
 * hostbw - what host memory and the host-device copies deliver when
 * several threads copy at once: the bound of a batch, whose images cross
 * the bus from plain (pageable) memory.  Each line is one kind of copy by
 * T threads, spread over G GPUs, each thread moving its own buffer of
 * MB megabytes (12 by default, a 12 MP gray photo) over and over:
 *
 *   memcpy          plain memory to plain memory, on the CPU
 *   H2D/D2H pageable  cudaMemcpyAsync from or to plain memory (the
 *                   driver copies through a pinned buffer of its own)
 *   H2D/D2H pinned  from or to cudaMallocHost memory (DMA only)
 *   H2D/D2H staged  plain memory through two pinned buffers of KB
 *                   kilobytes (4096 by default) of the thread's own: its
 *                   memcpy of one while the other moves (small ones may stay
 *                   in the CPU's cache for the DMA)
 *
 * Usage: hostbw [MB [KB]]    (on a machine with a GPU; bench/multi.sh runs it)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

static size_t chunk = (size_t)4 << 20;        /* staging buffers' size */
#define MAX_THREADS 64

enum kind { MEMCPY, H2D_PAGEABLE, H2D_PINNED, H2D_STAGED, D2H_PAGEABLE,
	D2H_PINNED, D2H_STAGED, NKINDS };

static const char *kind_name[NKINDS] = {
	"memcpy", "H2D pageable", "H2D pinned", "H2D staged", "D2H pageable",
	"D2H pinned", "D2H staged",
};

struct job {
	enum kind kind;
	int device, iters;
	size_t n;
	pthread_barrier_t *start;
	double secs;
	const char *err;        /* the call that failed */
	/* Its buffers, stream and events (NULL: none). */
	char *h, *h2, *d, *st[2];
	cudaStream_t s;
	cudaEvent_t ev[2];
};

#define TRY(j, call) do { \
	if ((call) != cudaSuccess) { \
		(j)->err = #call; \
		return -1; \
	} \
} while (0)

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int
is_pinned(enum kind k)
{
	return k == H2D_PINNED || k == D2H_PINNED;
}

static int
is_staged(enum kind k)
{
	return k == H2D_STAGED || k == D2H_STAGED;
}

/* Host to device through the two staging buffers st, chunk by chunk. */
static cudaError_t
h2d_staged(char *d, const char *h, size_t n, char *st[2], cudaEvent_t ev[2],
    cudaStream_t s)
{
	cudaError_t err = cudaSuccess;
	int k = 0;

	for (size_t o = 0; o < n && err == cudaSuccess; o += chunk, k ^= 1) {
		size_t m = n - o < chunk ? n - o : chunk;
		if ((err = cudaEventSynchronize(ev[k])) != cudaSuccess)
			break;
		memcpy(st[k], h + o, m);
		if ((err = cudaMemcpyAsync(d + o, st[k], m, cudaMemcpyHostToDevice,
		    s)) == cudaSuccess)
			err = cudaEventRecord(ev[k], s);
	}
	return err != cudaSuccess ? err : cudaStreamSynchronize(s);
}

/* Device to host through st: chunk k+1 moves while chunk k is copied out. */
static cudaError_t
d2h_staged(char *h, const char *d, size_t n, char *st[2], cudaEvent_t ev[2],
    cudaStream_t s)
{
	size_t nch = (n + chunk - 1) / chunk;
	cudaError_t err = cudaSuccess;

	for (size_t k = 0; k <= nch && err == cudaSuccess; k++) {
		if (k < nch) {
			size_t o = k * chunk, m = n - o < chunk ? n - o : chunk;
			if ((err = cudaMemcpyAsync(st[k & 1], d + o, m,
			    cudaMemcpyDeviceToHost, s)) != cudaSuccess ||
			    (err = cudaEventRecord(ev[k & 1], s)) != cudaSuccess)
				break;
		}
		if (k > 0) {
			size_t o = (k - 1) * chunk, m = n - o < chunk ? n - o : chunk;
			if ((err = cudaEventSynchronize(ev[(k - 1) & 1])) == cudaSuccess)
				memcpy(h + o, st[(k - 1) & 1], m);
		}
	}
	return err;
}

/* j's buffers, stream and events; -1 with j->err if one cannot be had. */
static int
setup(struct job *j)
{
	if (j->kind != MEMCPY) {
		TRY(j, cudaSetDevice(j->device));
		TRY(j, cudaStreamCreate(&j->s));
		TRY(j, cudaMalloc((void **)&j->d, j->n));
		for (int k = 0; k < 2; k++) {
			TRY(j, cudaEventCreate(&j->ev[k]));
			TRY(j, cudaEventRecord(j->ev[k], j->s));
		}
	}
	if (is_pinned(j->kind))
		TRY(j, cudaMallocHost((void **)&j->h, j->n));
	else if ((j->h = malloc(j->n)) == NULL ||
	    (j->kind == MEMCPY && (j->h2 = malloc(j->n)) == NULL)) {
		j->err = "malloc";
		return -1;
	}
	memset(j->h, 1, j->n);
	if (j->h2 != NULL)
		memset(j->h2, 2, j->n);
	for (int k = 0; is_staged(j->kind) && k < 2; k++)
		TRY(j, cudaMallocHost((void **)&j->st[k], chunk));
	return 0;
}

/* j's copies, iters of them; -1 with j->err on a failed call. */
static int
copy(struct job *j)
{
	for (int it = 0; it < j->iters; it++) {
		switch (j->kind) {
		case MEMCPY:
			memcpy(j->h2, j->h, j->n);
			break;
		case H2D_PAGEABLE:
		case H2D_PINNED:
			TRY(j, cudaMemcpyAsync(j->d, j->h, j->n, cudaMemcpyHostToDevice,
			    j->s));
			TRY(j, cudaStreamSynchronize(j->s));
			break;
		case D2H_PAGEABLE:
		case D2H_PINNED:
			TRY(j, cudaMemcpyAsync(j->h, j->d, j->n, cudaMemcpyDeviceToHost,
			    j->s));
			TRY(j, cudaStreamSynchronize(j->s));
			break;
		case H2D_STAGED:
			TRY(j, h2d_staged(j->d, j->h, j->n, j->st, j->ev, j->s));
			break;
		case D2H_STAGED:
			TRY(j, d2h_staged(j->h, j->d, j->n, j->st, j->ev, j->s));
			break;
		default:
			break;
		}
	}
	return 0;
}

/*
 * One thread: its setup, then, once every thread is set up (a failed
 * one too, so that none waits for ever), its copies, timed; then frees
 * what it had.
 */
static void *
copier(void *arg)
{
	struct job *j = arg;
	int ok = setup(j) == 0;
	double t0;

	pthread_barrier_wait(j->start);
	t0 = now();
	if (ok && copy(j) == 0)
		j->secs = now() - t0;
	free(j->h2);
	if (j->kind == MEMCPY) {
		free(j->h);
		return NULL;
	}
	if (is_pinned(j->kind))
		cudaFreeHost(j->h);
	else
		free(j->h);
	for (int k = 0; k < 2; k++) {
		cudaFreeHost(j->st[k]);
		if (j->ev[k] != NULL)
			cudaEventDestroy(j->ev[k]);
	}
	cudaFree(j->d);
	if (j->s != NULL)
		cudaStreamDestroy(j->s);
	return NULL;
}

/* One line: kind by nthreads threads over ngpu GPUs; -1 if a call failed. */
static int
measure(enum kind kind, int nthreads, int ngpu, size_t n, int iters)
{
	pthread_t th[MAX_THREADS];
	struct job jb[MAX_THREADS];
	pthread_barrier_t start;
	double secs = 0;
	int failed = 0;

	pthread_barrier_init(&start, NULL, (unsigned)nthreads);
	for (int i = 0; i < nthreads; i++) {
		jb[i] = (struct job){.kind = kind, .device = i % ngpu,
		    .iters = iters, .n = n, .start = &start};
		if (pthread_create(&th[i], NULL, copier, &jb[i]) != 0) {
			fprintf(stderr, "hostbw: cannot start a thread\n");
			exit(1);
		}
	}
	for (int i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		if (jb[i].err != NULL) {
			fprintf(stderr, "hostbw: %s failed\n", jb[i].err);
			failed = 1;
		}
		if (jb[i].secs > secs)
			secs = jb[i].secs;
	}
	pthread_barrier_destroy(&start);
	if (failed)
		return -1;
	printf("%-13s  %2d threads  %d GPUs  %6.1f GB/s  %6.2f ms a copy\n",
	    kind_name[kind], nthreads, kind == MEMCPY ? 0 : ngpu,
	    (double)n * iters * nthreads / secs / 1e9, secs / iters * 1e3);
	fflush(stdout);
	return 0;
}

int
main(int argc, char **argv)
{
	int ngpu, mb = argc > 1 ? atoi(argv[1]) : 12, kb = argc > 2 ? atoi(argv[2]) : 4096;
	size_t n;

	if (argc > 3 || mb < 1 || mb > 1024 || kb < 4 || kb > 1024 * mb) {
		fprintf(stderr, "usage: hostbw [MB [KB]]    (MB: 1 to 1024, 12 by "
		    "default; KB, the staging buffers: 4 to MB * 1024, 4096 by default)\n");
		return 2;
	}
	chunk = (size_t)kb << 10;
	if (cudaGetDeviceCount(&ngpu) != cudaSuccess || ngpu < 1) {
		fprintf(stderr, "hostbw: no GPU\n");
		return 1;
	}
	n = (size_t)mb << 20;
	for (int t = 1; t <= 32; t *= 2)
		if (measure(MEMCPY, t, 1, n, 40) < 0)
			return 1;
	for (int k = H2D_PAGEABLE; k < NKINDS; k++)
		for (int g = 1; g <= ngpu && g <= 8; g++)
			for (int lanes = 1; lanes <= 4; lanes *= 2)
				if (measure((enum kind)k, g * lanes, g, n, 40) < 0)
					return 1;
	return 0;
}
