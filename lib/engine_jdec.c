/*
 * engine_jdec.c - the decode stage on the GPUs' own JPEG engines.  A
 * reader keeps a JPEG that the engines decode exactly (img_jpeg_bits_read,
 * the header checked on the host) as its bytes and queues it here instead
 * of decoding it; each GPU with engines has a decoder thread that takes
 * the queue in batches, decodes them with nvJPEG's hardware backend
 * (lib/jpeg_gpu.c) into device buffers of its own, and hands them to its
 * GPU's lanes (d->decoded), which filter the luma where it lies.  A JPEG
 * the engines refuse (nvjpegDecodeBatchedSupported) or fail on goes to
 * the lanes' common queue as bytes, and the lane that takes it decodes it
 * on the CPU; no other image is touched.  Every other image, and every
 * JPEG while the GPUs are still opening, is decoded by the readers as
 * before, side by side with the engines.
 *
 * All nvJPEG calls on a GPU come from its decoder thread, which opens
 * the library and the engines once the first JPEG is seen, while the
 * readers go on decoding on the CPU.  The hardware writes a batch's buffers when the call is made,
 * not when the stream reaches it, so a buffer goes back to the pool only
 * once the lane that filtered it has waited for its stream on the host,
 * and a batch is waited for on the host before its images are handed on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_int.h"

/* Images per batch: fewer leave the engines idle between calls. */
#define JDEC_BATCH 32
#define JDEC_BATCH_MAX 256
/*
 * A batch opens the engines only with this many inputs left when its
 * first JPEG is read (GPUFILT_GPU_DECODE=1 or 2: at any count): on the
 * H100 they took 0.9 s to open (bench/jpegdec), while 16 cores decode
 * 225-229 photos of 12 MP a second, so a batch of 256 ran slower with
 * them.  The crossover is not measured; this is above it.
 */
#define JDEC_MIN_JOBS 1024
/* How long a decoder waits for a batch to fill while readers still read. */
#define JDEC_FILL_MS 2

/* A device buffer of a decoder's pool: one stored image's luma. */
struct jdec_buf {
	struct jdec_buf *next;  /* on the free list (en->mu) */
	struct jdec_buf *all;   /* every buffer of the pool */
	void *p;
	size_t cap, pitch;
};

/* One GPU's decoder: its thread, decode state, stream and buffer pool. */
struct jdec {
	struct device *d;
	pthread_t th;
	int started;
	struct jpeg_gpu_batch *b;
	cudaStream_t stream;
	struct jdec_buf *free;  /* en->mu */
	struct jdec_buf *all;
	/* One batch's arguments, JDEC_BATCH_MAX each. */
	struct slot **slots;
	const unsigned char **p;
	size_t *len, *pitch;
	unsigned char **dst;
	int *status;
	double busy_ms;
	int images;
};

void
jdec_init(struct engine *en)
{
	struct jdec_stage *j = &en->jdec;
	const char *env = getenv("GPUFILT_GPU_DECODE");

	j->wanted = en->o->strategy != GF_CPU && (env == NULL || strcmp(env, "0") != 0);
	j->wait = env != NULL && strcmp(env, "2") == 0;
	j->always = env != NULL && (strcmp(env, "1") == 0 || j->wait);
	j->batch = (env = getenv("GPUFILT_JPEG_BATCH")) != NULL ? atoi(env) : JDEC_BATCH;
	if (j->batch < 1 || j->batch > JDEC_BATCH_MAX)
		j->batch = JDEC_BATCH;
	j->fail_at = (env = getenv("GPUFILT_JPEG_FAIL")) != NULL ? atoi(env) : 0;
	pthread_cond_init(&j->cv, NULL);
}

/*
 * Once the GPUs are decided (under en->mu): whether their decoders will
 * look for engines; each that does counts in pending until it has tried.
 */
void
jdec_decide(struct engine *en, int gpu_ready)
{
	en->jdec.possible = gpu_ready && en->jdec.wanted;
	en->jdec.pending = en->jdec.possible ? en->gpus.ndev : 0;
	en->jdec.on = 0;
}

