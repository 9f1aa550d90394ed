/*
 * engine.c - the pipelined run of a tool over its jobs (see engine.h).
 *
 * Threads and what they share (all under en->mu, one condition variable):
 *
 *   readers  take the next job once they hold a free slot and marker,
 *            then for each of its images a slot from their own small
 *            set, read the image into the slot's host buffer and queue
 *            it as work; a job ends with a marker slot.
 *   lanes    take work in arrival order, filter it (GPU or CPU) into the
 *            slot's output buffer, and hand it to the writer.  On the
 *            GPU each device has LANES of them, and a lane sets its
 *            device on its own thread: the work queue is one, so a
 *            free lane of any GPU takes the next image.
 *   writer   (the caller) takes slots in input order - job by job, image
 *            by image - writes them (in a batch, hands them to a pool of
 *            encoders and tells of them in the same order), and gives
 *            each slot back to its reader.
 *   opener   opens the GPUs (one thread each, at once) while the first
 *            input is read; the lanes start once it has decided.
 *
 * A slot carries one image from reader to writer and goes back only to
 * the reader it came from.  Each reader owns a fixed number of slots, so
 * memory stays bounded, and the earliest image the writer waits for
 * always has a slot of its own: nothing waits in a circle.  Only while
 * the GPUs open may readers take more (slot_ahead), up to a byte budget,
 * each freed when it comes back.
 *
 * One image goes to one GPU.  Its strips (a tall image) stay on the
 * lane's two streams: they are written in order as their downloads end,
 * and a tool with no halo (Otsu, hysteresis) needs the whole image on
 * one device anyway.  A device that breaks (an error that sticks to its
 * context) stops the whole run, with an error that names it.
 */
#define _GNU_SOURCE             /* F_SETPIPE_SZ */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"
#include "engine.h"
#include "img.h"
#include "outfile.h"
#include "planes.h"

enum { GPU_PENDING, GPU_READY, GPU_UNUSED, GPU_FATAL };

/*
 * Slots per reader: a stream needs read, filter and write in flight at
 * once, and each GPU past the first adds LANES more (lanes_start).
 */
#define SLOTS_STREAM 4
#define SLOTS_BATCH 2
/*
 * Markers per reader, beside its slots for images: a job's end marker
 * never holds pixels, so it does not take an image's place (with one
 * image per file, it would halve the images a reader has in flight).
 */
#define MARKERS 2
/*
 * While the GPUs open (a few hundred milliseconds, in which a stream's
 * reader would fill its slots and wait), readers may take slots beyond
 * their own for up to this many bytes of images (and an eighth of the
 * machine's memory at most); each is freed when it comes back.
 */
#define AHEAD_BYTES ((size_t)512 << 20)
#define AHEAD_SLOTS 256         /* and this many slots (tiny images) */
#define LANES 2                 /* per GPU, unless GPUFILT_LANES says */
/*
 * A batch's lanes in all, shared among its GPUs (LANES each at least):
 * its images come from plain memory through the lanes' staging, and it
 * takes about four lanes copying at once to reach what the host's
 * copies allow (one H200: 344 images/s with two lanes, 431 with four,
 * the same as two GPUs of two lanes; eight lanes no more).
 */
#define LANES_BATCH 4
#define LANES_MAX 8
/* A strip carries about this many bytes of input; smaller images go whole. */
#define STRIP_BYTES (16u << 20)
/*
 * A lane's two staging buffers, pinned: an image in plain memory (a
 * batch's) crosses the bus through them, the lane copying one while the
 * other moves.  The driver's own path for plain memory does the same
 * but does not grow with threads or GPUs (bench/hostbw).
 */
#define STAGE_BYTES ((size_t)4 << 20)

/* Host memory of one image, pinned when a GPU is in use; grows, then is reused. */
struct hbuf {
	void *p;
	size_t cap;
	int pinned;
	int uses;
};

struct engine;
struct reader;

/* One image (or a job's end marker) on its way from a reader to the writer. */
struct slot {
	struct slot *next;
	struct engine *en;
	struct reader *owner;
	int job, index;         /* index: 1, 2, ... in the job; the marker's is last */
	int end;                /* the job's end marker */
	int marker;             /* a marker slot: only ever an end marker */
	int is_ahead;           /* taken while the GPUs opened (slot_ahead) */
	struct slot *ahead;     /* the next such, on en->ahead */
	size_t ahead_bytes;     /* what it counts for in en->ahead_bytes */
	int committed;          /* the marker: its job's output was committed */
	int device;             /* the GPU that filtered it; -1: the CPU */
	int failed;             /* err says why (empty: the job had failed already) */
	struct gf_err err;
	struct image in, out;
	size_t in_bytes;        /* of in as the decoder gave it (before gray in place) */
	struct hbuf inbuf, outbuf;
	int out_malloced;       /* out.px is the CPU tool's (img_free it) */
	struct gf_times t;
	/*
	 * A tall image reaches the writer while its strips are still on the
	 * GPU: partial is set, rows_done counts the rows downloaded, and
	 * lane_done says the lane is finished with it (failed and t final).
	 */
	int partial, rows_done, lane_done;
	/*
	 * Its writing: done by an encoder (encoded), then told by the writer
	 * in input order: written, or wfailed with werr.
	 */
	int written, wfailed, encoded;
	struct gf_err werr;
};

/* Slots in arrival order, linked through next; used under en->mu. */
struct fifo {
	struct slot *head, *tail;
	int n;
};

static void
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

static struct slot *
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

struct reader {
	struct engine *en;
	pthread_t th;
	struct slot *free;      /* its slots for images */
	struct slot *markers;   /* its slots for end markers */
	pthread_cond_t cv;      /* one of them came back */
	double busy_ms;
	size_t last_bytes;      /* of the last image it read */
};

/*
 * A GPU of the run: opened by its own thread while the first input is
 * read, then shared by its lanes, with what they did on it.
 */
struct device {
	struct engine *en;
	pthread_t th;
	int spawned;            /* th runs device_open_main */
	int number;             /* as asked; -1: the default device */
	int opened;             /* base is open; else err says why */
	struct gpu base;        /* its limits and shared state; lanes add streams */
	struct gf_err err;
	/* Under en->mu: */
	int taken, images;      /* images its lanes took, and filtered */
	int active;             /* lanes with an image on it now */
	double busy_since, busy_ms;     /* time with at least one */
};

/* A filter lane: on a GPU, two streams that strips alternate between. */
struct lane {
	struct engine *en;
	struct device *dev;     /* NULL: the CPU lane */
	pthread_t th;
	struct gpu sub[2];
	int nsub;
	cudaEvent_t *ev;        /* four per strip: upload, kernel, download, done */
	int nev;
	void *stage[2];         /* STAGE_BYTES each, pinned; NULL: none */
	cudaEvent_t stage_ev[2];        /* the last move of each */
	double busy_ms;
};

struct engine {
	const struct tool *tool;
	const struct gf_opts *o;
	const struct engine_job *jobs;
	int njobs;
	char *job_failed;
	/*
	 * One lock, and a condition for each kind of waiter, so that a slot
	 * passed on wakes the one thread that waits for it, not all of them
	 * (a batch on 32 cores has some 70 threads): readers wait on their
	 * own (struct reader), lanes on work_cv, the writer on writer_cv,
	 * encoders on theirs; cv is for the rest, rarer (the GPU decided,
	 * a strip's rows downloaded), and wake_all wakes every kind.
	 */
	pthread_mutex_t mu;
	pthread_cond_t cv, work_cv, writer_cv;
	int next_job;           /* the next job a reader takes */
	int readers_left;
	int stop;               /* a fatal error: start nothing more */
	struct fifo work;       /* read, for the lanes */
	struct slot *done;      /* finished, in no order */
	int gpu_state, fallback;
	struct gf_err gpu_err;
	struct device *dev;     /* ndev GPUs, once gpu_state is GPU_READY */
	int ndev;
	struct device *broken;  /* the device that stopped the run, with why */
	struct gf_err broken_err;
	size_t pinned, pinned_max;
	int strip_rows;         /* GPUFILT_STRIP_ROWS, 0: by size */
	int lanes;              /* per GPU: GPUFILT_LANES; 0: by rule (lanes_start) */
	int staging;            /* a batch: lanes stage plain memory (GPUFILT_STAGING=0: not) */
	/*
	 * Who makes a gray tool's colour input gray: the decoder, where that
	 * costs little more than colour (decode_gray: JPEG); else the GPU (0), or
	 * the reader in place (1: always, 2: when the lanes are behind).
	 */
	int decode_gray, reader_gray;
	int fail_gpu, fail_at;  /* GPUFILT_FAIL_GPU=D:K: GPU D breaks at its image K */
	struct reader *rd;
	int nreaders;
	struct lane *ln;
	int nlanes;
	struct slot *slots;     /* nslots in use, of slots_cap */
	int nslots, slots_cap;
	struct slot *ahead;     /* every slot taken ahead, linked by ahead */
	int nahead;             /* of them */
	size_t ahead_bytes, ahead_max;
};

