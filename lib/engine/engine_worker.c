/*
 * engine_worker.c - the server's workers (engine.h): a lane outside a
 * run, which filters one image at a time in a client's window, on the
 * lane's code (engine_lane.c), or has a client's JPEG decoded on its
 * GPU's engines first (their queue, shared by the GPU's workers), once
 * the walk over its scan on the GPU (kernels/jpeg_walk.cu) has given
 * libjpeg-turbo's verdict: clean; and the CPU's filter for the server.
 */
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"

struct engine_worker {
	struct engine en;       /* what the lane reads of a run: tool, strips */
	struct device dev;
	struct lane ln;
	unsigned char *bits;    /* a client's JPEG, copied: its own can change */
	size_t bits_cap;
	struct jpeg_walker *walker;     /* made ahead, or at its first JPEG */
};

int
engine_worker_open(struct engine_worker **wp, const struct gpu *base,
    struct gf_err *e)
{
	struct engine_worker *w = calloc(1, sizeof(*w));

	*wp = NULL;
	if (w == NULL)
		return gf_nomem(e, "out of memory");
	pthread_mutex_init(&w->en.mu, NULL);
	pthread_cond_init(&w->en.cv, NULL);
	w->en.filter.staging = 1;       /* the client's window is plain memory */
	w->dev.en = &w->en;
	w->dev.base = *base;
	w->dev.base.owns_shared = 0;
	w->dev.opened = 1;
	w->ln.en = &w->en;
	w->ln.dev = &w->dev;
	w->ln.solo = 1;
	if (lane_open(&w->ln, e) < 0) {
		engine_worker_close(w);
		return -1;
	}
	*wp = w;
	return 0;
}

int
engine_worker_filter(struct engine_worker *w, const struct tool *t,
    int strip_rows, const struct image *in, struct image *out, int pinned,
    void (*rows)(void *arg, int n), void *arg, struct gf_times *tm,
    struct gf_err *e)
{
	struct slot s;
	int rc;

	memset(&s, 0, sizeof(s));
	w->en.tool = t;
	w->en.filter.strip_rows = strip_rows > 0 ? strip_rows : 0;
	s.en = &w->en;
	s.in = *in;
	s.out = *out;
	/* As a slot's pinned buffers: strip_upload and strip_queue move them directly. */
	s.inbuf.p = in->px;
	s.inbuf.pinned = pinned & 1;
	s.outbuf.p = out->px;
	s.outbuf.pinned = (pinned & 2) != 0;
	w->ln.rows = rows;
	w->ln.rows_arg = arg;
	GPU_TRY(e, cudaSetDevice(w->dev.base.device));
	rc = lane_gpu(&w->ln, &s, e);
	*tm = s.t;
	return rc;
}

/* A JPEG of a worker's, for worker_walk. */
struct walk {
	struct engine_worker *w;
	size_t len;
	int width, height;
};

/*
 * Whether libjpeg-turbo decodes the worker's copy of a client's JPEG (wk:
 * len bytes) as the engines do, to a luma of width x height: its header read
 * by libjpeg (no larger than that), its scan walked on the GPU
 * (jpeg_walk.h), clean with no block outside the engines' range.  1 yes,
 * 0 no or not known (no memory for the walk: the client then decodes
 * it), -1 with e when the GPU failed.
 */
static int
worker_walk(void *arg, struct gf_err *e)
{
	const struct walk *wk = arg;
	struct engine_worker *w = wk->w;
	size_t len = wk->len;
	int width = wk->width, height = wk->height;
	struct img_frame fr = {.len = len, .file = 1};
	struct jw_plan pl;
	struct img_jpeg_plan pp = {&pl, NULL, len, 0};
	struct img_reader *r;
	struct image img = {0};
	struct gf_err why;
	long outside;
	FILE *f;
	int got;

	/*
	 * A baseline scan holds at most 27 bits a coefficient: under 24
	 * bytes a pixel with three components and every byte stuffed.  A
	 * file larger than that (and a megabyte of markers) cannot be clean,
	 * and is not pinned for a walk.
	 */
	if (len > 24 * (size_t)width * (size_t)height + ((size_t)1 << 20))
		return 0;
	if (w->walker == NULL && jpeg_walker_open(&w->walker, &why) < 0)
		return 0;
	if ((pp.data = jpeg_walker_buffer(w->walker, len, &why)) == NULL)
		return 0;
	if ((f = fmemopen(w->bits, len, "rb")) == NULL)
		return 0;
	if (img_reader_open(&r, f, "a client's JPEG", &why) < 0) {
		fclose(f);
		return 0;
	}
	img_reader_set_gray(r, 1);
	img_reader_set_frame(r, &fr);
	img_reader_set_max_pixels(r, (long long)width * height);
	img_reader_set_check(r, w->bits, len);
	img_reader_set_plan(r, &pp);
	got = img_read_next(r, &img, &why);
	outside = img_reader_check_outside(r);
	img_reader_close(r);
	fclose(f);
	if (got != 1 || outside != 0 || img.width != width || img.height != height)
		return 0;
	if (jpeg_walker_run(w->walker, &pl, pp.len, w->ln.sub[0].stream, &outside,
	    e) < 0)
		return -1;
	return outside == 0;
}

