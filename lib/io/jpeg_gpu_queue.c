/*
 * jpeg_gpu_queue.c - one GPU's JPEG engines shared by many threads (see
 * jpeg_gpu.h): each caller posts its JPEG and waits, and one thread of
 * the queue's decodes what has been posted as one batch.  The engines
 * reach their rate only in batches (one image a call is a sixth of it),
 * and threads that each decode on a state of their own slow one another
 * down (the hardware takes one batch at a time): so a single thread
 * decodes, and a batch is whatever arrived while the one before it was
 * decoded, up to QUEUE_ROUNDS rounds of the engines.
 *
 * That thread's time is the engines' bound, so it does nothing a caller
 * can do: each caller reads its own JPEG's header with nvJPEG's parser
 * (a parser of the queue's, borrowed) before it posts it, and a call is
 * padded to its state's size with a 16 x 16 JPEG rather than with
 * copies of a photograph.  bench/jpegdec -x measures each choice: a
 * thread that parses the headers itself loses about 13% of the engines'
 * rate, padding with copies about 19% on a typical batch, and two
 * batches on the engines at once lost more than they won.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gpu.h"
#include "jpeg_gpu.h"

/*
 * Images taken at once at most: two rounds of the engines.  nvJPEG gives
 * each engine's core an image at a time, so the time of a call grows in
 * steps of a round (an image for each): one image past a whole number
 * of rounds costs far more than one within it, and calls of whole
 * rounds decode more images a second than calls of the powers of two
 * near them (bench/jpegdec -x).  Two rounds: a batch gathers while the
 * one before it decodes, within a GPU's lanes (LANES_JPEG), and a
 * served batch or stream waits for its images to come back, sooner
 * from smaller calls.  QUEUE_MAX bounds a call on a GPU of many engines.
 */
#define QUEUE_ROUNDS 2
#define QUEUE_MAX 32

/* A caller's JPEG, on its stack while it waits. */
struct request {
	const unsigned char *p;
	size_t len;
	unsigned char *dst;
	size_t pitch;
	int width, height;      /* dst's: the engines must write no more */
	int taken;              /* 1 decoded, 0 not, -1 error (msg) */
	int done;
	char msg[sizeof(((struct gf_err *)0)->msg)];
	struct request *next;
};

struct jpeg_gpu_queue {
	struct jpeg_gpu *j;
	int device;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	struct request *head, **tail;
	int round, most;        /* a round of the engines; a call's images at most */
	struct parser *parsers;         /* free, for the callers */
	unsigned char *tiny;            /* jpeg_gpu_pad's */
	size_t tiny_len;
	int stop;
	int warmed;             /* its states set up (decoder_warm) */
	struct jpeg_gpu_queue_counts n;         /* for gpufiltd -s */
};

/* A parser that a caller borrows (jpeg_gpu_parser is a thread's own). */
struct parser {
	struct jpeg_gpu_parser *ps;
	struct parser *next;
};

/* What the thread takes next: up to q->most requests, off the list. */
static int
queue_take(struct jpeg_gpu_queue *q, struct request **r)
{
	int n = 0;

	while (q->head == NULL && !q->stop)
		pthread_cond_wait(&q->work, &q->mu);
	while (q->head != NULL && n < q->most) {
		r[n++] = q->head;
		q->head = q->head->next;
	}
	if (q->head == NULL)
		q->tail = &q->head;
	return n;
}

struct decoder {
	struct jpeg_gpu *j;
	int device;
	int round;              /* the queue's */
	/*
	 * A state for each size of call, made as first needed: a state
	 * decodes the batch size it was set up for, and setting it up again
	 * for another size costs more than the decode.  Padded, calls are
	 * whole rounds (QUEUE_ROUNDS states); unpadded, powers of two too.
	 */
	struct jpeg_gpu_batch *b[QUEUE_MAX + 1];
	/* The queue's tiny JPEG, while the engines take it, and its luma. */
	const unsigned char *tiny;
	size_t tiny_len;
	void *tiny_dst;
	cudaStream_t st;
	int has_st;
	struct jpeg_gpu_queue_counts n; /* the batch's */
};

