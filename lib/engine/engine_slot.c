/*
 * engine_slot.c - the slots that carry images from readers to the writer,
 * the host memory they hold (pinned while a GPU is in use, within a
 * budget), and the queues that pass them between the stages.  Every
 * other stage reaches slots and buffers only through these functions.
 */
#define _GNU_SOURCE             /* F_SETPIPE_SZ */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine_int.h"

/* Wakes every waiter of en, for a change any of them may wait on; under en->mu. */
void
engine_wake(struct engine *en)
{
	pthread_cond_broadcast(&en->cv);
	pthread_cond_broadcast(&en->work_cv);
	pthread_cond_broadcast(&en->filter.widen_cv);
	pthread_cond_broadcast(&en->writer_cv);
	pthread_cond_broadcast(&en->jdec.cv);
	for (int i = 0; i < en->read.nreaders; i++)
		pthread_cond_broadcast(&en->read.rd[i].cv);
}

/* The name of job j's input in messages. */
const char *
engine_job_name(const struct engine *en, int j)
{
	const char *in = en->jobs[j].input;

	return in == NULL || strcmp(in, "-") == 0 ? "standard input" : in;
}

/* A bigger pipe buffer means fewer wake-ups per frame; best effort. */
void
engine_widen_pipe(int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
		(void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
}

/* ---- host buffers */

static void
hbuf_free(struct engine *en, struct hbuf *b)
{
	if (b->pinned) {
		/* The thread's current device, else the default one would open. */
		if (en->gpus.ndev > 0)
			cudaSetDevice(en->gpus.dev[0].base.device);
		cudaHostUnregister(b->p);
		cudaGetLastError();
		pthread_mutex_lock(&en->mu);
		en->pool.pinned -= b->cap;
		pthread_mutex_unlock(&en->mu);
	}
	if (b->shared)
		remote_mem_free(&b->shm);
	else
		free(b->p);
	memset(b, 0, sizeof(*b));
}

/*
 * Whether n more bytes may be pinned (a GPU is in use and the budget
 * holds them); with take, they are counted as pinned when they may.
 */
static int
pinned_allow(struct engine *en, size_t n, int take)
{
	int ok;

	pthread_mutex_lock(&en->mu);
	ok = en->gpus.state == GPU_READY && en->pool.pinned + n <= en->pool.pinned_max;
	if (ok && take)
		en->pool.pinned += n;
	pthread_mutex_unlock(&en->mu);
	return ok;
}

/*
 * Pins b's memory, which has been touched (its pages are there), while
 * a GPU is in use and the budget allows: registered in place, which
 * costs less than one copy of it through a lane's staging buffers.  Portable: any GPU may take the slot.  Plain
 * memory stays as it was when it cannot be.
 */
static void
hbuf_pin(struct engine *en, struct hbuf *b)
{
	if (b->pinned || b->p == NULL || !pinned_allow(en, b->cap, 1))
		return;
	if (cudaSetDevice(en->gpus.dev[0].base.device) == cudaSuccess &&
	    cudaHostRegister(b->p, b->cap, cudaHostRegisterPortable) == cudaSuccess) {
		b->pinned = 1;
		return;
	}
	cudaGetLastError();
	pthread_mutex_lock(&en->mu);
	en->pool.pinned -= b->cap;
	pthread_mutex_unlock(&en->mu);
}

/*
 * Whether new host buffers are to be shared with the server: it filters
 * the run, unless the small-run rule may yet keep it here.
 */
static int
shared_wanted(struct engine *en)
{
	int yes;

	if (en->o->remote == NULL)
		return 0;
	pthread_mutex_lock(&en->mu);
	yes = en->gpus.remote && !(en->gpus.state == GPU_PENDING &&
	    small_pending(en));
	pthread_mutex_unlock(&en->mu);
	return yes;
}

/*
 * At least n bytes in b.  Pinned memory moves at full bus speed, with no
 * copy through staging: a buffer is pinned from its second use on (a
 * batch's and a stream's slots are reused, a single image's never), when
 * the first has touched its pages; a buffer that must grow starts again
 * as plain memory.  When the server filters the run, the memory is
 * shared with it instead (a memfd it maps: remote_mem), so that it
 * reads and writes the pixels where they lie: borrowed from its pool
 * when it has one to lend (mapped and pinned there already), else made
 * here; plain memory if neither can be (the lane copies it then).  NULL
 * when out of memory.
 */
void *
hbuf_get(struct engine *en, struct hbuf *b, size_t n)
{
	size_t cap = (n + (1u << 20) - 1) & ~(size_t)((1u << 20) - 1);
	struct gf_err e;

	if (n <= b->cap) {
		if (b->uses++ > 0)
			hbuf_pin(en, b);
		return b->p;
	}
	hbuf_free(en, b);
	if (shared_wanted(en) && (remote_mem_lend(en->o->remote, &b->shm, cap) ||
	    remote_mem_alloc(&b->shm, cap, &e) == 0)) {
		b->shared = 1;
		b->p = b->shm.base;
	} else {
		b->p = img_big_alloc(cap);
	}
	b->cap = b->p != NULL ? cap : 0;
	b->uses = 1;
	return b->p;
}

/*
 * Gives slot s, just read, its output buffer ahead of the filter stage,
 * when a GPU may filter it: memory that is new is touched here, on the
 * reader's thread, so that the download does not fault page by page, and
 * pinned at once (hbuf_pin), so that the download lands in it directly.
 * Not while the small-run rule may yet choose the CPU (small_pending):
 * a lane of a GPU gives it the buffer then (slot_take_work).
 */
void
slot_prepare_out(struct engine *en, struct slot *s)
{
	struct image o = s->in;
	void *old = s->outbuf.p;
	size_t n;
	int state, later, remote;

	pthread_mutex_lock(&en->mu);
	state = en->gpus.state;
	later = state == GPU_PENDING && small_pending(en);
	remote = en->gpus.remote;
	pthread_mutex_unlock(&en->mu);
	if (later || (state != GPU_PENDING && state != GPU_READY && !remote))
		return;
	o.channels = tool_out_channels(en->tool, s->in.channels);
	o.maxval = tool_out_maxval(en->tool, s->in.maxval);
	n = img_bytes(&o);
	o.px = hbuf_get(en, &s->outbuf, n);
	/* Shared memory's pages are made where the server writes them. */
	if (o.px != NULL && o.px != old && !s->outbuf.pinned &&
	    !s->outbuf.shared) {
		memset(o.px, 0, n);
		hbuf_pin(en, &s->outbuf);
	}
	s->out = o;
}
/* ---- queues */

void
fifo_push(struct fifo *q, struct slot *s)
{
	s->next = NULL;
	if (q->tail != NULL)
		q->tail->next = s;
	else
		q->head = s;
	q->tail = s;
	q->n++;
}

struct slot *
fifo_pop(struct fifo *q)
{
	struct slot *s = q->head;

	if (s == NULL)
		return NULL;
	if ((q->head = s->next) == NULL)
		q->tail = NULL;
	q->n--;
	return s;
}


/* The free list of rd that slots like s go back to. */
static struct slot **
slot_list(struct reader *rd, int marker)
{
	return marker ? &rd->markers : &rd->free;
}

/* Whether a reader may take a slot ahead (slot_ahead); under en->mu. */
int
slot_ahead_allowed(const struct engine *en)
{
	return en->gpus.state == GPU_PENDING &&
	    en->pool.ahead_bytes < en->pool.ahead_max &&
	    en->pool.nahead < AHEAD_SLOTS;
}

/*
 * A slot beyond rd's own for an image, while the GPUs are opening and
 * slot_ahead_allowed, counted as the size of rd's last image; NULL if not.
 * Under en->mu.
 */
static struct slot *
slot_ahead(struct reader *rd)
{
	struct engine *en = rd->en;
	struct slot *s;

	if (!slot_ahead_allowed(en) || (s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->en = en;
	s->owner = rd;
	s->is_ahead = 1;
	s->ahead_bytes = rd->last_bytes;
	en->pool.ahead_bytes += s->ahead_bytes;
	en->pool.nahead++;
	s->ahead = en->pool.ahead;
	en->pool.ahead = s;
	return s;
}

/* A slot of reader rd, for an image or (marker) a job's end marker. */
struct slot *
slot_take(struct reader *rd, int marker)
{
	struct engine *en = rd->en;
	struct slot **list = slot_list(rd, marker), *s = NULL;

	pthread_mutex_lock(&en->mu);
	while (*list == NULL && (marker || (s = slot_ahead(rd)) == NULL))
		pthread_cond_wait(&rd->cv, &en->mu);
	if (s == NULL) {
		s = *list;
		*list = s->next;
	}
	pthread_mutex_unlock(&en->mu);
	s->next = NULL;
	s->end = s->committed = s->failed = s->out_malloced = 0;
	s->device = -1;
	s->partial = s->rows_done = s->lane_done = 0;
	s->written = s->wfailed = s->encoded = 0;
	s->werr.msg[0] = '\0';
	s->err.msg[0] = '\0';
	memset(&s->t, 0, sizeof(s->t));
	memset(&s->in, 0, sizeof(s->in));
	memset(&s->out, 0, sizeof(s->out));
	memset(&s->bits, 0, sizeof(s->bits));
	s->ybuf = NULL;
	s->cpu_px = NULL;
	return s;
}

/*
 * A frame of the decode pool is out of flight: its bytes leave the
 * pool's count, and its reader, which may wait for room, is woken.
 * Under en->mu.
 */
static void
split_release(struct engine *en, struct slot *s)
{
	if (s->split_bytes == 0)
		return;
	en->split.held -= s->split_bytes;
	s->split_bytes = 0;
	pthread_cond_signal(&s->owner->cv);
}

void
slot_give_back(struct engine *en, struct slot *s)
{
	int ended;

	if (s->out_malloced)
		img_free(&s->out);
	s->out_malloced = 0;
	img_icc_free(&s->icc);
	if (s->is_ahead) {
		/* Its memory goes; the slot itself stays on en->pool.ahead until the end. */
		hbuf_free(en, &s->inbuf);
		hbuf_free(en, &s->outbuf);
		free(s->frame.p);
		memset(&s->frame, 0, sizeof(s->frame));
		pthread_mutex_lock(&en->mu);
		en->pool.ahead_bytes -= s->ahead_bytes;
		split_release(en, s);
		pthread_mutex_unlock(&en->mu);
		return;
	}
	pthread_mutex_lock(&en->mu);
	split_release(en, s);
	s->next = *slot_list(s->owner, s->marker);
	*slot_list(s->owner, s->marker) = s;
	pthread_cond_signal(&s->owner->cv);
	/* Else slots_let_go_idle, which took the list with it, frees it. */
	ended = en->pool.letting_go;
	pthread_mutex_unlock(&en->mu);
	if (ended)
		slot_let_go(en, s);
}

/*
 * The last reader has ended: the slots on the readers' free lists are
 * taken no more, and what they hold goes (slot_let_go).  The slots still
 * in flight let go of theirs as they come back (slot_give_back).
 */
void
slots_let_go_idle(struct engine *en)
{
	struct slot *idle = NULL, *s;

	/*
	 * The slots on the lists now, taken off them (no reader takes one
	 * again); a slot given back after this lets go of its own
	 * (slot_give_back).  So each is let go of by one thread, once.
	 */
	pthread_mutex_lock(&en->mu);
	for (int i = 0; i < en->read.nreaders; i++) {
		struct reader *rd = &en->read.rd[i];
		while ((s = rd->free) != NULL) {
			rd->free = s->next;
			s->next = idle;
			idle = s;
		}
	}
	en->pool.letting_go = 1;
	pthread_mutex_unlock(&en->mu);
	while ((s = idle) != NULL) {
		idle = s->next;
		slot_let_go(en, s);
	}
}

/*
 * Frees what slot s holds that no image will use again: the readers
 * have ended.  Taking down a buffer's pages costs about as much as
 * making them, and a big run's slots hold gigabytes: freed here, as the
 * last images are told, they cost the run nothing at its end.  Pinned
 * buffers wait for the end (slot_pool_free): unpinning them while the
 * lanes work would hold up the GPU's other calls.
 */
void
slot_let_go(struct engine *en, struct slot *s)
{
	if (!s->inbuf.pinned)
		hbuf_free(en, &s->inbuf);
	if (!s->outbuf.pinned)
		hbuf_free(en, &s->outbuf);
}

void
slot_post_work(struct engine *en, struct slot *s)
{
	pthread_mutex_lock(&en->mu);
	if (en->jdec.remote && s->bits.len > 0)
		en->jdec.unsent++;      /* served_ready's counts */
	fifo_push(&en->work, s);
	pthread_cond_signal(&en->work_cv);
	pthread_mutex_unlock(&en->mu);
}

void
slot_post_done(struct engine *en, struct slot *s)
{
	pthread_mutex_lock(&en->mu);
	s->next = en->done;
	en->done = s;
	pthread_cond_signal(&en->writer_cv);
	pthread_mutex_unlock(&en->mu);
}

/*
 * The next work for a lane of GPU d (NULL: the CPU lane): what d's JPEG
 * engines decoded first, else the next read, with its output buffer;
 * NULL when every reader and decoder has finished.
 */
struct slot *
slot_take_work(struct engine *en, struct device *d)
{
	struct slot *s;

	pthread_mutex_lock(&en->mu);
	en->filter.idle++;
	while (en->work.head == NULL && (d == NULL || d->decoded.head == NULL) &&
	    (en->readers_left > 0 || en->jdec.queue.n > 0 || en->jdec.busy > 0))
		pthread_cond_wait(&en->work_cv, &en->mu);
	en->filter.idle--;
	if (d != NULL && d->decoded.head != NULL) {
		s = fifo_pop(&d->decoded);
	} else if ((s = fifo_pop(&en->work)) != NULL && en->jdec.remote &&
	    s->bits.len > 0) {
		en->jdec.unsent--;      /* served_ready's counts */
		en->jdec.sent++;
	}
	pthread_mutex_unlock(&en->mu);
	if (s != NULL && d != NULL && s->out.px == NULL)
		slot_prepare_out(en, s);        /* read while the rule waited */
	return s;
}

int
engine_job_failed(struct engine *en, int job)
{
	int f;

	pthread_mutex_lock(&en->mu);
	f = en->job_failed[job] || en->stop;
	pthread_mutex_unlock(&en->mu);
	return f;
}
/*
 * The rows of a partial slot downloaded beyond row y, waiting for them;
 * -1 once the lane has finished with it (then rows_done is final).
 */
int
slot_rows_after(struct engine *en, struct slot *s, int y)
{
	int n;

	pthread_mutex_lock(&en->mu);
	while (s->rows_done <= y && !s->lane_done)
		pthread_cond_wait(&en->cv, &en->mu);
	n = s->lane_done && s->rows_done <= y ? -1 : s->rows_done;
	pthread_mutex_unlock(&en->mu);
	return n;
}

/* ---- the pool */

/*
 * The slots of every reader: per for images and MARKERS for end markers
 * each, with room for what slot_pool_add gives later.  -1 when out of
 * memory.
 */
int
slot_pool_init(struct engine *en, int per)
{
	struct slot_pool *p = &en->pool;
	int lanes = en->filter.per_gpu > 0 ? en->filter.per_gpu : LANES;
	int nr = en->read.nreaders;

	p->nslots = nr * (per + MARKERS);
	p->slots_cap = p->nslots;
	if (en->njobs == 1)     /* a stream's lanes on more GPUs, its splits */
		p->slots_cap += lanes * GF_MAX_DEVICES + SLOTS_SPLIT *
		    en->split.threads + (en->jdec.remote ? LANES_JPEG *
		    GF_MAX_DEVICES : 0);
	else if (en->jdec.remote)       /* lanes_start: a slot, a marker a lane */
		p->slots_cap += 2 * (LANES_JPEG * GF_MAX_DEVICES + nr);
	else if (en->jdec.wanted)       /* jdec_post */
		p->slots_cap += nr * 2 * SLOTS_JPEG;
	if ((p->slots = calloc((size_t)p->slots_cap, sizeof(*p->slots))) == NULL)
		return -1;
	for (int i = 0; i < p->nslots; i++) {
		struct slot *s = &p->slots[i];
		s->en = en;
		s->owner = &en->read.rd[i / (per + MARKERS)];
		s->marker = i % (per + MARKERS) >= per;
		s->next = *slot_list(s->owner, s->marker);
		*slot_list(s->owner, s->marker) = s;
	}
	return 0;
}

/*
 * more slots for reader rd's images, or (marker) its end markers: a
 * stream on more lanes, a batch whose JPEGs go to the GPUs' engines;
 * within the room slot_pool_init made.
 */
void
slot_pool_add(struct engine *en, struct reader *rd, int more, int marker)
{
	struct slot_pool *p = &en->pool;

	pthread_mutex_lock(&en->mu);
	for (; more > 0 && p->nslots < p->slots_cap; more--) {
		struct slot *s = &p->slots[p->nslots++];
		s->en = en;
		s->owner = rd;
		s->marker = marker;
		s->next = *slot_list(rd, marker);
		*slot_list(rd, marker) = s;
	}
	pthread_cond_broadcast(&rd->cv);
	pthread_mutex_unlock(&en->mu);
}

/* Frees every slot's memory, and the slots taken ahead. */
void
slot_pool_free(struct engine *en)
{
	struct slot_pool *p = &en->pool;

	for (int i = 0; p->slots != NULL && i < p->nslots; i++) {
		hbuf_free(en, &p->slots[i].inbuf);
		hbuf_free(en, &p->slots[i].outbuf);
		free(p->slots[i].frame.p);
		img_icc_free(&p->slots[i].icc);
	}
	while (p->ahead != NULL) {
		struct slot *s = p->ahead;
		p->ahead = s->ahead;
		hbuf_free(en, &s->inbuf);
		hbuf_free(en, &s->outbuf);
		free(s->frame.p);
		img_icc_free(&s->icc);
		free(s);
	}
	free(p->slots);
}
