/*
 * gpu.c - a CUDA device: counting and opening devices, buffers reused
 * from image to image, transfers, the texture object, event timing, and
 * checks of launch shapes against the device's limits.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu.h"

/* Row pitch of device images: a multiple of 256 bytes (and of the texture alignment). */
static size_t
row_pitch(const struct gpu *g, size_t row_bytes)
{
	size_t a = g->tex_pitch_align > 256 ? g->tex_pitch_align : 256;
	return (row_bytes + a - 1) / a * a;
}

/* The stream and timing events of g. */
static int
stream_open(struct gpu *g, struct gf_err *e)
{
	GPU_TRY(e, cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
	GPU_TRY(e, cudaEventCreate(&g->ev_start));
	GPU_TRY(e, cudaEventCreate(&g->ev_stop));
	return 0;
}

/*
 * Why cudaGetDeviceCount found no GPU, in the user's terms.  The CUDA
 * runtime says "driver version is insufficient" both for an old driver
 * and for none at all; none is told apart by the driver's library
 * (libcuda.so.1) not loading and its kernel module not being there.
 */
static const char *
gpu_none_reason(cudaError_t err)
{
	void *libcuda;

	if (err == cudaSuccess || err == cudaErrorNoDevice)
		return "no GPU: the NVIDIA driver finds no CUDA device";
	if (err != cudaErrorInsufficientDriver)
		return cudaGetErrorString(err);
	libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (libcuda != NULL) {
		dlclose(libcuda);
		return cudaGetErrorString(err);
	}
	if (access("/proc/driver/nvidia/version", F_OK) != 0)
		return "no NVIDIA driver: libcuda.so.1 is not installed and the "
		    "kernel module is not loaded";
	return "no NVIDIA driver: the kernel module is loaded but libcuda.so.1 "
	    "is not installed";
}

int
gpu_count(int *n, struct gf_err *e)
{
	cudaError_t err;

	*n = 0;
	err = cudaGetDeviceCount(n);
	if (err != cudaSuccess || *n == 0) {
		*n = 0;
		return gf_fail(e, "%s", gpu_none_reason(err));
	}
	return 0;
}

/* Whether device number dev (-1: any) is there: 0, or -1 with the reason in e. */
static int
gpu_present(int dev, struct gf_err *e)
{
	int n = 0;

	if (gpu_count(&n, e) < 0)
		return -1;
	if (dev >= n)
		return gf_fail(e, "there is no GPU number %d; this machine has %d "
		    "(0 to %d)", dev, n, n - 1);
	return 0;
}

int
gpu_open(struct gpu *g, int dev, struct gf_err *e)
{
	struct cudaDeviceProp p;

	memset(g, 0, sizeof(*g));
	if (gpu_present(dev, e) < 0)
		return -1;
	if (dev < 0)
		GPU_TRY(e, cudaGetDevice(&dev));
	GPU_TRY(e, cudaSetDevice(dev));
	GPU_TRY(e, cudaGetDeviceProperties(&p, dev));
	g->device = dev;
	snprintf(g->name, sizeof(g->name), "%s", p.name);
	g->sm_count = p.multiProcessorCount;
	g->max_threads = p.maxThreadsPerBlock;
	memcpy(g->max_block, p.maxThreadsDim, sizeof(g->max_block));
	memcpy(g->max_grid, p.maxGridSize, sizeof(g->max_grid));
	g->smem_block = p.sharedMemPerBlock;
	g->tex_pitch_align = p.texturePitchAlignment;
	memcpy(g->tex2d_linear, p.maxTexture2DLinear, sizeof(g->tex2d_linear));
	g->shared = calloc(1, sizeof(*g->shared));
	if (g->shared == NULL)
		return gf_nomem(e, "out of memory");
	pthread_mutex_init(&g->shared->lock, NULL);
	g->owns_shared = 1;
	return stream_open(g, e);
}

int
gpu_open_stream(struct gpu *g, const struct gpu *base, struct gf_err *e)
{
	*g = *base;
	g->stream = NULL;
	g->ev_start = g->ev_stop = NULL;
	memset(g->bufs, 0, sizeof(g->bufs));
	g->tex = 0;
	g->owns_shared = 0;
	GPU_TRY(e, cudaSetDevice(g->device));
	return stream_open(g, e);
}

void
gpu_close(struct gpu *g)
{
	if (g->stream)
		(void)cudaSetDevice(g->device); /* the calling thread's may differ */
	if (g->tex)
		cudaDestroyTextureObject(g->tex);
	for (int i = 0; i < GPU_NBUFS; i++)
		cudaFree(g->bufs[i].ptr);
	if (g->ev_start)
		cudaEventDestroy(g->ev_start);
	if (g->ev_stop)
		cudaEventDestroy(g->ev_stop);
	if (g->stream)
		cudaStreamDestroy(g->stream);
	if (g->owns_shared && g->shared != NULL) {
		pthread_mutex_destroy(&g->shared->lock);
		for (int i = 0; i < g->shared->nuses; i++)
			cudaEventDestroy(g->shared->uses[i]);
		free(g->shared->uses);
		free(g->shared->consts);
		free(g->shared);
	}
	memset(g, 0, sizeof(*g));
}

int
gpu_scratch(struct gpu *g, int slot, size_t bytes, void **p, struct gf_err *e)
{
	struct gpu_buf *b = &g->bufs[slot];
	size_t free_b = 0, total_b = 0;

	if (b->bytes < bytes) {
		if (g->tex && g->tex_src.px == b->ptr) {
			GPU_TRY(e, cudaDestroyTextureObject(g->tex));
			g->tex = 0;
		}
		GPU_TRY(e, cudaStreamSynchronize(g->stream));
		GPU_TRY(e, cudaFree(b->ptr));
		b->ptr = NULL;
		b->bytes = 0;
		GPU_TRY(e, cudaMemGetInfo(&free_b, &total_b));
		if (bytes > free_b)
			return gf_fail(e, "the GPU has %zu bytes free; this image "
			    "needs a buffer of %zu more (--cpu runs it on the CPU)",
			    free_b, bytes);
		GPU_TRY(e, cudaMalloc(&b->ptr, bytes));
		b->bytes = bytes;
	}
	*p = b->ptr;
	return 0;
}

size_t
gpu_room(size_t n)
{
	size_t mb = (size_t)1 << 20;

	return (n + n / 4 + mb - 1) / mb * mb;
}

int
gpu_grow(void **p, size_t *cap, size_t n, struct gf_err *e)
{
	if (n <= *cap)
		return 0;
	if (*p != NULL)
		GPU_TRY(e, cudaFree(*p));
	*p = NULL;
	*cap = 0;
	GPU_TRY(e, cudaMalloc(p, gpu_room(n)));
	*cap = gpu_room(n);
	return 0;
}

int
gpu_image_get(struct gpu *g, int slot, int width, int height, unsigned maxval,
    struct gpu_image *d, struct gf_err *e)
{
	size_t pitch = row_pitch(g, (size_t)width * gf_sample_bytes(maxval));

	if (gpu_scratch(g, slot, pitch * height, &d->px, e) < 0)
		return -1;
	d->pitch = pitch;
	d->width = width;
	d->height = height;
	d->maxval = maxval;
	return 0;
}

/* Host staging for one channel of a colour image; NULL if out of memory. */
static void *
plane_alloc(const struct image *img)
{
	return malloc((size_t)img->width * img->height * gf_sample_bytes(img->maxval));
}

/*
 * Copies channel c of img into plane (dir 0) or plane into channel c
 * (dir 1), one sample of 1 or 2 bytes at a time.
 */
static void
plane_copy(struct image *img, int c, void *plane, int dir)
{
	size_t n = (size_t)img->width * img->height;
	size_t b = gf_sample_bytes(img->maxval), step = b * img->channels;
	unsigned char *s = (unsigned char *)img->px + c * b, *p = plane;

	for (size_t i = 0; i < n; i++, s += step, p += b)
		memcpy(dir == 0 ? p : s, dir == 0 ? s : p, b);
}

int
gpu_upload(struct gpu *g, const struct image *img, int c,
    const struct gpu_image *d, struct gf_err *e)
{
	size_t row = (size_t)img->width * gf_sample_bytes(img->maxval);
	void *src = img->px;

	if (img->channels > 1) {
		src = plane_alloc(img);
		if (src == NULL)
			return gf_nomem(e, "out of memory");
		plane_copy((struct image *)img, c, src, 0);
	}
	cudaError_t err = cudaMemcpy2DAsync(d->px, d->pitch, src, row, row,
	    img->height, cudaMemcpyHostToDevice, g->stream);
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(g->stream);
	if (src != img->px)
		free(src);
	GPU_TRY(e, err);
	return 0;
}

int
gpu_download(struct gpu *g, const struct gpu_image *d, struct image *img,
    int c, struct gf_err *e)
{
	size_t row = (size_t)img->width * gf_sample_bytes(img->maxval);
	void *dst = img->px;

	if (img->channels > 1 && (dst = plane_alloc(img)) == NULL)
		return gf_nomem(e, "out of memory");
	cudaError_t err = cudaMemcpy2DAsync(dst, row, d->px, d->pitch, row,
	    img->height, cudaMemcpyDeviceToHost, g->stream);
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(g->stream);
	if (dst != img->px) {
		if (err == cudaSuccess)
			plane_copy(img, c, dst, 1);
		free(dst);
	}
	GPU_TRY(e, err);
	return 0;
}

int
gpu_texture(struct gpu *g, const struct gpu_image *d, cudaTextureObject_t *tex,
    struct gf_err *e)
{
	struct cudaResourceDesc res;
	struct cudaTextureDesc td;

	if (g->tex && memcmp(&g->tex_src, d, sizeof(*d)) == 0) {
		*tex = g->tex;
		return 0;
	}
	if (d->width > g->tex2d_linear[0] || d->height > g->tex2d_linear[1])
		return gf_fail(e, "a %d x %d image is larger than this GPU's "
		    "largest pitched texture (%d x %d); use another strategy",
		    d->width, d->height, g->tex2d_linear[0], g->tex2d_linear[1]);
	if (g->tex) {
		GPU_TRY(e, cudaStreamSynchronize(g->stream));
		GPU_TRY(e, cudaDestroyTextureObject(g->tex));
		g->tex = 0;
	}
	memset(&res, 0, sizeof(res));
	res.resType = cudaResourceTypePitch2D;
	res.res.pitch2D.devPtr = d->px;
	res.res.pitch2D.desc = d->maxval > 255 ?
	    cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindUnsigned) :
	    cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
	res.res.pitch2D.width = (size_t)d->width;
	res.res.pitch2D.height = (size_t)d->height;
	res.res.pitch2D.pitchInBytes = d->pitch;
	memset(&td, 0, sizeof(td));
	td.addressMode[0] = cudaAddressModeClamp;
	td.addressMode[1] = cudaAddressModeClamp;
	td.filterMode = cudaFilterModePoint;
	td.readMode = cudaReadModeElementType;
	td.normalizedCoords = 0;
	GPU_TRY(e, cudaCreateTextureObject(&g->tex, &res, &td, NULL));
	g->tex_src = *d;
	*tex = g->tex;
	return 0;
}

