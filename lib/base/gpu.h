/*
 * gpu.h - a CUDA device of the process (the engine opens one per GPU it
 * uses) and what it keeps between images: the device's limits, a stream, timing events, device buffers
 * that grow but are never freed until the end, and a texture object over
 * the current input.  Kernel launchers (kernels/ *.cu) receive device
 * images and never allocate or copy; lib/ code moves the data.
 */
#ifndef GF_GPU_H
#define GF_GPU_H

#include <pthread.h>

#include <cuda_runtime_api.h>

#include "gf.h"
#include "strategy.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One channel of an image on the device.  Row y starts at
 * (char *)px + y * pitch; samples are uint8_t when maxval <= 255, else
 * uint16_t.  pitch is a multiple of 16 bytes, so a row may be read with
 * 16-byte vectors.
 */
struct gpu_image {
	void *px;
	size_t pitch;
	int width;
	int height;
	unsigned maxval;
};

/*
 * Buffer slots, so that the stages of one tool never share memory by
 * accident: the engine's input and output planes and the packed
 * (interleaved) images it moves across the bus, conv2d's separable
 * intermediate, and slots that a multi-stage tool (edge) keeps its
 * intermediates in.
 */
enum {
	GPU_SLOT_IN,
	GPU_SLOT_OUT,
	GPU_SLOT_PACKED_IN,     /* the engine: a colour image as uploaded */
	GPU_SLOT_PACKED_OUT,    /* the engine: a colour image to download */
	GPU_SLOT_CONV_TMP,      /* conv2d: float rows of the separable path */
	GPU_SLOT_SMOOTHED,      /* edge: the smoothed image */
	GPU_SLOT_CLASSES,       /* edge: the class of every pixel after suppression */
	GPU_SLOT_OTSU,          /* sobel, edge: Otsu's bins and threshold (otsu.h) */
	GPU_SLOT_HYST,          /* edge: the hysteresis union-find */
	GPU_SLOT_GRAD,          /* edge --colour max: the chosen gradients */
	GPU_NBUFS
};

struct gpu_buf {
	void *ptr;
	size_t bytes;
};

/*
 * What every stream of one device shares: constant memory is one per
 * device, so whoever changes it (conv2d's taps) does so under lock, with
 * the bytes it last wrote kept in consts.  Each use of them records an
 * event on its stream once its kernels are queued (uses, nuses of cap):
 * new bytes wait for those events alone, not for the whole device, whose
 * other streams may be running other tools' kernels (a server's clients).
 * An event that has completed is recorded again by the next use.
 */
struct gpu_shared {
	pthread_mutex_t lock;
	void *consts;
	size_t consts_bytes;
	cudaEvent_t *uses;
	int nuses, cap;
};

struct gpu {
	int device;
	char name[256];
	int sm_count;
	int max_threads;        /* per block */
	int max_block[3];
	int max_grid[3];
	size_t smem_block;      /* shared memory a block gets without opting in */
	size_t tex_pitch_align;
	int tex2d_linear[3];    /* max width, height, pitch of a pitched 2D texture */
	cudaStream_t stream;
	cudaEvent_t ev_start, ev_stop;
	struct gpu_buf bufs[GPU_NBUFS];
	cudaTextureObject_t tex;        /* over tex_src, or 0 */
	struct gpu_image tex_src;
	struct gpu_shared *shared;
	int owns_shared;        /* opened by gpu_open, not gpu_open_stream */
};

/*
 * Checks a CUDA call in library code: on failure, records file, line, the
 * expression and CUDA's reason in e and returns -1 from the caller.
 */
#define GPU_TRY(e, expr) do { \
	cudaError_t gpu_try_err_ = (expr); \
	if (gpu_try_err_ != cudaSuccess) \
		return gf_fail((e), "CUDA error at %s:%d: %s: %s", __FILE__, \
		    __LINE__, #expr, cudaGetErrorString(gpu_try_err_)); \
} while (0)

