/*
 * window.h - the windows clients give the server (proto.h's
 * PROTO_WINDOW): a client's memfd, mapped once for every connection
 * that was given it (a run's lanes share the slots' buffers of their
 * run), and pinned from its second image on a GPU while the budget
 * holds, so that a worker moves it at full speed with no copy through
 * its staging buffers, as the engine pins a slot's buffer in process
 * (hbuf_pin).  A window is known by its file (dev, ino): while its
 * mapping lives, no other file has them.  It is unpinned and unmapped
 * when the last connection lets go of it.
 */
#ifndef GF_WINDOW_H
#define GF_WINDOW_H

#include <pthread.h>
#include <stddef.h>
#include <sys/stat.h>

struct window {
	struct window *next;    /* on windows.list */
	dev_t dev;
	ino_t ino;
	void *map;
	size_t size;
	/* Under windows.mu: */
	int refs;               /* connections' indices that hold it */
	int uses;               /* images on a GPU that used it */
	int pin;                /* PIN_* */
};

/* The server's windows, and what of them is pinned. */
struct windows {
	pthread_mutex_t mu;
	struct window *list;
	size_t pinned, pinned_max;
};

/* An eighth of the memory, at most 2 GiB, may be pinned. */
void windows_init(struct windows *ws);
void windows_fini(struct windows *ws);

/*
 * The window of fd (size bytes, st its file's): the one mapped for it
 * already, or a new mapping, held once more.  NULL when it cannot be
 * mapped.
 */
struct window *window_get(struct windows *ws, int fd, size_t size,
    const struct stat *st);
/*
 * Lets go of w (NULL: nothing): unpinned (on GPU device's context, -1
 * when the server has none) and unmapped when nothing holds it.
 */
void window_drop(struct windows *ws, struct window *w, int device);
/*
 * Whether w is pinned for an image on GPU device now: it is pinned here
 * (portable to the other GPUs) at its second such image, while the
 * budget holds.  A window that another connection is pinning counts as
 * not pinned for this image.
 */
int window_pinned(struct windows *ws, struct window *w, int device);
/*
 * Maps the pages of n bytes at p of a window at once (the client made
 * them; write: for writing), which costs less than a fault for each;
 * best effort.
 */
void window_populate(void *p, size_t n, int write);

#endif