/* Wakes every waiter of en, for a change any of them may wait on; under en->mu. */
static void
wake_all(struct engine *en)
{
	pthread_cond_broadcast(&en->cv);
	pthread_cond_broadcast(&en->work_cv);
	pthread_cond_broadcast(&en->writer_cv);
	for (int i = 0; i < en->nreaders; i++)
		pthread_cond_broadcast(&en->rd[i].cv);
}

/* ---- host buffers */

static void
hbuf_free(struct engine *en, struct hbuf *b)
{
	if (b->pinned) {
		cudaFreeHost(b->p);
		pthread_mutex_lock(&en->mu);
		en->pinned -= b->cap;
		pthread_mutex_unlock(&en->mu);
	} else {
		free(b->p);
	}
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
	ok = en->gpu_state == GPU_READY && en->pinned + n <= en->pinned_max;
	if (ok && take)
		en->pinned += n;
	pthread_mutex_unlock(&en->mu);
	return ok;
}

/*
 * At least n bytes in b.  Pinned memory moves at full bus speed, but
 * pinning costs more than one transfer gains, so a buffer is pinned from
 * its second use on (a stream reuses its buffers, a single image never
 * does), while a GPU is in use and the budget allows; else it is plain
 * memory.  NULL when out of memory.
 */
static void *
hbuf_get(struct engine *en, struct hbuf *b, size_t n)
{
	size_t cap = (n + (1u << 20) - 1) & ~(size_t)((1u << 20) - 1);
	int uses = ++b->uses, pin = uses > 1 && pinned_allow(en, cap, 0);

	if (n <= b->cap && (b->pinned || !pin))
		return b->p;
	hbuf_free(en, b);
	b->uses = uses;
	if (pin && pinned_allow(en, cap, 1)) {
		/* Portable: pinned for every GPU, since any may take the slot. */
		if (cudaSetDevice(en->dev[0].base.device) == cudaSuccess &&
		    cudaHostAlloc(&b->p, cap, cudaHostAllocPortable) == cudaSuccess) {
			b->cap = cap;
			b->pinned = 1;
			return b->p;
		}
		cudaGetLastError();
		pthread_mutex_lock(&en->mu);
		en->pinned -= cap;
		pthread_mutex_unlock(&en->mu);
	}
	b->p = img_big_alloc(cap);
	b->cap = b->p != NULL ? cap : 0;
	return b->p;
}

/*
 * Gives slot s, just read, its output buffer ahead of the filter stage,
 * when a GPU may filter it: memory that is new is touched here, on the
 * reader's thread, so that the download does not fault page by page.
 */
static void
slot_prepare_out(struct engine *en, struct slot *s)
{
	struct image o = s->in;
	void *old = s->outbuf.p;
	size_t n;
	int state;

	pthread_mutex_lock(&en->mu);
	state = en->gpu_state;
	pthread_mutex_unlock(&en->mu);
	if (state != GPU_PENDING && state != GPU_READY)
		return;
	o.channels = en->tool->gray ? 1 : s->in.channels;
	n = img_bytes(&o);
	o.px = hbuf_get(en, &s->outbuf, n);
	if (o.px != NULL && o.px != old && !s->outbuf.pinned)
		memset(o.px, 0, n);
	s->out = o;
}

/* ---- queues */

/* The free list of rd that slots like s go back to. */
static struct slot **
slot_list(struct reader *rd, int marker)
{
	return marker ? &rd->markers : &rd->free;
}

/* Whether a reader may take a slot ahead (slot_ahead); under en->mu. */
static int
ahead_allowed(const struct engine *en)
{
	return en->gpu_state == GPU_PENDING && en->ahead_bytes < en->ahead_max &&
	    en->nahead < AHEAD_SLOTS;
}

/*
 * A slot beyond rd's own for an image, while the GPUs are opening and
 * ahead_allowed, counted as the size of rd's last image; NULL if not.
 * Under en->mu.
 */
