/*
 * engine.c - the run of a tool over its jobs (see engine.h): sizes each
 * stage from the options, the machine and the environment's settings
 * (o->set, which cmd/ fills), starts the
 * readers and the GPUs' opener, then the lanes once the GPUs are
 * decided, writes on the calling thread, and joins them all.  The stages
 * and what they share are in engine_int.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine_int.h"

/*
 * Pinned memory is the machine's: an eighth of it at most, 2 GiB tops,
 * for the slots' buffers, pinned where they lie once used (hbuf_get).
 */
static void
pinned_budget(struct engine *en)
{
	struct slot_pool *p = &en->pool;

	p->pinned_max = gf_pinned_budget();
	p->ahead_max = p->pinned_max < AHEAD_BYTES ? p->pinned_max : AHEAD_BYTES;
	if (!en->o->set.read_ahead)
		p->ahead_max = 0;
	/*
	 * GPUFILT_PINNED=0: never (the bench's staging figures); nor for the
	 * server's lanes: no CUDA here.
	 */
	if (!en->o->set.pinned || en->o->remote != NULL)
		p->pinned_max = 0;
}

/*
 * The environment's settings of the filter and read stages (tests and
 * the bench use them; o->set), and who makes a gray tool's colour input
 * gray.
 */
static void
stage_settings(struct engine *en)
{
	const struct tool *t = en->tool;
	const struct gf_settings *set = &en->o->set;

	/*
	 * Only a batch stages: a stream's buffers are pinned from their
	 * second use, and one thread's copy through its own buffers is no
	 * faster than the driver's (bench/hostbw), so for one image the
	 * pinned allocations would only delay the start.
	 */
	en->filter.staging = en->njobs > 1 && set->staging;
	en->filter.per_gpu = set->lanes;
	if (en->filter.per_gpu < 1 || en->filter.per_gpu > LANES_MAX)
		en->filter.per_gpu = 0;
	en->filter.strip_rows = set->strip_rows > 0 ? set->strip_rows : 0;
	/*
	 * A gray tool reads a colour JPEG as its luma, whoever filters it:
	 * that is its gray (img_reader_set_gray), so no knob turns it off.
	 * Other colour: on the CPU, gray in place saves a copy; a batch's
	 * readers may help the lanes (reader_makes_gray); a stream's one
	 * reader has no time to spare.  GPUFILT_READER_GRAY=0 or 1 overrides
	 * that (tests, bench).
	 */
	en->read.decode_gray = t->gray;
	en->read.reader_gray = !t->gray ? 0 : en->o->strategy == GF_CPU ? 1 :
	    en->njobs > 1 ? 2 : 0;
	if (set->reader_gray >= 0 && t->gray)
		en->read.reader_gray = set->reader_gray != 0;
	jdec_init(en);
	split_init(en);
	en->gpus.fail_gpu = set->fail_gpu;
	en->gpus.fail_at = set->fail_at;
}

static void engine_free(struct engine *en);

static int
engine_init(struct engine *en, const struct tool *t, const struct gf_opts *o,
    const struct engine_job *jobs, int njobs, struct gf_err *e)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int per;

	memset(en, 0, sizeof(*en));
	if (njobs < 1)
		return gf_fail(e, "nothing to run: no input");
	en->tool = t;
	en->o = o;
	en->jobs = jobs;
	en->njobs = njobs;
	en->read.nreaders = o->threads > 0 ? o->threads : cpus > 0 ? (int)cpus : 1;
	if (en->read.nreaders > njobs)
		en->read.nreaders = njobs;
	stage_settings(en);
	pthread_mutex_init(&en->mu, NULL);
	pthread_cond_init(&en->cv, NULL);
	pthread_cond_init(&en->work_cv, NULL);
	pthread_cond_init(&en->filter.widen_cv, NULL);
	pthread_cond_init(&en->writer_cv, NULL);
	per = njobs == 1 ? SLOTS_STREAM : SLOTS_BATCH;
	en->job_failed = calloc((size_t)njobs, 1);
	en->read.rd = calloc((size_t)en->read.nreaders, sizeof(*en->read.rd));
	for (int i = 0; en->read.rd != NULL && i < en->read.nreaders; i++) {
		en->read.rd[i].en = en;
		pthread_cond_init(&en->read.rd[i].cv, NULL);
	}
	if (en->job_failed == NULL || en->read.rd == NULL ||
	    slot_pool_init(en, per) < 0) {
		engine_free(en);
		return gf_nomem(e, "out of memory");
	}
	pinned_budget(en);
	en->readers_left = en->read.nreaders;
	if (trace_open(en, e) < 0) {
		engine_free(en);
		return -1;
	}
	return 0;
}

static void
engine_free(struct engine *en)
{
	slot_pool_free(en);
	devices_close(en);
	for (int i = 0; en->read.rd != NULL && i < en->read.nreaders; i++)
		pthread_cond_destroy(&en->read.rd[i].cv);
	pthread_mutex_destroy(&en->mu);
	pthread_cond_destroy(&en->cv);
	pthread_cond_destroy(&en->work_cv);
	pthread_cond_destroy(&en->filter.widen_cv);
	pthread_cond_destroy(&en->writer_cv);
	pthread_cond_destroy(&en->jdec.cv);
	pthread_cond_destroy(&en->split.cv);
	free(en->filter.ln);
	free(en->read.rd);
	free(en->job_failed);
}

