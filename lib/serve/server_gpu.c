/*
 * server_gpu.c - a GPU the server keeps open (server_int.h's sdev): its
 * workers, made as images need them up to WORKERS, each taken by one
 * image at a time, and its JPEG engines; the engines and the first
 * WORKERS_WARM workers made ahead, as soon as the GPU is open (sdev_warm).
 */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>

#include "server_int.h"

int
sdev_open(struct sdev *d, int number, struct gf_err *e)
{
	cudaError_t ce;

	pthread_mutex_init(&d->mu, NULL);
	pthread_cond_init(&d->cv, NULL);
	if (gpu_open(&d->base, number, e) < 0)
		return -1;
	d->opened = 1;
	/*
	 * Its threads wait for the GPU asleep, not spinning: each of the
	 * many workers waits on a stream of its own, and spinning they took
	 * the cores that the JPEG queue's thread and the clients need.  A
	 * driver that refuses leaves them spinning: slower, not wrong.
	 */
	if ((ce = cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync)) !=
	    cudaSuccess) {
		(void)cudaGetLastError();
		server_log(d->srv, "GPU %d: its threads spin while they wait for "
		    "it: cudaSetDeviceFlags: %s", number, cudaGetErrorString(ce));
	}
	return 0;
}

/*
 * A worker of d, made if fewer than WORKERS are; waits while all are at
 * work.  NULL with e when d is lost for good or a worker cannot be made.
 */
struct engine_worker *
worker_take(struct sdev *d, struct gf_err *e)
{
	struct engine_worker *w = NULL;

	pthread_mutex_lock(&d->mu);
	while (d->why[0] == '\0' && d->nfree == 0 && d->nmade == WORKERS)
		pthread_cond_wait(&d->cv, &d->mu);
	if (d->why[0] != '\0') {
		gf_fail(e, "GPU %d (%s) is lost: %s", d->base.device, d->base.name,
		    d->why);
	} else if (d->nfree > 0) {
		w = d->free[--d->nfree];
	} else {
		d->nmade++;
		pthread_mutex_unlock(&d->mu);
		if (engine_worker_open(&w, &d->base, e) == 0)
			return w;
		pthread_mutex_lock(&d->mu);
		d->nmade--;
		pthread_cond_broadcast(&d->cv);
	}
	pthread_mutex_unlock(&d->mu);
	return w;
}

/*
 * Gives w back to d.  When lost says that d's context is (an error stuck
 * to it, which no call in this process can undo), w and d's idle workers
 * are closed, d takes no more work, and the server ends: the runs on it
 * fail with a message, and later runs start a new server or run in
 * process.
 */
void
worker_give(struct sdev *d, struct engine_worker *w, int lost)
{
	struct server *s = d->srv;

	pthread_mutex_lock(&d->mu);
	if (lost && d->why[0] == '\0')
		snprintf(d->why, sizeof(d->why), "its context was lost; the server "
		    "ends");
	if (d->why[0] != '\0') {
		engine_worker_close(w);
		d->nmade--;
		while (d->nfree > 0) {
			engine_worker_close(d->free[--d->nfree]);
			d->nmade--;
		}
	} else {
		d->free[d->nfree++] = w;
	}
	pthread_cond_broadcast(&d->cv);
	pthread_mutex_unlock(&d->mu);
	if (lost) {
		pthread_mutex_lock(&s->mu);
		s->stop = 1;
		pthread_mutex_unlock(&s->mu);
	}
}

void
sdev_close(struct sdev *d)
{
	if (d->warm_started) {
		pthread_mutex_lock(&d->mu);
		d->closing = 1;
		pthread_mutex_unlock(&d->mu);
		pthread_join(d->warm, NULL);
	}
	while (d->nfree > 0)
		engine_worker_close(d->free[--d->nfree]);
	jpeg_gpu_queue_close(d->jq);
	if (d->jpeg != NULL) {
		(void)cudaSetDevice(d->base.device);
		jpeg_gpu_close(d->jpeg);        /* after its queue's decode state */
	}
	if (d->opened)
		gpu_close(&d->base);
	pthread_mutex_destroy(&d->mu);
	pthread_cond_destroy(&d->cv);
}

