/*
 * tool.h - what a tool (sobel, conv2d, edge) gives the engine: its work
 * on one image, on the CPU over host images and on the GPU over device
 * images, and how far an output pixel reaches.  Everything around that
 * work - reading, decoding, transfers, device buffers, ordering, writing,
 * timing - is the engine's (lib/engine/engine.h).
 */
#ifndef GF_TOOL_H
#define GF_TOOL_H

#include "gf.h"
#include "gpu.h"

/* Milliseconds spent on one image, and what -v says about it. */
struct gf_times {
	double read;            /* read and decode */
	double upload, kernel, download;        /* GPU: CUDA events */
	double cpu;             /* CPU: the filter */
	double decode;          /* its share of its batch's time on the GPU's JPEG engines */
	int engines;            /* decoded by the GPU's JPEG engines, not the CPU */
	int served;             /* filtered by the server (gpufiltd), not this process */
	double write;           /* encode and write */
	double kernel_bytes;    /* for GB/s: bytes read + written by the kernels */
	int thresholds;         /* 0, 1 (threshold) or 2 (low and high) */
	int otsu;               /* they were chosen by Otsu's method */
	double low, high;       /* the threshold is high */
};

struct tool {
	const char *name;
	/*
	 * 1: the tool works on gray images, and colour is made gray first
	 * (img_to_gray's formula, alpha dropped); its output has one channel.
	 * 0: each colour channel is filtered alone, alpha is carried through
	 * unchanged, and the output has the input's channels.
	 */
	int gray;
	/*
	 * With gray 0: 1 when the tool takes a colour image's colour planes
	 * at once and makes one output channel of them (sobel and edge
	 * --colour max); alpha is dropped.  Its gpu then gets in with the
	 * n = img_colour_channels planes stacked, plane c at rows c * h ..
	 * c * h + h - 1 (in->height = n * out->height), and its cpu the
	 * colour image as read.  An image of one colour channel (gray, gray
	 * and alpha) goes as a gray tool's does.
	 */
	int planes;
	/*
	 * Rows above and below that an output row reads (the stencil's reach
	 * in y), so that a tall image can be cut into strips that carry that
	 * many extra rows; -1 when an output pixel may depend on the whole
	 * image (hysteresis, Otsu's threshold, a wrapping border).
	 */
	int halo;
	/*
	 * The CPU's work per pixel as a multiple of the tool's default run
	 * (sobel, conv2d -k gauss:1.4, edge --sigma 1.4); below 1 counts as
	 * 1.  The small-run rule (lib/engine/engine_small.c) takes the CPU
	 * for an image of at most gf_opts.small_pixels / cpu_weight pixels,
	 * so that a costlier run (a 25x25 kernel) does not stay on the CPU
	 * past its crossover.
	 */
	double cpu_weight;
	/*
	 * With a server (gpufiltd), whose GPUs are open, the CPU's work of
	 * the tool's default run against the round trip to the server, as a
	 * multiple of sobel's; below 1 counts as 1.  The served rule takes
	 * the CPU for at most served_small_pixels / (cpu_weight *
	 * served_weight) pixels: bench/crossover.sh SERVED=1 measures where
	 * each tool's server overtakes the CPU.
	 */
	double served_weight;
	/*
	 * The output's maxval: 0 for the input's, else this one whatever the
	 * input's (65535: sobel's signed gradients and --depth 16).  The
	 * engine's output buffers, the GPU's out and the server's window
	 * follow it (tool_out_maxval); a tool whose output is wider than
	 * its input works on gray (gray 1).  out_signed: the output's
	 * samples are offset binary (struct image's offset_binary), which
	 * the engine marks on every output before writing it.
	 */
	unsigned out_maxval;
	int out_signed;
	/*
	 * The CPU: makes out (allocating out->px with img_alloc) from in,
	 * and fills t's thresholds.  in has one channel when gray is 1 (the
	 * engine converts colour first), else it may have several.
	 */
	int (*cpu)(void *ctx, const struct image *in, struct image *out,
	    struct gf_times *t, struct gf_err *e);
	/*
	 * The GPU: queues the work that turns the one-channel device image in
	 * into out (same size; tool_out_maxval's maxval) on g->stream, using
	 * g's buffers (the slots after
	 * GPU_SLOT_PACKED_OUT).  It may wait for g->stream (to read a
	 * threshold back) but never for the device.
	 */
	int (*gpu)(void *ctx, struct gpu *g, const struct gpu_image *in,
	    const struct gpu_image *out, struct gf_times *t, struct gf_err *e);
	void *ctx;
};

/* The channels of a tool's output for an input of in_channels channels. */
static inline int
tool_out_channels(const struct tool *t, int in_channels)
{
	return t->gray || t->planes ? 1 : in_channels;
}

/* The maxval of t's output for an input of maxval in_maxval. */
static inline unsigned
tool_out_maxval(const struct tool *t, unsigned in_maxval)
{
	return t->out_maxval != 0 ? t->out_maxval : in_maxval;
}

/*
 * A gray tool's CPU work (plane_cpu, a struct tool's cpu) on each colour
 * channel of in alone: out gets in's channels, each colour channel
 * plane_cpu's output for that channel's plane, and alpha copied.  What a
 * tool whose gray is 0 for --colour channels does on the CPU, as the
 * engine hands its gpu each plane (lib/tool/tool_channels.c).
 */
int tool_channels_cpu(const struct image *in, struct image *out,
    int (*plane_cpu)(void *ctx, const struct image *in, struct image *out,
    struct gf_times *t, struct gf_err *e), void *ctx, struct gf_times *t,
    struct gf_err *e);

#endif
