/*
 * window.c - the windows clients give the server (window.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "gf.h"
#include "window.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22   /* Linux 5.14 */
#define MADV_POPULATE_WRITE 23
#endif

enum { PIN_NO, PIN_GOING, PIN_YES, PIN_FAILED };

/* How long a lend waits for a window of its size that is being zeroed. */
#define ZERO_WAIT_MS 200

static void *pool_main(void *arg);

void
windows_init(struct windows *ws, int device, int keep_ms)
{
	memset(ws, 0, sizeof(*ws));
	pthread_mutex_init(&ws->mu, NULL);
	pthread_cond_init(&ws->cv, NULL);
	pthread_cond_init(&ws->zeroed, NULL);
	ws->pinned_max = gf_pinned_budget();
	ws->pool_max = ws->pinned_max;
	ws->keep_ms = keep_ms > 0 ? keep_ms : POOL_KEEP_MS;
	ws->device = device;
	while (ws->started < POOL_THREADS &&
	    pthread_create(&ws->th[ws->started], NULL, pool_main, ws) == 0)
		ws->started++;
}

/* Unpins and unmaps w, which nothing holds or lists any more. */
static void
window_free(struct windows *ws, struct window *w)
{
	if (w->pin == PIN_YES) {
		/* The thread's current device, else the default one would open. */
		if (ws->device >= 0)
			(void)cudaSetDevice(ws->device);
		(void)cudaHostUnregister(w->map);
		(void)cudaGetLastError();
	}
	munmap(w->map, w->size);
	if (w->fd >= 0)
		close(w->fd);
	free(w);
}

void
windows_fini(struct windows *ws)
{
	struct window *w;

	pthread_mutex_lock(&ws->mu);
	ws->stop = 1;
	pthread_cond_broadcast(&ws->cv);
	pthread_mutex_unlock(&ws->mu);
	for (int i = 0; i < ws->started; i++)
		pthread_join(ws->th[i], NULL);
	/* What is left is the pool's: every connection has ended. */
	while ((w = ws->list) != NULL) {
		ws->list = w->next;
		window_free(ws, w);
	}
	pthread_cond_destroy(&ws->cv);
	pthread_cond_destroy(&ws->zeroed);
	pthread_mutex_destroy(&ws->mu);
}

struct window *
window_get(struct windows *ws, int fd, size_t size, const struct stat *st,
    pid_t pid)
{
	struct window *w;
	void *m;

	pthread_mutex_lock(&ws->mu);
	for (w = ws->list; w != NULL; w = w->next)
		if (w->dev == st->st_dev && w->ino == st->st_ino) {
			if (w->size != size || (w->fd >= 0 && w->lender != pid))
				w = NULL, errno = EPERM;
			else
				w->refs++;
			pthread_mutex_unlock(&ws->mu);
			return w;
		}
	pthread_mutex_unlock(&ws->mu);
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED || (w = calloc(1, sizeof(*w))) == NULL) {
		if (m != MAP_FAILED)
			munmap(m, size);
		return NULL;
	}
	*w = (struct window){.dev = st->st_dev, .ino = st->st_ino, .map = m,
	    .size = size, .refs = 1, .pin = PIN_NO, .fd = -1};
	pthread_mutex_lock(&ws->mu);
	w->next = ws->list;
	ws->list = w;
	pthread_mutex_unlock(&ws->mu);
	return w;
}

void
window_drop(struct windows *ws, struct window *w)
{
	struct window **pp;
	int last;

	if (w == NULL)
		return;
	pthread_mutex_lock(&ws->mu);
	if ((last = --w->refs == 0) && w->fd >= 0) {
		w->lender = -1;         /* no lend takes it until it is zeroed */
		w->dirty = ws->dirty;
		ws->dirty = w;
		pthread_cond_signal(&ws->cv);
		pthread_mutex_unlock(&ws->mu);
		return;
	}
	if (last) {
		for (pp = &ws->list; *pp != w; pp = &(*pp)->next)
			;
		*pp = w->next;
		if (w->pin == PIN_YES)
			ws->pinned -= w->size;
	}
	pthread_mutex_unlock(&ws->mu);
	if (!last)
		return;
	window_free(ws, w);
}

