/*
 * engine_write.c - the write stage: the writer (the run's own thread)
 * takes slots in input order, writes each job's images to its output
 * (a batch hands them to a pool of encoders, one job per encoder at a
 * time) and tells of them, in the same order, through the hooks.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"
#include "engine_int.h"
#include "outfile.h"

/* Where a job's images go, opened with its first image. */
struct sink {
	struct outfile file;
	FILE *f;                /* stdout or file.f; NULL before the first image */
	const char *name;
	int regular;            /* f is a regular file (sink_send may use it) */
	enum img_format fmt;
	int quality;            /* JPEG */
	char path[PATH_MAX];
	int nwritten;
};

/* Whether f is a regular file. */
static int
is_regular(FILE *f)
{
	struct stat st;

	return fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
}

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
		k->regular = is_regular(stdout);
		engine_widen_pipe(STDOUT_FILENO);
		return 0;
	}
	if (outfile_open(&k->file, output, e) < 0)
		return -1;
	k->f = k->file.f;
	k->name = k->file.path;
	k->regular = is_regular(k->f);
	return 0;
}

/*
 * img as PNM whose samples lie as they are in m, memory shared with the
 * server, to a regular file: the header written here, the samples by the
 * kernel from m's file (remote_mem_send), so that the pages the server
 * wrote need not come into this process's mapping, which each would take
 * in turn.  0; 1 when the output or the format is not such (nothing was
 * written); -1 with e.
 */
static int
sink_send(struct sink *k, const struct image *img,
    const struct remote_mem *m, struct gf_err *e)
{
	size_t n = img_bytes(img), sent;

	if (!k->regular || !IMG_FORMAT_IS_PNM(k->fmt) ||
	    !img_pnm_as_is(img, k->fmt))
		return 1;
	if (img_write_rows(k->f, img, k->fmt, 0, 0, k->name, e) < 0)
		return -1;
	if (fflush(k->f) != 0)
		return gf_fail(e, "cannot write %s: %s", k->name, strerror(errno));
	sent = remote_mem_send(m, img->px, n, fileno(k->f));
	if (sent < n && fwrite((const char *)img->px + sent, 1, n - sent,
	    k->f) != n - sent)
		return gf_fail(e, "cannot write %s: %s", k->name, strerror(errno));
	return 0;
}

/* img to k; shm: the shared memory its samples lie in, or NULL. */
static int
sink_write(struct sink *k, const struct image *img,
    const struct img_icc *icc, const struct remote_mem *shm,
    struct gf_err *e)
{
	int rc = 1;

	if (!IMG_FORMAT_IS_PNM(k->fmt) && k->nwritten > 0)
		return gf_fail(e, "cannot write image %d to %s: a %s file holds "
		    "one image; write PNM for a stream", k->nwritten + 1, k->name,
		    img_format_name(k->fmt));
	if (shm != NULL && (rc = sink_send(k, img, shm, e)) < 0)
		return -1;
	if (rc > 0 &&
	    img_write_icc(k->f, img, k->fmt, k->quality, icc, k->name, e) < 0)
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
	int id;                 /* its number, for the trace */
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

	while ((n = slot_rows_after(c->en, s, y)) >= 0) {
		if (stream && img_write_rows(k->f, &s->out, k->fmt, y, n,
		    k->name, e) < 0)
			break;
		y = n;
	}
	slot_rows_after(c->en, s, INT_MAX);
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
	struct gf_err e = {0};
	double t0 = gf_now_ms();
	int done = 0;

	s->out.offset_binary = en->tool->out_signed;
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
	if (!done && sink_write(&c->sink, &s->out, &s->icc,
	    s->outbuf.shared ? &s->outbuf.shm : NULL, &e) < 0) {
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

	trace_mark(en, s, 'e', 'e', c->id);
	if (!s->end) {
		if (!engine_job_failed(en, s->job))
			write_image(c, s->job, s);
		else if (s->partial)
			slot_rows_after(en, s, INT_MAX);     /* the lane's, until done */
	} else if (engine_job_failed(en, s->job)) {
		sink_close(&c->sink, 0, NULL);
	} else if (s->failed) {
		job_fail(c, s->job, s, &s->err);
	} else if (sink_close(&c->sink, 1, &e) < 0) {
		job_fail(c, s->job, s, &e);
	} else {
		s->committed = 1;
	}
	trace_mark(en, s, 'E', 'e', c->id);
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
	int started;            /* encoders whose thread started: a pool's */
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
			w->h->image(w->h->arg, engine_job_name(en, s->job), s->index,
			    &s->out, &s->t, s->device);
	}
	if (s->end)
		(*jobs_done)++;
	trace_mark(en, s, 'g', 'w', 0);
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
int
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
		trace_mark(en, s, 'o', 'w', 0);
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

/*
 * The writer of en's run, telling of its images through h and counting
 * them in st (t0: when the run began, for h->progress).  A batch starts a
 * pool of encoders; else the writer encodes itself.  NULL with e when out
 * of memory or a thread cannot start.
 */
struct writer *
writer_open(struct engine *en, const struct engine_hooks *h,
    struct engine_stats *st, double t0, struct gf_err *e)
{
	struct writer *w = calloc(1, sizeof(*w));

	if (w == NULL) {
		gf_nomem(e, "out of memory");
		return NULL;
	}
	w->en = en;
	w->h = h;
	w->st = st;
	w->t0 = t0;
	w->nenc = en->njobs > 1 ? en->read.nreaders : 1;
	/*
	 * Each slot is pending at most once: room for every slot the run can
	 * have (slots_cap, fixed before any thread starts, where nslots grows
	 * as readers add theirs) and every one taken ahead.
	 */
	w->cap = en->pool.slots_cap + AHEAD_SLOTS;
	w->enc = calloc((size_t)w->nenc, sizeof(*w->enc));
	w->pending = calloc((size_t)w->cap, sizeof(*w->pending));
	if (w->enc == NULL || w->pending == NULL) {
		gf_nomem(e, "out of memory");
		free(w->enc);
		free(w->pending);
		free(w);
		return NULL;
	}
	for (int i = 0; i < w->nenc; i++) {
		w->enc[i].en = en;
		w->enc[i].id = i;
		pthread_cond_init(&w->enc[i].cv, NULL);
	}
	for (int i = 0, rc; w->nenc > 1 && i < w->nenc; i++)
		if ((rc = pthread_create(&w->enc[i].th, NULL, encoder_main,
		    &w->enc[i])) != 0) {
			gf_fail(e, "cannot start a thread: %s", strerror(rc));
			w->started = i;         /* they end, and are joined */
			writer_close(w);
			return NULL;
		}
	w->started = w->nenc > 1 ? w->nenc : 0;
	return w;
}

/*
 * Stops the encoders, withdraws any output they left open, and frees w.
 * Returns the jobs whose output was committed whole.
 */
int
writer_close(struct writer *w)
{
	struct engine *en = w->en;
	int committed = w->committed;

	pthread_mutex_lock(&en->mu);
	for (int i = 0; i < w->nenc; i++) {
		w->enc[i].stop = 1;
		pthread_cond_signal(&w->enc[i].cv);
	}
	pthread_mutex_unlock(&en->mu);
	for (int i = 0; i < w->started; i++)
		pthread_join(w->enc[i].th, NULL);
	for (int i = 0; i < w->nenc; i++) {
		sink_close(&w->enc[i].sink, 0, NULL);
		pthread_cond_destroy(&w->enc[i].cv);
	}
	w->st->writers = w->nenc;
	free(w->enc);
	free(w->pending);
	free(w);
	return committed;
}