/*
 * Whether a reader may keep a JPEG as its bytes now: the engines are in
 * use.  While the GPUs open, readers decode on the CPU (work the engines
 * need not do later), unless GPUFILT_GPU_DECODE=2 has them wait.
 */
int
jdec_ready(struct engine *en)
{
	int on;

	if (en->jdec.wait && en->jdec.wanted)
		devices_decision(en);
	pthread_mutex_lock(&en->mu);
	if (!en->jdec.seen && (en->jdec.always ||
	    en->njobs - en->next_job >= JDEC_MIN_JOBS)) {
		en->jdec.seen = 1;      /* the decoders open their engines now */
		pthread_cond_broadcast(&en->jdec.cv);
	}
	while (en->jdec.wait && !en->jdec.on && en->jdec.pending > 0)
		pthread_cond_wait(&en->cv, &en->mu);
	on = en->jdec.on;
	pthread_mutex_unlock(&en->mu);
	return on;
}

/*
 * Queues s for a decoder; the first JPEG of a batch gives every reader
 * SLOTS_JPEG slots and markers more, so that a batch can fill while the
 * one before it is decoded and filtered.
 */
void
jdec_post(struct engine *en, struct slot *s)
{
	int grow;

	pthread_mutex_lock(&en->mu);
	fifo_push(&en->jdec.queue, s);
	pthread_cond_signal(&en->jdec.cv);
	grow = !en->jdec.grown && en->njobs > 1;
	en->jdec.grown = 1;
	pthread_mutex_unlock(&en->mu);
	for (int i = 0; grow && i < en->read.nreaders; i++) {
		slot_pool_add(en, &en->read.rd[i], SLOTS_JPEG, 0);
		slot_pool_add(en, &en->read.rd[i], SLOTS_JPEG, 1);
	}
}

/*
 * The next batch for a decoder, into slots: waits for one slot, then
 * up to JDEC_FILL_MS for the batch to fill while readers still read.
 * The count, 0 once the readers have ended and the queue is empty.
 */
static int
jdec_take(struct engine *en, struct slot **slots)
{
	struct jdec_stage *j = &en->jdec;
	struct timespec until;
	struct slot *s;
	int n = 0;

	pthread_mutex_lock(&en->mu);
	while (j->queue.n == 0 && en->readers_left > 0)
		pthread_cond_wait(&j->cv, &en->mu);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += JDEC_FILL_MS * 1000000L;
	until.tv_sec += until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	while (j->queue.n < j->batch && en->readers_left > 0 && !en->stop &&
	    pthread_cond_timedwait(&j->cv, &en->mu, &until) != ETIMEDOUT)
		;
	while (n < j->batch && (s = fifo_pop(&j->queue)) != NULL)
		slots[n++] = s;
	j->busy += n;
	pthread_mutex_unlock(&en->mu);
	return n;
}

/* Gives buffer b back to jd's pool. */
static void
jdec_buf_put(struct jdec *jd, struct jdec_buf *b)
{
	struct engine *en = jd->d->en;

	pthread_mutex_lock(&en->mu);
	b->next = jd->free;
	jd->free = b;
	pthread_mutex_unlock(&en->mu);
}

/*
 * A buffer of jd's pool for a stored w x h luma (pitch by the device's
 * rule for images the kernels read), into s->ybuf; -1 if none.
 */
