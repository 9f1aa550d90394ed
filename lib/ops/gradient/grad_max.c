/*
 * grad_max.c - the largest-gradient channel on the GPU from the host:
 * the strategy, the launch shape's checks and the histogram read back
 * (grad_max.h); the kernels are kernels/grad_max.cu.
 */
#include <string.h>

#include "grad_max.h"

/*
 * What -m auto runs for the chosen gradients: sliding, which loads each
 * input row once a column, until make bench's rows for --colour max say
 * otherwise.
 */
#define MAX_AUTO GF_SLIDING

/* The chosen gradients of the n planes of in into d, o's strategy. */
int
grad_max_device(struct gpu *g, const struct gpu_image *in, int n, int op,
    int border, const struct grad_max_dest *d, enum gf_strategy s,
    const struct gf_launch *l, struct gf_err *e)
{
	struct gf_launch shape = *l;
	cudaTextureObject_t tex;
	int tw, th;
	size_t smem;

	if (s == GF_AUTO)
		s = MAX_AUTO;
	grad_max_shape(s, op, &shape, &tw, &th, &smem);
	if (gpu_check_shape(g, gf_strategies[s].name, &shape, tw, th, in->width,
	    in->height / n, smem, e) < 0 || gpu_strategy_input(g, s, in, &tex,
	    e) < 0)
		return -1;
	return gpu_check_launch(grad_max_launch(s, in, n, op, border, d, &shape,
	    tex, g->stream), gf_strategies[s].name, &shape, e);
}

int
grad_max_hist_device(struct gpu *g, const struct gpu_image *in, int n,
    int op, int border, int l1, enum gf_strategy s, const struct gf_launch *l,
    uint32_t *hist, struct gf_err *e)
{
	const size_t bytes = ((size_t)in->maxval + 1) * sizeof(uint32_t);
	struct grad_max_dest d;
	void *bins;

	memset(&d, 0, sizeof(d));
	d.kind = GRAD_MAX_HIST;
	d.l1 = l1;
	if (gpu_scratch(g, GPU_SLOT_OTSU, bytes, &bins, e) < 0)
		return -1;
	d.bins = bins;
	GPU_TRY(e, cudaMemsetAsync(bins, 0, bytes, g->stream));
	if (grad_max_device(g, in, n, op, border, &d, s, l, e) < 0)
		return -1;
	GPU_TRY(e, cudaMemcpyAsync(hist, bins, bytes, cudaMemcpyDeviceToHost,
	    g->stream));
	GPU_TRY(e, cudaStreamSynchronize(g->stream));
	return 0;
}

