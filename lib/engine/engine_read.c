/*
 * engine_read.c - the read stage: each reader takes the next job, opens
 * its input and decodes every image of it into a slot of its own, then
 * queues the slot as work for the lanes; a job ends with a marker slot.
 * A stream's JPEG frames are split off as their bytes for its decode
 * pool (engine_split.c), which decodes them side by side.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine_int.h"

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
	int job;                /* for the trace */
	struct img_reader *r;   /* the decoder that asks; NULL: a JPEG's bytes */
};

static void *
slot_in_get(void *arg, size_t bytes)
{
	struct take *t = arg;

	if (t->s == NULL) {
		struct engine *en = t->rd->en;
		int n = (int)(t->rd - en->read.rd);
		double t0 = gf_now_ms();
		if (t->r != NULL) {
			const struct image *im = img_reader_sizing(t->r);
			small_image(en, im->width, im->height);
		}
		trace_job(en, t->job, 'a', 'r', n);
		t->s = slot_take(t->rd, 0);
		trace_job(en, t->job, 'A', 'r', n);
		t->wait_ms += gf_now_ms() - t0;
	}
	return hbuf_get(t->rd->en, &t->s->inbuf, bytes);
}

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

	if (en->read.reader_gray == 0 || s->in.channels == 1)
		return 0;
	pthread_mutex_lock(&en->mu);
	yes = en->read.reader_gray == 1 || en->gpus.state != GPU_READY ||
	    en->work.n >= en->filter.nlanes;
	pthread_mutex_unlock(&en->mu);
	return yes;
}

/*
 * A decoder of job j's images from f with the run's settings (pixel
 * limit, EXIF orientation, a gray tool's luma), named as the job: the
 * readers', and the decoders of a JPEG kept as its bytes (engine_jdec.c,
 * engine_split.c), which must give what a reader would.  -1 with e.
 */
int
reader_open(struct engine *en, struct img_reader **r, FILE *f, int j,
    struct gf_err *e)
{
	if (img_reader_open(r, f, engine_job_name(en, j), e) < 0)
		return -1;
	img_reader_set_max_pixels(*r, en->o->max_pixels);
	img_reader_set_autorotate(*r, !en->o->no_autorotate);
	img_reader_set_gray(*r, en->read.decode_gray);
	return 0;
}

