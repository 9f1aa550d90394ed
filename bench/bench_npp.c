/*
 * bench_npp.c - NVIDIA NPP's nearest equivalents of our operations,
 * timed by make bench on the bench's own images and stream
 * (bench_npp.h).  Compiled only where the CUDA toolkit has npp.h.
 *
 * NPP's outputs are not compared with ours: they are other computations,
 * kept because they are what a user would pick instead (PEERS.md):
 *   - sobel: GradientVectorSobelBorder writes X, Y and the L2 magnitude
 *     as 16-bit planes, unrounded to our 8-bit magnitude and unclamped;
 *     the threshold adds a CompareC of that 16-bit magnitude into u8;
 *   - conv2d 5x5: FilterBorder with our taps and divisor 1 (the same
 *     filter up to rounding);
 *   - conv2d gauss: FilterGaussBorder has fixed masks up to 15x15; its
 *     5x5 is the peer PEERS.md measures, ours (gauss:4) is 25x25;
 *   - edge: FilterCannyBorder, Sobel 3x3 and L2 like our sigma-0 run,
 *     with NPP's own suppression and hysteresis.
 * Every call has a replicated border, as the bench's runs of ours.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <npp.h>

#include "bench.h"
#include "bench_npp.h"

/*
 * Checks the NppStatus of fn args: on anything but NPP_SUCCESS (warnings
 * too), records file, line, the function and the status in e and
 * returns -1 from the caller.
 */
#define NPP_TRY(e, fn, args) do { \
	NppStatus npp_try_st_ = fn args; \
	if (npp_try_st_ != NPP_SUCCESS) \
		return gf_fail((e), "NPP error at %s:%d: %s returned status %d " \
		    "(see NppStatus in nppdefs.h)", __FILE__, __LINE__, #fn, \
		    (int)npp_try_st_); \
} while (0)

/*
 * NPP's stream context (the bench's stream), the bench's images, and
 * NPP's own device buffers: the X, Y and magnitude planes of the
 * gradient (Npp16s, grad_step bytes a row, one allocation at gx),
 * Canny's scratch, and FilterBorder's taps (CONV_MAX_K^2 Npp32s).
 */
struct bench_npp {
	struct gpu *g;
	NppStreamContext ctx;
	Npp8u *in, *out;
	int in_step, out_step;
	NppiSize size;
	Npp16s *gx, *gy, *mag;
	int grad_step;
	Npp8u *canny;
	Npp32s *taps;
};

/*
 * Fills what nppGetStreamContext filled before CUDA 12.9 (which
 * deprecated it; 13.0's headers no longer declare it) for g's device
 * and stream.
 */
static int
npp_context(const struct gpu *g, NppStreamContext *c, struct gf_err *e)
{
	int dev = g->device, smem;

	memset(c, 0, sizeof(*c));
	c->hStream = g->stream;
	c->nCudaDeviceId = dev;
	GPU_TRY(e, cudaDeviceGetAttribute(&c->nMultiProcessorCount,
	    cudaDevAttrMultiProcessorCount, dev));
	GPU_TRY(e, cudaDeviceGetAttribute(&c->nMaxThreadsPerMultiProcessor,
	    cudaDevAttrMaxThreadsPerMultiProcessor, dev));
	GPU_TRY(e, cudaDeviceGetAttribute(&c->nMaxThreadsPerBlock,
	    cudaDevAttrMaxThreadsPerBlock, dev));
	GPU_TRY(e, cudaDeviceGetAttribute(&smem,
	    cudaDevAttrMaxSharedMemoryPerBlock, dev));
	c->nSharedMemPerBlock = (size_t)smem;
	GPU_TRY(e, cudaDeviceGetAttribute(&c->nCudaDevAttrComputeCapabilityMajor,
	    cudaDevAttrComputeCapabilityMajor, dev));
	GPU_TRY(e, cudaDeviceGetAttribute(&c->nCudaDevAttrComputeCapabilityMinor,
	    cudaDevAttrComputeCapabilityMinor, dev));
	GPU_TRY(e, cudaStreamGetFlags(g->stream, &c->nStreamFlags));
	return 0;
}