static int
jdec_buf_get(struct jdec *jd, struct slot *s)
{
	struct engine *en = jd->d->en;
	size_t a = jd->d->base.tex_pitch_align > 256 ? jd->d->base.tex_pitch_align : 256;
	size_t pitch = ((size_t)s->bits.width + a - 1) / a * a;
	size_t need = pitch * (size_t)s->bits.height;
	struct jdec_buf *b, **pp;

	pthread_mutex_lock(&en->mu);
	for (pp = &jd->free; *pp != NULL && (*pp)->cap < need; pp = &(*pp)->next)
		;
	if (*pp == NULL)
		pp = &jd->free;         /* none large enough: regrow the first */
	if ((b = *pp) != NULL)
		*pp = b->next;
	pthread_mutex_unlock(&en->mu);
	if (b == NULL) {
		if ((b = calloc(1, sizeof(*b))) == NULL)
			return -1;
		b->all = jd->all;
		jd->all = b;
	}
	if (b->cap < need) {
		if (b->p != NULL)
			cudaFree(b->p);
		b->cap = 0;
		if (cudaMalloc(&b->p, need) != cudaSuccess) {
			cudaGetLastError();
			b->p = NULL;
			jdec_buf_put(jd, b);
			return -1;
		}
		b->cap = need;
	}
	b->pitch = pitch;
	s->ybuf = b;
	return 0;
}

/*
 * Slot s's luma buffer back to d's pool, once the lane that filtered it
 * has waited for its stream (the engines write a buffer the moment a
 * decode is called, whatever the stream still has queued on it).
 */
void
jdec_buf_release(struct engine *en, struct device *d, struct slot *s)
{
	(void)en;
	if (s->ybuf != NULL && d != NULL && d->jdec != NULL)
		jdec_buf_put(d->jdec, s->ybuf);
	s->ybuf = NULL;
}

const struct gpu_image *
jdec_luma(const struct slot *s, struct gpu_image *y)
{
	y->px = s->ybuf->p;
	y->pitch = s->ybuf->pitch;
	y->width = s->bits.width;
	y->height = s->bits.height;
	y->maxval = 255;
	return y;
}

/*
 * Decodes the n slots of a batch on jd's engines, those the engines take
 * (the others keep ybuf NULL and go to the CPU), waiting on the host for
 * the batch; the decode time is shared among them in t.decode.
 */
static void
jdec_batch(struct jdec *jd, struct slot **slots, int n)
{
	struct engine *en = jd->d->en;
	struct gf_err e = {{0}};
	double t0;
	int m = 0, r;

	for (int i = 0; i < n; i++) {
		struct slot *s = slots[i];
		trace_mark(en, s, 'd', 'd', jd->d->base.device);
		if (engine_job_failed(en, s->job) ||
		    !jpeg_gpu_supported(jd->b, s->bits.p, s->bits.len) ||
		    jdec_buf_get(jd, s) < 0)
			continue;
		jd->slots[m] = s;
		jd->p[m] = s->bits.p;
		jd->len[m] = s->bits.len;
		jd->dst[m] = s->ybuf->p;
		jd->pitch[m] = s->ybuf->pitch;
		m++;
	}
	if (m == 0)
		return;
	t0 = gf_now_ms();
	r = jpeg_gpu_decode(jd->b, m, jd->p, jd->len, jd->dst, jd->pitch,
	    jd->stream, jd->status, &e);
	if (cudaStreamSynchronize(jd->stream) != cudaSuccess) {
		cudaGetLastError();
		r = -1;
	}
	pthread_mutex_lock(&en->mu);
	for (int i = 0; i < m; i++)
		if (++en->jdec.taken == en->jdec.fail_at)
			jd->status[i] = -1;     /* as if the engines had failed it */
	pthread_mutex_unlock(&en->mu);
	for (int i = 0; i < m; i++) {
		struct slot *s = jd->slots[i];
		if (r < 0 || jd->status[i] != 0) {
			jdec_buf_put(jd, s->ybuf);
			s->ybuf = NULL;
			continue;
		}
		s->t.decode = (gf_now_ms() - t0) / m;
		s->t.engines = 1;
	}
}

/*
 * Hands a batch on: what the engines decoded to d's lanes, the rest to
 * every lane as bytes for the CPU.
 */
