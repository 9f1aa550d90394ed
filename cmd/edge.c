/*
 * edge - Canny edge detection of images on the GPU (or the CPU).  The
 * tool's definition for the shared main (cmd/cli.c).
 */
#include <stdio.h>

#include "cli.h"
#include "edge_tool.h"

enum {
	OPT_SIGMA = GF_OPT_TOOL,
	OPT_LOW,
	OPT_HIGH,
	OPT_AUTO,
	OPT_L1,
	OPT_QUANTILES,
	OPT_COLOUR
};

/* edge's options and the thresholds as given (read once all options are in). */
struct edge_cmd {
	struct edge_opts o;
	const char *low, *high;
	int quantiles;
};

/* The values of --colour, for completion. */
static int
edge_complete(int c, char *w, size_t n)
{
	if (c != OPT_COLOUR)
		return 0;
	snprintf(w, n, "gray channels max");
	return 1;
}

/* Handles one of edge's own options: 1, 0 if not ours, -1 on a bad value. */
static int
edge_option(void *ctx, int c, const char *arg, struct gf_err *e)
{
	struct edge_cmd *cmd = ctx;
	struct edge_opts *o = &cmd->o;
	double *v = NULL;
	const char *what = NULL;
	double hi = 1e6;

	switch (c) {
	case OPT_SIGMA:
		v = &o->sigma, what = "--sigma", hi = 10;
		break;
	case OPT_LOW:
		cmd->low = arg;
		return 1;
	case OPT_HIGH:
		cmd->high = arg;
		return 1;
	case OPT_QUANTILES:
		cmd->quantiles = 1;
		return 1;
	case OPT_AUTO:
		o->auto_thresh = 1;
		return 1;
	case OPT_L1:
		o->l1 = 1;
		return 1;
	case OPT_COLOUR:
		return gf_parse_colour(arg, &o->channels, &o->max, e) < 0 ? -1 :
		    1;
	default:
		return 0;
	}
	if (gf_parse_double(arg, what, 0, hi, v, e) < 0)
		return -1;
	if (v == &o->sigma && edge_check_sigma(o->sigma, e) < 0)
		return -1;
	return 1;
}

/* The thresholds, by edge(1)'s rules (edge_settle_thresholds). */
static int
edge_check(void *ctx, struct gf_err *e)
{
	struct edge_cmd *cmd = ctx;
	struct edge_opts *o = &cmd->o;

	if (cmd->quantiles && cmd->high == NULL)
		return gf_fail(e, "--quantiles reads --high and --low as quantiles; "
		    "give --high");
	if (cmd->high != NULL && edge_parse_thresh(cmd->high, "--high",
	    cmd->quantiles, &o->high, &o->high_kind, e) < 0)
		return -1;
	if (cmd->low != NULL && edge_parse_thresh(cmd->low, "--low",
	    cmd->quantiles, &o->low, &o->low_kind, e) < 0)
		return -1;
	return edge_settle_thresholds(o, cmd->low != NULL, cmd->high != NULL, e);
}

static void
edge_make(void *ctx, struct tool *t)
{
	struct edge_cmd *cmd = ctx;

	edge_tool(t, &cmd->o);
}

/* The defaults, before any option. */
static void
edge_init(void *ctx)
{
	struct edge_cmd *cmd = ctx;

	gf_opts_init(&cmd->o.common);
	cmd->o.sigma = 1.4;
}

static struct gf_opts *
edge_common(void *ctx)
{
	return &((struct edge_cmd *)ctx)->o.common;
}

static const struct option longopts[] = {
	{"sigma", required_argument, NULL, OPT_SIGMA},
	{"low", required_argument, NULL, OPT_LOW},
	{"high", required_argument, NULL, OPT_HIGH},
	{"auto", no_argument, NULL, OPT_AUTO},
	{"l1", no_argument, NULL, OPT_L1},
	{"quantiles", no_argument, NULL, OPT_QUANTILES},
	{"colour", required_argument, NULL, OPT_COLOUR},
	{NULL, 0, NULL, 0}
};
static const struct cli_hint hints[] = {
	{"-t", "edge's thresholds are --high H and --low L (or --auto); -t "
	    "is sobel's"},
	{"--threshold", "edge's thresholds are --high H and --low L (or "
	    "--auto)"},
	{NULL, NULL}
};

const struct cli_tool edge_cli = {
	.name = "edge",
	.synopsis =
	    "usage: edge [-qVv] [--cpu] [-f format] [-j n] [-m strategy] [--auto]\n"
	    "            [--block WxH] [--border mode] [--colour gray|channels|max]\n"
	    "            [--device list] [--fallback] [--high H] [--l1] [--low L]\n"
	    "            [--max-pixels n] [--no-autorotate] [--no-server] [--quality n]\n"
	    "            [--quantiles] [--rows n] [--sigma S] [input [output]]\n"
	    "       edge [options] [--shard K/N] [--files-from file [-0]] [--progress]\n"
	    "            -o dir [input ...]\n",
	.help =
	    "  --sigma S       Gaussian smoothing, 0 to 10 (default 1.4; 0: none)\n"
	    "  --high H        high threshold (alone: low = H / 2): a magnitude\n"
	    "                  (40), a percentage of the image's range of\n"
	    "                  magnitudes (30%), or a quantile of them (q0.9)\n"
	    "  --low L         low threshold, as H; needs --high, at most H\n"
	    "  --quantiles     plain --high and --low are quantiles (0.9 = q0.9)\n"
	    "  --auto          Otsu's thresholds of each image (the default)\n"
	    "  --l1            magnitude |gx|+|gy| instead of sqrt(gx^2+gy^2)\n"
	    "  --colour gray|channels|max  colour input made gray (default), each\n"
	    "                  colour channel detected alone (alpha kept), or Canny on\n"
	    "                  the gradient of the channel whose gradient is largest\n",
	.shortopts = "",
	.longopts = longopts,
	.option = edge_option,
	.check = edge_check,
	.complete = edge_complete,
	.make = edge_make,
	.hints = hints,
	.ctx_size = sizeof(struct edge_cmd),
	.init = edge_init,
	.common_of = edge_common,
};

#ifndef GF_NO_MAIN
int
main(int argc, char **argv)
{
	return cli_main(&edge_cli, argc, argv);
}
#endif