/* Opens the input: a path, or standard input for NULL or "-". */
static FILE *
open_input(const char *input, const char **name, struct gf_err *e)
{
	struct stat st;
	FILE *f;

	if (input == NULL || strcmp(input, "-") == 0) {
		*name = "standard input";
		engine_widen_pipe(STDIN_FILENO);
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

/*
 * Decodes the next image of r into a slot (tk's), made gray here when
 * the reader should, with its output buffer ready: 1 with *sp the slot,
 * 0 at the end of the input, -1 with e.  A stage that decodes on the GPU
 * hooks in here: the reader would put a bitstream in the slot instead.
 */
static int
read_image(struct reader *rd, struct img_reader *r, struct take *tk,
    struct slot **sp, struct gf_err *e)
{
	struct engine *en = rd->en;
	double t0 = gf_now_ms();
	struct image in;
	struct slot *s;
	int got;

	tk->wait_ms = 0;
	if ((got = img_read_next(r, &in, e)) <= 0) {
		rd->busy_ms += gf_now_ms() - t0 - tk->wait_ms;
		return got;
	}
	s = tk->s;      /* every decoder's pixels come from the reader's buffer */
	tk->s = NULL;
	s->in = in;
	img_reader_take_icc(r, &s->icc);
	s->in_bytes = img_bytes(&in);
	rd->last_bytes = s->in_bytes + s->icc.len;     /* what a slot ahead counts */
	read_image_done(en, s);
	s->t.read = gf_now_ms() - t0 - tk->wait_ms;
	rd->busy_ms += s->t.read;
	*sp = s;
	return 1;
}

/*
 * Slot s, its image just decoded (by a reader or a stream's decode
 * pool): made gray where the reader should, its output buffer ready.
 */
void
read_image_done(struct engine *en, struct slot *s)
{
	if (reader_makes_gray(en, s))
		img_gray_in_place(&s->in);
	if (en->o->strategy != GF_CPU)
		slot_prepare_out(en, s);
}

/*
 * Served, JPEGs waiting for a lane from which readers decode the next
 * ones themselves, while no lane is idle: each lane's JPEG waits at the
 * server for its engines, and a reader's JPEG takes a lane only for its
 * filter, so the cores take a share beside the engines.  A quarter of
 * a GPU's lanes: of 2, 8 and 16 waiting, 8 ran the 800-photo batch of
 * make bench-serve fastest on one GPU; with 2 the readers decode JPEGs
 * that the engines would have taken as soon, and each is late to the
 * writer.
 */
#define SHARE_SERVED (LANES_JPEG / 4)

/*
 * Whether a reader may keep a JPEG as its bytes for the server's engines
 * now (else the readers' share: it decodes it): GPUFILT_JPEG_SHARE=0,
 * or the lanes keep up.
 */
int
served_ready(struct engine *en)
{
	int on;

	pthread_mutex_lock(&en->mu);
	on = !en->jdec.share || en->jdec.sent == 0 || en->filter.idle > 0 ||
	    en->jdec.unsent < SHARE_SERVED;
	pthread_mutex_unlock(&en->mu);
	return on;
}

/*
 * A JPEG file that the GPU's engines decode exactly goes into a slot as
 * its bytes, its header checked here (img_jpeg_bits_read), for the
 * decode stage (engine_jdec.c): 1 with *sp, 0 when the file is not one
 * (or the engines are not in use), -1 with e.
 */
static int
read_bits(struct reader *rd, FILE *f, const char *name, struct take *tk,
    struct slot **sp, struct gf_err *e)
{
	struct engine *en = rd->en;
	struct img_icc icc = {0};
	struct img_bits_opts o = {en->o->max_pixels, !en->o->no_autorotate,
	    en->tool->gray, {slot_in_get, tk}, &icc};
	struct img_jpeg_bits b;
	double t0 = gf_now_ms();
	struct slot *s;
	int got;

	if (f == stdin || !en->jdec.wanted || !img_jpeg_bits_sniff(f) ||
	    !(en->jdec.remote ? served_ready(en) : jdec_ready(en)))
		return 0;
	tk->wait_ms = 0;
	got = img_jpeg_bits_read(f, name, &o, &b, e);
	if (got > 0 && en->jdec.remote && small_bits(en, b.width, b.height))
		got = 0;        /* the small-run rule may keep it: read as pixels */
	/* A server walks the scan itself, on its GPU (engine_worker.c). */
	if (got > 0 && !en->jdec.remote && !jdec_check(en, &b, tk->job))
		got = 0;        /* read from the file on the CPU, the bytes' slot reused */
	if (got <= 0) {
		img_icc_free(&icc);
		rd->busy_ms += gf_now_ms() - t0 - tk->wait_ms;
		return got;
	}
	s = tk->s;      /* the bytes are in its buffer */
	tk->s = NULL;
	slot_hold_bits(en, s, &b, &icc);
	rd->last_bytes = s->in_bytes;
	s->t.read = gf_now_ms() - t0 - tk->wait_ms;
	rd->busy_ms += s->t.read;
	*sp = s;
	return 1;
}

void
slot_hold_bits(struct engine *en, struct slot *s, const struct img_jpeg_bits *b,
    struct img_icc *icc)
{
	int turned = b->orientation >= 5;

	s->bits = *b;
	s->icc = *icc;
	s->in = (struct image){turned ? b->height : b->width, turned ? b->width :
	    b->height, 1, 255, NULL, 0};
	s->in_bytes = img_bytes(&s->in);
	slot_prepare_out(en, s);
}

int
jdec_cpu_done(struct engine *en, int job, const struct image *got,
    const struct image *header, struct gf_err *e)
{
	if (got->width != header->width || got->height != header->height)
		return gf_fail(e, "%s: the JPEG decoder gave %d x %d, its header "
		    "%d x %d", engine_job_name(en, job), got->width, got->height,
		    header->width, header->height);
	pthread_mutex_lock(&en->mu);
	en->jdec.cpu++;
	pthread_mutex_unlock(&en->mu);
	return 0;
}

/* Reads every image of job j, then queues its end marker. */
static void
read_job(struct reader *rd, int j)
{
	struct engine *en = rd->en;
	struct img_reader *r = NULL;
	struct take tk = {rd, NULL, 0, j, NULL};
	int me = (int)(rd - en->read.rd);
	struct img_buffer b = {slot_in_get, &tk};
	struct gf_err err = {0};
	struct img_frame frame = {0};
	struct slot *s, *m;
	const char *name;
	FILE *f = open_input(en->jobs[j].input, &name, &err);
	int idx = 1, got = -1, bits;

	trace_job(en, j, 'r', 'r', me);
	if (f != NULL && (bits = read_bits(rd, f, name, &tk, &s, &err)) != 0) {
		got = bits < 0 ? -1 : 0;
		if (bits > 0) {
			s->job = j;
			s->index = idx++;
			trace_mark(en, s, 'R', 'r', me);
			if (en->jdec.remote)    /* the server decodes it */
				slot_post_work(en, s);
			else
				jdec_post(en, s);
			trace_mark(en, s, 'q', 'r', me);
		}
	} else if (f != NULL && reader_open(en, &r, f, j, &err) == 0) {
		tk.r = r;
		img_reader_set_buffer(r, &b);
		for (;; idx++) {
			if (engine_job_failed(en, j)) {
				got = 0;
				break;
			}
			if ((got = split_frame(rd, r, j, idx, &frame, &err)) > 0)
				continue;
			if (got < 0 || (got = read_image(rd, r, &tk, &s, &err)) <= 0)
				break;
			s->job = j;
			s->index = idx;
			trace_mark(en, s, 'R', 'r', me);
			slot_post_work(en, s);
		}
		split_end(en);
		img_reader_close(r);
	}
	free(frame.p);
	if (f != NULL && f != stdin)
		fclose(f);
	if (tk.s != NULL)       /* taken for an image that then failed */
		slot_give_back(en, tk.s);
	small_end(en);
	m = slot_take(rd, 1);
	m->job = j;
	m->index = idx;
	m->end = 1;
	m->failed = got < 0;
	m->err = err;
	slot_post_done(en, m);
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

	return rd->markers != NULL && (rd->free != NULL || slot_ahead_allowed(en));
}

void *
reader_main(void *arg)
{
	struct reader *rd = arg;
	struct engine *en = rd->en;
	int j, last;

	/*
	 * Not before every reader has started: a reader at work takes the
	 * process's memory map for its buffers, which each thread's start
	 * needs too, and the last readers of a big run started tens of
	 * milliseconds late (GPUFILT_TRACE).
	 */
	pthread_mutex_lock(&en->mu);
	while (!en->read.go && !en->stop)
		pthread_cond_wait(&rd->cv, &en->mu);
	pthread_mutex_unlock(&en->mu);
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
	last = --en->readers_left == 0;
	engine_wake(en);
	pthread_mutex_unlock(&en->mu);
	if (last)
		slots_let_go_idle(en);
	return NULL;
}
