/*
 * engine_split.c - a stream's decode pool.  A stream (one job: standard
 * input or one file) has one reader, and a JPEG frame of 1080p decodes
 * in milliseconds where a pipe moves it in tens of microseconds, so one
 * thread's decoding would bound the stream.  Its reader therefore keeps
 * each JPEG frame as its bytes (img_jpeg_frame_read: its end found by a
 * marker walk, its header checked, the bytes read past it given back to
 * the stream) in a slot, and the threads of this pool decode the frames
 * side by side, each into its slot's buffer as the reader would have,
 * and queue them as work; the writer puts them back in input order.  An
 * image that is not such a frame (PNG, PNM, a JPEG that could decode
 * otherwise alone than in its stream) is read by the reader in turn, as
 * before.  A frame that fails to decode goes to the writer as failed,
 * with the message the reader would have given: the job fails there,
 * after the images before it.  GPUFILT_SPLIT=0 turns the pool off.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine_int.h"

/*
 * The pool's size: for a stream only, GPUFILT_SPLIT threads if it sets
 * a count (0: none), else -j's, else one per CPU but one (the reader's
 * and the lanes'), two at least: on two cores, one decoder would only
 * move the decoding off the reader, while two also use the time that
 * the reader and the lanes leave.
 */
void
split_init(struct engine *en)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int n = en->o->threads > 0 ? en->o->threads : cpus > 3 ? (int)cpus - 1 : 2;

	if (en->o->set.split >= 0)
		n = en->o->set.split;
	en->split.threads = en->njobs != 1 || n < 0 ? 0 : n > SPLIT_MAX ? SPLIT_MAX : n;
	pthread_cond_init(&en->split.cv, NULL);
}

/* The decoder's buffer for a frame's pixels: its slot's, as a reader's. */
static void *
frame_pixels(void *arg, size_t bytes)
{
	struct slot *s = arg;

	return hbuf_get(s->en, &s->inbuf, bytes);
}

/*
 * Decodes slot s's frame into s->in, with the reader's settings and its
 * name for the input, from the bytes that the reader's decoder would
 * have seen (the frame's tail too), so that the image or the error is
 * the reader's: 0, or -1 with e.
 */
static int
frame_decode(struct engine *en, struct slot *s, struct gf_err *e)
{
	FILE *f = fmemopen(s->frame.p, s->frame.len + s->frame.tail, "rb");
	struct img_buffer b = {frame_pixels, s};
	struct img_reader *r = NULL;
	struct image img;
	int got = -1;

	if (f == NULL)
		return gf_nomem(e, "out of memory");
	if (reader_open(en, &r, f, s->job, e) == 0) {
		img_reader_set_buffer(r, &b);
		img_reader_set_frame(r, &s->frame);
		got = img_read_next(r, &img, e);
		if (got > 0)
			img_reader_take_icc(r, &s->icc);
		img_reader_close(r);
	}
	fclose(f);
	if (got == 0)
		return gf_fail(e, "%s: no image in a JPEG frame", engine_job_name(en,
		    s->job));
	if (got < 0)
		return -1;
	s->in = img;
	s->in_bytes = img_bytes(&img);
	return 0;
}

/*
 * Served, frame s goes to a lane as its bytes for the server's engines
 * when they decode it exactly (img_jpeg_frame_bits: the checks a batch's
 * JPEG file passes in read_bits), the small-run rule cannot keep it (as
 * read_bits: then a lane of the CPU here may take it), and they keep up
 * (served_ready; else this thread decodes it, the readers' share): its
 * bytes copied into the slot's buffer, which the server maps, and the
 * lanes widened for the engines' batches.  1 when it goes so.  A frame
 * the server declines is decoded by its lane (split_cpu_decode).
 */
static int
split_served(struct engine *en, struct slot *s)
{
	struct img_icc icc = {0};
	struct img_bits_opts o = {en->o->max_pixels, !en->o->no_autorotate,
	    en->tool->gray, {NULL, NULL}, &icc};
	struct img_jpeg_bits b;
	unsigned char *p;

	if (!en->jdec.remote || small_keeps(en, s->frame.width, s->frame.height) ||
	    !served_ready(en) || !img_jpeg_frame_bits(s->frame.p, s->frame.len,
	    engine_job_name(en, s->job), &o, &b))
		return 0;
	if ((p = hbuf_get(en, &s->inbuf, b.len)) == NULL) {
		img_icc_free(&icc);
		return 0;
	}
	memcpy(p, b.p, b.len);
	b.p = p;
	slot_hold_bits(en, s, &b, &icc);
	lanes_widen(en);
	return 1;
}

int
split_cpu_decode(struct engine *en, struct slot *s, struct gf_err *e)
{
	struct image header = s->in;

	img_icc_free(&s->icc);          /* the decoder's, as the pool's */
	if (frame_decode(en, s, e) < 0)
		return -1;
	return jdec_cpu_done(en, s->job, &s->in, &header, e);
}

/*
 * Decodes frame s (or, served, readies it as its bytes) and queues it as
 * work; failed (or its job failed already), it goes to the writer as it
 * is.
 */