static struct slot *
slot_ahead(struct reader *rd)
{
	struct engine *en = rd->en;
	struct slot *s;

	if (!ahead_allowed(en) || (s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->en = en;
	s->owner = rd;
	s->is_ahead = 1;
	s->ahead_bytes = rd->last_bytes;
	en->ahead_bytes += s->ahead_bytes;
	en->nahead++;
	s->ahead = en->ahead;
	en->ahead = s;
	return s;
}

/* A slot of reader rd, for an image or (marker) a job's end marker. */
static struct slot *
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
	return s;
}

/*
 * The slot a reader's next image goes in, taken only once the decoder
 * knows the image's size (img_buffer's get): the end of an input takes
 * none, so a one-image file needs one slot and a marker, not two slots.
 * wait_ms: the time spent waiting for it, which is not reading.
 */
struct take {
	struct reader *rd;
	struct slot *s;
	double wait_ms;
};

static void *
slot_in_get(void *arg, size_t bytes)
{
	struct take *t = arg;

	if (t->s == NULL) {
		double t0 = gf_now_ms();
		t->s = slot_take(t->rd, 0);
		t->wait_ms += gf_now_ms() - t0;
	}
	return hbuf_get(t->rd->en, &t->s->inbuf, bytes);
}

static void
slot_give_back(struct engine *en, struct slot *s)
{
	if (s->out_malloced)
		img_free(&s->out);
	s->out_malloced = 0;
	if (s->is_ahead) {
		/* Its memory goes; the slot itself stays on en->ahead until the end. */
		hbuf_free(en, &s->inbuf);
		hbuf_free(en, &s->outbuf);
		pthread_mutex_lock(&en->mu);
		en->ahead_bytes -= s->ahead_bytes;
		pthread_mutex_unlock(&en->mu);
		return;
	}
	pthread_mutex_lock(&en->mu);
	s->next = *slot_list(s->owner, s->marker);
	*slot_list(s->owner, s->marker) = s;
	pthread_cond_signal(&s->owner->cv);
	pthread_mutex_unlock(&en->mu);
}

static void
post_work(struct engine *en, struct slot *s)
{
	pthread_mutex_lock(&en->mu);
	fifo_push(&en->work, s);
	pthread_cond_signal(&en->work_cv);
	pthread_mutex_unlock(&en->mu);
}

static void
post_done(struct engine *en, struct slot *s)
{
	pthread_mutex_lock(&en->mu);
	s->next = en->done;
	en->done = s;
	pthread_cond_signal(&en->writer_cv);
	pthread_mutex_unlock(&en->mu);
}

/* The next work for a lane; NULL when every reader has finished. */
static struct slot *
take_work(struct engine *en)
{
	struct slot *s;

	pthread_mutex_lock(&en->mu);
	while (en->work.head == NULL && en->readers_left > 0)
		pthread_cond_wait(&en->work_cv, &en->mu);
	s = fifo_pop(&en->work);
	pthread_mutex_unlock(&en->mu);
	return s;
}

static int
job_failed(struct engine *en, int job)
{
	int f;

	pthread_mutex_lock(&en->mu);
	f = en->job_failed[job] || en->stop;
	pthread_mutex_unlock(&en->mu);
	return f;
}

/* ---- read stage */

/*
 * Whether a reader should make slot s gray itself: the tool works on
 * gray, s is colour, and (reader_gray 2) the lanes are not ready or have
 * as many images waiting as there are lanes.  A batch uploads from plain
 * memory, so a colour image made gray goes up a third the size; but
 * when the readers are what the run waits for (PNG), the GPU does it.
 */
static int
reader_makes_gray(struct engine *en, const struct slot *s)
{
	int yes;

	if (en->reader_gray == 0 || s->in.channels == 1)
		return 0;
	pthread_mutex_lock(&en->mu);
	yes = en->reader_gray == 1 || en->gpu_state != GPU_READY ||
	    en->work.n >= en->nlanes;
	pthread_mutex_unlock(&en->mu);
	return yes;
}

/* A bigger pipe buffer means fewer wake-ups per frame; best effort. */
static void
widen_pipe(int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
		(void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
}

/* Opens the input: a path, or standard input for NULL or "-". */
static FILE *
open_input(const char *input, const char **name, struct gf_err *e)
{
	struct stat st;
	FILE *f;

	if (input == NULL || strcmp(input, "-") == 0) {
		*name = "standard input";
		widen_pipe(STDIN_FILENO);
		return stdin;
	}
	*name = input;
	f = fopen(input, "rb");
	if (f == NULL) {
		gf_fail(e, "cannot open %s: %s", input, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		gf_fail(e, "cannot read %s: it is a directory", input);
		return NULL;
	}
	return f;
}

/* Reads every image of job j, then queues its end marker. */
static void
read_job(struct reader *rd, int j)
{
	struct engine *en = rd->en;
	struct img_reader *r = NULL;
	struct take tk = {rd, NULL, 0};
	struct img_buffer b = {slot_in_get, &tk};
	struct gf_err err = {{0}};
	struct slot *s, *m;
	const char *name;
	FILE *f = open_input(en->jobs[j].input, &name, &err);
	int idx = 1, got = -1;

	if (f != NULL && img_reader_open(&r, f, name, &err) == 0) {
		img_reader_set_max_pixels(r, en->o->max_pixels);
		img_reader_set_autorotate(r, !en->o->no_autorotate);
		img_reader_set_gray(r, en->decode_gray);
		img_reader_set_buffer(r, &b);
		for (;; idx++) {
			struct image in;
			double t0 = gf_now_ms();
			if (job_failed(en, j)) {
				got = 0;
				break;
			}
			tk.wait_ms = 0;
			if ((got = img_read_next(r, &in, &err)) <= 0) {
				rd->busy_ms += gf_now_ms() - t0 - tk.wait_ms;
				break;
			}
			s = tk.s;       /* every decoder's pixels come from b */
			tk.s = NULL;
			s->in = in;
			s->in_bytes = rd->last_bytes = img_bytes(&in);
			if (reader_makes_gray(en, s))
				img_gray_in_place(&s->in);
			s->t.read = gf_now_ms() - t0 - tk.wait_ms;
			rd->busy_ms += s->t.read;
			if (en->o->strategy != GF_CPU)
				slot_prepare_out(en, s);
			s->job = j;
			s->index = idx;
			post_work(en, s);
		}
		img_reader_close(r);
	}
	if (f != NULL && f != stdin)
		fclose(f);
	if (tk.s != NULL)       /* taken for an image that then failed */
		slot_give_back(en, tk.s);
	m = slot_take(rd, 1);
	m->job = j;
	m->index = idx;
	m->end = 1;
	m->failed = got < 0;
	m->err = err;
	post_done(en, m);
}

/*
 * Whether rd can read a one-image job without waiting: it has a marker,
 * and a slot of its own or one ahead.  A reader claims a job only then,
 * so that the job the writer waits for next is never held by a reader
 * that waits for its slots to come back.  Under en->mu.
 */
static int
reader_ready(const struct reader *rd)
{
	const struct engine *en = rd->en;

	return rd->markers != NULL && (rd->free != NULL || ahead_allowed(en));
}

static void *
reader_main(void *arg)
{
	struct reader *rd = arg;
	struct engine *en = rd->en;
	int j;

	for (;;) {
		pthread_mutex_lock(&en->mu);
		while (!en->stop && en->next_job < en->njobs && !reader_ready(rd))
			pthread_cond_wait(&rd->cv, &en->mu);
		j = en->stop ? en->njobs : en->next_job;
		if (j < en->njobs)
			en->next_job++;
		pthread_mutex_unlock(&en->mu);
		if (j >= en->njobs)
			break;
		read_job(rd, j);
	}
	pthread_mutex_lock(&en->mu);
	en->readers_left--;
	wake_all(en);
	pthread_mutex_unlock(&en->mu);
	return NULL;
}

/* ---- the GPU: opening it, and one image's strips */

static void *
device_open_main(void *arg)
{
	struct device *d = arg;

	d->opened = gpu_open(&d->base, d->number, &d->err) == 0;
	return NULL;
}

/* Closes the devices that opened, and forgets them all. */
static void
devices_close(struct engine *en)
{
	for (int i = 0; i < en->ndev; i++)
		if (en->dev[i].opened)
			gpu_close(&en->dev[i].base);
	free(en->dev);
	en->dev = NULL;
	en->ndev = 0;
}

/*
 * Opens the GPUs of --device (the default one, a list, or all there
 * are, at most GF_MAX_DEVICES), each on a thread of its own, so that
 * their contexts are made at once.  0 when all opened; -1 with e naming
 * the first that did not; -2 with e when there is no GPU at all.
 */
static int
devices_open(struct engine *en, struct gf_err *e)
{
	const struct gf_opts *o = en->o;
	int n, i;

	if (gpu_count(&n, e) < 0)
		return -2;
	en->ndev = o->all_devices ? (n < GF_MAX_DEVICES ? n : GF_MAX_DEVICES) :
	    o->ndevices > 0 ? o->ndevices : 1;
	if ((en->dev = calloc((size_t)en->ndev, sizeof(*en->dev))) == NULL) {
		en->ndev = 0;
		return gf_fail(e, "out of memory");
	}
	for (i = 0; i < en->ndev; i++) {
		struct device *d = &en->dev[i];
		d->en = en;
		d->number = o->all_devices ? i : o->ndevices > 0 ? o->devices[i] : -1;
		d->spawned = en->ndev > 1 &&
		    pthread_create(&d->th, NULL, device_open_main, d) == 0;
		if (!d->spawned)
			device_open_main(d);
	}
	for (i = 0; i < en->ndev; i++)
		if (en->dev[i].spawned)
			pthread_join(en->dev[i].th, NULL);
	for (i = 0; i < en->ndev && en->dev[i].opened; i++)
		;
	if (i == en->ndev)
		return 0;
	if (en->dev[i].number >= 0 && en->dev[i].number < n)
		gf_fail(e, "cannot open GPU %d: %s", en->dev[i].number,
		    en->dev[i].err.msg);
	else
		*e = en->dev[i].err;
	devices_close(en);
	return -1;
}

/* "--device 0,2" or "--device all", as the user named the GPUs, in w. */
static void
gpu_named(const struct gf_opts *o, char *w, size_t n)
{
	size_t len = (size_t)snprintf(w, n, "--device %s",
	    o->all_devices ? "all" : "");

	for (int i = 0; i < o->ndevices && len < n; i++)
		len += (size_t)snprintf(w + len, n - len, "%s%d", i ? "," : "",
		    o->devices[i]);
}

/*
 * Whether to use the GPU: 1 yes (en->dev open), 0 the CPU (with
 * *fallback when -m auto, or any strategy with --fallback, found no GPU:
 * the reason is in e), -1 when an explicit GPU strategy, or a GPU named
 * by --device, cannot run (e says why, and names --cpu, and --fallback
 * when there is no GPU at all).
 */
static int
gpu_choose(struct engine *en, int *fallback, struct gf_err *e)
{
	const struct gf_opts *o = en->o;
	char what[GF_MAX_DEVICES * 6 + 16];
	size_t n;
	int r;

	*fallback = 0;
	if (o->strategy == GF_CPU)
		return 0;
	if ((r = devices_open(en, e)) == 0)
		return 1;
	/*
	 * -m auto with no GPU named (the default one, or all there are, if
	 * there are any), or --fallback on a machine without a GPU.
	 */
	if ((o->strategy == GF_AUTO && o->ndevices == 0 &&
	    (r == -2 || !o->all_devices)) || (o->fallback && r == -2)) {
		*fallback = 1;
		return 0;
	}
	if (o->strategy == GF_AUTO)
		gpu_named(o, what, sizeof(what));
	else
		snprintf(what, sizeof(what), "strategy '%s'",
		    gf_strategies[o->strategy].name);
	n = strlen(e->msg);
	snprintf(e->msg + n, sizeof(e->msg) - n, "; %s needs a GPU (use --cpu "
	    "for the CPU reference%s)", what,
	    r == -2 ? ", or --fallback to run it where there is no GPU" : "");
	return -1;
}

static void *
opener_main(void *arg)
{
	struct engine *en = arg;
	struct gf_err e = {{0}};
	int fallback, r = gpu_choose(en, &fallback, &e);

	pthread_mutex_lock(&en->mu);
	en->gpu_state = r > 0 ? GPU_READY : r == 0 ? GPU_UNUSED : GPU_FATAL;
	en->fallback = fallback;
	en->gpu_err = e;
	if (r < 0)
		en->stop = 1;
	wake_all(en);
	pthread_mutex_unlock(&en->mu);
	return NULL;
}

static int
gpu_decision(struct engine *en)
{
	int st;

	pthread_mutex_lock(&en->mu);
	while (en->gpu_state == GPU_PENDING)
		pthread_cond_wait(&en->cv, &en->mu);
	st = en->gpu_state;
	pthread_mutex_unlock(&en->mu);
	return st;
}

/* Rows per strip of in: the whole image unless the tool allows strips. */
static int
strip_rows(const struct engine *en, const struct image *in)
{
	size_t row = (size_t)in->width * in->channels * gf_sample_bytes(in->maxval);
	long rows;

	if (en->tool->halo < 0)
		return in->height;
	if (en->strip_rows > 0)
		return en->strip_rows;
	rows = (long)(STRIP_BYTES / row);
	if (rows < 16)
		rows = 16;
	return in->height <= 2 * rows ? in->height : (int)rows;
}

/* Four events per strip of an image of nstrips strips. */
static int
lane_events(struct lane *ln, int nstrips, struct gf_err *e)
{
	int need = 4 * nstrips;
	cudaEvent_t *ev;

	if (need <= ln->nev)
		return 0;
	ev = realloc(ln->ev, (size_t)need * sizeof(*ev));
	if (ev == NULL)
		return gf_fail(e, "out of memory");
	ln->ev = ev;
	for (; ln->nev < need; ln->nev++)
		GPU_TRY(e, cudaEventCreate(&ln->ev[ln->nev]));
	return 0;
}

/*
 * The tool's work on the planes of one strip already on the device: a
 * gray tool's on the gray, another's on each colour channel; alpha goes
 * from packed to packed_out through din unchanged, as on the CPU.
 */
static int
strip_filter(const struct tool *tl, struct gpu *g, struct slot *s, void *packed,
    void *packed_out, const struct gpu_image *din, const struct gpu_image *dout,
    struct gf_err *e)
{
	int ch = s->in.channels, alpha = ch - 1;

	if (ch == 1 || tl->gray) {
		if (ch != 1)
			GPU_TRY(e, planes_launch_gray(packed, ch, din, g->stream));
		return tl->gpu(tl->ctx, g, din, dout, &s->t, e);
	}
	for (int c = 0; c < img_colour_channels(&s->in); c++) {
		GPU_TRY(e, planes_launch_copy(packed, ch, c, din, 0, g->stream));
		if (tl->gpu(tl->ctx, g, din, dout, &s->t, e) < 0)
			return -1;
		GPU_TRY(e, planes_launch_copy(packed_out, ch, c, dout, 1, g->stream));
	}
	if (img_has_alpha(&s->in)) {
		GPU_TRY(e, planes_launch_copy(packed, ch, alpha, din, 0, g->stream));
		GPU_TRY(e, planes_launch_copy(packed_out, ch, alpha, din, 1, g->stream));
	}
	return 0;
}

/*
 * rows rows of width bytes from plain memory src (rows back to back) to
 * the device at dst (pitch dpitch), on st, through ln's staging buffers:
 * the lane copies a chunk of rows into one while the other moves.
 */
static int
stage_up(struct lane *ln, void *dst, size_t dpitch, const void *src,
    size_t width, int rows, cudaStream_t st, struct gf_err *e)
{
	int per = (int)(STAGE_BYTES / width), k = 0;

	for (int r = 0; r < rows; r += per, k ^= 1) {
		int m = rows - r < per ? rows - r : per;
		GPU_TRY(e, cudaEventSynchronize(ln->stage_ev[k]));
		memcpy(ln->stage[k], (const char *)src + (size_t)r * width,
		    (size_t)m * width);
		GPU_TRY(e, cudaMemcpy2DAsync((char *)dst + (size_t)r * dpitch, dpitch,
		    ln->stage[k], width, width, m, cudaMemcpyHostToDevice, st));
		GPU_TRY(e, cudaEventRecord(ln->stage_ev[k], st));
	}
	return 0;
}

/*
 * rows rows of width bytes from the device at src (pitch spitch) to plain
 * memory dst (rows back to back), after what st has queued: chunk i
 * moves into one staging buffer while the lane copies chunk i - 1 out of
 * the other.  Returns once all of it is in dst.
 */
static int
stage_down(struct lane *ln, void *dst, const void *src, size_t spitch,
    size_t width, int rows, cudaStream_t st, struct gf_err *e)
{
	int per = (int)(STAGE_BYTES / width), nch = (rows + per - 1) / per;

	for (int i = 0; i <= nch; i++) {
		if (i < nch) {
			int r = i * per, m = rows - r < per ? rows - r : per, k = i & 1;
			GPU_TRY(e, cudaEventSynchronize(ln->stage_ev[k]));
			GPU_TRY(e, cudaMemcpy2DAsync(ln->stage[k], width,
			    (const char *)src + (size_t)r * spitch, spitch, width, m,
			    cudaMemcpyDeviceToHost, st));
			GPU_TRY(e, cudaEventRecord(ln->stage_ev[k], st));
		}
		if (i > 0) {
			int r = (i - 1) * per, m = rows - r < per ? rows - r : per;
			int k = (i - 1) & 1;
			GPU_TRY(e, cudaEventSynchronize(ln->stage_ev[k]));
			memcpy((char *)dst + (size_t)r * width, ln->stage[k],
			    (size_t)m * width);
		}
	}
	return 0;
}

/*
 * Queues output rows y0 .. y0+n-1 of slot s on g: upload of those rows
 * and the halo rows around them, the tool's work, download of the n
 * rows.  ev: four events, recorded between the steps.
 */
static int
strip_queue(struct engine *en, struct lane *ln, struct gpu *g, struct slot *s,
    int y0, int n, cudaEvent_t *ev, struct gf_err *e)
{
	const struct image *in = &s->in;
	int halo = en->tool->halo > 0 ? en->tool->halo : 0;
	int top = y0 < halo ? y0 : halo;
	int bot = in->height - y0 - n < halo ? in->height - y0 - n : halo;
	int rows = top + n + bot, ch = in->channels, packed_out = ch > 1 && !en->tool->gray;
	size_t bps = gf_sample_bytes(in->maxval), prow = (size_t)in->width * ch * bps;
	size_t orow = packed_out ? prow : (size_t)in->width * bps;
	const char *src = (const char *)in->px + (size_t)(y0 - top) * prow;
	char *dst = (char *)s->out.px + (size_t)y0 * orow;
	struct gpu_image din, dout;
	void *pk = NULL, *pko = NULL;
	/* Plain memory goes through the lane's staging buffers (if any). */
	int stage_in = ln->stage[0] != NULL && !s->inbuf.pinned && prow <= STAGE_BYTES;
	int stage_out = ln->stage[0] != NULL && !s->outbuf.pinned && orow <= STAGE_BYTES;

	if (gpu_image_get(g, GPU_SLOT_IN, in->width, rows, in->maxval, &din, e) < 0 ||
	    gpu_image_get(g, GPU_SLOT_OUT, in->width, rows, in->maxval, &dout, e) < 0 ||
	    (ch > 1 && gpu_scratch(g, GPU_SLOT_PACKED_IN, prow * rows, &pk, e) < 0) ||
	    (packed_out && gpu_scratch(g, GPU_SLOT_PACKED_OUT, prow * rows, &pko,
	    e) < 0))
		return -1;
	GPU_TRY(e, cudaEventRecord(ev[0], g->stream));
	if (stage_in) {
		if (stage_up(ln, ch == 1 ? din.px : pk, ch == 1 ? din.pitch : prow,
		    src, prow, rows, g->stream, e) < 0)
			return -1;
	} else if (ch == 1) {
		GPU_TRY(e, cudaMemcpy2DAsync(din.px, din.pitch, src, prow, prow, rows,
		    cudaMemcpyHostToDevice, g->stream));
	} else {
		GPU_TRY(e, cudaMemcpyAsync(pk, src, prow * rows,
		    cudaMemcpyHostToDevice, g->stream));
	}
	GPU_TRY(e, cudaEventRecord(ev[1], g->stream));
	if (strip_filter(en->tool, g, s, pk, pko, &din, &dout, e) < 0)
		return -1;
	GPU_TRY(e, cudaEventRecord(ev[2], g->stream));
	if (stage_out) {
		if (stage_down(ln, dst, packed_out ? (char *)pko + top * prow :
		    (char *)dout.px + top * dout.pitch, packed_out ? prow : dout.pitch,
		    orow, n, g->stream, e) < 0)
			return -1;
	} else if (packed_out) {
		GPU_TRY(e, cudaMemcpyAsync(dst, (char *)pko + top * prow, n * prow,
		    cudaMemcpyDeviceToHost, g->stream));
	} else {
		GPU_TRY(e, cudaMemcpy2DAsync(dst, orow, (char *)dout.px +
		    top * dout.pitch, dout.pitch, orow, n, cudaMemcpyDeviceToHost,
		    g->stream));
	}
	GPU_TRY(e, cudaEventRecord(ev[3], g->stream));
	return 0;
}

/* Sums the event times of nstrips strips into t. */
static int
strip_times(struct lane *ln, int nstrips, struct gf_times *t, struct gf_err *e)
{
	for (int k = 0; k < nstrips; k++) {
		cudaEvent_t *ev = ln->ev + 4 * k;
		float up, kern, down;
		GPU_TRY(e, cudaEventElapsedTime(&up, ev[0], ev[1]));
		GPU_TRY(e, cudaEventElapsedTime(&kern, ev[1], ev[2]));
		GPU_TRY(e, cudaEventElapsedTime(&down, ev[2], ev[3]));
		t->upload += up;
		t->kernel += kern;
		t->download += down;
	}
	return 0;
}

/*
 * Hands s to the writer at once, then tells it each strip as its download
 * ends, so that the rows of a tall image are written while later strips
 * are still on the GPU.
 */
static int
strips_to_writer(struct lane *ln, struct slot *s, int rows, int nstrips,
    struct gf_err *e)
{
	struct engine *en = ln->en;

	s->partial = 1;
	post_done(en, s);
	for (int k = 0; k < nstrips; k++) {
		GPU_TRY(e, cudaEventSynchronize(ln->ev[4 * k + 3]));
		pthread_mutex_lock(&en->mu);
		s->rows_done = (k + 1) * rows < s->in.height ? (k + 1) * rows :
		    s->in.height;
		pthread_cond_broadcast(&en->cv);
		pthread_mutex_unlock(&en->mu);
	}
	return 0;
}

/*
 * The rows of a partial slot downloaded beyond row y, waiting for them;
 * -1 once the lane has finished with it (then rows_done is final).
 */
static int
rows_after(struct engine *en, struct slot *s, int y)
{
	int n;

	pthread_mutex_lock(&en->mu);
	while (s->rows_done <= y && !s->lane_done)
		pthread_cond_wait(&en->cv, &en->mu);
	n = s->lane_done && s->rows_done <= y ? -1 : s->rows_done;
	pthread_mutex_unlock(&en->mu);
	return n;
}

/* One image on the GPU, strip by strip over the lane's two streams. */
static int
lane_gpu(struct lane *ln, struct slot *s, struct gf_err *e)
{
	struct engine *en = ln->en;
	const struct image *in = &s->in;
	int rows = strip_rows(en, in), nstrips = (in->height + rows - 1) / rows, rc = 0;

	if (s->out.px == NULL)
		return gf_fail(e, "out of memory for a %d x %d image", in->width,
		    in->height);
	if (lane_events(ln, nstrips, e) < 0)
		return -1;
	for (int k = 0; k < nstrips && rc == 0; k++) {
		int y0 = k * rows, n = in->height - y0 < rows ? in->height - y0 : rows;
		rc = strip_queue(en, ln, &ln->sub[k % ln->nsub], s, y0, n, ln->ev + 4 * k,
		    e);
	}
	if (nstrips > 1 && rc == 0)
		rc = strips_to_writer(ln, s, rows, nstrips, e);
	for (int i = 0; i < ln->nsub; i++) {
		cudaError_t err = cudaStreamSynchronize(ln->sub[i].stream);
		if (err != cudaSuccess && rc == 0)
			rc = gf_fail(e, "CUDA error at %s:%d: cudaStreamSynchronize: %s",
			    __FILE__, __LINE__, cudaGetErrorString(err));
	}
	if (rc < 0 || strip_times(ln, nstrips, &s->t, e) < 0)
		return -1;
	s->t.kernel_bytes = 2.0 * img_bytes(&s->out);
	return 0;
}

static void
lane_stage_close(struct lane *ln)
{
	for (int k = 0; k < 2; k++)
		if (ln->stage[k] != NULL) {
			cudaEventDestroy(ln->stage_ev[k]);
			cudaFreeHost(ln->stage[k]);
			ln->stage[k] = NULL;
		}
}

/*
 * The lane's staging buffers and their events; without them (out of
 * pinned memory), plain memory goes through the driver's own path.
 */
static void
lane_stage_open(struct lane *ln)
{
	for (int k = 0; k < 2; k++) {
		if (cudaEventCreateWithFlags(&ln->stage_ev[k],
		    cudaEventDisableTiming) != cudaSuccess)
			break;
		if (cudaHostAlloc(&ln->stage[k], STAGE_BYTES,
		    cudaHostAllocDefault) != cudaSuccess) {
			ln->stage[k] = NULL;
			cudaEventDestroy(ln->stage_ev[k]);
			break;
		}
	}
	if (ln->stage[1] == NULL) {
		lane_stage_close(ln);
		cudaGetLastError();
	}
}

static int
lane_open(struct lane *ln, struct gf_err *e)
{
	for (ln->nsub = 0; ln->nsub < 2; ln->nsub++)
		if (gpu_open_stream(&ln->sub[ln->nsub], &ln->dev->base, e) < 0)
			return -1;
	if (ln->en->staging)
		lane_stage_open(ln);
	return 0;
}

static void
lane_close(struct lane *ln)
{
	for (int i = 0; i < ln->nev; i++)
		cudaEventDestroy(ln->ev[i]);
	free(ln->ev);
	lane_stage_close(ln);
	for (int i = 0; i < ln->nsub; i++)
		gpu_close(&ln->sub[i]);
}

/* The name of job j's input in messages. */
static const char *
job_name(const struct engine *en, int j)
{
	const char *in = en->jobs[j].input;

	return in == NULL || strcmp(in, "-") == 0 ? "standard input" : in;
}

/*
 * A lane begins an image on d: d is busy from its first lane's start to
 * its last lane's end.  1 when GPUFILT_FAIL_GPU says that this image
 * breaks d (the tests' way to make a GPU fail).
 */
static int
device_begin(struct engine *en, struct device *d)
{
	int inject;

	pthread_mutex_lock(&en->mu);
	if (d->active++ == 0)
		d->busy_since = gf_now_ms();
	inject = ++d->taken == en->fail_at && d->base.device == en->fail_gpu;
	pthread_mutex_unlock(&en->mu);
	return inject;
}

static void
device_end(struct engine *en, struct device *d, int filtered)
{
	pthread_mutex_lock(&en->mu);
	if (--d->active == 0)
		d->busy_ms += gf_now_ms() - d->busy_since;
	d->images += filtered;
	pthread_mutex_unlock(&en->mu);
}

/*
 * d is broken (slot s failed there with s->err): the run stops, and its
 * error names d and the image.  s's own message is cleared, so that the
 * failure is told once, by engine_run.
 */
static void
device_fail(struct engine *en, struct device *d, struct slot *s)
{
	pthread_mutex_lock(&en->mu);
	if (en->broken == NULL) {
		en->broken = d;
		gf_fail(&en->broken_err, "GPU %d (%s) failed on %s image %d: %s",
		    d->base.device, d->base.name, job_name(en, s->job), s->index,
		    s->err.msg);
	}
	en->stop = 1;
	wake_all(en);
	pthread_mutex_unlock(&en->mu);
	s->err.msg[0] = '\0';
}

/*
 * Slot s on the lane's GPU.  An image that fails there fails its job;
 * one that leaves the device broken (the lane could not open its
 * streams, or an error stuck to the context: a fault, a lost GPU) stops
 * the run.  With several GPUs an image's error names its GPU.
 */
static void
lane_image(struct lane *ln, struct slot *s, const struct gf_err *open_err)
{
	struct engine *en = ln->en;
	struct device *d = ln->dev;
	int rc = -1, broken = 1;

	s->device = d->base.device;
	if (open_err != NULL) {
		s->err = *open_err;
	} else if (device_begin(en, d)) {
		gf_fail(&s->err, "GPUFILT_FAIL_GPU made it fail at its image %d",
		    en->fail_at);
	} else {
		rc = lane_gpu(ln, s, &s->err);
		broken = rc < 0 && cudaDeviceSynchronize() != cudaSuccess;
	}
	s->failed = rc < 0;
	if (open_err == NULL)
		device_end(en, d, rc == 0);
	if (broken)
		device_fail(en, d, s);
	else if (s->failed && en->ndev > 1) {
		struct gf_err e = s->err;
		gf_fail(&s->err, "GPU %d (%s): %s", d->base.device, d->base.name,
		    e.msg);
	}
}

/*
 * Slot s on the CPU: the tool's filter, on the gray of a colour image
 * when the tool works on gray.
 */
static int
cpu_image(const struct tool *tl, struct slot *s)
{
	struct image gray = {0};
	int ret;

	if (tl->gray && s->in.channels != 1 &&
	    img_to_gray(&s->in, &gray, &s->err) < 0)
		return -1;
	ret = tl->cpu(tl->ctx, gray.px != NULL ? &gray : &s->in, &s->out, &s->t,
	    &s->err);
	img_free(&gray);
	return ret;
}

static void *
lane_main(void *arg)
{
	struct lane *ln = arg;
	struct engine *en = ln->en;
	const struct tool *tl = en->tool;
	struct gf_err open_err = {{0}};
	int opened = ln->dev == NULL || lane_open(ln, &open_err) == 0;
	struct slot *s;

	while ((s = take_work(en)) != NULL) {
		double t0 = gf_now_ms();
		if (job_failed(en, s->job)) {
			s->failed = 1;
		} else if (ln->dev != NULL) {
			lane_image(ln, s, opened ? NULL : &open_err);
		} else {
			s->failed = cpu_image(tl, s) < 0;
			s->out_malloced = !s->failed;
			s->t.cpu = gf_now_ms() - t0;
		}
		ln->busy_ms += gf_now_ms() - t0;
		if (s->partial) {
			pthread_mutex_lock(&en->mu);
			s->lane_done = 1;
			pthread_cond_broadcast(&en->cv);
			pthread_mutex_unlock(&en->mu);
		} else {
			post_done(en, s);
		}
	}
	if (ln->dev != NULL)
		lane_close(ln);
	return NULL;
}

/* ---- write stage */

/* Where a job's images go, opened with its first image. */
struct sink {
	struct outfile file;
	FILE *f;                /* stdout or file.f; NULL before the first image */
	const char *name;
	enum img_format fmt;
	int quality;            /* JPEG */
	char path[PATH_MAX];
	int nwritten;
};

static int
sink_open(struct sink *k, const struct engine_job *jb, enum img_format asked,
    int quality, const struct image *first, struct gf_err *e)
{
	const char *output = jb->output;

	if (jb->outdir != NULL) {
		k->fmt = asked == IMG_FORMAT_AUTO ? IMG_FORMAT_PNM : asked;
		if (jb->input == NULL || strcmp(jb->input, "-") == 0)
			return gf_fail(e, "-o DIR needs named input files, not "
			    "standard input");
		if (batch_path(jb->outdir, jb->input, img_format_ext(k->fmt, first),
		    k->path, sizeof(k->path), e) < 0)
			return -1;
		output = k->path;
	}
	k->fmt = img_format_for(output, asked);
	k->quality = quality;
	if (output == NULL || strcmp(output, "-") == 0) {
		k->f = stdout;
		k->name = "standard output";
		widen_pipe(STDOUT_FILENO);
		return 0;
	}
	if (outfile_open(&k->file, output, e) < 0)
		return -1;
	k->f = k->file.f;
	k->name = k->file.path;
	return 0;
}

static int
sink_write(struct sink *k, const struct image *img, struct gf_err *e)
{
	if (!IMG_FORMAT_IS_PNM(k->fmt) && k->nwritten > 0)
		return gf_fail(e, "cannot write image %d to %s: a %s file holds "
		    "one image; write PNM for a stream", k->nwritten + 1, k->name,
		    img_format_name(k->fmt));
	if (img_write(k->f, img, k->fmt, k->quality, k->name, e) < 0)
		return -1;
	if (k->f == stdout && fflush(stdout) != 0)
		return gf_fail(e, "cannot write standard output: %s", strerror(errno));
	k->nwritten++;
	return 0;
}

/* Ends a job's output: commits a file when all went well, else removes it. */
static int
sink_close(struct sink *k, int ok, struct gf_err *e)
{
	int rc = 0;

	if (k->f != NULL && k->f != stdout) {
		if (ok)
			rc = outfile_commit(&k->file, e);
		else
			outfile_abort(&k->file);
	}
	memset(k, 0, sizeof(*k));
	return rc;
}

/*
 * Where one thread encodes and writes: the sink of the job it is on.  The
 * writer is one; a batch adds a pool of them, each taking the jobs whose
 * number is its own modulo the pool's size, so that the images of one job
 * stay in order while different jobs' outputs are encoded at once.
 */
struct encoder {
	struct engine *en;
	pthread_t th;
	struct sink sink;
	struct fifo queue;      /* under en->mu */
	pthread_cond_t cv;      /* queue has a slot, or stop */
	int stop;
	double busy_ms;
};

/* Job j failed: no more of it is read or written; s carries the reason. */
static void
job_fail(struct encoder *c, int j, struct slot *s, const struct gf_err *err)
{
	struct engine *en = c->en;

	pthread_mutex_lock(&en->mu);
	en->job_failed[j] = 1;
	pthread_mutex_unlock(&en->mu);
	sink_close(&c->sink, 0, NULL);
	s->wfailed = 1;
	if (err != &s->werr)
		s->werr = *err;
}

/*
 * Writes a partial slot's rows as they arrive when its output is a PNM
 * file (which a failure can still withdraw); else, and to the end, waits
 * for the lane.  1 when written, 0 when not yet, -1 with e on an error.
 */
static int
write_partial(struct encoder *c, struct slot *s, struct gf_err *e)
{
	struct sink *k = &c->sink;
	int stream = IMG_FORMAT_IS_PNM(k->fmt) && k->f != stdout;
	int y = 0, n;

	while ((n = rows_after(c->en, s, y)) >= 0) {
		if (stream && img_write_rows(k->f, &s->out, k->fmt, y, n,
		    k->name, e) < 0)
			break;
		y = n;
	}
	rows_after(c->en, s, INT_MAX);
	if (n >= 0)
		return -1;
	if (!stream || s->failed)
		return 0;
	k->nwritten++;
	return 1;
}

/* One filtered image of job j: written (s->written), or the job failed. */
static void
write_image(struct encoder *c, int j, struct slot *s)
{
	struct engine *en = c->en;
	struct gf_err e = {{0}};
	double t0 = gf_now_ms();
	int done = 0;

	/* A partial slot's failed is known only once its lane is done. */
	if (!s->partial && s->failed) {
		job_fail(c, j, s, &s->err);
		return;
	}
	if (c->sink.f == NULL && sink_open(&c->sink, &en->jobs[j],
	    en->o->format, en->o->quality, &s->out, &e) < 0) {
		if (s->partial)
			write_partial(c, s, &e);
		job_fail(c, j, s, &e);
		return;
	}
	if (s->partial && (done = write_partial(c, s, &e)) < 0) {
		job_fail(c, j, s, &e);
		return;
	}
	if (s->failed) {
		job_fail(c, j, s, &s->err);
		return;
	}
	if (!done && sink_write(&c->sink, &s->out, &e) < 0) {
		job_fail(c, j, s, &e);
		return;
	}
	s->t.write = gf_now_ms() - t0;
	s->written = 1;
}

/* Writes slot s (an image, or its job's end: commit what was written). */
static void
encode_slot(struct encoder *c, struct slot *s)
{
	struct engine *en = c->en;
	struct gf_err e;
	double t0 = gf_now_ms();

	if (!s->end) {
		if (!job_failed(en, s->job))
			write_image(c, s->job, s);
		else if (s->partial)
			rows_after(en, s, INT_MAX);     /* the lane's, until done */
	} else if (job_failed(en, s->job)) {
		sink_close(&c->sink, 0, NULL);
	} else if (s->failed) {
		job_fail(c, s->job, s, &s->err);
	} else if (sink_close(&c->sink, 1, &e) < 0) {
		job_fail(c, s->job, s, &e);
	} else {
		s->committed = 1;
	}
	c->busy_ms += gf_now_ms() - t0;
}

static void *
encoder_main(void *arg)
{
	struct encoder *c = arg;
	struct engine *en = c->en;
	struct slot *s;

	for (;;) {
		pthread_mutex_lock(&en->mu);
		while (c->queue.head == NULL && !c->stop)
			pthread_cond_wait(&c->cv, &en->mu);
		s = fifo_pop(&c->queue);
		pthread_mutex_unlock(&en->mu);
		if (s == NULL)
			return NULL;
		encode_slot(c, s);
		pthread_mutex_lock(&en->mu);
		s->encoded = 1;
		pthread_cond_signal(&en->writer_cv);
		pthread_mutex_unlock(&en->mu);
	}
}

/* The writer's state across a run: its encoders, and what waits to be told. */
struct writer {
	struct engine *en;
	const struct engine_hooks *h;
	struct engine_stats *st;
	struct encoder *enc;    /* nenc of them; enc[0] is the writer's own */
	int nenc;
	/* Slots given to encoders, to be told of in that order: a ring. */
	struct slot **pending;
	int first, npending, cap;
	int failures;
	int committed;          /* jobs whose output was committed whole */
	double t0;
};

/* Tells what became of slot s, in input order, and gives it back. */
static void
report_slot(struct writer *w, struct slot *s, int *jobs_done)
{
	struct engine *en = w->en;

	if (s->wfailed) {
		w->failures++;
		if (w->h->error != NULL && s->werr.msg[0] != '\0')
			w->h->error(w->h->arg, s->werr.msg);
	} else if (s->written) {
		w->st->write_ms += s->t.write;
		w->st->images++;
		w->st->bytes_in += s->in_bytes;
		if (w->h->image != NULL)
			w->h->image(w->h->arg, job_name(en, s->job), s->index,
			    &s->out, &s->t, s->device);
	}
	if (s->end)
		(*jobs_done)++;
	w->committed += s->committed;
	slot_give_back(en, s);
	if (w->h->progress != NULL)
		w->h->progress(w->h->arg, *jobs_done, en->njobs, w->st->images,
		    gf_now_ms() - w->t0);
}

/*
 * The next event for the writer: 1 with *s the slot (job, index) when it
 * is filtered, 2 when the oldest pending slot is written, 0 when the run
 * has stopped before job began.
 */
static int
writer_wait(struct writer *w, int job, int index, struct slot **s)
{
	struct engine *en = w->en;
	struct slot **pp;
	int what = 0;

	pthread_mutex_lock(&en->mu);
	for (;;) {
		if (w->npending > 0 && w->pending[w->first]->encoded) {
			what = 2;
			break;
		}
		for (pp = &en->done; *pp != NULL; pp = &(*pp)->next)
			if ((*pp)->job == job && (*pp)->index == index)
				break;
		if ((*s = *pp) != NULL) {
			*pp = (*s)->next;
			what = 1;
			break;
		}
		if (en->stop && job >= en->next_job && w->npending == 0)
			break;
		pthread_cond_wait(&en->writer_cv, &en->mu);
	}
	pthread_mutex_unlock(&en->mu);
	return what;
}

/* Hands s to the encoder of its job, to be told of once it is written. */
static void
dispatch(struct writer *w, struct slot *s)
{
	struct engine *en = w->en;
	struct encoder *c = &w->enc[s->job % w->nenc];

	pthread_mutex_lock(&en->mu);
	fifo_push(&c->queue, s);
	w->pending[(w->first + w->npending++) % w->cap] = s;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&en->mu);
}

/*
 * Writes every job's images in order; returns the jobs that failed.  With
 * one encoder the writer writes each slot itself; with a pool it hands
 * them out and tells of them as they come back, in the same order.
 */
static int
writer_run(struct writer *w)
{
	struct engine *en = w->en;
	struct slot *s;
	int j = 0, idx = 1, done = 0, what;

	while (j < en->njobs || w->npending > 0) {
		what = writer_wait(w, j < en->njobs ? j : INT_MAX, idx, &s);
		if (what == 0)
			break;
		if (what == 2) {
			pthread_mutex_lock(&en->mu);
			s = w->pending[w->first];
			w->first = (w->first + 1) % w->cap;
			w->npending--;
			pthread_mutex_unlock(&en->mu);
			report_slot(w, s, &done);
			continue;
		}
		if (s->end) {
			j++;
			idx = 1;
		} else {
			idx++;
		}
		if (w->nenc > 1) {
			dispatch(w, s);
		} else {
			encode_slot(&w->enc[0], s);
			report_slot(w, s, &done);
		}
	}
	return w->failures;
}

/* Starts a pool of encoders for a batch; one, the writer itself, otherwise. */
static int
writer_open(struct writer *w, struct engine *en, struct gf_err *e)
{
	w->nenc = en->njobs > 1 ? en->nreaders : 1;
	w->cap = en->nslots + AHEAD_SLOTS;      /* each slot pending at most once */
	w->enc = calloc((size_t)w->nenc, sizeof(*w->enc));
	w->pending = calloc((size_t)w->cap, sizeof(*w->pending));
	if (w->enc == NULL || w->pending == NULL)
		return gf_fail(e, "out of memory");
	for (int i = 0; i < w->nenc; i++) {
		w->enc[i].en = en;
		pthread_cond_init(&w->enc[i].cv, NULL);
	}
	for (int i = 0; w->nenc > 1 && i < w->nenc; i++)
		if (pthread_create(&w->enc[i].th, NULL, encoder_main, &w->enc[i]) != 0)
			return gf_fail(e, "cannot start a thread: %s", strerror(errno));
	return 0;
}

/* Stops the encoders and adds up their busy time. */
static void
writer_close(struct writer *w)
{
	struct engine *en = w->en;

	pthread_mutex_lock(&en->mu);
	for (int i = 0; i < w->nenc; i++) {
		w->enc[i].stop = 1;
		pthread_cond_signal(&w->enc[i].cv);
	}
	pthread_mutex_unlock(&en->mu);
	for (int i = 0; w->nenc > 1 && i < w->nenc; i++)
		pthread_join(w->enc[i].th, NULL);
	for (int i = 0; i < w->nenc; i++) {
		sink_close(&w->enc[i].sink, 0, NULL);
		pthread_cond_destroy(&w->enc[i].cv);
	}
	w->st->writers = w->nenc;
	free(w->enc);
	free(w->pending);
}

/* ---- the run */

static int
engine_init(struct engine *en, const struct tool *t, const struct gf_opts *o,
    const struct engine_job *jobs, int njobs, struct gf_err *e)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), pages = sysconf(_SC_PHYS_PAGES);
	const char *env = getenv("GPUFILT_STRIP_ROWS");
	int per, pin;

	memset(en, 0, sizeof(*en));
	if (njobs < 1)
		return gf_fail(e, "nothing to run: no input");
	en->tool = t;
	en->o = o;
	en->jobs = jobs;
	en->njobs = njobs;
	en->nreaders = o->threads > 0 ? o->threads : cpus > 0 ? (int)cpus : 1;
	if (en->nreaders > njobs)
		en->nreaders = njobs;
	per = njobs == 1 ? SLOTS_STREAM : SLOTS_BATCH;
	en->nslots = en->nreaders * (per + MARKERS);
	/* Room for a stream's slots of more GPUs; they are linked in later. */
	/*
	 * Only a batch stages: a stream's buffers are pinned from their
	 * second use, and one thread's copy through its own buffers is no
	 * faster than the driver's (bench/hostbw), so for one image the
	 * pinned allocations would only delay the start.
	 */
	en->staging = njobs > 1 &&
	    ((env = getenv("GPUFILT_STAGING")) == NULL || strcmp(env, "0") != 0);
	en->lanes = (env = getenv("GPUFILT_LANES")) != NULL ? atoi(env) : 0;
	if (en->lanes < 1 || en->lanes > LANES_MAX)
		en->lanes = 0;
	en->slots_cap = en->nslots +
	    (njobs == 1 ? (en->lanes > 0 ? en->lanes : LANES) * GF_MAX_DEVICES : 0);
	en->job_failed = calloc((size_t)njobs, 1);
	en->rd = calloc((size_t)en->nreaders, sizeof(*en->rd));
	en->slots = calloc((size_t)en->slots_cap, sizeof(*en->slots));
	if (en->job_failed == NULL || en->rd == NULL || en->slots == NULL)
		return gf_fail(e, "out of memory");
	for (int i = 0; i < en->nslots; i++) {
		struct slot *s = &en->slots[i];
		s->en = en;
		s->owner = &en->rd[i / (per + MARKERS)];
		s->marker = i % (per + MARKERS) >= per;
		s->next = *slot_list(s->owner, s->marker);
		*slot_list(s->owner, s->marker) = s;
	}
	/*
	 * Pinned memory is the machine's: an eighth of it at most, 2 GiB tops,
	 * and only for one input (a stream, or one image), whose few buffers
	 * are reused image after image.  A batch keeps dozens of buffers in
	 * flight, one per decoding thread, and pinning them cost more (the
	 * driver pins one buffer at a time) than their pageable uploads.
	 */
	en->pinned_max = pages > 0 ? (size_t)pages * sysconf(_SC_PAGESIZE) / 8 : 0;
	if (en->pinned_max > ((size_t)2 << 30))
		en->pinned_max = (size_t)2 << 30;
	en->ahead_max = en->pinned_max < AHEAD_BYTES ? en->pinned_max : AHEAD_BYTES;
	if ((env = getenv("GPUFILT_READ_AHEAD")) != NULL && strcmp(env, "0") == 0)
		en->ahead_max = 0;
	/* GPUFILT_PINNED: 0, never; 1, a batch's buffers too (for the bench). */
	pin = njobs == 1;
	if ((env = getenv("GPUFILT_PINNED")) != NULL &&
	    (strcmp(env, "0") == 0 || strcmp(env, "1") == 0))
		pin = env[0] == '1';
	if (!pin)
		en->pinned_max = 0;
	/*
	 * A decoder that makes gray for little more than colour does (JPEG).
	 * Else, on the CPU, gray in place saves a copy; a batch's readers
	 * may help the lanes (reader_makes_gray); a stream's one reader has
	 * no time to spare.  GPUFILT_READER_GRAY=0 or 1 overrides both
	 * (tests, bench).
	 */
	en->decode_gray = t->gray;
	en->reader_gray = !t->gray ? 0 : o->strategy == GF_CPU ? 1 : njobs > 1 ? 2 : 0;
	if ((env = getenv("GPUFILT_READER_GRAY")) != NULL && t->gray)
		en->decode_gray = en->reader_gray = atoi(env) != 0;
	if ((env = getenv("GPUFILT_STRIP_ROWS")) != NULL)
		en->strip_rows = atoi(env) > 0 ? atoi(env) : 0;
	if ((env = getenv("GPUFILT_FAIL_GPU")) == NULL ||
	    sscanf(env, "%d:%d", &en->fail_gpu, &en->fail_at) != 2)
		en->fail_at = 0;
	pthread_mutex_init(&en->mu, NULL);
	pthread_cond_init(&en->cv, NULL);
	pthread_cond_init(&en->work_cv, NULL);
	pthread_cond_init(&en->writer_cv, NULL);
	for (int i = 0; i < en->nreaders; i++)
		pthread_cond_init(&en->rd[i].cv, NULL);
	en->readers_left = en->nreaders;
	return 0;
}