/*
 * The images of the next call, of r left (at most QUEUE_ROUNDS rounds of
 * round).  With the tiny JPEG (tiny), r goes whole, padded up to whole
 * rounds (*pad images more) with copies of it, which cost the engines
 * next to nothing: one call.  Without it (the engines refused it),
 * nothing pads a call: the whole rounds within r go first, and of less
 * than a round the largest power of two within it.
 */
static int
queue_call_size(int r, int round, int tiny, int *pad)
{
	int up = 1;

	*pad = 0;
	if (tiny) {
		*pad = (r + round - 1) / round * round - r;
		return r + *pad;
	}
	if (r >= round)
		return r / round * round;
	while (2 * up <= r)
		up <<= 1;
	return up;
}

/* What c counted, added to to. */
static void
counts_add(struct jpeg_gpu_queue_counts *to, const struct jpeg_gpu_queue_counts *c)
{
	to->batches += c->batches;
	to->images += c->images;
	to->padding += c->padding;
	to->parse_ms += c->parse_ms;
	to->call_ms += c->call_ms;
	to->wait_ms += c->wait_ms;
}

/*
 * d's stream, its first state, and the tiny JPEG's buffer (d->tiny NULL
 * when the engines refuse it): 0, or -1 with e.
 */
static int
decoder_ready(struct decoder *d, struct gf_err *e)
{
	cudaError_t ce;
	size_t cap = 0;
	int least, greatest;

	/*
	 * The engines' stream goes first: the workers' walks and filters
	 * fill the GPU, and a batch's own work waiting behind them keeps
	 * every worker of the batch waiting.
	 */
	if (!d->has_st && ((ce = cudaDeviceGetStreamPriorityRange(&least,
	    &greatest)) != cudaSuccess || (ce = cudaStreamCreateWithPriority(&d->st,
	    cudaStreamNonBlocking, greatest)) != cudaSuccess))
		return gf_fail(e, "GPU %d: cannot make a stream for its JPEG "
		    "engines: %s", d->device, cudaGetErrorString(ce));
	d->has_st = 1;
	if (d->b[d->round] == NULL && jpeg_gpu_batch_open(d->j, &d->b[d->round],
	    e) < 0)
		return -1;
	if (d->tiny_dst == NULL && d->tiny != NULL) {
		struct jpeg_gpu_batch *b = d->b[d->round];
		if (!jpeg_gpu_supported(b, d->tiny, d->tiny_len) ||
		    !jpeg_gpu_size_is(b, d->tiny, d->tiny_len, 16, 16) ||
		    gpu_grow(&d->tiny_dst, &cap, 16 * 16, e) < 0)
			d->tiny = NULL;
	}
	return 0;
}

/*
 * Each of d's states set up ahead, by a call of the tiny JPEG at its
 * size, until q has work: the first call of a size costs several times
 * its decode, and a server's first clients would wait for it.  A state
 * not set up here (q had work first, or it failed) is at its first call.
 */
static void
decoder_warm(struct decoder *d, struct jpeg_gpu_queue *q)
{
	const unsigned char *p[QUEUE_MAX];
	unsigned char *dst[QUEUE_MAX];
	size_t len[QUEUE_MAX], pitch[QUEUE_MAX];
	int status[QUEUE_MAX];
	struct gf_err e = {0};

	if (decoder_ready(d, &e) < 0 || d->tiny == NULL)
		return;
	for (int i = 0; i < QUEUE_MAX; i++) {
		p[i] = d->tiny;
		len[i] = d->tiny_len;
		dst[i] = d->tiny_dst;
		pitch[i] = 16;
	}
	for (int k = 1, busy = 0; k <= QUEUE_ROUNDS && !busy; k++) {
		int m = k * d->round;
		pthread_mutex_lock(&q->mu);
		busy = q->head != NULL || q->stop;
		pthread_mutex_unlock(&q->mu);
		if (!busy && ((d->b[m] == NULL && jpeg_gpu_batch_open(d->j, &d->b[m],
		    &e) < 0) || jpeg_gpu_decode(d->b[m], m, p, len, dst, pitch,
		    d->st, status, &e) < 0))
			break;
	}
	if (cudaStreamSynchronize(d->st) != cudaSuccess)
		(void)cudaGetLastError();       /* the next batch says */
}

