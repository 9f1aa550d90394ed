/*
 * sobel - gradient magnitude or thresholded edge map of images.  The
 * tool's definition for the shared main (cmd/cli.c).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sobel_tool.h"

enum { OPT_NORM = GF_OPT_TOOL, OPT_OPERATOR, OPT_COLOUR, OPT_GRADIENT,
	OPT_DEPTH };

/*
 * The values of -t besides numbers, --norm, --operator, --colour,
 * --gradient and --depth, for completion.
 */
static int
sobel_complete(int c, char *w, size_t n)
{
	if (c == OPT_COLOUR || c == OPT_GRADIENT) {
		snprintf(w, n, "%s", c == OPT_COLOUR ? "gray channels max" :
		    "magnitude direction x y");
		return 1;
	}
	if (c == OPT_DEPTH) {
		snprintf(w, n, "16");
		return 1;
	}
	if (c == OPT_OPERATOR) {
		size_t k = 0;
		w[0] = '\0';
		for (int i = 0; i < SOBEL_NOPS && k < n; i++)
			k += snprintf(w + k, n - k, "%s%s", i ? " " : "",
			    sobel_op_names[i]);
		return 1;
	}
	if (c != 't' && c != OPT_NORM)
		return 0;
	snprintf(w, n, "%s", c == 't' ? "auto" : "l2 l1");
	return 1;
}

/*
 * Handles -t (a number >= 0, or "auto"), --norm l2|l1, --operator NAME,
 * --colour gray|channels|max, --gradient magnitude|direction|x|y and
 * --depth 16.
 */
static int
sobel_option(void *ctx, int c, const char *arg, struct gf_err *e)
{
	struct sobel_opts *so = ctx;

	if (c == OPT_GRADIENT)
		return sobel_gradient_parse(arg, so, e) < 0 ? -1 : 1;
	if (c == OPT_DEPTH) {
		if (strcmp(arg, "16") != 0)
			return gf_fail(e, "--depth '%s' is not a depth sobel writes; "
			    "--depth 16 writes the magnitude at 16 bits (without it, "
			    "at the input's depth)", arg);
		so->depth16 = 1;
		return 1;
	}
	if (c == OPT_COLOUR)
		return gf_parse_colour(arg, &so->channels, &so->max, e) < 0 ? -1 : 1;
	if (c == OPT_OPERATOR)
		return sobel_op_parse(arg, &so->op, e) < 0 ? -1 : 1;

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

/* The combinations of sobel's options that it refuses: sobel_opts_check's. */
static int
sobel_check(void *ctx, struct gf_err *e)
{
	return sobel_opts_check(ctx, e);
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
	{"colour", required_argument, NULL, OPT_COLOUR},
	{"depth", required_argument, NULL, OPT_DEPTH},
	{"gradient", required_argument, NULL, OPT_GRADIENT},
	{"norm", required_argument, NULL, OPT_NORM},
	{"operator", required_argument, NULL, OPT_OPERATOR},
	{"threshold", required_argument, NULL, 't'},
	{NULL, 0, NULL, 0}
};

const struct cli_tool sobel_cli = {
	.name = "sobel",
	.synopsis =
	    "usage: sobel [-qVv] [-f format] [-j N] [-m strategy | --cpu] [-t threshold]\n"
	    "             [--block WxH] [--border mode] [--colour gray|channels|max]\n"
	    "             [--depth 16] [--device list] [--fallback] [--gradient output]\n"
	    "             [--max-pixels N] [--no-autorotate] [--no-server] [--norm l2|l1]\n"
	    "             [--operator name] [--quality N] [--rows N] [input [output]]\n"
	    "       sobel [options] [--shard K/N] [--files-from file [-0]] [--progress]\n"
	    "             -o dir [input ...]\n",
	.help =
	    "  -t, --threshold T  edge map: maxval where the gradient exceeds T, else 0;\n"
	    "                  -t auto takes Otsu's threshold of each image\n"
	    "  --norm l2|l1    gradient norm: sqrt(gx^2+gy^2) (default) or |gx|+|gy|\n"
	    "  --operator name gradient operator: sobel (3x3, default), prewitt,\n"
	    "                  scharr, sobel5, sobel7 (OpenCV's Sobel ksize 5, 7)\n"
	    "  --gradient magnitude|direction|x|y  the magnitude (default); the\n"
	    "                  direction: atan2(gy,gx) in 256 bins, 0 to 255; or the\n"
	    "                  signed gx or gy at 16 bits (OpenCV's CV_16S, saturated),\n"
	    "                  held as g + 32768 (PNM, PNG), as int16 in TIFF\n"
	    "  --depth 16      the magnitude at 16 bits (8-bit input: no clipping at\n"
	    "                  255; the magnitude of 16-bit input is 16 bits anyway)\n"
	    "  --colour gray|channels|max  colour input made gray (default), each\n"
	    "                  colour channel filtered alone (alpha kept), as vips sobel,\n"
	    "                  or the gradient of the channel whose gradient is largest\n",
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
