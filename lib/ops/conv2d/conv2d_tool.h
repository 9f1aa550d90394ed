/*
 * conv2d_tool.h - the conv2d tool: what its command line asks for, and
 * the tool the engine runs (lib/ops/conv2d/conv2d.c), over the operation of
 * lib/ops/conv2d/conv2d.h.
 */
#ifndef GF_CONV2D_TOOL_H
#define GF_CONV2D_TOOL_H

#include "conv2d.h"
#include "opts.h"

/*
 * What the command line asked for: the shared options and the filter
 * (whose border conv2d_tool sets from common.border).
 */
struct conv2d_opts {
	struct gf_opts common;
	struct conv2d_filter filter;
};

struct tool;

/* Describes the conv2d tool to the engine (lib/tool/tool.h); t->ctx is o. */
void conv2d_tool(struct tool *t, struct conv2d_opts *o);

#endif