static void
jdec_hand_on(struct jdec *jd, struct slot **slots, int n)
{
	struct device *d = jd->d;
	struct engine *en = d->en;

	for (int i = 0; i < n; i++)
		trace_mark(en, slots[i], 'D', 'd', d->base.device);
	pthread_mutex_lock(&en->mu);
	for (int i = 0; i < n; i++) {
		if (slots[i]->ybuf != NULL) {
			fifo_push(&d->decoded, slots[i]);
			jd->images++;
		} else {
			fifo_push(&en->work, slots[i]);
		}
	}
	en->jdec.busy -= n;
	pthread_cond_broadcast(&en->work_cv);
	pthread_mutex_unlock(&en->mu);
}

/* A decoder's state on its own thread: 0, or -1 (its batches go to the CPU). */
static int
jdec_thread_open(struct jdec *jd)
{
	struct gf_err e = {{0}};

	if (cudaSetDevice(jd->d->base.device) != cudaSuccess ||
	    cudaStreamCreateWithFlags(&jd->stream, cudaStreamNonBlocking) !=
	    cudaSuccess) {
		cudaGetLastError();
		jd->stream = NULL;
		return -1;
	}
	return jpeg_gpu_batch_open(jd->d->jpeg, &jd->b, &e);
}

/*
 * Opens jd's engines once a reader has seen a JPEG (never for a batch
 * without one: loading nvJPEG and making its hardware decoder's handle
 * takes time, which no run waits for): 1 when they are in use.
 */
static int
jdec_engines_open(struct jdec *jd)
{
	struct engine *en = jd->d->en;
	int ok;

	pthread_mutex_lock(&en->mu);
	while (!en->jdec.seen && en->readers_left > 0 && !en->stop)
		pthread_cond_wait(&en->jdec.cv, &en->mu);
	ok = en->jdec.seen && !en->stop;
	pthread_mutex_unlock(&en->mu);
	ok = ok && jpeg_gpu_open(&jd->d->jpeg, jd->d->base.device,
	    &jd->d->jpeg_err) == 0 && jdec_thread_open(jd) == 0;
	trace_job(en, -1, ok ? 'J' : 'j', 'd', jd->d->base.device);
	pthread_mutex_lock(&en->mu);
	en->jdec.pending--;
	en->jdec.on |= ok;
	pthread_cond_broadcast(&en->cv);
	pthread_mutex_unlock(&en->mu);
	return ok;
}

static void *
jdec_main(void *arg)
{
	struct jdec *jd = arg;
	struct engine *en = jd->d->en;
	int ok = jdec_engines_open(jd), n;

	if (!ok)
		return NULL;

	while ((n = jdec_take(en, jd->slots)) > 0) {
		double t0 = gf_now_ms();
		struct slot *batch[JDEC_BATCH_MAX];
		memcpy(batch, jd->slots, (size_t)n * sizeof(*batch));
		if (ok)
			jdec_batch(jd, batch, n);
		jd->busy_ms += gf_now_ms() - t0;
		jdec_hand_on(jd, batch, n);
	}
	return NULL;
}

/* A decoder for d, with room for a batch's arguments; NULL without memory. */
static struct jdec *
jdec_new(struct device *d)
{
	struct jdec *jd = calloc(1, sizeof(*jd));
	size_t n = JDEC_BATCH_MAX;

	if (jd == NULL)
		return NULL;
	jd->d = d;
	jd->slots = calloc(n, sizeof(*jd->slots));
	jd->p = calloc(n, sizeof(*jd->p));
	jd->len = calloc(n, sizeof(*jd->len));
	jd->pitch = calloc(n, sizeof(*jd->pitch));
	jd->dst = calloc(n, sizeof(*jd->dst));
	jd->status = calloc(n, sizeof(*jd->status));
	if (jd->slots == NULL || jd->p == NULL || jd->len == NULL ||
	    jd->pitch == NULL || jd->dst == NULL || jd->status == NULL) {
		d->jdec = jd;
		jdec_close_device(d);
		return NULL;
	}
	return jd;
}

/*
 * Starts a decoder for each GPU, on the opener's thread as soon as the
 * GPUs are decided; one that cannot start (no memory, no thread) leaves
 * its GPU's JPEGs to the CPU.
 */
