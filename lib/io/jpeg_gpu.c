/*
 * jpeg_gpu.c - the GPU's JPEG engines through nvJPEG's hardware backend
 * (see jpeg_gpu.h).  libnvjpeg is opened with dlopen and its entry points
 * looked up by name into a table per struct jpeg_gpu, so that a tool
 * starts, and runs as before, on a machine without it.  nvjpeg.h is
 * needed only to compile this file (its types and prototypes); without
 * it the file compiles to an open that says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "img.h"
#include "jpeg_gpu.h"

#ifdef GF_HAVE_NVJPEG

#include <dlfcn.h>

#include <nvjpeg.h>

/* The library's entry points that we call, looked up by name. */
#define JPEG_GPU_CALLS(X) \
	X(nvjpegCreateEx) X(nvjpegDestroy) X(nvjpegGetHardwareDecoderInfo) \
	X(nvjpegJpegStateCreate) X(nvjpegJpegStateDestroy) \
	X(nvjpegDecodeBatchedInitialize) X(nvjpegDecodeBatched) \
	X(nvjpegJpegStreamCreate) X(nvjpegJpegStreamDestroy) \
	X(nvjpegJpegStreamParseHeader) X(nvjpegDecodeBatchedSupported) \
	X(nvjpegGetImageInfo) X(nvjpegDecodeBatchedPreAllocate) \
	X(nvjpegSetDeviceMemoryPadding) X(nvjpegSetPinnedMemoryPadding)

struct jpeg_gpu {
	void *lib;              /* dlopen's */
	nvjpegHandle_t h;
	int device;
	unsigned engines, cores;
	double load_ms, handle_ms;      /* jpeg_gpu_open's */
#define JPEG_GPU_PTR(f) __typeof__(f) *f;
	struct {
		JPEG_GPU_CALLS(JPEG_GPU_PTR)
	} fn;
#undef JPEG_GPU_PTR
};

struct jpeg_gpu_batch {
	struct jpeg_gpu *j;
	nvjpegJpegState_t state;
	nvjpegJpegStream_t parsed;      /* jpeg_gpu_supported's */
	int size;               /* the batch size the state is set up for; 0: none */
	nvjpegImage_t *out;     /* cap of them */
	int cap;
};

/*
 * The library's names, in the order they are tried: the loader's search
 * path first, then the CUDA toolkit the build used (GF_CUDA_LIB), whose
 * lib64 the loader is often not told of.
 */
#ifndef GF_CUDA_LIB
#define GF_CUDA_LIB "/usr/local/cuda/lib64"
#endif
#define JPEG_GPU_PADDING ((size_t)16 << 20)     /* bytes */

static const char *const jpeg_gpu_libs[] = {"libnvjpeg.so.13", "libnvjpeg.so",
    GF_CUDA_LIB "/libnvjpeg.so.13"};

const char *
jpeg_gpu_status_text(int status)
{
	static const char *const text[] = {
		"success", "not initialized", "invalid parameter", "bad JPEG",
		"JPEG not supported", "allocator failure", "execution failed",
		"architecture mismatch", "internal error",
		"implementation not supported", "incomplete bitstream"
	};

	if (status >= 0 && status < (int)(sizeof(text) / sizeof(text[0])))
		return text[status];
	return "unknown nvJPEG status";
}