static void
split_decode(struct engine *en, struct slot *s)
{
	double t0 = gf_now_ms();
	int bytes = 0;

	if (engine_job_failed(en, s->job) || (!(bytes = split_served(en, s)) &&
	    frame_decode(en, s, &s->err) < 0)) {
		s->failed = 1;
		slot_post_done(en, s);
		return;
	}
	if (!bytes)
		read_image_done(en, s);
	s->t.read += gf_now_ms() - t0;
	trace_mark(en, s, 'R', 'r', 0);
	slot_post_work(en, s);
}

static void *
split_main(void *arg)
{
	struct engine *en = arg;
	struct split_stage *sp = &en->split;
	struct slot *s;

	for (;;) {
		double t0;
		pthread_mutex_lock(&en->mu);
		while (sp->queue.n == 0 && !sp->closing)
			pthread_cond_wait(&sp->cv, &en->mu);
		s = fifo_pop(&sp->queue);
		pthread_mutex_unlock(&en->mu);
		if (s == NULL)
			return NULL;
		t0 = gf_now_ms();
		split_decode(en, s);
		pthread_mutex_lock(&en->mu);
		sp->busy_ms += gf_now_ms() - t0;
		pthread_mutex_unlock(&en->mu);
	}
}

/*
 * With the stream's first frame: reader rd's SLOTS_SPLIT slots more per
 * thread, and the threads.  One that cannot start leaves the rest of
 * the work to the others, or, none started, to the reader.
 */
static void
split_start(struct engine *en, struct reader *rd)
{
	struct split_stage *sp = &en->split;

	sp->grown = 1;
	slot_pool_add(en, rd, SLOTS_SPLIT * sp->threads, 0);
	if ((sp->th = calloc((size_t)sp->threads, sizeof(*sp->th))) == NULL)
		return;
	while (sp->started < sp->threads &&
	    pthread_create(&sp->th[sp->started], NULL, split_main, en) == 0)
		sp->started++;
}

/*
 * Room in the pool's SPLIT_BYTES for frame fr, from reader rd: waits
 * while the frames in flight leave too little, then counts fr in; what
 * it counts, for the slot to give back (slot_give_back).
 */
static size_t
split_admit(struct reader *rd, const struct img_frame *fr)
{
	struct engine *en = rd->en;
	size_t n = fr->len + 2 * (size_t)fr->width * fr->height * fr->channels;

	pthread_mutex_lock(&en->mu);
	while (en->split.held > 0 && en->split.held + n > SPLIT_BYTES)
		pthread_cond_wait(&rd->cv, &en->mu);
	en->split.held += n;
	pthread_mutex_unlock(&en->mu);
	return n;
}

/*
 * The next image of r, job's index-th, when it is a JPEG frame to split
 * off: its bytes go in a slot of rd's (scratch's memory and the slot's
 * trade places), queued for the pool.  1; 0 when the reader reads the
 * next image itself (not such a frame, the end, no pool); -1 with e.
 */
int
split_frame(struct reader *rd, struct img_reader *r, int job, int index,
    struct img_frame *scratch, struct gf_err *e)
{
	struct engine *en = rd->en;
	struct split_stage *sp = &en->split;
	double t0 = gf_now_ms(), w0;
	struct img_frame t;
	struct slot *s;
	size_t held;
	int got;

	if (sp->threads == 0)
		return 0;
	if ((got = img_jpeg_frame_read(r, scratch, e)) <= 0) {
		rd->busy_ms += gf_now_ms() - t0;
		return got;
	}
	/* Before split_admit, which may wait for the lanes. */
	small_image(en, scratch->width, scratch->height);
	if (!sp->grown)
		split_start(en, rd);
	w0 = gf_now_ms();
	trace_job(en, job, 'a', 'r', (int)(rd - en->read.rd));
	held = split_admit(rd, scratch);
	s = slot_take(rd, 0);
	s->split_bytes = held;
	trace_job(en, job, 'A', 'r', (int)(rd - en->read.rd));
	t0 += gf_now_ms() - w0;         /* waiting is not reading */
	t = s->frame;
	s->frame = *scratch;
	*scratch = t;
	s->job = job;
	s->index = index;
	rd->last_bytes = (size_t)s->frame.width * s->frame.height *
	    s->frame.channels;
	s->t.read = gf_now_ms() - t0;
	rd->busy_ms += s->t.read;
	if (sp->started == 0) {
		split_decode(en, s);
		return 1;
	}
	pthread_mutex_lock(&en->mu);
	fifo_push(&sp->queue, s);
	pthread_cond_signal(&sp->cv);
	pthread_mutex_unlock(&en->mu);
	return 1;
}

/*
 * The stream has ended: the threads decode what is queued, then leave,
 * and are joined, so that every frame is work (or done) before the
 * reader counts itself out.  Every reader calls it at the end of each
 * job; only a stream has a pool, and one reader, which alone touches
 * sp->started and sp->th: a batch's readers return at once, sharing
 * nothing.
 */
void
split_end(struct engine *en)
{
	struct split_stage *sp = &en->split;

	if (sp->threads == 0)
		return;
	pthread_mutex_lock(&en->mu);
	sp->closing = 1;
	pthread_cond_broadcast(&sp->cv);
	pthread_mutex_unlock(&en->mu);
	for (int i = 0; i < sp->started; i++)
		pthread_join(sp->th[i], NULL);
	sp->started = 0;
	free(sp->th);
	sp->th = NULL;
}
