/*
 * jpeg_gpu.h - baseline JPEGs decoded by a GPU's own JPEG engines
 * (nvJPEG's hardware backend, nvjpegDecodeBatched), straight into device
 * memory, as their luma plane (NVJPEG_OUTPUT_Y): the gray that libjpeg's
 * JCS_GRAYSCALE decode gives, byte for byte, for the files the engines
 * take.  Separate from the engine because it is optional twice over:
 * libnvjpeg is loaded at run time (dlopen of libnvjpeg.so.13, then
 * libnvjpeg.so), never linked, and a GPU without JPEG engines (V100, most
 * consumer cards) has no hardware backend; either way jpeg_gpu_open says
 * why and the caller decodes on the CPU as before.  Built without
 * nvjpeg.h (GF_HAVE_NVJPEG unset), every open fails with that reason.
 *
 * One struct jpeg_gpu per GPU (the library handle, which nvJPEG lets
 * threads share); one struct jpeg_gpu_batch per thread that decodes on
 * it (a decode state and a parsed stream are a thread's own).  Nothing
 * here prints: errors go to the caller, one status per image.
 */
#ifndef GF_JPEG_GPU_H
#define GF_JPEG_GPU_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "gf.h"
#include "jpeg_walk.h"

#ifdef __cplusplus
extern "C" {
#endif

struct jpeg_gpu;
struct jpeg_gpu_batch;

/*
 * Opens the JPEG engines of GPU number device (made the thread's current
 * device): 0 with *j, or -1 with e saying why there are none to use (no
 * libnvjpeg, no hardware backend on this GPU, no engines).
 */
int jpeg_gpu_open(struct jpeg_gpu **j, int device, struct gf_err *e);

/* Whether this build has nvJPEG's header (else every open fails). */
int jpeg_gpu_built(void);

/* The engines nvJPEG reports on j's GPU (nvjpegGetHardwareDecoderInfo). */
unsigned jpeg_gpu_engines(const struct jpeg_gpu *j);
/* The cores of each engine, as nvJPEG reports them. */
unsigned jpeg_gpu_cores(const struct jpeg_gpu *j);

/*
 * How long jpeg_gpu_open took to load libnvjpeg (load_ms) and to make
 * the hardware backend's handle (handle_ms), for -v and the bench.
 */
void jpeg_gpu_open_times(const struct jpeg_gpu *j, double *load_ms,
    double *handle_ms);

/* Releases j (after every batch state made on it); NULL is allowed. */
void jpeg_gpu_close(struct jpeg_gpu *j);

/*
 * A decode state on j for one thread, which must have j's GPU current
 * when it calls the functions below.
 */
int jpeg_gpu_batch_open(struct jpeg_gpu *j, struct jpeg_gpu_batch **b,
    struct gf_err *e);
void jpeg_gpu_batch_close(struct jpeg_gpu_batch *b);

/*
 * Whether the engines take the JPEG of len bytes at p, as nvJPEG's parser
 * and nvjpegDecodeBatchedSupported say: 1 yes, 0 no (any refusal,
 * malformed headers included).
 */
int jpeg_gpu_supported(struct jpeg_gpu_batch *b, const unsigned char *p,
    size_t len);

/*
 * Whether the engines would write the luma of the JPEG of len bytes at
 * p as width x height, as nvJPEG reads its header (nvjpegGetImageInfo's
 * first plane): 1 yes, 0 no.  A caller whose buffer is sized from
 * another reading of the header (libjpeg's, or a client's word) asks
 * this first, so that the engines never write past it.
 */
int jpeg_gpu_size_is(struct jpeg_gpu_batch *b, const unsigned char *p,
    size_t len, int width, int height);

/*
 * The JPEG that pads a batch to its decode state's size: 16 x 16 pixels
 * of colour, 4:2:0 as most photographs, which the engines decode in next
 * to no time (a copy of a photograph costs what the photograph does).
 * Made by our JPEG writer, malloc'd: NULL when it cannot be (out of
 * memory).  Built without nvjpeg.h too.
 */
unsigned char *jpeg_gpu_pad(size_t *len);

/*
 * A parser of JPEG headers on j for one thread (a parsed stream is a
 * thread's own, its GPU need not be current): jpeg_gpu_takes is
 * jpeg_gpu_supported and jpeg_gpu_size_is at once, 1 when the engines
 * take the JPEG of len bytes at p and write its luma as width x height.
 */
struct jpeg_gpu_parser;
int jpeg_gpu_parser_open(struct jpeg_gpu *j, struct jpeg_gpu_parser **pp,
    struct gf_err *e);
int jpeg_gpu_takes(struct jpeg_gpu_parser *ps, const unsigned char *p,
    size_t len, int width, int height);
void jpeg_gpu_parser_close(struct jpeg_gpu_parser *ps);

/*
 * Decodes n JPEGs (p[i], len[i] bytes, in host memory) as their luma
 * into device memory: image i's row y at dst[i] + y * pitch[i] (pitch[i]
 * at least its width), the work queued on st.  Returns the images that
 * failed, status[i] being nvJPEG's status for each (0: decoded); when the
 * batch fails as a whole, each image is decoded alone to tell which.
 * -1 with e only when the state itself is unusable.  The host buffers
 * stay in use until st has finished.
 */
int jpeg_gpu_decode(struct jpeg_gpu_batch *b, int n,
    const unsigned char *const *p, const size_t *len,
    unsigned char *const *dst, const size_t *pitch, cudaStream_t st,
    int *status, struct gf_err *e);

/*
 * Sets b up for batches of n images like the JPEG of len bytes at p (its
 * size and chroma subsampling), its buffers allocated now rather than by
 * the first batches: 0, or -1 (nothing lost: they allocate as before).
 */
int jpeg_gpu_preallocate(struct jpeg_gpu_batch *b, int n,
    const unsigned char *p, size_t len);

/*
 * One GPU's engines shared by threads (jpeg_gpu_queue.c): a thread of the
 * queue's decodes, in batches, what the callers of jpeg_gpu_queue_decode
 * post.  Open on j (whose GPU is number device; close the queue before
 * j): 0 with *q, or -1 with e.  jpeg_gpu_queue_decode decodes the JPEG of
 * len bytes at p as its luma into device memory at dst (width x height,
 * rows pitch apart) and returns once the luma is there: 0 decoded; 1
 * not, because the engines do not take this JPEG, its luma is not width
 * x height, or they failed on it; -1 with e when the GPU's decoding
 * failed as a whole.  p's bytes must not change until it returns.
 * meanwhile (NULL: none) runs on the caller's thread while the engines
 * decode: 1 to go on, 0 to decline the image (1 is returned), -1 with
 * e to fail.  The caller's thread reads the header first (nvJPEG's
 * parser, as jpeg_gpu_takes): a JPEG it refuses, or one for which no
 * parser can be made, returns 1 at once.
 * jpeg_gpu_queue_counts adds to *c what the queue has decoded, and how
 * its thread's time went.  The queue's thread first sets up its decode
 * states, each until a JPEG is posted; jpeg_gpu_queue_warmed waits for
 * that.
 */
struct jpeg_gpu_queue;
int jpeg_gpu_queue_open(struct jpeg_gpu *j, int device,
    struct jpeg_gpu_queue **q, struct gf_err *e);
int jpeg_gpu_queue_decode(struct jpeg_gpu_queue *q, const unsigned char *p,
    size_t len, unsigned char *dst, size_t pitch, int width, int height,
    int (*meanwhile)(void *arg, struct gf_err *e), void *arg, struct gf_err *e);
struct jpeg_gpu_queue_counts {
	long batches;
	long images;            /* the callers' */
	long padding;           /* tiny JPEGs that filled a call to its size */
	double parse_ms;        /* reading the JPEGs' headers (the callers', summed) */
	double call_ms;         /* in nvJPEG's calls that decode them */
	double wait_ms;         /* then waiting for the GPU to finish */
};
void jpeg_gpu_queue_counts(struct jpeg_gpu_queue *q,
    struct jpeg_gpu_queue_counts *c);
void jpeg_gpu_queue_warmed(struct jpeg_gpu_queue *q);
void jpeg_gpu_queue_close(struct jpeg_gpu_queue *q);

/*
 * libjpeg-turbo's verdict on a JPEG's one scan, walked on the GPU
 * (jpeg_walk.h; kernels/jpeg_walk.cu): a walker's device buffers (one
 * thread's, on the GPU current when it was opened), its pinned host
 * buffer of at least n bytes for a plan's data (img_jpeg_walk_plan
 * writes there), and the walk of plan pl over the n bytes in that buffer
 * on stream st: 0 with *outside (the luma blocks outside the engines'
 * range; -1 unsure), or -1 with e when the GPU failed.
 */
struct jpeg_walker;
int jpeg_walker_open(struct jpeg_walker **w, struct gf_err *e);
unsigned char *jpeg_walker_buffer(struct jpeg_walker *w, size_t n,
    struct gf_err *e);
int jpeg_walker_run(struct jpeg_walker *w, const struct jw_plan *pl,
    size_t n, cudaStream_t st, long *outside, struct gf_err *e);
void jpeg_walker_close(struct jpeg_walker *w);

/* nvJPEG's status code as words, for messages. */
const char *jpeg_gpu_status_text(int status);

#ifdef __cplusplus
}
#endif

#endif
