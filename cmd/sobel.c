/*
 * sobel - gradient magnitude or thresholded edge map of images.  The
 * tool's definition for the shared main (cmd/cli.c).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sobel_tool.h"

enum { OPT_NORM = GF_OPT_TOOL };

/* The values of -t besides numbers, and of --norm, for completion. */
static int
sobel_complete(int c, char *w, size_t n)
{
	if (c != 't' && c != OPT_NORM)
		return 0;
	snprintf(w, n, "%s", c == 't' ? "auto" : "l2 l1");
	return 1;
}

/* Handles -t (a number >= 0, or "auto") and --norm l2|l1. */
static int
sobel_option(void *ctx, int c, const char *arg, struct gf_err *e)
{
	struct sobel_opts *so = ctx;

	if (c == 't' && strcmp(arg, "auto") == 0) {
		so->threshold_auto = 1;
		return 1;
	}
	if (c == 't') {
		so->threshold = 1;
		return gf_parse_double(arg, "threshold -t", 0, 1e9, &so->t, e) < 0 ?
		    -1 : 1;
	}
	if (c != OPT_NORM)
		return 0;
	if (strcmp(arg, "l1") != 0 && strcmp(arg, "l2") != 0)
		return gf_fail(e, "'%s' is not a norm; choose l2 or l1", arg);
	so->l1 = strcmp(arg, "l1") == 0;
	return 1;
}

/* Every combination of sobel's options is valid. */
static int
sobel_check(void *ctx, struct gf_err *e)
{
	(void)ctx;
	(void)e;
	return 0;
}

static void
sobel_make(void *ctx, struct tool *t)
{
	sobel_tool(t, ctx);
}

/* The defaults, before any option. */
static void
sobel_init(void *ctx)
{
	struct sobel_opts *so = ctx;

	gf_opts_init(&so->common);
}

static struct gf_opts *
sobel_common(void *ctx)
{
	return &((struct sobel_opts *)ctx)->common;
}

static const struct option longopts[] = {
	{"norm", required_argument, NULL, OPT_NORM},
	{"threshold", required_argument, NULL, 't'},
	{NULL, 0, NULL, 0}
};

const struct cli_tool sobel_cli = {
	.name = "sobel",
	.synopsis =
	    "usage: sobel [-qVv] [-f format] [-j N] [-m strategy | --cpu] [-t threshold]\n"
	    "             [--block WxH] [--border mode] [--device list] [--fallback]\n"
	    "             [--max-pixels N] [--no-autorotate] [--no-server] [--norm l2|l1]\n"
	    "             [--quality N] [--rows N] [input [output]]\n"
	    "       sobel [options] [--shard K/N] [--files-from file [-0]] [--progress]\n"
	    "             -o dir [input ...]\n",
	.help =
	    "  -t, --threshold T  edge map: maxval where the gradient exceeds T, else 0;\n"
	    "                  -t auto takes Otsu's threshold of each image\n"
	    "  --norm l2|l1    gradient norm: sqrt(gx^2+gy^2) (default) or |gx|+|gy|\n",
	.shortopts = "t:",
	.longopts = longopts,
	.option = sobel_option,
	.check = sobel_check,
	.complete = sobel_complete,
	.make = sobel_make,
	.ctx_size = sizeof(struct sobel_opts),
	.init = sobel_init,
	.common_of = sobel_common,
};

#ifndef GF_NO_MAIN
int
main(int argc, char **argv)
{
	return cli_main(&sobel_cli, argc, argv);
}
#endif
