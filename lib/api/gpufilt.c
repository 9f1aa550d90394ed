/*
 * gpufilt.c - libgpufilt's public API (gpufilt.h) over the tools'
 * operations: the public options become the tools' option structs
 * (lib/api/gpufilt_opts.c), and an image goes through the tool's filter
 * (lib/tool/tool.h) as the engine runs it: on the CPU as a run's CPU
 * lane, on a GPU through an engine worker (lib/engine/engine.h: a lane
 * outside a run, as the server keeps per GPU) that the context keeps
 * between calls.
 * Internal messages (struct gf_err) become the caller's gf_error with a
 * code.  Only the names of lib/api/gpufilt.sym leave the shared library.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "gpu.h"
#include "gpufilt.h"
#include "gpufilt_opts.h"
#include "img.h"
#include "opts.h"

/*
 * The first stream opened on each GPU, whose shared state (struct
 * gpu_shared: the lock and last contents of the device's constant
 * memory) every context on that GPU shares, as the device shares its
 * constant memory among everything in the process.  Opened on first use
 * and kept until the process ends: one of lib/'s three mutable globals
 * (HACKING.md).
 */
#define GF_LIB_MAX_GPUS 64
static pthread_mutex_t device_bases_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gpu device_bases[GF_LIB_MAX_GPUS];

struct gf_context {
	pthread_mutex_t lock;   /* one call at a time */
	int on_gpu;
	/* The host calls' lane on its GPU: opened by the first, kept. */
	struct engine_worker *worker;
	struct gpu g;           /* the device calls': a stream and buffers */
	cudaEvent_t done;       /* after the last device call's use of g */
};

/* ---- errors */

static int
fail(gf_error *err, int code, const char *msg)
{
	if (err != NULL) {
		err->code = code;
		snprintf(err->message, sizeof(err->message), "%s", msg);
	}
	return code;
}

static int
succeed(gf_error *err)
{
	if (err != NULL) {
		err->code = GF_OK;
		err->message[0] = '\0';
	}
	return GF_OK;
}

/* The code of a failed host filter: out of memory (gf_nomem), or a value it refused. */
static int
cpu_code(const struct gf_err *e)
{
	return e->nomem ? GF_ENOMEM : GF_EINVAL;
}

const char *
gf_version(void)
{
	return GF_VERSION_STRING;
}

const char *
gf_strerror(int code)
{
	static const char *const words[] = {
		"success", "invalid argument or option", "out of memory",
		"no usable GPU", "the GPU run failed", "cannot read or write the image"
	};

	if (code < 0 || code >= (int)(sizeof(words) / sizeof(words[0])))
		return "unknown error code";
	return words[code];
}

void
gf_options_init(gf_options *o)
{
	memset(o, 0, sizeof(*o));
	o->threshold = -1;
	o->sigma = 1.4;
	o->low = o->high = -1;
}


/* ---- contexts */

/* The base of GPU dev, opened on first use (device_bases). */
static struct gpu *
device_base(int dev, struct gf_err *e)
{
	struct gpu *b = NULL;

	if (dev < 0 || dev >= GF_LIB_MAX_GPUS) {
		gf_fail(e, "GPU number %d is out of range; it must be 0 to %d", dev,
		    GF_LIB_MAX_GPUS - 1);
		return NULL;
	}
	pthread_mutex_lock(&device_bases_lock);
	if (device_bases[dev].shared != NULL ||
	    gpu_open(&device_bases[dev], dev, e) == 0)
		b = &device_bases[dev];
	else
		gpu_close(&device_bases[dev]);
	pthread_mutex_unlock(&device_bases_lock);
	return b;
}

/* Opens ctx's stream on GPU dev (-1: the default one). */
static int
context_gpu(gf_context *ctx, int dev, struct gf_err *e)
{
	struct gpu *base;
	int n;

	if (gpu_count(&n, e) < 0)
		return -1;
	if (dev < 0)
		GPU_TRY(e, cudaGetDevice(&dev));
	if (dev >= n)
		return gf_fail(e, "there is no GPU number %d; this machine has %d "
		    "(0 to %d)", dev, n, n - 1);
	if ((base = device_base(dev, e)) == NULL ||
	    gpu_open_stream(&ctx->g, base, e) < 0)
		return -1;
	GPU_TRY(e, cudaEventCreateWithFlags(&ctx->done, cudaEventDisableTiming));
	ctx->on_gpu = 1;
	return 0;
}