/* Loads libnvjpeg and looks up every entry point of j->fn. */
static int
jpeg_gpu_load(struct jpeg_gpu *j, struct gf_err *e)
{
	const char *missing = NULL;

	for (size_t i = 0; j->lib == NULL &&
	    i < sizeof(jpeg_gpu_libs) / sizeof(jpeg_gpu_libs[0]); i++)
		j->lib = dlopen(jpeg_gpu_libs[i], RTLD_NOW | RTLD_LOCAL);
	if (j->lib == NULL)
		return gf_fail(e, "no GPU JPEG decoding: libnvjpeg.so.13 is not "
		    "installed");
#define JPEG_GPU_SYM(f) \
	if ((*(void **)&j->fn.f = dlsym(j->lib, #f)) == NULL && missing == NULL) \
		missing = #f;
	JPEG_GPU_CALLS(JPEG_GPU_SYM)
#undef JPEG_GPU_SYM
	if (missing != NULL)
		return gf_fail(e, "no GPU JPEG decoding: libnvjpeg has no %s",
		    missing);
	return 0;
}

/*
 * The hardware backend's handle: bitstream errors are errors (strict),
 * not decoded around, so that a damaged file goes to the CPU's decoder
 * and its verdict; where the flag is refused, the default flags.
 */
static int
jpeg_gpu_handle(struct jpeg_gpu *j, struct gf_err *e)
{
	nvjpegStatus_t st = j->fn.nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, NULL,
	    NULL, NVJPEG_FLAGS_BITSTREAM_STRICT, &j->h);

	if (st != NVJPEG_STATUS_SUCCESS)
		st = j->fn.nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, NULL, NULL,
		    NVJPEG_FLAGS_DEFAULT, &j->h);
	if (st != NVJPEG_STATUS_SUCCESS) {
		j->h = NULL;
		return gf_fail(e, "no GPU JPEG decoding: GPU %d has no hardware "
		    "JPEG decoder (nvJPEG: %s)", j->device, jpeg_gpu_status_text(st));
	}
	st = j->fn.nvjpegGetHardwareDecoderInfo(j->h, &j->engines, &j->cores);
	if (st != NVJPEG_STATUS_SUCCESS || j->engines == 0)
		return gf_fail(e, "no GPU JPEG decoding: GPU %d reports no JPEG "
		    "engines (nvJPEG: %s)", j->device, jpeg_gpu_status_text(st));
	/*
	 * Room to spare in nvJPEG's buffers: a batch whose JPEGs outgrew
	 * them would free and allocate them again, and cudaFree waits for
	 * the whole GPU (a server's other work with it).
	 */
	if ((st = j->fn.nvjpegSetDeviceMemoryPadding(JPEG_GPU_PADDING, j->h)) !=
	    NVJPEG_STATUS_SUCCESS ||
	    (st = j->fn.nvjpegSetPinnedMemoryPadding(JPEG_GPU_PADDING, j->h)) !=
	    NVJPEG_STATUS_SUCCESS)
		return gf_fail(e, "GPU %d: nvJPEG takes no padding: %s", j->device,
		    jpeg_gpu_status_text(st));
	return 0;
}

int
jpeg_gpu_open(struct jpeg_gpu **jp, int device, struct gf_err *e)
{
	struct jpeg_gpu *j = calloc(1, sizeof(*j));
	cudaError_t err;

	*jp = NULL;
	if (j == NULL)
		return gf_nomem(e, "out of memory");
	j->device = device;
	if ((err = cudaSetDevice(device)) != cudaSuccess) {
		free(j);
		return gf_fail(e, "CUDA error at %s:%d: cudaSetDevice: %s",
		    __FILE__, __LINE__, cudaGetErrorString(err));
	}
	j->load_ms = gf_now_ms();
	if (jpeg_gpu_load(j, e) < 0) {
		jpeg_gpu_close(j);
		return -1;
	}
	j->handle_ms = gf_now_ms();
	j->load_ms = j->handle_ms - j->load_ms;
	if (jpeg_gpu_handle(j, e) < 0) {
		jpeg_gpu_close(j);
		return -1;
	}
	j->handle_ms = gf_now_ms() - j->handle_ms;
	*jp = j;
	return 0;
}

unsigned
jpeg_gpu_engines(const struct jpeg_gpu *j)
{
	return j->engines;
}

unsigned
jpeg_gpu_cores(const struct jpeg_gpu *j)
{
	return j->cores;
}

void
jpeg_gpu_open_times(const struct jpeg_gpu *j, double *load_ms,
    double *handle_ms)
{
	*load_ms = j->load_ms;
	*handle_ms = j->handle_ms;
}

void
jpeg_gpu_close(struct jpeg_gpu *j)
{
	if (j == NULL)
		return;
	if (j->h != NULL)
		j->fn.nvjpegDestroy(j->h);
	if (j->lib != NULL)
		dlclose(j->lib);
	free(j);
}

int
jpeg_gpu_batch_open(struct jpeg_gpu *j, struct jpeg_gpu_batch **bp,
    struct gf_err *e)
{
	struct jpeg_gpu_batch *b = calloc(1, sizeof(*b));
	nvjpegStatus_t st;

	*bp = NULL;
	if (b == NULL)
		return gf_nomem(e, "out of memory");
	b->j = j;
	if ((st = j->fn.nvjpegJpegStateCreate(j->h, &b->state)) != 0 ||
	    (st = j->fn.nvjpegJpegStreamCreate(j->h, &b->parsed)) != 0) {
		jpeg_gpu_batch_close(b);
		return gf_fail(e, "GPU %d: cannot make a JPEG decode state: nvJPEG: "
		    "%s", j->device, jpeg_gpu_status_text(st));
	}
	*bp = b;
	return 0;
}

void
jpeg_gpu_batch_close(struct jpeg_gpu_batch *b)
{
	if (b == NULL)
		return;
	if (b->parsed != NULL)
		b->j->fn.nvjpegJpegStreamDestroy(b->parsed);
	if (b->state != NULL)
		b->j->fn.nvjpegJpegStateDestroy(b->state);
	free(b->out);
	free(b);
}

/* jpeg_gpu_supported on the library j, parsing into parsed. */
static int
supported(const struct jpeg_gpu *j, nvjpegJpegStream_t parsed,
    const unsigned char *p, size_t len)
{
	int refused = 1;

	if (j->fn.nvjpegJpegStreamParseHeader(j->h, p, len, parsed) != 0 ||
	    j->fn.nvjpegDecodeBatchedSupported(j->h, parsed, &refused) != 0)
		return 0;
	return refused == 0;
}

int
jpeg_gpu_supported(struct jpeg_gpu_batch *b, const unsigned char *p,
    size_t len)
{
	return supported(b->j, b->parsed, p, len);
}

/* jpeg_gpu_size_is on the library j. */
static int
size_is(const struct jpeg_gpu *j, const unsigned char *p, size_t len,
    int width, int height)
{
	nvjpegChromaSubsampling_t css;
	int comps, w[NVJPEG_MAX_COMPONENT], h[NVJPEG_MAX_COMPONENT];

	if (j->fn.nvjpegGetImageInfo(j->h, p, len, &comps, &css, w, h) != 0)
		return 0;
	return comps >= 1 && w[0] == width && h[0] == height;
}

int
jpeg_gpu_size_is(struct jpeg_gpu_batch *b, const unsigned char *p,
    size_t len, int width, int height)
{
	return size_is(b->j, p, len, width, height);
}

struct jpeg_gpu_parser {
	struct jpeg_gpu *j;
	nvjpegJpegStream_t parsed;
};

int
jpeg_gpu_parser_open(struct jpeg_gpu *j, struct jpeg_gpu_parser **pp,
    struct gf_err *e)
{
	struct jpeg_gpu_parser *ps = calloc(1, sizeof(*ps));
	nvjpegStatus_t st;

	*pp = NULL;
	if (ps == NULL)
		return gf_nomem(e, "out of memory");
	ps->j = j;
	if ((st = j->fn.nvjpegJpegStreamCreate(j->h, &ps->parsed)) != 0) {
		free(ps);
		return gf_fail(e, "GPU %d: cannot make a JPEG parser: nvJPEG: %s",
		    j->device, jpeg_gpu_status_text(st));
	}
	*pp = ps;
	return 0;
}

int
jpeg_gpu_takes(struct jpeg_gpu_parser *ps, const unsigned char *p,
    size_t len, int width, int height)
{
	return supported(ps->j, ps->parsed, p, len) &&
	    size_is(ps->j, p, len, width, height);
}

void
jpeg_gpu_parser_close(struct jpeg_gpu_parser *ps)
{
	if (ps == NULL)
		return;
	ps->j->fn.nvjpegJpegStreamDestroy(ps->parsed);
	free(ps);
}

/*
 * Sets b's state up for batches of n (nvjpegDecodeBatched decodes as
 * many as the last initialisation said); again after a failed batch,
 * which the library asks for.
 */
static nvjpegStatus_t
jpeg_gpu_init(struct jpeg_gpu_batch *b, int n)
{
	nvjpegStatus_t st;

	if (b->size == n)
		return NVJPEG_STATUS_SUCCESS;
	st = b->j->fn.nvjpegDecodeBatchedInitialize(b->j->h, b->state, n, 1,
	    NVJPEG_OUTPUT_Y);
	b->size = st == NVJPEG_STATUS_SUCCESS ? n : 0;
	return st;
}

int
jpeg_gpu_preallocate(struct jpeg_gpu_batch *b, int n, const unsigned char *p,
    size_t len)
{
	const struct jpeg_gpu *j = b->j;
	nvjpegChromaSubsampling_t css;
	int comps, w[NVJPEG_MAX_COMPONENT], h[NVJPEG_MAX_COMPONENT];

	if (j->fn.nvjpegGetImageInfo(j->h, p, len, &comps, &css, w, h) != 0 ||
	    jpeg_gpu_init(b, n) != 0 ||
	    j->fn.nvjpegDecodeBatchedPreAllocate(j->h, b->state, n, w[0], h[0], css,
	    NVJPEG_OUTPUT_Y) != 0)
		return -1;
	return 0;
}

/* Each of the n images alone, after their batch failed: the failures. */
static int
jpeg_gpu_one_by_one(struct jpeg_gpu_batch *b, int n,
    const unsigned char *const *p, const size_t *len, cudaStream_t st,
    int *status)
{
	const struct jpeg_gpu *j = b->j;
	int failed = 0;

	for (int i = 0; i < n; i++) {
		b->size = 0;    /* reset after the failure before */
		status[i] = jpeg_gpu_init(b, 1);
		if (status[i] == 0)
			status[i] = j->fn.nvjpegDecodeBatched(j->h, b->state, p + i,
			    len + i, b->out + i, st);
		failed += status[i] != 0;
	}
	b->size = 0;
	return failed;
}

int
jpeg_gpu_decode(struct jpeg_gpu_batch *b, int n,
    const unsigned char *const *p, const size_t *len,
    unsigned char *const *dst, const size_t *pitch, cudaStream_t st,
    int *status, struct gf_err *e)
{
	const struct jpeg_gpu *j = b->j;
	nvjpegStatus_t s;

	if (n <= 0)
		return 0;
	if (n > b->cap) {
		nvjpegImage_t *o = realloc(b->out, (size_t)n * sizeof(*o));
		if (o == NULL)
			return gf_nomem(e, "out of memory");
		b->out = o;
		b->cap = n;
	}
	for (int i = 0; i < n; i++) {
		memset(&b->out[i], 0, sizeof(b->out[i]));
		b->out[i].channel[0] = dst[i];
		b->out[i].pitch[0] = pitch[i];
		status[i] = 0;
	}
	if ((s = jpeg_gpu_init(b, n)) == NVJPEG_STATUS_SUCCESS &&
	    (s = j->fn.nvjpegDecodeBatched(j->h, b->state, p, len, b->out,
	    st)) == NVJPEG_STATUS_SUCCESS)
		return 0;
	if (s == NVJPEG_STATUS_ALLOCATOR_FAILURE ||
	    s == NVJPEG_STATUS_NOT_INITIALIZED) {
		b->size = 0;
		return gf_fail(e, "GPU %d: JPEG decoding failed: nvJPEG: %s",
		    j->device, jpeg_gpu_status_text(s));
	}
	return jpeg_gpu_one_by_one(b, n, p, len, st, status);
}

int
jpeg_gpu_built(void)
{
	return 1;
}

#else /* !GF_HAVE_NVJPEG */

/* Built without nvjpeg.h: there is nothing to open. */

int
jpeg_gpu_built(void)
{
	return 0;
}

const char *
jpeg_gpu_status_text(int status)
{
	(void)status;
	return "nvJPEG not built in";
}

int
jpeg_gpu_open(struct jpeg_gpu **j, int device, struct gf_err *e)
{
	(void)device;
	*j = NULL;
	return gf_fail(e, "no GPU JPEG decoding: built without nvjpeg.h "
	    "(make deps fetches it)");
}

unsigned
jpeg_gpu_engines(const struct jpeg_gpu *j)
{
	(void)j;
	return 0;
}

unsigned
jpeg_gpu_cores(const struct jpeg_gpu *j)
{
	(void)j;
	return 0;
}

void
jpeg_gpu_open_times(const struct jpeg_gpu *j, double *load_ms,
    double *handle_ms)
{
	(void)j;
	*load_ms = *handle_ms = 0;
}

void
jpeg_gpu_close(struct jpeg_gpu *j)
{
	(void)j;
}

int
jpeg_gpu_batch_open(struct jpeg_gpu *j, struct jpeg_gpu_batch **b,
    struct gf_err *e)
{
	(void)j;
	*b = NULL;
	return gf_fail(e, "no GPU JPEG decoding: built without nvjpeg.h");
}

void
jpeg_gpu_batch_close(struct jpeg_gpu_batch *b)
{
	(void)b;
}

int
jpeg_gpu_preallocate(struct jpeg_gpu_batch *b, int n, const unsigned char *p,
    size_t len)
{
	(void)b;
	(void)n;
	(void)p;
	(void)len;
	return -1;
}

int
jpeg_gpu_supported(struct jpeg_gpu_batch *b, const unsigned char *p,
    size_t len)
{
	(void)b;
	(void)p;
	(void)len;
	return 0;
}

int
jpeg_gpu_size_is(struct jpeg_gpu_batch *b, const unsigned char *p,
    size_t len, int width, int height)
{
	(void)b;
	(void)p;
	(void)len;
	(void)width;
	(void)height;
	return 0;
}

int
jpeg_gpu_parser_open(struct jpeg_gpu *j, struct jpeg_gpu_parser **pp,
    struct gf_err *e)
{
	(void)j;
	*pp = NULL;
	return gf_fail(e, "no GPU JPEG decoding: built without nvjpeg.h");
}

int
jpeg_gpu_takes(struct jpeg_gpu_parser *ps, const unsigned char *p,
    size_t len, int width, int height)
{
	(void)ps;
	(void)p;
	(void)len;
	(void)width;
	(void)height;
	return 0;
}

void
jpeg_gpu_parser_close(struct jpeg_gpu_parser *ps)
{
	(void)ps;
}

int
jpeg_gpu_decode(struct jpeg_gpu_batch *b, int n,
    const unsigned char *const *p, const size_t *len,
    unsigned char *const *dst, const size_t *pitch, cudaStream_t st,
    int *status, struct gf_err *e)
{
	(void)b;
	(void)n;
	(void)p;
	(void)len;
	(void)dst;
	(void)pitch;
	(void)st;
	(void)status;
	return gf_fail(e, "no GPU JPEG decoding: built without nvjpeg.h");
}

#endif

unsigned char *
jpeg_gpu_pad(size_t *len)
{
	unsigned char px[16 * 16 * 3];
	struct image img = {16, 16, 3, 255, px, 0};
	struct gf_err e;
	char *buf = NULL;
	FILE *f;

	*len = 0;
	for (int i = 0; i < (int)sizeof(px); i++)
		px[i] = (unsigned char)(i * 37);
	if ((f = open_memstream(&buf, len)) == NULL)
		return NULL;
	if (img_write(f, &img, IMG_FORMAT_JPEG, 75, "a JPEG", &e) < 0 ||
	    fclose(f) != 0) {
		free(buf);
		*len = 0;
		return NULL;
	}
	return (unsigned char *)buf;
}
