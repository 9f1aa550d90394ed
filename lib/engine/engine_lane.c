/*
 * engine_lane.c - the filter stage: lanes take work in arrival order and
 * run the tool on it, on the CPU or on a GPU, where an image goes up,
 * through the tool and down strip by strip over the lane's two streams,
 * plain memory through the lane's pinned staging buffers.
 */
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "planes.h"

/* A strip carries about this many bytes of input; smaller images go whole. */
#define STRIP_BYTES (16u << 20)
/*
 * A lane's two staging buffers, pinned: an image in plain memory (a
 * batch's) crosses the bus through them, the lane copying one while the
 * other moves.  The driver's own path for plain memory does the same
 * but does not grow with threads or GPUs (bench/hostbw).
 */
#define STAGE_BYTES ((size_t)4 << 20)

/* Rows per strip of in: the whole image unless the tool allows strips. */
static int
strip_rows(const struct engine *en, const struct image *in)
{
	size_t row = (size_t)in->width * in->channels * gf_sample_bytes(in->maxval);
	long rows;

	if (en->tool->halo < 0)
		return in->height;
	if (en->filter.strip_rows > 0)
		return en->filter.strip_rows;
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
		return gf_nomem(e, "out of memory");
	ln->ev = ev;
	for (; ln->nev < need; ln->nev++)
		GPU_TRY(e, cudaEventCreate(&ln->ev[ln->nev]));
	return 0;
}

/*
 * How many planes tl takes of an image like in at once: its colour
 * channels for a planes tool, else 1.
 */
static int
strip_planes(const struct tool *tl, const struct image *in)
{
	return tl->planes && !tl->gray ? img_colour_channels(in) : 1;
}

/*
 * The tool's work on the planes of one strip already on the device: a
 * gray tool's on the gray, a planes tool's on the colour planes stacked
 * in din (strip_planes), another's on each colour channel; alpha goes
 * from packed to packed_out through din unchanged, as on the CPU.
 */
static int
strip_filter(const struct tool *tl, struct gpu *g, struct slot *s, void *packed,
    void *packed_out, const struct gpu_image *din, const struct gpu_image *dout,
    struct gf_err *e)
{
	int ch = s->in.channels, alpha = ch - 1;

	if (ch == 1 || tl->gray ||
	    (tl->planes && strip_planes(tl, &s->in) == 1)) {
		if (ch != 1)
			GPU_TRY(e, planes_launch_gray(packed, ch, din, g->stream));
		return tl->gpu(tl->ctx, g, din, dout, &s->t, e);
	}
	if (tl->planes) {
		struct gpu_image p = *din;
		p.height = dout->height;
		for (int c = 0; c < img_colour_channels(&s->in); c++) {
			p.px = (char *)din->px + (size_t)c * p.height * din->pitch;
			GPU_TRY(e, planes_launch_copy(packed, ch, c, &p, 0, g->stream));
		}
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
 * Queues the upload of rows rows of slot s's input, from src (rows of
 * prow bytes), to dst on the device (pitch dpitch; packed: the
 * interleaved channels, rows back to back).  Plain memory goes through
 * the lane's staging buffers, if it has them.  A stage that decodes on
 * the GPU takes this step's place: the pixels are then made on the
 * device, not uploaded.
 */
static int
strip_upload(struct lane *ln, const struct slot *s, void *dst, size_t dpitch,
    int packed, const char *src, size_t prow, int rows, cudaStream_t st,
    struct gf_err *e)
{
	/* Pinned only if in the slot's buffer: not a CPU-decoded JPEG's. */
	int pinned = s->inbuf.pinned && s->in.px == s->inbuf.p;