int
window_pinned(struct windows *ws, struct window *w, int device)
{
	int go;

	pthread_mutex_lock(&ws->mu);
	go = w->pin == PIN_NO && ++w->uses >= (w->fd >= 0 ? 1 : 2) &&
	    ws->pinned + w->size <= ws->pinned_max;
	if (go) {
		w->pin = PIN_GOING;
		ws->pinned += w->size;
	}
	pthread_mutex_unlock(&ws->mu);
	if (go) {
		int ok = cudaSetDevice(device) == cudaSuccess &&
		    cudaHostRegister(w->map, w->size, cudaHostRegisterPortable) ==
		    cudaSuccess;
		if (!ok)
			(void)cudaGetLastError();
		pthread_mutex_lock(&ws->mu);
		w->pin = ok ? PIN_YES : PIN_FAILED;
		if (!ok)
			ws->pinned -= w->size;
		pthread_mutex_unlock(&ws->mu);
	}
	pthread_mutex_lock(&ws->mu);
	go = w->pin == PIN_YES;
	pthread_mutex_unlock(&ws->mu);
	return go;
}

static void
populate(void *p, size_t n, int write)
{
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095;

	(void)madvise((void *)a, n + ((uintptr_t)p - a), write ?
	    MADV_POPULATE_WRITE : MADV_POPULATE_READ);
}

void
window_populate(const struct window *w, void *p, size_t n, int write)
{
	if (w->fd < 0)          /* the pool's were made whole (pool_make) */
		populate(p, n, write);
}

/* ---- the pool */

/*
 * Takes the pool's window *pp off the list, and out of what the pool
 * and the pins count; ws->mu held.  The caller frees it (window_free).
 */
static struct window *
pool_unlink(struct windows *ws, struct window **pp)
{
	struct window *w = *pp;

	*pp = w->next;
	ws->pooled -= w->size;
	if (w->pin == PIN_YES)
		ws->pinned -= w->size;
	return w;
}

/* Whether w is the pool's, free: neither lent, held nor being zeroed. */
static int
pool_free(const struct window *w)
{
	return w->fd >= 0 && w->refs == 0 && w->lender == 0;
}

/*
 * Makes room for size more bytes in the pool by freeing its free
 * windows of other sizes, the least recently lent first: whether it
 * fits now.  ws->mu held; dropped while a window is freed.
 */
static int
pool_room(struct windows *ws, size_t size)
{
	while (ws->pooled + size > ws->pool_max) {
		struct window **pp, **old = NULL, *w;
		for (pp = &ws->list; *pp != NULL; pp = &(*pp)->next)
			if (pool_free(*pp) && (*pp)->size != size &&
			    (old == NULL || (*pp)->used < (*old)->used))
				old = pp;
		if (old == NULL)
			return 0;
		w = pool_unlink(ws, old);
		pthread_mutex_unlock(&ws->mu);
		window_free(ws, w);
		pthread_mutex_lock(&ws->mu);
	}
	return 1;
}

/*
 * A new window of the pool of size bytes: its memfd sealed so that
 * neither end can change its size, its pages made, and pinned while the
 * budget holds.  NULL when it cannot be made.
 */
static struct window *
pool_make(struct windows *ws, size_t size)
{
	struct window *w = calloc(1, sizeof(*w));
	struct stat st;
	int pin;

	if (w == NULL)
		return NULL;
	w->map = MAP_FAILED;
	if ((w->fd = memfd_create("gpufiltd-pool", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING)) < 0 ||
	    ftruncate(w->fd, (off_t)size) < 0 ||
	    fcntl(w->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_SEAL) < 0 || fstat(w->fd, &st) < 0 ||
	    (w->map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
	    w->fd, 0)) == MAP_FAILED) {
		if (w->fd >= 0)
			close(w->fd);
		free(w);
		return NULL;
	}
	w->dev = st.st_dev;
	w->ino = st.st_ino;
	w->size = size;
	w->pin = PIN_NO;
	populate(w->map, size, 1);
	pthread_mutex_lock(&ws->mu);
	pin = ws->device >= 0 && ws->pinned + size <= ws->pinned_max;
	if (pin)
		ws->pinned += size;
	pthread_mutex_unlock(&ws->mu);
	if (pin) {
		if (cudaSetDevice(ws->device) == cudaSuccess &&
		    cudaHostRegister(w->map, size, cudaHostRegisterPortable) ==
		    cudaSuccess) {
			w->pin = PIN_YES;
		} else {
			(void)cudaGetLastError();
			pthread_mutex_lock(&ws->mu);
			ws->pinned -= size;
			pthread_mutex_unlock(&ws->mu);
		}
	}
	return w;
}

/*
 * Frees the pool's free windows that no lend has wanted for keep_ms.
 * ws->mu held; dropped while they are freed.
 */