/*
 * GPU d's JPEG engines, opened at the first call (a second or so, once;
 * other calls wait for it, but not d's workers), with the queue that
 * decodes for its workers: NULL when it has none.
 */
struct jpeg_gpu_queue *
sdev_jpeg(struct server *s, struct sdev *d)
{
	struct jpeg_gpu_queue *q;

	pthread_mutex_lock(&d->mu);
	while (d->jpeg_state == JPEG_OPENING)
		pthread_cond_wait(&d->cv, &d->mu);
	if (d->jpeg_state == JPEG_NOT_YET) {
		struct jpeg_gpu *j = NULL;
		struct gf_err e = {0};
		int ok;
		d->jpeg_state = JPEG_OPENING;
		pthread_mutex_unlock(&d->mu);
		ok = jpeg_gpu_open(&j, d->base.device, &e) == 0 &&
		    jpeg_gpu_queue_open(j, d->base.device, &q, &e) == 0;
		if (!ok)
			server_log(s, "GPU %d: no JPEG engines: %s", d->base.device,
			    e.msg);
		pthread_mutex_lock(&d->mu);
		d->jpeg = j;            /* sdev_close closes it, open or not */
		d->jq = ok ? q : NULL;
		d->jpeg_state = ok ? JPEG_OPEN : JPEG_NONE;
		pthread_cond_broadcast(&d->cv);
	}
	q = d->jpeg_state == JPEG_OPEN ? d->jq : NULL;
	pthread_mutex_unlock(&d->mu);
	return q;
}

/* Whether d is still open and taking work (under d->mu). */
static int
sdev_going(const struct sdev *d)
{
	return !d->closing && d->why[0] == '\0';
}

/*
 * sdev_warm's thread: d's JPEG engines first (a client's first JPEG
 * waits for them, while its first images of other kinds make their own
 * workers) and their queue's decode states, then its first WORKERS_WARM
 * workers, each with what its first JPEG would make, unless d closes or
 * is lost first.  Workers that clients made meanwhile count.
 */
static void *
warm_main(void *arg)
{
	struct sdev *d = arg;
	struct engine_worker *w = NULL;
	struct jpeg_gpu_queue *q;
	struct gf_err e = {0};
	int go;

	pthread_mutex_lock(&d->mu);
	go = sdev_going(d) && !d->srv->o.jpeg_decline;
	pthread_mutex_unlock(&d->mu);
	if (go && (q = sdev_jpeg(d->srv, d)) != NULL)
		jpeg_gpu_queue_warmed(q);
	do {
		pthread_mutex_lock(&d->mu);
		if (w != NULL)
			d->free[d->nfree++] = w;
		go = sdev_going(d) && d->nmade < WORKERS_WARM;
		d->nmade += go;
		pthread_cond_broadcast(&d->cv);
		pthread_mutex_unlock(&d->mu);
		if (go && engine_worker_open(&w, &d->base, &e) == 0 &&
		    engine_worker_warm(w, &e) < 0) {
			engine_worker_close(w);
			w = NULL;
		}
	} while (go && w != NULL);
	if (go) {
		pthread_mutex_lock(&d->mu);
		d->nmade--;
		pthread_cond_broadcast(&d->cv);
		pthread_mutex_unlock(&d->mu);
		server_log(d->srv, "GPU %d: its workers are made as images come: %s",
		    d->base.device, e.msg);
	}
	pthread_mutex_lock(&d->mu);
	d->warm_done = 1;
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

void
sdev_warm(struct sdev *d)
{
	if (pthread_create(&d->warm, NULL, warm_main, d) == 0)
		d->warm_started = 1;
	/* else the workers and engines are made as images come */
}
