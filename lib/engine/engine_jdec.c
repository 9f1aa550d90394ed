/*
 * engine_jdec.c - the decode stage on the GPUs' own JPEG engines, when
 * GPUFILT_GPU_DECODE asks for it.  A reader keeps a JPEG that the engines
 * decode exactly (img_jpeg_bits_read, the header checked on the host;
 * jdec_check, the walk of lib/io/img_jpeg_check.c over its coded data:
 * libjpeg-turbo's verdict first) as its bytes and queues it here instead
 * of decoding it; each GPU with engines has a decoder thread that takes
 * the queue in batches, decodes them with nvJPEG's hardware backend
 * (lib/io/jpeg_gpu.c) into device buffers of its own, and hands them to its
 * GPU's lanes (d->decoded), which filter the luma where it lies.  A JPEG
 * the engines refuse (nvjpegDecodeBatchedSupported) or fail on goes to
 * the lanes' common queue as bytes, and the lane that takes it decodes it
 * on the CPU; no other image is touched.  Every other image, and every
 * JPEG while the GPUs are still opening, is decoded by the readers as
 * before, side by side with the engines.
 *
 * A decoder makes its next batch ready (nvJPEG's parse of each header,
 * a buffer each) while the engines decode the one before: one batch on
 * the engines at a time, as two states gained nothing (make bench-io).  While
 * the engines are two batches behind, readers decode JPEGs themselves
 * (the readers' share, jdec_ready).
 *
 * nvJPEG's calls on a GPU come from its decoder thread, one at a time:
 * it opens the library and the engines once the first JPEG is seen,
 * while the readers go on decoding on the CPU, or takes the handle and
 * decode state that jdec_early began making beside the GPU's context.
 * The hardware writes a batch's buffers when the call is made, not when
 * the stream reaches it, so a buffer goes back to the pool only once the
 * lane that filtered it has waited for its stream on the host, and a
 * batch is waited for on the host before its images are handed on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "engine_int.h"

/* Images per batch: fewer leave the engines idle between calls. */
#define JDEC_BATCH 32
#define JDEC_BATCH_MAX 256
/* How long a decoder waits for a batch to fill while readers still read. */
#define JDEC_FILL_MS 2

/* A device buffer of a decoder's pool: one stored image's luma. */
struct jdec_buf {
	struct jdec_buf *next;  /* on the free list (en->mu) */
	struct jdec_buf *all;   /* every buffer of the pool */
	void *p;
	size_t cap, pitch;
};

/*
 * One batch: the slots taken (n), and the arguments of those the engines
 * take (m of them), JDEC_BATCH_MAX each.
 */
struct jdec_set {
	struct slot **taken;
	int n;
	struct slot **slots;
	const unsigned char **p;
	size_t *len, *pitch;
	unsigned char **dst;
	int *status;
	int m, r;               /* r: jpeg_gpu_decode's */
	double t0;              /* when the engines were called */
};

/*
 * One GPU's decoder: its thread, decode state, stream and buffer pool,
 * and two batches: one on the engines while the next is made ready.
 */
struct jdec {
	struct device *d;
	pthread_t th;
	int started;
	struct jpeg_gpu_batch *b;
	cudaStream_t stream;
	struct jdec_buf *free;  /* en->mu */
	struct jdec_buf *all;
	struct jdec_set set[2];
	double busy_ms;
	int images;
};