static void
pool_trim(struct windows *ws)
{
	struct window **pp = &ws->list, *old = NULL, *w;
	double now = gf_now_ms();

	while ((w = *pp) != NULL) {
		if (pool_free(w) && now - w->used >= ws->keep_ms) {
			pool_unlink(ws, pp)->next = old;
			old = w;
		} else {
			pp = &w->next;
		}
	}
	pthread_mutex_unlock(&ws->mu);
	while ((w = old) != NULL) {
		old = w->next;
		window_free(ws, w);
	}
	pthread_mutex_lock(&ws->mu);
}

/*
 * A pool's thread: zeroes the windows given back, makes those that
 * lends wanted, one at a time, and, idle, lets go of what has not been
 * wanted for a while.
 */
static void *
pool_main(void *arg)
{
	struct windows *ws = arg;

	pthread_mutex_lock(&ws->mu);
	for (;;) {
		struct timespec tick;
		struct window *w;
		size_t size;

		while (!ws->stop && ws->nwant == 0 && ws->dirty == NULL) {
			gf_deadline(&tick, ws->keep_ms / 4 > 10 ? ws->keep_ms / 4 : 10);
			if (pthread_cond_timedwait(&ws->cv, &ws->mu, &tick) != 0)
				pool_trim(ws);
		}
		if (ws->stop)
			break;
		if ((w = ws->dirty) != NULL) {
			ws->dirty = w->dirty;
			pthread_mutex_unlock(&ws->mu);
			memset(w->map, 0, w->size);
			pthread_mutex_lock(&ws->mu);
			w->lender = 0;
			w->uses = 0;
			w->used = gf_now_ms();  /* its keep counts from now */
			pthread_cond_broadcast(&ws->zeroed);
			continue;
		}
		size = ws->want[--ws->nwant];
		pthread_mutex_unlock(&ws->mu);
		w = pool_make(ws, size);
		pthread_mutex_lock(&ws->mu);
		if (w == NULL) {
			ws->pooled -= size;
			continue;
		}
		w->used = gf_now_ms();
		w->next = ws->list;
		ws->list = w;
	}
	/* Wanted but not made: no longer counted. */
	while (ws->nwant > 0)
		ws->pooled -= ws->want[--ws->nwant];
	pthread_mutex_unlock(&ws->mu);
	return NULL;
}

/* Whether w of the pool fits a lend of size bytes. */
static int
pool_fits(const struct window *w, size_t size)
{
	return w->fd >= 0 && w->refs == 0 && w->size >= size &&
	    w->size - size <= size / 4;
}

struct window *
window_lend(struct windows *ws, size_t size, pid_t pid)
{
	struct window *w, *best = NULL;
	struct timespec until;
	double t0 = gf_now_ms();
	int zeroing, waited = 0;

	if (size == 0 || size > ws->pool_max)
		return NULL;
	gf_deadline(&until, ZERO_WAIT_MS);
	pthread_mutex_lock(&ws->mu);
	for (;;) {
		zeroing = 0;
		for (w = ws->list; w != NULL; w = w->next)
			if (pool_fits(w, size)) {
				zeroing |= w->lender == -1;
				if (w->lender == 0 && (best == NULL ||
				    w->size < best->size))
					best = w;
			}
		if (best != NULL || !zeroing || ws->stop)
			break;
		/* The last batch's, given back a moment ago: wait for it. */
		waited = 1;
		if (pthread_cond_timedwait(&ws->zeroed, &ws->mu, &until) != 0)
			break;
	}
	if (waited) {
		ws->waits++;
		ws->wait_ms += gf_now_ms() - t0;
	}
	if (best != NULL) {
		best->refs = 1;
		best->lender = pid;
		best->used = gf_now_ms();
		ws->lends++;
	} else {
		ws->misses++;
		if (ws->started && !ws->stop && ws->nwant <
		    (int)(sizeof(ws->want) / sizeof(ws->want[0])) &&
		    pool_room(ws, size)) {
			ws->pooled += size;     /* counted as it is wanted */
			ws->want[ws->nwant++] = size;
			pthread_cond_signal(&ws->cv);
		}
	}
	pthread_mutex_unlock(&ws->mu);
	return best;
}

void
window_pool_stats(struct windows *ws, struct window_pool_stats *st)
{
	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&ws->mu);
	for (struct window *w = ws->list; w != NULL; w = w->next)
		if (w->fd >= 0) {
			st->n++;
			st->lent += w->refs > 0;
		}
	st->bytes = ws->pooled;
	st->lends = ws->lends;
	st->waits = ws->waits;
	st->wait_ms = ws->wait_ms;
	st->misses = ws->misses;
	pthread_mutex_unlock(&ws->mu);
}
