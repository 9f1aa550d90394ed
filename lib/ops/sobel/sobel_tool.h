/*
 * sobel_tool.h - the sobel tool: what its command line asks for, and the
 * tool the engine runs (lib/ops/sobel/sobel.c), over the operation of lib/ops/sobel/sobel.h.
 */
#ifndef GF_SOBEL_TOOL_H
#define GF_SOBEL_TOOL_H

#include "opts.h"
#include "sobel.h"

/*
 * What the command line asked for: the shared options (border, strategy,
 * launch shape, -j) and sobel's own; the per-image parameters (struct
 * sobel_params) derive from it.
 */
struct sobel_opts {
	struct gf_opts common;
	int l1;                 /* --norm l1 */
	int threshold;          /* -t given */
	int threshold_auto;     /* -t auto: Otsu's threshold per image */
	double t;
	int op;                 /* --operator: enum sobel_op */
	int channels;           /* --colour channels: each colour channel alone */
	int max;                /* --colour max: the largest-gradient channel */
	int direction;          /* --gradient direction: the direction's bin */
	int grad_xy;            /* --gradient x (1) or y (2): the signed gradient */
	int depth16;            /* --depth 16: the magnitude at 16 bits */
};

/*
 * The names of --operator, in enum sobel_op's order: "sobel",
 * "prewitt", "scharr", "sobel5", "sobel7".
 */
extern const char *const sobel_op_names[SOBEL_NOPS];

/*
 * Looks up an --operator name into *op; -1 with a message that lists
 * the names if it is none of them.
 */
int sobel_op_parse(const char *name, int *op, struct gf_err *e);

/*
 * Looks up a --gradient name (magnitude, direction, x, y) into o's
 * direction and grad_xy; -1 with a message that lists the names if it
 * is none of them.
 */
int sobel_gradient_parse(const char *name, struct sobel_opts *o,
    struct gf_err *e);

/*
 * -1 with a message when o combines options that sobel refuses (a
 * threshold of the direction or the signed gradients, -t auto of another
 * operator, --depth 16 of anything but the magnitude, the 16-bit outputs
 * of each colour channel); the tool's check and the library's.
 */
int sobel_opts_check(const struct sobel_opts *o, struct gf_err *e);

/* The core's parameters for an image of maxval m and threshold t. */
struct sobel_params sobel_params_for(const struct sobel_opts *o, unsigned m,
    double t);

struct tool;

/* Describes the sobel tool to the engine (lib/tool/tool.h); t->ctx is o. */
void sobel_tool(struct tool *t, struct sobel_opts *o);

#endif