static void
engine_free(struct engine *en)
{
	for (int i = 0; en->slots != NULL && i < en->nslots; i++) {
		hbuf_free(en, &en->slots[i].inbuf);
		hbuf_free(en, &en->slots[i].outbuf);
	}
	while (en->ahead != NULL) {
		struct slot *s = en->ahead;
		en->ahead = s->ahead;
		hbuf_free(en, &s->inbuf);
		hbuf_free(en, &s->outbuf);
		free(s);
	}
	devices_close(en);
	for (int i = 0; en->rd != NULL && i < en->nreaders; i++)
		pthread_cond_destroy(&en->rd[i].cv);
	pthread_mutex_destroy(&en->mu);
	pthread_cond_destroy(&en->cv);
	pthread_cond_destroy(&en->work_cv);
	pthread_cond_destroy(&en->writer_cv);
	free(en->ln);
	free(en->slots);
	free(en->rd);
	free(en->job_failed);
}

/* Starts the opener and the readers; -1 if a thread cannot start. */
static int
engine_start(struct engine *en, pthread_t *opener, struct gf_err *e)
{
	if (en->o->strategy == GF_CPU)
		en->gpu_state = GPU_UNUSED;
	else if (pthread_create(opener, NULL, opener_main, en) != 0)
		return gf_fail(e, "cannot start a thread: %s", strerror(errno));
	for (int i = 0; i < en->nreaders; i++) {
		en->rd[i].en = en;
		if (pthread_create(&en->rd[i].th, NULL, reader_main, &en->rd[i]) != 0)
			return gf_fail(e, "cannot start a thread: %s", strerror(errno));
	}
	return 0;
}

