/*
 * conv2d - any 2D filter given by its taps, on every image of the input.
 * The tool's definition for the shared main (cmd/cli.c).
 */
#include <stdio.h>

#include "cli.h"
#include "conv2d_tool.h"

enum {
	OPT_NORMALIZE = GF_OPT_TOOL,
	OPT_DIVISOR,
	OPT_BIAS,
	OPT_ABS,
	OPT_NO_SEPARABLE
};

/* conv2d's options and whether -k was given. */
struct conv2d_cmd {
	struct conv2d_opts o;
	int have_k;
	int k_file;             /* -k @FILE */
};

/* Handles conv2d's own option c: 1 if handled, 0 if not, -1 on a bad value. */
static int
conv2d_option(void *ctx, int c, const char *arg, struct gf_err *e)
{
	struct conv2d_cmd *cmd = ctx;
	struct conv2d_filter *f = &cmd->o.filter;

	switch (c) {
	case 'k':
		cmd->have_k = 1;
		cmd->k_file = arg[0] == '@';
		return kspec_parse(arg, &f->k, e) < 0 ? -1 : 1;
	case OPT_NORMALIZE:
		f->normalize = 1;
		return 1;
	case OPT_DIVISOR:
		return kspec_parse_divisor(arg, &f->divisor, e) < 0 ? -1 : 1;
	case OPT_BIAS:
		return gf_parse_double(arg, "--bias", -KSPEC_MAX_TAP, KSPEC_MAX_TAP,
		    &f->bias, e) < 0 ? -1 : 1;
	case OPT_ABS:
		f->abs = 1;
		return 1;
	case OPT_NO_SEPARABLE:
		f->allow_separable = 0;
		return 1;
	}
	return 0;
}

/* The named kernels of -k, for completion. */
static int
conv2d_complete(int c, char *w, size_t n)
{
	if (c != 'k')
		return 0;
	kspec_names(w, n);
	return 1;
}

/* A kernel is needed; --normalize and --divisor exclude each other. */
static int
conv2d_check(void *ctx, struct gf_err *e)
{
	const struct conv2d_cmd *cmd = ctx;

	if (!cmd->have_k)
		return gf_fail(e, "no kernel: give one with -k, e.g. -k gauss:1.4 "
		    "or -k \"1 2 1; 2 4 2; 1 2 1\"");
	if (cmd->o.filter.normalize && cmd->o.filter.divisor != 0)
		return gf_fail(e, "--normalize and --divisor exclude each other; "
		    "give one");
	return 0;
}

/* The tool; with -v, what the kernel is and how it runs. */
static void
conv2d_make(void *ctx, struct tool *t)
{
	struct conv2d_cmd *cmd = ctx;
	const struct conv2d_filter *f = &cmd->o.filter;
	const struct kspec *k = &f->k;

	if (cmd->o.common.verbose && k->note[0] != '\0')
		fprintf(stderr, "conv2d: %s\n", k->note);
	if (cmd->o.common.verbose)
		fprintf(stderr, "conv2d: kernel %dx%d, %s taps%s, %s\n", k->kw,
		    k->kh, k->integer ? "integer" : "real", conv2d_normalizes(f) ?
		    " divided by their sum" : "",
		    k->separable && f->allow_separable ?
		    "separable (row pass, then column pass)" :
		    k->separable ? "separable, run in 2D (--no-separable)" : "2D");
	conv2d_tool(t, &cmd->o);
}

/* A kernel file is read where the tool runs: such a run is not served. */
static const char *
conv2d_unserved(void *ctx)
{
	const struct conv2d_cmd *cmd = ctx;

	return cmd->k_file ? "its kernel is read from a file (-k @FILE)" : NULL;
}

/* The defaults, before any option. */
static void
conv2d_init(void *ctx)
{
	struct conv2d_cmd *cmd = ctx;

	gf_opts_init(&cmd->o.common);
	cmd->o.filter.allow_separable = 1;
}

static struct gf_opts *
conv2d_common(void *ctx)
{
	return &((struct conv2d_cmd *)ctx)->o.common;
}

static const struct option longopts[] = {
	{"kernel", required_argument, NULL, 'k'},
	{"normalize", no_argument, NULL, OPT_NORMALIZE},
	{"divisor", required_argument, NULL, OPT_DIVISOR},
	{"bias", required_argument, NULL, OPT_BIAS},
	{"abs", no_argument, NULL, OPT_ABS},
	{"no-separable", no_argument, NULL, OPT_NO_SEPARABLE},
	{NULL, 0, NULL, 0}
};

const struct cli_tool conv2d_cli = {
	.name = "conv2d",
	.synopsis =
	    "usage: conv2d [-qVv] [-f format] [-j N] [-m strategy | --cpu] -k kernel\n"
	    "              [--abs] [--bias B] [--block WxH] [--border mode] [--device list]\n"
	    "              [--divisor D | --normalize] [--fallback] [--max-pixels N]\n"
	    "              [--no-autorotate] [--no-separable] [--no-server] [--quality N]\n"
	    "              [--rows N] [input [output]]\n"
	    "       conv2d [options] [--shard K/N] [--files-from file [-0]] [--progress]\n"
	    "              -o dir [input ...]\n",
	.help =
	    "  -k, --kernel K  taps: \"1 2 1; 2 4 2; 1 2 1\" (one row of 9, 25, 49\n"
	    "                  values: square), \"3x3: 1,2,1,...\" (ImageMagick's),\n"
	    "                  @file, or box:N, gauss:SIGMA[:SIZE], log:SIGMA,\n"
	    "                  dog:S1,S2, unsharp:SIGMA,AMOUNT, sharpen, laplace,\n"
	    "                  laplacian (8 neighbours), laplacian:4, prewittx,\n"
	    "                  prewitty, scharrx, scharry, emboss, sobelx, sobely,\n"
	    "                  identity (negative responses clip to 0: conv2d(1))\n"
	    "  --normalize     divide by the sum of the taps (when it is not 0);\n"
	    "                  the default when no tap is negative\n"
	    "  --divisor D     divide by D (1: keep the sum);  --bias B  add B\n"
	    "                  after dividing\n"
	    "  --abs           the magnitude of the response, before dividing\n"
	    "  --no-separable  run a separable kernel as a 2D one\n",
	.shortopts = "k:",
	.longopts = longopts,
	.option = conv2d_option,
	.check = conv2d_check,
	.complete = conv2d_complete,
	.make = conv2d_make,
	.unserved = conv2d_unserved,
	.ctx_size = sizeof(struct conv2d_cmd),
	.init = conv2d_init,
	.common_of = conv2d_common,
};

#ifndef GF_NO_MAIN
int
main(int argc, char **argv)
{
	return cli_main(&conv2d_cli, argc, argv);
}
#endif