/*
 * A thread of the run could not start, once others had (e says so): the
 * run stops as for a fatal error, and those that started end, the
 * readers that never started counted as ended (unstarted of them), and
 * the small-run rule told that no image more comes.  Returns 1.
 */
static int
engine_stop_early(struct engine *en, int unstarted)
{
	pthread_mutex_lock(&en->mu);
	en->stop = 1;
	en->readers_left -= unstarted;
	engine_wake(en);
	pthread_mutex_unlock(&en->mu);
	small_end(en);
	return 1;
}

/*
 * Starts the opener and the readers: 0; -1 with e if the opener cannot
 * start (no thread started); 1 with e if a reader cannot, after
 * engine_stop_early (en->read.started of them run, to be joined).
 */
static int
engine_start(struct engine *en, pthread_t *opener, struct gf_err *e)
{
	if (devices_start(en, opener, e) < 0)
		return -1;
	for (int i = 0, rc; i < en->read.nreaders; i++) {
		if ((rc = pthread_create(&en->read.rd[i].th, NULL, reader_main,
		    &en->read.rd[i])) != 0) {
			gf_fail(e, "cannot start a thread: %s", strerror(rc));
			return engine_stop_early(en, en->read.nreaders - i);
		}
		en->read.started = i + 1;
	}
	pthread_mutex_lock(&en->mu);
	en->read.go = 1;
	engine_wake(en);
	pthread_mutex_unlock(&en->mu);
	return 0;
}

/*
 * The writer's part when no lane started: gives back every slot that
 * the readers post, filtered by no one, until they have all ended, so
 * that none waits for its slots.  The run has stopped (engine_stop_early).
 */
static void
engine_drain(struct engine *en)
{
	struct timespec ts;
	struct slot *s;

	pthread_mutex_lock(&en->mu);
	for (;;) {
		if ((s = fifo_pop(&en->work)) == NULL && (s = en->done) != NULL)
			en->done = s->next;
		if (s != NULL) {
			pthread_mutex_unlock(&en->mu);
			slot_give_back(en, s);
			pthread_mutex_lock(&en->mu);
			continue;
		}
		if (en->readers_left == 0 && en->jdec.queue.n == 0 &&
		    en->jdec.busy == 0)
			break;
		/* Work and done are signalled on two variables: look again soon. */
		gf_deadline(&ts, 10);
		pthread_cond_timedwait(&en->writer_cv, &en->mu, &ts);
	}
	pthread_mutex_unlock(&en->mu);
}

/*
 * Once the GPUs are decided (state): per_gpu lanes per GPU (by default
 * LANES for a stream, LANES_BATCH for a batch, shared among its GPUs in
 * process, LANES_JPEG on each for a batch whose JPEGs the server
 * decodes), or one lane for the CPU (whose work is threaded already, -j)
 * and for a run that cannot start (it fails what was read).  A stream's
 * reader gets a slot more for each lane past LANES, and a served JPEG
 * batch's readers share a slot more for each lane, so that every lane
 * can hold an image.  A served stream whose JPEG frames may go to the
 * server's engines starts LANES_JPEG a GPU, all but per_gpu of them
 * waiting for its first such frame (lanes_widen): a stream of other
 * images keeps LANES, and the slots and server connections they take.
 * -1 with e if out of memory or a thread cannot start, after
 * engine_stop_early: f->nlanes of them run, perhaps none.
 */
static int
lanes_start(struct engine *en, int state, struct gf_err *e)
{
	struct filter_stage *f = &en->filter;
	int ndev = en->gpus.ndev, more, n, all, wide = 0;

	if (f->per_gpu == 0) {
		int share = en->gpus.remote ? LANES_BATCH : ndev > 0 ?
		    (LANES_BATCH + ndev - 1) / ndev : 0;
		f->per_gpu = en->njobs > 1 && share > LANES ? share : LANES;
		if (en->njobs > 1 && en->jdec.remote)
			f->per_gpu = LANES_JPEG;
		wide = en->njobs == 1 && en->jdec.remote && en->split.threads > 0;
	}
	more = state == GPU_READY && en->njobs == 1 ? f->per_gpu * ndev - LANES : 0;
	n = state == GPU_READY ? f->per_gpu * ndev : 1;
	all = state == GPU_READY && wide ? LANES_JPEG * ndev : n;
	if ((f->ln = calloc((size_t)all, sizeof(*f->ln))) == NULL) {
		gf_nomem(e, "out of memory");
		return -engine_stop_early(en, 0);
	}
	pthread_mutex_lock(&en->mu);
	f->active = n;          /* the rest wait for lanes_widen */
	f->nlanes = n = all;
	pthread_mutex_unlock(&en->mu);
	slot_pool_add(en, &en->read.rd[0], more, 0);
	/*
	 * A served batch of JPEGs: a slot and an end marker more per lane,
	 * shared among the readers.  A one-image job holds its marker until
	 * its image is told, so without them the markers held the images in
	 * flight to the lanes' count, and the readers could never get ahead
	 * far enough to decode their share (served_ready).
	 */
	if (state == GPU_READY && en->njobs > 1 && en->jdec.remote) {
		int each = (n + en->read.nreaders - 1) / en->read.nreaders;
		for (int i = 0; i < en->read.nreaders; i++) {
			slot_pool_add(en, &en->read.rd[i], each, 0);
			slot_pool_add(en, &en->read.rd[i], each, 1);
		}
	}
	for (int i = 0, rc; i < n; i++) {
		f->ln[i].en = en;
		f->ln[i].dev = state == GPU_READY ? &en->gpus.dev[i % ndev] : NULL;
		if ((rc = pthread_create(&f->ln[i].th, NULL, lane_main, &f->ln[i])) != 0) {
			gf_fail(e, "cannot start a thread: %s", strerror(rc));
			pthread_mutex_lock(&en->mu);
			f->nlanes = i;  /* those that started drain the run */
			pthread_mutex_unlock(&en->mu);
			return -engine_stop_early(en, 0);
		}
	}
	return 0;
}