/*
 * Once the GPUs are decided (state): en->lanes lanes per GPU (by
 * default LANES for a stream, LANES_BATCH shared among a batch's GPUs),
 * or one lane for the CPU (whose work is threaded already, -j) and for a run
 * that cannot start (it fails what was read).  A stream's reader gets a
 * slot more for each lane past LANES, so that every lane can hold an
 * image.  -1 if out of memory or a thread cannot start.
 */
static int
lanes_start(struct engine *en, int state, struct gf_err *e)
{
	int more;

	if (en->lanes == 0) {
		int share = en->ndev > 0 ? (LANES_BATCH + en->ndev - 1) / en->ndev : 0;
		en->lanes = en->njobs > 1 && share > LANES ? share : LANES;
	}
	more = state == GPU_READY && en->njobs == 1 ? en->lanes * en->ndev - LANES : 0;
	en->nlanes = state == GPU_READY ? en->lanes * en->ndev : 1;
	if ((en->ln = calloc((size_t)en->nlanes, sizeof(*en->ln))) == NULL)
		return gf_fail(e, "out of memory");
	pthread_mutex_lock(&en->mu);
	for (; more > 0; more--) {
		struct slot *s = &en->slots[en->nslots++];
		s->en = en;
		s->owner = &en->rd[0];
		s->next = s->owner->free;
		s->owner->free = s;
	}
	pthread_cond_broadcast(&en->rd[0].cv);
	pthread_mutex_unlock(&en->mu);
	for (int i = 0; i < en->nlanes; i++) {
		en->ln[i].en = en;
		en->ln[i].dev = state == GPU_READY ? &en->dev[i / en->lanes] : NULL;
		if (pthread_create(&en->ln[i].th, NULL, lane_main, &en->ln[i]) != 0)
			return gf_fail(e, "cannot start a thread: %s", strerror(errno));
	}
	return 0;
}