/* NPP's device buffers for n->size: the gradient planes, Canny's scratch, the taps. */
static int
npp_alloc(struct bench_npp *n, struct gf_err *e)
{
	size_t pitch, h = (size_t)n->size.height;
	int canny_bytes;
	void *p;

	GPU_TRY(e, cudaMallocPitch(&p, &pitch, (size_t)n->size.width *
	    sizeof(Npp16s), 3 * h));
	n->gx = p;
	if (pitch > INT_MAX)
		return gf_fail(e, "the gradient planes' row pitch of %zu bytes is "
		    "more than NPP's int step holds", pitch);
	n->grad_step = (int)pitch;
	n->gy = (Npp16s *)((char *)p + pitch * h);
	n->mag = (Npp16s *)((char *)p + 2 * pitch * h);
	NPP_TRY(e, nppiFilterCannyBorderGetBufferSize, (n->size, &canny_bytes));
	GPU_TRY(e, cudaMalloc(&p, canny_bytes > 0 ? (size_t)canny_bytes : 1));
	n->canny = p;
	GPU_TRY(e, cudaMalloc(&p, sizeof(Npp32s) * CONV_MAX_K * CONV_MAX_K));
	n->taps = p;
	return 0;
}

int
bench_npp_open(struct bench_npp **np, struct gpu *g,
    const struct gpu_image *in, const struct gpu_image *out, struct gf_err *e)
{
	struct bench_npp *n;

	*np = NULL;
	if (in->maxval > 255 || out->maxval > 255 || in->width != out->width ||
	    in->height != out->height)
		return gf_fail(e, "NPP is timed on 8-bit images of one size, not "
		    "%dx%d (maxval %u) into %dx%d (maxval %u)", in->width,
		    in->height, in->maxval, out->width, out->height, out->maxval);
	if (in->pitch > INT_MAX || out->pitch > INT_MAX)
		return gf_fail(e, "row pitches of %zu and %zu bytes are more than "
		    "NPP's int steps hold", in->pitch, out->pitch);
	n = calloc(1, sizeof(*n));
	if (n == NULL)
		return gf_fail(e, "out of memory");
	n->g = g;
	n->in = in->px;
	n->out = out->px;
	n->in_step = (int)in->pitch;
	n->out_step = (int)out->pitch;
	n->size = (NppiSize){in->width, in->height};
	if (npp_context(g, &n->ctx, e) < 0 || npp_alloc(n, e) < 0) {
		struct gf_err ignored;      /* e says what failed first */
		(void)bench_npp_close(n, &ignored);
		return -1;
	}
	*np = n;
	return 0;
}

int
bench_npp_close(struct bench_npp *n, struct gf_err *e)
{
	void *bufs[3];

	if (n == NULL)
		return 0;
	bufs[0] = n->gx;
	bufs[1] = n->canny;
	bufs[2] = n->taps;
	free(n);
	for (int i = 0; i < 3; i++)
		GPU_TRY(e, cudaFree(bufs[i]));
	return 0;
}

void
bench_npp_label(const struct bench_npp_call *c, char *buf, size_t size)
{
	switch (c->op) {
	case BENCH_NPP_SOBEL_MAG:
		snprintf(buf, size, "NPP GradientVectorSobel, 16-bit");
		break;
	case BENCH_NPP_SOBEL_THR:
		snprintf(buf, size, "NPP GradientVectorSobel+CompareC");
		break;
	case BENCH_NPP_FILTER:
		snprintf(buf, size, "NPP FilterBorder %dx%d, divisor 1",
		    c->k->kw, c->k->kh);
		break;
	case BENCH_NPP_GAUSS5:
		snprintf(buf, size, "NPP GaussBorder 5x5, ours %dx%d",
		    c->k->kw, c->k->kh);
		break;
	case BENCH_NPP_CANNY:
		snprintf(buf, size, "NPP FilterCannyBorder, Sobel L2");
		break;
	default:
		snprintf(buf, size, "NPP operation %d", (int)c->op);
	}
}

/*
 * Uploads k's taps for FilterBorder: integer, at most CONV_MAX_K square,
 * reversed, since NPP expects its coefficients in reverse order (it
 * convolves; ours correlate), so that NPP computes our sum.
 */
