/*
 * window.c - the windows clients give the server (window.h).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <cuda_runtime.h>

#include "gf.h"
#include "window.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22   /* Linux 5.14 */
#define MADV_POPULATE_WRITE 23
#endif

enum { PIN_NO, PIN_GOING, PIN_YES, PIN_FAILED };

void
windows_init(struct windows *ws)
{
	pthread_mutex_init(&ws->mu, NULL);
	ws->list = NULL;
	ws->pinned = 0;
	ws->pinned_max = gf_pinned_budget();
}

void
windows_fini(struct windows *ws)
{
	pthread_mutex_destroy(&ws->mu);
}

struct window *
window_get(struct windows *ws, int fd, size_t size, const struct stat *st)
{
	struct window *w;
	void *m;

	pthread_mutex_lock(&ws->mu);
	for (w = ws->list; w != NULL; w = w->next)
		if (w->dev == st->st_dev && w->ino == st->st_ino && w->size == size) {
			w->refs++;
			break;
		}
	pthread_mutex_unlock(&ws->mu);
	if (w != NULL)
		return w;
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED || (w = calloc(1, sizeof(*w))) == NULL) {
		if (m != MAP_FAILED)
			munmap(m, size);
		return NULL;
	}
	*w = (struct window){NULL, st->st_dev, st->st_ino, m, size, 1, 0, PIN_NO};
	pthread_mutex_lock(&ws->mu);
	w->next = ws->list;
	ws->list = w;
	pthread_mutex_unlock(&ws->mu);
	return w;
}

void
window_drop(struct windows *ws, struct window *w, int device)
{
	struct window **pp;
	int last;

	if (w == NULL)
		return;
	pthread_mutex_lock(&ws->mu);
	if ((last = --w->refs == 0)) {
		for (pp = &ws->list; *pp != w; pp = &(*pp)->next)
			;
		*pp = w->next;
		if (w->pin == PIN_YES)
			ws->pinned -= w->size;
	}
	pthread_mutex_unlock(&ws->mu);
	if (!last)
		return;
	if (w->pin == PIN_YES) {
		/* The thread's current device, else the default one would open. */
		if (device >= 0)
			(void)cudaSetDevice(device);
		(void)cudaHostUnregister(w->map);
		(void)cudaGetLastError();
	}
	munmap(w->map, w->size);
	free(w);
}

int
window_pinned(struct windows *ws, struct window *w, int device)
{
	int go;

	pthread_mutex_lock(&ws->mu);
	go = w->pin == PIN_NO && ++w->uses >= 2 &&
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

void
window_populate(void *p, size_t n, int write)
{
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095;

	(void)madvise((void *)a, n + ((uintptr_t)p - a), write ?
	    MADV_POPULATE_WRITE : MADV_POPULATE_READ);
}