/*
 * Decodes the n requests of r (their callers found that the engines take
 * each, at its buffer's size) on d's stream, in calls of whole rounds
 * (queue_call_size), each size on its own state; taken says which were
 * decoded.
 */
static void
queue_decode(struct decoder *d, struct request **r, int n)
{
	const unsigned char *p[QUEUE_MAX];
	unsigned char *dst[QUEUE_MAX];
	size_t len[QUEUE_MAX], pitch[QUEUE_MAX];
	int status[QUEUE_MAX], rc;
	struct gf_err e = {0};
	cudaError_t ce;
	double t1 = gf_now_ms(), t2;

	rc = decoder_ready(d, &e);
	for (int i = 0; i < n; i++) {
		p[i] = r[i]->p;
		len[i] = r[i]->len;
		dst[i] = r[i]->dst;
		pitch[i] = r[i]->pitch;
	}
	for (int i = 0, m, pad; rc == 0 && i < n; i += m - pad) {
		m = queue_call_size(n - i, d->round, d->tiny != NULL, &pad);
		d->n.padding += pad;
		for (int q = n; q < n + pad; q++) {
			p[q] = d->tiny;
			len[q] = d->tiny_len;
			dst[q] = d->tiny_dst;
			pitch[q] = 16;
		}
		if (rc == 0 && ((d->b[m] == NULL && jpeg_gpu_batch_open(d->j, &d->b[m],
		    &e) < 0) || jpeg_gpu_decode(d->b[m], m, p + i, len + i, dst + i,
		    pitch + i, d->st, status + i, &e) < 0))
			rc = -1;
	}
	t2 = gf_now_ms();
	if (rc == 0 && (ce = cudaStreamSynchronize(d->st)) != cudaSuccess)
		rc = gf_fail(&e, "GPU decode of JPEGs: %s", cudaGetErrorString(ce));
	d->n.call_ms += t2 - t1;
	d->n.wait_ms += gf_now_ms() - t2;
	if (rc < 0) {
		for (int i = 0; i < n; i++) {
			r[i]->taken = -1;
			snprintf(r[i]->msg, sizeof(r[i]->msg), "%s", e.msg);
		}
		return;
	}
	for (int i = 0; i < n; i++)
		r[i]->taken = status[i] == 0;
}

static void *
queue_main(void *arg)
{
	struct jpeg_gpu_queue *q = arg;
	struct decoder d = {q->j, q->device, q->round, {NULL}, q->tiny,
	    q->tiny_len, NULL, NULL, 0, {0}};
	struct request *r[QUEUE_MAX];
	int n;

	(void)cudaSetDevice(q->device);        /* else the stream fails, and says */
	decoder_warm(&d, q);
	pthread_mutex_lock(&q->mu);
	q->warmed = 1;
	pthread_cond_broadcast(&q->done);
	while ((n = queue_take(q, r)) > 0) {
		pthread_mutex_unlock(&q->mu);
		memset(&d.n, 0, sizeof(d.n));
		d.n.batches = 1;
		d.n.images = n;
		queue_decode(&d, r, n);
		pthread_mutex_lock(&q->mu);
		counts_add(&q->n, &d.n);
		for (int i = 0; i < n; i++)
			r[i]->done = 1;
		pthread_cond_broadcast(&q->done);
	}
	pthread_mutex_unlock(&q->mu);
	for (int i = 0; i <= QUEUE_MAX; i++)
		jpeg_gpu_batch_close(d.b[i]);
	if (d.has_st)
		(void)cudaStreamDestroy(d.st);
	if (d.tiny_dst != NULL)
		(void)cudaFree(d.tiny_dst);
	return NULL;
}

int
jpeg_gpu_queue_open(struct jpeg_gpu *j, int device, struct jpeg_gpu_queue **qp,
    struct gf_err *e)
{
	struct jpeg_gpu_queue *q = calloc(1, sizeof(*q));
	int rc;