static int
npp_taps(struct bench_npp *n, const struct kspec *k, struct gf_err *e)
{
	Npp32s t[CONV_MAX_K * CONV_MAX_K];
	int nt = k->kw * k->kh;

	if (!k->integer || k->kw < 1 || k->kh < 1 || k->kw > CONV_MAX_K ||
	    k->kh > CONV_MAX_K)
		return gf_fail(e, "NPP's FilterBorder is timed with integer kernels "
		    "of at most %dx%d taps, not a %dx%d %s one", CONV_MAX_K,
		    CONV_MAX_K, k->kw, k->kh, k->integer ? "integer" : "real");
	for (int i = 0; i < nt; i++)
		t[i] = (Npp32s)k->taps[nt - 1 - i];
	GPU_TRY(e, cudaMemcpy(n->taps, t, sizeof(Npp32s) * (size_t)nt,
	    cudaMemcpyHostToDevice));
	return 0;
}

/* X, Y and the L2 magnitude of n->in, 16-bit, no angle (its pointer NULL). */
static int
npp_gradient(struct bench_npp *n, struct gf_err *e)
{
	NPP_TRY(e, nppiGradientVectorSobelBorder_8u16s_C1R_Ctx, (n->in,
	    n->in_step, n->size, (NppiPoint){0, 0}, n->gx, n->grad_step, n->gy,
	    n->grad_step, n->mag, n->grad_step, NULL, 0, n->size,
	    NPP_MASK_SIZE_3_X_3, nppiNormL2, NPP_BORDER_REPLICATE, n->ctx));
	return 0;
}

struct npp_run {
	struct bench_npp *n;
	const struct bench_npp_call *c;
};

/* One call of r->c, a bench_fn: enqueued on the bench's stream. */
static int
npp_run(struct gpu *g, void *arg, struct gf_err *e)
{
	const struct npp_run *r = arg;
	struct bench_npp *n = r->n;
	const struct bench_npp_call *c = r->c;
	const NppiPoint at = {0, 0};

	(void)g;
	switch (c->op) {
	case BENCH_NPP_SOBEL_MAG:
		return npp_gradient(n, e);
	case BENCH_NPP_SOBEL_THR:
		if (npp_gradient(n, e) < 0)
			return -1;
		NPP_TRY(e, nppiCompareC_16s_C1R_Ctx, (n->mag, n->grad_step,
		    (Npp16s)c->thresh, n->out, n->out_step, n->size,
		    NPP_CMP_GREATER, n->ctx));
		return 0;
	case BENCH_NPP_FILTER:
		NPP_TRY(e, nppiFilterBorder_8u_C1R_Ctx, (n->in, n->in_step,
		    n->size, at, n->out, n->out_step, n->size, n->taps,
		    (NppiSize){c->k->kw, c->k->kh},
		    (NppiPoint){c->k->kw / 2, c->k->kh / 2}, 1,
		    NPP_BORDER_REPLICATE, n->ctx));
		return 0;
	case BENCH_NPP_GAUSS5:
		NPP_TRY(e, nppiFilterGaussBorder_8u_C1R_Ctx, (n->in, n->in_step,
		    n->size, at, n->out, n->out_step, n->size, NPP_MASK_SIZE_5_X_5,
		    NPP_BORDER_REPLICATE, n->ctx));
		return 0;
	case BENCH_NPP_CANNY:
		NPP_TRY(e, nppiFilterCannyBorder_8u_C1R_Ctx, (n->in, n->in_step,
		    n->size, at, n->out, n->out_step, n->size, NPP_FILTER_SOBEL,
		    NPP_MASK_SIZE_3_X_3, (Npp16s)c->low, (Npp16s)c->high,
		    nppiNormL2, NPP_BORDER_REPLICATE, n->canny, n->ctx));
		return 0;
	}
	return gf_fail(e, "NPP operation %d is not one the bench knows", (int)c->op);
}

int
bench_npp_time(struct bench_npp *n, const struct bench_npp_call *c,
    int warmup, int runs, double *ms, struct gf_err *e)
{
	struct npp_run r = {n, c};

	if (c->thresh < 0 || c->thresh > NPP_MAX_16S || c->low < 0 ||
	    c->high > NPP_MAX_16S || c->low > c->high)
		return gf_fail(e, "NPP's 16-bit thresholds cannot be %d (sobel) or "
		    "%d and %d (Canny)", c->thresh, c->low, c->high);
	if (c->op == BENCH_NPP_FILTER && npp_taps(n, c->k, e) < 0)
		return -1;
	return bench_median(n->g, npp_run, &r, warmup, runs, ms, e);
}