/* The run's figures, once every thread has ended, into st. */
static void
engine_stats_fill(const struct engine *en, int state, struct engine_stats *st)
{
	st->readers = en->nreaders;
	st->on_gpu = state == GPU_READY;
	st->lanes = en->nlanes;
	for (int i = 0; i < en->nreaders; i++)
		st->read_ms += en->rd[i].busy_ms;
	for (int i = 0; i < en->nlanes; i++)
		st->filter_ms += en->ln[i].busy_ms;
	st->ndevices = st->on_gpu ? en->ndev : 0;
	for (int i = 0; i < st->ndevices; i++) {
		const struct device *d = &en->dev[i];
		struct engine_device_stats *ds = &st->dev[i];
		ds->device = d->base.device;
		snprintf(ds->name, sizeof(ds->name), "%s", d->base.name);
		ds->images = d->images;
		ds->busy_ms = d->busy_ms;
	}
}

int
engine_run(const struct tool *t, const struct gf_opts *o,
    const struct engine_job *jobs, int njobs, const struct engine_hooks *hooks,
    struct engine_stats *st, struct gf_err *e)
{
	struct engine en;
	struct writer w = {0};
	pthread_t opener;
	int failures = -1, state;

	memset(st, 0, sizeof(*st));
	if (engine_init(&en, t, o, jobs, njobs, e) < 0 ||
	    engine_start(&en, &opener, e) < 0) {
		/* Threads that did start are stuck on nothing; the caller exits. */
		return -1;
	}
	w.en = &en;
	w.h = hooks;
	w.st = st;
	w.t0 = gf_now_ms();
	state = gpu_decision(&en);
	if (lanes_start(&en, state, e) < 0 || writer_open(&w, &en, e) < 0)
		return -1;
	if (state == GPU_UNUSED && en.fallback && hooks->notice != NULL)
		hooks->notice(hooks->arg, en.gpu_err.msg);
	failures = writer_run(&w);
	writer_close(&w);
	if (o->strategy != GF_CPU)
		pthread_join(opener, NULL);
	for (int i = 0; i < en.nreaders; i++)
		pthread_join(en.rd[i].th, NULL);
	for (int i = 0; i < en.nlanes; i++)
		pthread_join(en.ln[i].th, NULL);
	st->wall_ms = gf_now_ms() - w.t0;
	engine_stats_fill(&en, state, st);
	if (state == GPU_FATAL) {
		*e = en.gpu_err;
		failures = -1;
	} else if (en.broken != NULL) {
		gf_fail(e, "%s; the run stopped, and %d of %d inputs were not "
		    "written", en.broken_err.msg, njobs - w.committed, njobs);
		failures = -1;
	}
	engine_free(&en);
	return failures;
}