	*qp = NULL;
	if (q == NULL)
		return gf_nomem(e, "out of memory");
	q->j = j;
	q->device = device;
	/* A round: an image for each core of each engine. */
	q->round = (int)(jpeg_gpu_engines(j) * (jpeg_gpu_cores(j) > 0 ?
	    jpeg_gpu_cores(j) : 1));
	if (q->round < 1 || q->round > QUEUE_MAX / QUEUE_ROUNDS)
		q->round = QUEUE_MAX / QUEUE_ROUNDS;
	q->most = QUEUE_ROUNDS * q->round;
	q->tail = &q->head;
	q->tiny = jpeg_gpu_pad(&q->tiny_len);
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->work, NULL);
	pthread_cond_init(&q->done, NULL);
	if ((rc = pthread_create(&q->th, NULL, queue_main, q)) != 0) {
		pthread_mutex_destroy(&q->mu);
		pthread_cond_destroy(&q->work);
		pthread_cond_destroy(&q->done);
		free(q);
		return gf_fail(e, "cannot start a thread: %s", strerror(rc));
	}
	*qp = q;
	return 0;
}

int
jpeg_gpu_queue_decode(struct jpeg_gpu_queue *q, const unsigned char *p,
    size_t len, unsigned char *dst, size_t pitch, int width, int height,
    int (*meanwhile)(void *arg, struct gf_err *e), void *arg, struct gf_err *e)
{
	struct request r = {p, len, dst, pitch, width, height, 0, 0, "", NULL};
	struct parser *ps;
	double t0 = gf_now_ms();
	int go = 1, takes;

	/*
	 * The caller reads the header, not the queue's thread, whose time
	 * bounds the engines' use: with a parser of the queue's, borrowed.
	 * Without one (out of memory), the JPEG is declined: its caller
	 * decodes it on the CPU.
	 */
	pthread_mutex_lock(&q->mu);
	if ((ps = q->parsers) != NULL)
		q->parsers = ps->next;
	pthread_mutex_unlock(&q->mu);
	if (ps == NULL && (ps = calloc(1, sizeof(*ps))) != NULL) {
		struct gf_err why;
		if (jpeg_gpu_parser_open(q->j, &ps->ps, &why) < 0) {
			free(ps);
			ps = NULL;
		}
	}
	if (ps == NULL)
		return 1;
	takes = jpeg_gpu_takes(ps->ps, p, len, width, height);
	pthread_mutex_lock(&q->mu);
	ps->next = q->parsers;
	q->parsers = ps;
	q->n.parse_ms += gf_now_ms() - t0;
	pthread_mutex_unlock(&q->mu);
	if (!takes)
		return 1;
	pthread_mutex_lock(&q->mu);
	*q->tail = &r;
	q->tail = &r.next;
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->mu);
	if (meanwhile != NULL)
		go = meanwhile(arg, e);
	pthread_mutex_lock(&q->mu);
	while (!r.done)
		pthread_cond_wait(&q->done, &q->mu);
	pthread_mutex_unlock(&q->mu);
	if (go <= 0)
		return go < 0 ? -1 : 1;
	if (r.taken < 0)
		return gf_fail(e, "%s", r.msg);
	return r.taken ? 0 : 1;
}

void
jpeg_gpu_queue_counts(struct jpeg_gpu_queue *q, struct jpeg_gpu_queue_counts *c)
{
	pthread_mutex_lock(&q->mu);
	counts_add(c, &q->n);
	pthread_mutex_unlock(&q->mu);
}

void
jpeg_gpu_queue_warmed(struct jpeg_gpu_queue *q)
{
	pthread_mutex_lock(&q->mu);
	while (!q->warmed)
		pthread_cond_wait(&q->done, &q->mu);
	pthread_mutex_unlock(&q->mu);
}

void
jpeg_gpu_queue_close(struct jpeg_gpu_queue *q)
{
	if (q == NULL)
		return;
	pthread_mutex_lock(&q->mu);
	q->stop = 1;
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->th, NULL);
	while (q->parsers != NULL) {
		struct parser *ps = q->parsers;
		q->parsers = ps->next;
		jpeg_gpu_parser_close(ps->ps);
		free(ps);
	}
	free(q->tiny);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->work);
	pthread_cond_destroy(&q->done);
	free(q);
}
