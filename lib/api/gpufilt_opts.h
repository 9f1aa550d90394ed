/*
 * gpufilt_opts.h - libgpufilt's options (gpufilt.h's gf_options) made the
 * tools' option structs and tool (lib/api/gpufilt_opts.c), apart from the
 * calls that run them (lib/api/gpufilt.c).
 */
#ifndef GF_GPUFILT_OPTS_H
#define GF_GPUFILT_OPTS_H

#include "conv2d_tool.h"
#include "edge_tool.h"
#include "gpufilt.h"
#include "sobel_tool.h"
#include "tool.h"

/* The filter of one call: the tool and the option struct it reads. */
struct op {
	struct tool tool;
	struct gf_opts *common;
	union {
		struct sobel_opts sobel;
		struct conv2d_opts conv2d;
		struct edge_opts edge;
	} u;
};

enum op_kind { OP_SOBEL, OP_CONV2D, OP_EDGE };

/*
 * The op of kind with the public options o (NULL: gf_options_init's),
 * allocated (free it; the kernel spec is large), through the tools' own
 * parsers and checks; NULL with e and *code (GF_EINVAL, GF_ENOMEM).
 */
struct op *op_make(enum op_kind kind, const gf_options *o, int *code,
    struct gf_err *e);

#endif