int
gpu_strategy_input(struct gpu *g, enum gf_strategy s,
    const struct gpu_image *d, cudaTextureObject_t *tex, struct gf_err *e)
{
	*tex = 0;
	if (gf_strategies[s].texture)
		return gpu_texture(g, d, tex, e);
	return 0;
}

int
gpu_timer_start(struct gpu *g, struct gf_err *e)
{
	GPU_TRY(e, cudaEventRecord(g->ev_start, g->stream));
	return 0;
}

int
gpu_timer_stop(struct gpu *g, float *ms, struct gf_err *e)
{
	GPU_TRY(e, cudaEventRecord(g->ev_stop, g->stream));
	GPU_TRY(e, cudaEventSynchronize(g->ev_stop));
	GPU_TRY(e, cudaEventElapsedTime(ms, g->ev_start, g->ev_stop));
	return 0;
}

int
gpu_check_shape(const struct gpu *g, const char *strategy,
    const struct gf_launch *l, int tile_w, int tile_h, int width, int height,
    size_t smem, struct gf_err *e)
{
	const int block_w = l->block_w, block_h = l->block_h;
	long gx = (width + tile_w - 1) / tile_w, gy = (height + tile_h - 1) / tile_h;

	if (block_w * block_h > g->max_threads)
		return gf_fail(e, "%s: a %dx%d block has %d threads; this GPU runs "
		    "at most %d per block", strategy, block_w, block_h,
		    block_w * block_h, g->max_threads);
	if (block_w > g->max_block[0] || block_h > g->max_block[1])
		return gf_fail(e, "%s: a %dx%d block exceeds this GPU's largest "
		    "block sides %dx%d", strategy, block_w, block_h,
		    g->max_block[0], g->max_block[1]);
	if (gx > g->max_grid[0] || gy > g->max_grid[1])
		return gf_fail(e, "%s: a %d x %d image needs %ldx%ld blocks of "
		    "%dx%d pixels; this GPU launches at most %dx%d: use a larger "
		    "--block or --rows", strategy, width, height, gx, gy, tile_w,
		    tile_h, g->max_grid[0], g->max_grid[1]);
	if (smem > g->smem_block)
		return gf_fail(e, "%s: a %dx%d block (and its --rows) needs %zu bytes "
		    "of shared memory; this GPU gives a block at most %zu",
		    strategy, block_w, block_h, smem, g->smem_block);
	return 0;
}

int
gpu_check_launch(cudaError_t err, const char *strategy,
    const struct gf_launch *l, struct gf_err *e)
{
	if (err == cudaSuccess)
		return 0;
	if (err == cudaErrorLaunchOutOfResources)
		return gf_fail(e, "%s: a %dx%d block (%d threads) is more than "
		    "this kernel can run in one block on this GPU (its registers "
		    "or launch bounds); use a smaller --block", strategy,
		    l->block_w, l->block_h, l->block_w * l->block_h);
	return gf_fail(e, "CUDA error launching the %s kernel with a %dx%d "
	    "block: %s", strategy, l->block_w, l->block_h,
	    cudaGetErrorString(err));
}