void
jdec_init(struct engine *en)
{
	struct jdec_stage *j = &en->jdec;
	const struct gf_settings *set = &en->o->set;

	/*
	 * In process only when asked for (GPUFILT_GPU_DECODE=1 or 2): the
	 * check before the engines (jdec_check) costs about a CPU decode.
	 * Served, the server's engines, which walk the scan on the GPU
	 * (engine_worker.c), unless GPUFILT_GPU_DECODE=0 (1, 2) says not.
	 */
	j->remote = en->o->remote != NULL && remote_jpeg(en->o->remote) &&
	    en->tool->gray && en->o->strategy != GF_CPU &&
	    (set->gpu_decode == 3 || set->gpu_decode < 0);
	j->wait = set->gpu_decode == 2 && !j->remote;
	j->wanted = j->remote || (en->o->strategy != GF_CPU &&
	    (set->gpu_decode == 1 || j->wait));
	j->batch = set->jpeg_batch;
	if (j->batch < 1 || j->batch > JDEC_BATCH_MAX)
		j->batch = JDEC_BATCH;
	j->fail_at = set->jpeg_fail;
	/*
	 * The readers' share: a reader decodes a JPEG itself while the
	 * engines have two batches waiting (as DALI's hw_decoder_load lets
	 * the CPU take part), so that the cores help rather than idle; not
	 * when GPUFILT_GPU_DECODE=2 asks for the engines, nor with
	 * GPUFILT_JPEG_SHARE=0.
	 */
	j->share = !j->wait && set->jpeg_share;
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
 * use, and not two batches behind (then the reader decodes it, the
 * readers' share).  While the GPUs open, readers decode on the CPU (work
 * the engines need not do later), unless GPUFILT_GPU_DECODE=2 has them
 * wait.
 */
int
jdec_ready(struct engine *en)
{
	int on;

	if (en->jdec.wait && en->jdec.wanted)
		devices_decision(en);
	pthread_mutex_lock(&en->mu);
	if (!en->jdec.seen) {
		en->jdec.seen = 1;      /* the decoders open their engines now */
		pthread_cond_broadcast(&en->jdec.cv);
	}
	while (en->jdec.wait && !en->jdec.on && en->jdec.pending > 0)
		pthread_cond_wait(&en->cv, &en->mu);
	on = en->jdec.on && !(en->jdec.share &&
	    en->jdec.queue.n >= 2 * en->jdec.batch);
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
 * With now, waits for nothing: a whole batch if one is queued, else 0.
 */
static int
jdec_take(struct engine *en, struct slot **slots, int now)
{
	struct jdec_stage *j = &en->jdec;
	struct timespec until;
	struct slot *s;
	int n = 0;

	pthread_mutex_lock(&en->mu);
	if (now && j->queue.n < j->batch) {
		pthread_mutex_unlock(&en->mu);
		return 0;
	}
	while (j->queue.n == 0 && en->readers_left > 0)
		pthread_cond_wait(&j->cv, &en->mu);
	gf_deadline(&until, JDEC_FILL_MS);
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
 * Makes batch bs ready for jd's engines: the slots they take, each with
 * a buffer of the pool (the others keep ybuf NULL and go to the CPU).
 */
static void
jdec_prepare(struct jdec *jd, struct jdec_set *bs)
{
	struct engine *en = jd->d->en;
	int me = jd->d->base.device;

	trace_job(en, bs->n, 'b', 'd', me);
	bs->m = 0;
	for (int i = 0; i < bs->n; i++) {
		struct slot *s = bs->taken[i];
		trace_mark(en, s, 'd', 'd', me);
		if (engine_job_failed(en, s->job) ||
		    !jpeg_gpu_supported(jd->b, s->bits.p, s->bits.len) ||
		    !jpeg_gpu_size_is(jd->b, s->bits.p, s->bits.len, s->bits.width,
		    s->bits.height) ||
		    jdec_buf_get(jd, s) < 0)
			continue;
		bs->slots[bs->m] = s;
		bs->p[bs->m] = s->bits.p;
		bs->len[bs->m] = s->bits.len;
		bs->dst[bs->m] = s->ybuf->p;
		bs->pitch[bs->m] = s->ybuf->pitch;
		bs->m++;
	}
	trace_job(en, bs->m, 'p', 'd', me);
}

/*
 * Gives batch bs to jd's engines: the call returns once they have it,
 * jdec_finish waits for them.
 */
static void
jdec_call(struct jdec *jd, struct jdec_set *bs)
{
	struct gf_err e = {0};

	if (bs->m == 0)
		return;
	bs->t0 = gf_now_ms();
	bs->r = jpeg_gpu_decode(jd->b, bs->m, bs->p, bs->len, bs->dst, bs->pitch,
	    jd->stream, bs->status, &e);
	trace_job(jd->d->en, bs->m, 'c', 'd', jd->d->base.device);
}

/*
 * Waits on the host for batch bs: an image the engines failed goes to
 * the CPU, each decoded one's share of the batch's time is its
 * t.decode.
 */
static void
jdec_finish(struct jdec *jd, struct jdec_set *bs)
{
	struct engine *en = jd->d->en;
	int r = bs->r;

	if (bs->m == 0)
		return;
	if (cudaStreamSynchronize(jd->stream) != cudaSuccess) {
		cudaGetLastError();
		r = -1;
	}
	trace_job(en, bs->m, 'y', 'd', jd->d->base.device);
	jd->busy_ms += gf_now_ms() - bs->t0;
	pthread_mutex_lock(&en->mu);
	for (int i = 0; i < bs->m; i++)
		if (++en->jdec.taken == en->jdec.fail_at)
			bs->status[i] = -1;     /* as if the engines had failed it */
	pthread_mutex_unlock(&en->mu);
	for (int i = 0; i < bs->m; i++) {
		struct slot *s = bs->slots[i];
		if (r < 0 || bs->status[i] != 0) {
			jdec_buf_put(jd, s->ybuf);
			s->ybuf = NULL;
			continue;
		}
		s->t.decode = (gf_now_ms() - bs->t0) / bs->m;
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

/*
 * Opens d's engines and a decode state on them (into d->jpeg, *b): 0, or
 * -1 with d->jpeg_err saying why not.
 */
static int
jdec_open_engines(struct device *d, int device, struct jpeg_gpu_batch **b)
{
	if (jpeg_gpu_open(&d->jpeg, device, &d->jpeg_err) < 0)
		return -1;
	if (jpeg_gpu_batch_open(d->jpeg, b, &d->jpeg_err) == 0)
		return 0;
	jpeg_gpu_close(d->jpeg);
	d->jpeg = NULL;
	return -1;
}

/*
 * Opens d's engines (jdec_early), and sets their decode state up for
 * batches of images like the run's first (the buffers that the first
 * batches would otherwise allocate, slowing them), best effort.
 */
static void *
jdec_early_main(void *arg)
{
	struct device *d = arg;
	struct engine *en = d->en;
	int device = d->number;
	unsigned char *p = NULL;
	long n = 0;
	FILE *f;

	if (device < 0 && cudaGetDevice(&device) != cudaSuccess) {
		cudaGetLastError();
		gf_fail(&d->jpeg_err, "no GPU JPEG decoding: no current GPU");
		return NULL;
	}
	if (jdec_open_engines(d, device, &d->early_b) < 0)
		return NULL;
	trace_job(en, -1, 'H', 'd', device);
	if ((f = fopen(en->jobs[0].input, "rb")) != NULL) {
		if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 &&
		    n <= (64L << 20) && fseek(f, 0, SEEK_SET) == 0 &&
		    (p = malloc((size_t)n)) != NULL &&
		    fread(p, 1, (size_t)n, f) == (size_t)n)
			jpeg_gpu_preallocate(d->early_b, en->jdec.batch, p, (size_t)n);
		fclose(f);
	}
	free(p);
	trace_job(en, -1, 'M', 'd', device);
	return NULL;
}

/*
 * Begins opening d's JPEG engines on a thread of their own, beside d's
 * context (engine_gpu.c calls this before making it), when a batch is
 * sure to want them: a gray tool, enough inputs (jdec_ready's rule) and
 * a first input that is a JPEG file.  nvJPEG's hardware open, its handle
 * and then a decode state, is slow; begun with the context, it ends
 * sooner than after it.  Its decoder takes what it
 * made (jdec_engines_open).
 */
void
jdec_early(struct device *d)
{
	struct engine *en = d->en;
	const char *first = en->jobs[0].input;
	struct stat st;
	FILE *f;
	int jpeg;

	/* A regular file only: opening a FIFO would wait for its writer. */
	if (!en->jdec.wanted || !en->tool->gray || first == NULL ||
	    strcmp(first, "-") == 0 ||
	    stat(first, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (f = fopen(first, "rb")) == NULL)
		return;
	jpeg = img_jpeg_bits_sniff(f);
	fclose(f);
	d->early = jpeg && pthread_create(&d->early_th, NULL, jdec_early_main,
	    d) == 0;
	if (d->early) {
		/* Engines opened for the run are used, whatever the inputs left. */
		pthread_mutex_lock(&en->mu);
		en->jdec.early = 1;
		pthread_mutex_unlock(&en->mu);
	}
}

/* Waits for d's early opening, if any; what it made stays in d. */
static void
jdec_early_join(struct device *d)
{
	if (d->early)
		pthread_join(d->early_th, NULL);
	d->early = 0;
}

/* A decoder's stream on its own thread: 0, or -1 (its batches go to the CPU). */
static int
jdec_stream_open(struct jdec *jd)
{
	if (cudaSetDevice(jd->d->base.device) != cudaSuccess ||
	    cudaStreamCreateWithFlags(&jd->stream, cudaStreamNonBlocking) !=
	    cudaSuccess) {
		cudaGetLastError();
		jd->stream = NULL;
		return -1;
	}
	return 0;
}

/*
 * Opens jd's engines once a reader has seen a JPEG (never for a batch
 * without one: loading nvJPEG and making its hardware decoder's handle
 * takes time, which no run waits for), or takes those jdec_early opened:
 * 1 when they are in use.
 */
static int
jdec_engines_open(struct jdec *jd)
{
	struct engine *en = jd->d->en;
	struct device *d = jd->d;
	int ok;

	pthread_mutex_lock(&en->mu);
	while (!en->jdec.seen && en->readers_left > 0 && !en->stop)
		pthread_cond_wait(&en->jdec.cv, &en->mu);
	/* Nothing to open for once the readers have ended with none queued. */
	ok = en->jdec.seen && !en->stop &&
	    (en->readers_left > 0 || en->jdec.queue.n > 0);
	pthread_mutex_unlock(&en->mu);
	if (d->early) {
		jdec_early_join(d);
		jd->b = d->early_b;
		d->early_b = NULL;
		ok = ok && jd->b != NULL;
	} else {
		ok = ok && jdec_open_engines(d, d->base.device, &jd->b) == 0;
	}
	ok = ok && jdec_stream_open(jd) == 0;
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
	struct jdec_set *cur = &jd->set[0], *next = &jd->set[1], *t;

	if (!jdec_engines_open(jd))
		return NULL;
	if ((cur->n = jdec_take(en, cur->taken, 0)) > 0)
		jdec_prepare(jd, cur);
	while (cur->n > 0) {
		jdec_call(jd, cur);
		/* The next batch made ready while the engines decode this one. */
		if ((next->n = jdec_take(en, next->taken, 1)) > 0)
			jdec_prepare(jd, next);
		jdec_finish(jd, cur);
		jdec_hand_on(jd, cur->taken, cur->n);
		if (next->n == 0 && (next->n = jdec_take(en, next->taken, 0)) > 0)
			jdec_prepare(jd, next);
		t = cur;
		cur = next;
		next = t;
	}
	return NULL;
}

/* Frees a decoder's host memory: its batches' arguments, and itself. */
static void
jdec_free(struct jdec *jd)
{
	for (int k = 0; k < 2; k++) {
		struct jdec_set *bs = &jd->set[k];
		free(bs->taken);
		free(bs->slots);
		free(bs->p);
		free(bs->len);
		free(bs->pitch);
		free(bs->dst);
		free(bs->status);
	}
	free(jd);
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
	for (int k = 0; k < 2; k++) {
		struct jdec_set *bs = &jd->set[k];
		bs->taken = calloc(n, sizeof(*bs->taken));
		bs->slots = calloc(n, sizeof(*bs->slots));
		bs->p = calloc(n, sizeof(*bs->p));
		bs->len = calloc(n, sizeof(*bs->len));
		bs->pitch = calloc(n, sizeof(*bs->pitch));
		bs->dst = calloc(n, sizeof(*bs->dst));
		bs->status = calloc(n, sizeof(*bs->status));
		if (bs->taken == NULL || bs->slots == NULL || bs->p == NULL ||
		    bs->len == NULL || bs->pitch == NULL || bs->dst == NULL ||
		    bs->status == NULL) {
			jdec_free(jd);
			return NULL;
		}
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
	/*
	 * Read once the decoders have ended: one may have been opening still.
	 * Served, once the server's engines decoded any (engine_stats_fill).
	 */
	st->jpeg_on = en->jdec.on || st->jpeg_engines > 0;
	st->jpeg_cpu = en->jdec.cpu;
	st->jpeg_unsure = en->jdec.unsure;
	st->jpeg_why[0] = '\0';
	for (int i = 0; !en->jdec.on && en->jdec.seen && i < en->gpus.ndev; i++)
		if (en->gpus.dev[i].jpeg_err.msg[0] != '\0')
			snprintf(st->jpeg_why, sizeof(st->jpeg_why), "%s",
			    en->gpus.dev[i].jpeg_err.msg);
}

/*
 * Frees d's decoder and engines (on the thread that closes d, opened or
 * not), once its early opening has ended; when the process exits next
 * (engine_hooks' exiting), the engines and what the decoder made on them
 * are left to the exit.
 */
void
jdec_close_device(struct device *d)
{
	struct jdec *jd = d->jdec;

	jdec_early_join(d);
#ifndef __SANITIZE_ADDRESS__
	if (d->en->exiting && d->jpeg != NULL)
		return;         /* nvJPEG's teardown: left to the exit */
#endif
	jpeg_gpu_batch_close(d->early_b);
	d->early_b = NULL;
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
		jdec_free(jd);
		d->jdec = NULL;
	}
	jpeg_gpu_close(d->jpeg);
	d->jpeg = NULL;
}

/*
 * A reader of the JPEG file's bytes b (fmemopen, into *f), that reads
 * them as the reader of the file itself would: in the same buffers, so
 * that libjpeg's verdict on damaged data is the same.  0, or -1 with e.
 */
static int
jdec_bytes_open(struct engine *en, const struct img_jpeg_bits *b, int job,
    FILE **f, struct img_reader **r, struct gf_err *e)
{
	struct img_frame fr = {.len = b->len, .file = 1};

	if ((*f = fmemopen(b->p, b->len, "rb")) == NULL)
		return gf_nomem(e, "out of memory");
	if (reader_open(en, r, *f, job, e) < 0) {
		fclose(*f);
		return -1;
	}
	img_reader_set_frame(*r, &fr);
	return 0;
}

int
jdec_check(struct engine *en, const struct img_jpeg_bits *b, int job)
{
	struct img_reader *r;
	struct image img = {0};
	struct gf_err e;
	FILE *f;
	int clean = 0;

	if (jdec_bytes_open(en, b, job, &f, &r, &e) < 0)
		return 0;
	img_reader_set_check(r, b->p, b->len);
	if (img_read_next(r, &img, &e) == 1 && img_reader_check_outside(r) == 0 &&
	    img.width == b->width && img.height == b->height)
		clean = 1;
	img_reader_close(r);
	fclose(f);
	if (!clean) {
		pthread_mutex_lock(&en->mu);
		en->jdec.unsure++;
		pthread_mutex_unlock(&en->mu);
	}
	return clean;
}

/*
 * Decodes slot s's JPEG bytes on the CPU (the engines refused or failed
 * it), as a reader would have, into s->cpu_px: s->in then holds the
 * pixels, and the lane goes on as for any image read.
 */
int
jdec_cpu_decode(struct engine *en, struct slot *s, struct gf_err *e)
{
	struct img_reader *r = NULL;
	struct image img = {0};
	FILE *f;
	int got = -1;

	if (jdec_bytes_open(en, &s->bits, s->job, &f, &r, e) < 0)
		return -1;
	got = img_read_next(r, &img, e);
	img_reader_close(r);
	fclose(f);
	if (got <= 0)
		return got == 0 ? gf_fail(e, "%s: no image", engine_job_name(en, s->job)) :
		    -1;
	if (jdec_cpu_done(en, s->job, &img, &s->in, e) < 0) {
		img_free(&img);
		return -1;
	}
	s->in = img;
	s->cpu_px = img.px;
	return 0;
}