/* The number of GPUs in *n; -1 with the reason in e (and *n 0) when none. */
int gpu_count(int *n, struct gf_err *e);

/*
 * Opens device number dev (-1: the current default) and reads its limits.
 * Returns -1 when no usable GPU is there, with the reason in e.
 */
int gpu_open(struct gpu *g, int dev, struct gf_err *e);

/*
 * Opens one more stream on base's device, for work that overlaps base's:
 * g gets base's limits and shared state, and a stream, events and
 * buffers of its own.  Callable from any thread.
 */
int gpu_open_stream(struct gpu *g, const struct gpu *base, struct gf_err *e);

/*
 * Releases everything gpu_open (or gpu_open_stream) and the buffers took;
 * callable from any thread (it makes g's device the thread's current one).
 */
void gpu_close(struct gpu *g);

/*
 * Gives a device image of width x height for maxval in buffer slot
 * (0..GPU_NBUFS-1), reusing the slot's memory when it is large enough.
 * Contents are undefined.
 */
int gpu_image_get(struct gpu *g, int slot, int width, int height,
    unsigned maxval, struct gpu_image *d, struct gf_err *e);

/* Gives slot's raw memory of at least bytes bytes (scratch, counters). */
int gpu_scratch(struct gpu *g, int slot, size_t bytes, void **p,
    struct gf_err *e);

/*
 * For buffers outside a struct gpu whose sizes vary from image to image
 * (a JPEG's): gpu_room(n) is the size to allocate for n, a quarter more
 * in whole megabytes, so that a buffer is not freed again for one a
 * little larger (cudaFree waits for the whole GPU); gpu_grow makes the
 * device buffer *p of *cap bytes hold n that way: 0, or -1 with e (*p
 * NULL, *cap 0).  The buffer's contents are lost when it grows.
 */
size_t gpu_room(size_t n);
int gpu_grow(void **p, size_t *cap, size_t n, struct gf_err *e);

/*
 * Copies channel c of img into d (which gpu_image_get made for img's size
 * and maxval); channels of a colour image are de-interleaved on the way.
 */
int gpu_upload(struct gpu *g, const struct image *img, int c,
    const struct gpu_image *d, struct gf_err *e);

/* Copies d into channel c of img, the reverse of gpu_upload. */
int gpu_download(struct gpu *g, const struct gpu_image *d, struct image *img,
    int c, struct gf_err *e);

/* A texture object over d, point sampled, clamped, unnormalized coordinates. */
int gpu_texture(struct gpu *g, const struct gpu_image *d,
    cudaTextureObject_t *tex, struct gf_err *e);

/*
 * What a kernel of strategy s reads d through besides its pointer: for
 * texture, gpu_texture's object; for the others nothing (*tex = 0).
 */
int gpu_strategy_input(struct gpu *g, enum gf_strategy s,
    const struct gpu_image *d, cudaTextureObject_t *tex, struct gf_err *e);

/* Starts and stops the event timer around kernels; stop waits and gives ms. */
int gpu_timer_start(struct gpu *g, struct gf_err *e);
int gpu_timer_stop(struct gpu *g, float *ms, struct gf_err *e);

/*
 * Checks a resolved launch shape l against the device before a launch:
 * threads per block, block dimensions, grid dimensions for an output of
 * width x height where a block covers tile_w x tile_h pixels, and smem
 * bytes of shared memory.  The message names the values.
 */
int gpu_check_shape(const struct gpu *g, const char *strategy,
    const struct gf_launch *l, int tile_w, int tile_h, int width, int height,
    size_t smem, struct gf_err *e);

/*
 * Checks the status of a kernel launch with l's block; a block that
 * needs more registers than the device gives one is refused with a
 * message saying so, anything else as GPU_TRY would.
 */
int gpu_check_launch(cudaError_t err, const char *strategy,
    const struct gf_launch *l, struct gf_err *e);

#ifdef __cplusplus
}
#endif

#endif
