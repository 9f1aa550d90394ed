/*
 * edge - Canny edge detection of images on the GPU (or the CPU).
 *
 * Options, then one operand loop; the work is lib/edge.c's filter run by
 * lib/tool.c over every image of every input.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "edge.h"

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
	    "            [--l1] [--low L] [--max-pixels n] [--rows n] [--sigma S]\n"
	    "            [input [output]]\n"
	    "       edge [options] -o dir input ...\n");
}

static void
help(void)
{
	usage(stdout);
	printf("\n");
	cli_strategies(stdout);
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
		if (gf_parse_double(arg, "--sigma", 0, 10, &eo->sigma, e) < 0)
			return -1;
		if (eo->sigma > 0 && eo->sigma < GF_MIN_SIGMA)
			return gf_fail(e, "--sigma %g is too small to smooth with; give 0 "
			    "for no smoothing or at least %g", eo->sigma, GF_MIN_SIGMA);
		return 0;
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
		fprintf(stderr, " (%.1f GB/s)", t->kernel_bytes / (t->kernel * 1e6));
	fprintf(stderr, ", download %.3f ms, write %.3f ms\n", t->download,
	    t->write);
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
	struct tool t = {0};
	int first;

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
			cli_version(progname);
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
	t.report = report;
	t.report_arg = &c;
	return cli_run(progname, &t, &c.o, argc, argv, usage);
}
