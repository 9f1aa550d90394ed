/*
 * otsu.c - the host side of the GPU histogram and search
 * (kernels/otsu.cu).  The CPU reference they equal is otsu_cpu.c.
 */
#include "otsu.h"

int
otsu_queue(struct gpu *g, const struct gpu_image *in, int border, int l1,
    struct otsu_device **d, struct gf_err *e)
{
	int nbins = (int)in->maxval + 1;
	int priv = (size_t)nbins * sizeof(uint32_t) <= g->smem_block;
	int nblocks = 4 * g->sm_count;

	if (gpu_scratch(g, GPU_SLOT_OTSU, sizeof(**d), (void **)d, e) < 0)
		return -1;
	GPU_TRY(e, cudaMemsetAsync((*d)->bins, 0,
	    (size_t)nbins * sizeof(uint32_t), g->stream));
	GPU_TRY(e, otsu_launch_hist(in, border, l1, (*d)->bins, nblocks, priv,
	    g->stream));
	GPU_TRY(e, otsu_launch_search((*d)->bins, nbins, l1, &(*d)->t,
	    &(*d)->p, g->stream));
	return 0;
}

int
otsu_gpu(struct gpu *g, const struct gpu_image *in, int border, int l1,
    uint32_t *t, struct gf_err *e)
{
	struct otsu_device *d;

	if (otsu_queue(g, in, border, l1, &d, e) < 0)
		return -1;
	GPU_TRY(e, cudaMemcpyAsync(t, &d->t, sizeof(*t), cudaMemcpyDeviceToHost,
	    g->stream));
	GPU_TRY(e, cudaStreamSynchronize(g->stream));
	return 0;
}
