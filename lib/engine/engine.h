/*
 * engine.h - the one place that moves images between files, host memory
 * and the device.  A run is a list of jobs (an input and where its images
 * go); the engine runs them as three stages joined by bounded queues:
 *
 *   read and decode   a pool of threads, one job at a time each
 *   filter            lanes: on the GPU each lane has two streams, and
 *                     upload, kernels and download of one image (or of
 *                     the strips of a tall one) overlap another's; each
 *                     GPU of --device has two lanes, and the next image
 *                     goes to whichever lane is free first;
 *                     on the CPU one lane runs the tool's CPU work
 *   write             the calling thread, in input order; a batch
 *                     encodes its outputs on a pool of threads
 *
 * so that image k+1 is read while image k is filtered and image k-1 is
 * written.  The CUDA contexts (one per GPU) are created on threads of
 * their own while the first input is read.  Host buffers that cross the bus are pinned,
 * allocated once and reused.  Every output appears whole or not at all.
 */
#ifndef GF_ENGINE_H
#define GF_ENGINE_H

#include "gf.h"
#include "opts.h"
#include "tool.h"

/* One input and where its images go. */
struct engine_job {
	const char *input;      /* a path; NULL or "-": standard input */
	const char *output;     /* a path; NULL or "-": standard output */
	const char *outdir;     /* not NULL: outdir/<input base>.<ext> instead */
};

/* What one GPU did in a run. */
struct engine_device_stats {
	int device;             /* its number */
	char name[256];         /* as struct gpu's */
	int images;             /* images it filtered */
	double busy_ms;         /* time with at least one image on it */
	int jpeg_images;        /* JPEGs its engines decoded */
	double jpeg_busy_ms;    /* time its decoder spent on batches */
};

/* Busy time of each stage, and totals, for the run summary. */
struct engine_stats {
	int images;
	int readers, lanes, writers;    /* threads of each stage */
	int on_gpu;
	int served;             /* the lanes were the server's (gpufiltd) */
	int ndevices;           /* the GPUs used (0: the CPU), in dev */
	struct engine_device_stats dev[GF_MAX_DEVICES];
	double wall_ms;
	double bytes_in;        /* pixel bytes read */
	double read_ms, filter_ms, write_ms;    /* summed over each stage's threads */
	int jpeg_on;            /* JPEGs could go to the GPUs' JPEG engines */
	int jpeg_engines;       /* images the engines decoded */
	int jpeg_cpu;           /* JPEGs they refused or failed, decoded on the CPU */
	int jpeg_unsure;        /* JPEGs the check before them sent to the CPU */
	char jpeg_why[512];     /* why they were asked for and did not open; empty: they were not asked */
};

/*
 * What the engine tells the caller, from the writing thread, in input
 * order; any may be NULL.  notice: the GPU is not used (the reason).
 * error: a job failed (the message).  image: an image was written,
 * filtered on GPU number device (-1: on the CPU).
 * progress: after each image, with the jobs done of njobs.
 */
struct engine_hooks {
	void (*notice)(void *arg, const char *msg);
	void (*error)(void *arg, const char *msg);
	void (*image)(void *arg, const char *input, int index,
	    const struct image *out, const struct gf_times *t, int device);
	void (*progress)(void *arg, int jobs_done, int njobs, int images,
	    double elapsed_ms);
	void *arg;
	/*
	 * The caller's process ends when the run returns: what only the
	 * exit need release (the GPUs' JPEG engines, whose teardown is
	 * slow) is left to it.  0 (as in hooks initialised
	 * to zero) releases everything.
	 */
	int exiting;
};

/*
 * Runs tool t over jobs with the options o (strategy, devices, format,
 * threads).  Returns the number of jobs that failed (each reported
 * through hooks->error), or -1 with e set when the run could not start
 * at all (an explicit GPU strategy without a GPU, a --device GPU that
 * does not open, no memory: no output written) or a GPU broke during it
 * (e names it and the inputs not written; those before are written).
 */
int engine_run(const struct tool *t, const struct gf_opts *o,
    const struct engine_job *jobs, int njobs, const struct engine_hooks *hooks,
    struct engine_stats *st, struct gf_err *e);

/*
 * The way to the filter stage outside a run, the server's (gpufiltd's,
 * a few per GPU) and libgpufilt's (one per context on a GPU): a
 * worker is a lane (two streams, events, staging buffers, device
 * buffers that grow and are kept) on the open GPU base, used by one
 * thread at a time; engine_worker_filter runs tool t on in into out
 * (host memory, out's size, channels and maxval set as a lane's slot
 * would have them: one channel for a gray tool), strip by strip
 * (strip_rows as GPUFILT_STRIP_ROWS; 0: by size), with the bytes a run's
 * lane gives; pinned says which of in's (1) and out's (2) memory is
 * pinned, so that it moves with no copy through the worker's staging
 * buffers; rows, if not NULL, is told (arg, n) as the first n rows
 * of a tall image's output are in out, strip by strip.  After a
 * failure, engine_worker_broken says whether the GPU's context is lost
 * (every worker on it must close).
 * engine_cpu_filter is a run's CPU lane on one image: out is allocated
 * (img_free it).
 */
struct engine_worker;
int engine_worker_open(struct engine_worker **w, const struct gpu *base,
    struct gf_err *e);
int engine_worker_filter(struct engine_worker *w, const struct tool *t,
    int strip_rows, const struct image *in, struct image *out, int pinned,
    void (*rows)(void *arg, int n), void *arg, struct gf_times *tm,
    struct gf_err *e);
/*
 * engine_worker_filter_jpeg is the same for a baseline JPEG of len bytes
 * at bits (host memory, which it copies first: a client may change its
 * own while the engines read), width x height stored: decoded to its
 * luma by the JPEG engines of the worker's GPU (their queue q, which
 * batches the JPEGs of every worker on it), turned by its EXIF
 * orientation (out is the turned size), filtered by gray tool t.
 * *declined set (and 0 returned) when the engines do not take it, find
 * another size in its header, or fail on it: the caller decodes it
 * otherwise; nothing of out was written then.
 */
struct jpeg_gpu_queue;
int engine_worker_filter_jpeg(struct engine_worker *w, struct jpeg_gpu_queue *q,
    const struct tool *t, const unsigned char *bits, size_t len, int width,
    int height, int orientation, struct image *out, int out_pinned,
    struct gf_times *tm, int *declined, struct gf_err *e);
/*
 * engine_worker_warm makes ahead what w's first JPEG would: its walk's
 * device buffers (a server warms its workers before its first client).
 */
int engine_worker_warm(struct engine_worker *w, struct gf_err *e);
int engine_worker_broken(struct engine_worker *w);
void engine_worker_close(struct engine_worker *w);
int engine_cpu_filter(const struct tool *t, const struct image *in,
    struct image *out, struct gf_times *tm, struct gf_err *e);

#endif