void
jdec_start(struct engine *en)
{
	for (int i = 0; en->jdec.possible && i < en->gpus.ndev; i++) {
		struct device *d = &en->gpus.dev[i];
		if ((d->jdec = jdec_new(d)) != NULL &&
		    pthread_create(&d->jdec->th, NULL, jdec_main, d->jdec) == 0) {
			d->jdec->started = 1;
			continue;
		}
		pthread_mutex_lock(&en->mu);
		en->jdec.pending--;
		pthread_cond_broadcast(&en->cv);
		pthread_mutex_unlock(&en->mu);
	}
}

/* Joins the decoders, their figures into st. */
void
jdec_join(struct engine *en, struct engine_stats *st)
{
	st->jpeg_on = en->jdec.on;
	st->jpeg_cpu = en->jdec.cpu;
	st->jpeg_why[0] = '\0';
	for (int i = 0; !en->jdec.on && en->jdec.seen && i < en->gpus.ndev; i++)
		if (en->gpus.dev[i].jpeg_err.msg[0] != '\0')
			snprintf(st->jpeg_why, sizeof(st->jpeg_why), "%s",
			    en->gpus.dev[i].jpeg_err.msg);
	for (int i = 0; i < en->gpus.ndev; i++) {
		struct jdec *jd = en->gpus.dev[i].jdec;
		if (jd == NULL || !jd->started)
			continue;
		pthread_join(jd->th, NULL);
		jd->started = 0;
		st->jpeg_engines += jd->images;
		if (i < GF_MAX_DEVICES) {
			st->dev[i].jpeg_images = jd->images;
			st->dev[i].jpeg_busy_ms = jd->busy_ms;
		}
	}
}

/* Frees d's decoder and engines (on the thread that closes d). */
void
jdec_close_device(struct device *d)
{
	struct jdec *jd = d->jdec;

	if (jd != NULL) {
		cudaSetDevice(d->base.device);
		while (jd->all != NULL) {
			struct jdec_buf *b = jd->all;
			jd->all = b->all;
			if (b->p != NULL)
				cudaFree(b->p);
			free(b);
		}
		jpeg_gpu_batch_close(jd->b);
		if (jd->stream != NULL)
			cudaStreamDestroy(jd->stream);
		free(jd->slots);
		free(jd->p);
		free(jd->len);
		free(jd->pitch);
		free(jd->dst);
		free(jd->status);
		free(jd);
		d->jdec = NULL;
	}
	jpeg_gpu_close(d->jpeg);
	d->jpeg = NULL;
}

/*
 * Decodes slot s's JPEG bytes on the CPU (the engines refused or failed
 * it), as a reader would have, into s->cpu_px: s->in then holds the
 * pixels, and the lane goes on as for any image read.
 */
int
jdec_cpu_decode(struct engine *en, struct slot *s, struct gf_err *e)
{
	FILE *f = fmemopen(s->bits.p, s->bits.len, "rb");
	struct img_reader *r = NULL;
	struct image img = {0};
	int got = -1;

	if (f == NULL)
		return gf_fail(e, "out of memory");
	if (img_reader_open(&r, f, engine_job_name(en, s->job), e) == 0) {
		img_reader_set_max_pixels(r, en->o->max_pixels);
		img_reader_set_autorotate(r, !en->o->no_autorotate);
		img_reader_set_gray(r, en->read.decode_gray);
		got = img_read_next(r, &img, e);
		img_reader_close(r);
	}
	fclose(f);
	if (got <= 0)
		return got == 0 ? gf_fail(e, "%s: no image", engine_job_name(en, s->job)) :
		    -1;
	if (img.width != s->in.width || img.height != s->in.height) {
		img_free(&img);
		return gf_fail(e, "%s: the JPEG decoder gave %d x %d, its header "
		    "%d x %d", engine_job_name(en, s->job), img.width, img.height,
		    s->in.width, s->in.height);
	}
	s->in = img;
	s->cpu_px = img.px;
	pthread_mutex_lock(&en->mu);
	en->jdec.cpu++;
	pthread_mutex_unlock(&en->mu);
	return 0;
}