int
engine_worker_filter_jpeg(struct engine_worker *w, struct jpeg_gpu_queue *q,
    const struct tool *t, const unsigned char *bits, size_t len, int width,
    int height, int orientation, struct image *out, int out_pinned,
    struct gf_times *tm, int *declined, struct gf_err *e)
{
	struct gpu *g = &w->ln.sub[0];
	struct gpu_image y;
	struct slot s;
	struct walk wk = {w, len, width, height};
	int turned = orientation >= 5, rc;
	double t0;              /* then the walk's and the decode's time */

	*declined = 0;
	memset(tm, 0, sizeof(*tm));
	GPU_TRY(e, cudaSetDevice(w->dev.base.device));
	if (out->width != (turned ? height : width) ||
	    out->height != (turned ? width : height) || out->channels != 1)
		return gf_fail(e, "a JPEG of %d x %d (orientation %d) into a %d x %d "
		    "image of %d channels", width, height, orientation, out->width,
		    out->height, out->channels);
	if (gpu_image_get(g, GPU_SLOT_PACKED_IN, width, height, 255, &y, e) < 0)
		return -1;
	/*
	 * The engines read a copy: the client could change its window's
	 * bytes between nvJPEG's reading of the header (the size it must
	 * write at) and the decode.
	 */
	if (len > w->bits_cap) {
		unsigned char *p = realloc(w->bits, len);
		if (p == NULL)
			return gf_nomem(e, "out of memory for a JPEG of %zu bytes", len);
		w->bits = p;
		w->bits_cap = len;
	}
	memcpy(w->bits, bits, len);
	/*
	 * The walk runs while the engines decode: the luma is used only if
	 * it is clean.  The worker's stream is idle (its last image was
	 * waited for), and the queue's thread has waited for its own: the
	 * luma is there.
	 */
	t0 = gf_now_ms();
	if ((rc = jpeg_gpu_queue_decode(q, w->bits, len, y.px, y.pitch, width,
	    height, worker_walk, &wk, e)) != 0) {
		*declined = rc > 0;
		return rc > 0 ? 0 : -1;
	}
	t0 = gf_now_ms() - t0;
	memset(&s, 0, sizeof(s));
	w->en.tool = t;
	w->en.filter.strip_rows = 0;
	s.en = &w->en;
	s.in = (struct image){out->width, out->height, 1, 255, NULL, 0};
	s.out = *out;
	s.outbuf.p = out->px;
	s.outbuf.pinned = out_pinned;
	s.bits.width = width;
	s.bits.height = height;
	s.bits.orientation = orientation;
	w->ln.rows = NULL;
	rc = lane_gpu_luma(&w->ln, &s, &y, e);
	*tm = s.t;
	tm->engines = 1;
	tm->decode = t0;
	return rc;
}

int
engine_worker_broken(struct engine_worker *w)
{
	return cudaSetDevice(w->dev.base.device) != cudaSuccess ||
	    cudaDeviceSynchronize() != cudaSuccess;
}

int
engine_worker_warm(struct engine_worker *w, struct gf_err *e)
{
	GPU_TRY(e, cudaSetDevice(w->dev.base.device));
	return w->walker == NULL ? jpeg_walker_open(&w->walker, e) : 0;
}

void
engine_worker_close(struct engine_worker *w)
{
	if (w == NULL)
		return;
	lane_close(&w->ln);
	jpeg_walker_close(w->walker);
	free(w->bits);
	pthread_mutex_destroy(&w->en.mu);
	pthread_cond_destroy(&w->en.cv);
	free(w);
}

int
engine_cpu_filter(const struct tool *t, const struct image *in,
    struct image *out, struct gf_times *tm, struct gf_err *e)
{
	return cpu_filter(t, in, out, tm, e);
}