/* The run's figures, once every thread has ended, into st. */
static void
engine_stats_fill(const struct engine *en, int state, struct engine_stats *st)
{
	st->readers = en->read.nreaders;
	st->on_gpu = state == GPU_READY;
	st->served = en->gpus.remote;
	st->lanes = en->filter.active < en->filter.nlanes ? en->filter.active :
	    en->filter.nlanes;  /* those that took work */
	for (int i = 0; i < en->read.nreaders; i++)
		st->read_ms += en->read.rd[i].busy_ms;
	if (en->split.grown) {          /* a stream's decode pool reads too */
		st->readers += en->split.threads;
		st->read_ms += en->split.busy_ms;
	}
	for (int i = 0; i < en->filter.nlanes; i++) {
		st->filter_ms += en->filter.ln[i].busy_ms;
		st->jpeg_engines += en->filter.ln[i].served;   /* a server's */
	}
	st->ndevices = st->on_gpu ? en->gpus.ndev : 0;
	for (int i = 0; i < st->ndevices; i++) {
		const struct device *d = &en->gpus.dev[i];
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
	struct writer *w;
	struct gf_err te, early = {0};
	pthread_t opener;
	double t0;
	int failures = -1, committed, state, started;

	memset(st, 0, sizeof(*st));
	if (engine_init(&en, t, o, jobs, njobs, e) < 0)
		return -1;
	t0 = gf_now_ms();
	en.exiting = hooks->exiting;
	/*
	 * The writer first: once a reader runs, someone must take its
	 * images, or it waits for its slots for ever.  A thread that cannot
	 * start after others did stops the run (early), which drains and
	 * joins them all as at its end.
	 */
	if ((w = writer_open(&en, hooks, st, t0, e)) == NULL ||
	    (started = engine_start(&en, &opener, &early)) < 0) {
		if (w != NULL) {
			writer_close(w);
			*e = early;
		}
		engine_free(&en);
		trace_close(&en, &te);
		return -1;
	}
	trace_job(&en, -1, 'S', 'o', 0);
	state = devices_decision(&en);
	trace_job(&en, state == GPU_READY ? en.gpus.ndev : -1, 'G', 'o', state);
	if (started == 0)
		lanes_start(&en, state, &early);
	else if (lanes_start(&en, state, &te) < 0)
		started = 1;    /* the first failure is the one told */
	if (state == GPU_UNUSED && en.gpus.fallback && hooks->notice != NULL)
		hooks->notice(hooks->arg, en.gpus.err.msg);
	if (en.filter.nlanes > 0)
		failures = writer_run(w);
	else
		engine_drain(&en);
	committed = writer_close(w);
	if (o->strategy != GF_CPU)
		pthread_join(opener, NULL);
	for (int i = 0; i < en.read.started; i++)
		pthread_join(en.read.rd[i].th, NULL);
	for (int i = 0; i < en.filter.nlanes; i++)
		pthread_join(en.filter.ln[i].th, NULL);
	st->wall_ms = gf_now_ms() - t0;
	engine_stats_fill(&en, state, st);
	jdec_join(&en, st);
	if (early.msg[0] != '\0') {
		*e = early;
		failures = -1;
	} else if (state == GPU_FATAL) {
		*e = en.gpus.err;
		failures = -1;
	} else if (en.gpus.broken != NULL || en.gpus.remote_broken) {
		gf_fail(e, "%s; the run stopped, and %d of %d inputs were not "
		    "written", en.gpus.broken_err.msg, njobs - committed, njobs);
		failures = -1;
	}
	trace_job(&en, -1, 'Z', 'o', 0);
	engine_free(&en);
	trace_job(&en, -1, 'X', 'o', 0);
	if (trace_close(&en, &te) < 0 && failures >= 0) {
		*e = te;
		failures = -1;
	}
	return failures;
}