/* Gives back what context_gpu opened: ctx runs on the CPU after. */
static void
context_drop_gpu(gf_context *ctx)
{
	int prev;

	if (ctx->g.shared == NULL)
		return;
	if (cudaGetDevice(&prev) != cudaSuccess)
		prev = -1;
	if (ctx->done != NULL) {
		/* The last device call may still read g's texture and buffers. */
		(void)cudaSetDevice(ctx->g.device);
		(void)cudaEventSynchronize(ctx->done);
		(void)cudaEventDestroy(ctx->done);
		ctx->done = NULL;
	}
	/* The worker is idle: each host call waited for its own work. */
	engine_worker_close(ctx->worker);
	ctx->worker = NULL;
	gpu_close(&ctx->g);
	ctx->on_gpu = 0;
	if (prev >= 0)
		(void)cudaSetDevice(prev);
}

gf_context *
gf_open(int device, gf_error *err)
{
	gf_context *ctx;
	struct gf_err e = {0};
	int prev;

	if (device < GF_DEVICE_CPU) {
		snprintf(e.msg, sizeof(e.msg), "device %d is not a GPU number, "
		    "GF_DEVICE_AUTO or GF_DEVICE_CPU", device);
		fail(err, GF_EINVAL, e.msg);
		return NULL;
	}
	if ((ctx = calloc(1, sizeof(*ctx))) == NULL) {
		fail(err, GF_ENOMEM, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&ctx->lock, NULL);
	if (device == GF_DEVICE_CPU) {
		succeed(err);
		return ctx;
	}
	if (cudaGetDevice(&prev) != cudaSuccess)
		prev = -1;
	if (context_gpu(ctx, device, &e) < 0) {
		context_drop_gpu(ctx);
		if (device >= 0) {          /* asked for: an error; AUTO: the CPU */
			gf_close(ctx);
			fail(err, GF_ENOGPU, e.msg);
			return NULL;
		}
	}
	if (prev >= 0)
		(void)cudaSetDevice(prev);
	succeed(err);
	return ctx;
}

void
gf_close(gf_context *ctx)
{
	if (ctx == NULL)
		return;
	context_drop_gpu(ctx);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
}

int
gf_device(const gf_context *ctx)
{
	return ctx != NULL && ctx->on_gpu ? ctx->g.device : -1;
}

/* ---- images */

/* in as a host image of the tools: a view when packed, else a packed copy in *copy. */
static int
host_view(const gf_image *in, struct image *img, struct image *copy,
    struct gf_err *e)
{
	size_t row;

	*img = (struct image){in->width, in->height, in->channels, in->maxval,
	    in->data, in->offset_binary != 0};
	row = (size_t)in->width * in->channels * gf_sample_bytes(in->maxval);
	if (in->stride == 0 || in->stride == row)
		return 0;
	*copy = *img;
	if (img_alloc(copy, e) < 0)
		return -1;
	for (int y = 0; y < in->height; y++)
		memcpy((char *)copy->px + y * row, (const char *)in->data +
		    y * in->stride, row);
	*img = *copy;
	return 0;
}

/* Refuses an image the filters cannot take; what names it in the message. */
static int
image_check(const gf_image *im, const char *what, int device, struct gf_err *e)
{
	size_t row;

	if (im == NULL || im->data == NULL)
		return gf_fail(e, "the %s image is NULL or has no data", what);
	if (im->width < 1 || im->height < 1 || im->width > GF_MAX_DIM ||
	    im->height > GF_MAX_DIM)
		return gf_fail(e, "the %s image is %d x %d pixels; each side must "
		    "be 1 to %d", what, im->width, im->height, GF_MAX_DIM);
	if (im->maxval < 1 || im->maxval > 65535)
		return gf_fail(e, "the %s image's maxval is %u; it must be 1 to "
		    "65535", what, im->maxval);
	if (im->channels < 1 || im->channels > (device ? 1 : 4))
		return gf_fail(e, "the %s image has %d channels; %s", what,
		    im->channels, device ? "a device image has 1 (colour, and "
		    "colour \"channels\" or \"max\" of it, take the host calls)" :
		    "it must have 1 to 4");
	row = (size_t)im->width * im->channels * gf_sample_bytes(im->maxval);
	if (im->stride != 0 && im->stride < row)
		return gf_fail(e, "the %s image's stride is %zu bytes, less than "
		    "a row of %zu", what, im->stride, row);
	if (device && (im->stride % 256 != 0 || (uintptr_t)im->data % 256 != 0))
		return gf_fail(e, "the %s device image's data and stride must be "
		    "multiples of 256 bytes, as cudaMallocPitch gives; they are "
		    "%p and %zu", what, im->data, im->stride);
	return 0;
}

static void
image_out(const struct image *res, gf_image *out)
{
	out->width = res->width;
	out->height = res->height;
	out->channels = res->channels;
	out->maxval = res->maxval;
	out->stride = (size_t)res->width * res->channels *
	    gf_sample_bytes(res->maxval);
	out->data = res->px;
	out->offset_binary = res->offset_binary;
}

void
gf_image_free(gf_image *img)
{
	if (img != NULL) {
		free(img->data);
		img->data = NULL;
	}
}

int
gf_load(const char *path, gf_image *img, int flags, gf_error *err)
{
	return gf_load_icc(path, img, flags, NULL, NULL, err);
}

int
gf_load_icc(const char *path, gf_image *img, int flags, void **icc,
    size_t *icc_len, gf_error *err)
{
	struct image res = {0};
	struct img_icc prof = {0};
	struct gf_err e = {0};

	if (path == NULL || img == NULL || (icc == NULL) != (icc_len == NULL))
		return fail(err, GF_EINVAL, "gf_load needs a path and an image, "
		    "and gf_load_icc both icc and icc_len or neither");
	if (flags & ~(GF_LOAD_GRAY | GF_LOAD_AS_STORED)) {
		snprintf(e.msg, sizeof(e.msg), "gf_load's flags are 0x%x; only "
		    "GF_LOAD_GRAY and GF_LOAD_AS_STORED are known", (unsigned)flags);
		return fail(err, GF_EINVAL, e.msg);
	}
	if (img_load_icc(path, (flags & GF_LOAD_GRAY) != 0, (flags &
	    GF_LOAD_AS_STORED) == 0, &res, icc != NULL ? &prof : NULL, &e) < 0)
		return fail(err, cpu_code(&e) == GF_ENOMEM ? GF_ENOMEM : GF_EIMAGE,
		    e.msg);
	image_out(&res, img);
	if (icc != NULL) {
		*icc = prof.p;
		*icc_len = prof.len;
	}
	return succeed(err);
}

int
gf_save(const char *path, const gf_image *img, gf_error *err)
{
	return gf_save_icc(path, img, NULL, 0, err);
}

int
gf_save_icc(const char *path, const gf_image *img, const void *icc,
    size_t icc_len, gf_error *err)
{
	struct image view, copy = {0};
	struct img_icc prof = {(unsigned char *)icc, icc != NULL ? icc_len : 0, ""};
	struct gf_err e = {0};
	int ret;

	if (path == NULL)
		return fail(err, GF_EINVAL, "gf_save needs a path");
	if (image_check(img, "saved", 0, &e) < 0)
		return fail(err, GF_EINVAL, e.msg);
	if (img->offset_binary && img->maxval != 65535) {
		snprintf(e.msg, sizeof(e.msg), "the saved image is offset binary "
		    "(signed samples g + 32768) at maxval %u; signed samples are "
		    "16-bit, maxval 65535", img->maxval);
		return fail(err, GF_EINVAL, e.msg);
	}
	if (img_format_check(path, IMG_FORMAT_AUTO, &e) < 0)
		return fail(err, GF_EINVAL, e.msg);
	if (host_view(img, &view, &copy, &e) < 0)
		return fail(err, GF_ENOMEM, e.msg);
	ret = img_save_icc(path, &view, IMG_FORMAT_AUTO, &prof, &e);
	img_free(&copy);
	return ret < 0 ? fail(err, GF_EIMAGE, e.msg) : succeed(err);
}

/* ---- host images */

/* The calling thread's device becomes ctx's; *prev keeps the one it had. */
static int
device_enter(gf_context *ctx, int *prev, struct gf_err *e)
{
	GPU_TRY(e, cudaGetDevice(prev));
	GPU_TRY(e, cudaSetDevice(ctx->g.device));
	return 0;
}

/*
 * The tool's GPU work on in (any channels) into res (made here) through
 * ctx's engine worker, as a run's lane does it: strips for a tall image,
 * staging, colour made gray or split into planes on the device, alpha
 * carried through.  The worker waits for its work before it returns.
 * The first call opens it (a context of device calls alone never pins
 * its staging buffers).
 */
static int
host_on_gpu(gf_context *ctx, const struct op *op, const struct image *in,
    struct image *res, struct gf_err *e)
{
	struct gf_times t = {0};

	if (ctx->worker == NULL && engine_worker_open(&ctx->worker,
	    &device_bases[ctx->g.device], e) < 0)
		return -1;
	*res = (struct image){in->width, in->height,
	    tool_out_channels(&op->tool, in->channels),
	    tool_out_maxval(&op->tool, in->maxval), NULL, 0};
	if (img_alloc(res, e) < 0)
		return -1;
	/* The caller's memory and ours are plain: through the staging buffers. */
	if (engine_worker_filter(ctx->worker, &op->tool, 0, in, res, 0, NULL,
	    NULL, &t, e) < 0) {
		img_free(res);
		return -1;
	}
	return 0;
}

/* Runs op on in: the CPU, or the context's GPU; res is made here. */
static int
host_run(gf_context *ctx, const struct op *op, const struct image *in,
    struct image *res, struct gf_err *e)
{
	const enum gf_strategy s = op->common->strategy;
	struct gf_times t = {0};
	int prev, ret, code;

	if (s == GF_CPU || (s == GF_AUTO && !ctx->on_gpu)) {
		ret = engine_cpu_filter(&op->tool, in, res, &t, e);
		return ret < 0 ? cpu_code(e) : GF_OK;
	}
	if (!ctx->on_gpu) {
		gf_fail(e, "-m %s needs a GPU, and this context runs on the CPU; "
		    "give \"cpu\" or \"auto\", or open a GPU", gf_strategies[s].name);
		return GF_ENOGPU;
	}
	pthread_mutex_lock(&ctx->lock);
	code = GF_ECUDA;
	if (device_enter(ctx, &prev, e) == 0) {
		if (host_on_gpu(ctx, op, in, res, e) == 0)
			code = GF_OK;
		else if (e->nomem)
			code = GF_ENOMEM;
		(void)cudaSetDevice(prev);
	}
	pthread_mutex_unlock(&ctx->lock);
	return code;
}

static int
host_filter(enum op_kind kind, gf_context *ctx, const gf_image *in,
    gf_image *out, const gf_options *o, gf_error *err)
{
	struct image view, copy = {0}, res = {0};
	struct gf_err e = {0};
	struct op *op = NULL;
	int code = GF_EINVAL;

	if (ctx == NULL || out == NULL)
		return fail(err, GF_EINVAL, "the context or the output is NULL");
	if (image_check(in, "input", 0, &e) < 0 ||
	    (op = op_make(kind, o, &code, &e)) == NULL)
		return fail(err, code, e.msg);
	code = GF_ENOMEM;
	if (host_view(in, &view, &copy, &e) == 0)
		code = host_run(ctx, op, &view, &res, &e);
	/* As the engine marks a run's output before writing it. */
	res.offset_binary = op->tool.out_signed;
	img_free(&copy);
	free(op);
	if (code != GF_OK)
		return fail(err, code, e.msg);
	image_out(&res, out);
	return succeed(err);
}

int
gf_sobel(gf_context *ctx, const gf_image *in, gf_image *out,
    const gf_options *o, gf_error *err)
{
	return host_filter(OP_SOBEL, ctx, in, out, o, err);
}

int
gf_conv2d(gf_context *ctx, const gf_image *in, gf_image *out,
    const gf_options *o, gf_error *err)
{
	return host_filter(OP_CONV2D, ctx, in, out, o, err);
}

int
gf_edge(gf_context *ctx, const gf_image *in, gf_image *out,
    const gf_options *o, gf_error *err)
{
	return host_filter(OP_EDGE, ctx, in, out, o, err);
}

/* ---- device images */

/* Refuses a pointer that is not device memory of ctx's GPU. */
static int
device_pointer_check(const gf_context *ctx, const void *p, const char *what,
    struct gf_err *e)
{
	struct cudaPointerAttributes a;

	GPU_TRY(e, cudaPointerGetAttributes(&a, p));
	if ((a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged) ||
	    a.device != ctx->g.device)
		return gf_fail(e, "the %s image's data %p is not device memory of "
		    "GPU %d", what, p, ctx->g.device);
	return 0;
}

/*
 * op on the device images din, dout in stream, after the context's last
 * call (its buffers are reused); g's own stream is put back after.
 */
static int
device_run(gf_context *ctx, const struct op *op, const struct gpu_image *din,
    const struct gpu_image *dout, cudaStream_t stream, struct gf_err *e)
{
	struct gpu *g = &ctx->g;
	cudaStream_t own = g->stream;
	struct gf_times t = {0};
	int ret;

	GPU_TRY(e, cudaStreamWaitEvent(stream, ctx->done, 0));
	g->stream = stream;
	ret = op->tool.gpu(op->tool.ctx, g, din, dout, &t, e);
	g->stream = own;
	/* Recorded after a failure too: what was queued still uses the buffers. */
	if (ret < 0) {
		(void)cudaEventRecord(ctx->done, stream);
		return -1;
	}
	GPU_TRY(e, cudaEventRecord(ctx->done, stream));
	return 0;
}

static int
device_filter(enum op_kind kind, gf_context *ctx, const gf_image *in,
    const gf_image *out, const gf_options *o, struct CUstream_st *stream,
    gf_error *err)
{
	struct gf_err e = {0};
	struct op *op;
	struct gpu_image din, dout;
	int code = GF_EINVAL, prev;

	if (ctx == NULL)
		return fail(err, GF_EINVAL, "the context is NULL");
	if (!ctx->on_gpu)
		return fail(err, GF_ENOGPU, "the device calls need a context on a "
		    "GPU; this one runs on the CPU");
	if (image_check(in, "input", 1, &e) < 0 ||
	    image_check(out, "output", 1, &e) < 0)
		return fail(err, GF_EINVAL, e.msg);
	if ((op = op_make(kind, o, &code, &e)) == NULL)
		return fail(err, code, e.msg);
	if (out->width != in->width || out->height != in->height ||
	    out->maxval != tool_out_maxval(&op->tool, in->maxval)) {
		snprintf(e.msg, sizeof(e.msg), "the output is %d x %d (maxval %u); "
		    "it must be the input's %d x %d, maxval %u", out->width,
		    out->height, out->maxval, in->width, in->height,
		    tool_out_maxval(&op->tool, in->maxval));
		free(op);
		return fail(err, GF_EINVAL, e.msg);
	}
	if (op->common->strategy == GF_CPU) {
		free(op);
		return fail(err, GF_EINVAL, "-m cpu runs on host images; the device "
		    "calls take a GPU strategy or auto");
	}
	din = (struct gpu_image){in->data, in->stride, in->width, in->height,
	    in->maxval};
	dout = (struct gpu_image){out->data, out->stride, out->width,
	    out->height, out->maxval};
	pthread_mutex_lock(&ctx->lock);
	code = GF_ECUDA;
	if (device_enter(ctx, &prev, &e) == 0) {
		if (device_pointer_check(ctx, in->data, "input", &e) < 0 ||
		    device_pointer_check(ctx, out->data, "output", &e) < 0)
			code = GF_EINVAL;
		else if (device_run(ctx, op, &din, &dout, (cudaStream_t)stream,
		    &e) == 0)
			code = GF_OK;
		(void)cudaSetDevice(prev);
	}
	pthread_mutex_unlock(&ctx->lock);
	free(op);
	return code == GF_OK ? succeed(err) : fail(err, code, e.msg);
}

int
gf_sobel_device(gf_context *ctx, const gf_image *in, const gf_image *out,
    const gf_options *o, struct CUstream_st *stream, gf_error *err)
{
	return device_filter(OP_SOBEL, ctx, in, out, o, stream, err);
}

int
gf_conv2d_device(gf_context *ctx, const gf_image *in, const gf_image *out,
    const gf_options *o, struct CUstream_st *stream, gf_error *err)
{
	return device_filter(OP_CONV2D, ctx, in, out, o, stream, err);
}

int
gf_edge_device(gf_context *ctx, const gf_image *in, const gf_image *out,
    const gf_options *o, struct CUstream_st *stream, gf_error *err)
{
	return device_filter(OP_EDGE, ctx, in, out, o, stream, err);
}
