/*
 * edge - Canny edge detection of images on the GPU (or the CPU).
 *
 * Options, then one operand loop; the work is lib/edge.c's filter run by
 * lib/tool.c over every image of every input.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "edge.h"
#include "opts.h"
#include "tool.h"

#ifndef GF_VERSION
#define GF_VERSION "0.1"
#endif

static const char *progname = "edge";

enum {
	OPT_SIGMA = GF_OPT_TOOL,
	OPT_LOW,
	OPT_HIGH,
	OPT_AUTO,
	OPT_L1
};

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: edge [-qVv] [--cpu] [-f format] [-m strategy] [--auto]\n"
	    "            [--block WxH] [--border mode] [--device n] [--high H]\n"
	    "            [--l1] [--low L] [--rows n] [--sigma S] [input [output]]\n"
	    "       edge [options] -o dir input ...\n");
}

static void
help(void)
{
	usage(stdout);
	printf("\nstrategies (-m):\n");
	for (int i = 0; i < GF_NSTRATEGIES; i++)
		printf("  %-8s %s\n", gf_strategies[i].name, gf_strategies[i].summary);
	printf("\nSee edge(1).\n");
}

/* What main keeps besides the options themselves. */
struct cmd {
	struct gf_opts o;
	struct edge_tool et;
	int have_low, have_high;
};

/* Handles one of edge's own options; -1 with e set on a bad value. */
static int
tool_option(struct cmd *c, int opt, const char *arg, struct gf_err *e)
{
	struct edge_opts *eo = &c->et.opts;

	switch (opt) {
	case OPT_SIGMA:
		return gf_parse_double(arg, "--sigma", 0, 10, &eo->sigma, e);
	case OPT_LOW:
		c->have_low = 1;
		return gf_parse_double(arg, "--low", 0, 1e6, &eo->low, e);
	case OPT_HIGH:
		c->have_high = 1;
		return gf_parse_double(arg, "--high", 0, 1e6, &eo->high, e);
	case OPT_AUTO:
		eo->auto_thresh = 1;
		return 0;
	case OPT_L1:
		eo->l1 = 1;
		return 0;
	}
	return gf_fail(e, "unknown option");
}

/*
 * Settles the thresholds: --low and --high, --high alone (low = high / 2),
 * or --auto, which is also the default when none is given.
 */
static int
check_thresholds(struct cmd *c, struct gf_err *e)
{
	struct edge_opts *eo = &c->et.opts;

	if (eo->auto_thresh && (c->have_low || c->have_high))
		return gf_fail(e, "--auto chooses the thresholds; do not give "
		    "--low or --high with it");
	if (c->have_low && !c->have_high)
		return gf_fail(e, "--low %g needs --high", eo->low);
	if (!c->have_high) {
		eo->auto_thresh = 1;
		return 0;
	}
	if (!c->have_low)
		eo->low = eo->high / 2;
	if (eo->low > eo->high)
		return gf_fail(e, "--low %g is greater than --high %g", eo->low,
		    eo->high);
	return 0;
}

/* Parses argv into c; returns optind, or -1 on a usage error (e set). */
static int
parse_args(struct cmd *c, int argc, char **argv, struct gf_err *e)
{
	static const struct option longopts[] = {
		GF_LONGOPTS,
		{"sigma", required_argument, NULL, OPT_SIGMA},
		{"low", required_argument, NULL, OPT_LOW},
		{"high", required_argument, NULL, OPT_HIGH},
		{"auto", no_argument, NULL, OPT_AUTO},
		{"l1", no_argument, NULL, OPT_L1},
		{NULL, 0, NULL, 0}
	};
	struct stat st;
	int opt, r;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, GF_SHORTOPTS, longopts, NULL)) != -1) {
		if (opt == '?' || opt == ':')
			return optopt ? gf_fail(e, "option -%c is unknown or lacks its "
			    "value", optopt) : gf_fail(e, "option %s is unknown or "
			    "lacks its value", argv[optind - 1]);
		r = gf_opts_common(&c->o, opt, optarg, e);
		if (r < 0 || (r == 0 && tool_option(c, opt, optarg, e) < 0))
			return -1;
	}
	if (c->o.help || c->o.version)
		return optind;
	if (check_thresholds(c, e) < 0)
		return -1;
	if (c->o.outdir == NULL && argc - optind > 2)
		return gf_fail(e, "too many operands: give an input and an output, "
		    "or -o DIR and inputs");
	if (c->o.outdir != NULL && argc - optind < 1)
		return gf_fail(e, "-o %s needs input files", c->o.outdir);
	if (c->o.outdir != NULL && (stat(c->o.outdir, &st) != 0 ||
	    !S_ISDIR(st.st_mode)))
		return gf_fail(e, "-o %s: not a directory", c->o.outdir);
	return optind;
}

