/*
 * server_int.h - what the server's files share: server.c (a
 * connection's messages), server_gpu.c (its GPUs, their workers and
 * JPEG engines) and server_loop.c (the listening socket, a thread for
 * each connection, the idle time and the stop).
 */
#ifndef GF_SERVER_INT_H
#define GF_SERVER_INT_H

#include <pthread.h>
#include <sys/types.h>

#include "engine.h"
#include "gpu.h"
#include "jpeg_gpu.h"
#include "proto.h"
#include "server.h"
#include "window.h"

/*
 * Workers per GPU: images filtered on it at once, and its memory's
 * bound.  As many as a served batch's lanes on a GPU when its engines
 * decode the batch's JPEGs (engine_int.h's LANES_JPEG): each waits with
 * its JPEG while the engines decode the others', up to two rounds of
 * the engines a call (jpeg_gpu_queue.c's QUEUE_ROUNDS).
 */
#define WORKERS 32
/*
 * Workers a GPU makes as soon as it is open, after its JPEG engines,
 * before any client asks (sdev_warm): enough for xargs -P 16 of single
 * images, whose first burst otherwise pays for making them.
 */
#define WORKERS_WARM 16

/* A GPU the server keeps open, and its workers. */
struct sdev {
	struct server *srv;
	struct gpu base;
	int opened;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct engine_worker *free[WORKERS];
	int nfree, nmade;       /* idle, and made (idle or at work) */
	int images;             /* filtered here (mu) */
	/* Its JPEG engines, opened by sdev_warm or at its first JPEG (mu): */
	struct jpeg_gpu *jpeg;
	struct jpeg_gpu_queue *jq;      /* its thread, which the workers share */
	int jpeg_state;         /* JPEG_* */
	char why[512];          /* why it takes no more work ("" while it does) */
	pthread_t warm;         /* sdev_warm's thread, while warm_started */
	int warm_started, warm_done, closing;
};

/* An sdev's JPEG engines: not opened yet, being opened, open, none (said in the log). */
enum { JPEG_NOT_YET, JPEG_OPENING, JPEG_OPEN, JPEG_NONE };

struct server {
	struct server_opts o;
	struct sdev dev[GF_MAX_DEVICES];
	int ndev;
	char why[512];          /* no GPU: why */
	double t0;
	pthread_mutex_t mu;     /* the counts below */
	pthread_cond_t cv;      /* a connection ended */
	int clients;            /* connections now */
	int socks[4096];        /* theirs, to end them (-1: free) */
	long runs, images;
	long jpegs, declined;   /* JPEGs decoded on the engines, and declined */
	double last;            /* when the last connection ended */
	int stop;               /* a client asked it to stop */
	struct windows wins;    /* the clients' windows (window.h) */
};

/* A client's connection. */
struct server_conn {
	struct server *srv;
	int sock, slot;
	pid_t pid;              /* the client's (SO_PEERCRED) */
	void *ctx;              /* its tool's options (cli_tool_build's) */
	struct tool tool;
	const struct gf_opts *o;
	int strip_rows;
	int gpus[PROTO_MAX_GPUS];       /* the run's GPUs: indices of srv->dev */
	int ngpus;
	struct window *win[PROTO_WINDOWS];
	struct window *lent[PROTO_WINDOWS];     /* borrowed from the pool */
	int nlent;
	int lane;               /* a lane's (else the run's hello: its lends) */
	int images;             /* filtered for it */
	char *buf;              /* a message */
};

/*
 * server_gpu.c: GPU number of the server's opened as d (sdev_close
 * releases it, after its workers and engines); a worker of d (made if
 * fewer than WORKERS are; waits while all are at work; NULL with e when
 * d is lost or a worker cannot be made) and its return (lost: d's
 * context is lost, and the server ends); d's JPEG engines, opened at the
 * first call (NULL: it has none).  sdev_warm, once d is open and before
 * any client comes, opens d's JPEG engines and makes its first
 * WORKERS_WARM workers on a thread of its own, which sdev_close joins.
 */
int sdev_open(struct sdev *d, int number, struct gf_err *e);
void sdev_warm(struct sdev *d);
void sdev_close(struct sdev *d);
struct engine_worker *worker_take(struct sdev *d, struct gf_err *e);
void worker_give(struct sdev *d, struct engine_worker *w, int lost);
struct jpeg_gpu_queue *sdev_jpeg(struct server *s, struct sdev *d);

/* A line for the server's log (server_opts.log), if it keeps one. */
void server_log(struct server *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
