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
	    "usage: edge [-qVv] [--cpu] [-f format] [-j n] [-m strategy] [--auto]\n"
	    "            [--block WxH] [--border mode] [--device n] [--high H]\n"
	    "            [--l1] [--low L] [--rows n] [--sigma S] [input [output]]\n"
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
	struct edge_opts eo;
	int have_low, have_high;
};

/* Handles one of edge's own options; -1 with e set on a bad value. */
static int
tool_option(struct cmd *c, int opt, const char *arg, struct gf_err *e)
{
	struct edge_opts *eo = &c->eo;

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
	struct edge_opts *eo = &c->eo;

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

	while ((opt = getopt_long(argc, argv, ":" GF_SHORTOPTS, longopts, NULL)) != -1) {
		if (opt == '?' || opt == ':')
			return gf_opts_refused(opt, argv, longopts, e);
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

static void
init(struct cmd *c)
{
	memset(c, 0, sizeof(*c));
	gf_opts_init(&c->o);
	c->eo.sigma = 1.4;
}

int
main(int argc, char **argv)
{
	static struct cmd c;
	struct gf_err e = {{0}};
	struct tool t;
	int first;

	cli_start(progname);
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
		return cli_close_stdout(progname);
	}
	argc -= first;
	argv += first;
	c.eo.border = c.o.border;
	c.eo.strategy = c.o.strategy;
	c.eo.launch = c.o.launch;
	c.eo.threads = c.o.threads;
	edge_tool(&t, &c.eo);
	return cli_run(progname, &t, &c.o, argc, argv, usage);
}