/* -v: one line per image on standard error. */
static void
report(const char *input, int index, const struct image *out,
    const struct gf_times *t, void *arg)
{
	const struct cmd *c = arg;
	const struct edge_info *in = &c->et.info;

	fprintf(stderr, "%s: %s image %d: %dx%d, low %g high %g%s, read %.3f ms, "
	    "upload %.3f ms, kernel %.3f ms", progname, input, index, out->width,
	    out->height, in->low, in->high, c->et.opts.auto_thresh ? " (Otsu)" :
	    "", t->read, t->upload, t->kernel);
	if (t->kernel > 0)
		fprintf(stderr, " (%.1f GB/s, %d hysteresis sweeps)",
		    t->kernel_bytes / (t->kernel * 1e6), in->sweeps);
	fprintf(stderr, ", download %.3f ms, write %.3f ms\n", t->download,
	    t->write);
}

/* Opens the GPU or settles for the CPU; -1 if an explicit GPU strategy cannot run. */
static int
open_engine(struct cmd *c, struct gpu *g, struct tool *t)
{
	struct gf_err e = {{0}};
	int fallback, r = tool_open_engine(g, &c->o, &fallback, &e);

	if (r < 0) {
		fprintf(stderr, "%s: %s\n", progname, e.msg);
		return -1;
	}
	if (fallback && !c->o.quiet)
		fprintf(stderr, "%s: %s; running the CPU reference\n", progname, e.msg);
	t->gpu = r == 1 ? g : NULL;
	return 0;
}

/* input [output], or -o DIR input...: 1 if any failed, after trying all. */
static int
run_operands(const struct cmd *c, const struct tool *t, int argc, char **argv)
{
	struct gf_err e = {{0}};
	int status = 0;

	if (c->o.outdir == NULL) {
		if (tool_run(t, argc > 0 ? argv[0] : NULL, argc > 1 ? argv[1] : NULL,
		    NULL, &e) == 0)
			return 0;
		fprintf(stderr, "%s: %s\n", progname, e.msg);
		return 1;
	}
	for (int i = 0; i < argc; i++) {
		if (tool_run(t, argv[i], NULL, c->o.outdir, &e) < 0) {
			fprintf(stderr, "%s: %s\n", progname, e.msg);
			status = 1;
		}
	}
	return status;
}

static void
init(struct cmd *c)
{
	memset(c, 0, sizeof(*c));
	gf_opts_init(&c->o);
	c->et.opts.sigma = 1.4;
}

int
main(int argc, char **argv)
{
	static struct cmd c;
	struct gf_err e = {{0}};
	struct gpu g;
	struct tool t = {0};
	int first, status;

	init(&c);
	if ((first = parse_args(&c, argc, argv, &e)) < 0) {
		fprintf(stderr, "%s: %s\n", progname, e.msg);
		usage(stderr);
		return 2;
	}
	if (c.o.help || c.o.version) {
		if (c.o.help)
			help();
		else
			printf("edge (gpufilt) %s\n", GF_VERSION);
		return fclose(stdout) == 0 ? 0 : 1;
	}
	argc -= first;
	argv += first;
	c.et.opts.border = c.o.border;
	c.et.opts.strategy = c.o.strategy;
	c.et.opts.launch = c.o.launch;
	t.name = progname;
	t.filter = edge_filter;
	t.ctx = &c.et;
	t.format = c.o.format;
	t.report = c.o.verbose ? report : NULL;
	t.report_arg = &c;
	if (open_engine(&c, &g, &t) < 0)
		return 1;
	status = run_operands(&c, &t, argc, argv);
	if (t.gpu != NULL)
		gpu_close(&g);
	if (fclose(stdout) != 0 && status == 0) {
		fprintf(stderr, "%s: cannot write standard output\n", progname);
		status = 1;
	}
	return status;
}
