/*
 * tool.h - what makes sobel, conv2d and edge Unix filters: inputs and
 * outputs (files, standard streams, -o DIR batches), every image of a
 * multi-image stream in order, outputs written whole or not at all, the
 * choice between the GPU and the CPU, and per-image timings for -v.
 * A tool supplies one function that filters one image.
 */
#ifndef GF_TOOL_H
#define GF_TOOL_H

#include "gf.h"
#include "gpu.h"
#include "img.h"
#include "opts.h"

/* Milliseconds spent per stage of one image, and bytes the kernels moved. */
struct gf_times {
	double read, upload, kernel, download, write;
	double kernel_bytes;    /* for GB/s: bytes read + written by the kernels */
	int auto_threshold;     /* a threshold was chosen for this image: */
	double threshold;       /* this one */
};

/*
 * A tool's filter: makes out (allocating out->px) from in, using the GPU
 * g when it is not NULL, else the CPU.  Fills the upload, kernel and
 * download fields of t when it used the GPU.
 */
typedef int (*tool_filter_fn)(void *ctx, struct gpu *g, const struct image *in,
    struct image *out, struct gf_times *t, struct gf_err *e);

struct tool {
	const char *name;
	tool_filter_fn filter;
	void *ctx;
	struct gpu *gpu;        /* NULL: the CPU reference */
	enum img_format format; /* -f, or AUTO */
	long long max_pixels;   /* --max-pixels for the readers; 0: no limit */
	/* Called after each image (for -v), may be NULL. */
	void (*report)(const char *input, int index, const struct image *out,
	    const struct gf_times *t, void *arg);
	void *report_arg;
};

/*
 * Chooses where the tool runs: opens the GPU for a GPU strategy (auto
 * included) into g.  Returns 1 when the GPU is used, 0 for the CPU (with
 * *fallback set when auto fell back: the reason is in e), -1 when an
 * explicit GPU strategy cannot run (e names --cpu).
 */
int tool_open_engine(struct gpu *g, const struct gf_opts *o, int *fallback,
    struct gf_err *e);

/*
 * Filters every image of input (a path, or NULL / "-" for standard
 * input) into output (a path, or NULL / "-" for standard output), or,
 * when outdir is not NULL, into outdir/<input's base name>.<ext> with the
 * extension of the output format (pgm, ppm or png).  A file output
 * appears only when every image was written.
 */
int tool_run(const struct tool *t, const char *input, const char *output,
    const char *outdir, struct gf_err *e);

#endif
