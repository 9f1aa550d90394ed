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
 *
 * The pool: windows the server makes itself and lends (PROTO_LEND),
 * so that a run's buffers are mapped here, their pages made and pinned
 * before its first image, and stay so from run to run.  A batch meets
 * each of its slots' buffers only a few times: a client's own window
 * pays all of that on the images of the run, the first use of each
 * buffer through staging and the second pinning it.  A window is
 * lent to one process at a time: a connection of another pid cannot
 * name it.  When the last connection lets go of it, the pool's threads
 * zero it (side by side: a batch gives back a gigabyte and more at
 * once, and the next batch may be waiting for it) and it is free
 * again.  The pool is bounded by the pinned budget, and its threads let
 * go of a window no lend has wanted for keep_ms.  A lend the pool
 * cannot meet now is answered with none, and its threads make one of
 * that size for a later lend.
 */
#ifndef GF_WINDOW_H
#define GF_WINDOW_H

#include <pthread.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

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
	/* The pool's (fd >= 0): */
	int fd;
	pid_t lender;           /* lent to; 0: free; -1: to be zeroed */
	double used;            /* when it was last lent (ms) */
	struct window *dirty;   /* the next on windows.dirty */
};

/* The pool's threads: they make the windows lends want, and zero those given back. */
#define POOL_THREADS 8

/* The server's windows, and what of them is pinned. */
struct windows {
	pthread_mutex_t mu;
	pthread_cond_t cv;      /* the pool's threads: work for them */
	pthread_cond_t zeroed;  /* a window given back is free again */
	struct window *list;
	size_t pinned, pinned_max;
	/* The pool: its bytes (made, and wanted) and its thread. */
	size_t pooled, pool_max;
	size_t want[64];        /* sizes to make */
	struct window *dirty;   /* given back, to be zeroed */
	int nwant, stop, device;
	int keep_ms;            /* a free window unwanted this long is let go */
	long lends;             /* lent so far */
	long waits, misses;     /* lends that waited for a zeroing; that found none */
	double wait_ms;         /* the waits' time */
	pthread_t th[POOL_THREADS];
	int started;            /* threads */
};

/*
 * An eighth of the memory, at most 2 GiB, may be pinned, and as much
 * held in the pool, whose windows are pinned on GPU device's context
 * (portable to the others; -1: the server has none, and pins nothing).
 * A free window that no lend wanted for keep_ms (0: POOL_KEEP_MS) is
 * let go, so that an idle server holds little.  windows_fini waits for
 * the pool's threads and frees the pool.
 */
#define POOL_KEEP_MS 60000
void windows_init(struct windows *ws, int device, int keep_ms);
void windows_fini(struct windows *ws);

/*
 * A window of the pool of at least size bytes, lent to process pid and
 * held once (its lender's hold; window_drop gives it back), waiting a
 * moment for one being zeroed; NULL when the pool has none of about
 * that size now (and its threads make one, if the budget allows).
 */
struct window *window_lend(struct windows *ws, size_t size, pid_t pid);
/*
 * The pool, for a status: its windows and bytes, how many are lent now
 * and were, how many lends waited for a window being zeroed and for how
 * long in all, and how many asked when none was free (their runs used
 * memory of their own).
 */
struct window_pool_stats {
	int n, lent;
	size_t bytes;
	long lends, waits, misses;
	double wait_ms;
};
void window_pool_stats(struct windows *ws, struct window_pool_stats *st);

/*
 * The window of fd (size bytes, st its file's), for a connection of
 * process pid: the one mapped for it already, or a new mapping, held
 * once more.  NULL when it cannot be mapped, or it is the pool's and not
 * lent to pid.
 */
struct window *window_get(struct windows *ws, int fd, size_t size,
    const struct stat *st, pid_t pid);
/*
 * Lets go of w (NULL: nothing): unpinned and unmapped when nothing
 * holds it; the pool's is zeroed and goes back to the pool instead.
 */
void window_drop(struct windows *ws, struct window *w);
/*
 * Whether w is pinned for an image on GPU device now: it is pinned here
 * (portable to the other GPUs) at its second such image, while the
 * budget holds.  A window that another connection is pinning counts as
 * not pinned for this image.
 */
int window_pinned(struct windows *ws, struct window *w, int device);
/*
 * Maps the pages of n bytes at p of window w at once (the client made
 * them; write: for writing), which costs less than a fault for each;
 * best effort.  The pool's windows are mapped whole when made: nothing
 * to do for them.
 */
void window_populate(const struct window *w, void *p, size_t n, int write);

#endif