	if (ln->stage[0] != NULL && !pinned && prow <= STAGE_BYTES)
		return stage_up(ln, dst, dpitch, src, prow, rows, st, e);
	if (!packed)
		GPU_TRY(e, cudaMemcpy2DAsync(dst, dpitch, src, prow, prow, rows,
		    cudaMemcpyHostToDevice, st));
	else
		GPU_TRY(e, cudaMemcpyAsync(dst, src, prow * rows,
		    cudaMemcpyHostToDevice, st));
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
	int rows = top + n + bot, ch = in->channels;
	int packed_out = tool_out_channels(en->tool, ch) > 1;
	size_t bps = gf_sample_bytes(in->maxval), prow = (size_t)in->width * ch * bps;
	size_t orow = packed_out ? prow :
	    (size_t)in->width * gf_sample_bytes(s->out.maxval);
	const char *src = (const char *)in->px + (size_t)(y0 - top) * prow;
	char *dst = (char *)s->out.px + (size_t)y0 * orow;
	struct gpu_image din, dout;
	void *pk = NULL, *pko = NULL;
	/* Plain memory goes down through the lane's staging buffers (if any). */
	int stage_out = ln->stage[0] != NULL && !s->outbuf.pinned &&
	    orow <= STAGE_BYTES;

	if (gpu_image_get(g, GPU_SLOT_IN, in->width, rows *
	    strip_planes(en->tool, in), in->maxval, &din, e) < 0 ||
	    gpu_image_get(g, GPU_SLOT_OUT, in->width, rows, s->out.maxval, &dout,
	    e) < 0 ||
	    (ch > 1 && gpu_scratch(g, GPU_SLOT_PACKED_IN, prow * rows, &pk, e) < 0) ||
	    (packed_out && gpu_scratch(g, GPU_SLOT_PACKED_OUT, prow * rows, &pko,
	    e) < 0))
		return -1;
	GPU_TRY(e, cudaEventRecord(ev[0], g->stream));
	if (strip_upload(ln, s, ch == 1 ? din.px : pk, ch == 1 ? din.pitch : prow,
	    ch > 1, src, prow, rows, g->stream, e) < 0)
		return -1;
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
	slot_post_done(en, s);
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

/* The same for a worker of the server's: its rows callback is told. */
static int
strips_told(struct lane *ln, struct slot *s, int rows, int nstrips,
    struct gf_err *e)
{
	for (int k = 0; k < nstrips; k++) {
		GPU_TRY(e, cudaEventSynchronize(ln->ev[4 * k + 3]));
		ln->rows(ln->rows_arg, (k + 1) * rows < s->in.height ?
		    (k + 1) * rows : s->in.height);
	}
	return 0;
}

/* One image on the GPU, strip by strip over the lane's two streams. */
int
lane_gpu(struct lane *ln, struct slot *s, struct gf_err *e)
{
	struct engine *en = ln->en;
	const struct image *in = &s->in;
	int rows = strip_rows(en, in), rc = 0;
	int nstrips = (in->height + rows - 1) / rows;

	if (s->out.px == NULL)
		return gf_nomem(e, "out of memory for a %d x %d image", in->width,
		    in->height);
	if (lane_events(ln, nstrips, e) < 0)
		return -1;
	for (int k = 0; k < nstrips && rc == 0; k++) {
		int y0 = k * rows, n = in->height - y0 < rows ? in->height - y0 : rows;
		rc = strip_queue(en, ln, &ln->sub[k % ln->nsub], s, y0, n, ln->ev + 4 * k,
		    e);
	}
	if (nstrips > 1 && rc == 0 && !ln->solo)
		rc = strips_to_writer(ln, s, rows, nstrips, e);
	else if (nstrips > 1 && rc == 0 && ln->rows != NULL)
		rc = strips_told(ln, s, rows, nstrips, e);
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

/*
 * One image whose luma the GPU's JPEG engines decoded on this lane's
 * device (y, as stored: in process the decoder's s->ybuf, in the server
 * the worker's): turned by its EXIF orientation (s->bits) into the
 * lane's input buffer where it must be, the tool's work, download into
 * s->out.  The upload time is the turning's.  Waits for its stream, so
 * that the buffer may go back to the decoder.
 */
int
lane_gpu_luma(struct lane *ln, struct slot *s, const struct gpu_image *y,
    struct gf_err *e)
{
	struct engine *en = ln->en;
	struct gpu *g = &ln->sub[0];
	const struct image *in = &s->in;
	struct gpu_image din, dout;
	size_t orow = (size_t)in->width * gf_sample_bytes(s->out.maxval);
	cudaEvent_t *ev;

	if (s->out.px == NULL)
		return gf_nomem(e, "out of memory for a %d x %d image", in->width,
		    in->height);
	if (lane_events(ln, 1, e) < 0 ||
	    gpu_image_get(g, GPU_SLOT_OUT, in->width, in->height, s->out.maxval,
	    &dout, e) < 0)
		return -1;
	ev = ln->ev;
	din = *y;
	GPU_TRY(e, cudaEventRecord(ev[0], g->stream));
	if (s->bits.orientation >= 2) {
		if (gpu_image_get(g, GPU_SLOT_IN, in->width, in->height, 255, &din,
		    e) < 0)
			return -1;
		GPU_TRY(e, planes_launch_orient(y, s->bits.orientation, &din,
		    g->stream));
	}
	GPU_TRY(e, cudaEventRecord(ev[1], g->stream));
	if (en->tool->gpu(en->tool->ctx, g, &din, &dout, &s->t, e) < 0)
		return -1;
	GPU_TRY(e, cudaEventRecord(ev[2], g->stream));
	if (ln->stage[0] != NULL && !s->outbuf.pinned && orow <= STAGE_BYTES) {
		if (stage_down(ln, s->out.px, dout.px, dout.pitch, orow, in->height,
		    g->stream, e) < 0)
			return -1;
	} else {
		GPU_TRY(e, cudaMemcpy2DAsync(s->out.px, orow, dout.px, dout.pitch,
		    orow, in->height, cudaMemcpyDeviceToHost, g->stream));
	}
	GPU_TRY(e, cudaEventRecord(ev[3], g->stream));
	GPU_TRY(e, cudaStreamSynchronize(g->stream));
	if (strip_times(ln, 1, &s->t, e) < 0)
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

int
lane_open(struct lane *ln, struct gf_err *e)
{
	for (ln->nsub = 0; ln->nsub < 2; ln->nsub++)
		if (gpu_open_stream(&ln->sub[ln->nsub], &ln->dev->base, e) < 0)
			return -1;
	if (ln->en->filter.staging)
		lane_stage_open(ln);
	return 0;
}

void
lane_close(struct lane *ln)
{
	for (int i = 0; i < ln->nev; i++)
		cudaEventDestroy(ln->ev[i]);
	free(ln->ev);
	lane_stage_close(ln);
	for (int i = 0; i < ln->nsub; i++)
		gpu_close(&ln->sub[i]);
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
	struct gpu_image y;
	int rc = -1, broken = 1;

	s->device = d->base.device;
	if (open_err != NULL) {
		s->err = *open_err;
	} else if (device_begin(en, d)) {
		gf_fail(&s->err, "GPUFILT_FAIL_GPU made it fail at its image %d",
		    en->gpus.fail_at);
	} else if (s->bits.len > 0 && s->ybuf == NULL &&
	    jdec_cpu_decode(en, s, &s->err) < 0) {
		broken = 0;     /* the image is bad, not the device */
	} else {
		rc = s->ybuf != NULL ? lane_gpu_luma(ln, s, jdec_luma(s, &y),
		    &s->err) : lane_gpu(ln, s, &s->err);
		broken = rc < 0 && cudaDeviceSynchronize() != cudaSuccess;
	}
	s->failed = rc < 0;
	if (open_err == NULL)
		device_end(en, d, rc == 0);
	if (broken)
		device_fail(en, d, s);
	else if (s->failed && en->gpus.ndev > 1) {
		struct gf_err e = s->err;
		gf_fail(&s->err, "GPU %d (%s): %s", d->base.device, d->base.name,
		    e.msg);
	}
}

/*
 * The tool's CPU work on in into out (allocated by the tool), on the gray
 * of a colour image when the tool works on gray.
 */
int
cpu_filter(const struct tool *tl, const struct image *in, struct image *out,
    struct gf_times *t, struct gf_err *e)
{
	struct image gray = {0};
	int ret;

	if (tl->gray && in->channels != 1 && img_to_gray(in, &gray, e) < 0)
		return -1;
	ret = tl->cpu(tl->ctx, gray.px != NULL ? &gray : in, out, t, e);
	img_free(&gray);
	return ret;
}

/* Slot s on the CPU. */
static int
cpu_image(const struct tool *tl, struct slot *s)
{
	return cpu_filter(tl, &s->in, &s->out, &s->t, &s->err);
}

/*
 * The server's lane stopped working (it ended): the run stops, and its
 * error says so once, as device_fail's does for a GPU.
 */
static void
remote_fail(struct engine *en, struct slot *s)
{
	pthread_mutex_lock(&en->mu);
	if (!en->gpus.remote_broken) {
		en->gpus.remote_broken = 1;
		gf_fail(&en->gpus.broken_err, "%s image %d: %s",
		    engine_job_name(en, s->job), s->index, s->err.msg);
	}
	en->stop = 1;
	engine_wake(en);
	pthread_mutex_unlock(&en->mu);
	s->err.msg[0] = '\0';
}

/*
 * Slot s's output, of the tool's channels and maxval, allocated as the
 * CPU lane's tool would (img_alloc); -1 with s->err.
 */
static int
out_alloc(const struct tool *tl, struct slot *s)
{
	s->out = (struct image){s->in.width, s->in.height,
	    tool_out_channels(tl, s->in.channels),
	    tool_out_maxval(tl, s->in.maxval), NULL, 0};
	return img_alloc(&s->out, &s->err);
}

/*
 * A tall image's first rows rows came back from the server: the writer
 * gets the slot at the first of them, and each as it comes, as from
 * strips_to_writer.
 */
static void
remote_rows(void *arg, int rows)
{
	struct slot *s = arg;
	struct engine *en = s->en;

	if (!s->partial) {
		s->partial = 1;
		slot_post_done(en, s);
	}
	pthread_mutex_lock(&en->mu);
	s->rows_done = rows;
	pthread_cond_broadcast(&en->cv);
	pthread_mutex_unlock(&en->mu);
}

/*
 * Slot s through the server's lane ln->rl: on its GPU ln->dev, or on its
 * CPU (no dev), into s->out (the slot's buffer, or one of its own for
 * the CPU).  The server reads and writes the slot's buffers where they
 * lie when they are shared with it (hbuf_get).  As lane_image: an image
 * that fails there fails its job; a lane that breaks (the server ended,
 * its GPU broke) stops the run.
 */
static void
lane_remote(struct lane *ln, struct slot *s, const struct gf_err *open_err)
{
	struct engine *en = ln->en;
	struct device *d = ln->dev;
	int rc = -2, gpu = d != NULL ? (int)(d - en->gpus.dev) : -1;

	s->device = d != NULL ? d->base.device : -1;
	if (open_err != NULL) {
		s->err = *open_err;
	} else if (d != NULL && device_begin(en, d)) {
		gf_fail(&s->err, "GPUFILT_FAIL_GPU made it fail at its image %d",
		    en->gpus.fail_at);
	} else if (s->out.px == NULL && out_alloc(en->tool, s) < 0) {
		rc = -1;        /* no output buffer: the CPU's, as the tool's would be */
	} else {
		struct remote_rows rows = {remote_rows, s};
		double t0 = gf_now_ms();
		int bytes = s->bits.len > 0 && s->in.px == NULL;
		s->out_malloced = s->out_malloced || s->outbuf.p != s->out.px;
		/*
		 * A JPEG kept as its bytes: the server's engines decode it, or
		 * it declines, and it is decoded here and sent as pixels.
		 */
		rc = bytes ? remote_filter_jpeg(ln->rl, gpu, &s->bits,
		    s->inbuf.shared ? &s->inbuf.shm : NULL, &s->out,
		    s->outbuf.shared ? &s->outbuf.shm : NULL, &s->t, &s->err) : 1;
		ln->served += rc == 0 && bytes;
		if (rc == 1 && bytes && (s->split_bytes > 0 ?
		    split_cpu_decode(en, s, &s->err) :
		    jdec_cpu_decode(en, s, &s->err)) < 0)
			rc = -1;
		else if (rc == 1)
			rc = remote_filter(ln->rl, gpu, &s->in, s->inbuf.shared ?
			    &s->inbuf.shm : NULL, &s->out, s->outbuf.shared ?
			    &s->outbuf.shm : NULL, &rows, &s->t, &s->err);
		if (d == NULL)
			s->t.cpu = gf_now_ms() - t0;
	}
	s->failed = rc < 0;
	if (d != NULL && open_err == NULL)
		device_end(en, d, rc == 0);
	if (rc == -2 && d != NULL)
		device_fail(en, d, s);
	else if (rc == -2)
		remote_fail(en, s);
	else if (s->failed && d != NULL && en->gpus.ndev > 1) {
		struct gf_err e = s->err;
		gf_fail(&s->err, "GPU %d (%s): %s", d->base.device, d->base.name,
		    e.msg);
	}
}

void
lanes_widen(struct engine *en)
{
	struct filter_stage *f = &en->filter;
	int more;

	pthread_mutex_lock(&en->mu);
	more = f->nlanes - f->active;
	if (more > 0) {
		f->active = f->nlanes;
		pthread_cond_broadcast(&f->widen_cv);
	}
	pthread_mutex_unlock(&en->mu);
	if (more > 0)
		slot_pool_add(en, &en->read.rd[0], more, 0);
}

/*
 * Whether lane me takes work: at once when it is one of filter.active,
 * else once lanes_widen makes it one; 0 when the readers end first.
 */
static int
lane_turn(struct engine *en, int me)
{
	int go;

	pthread_mutex_lock(&en->mu);
	while (me >= en->filter.active && en->readers_left > 0 && !en->stop)
		pthread_cond_wait(&en->filter.widen_cv, &en->mu);
	go = me < en->filter.active;
	pthread_mutex_unlock(&en->mu);
	return go;
}

void *
lane_main(void *arg)
{
	struct lane *ln = arg;
	struct engine *en = ln->en;
	const struct tool *tl = en->tool;
	struct gf_err open_err = {0};
	/*
	 * A lane of a server connects at its first image (-1 till then): one
	 * that gets none, as most do for one input or one that fails to
	 * decode, costs the server no connection and this process no
	 * thread's malloc arena (64 MB of address space each).
	 */
	int opened = en->gpus.remote ? -1 :
	    ln->dev == NULL || lane_open(ln, &open_err) == 0;
	struct slot *s;

	int me = (int)(ln - en->filter.ln), go = lane_turn(en, me);

	while (go && (s = slot_take_work(en, ln->dev)) != NULL) {
		double t0 = gf_now_ms();
		trace_mark(en, s, 'l', 'l', me);
		if (engine_job_failed(en, s->job)) {
			s->failed = 1;
		} else if (en->gpus.remote) {
			if (opened < 0)
				opened = remote_lane_open(en->o->remote, &ln->rl,
				    &open_err) == 0;
			lane_remote(ln, s, opened ? NULL : &open_err);
		} else if (ln->dev != NULL) {
			lane_image(ln, s, opened ? NULL : &open_err);
		} else {
			s->failed = cpu_image(tl, s) < 0;
			s->out_malloced = !s->failed;
			s->t.cpu = gf_now_ms() - t0;
		}
		ln->busy_ms += gf_now_ms() - t0;
		trace_mark(en, s, 'L', 'l', me);
		jdec_buf_release(en, ln->dev, s);
		free(s->cpu_px);
		s->cpu_px = NULL;
		if (s->partial) {
			pthread_mutex_lock(&en->mu);
			s->lane_done = 1;
			pthread_cond_broadcast(&en->cv);
			pthread_mutex_unlock(&en->mu);
		} else {
			slot_post_done(en, s);
		}
	}
	if (en->gpus.remote)
		remote_lane_close(ln->rl);
	else if (ln->dev != NULL)
		lane_close(ln);
	return NULL;
}
