/*
 * sobel - gradient magnitude or thresholded edge map of images.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sobel.h"

enum { OPT_NORM = GF_OPT_TOOL };

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: sobel [-qVv] [-f format] [-m strategy | --cpu] [-t threshold]\n"
	    "             [--block WxH] [--border mode] [--device N] [--max-pixels N]\n"
	    "             [--norm l2|l1] [--rows N] [input [output]]\n"
	    "       sobel [options] -o dir input ...\n");
}

static void
help(void)
{
	usage(stdout);
	printf("\n"
	    "  -t T            edge map: maxval where the gradient exceeds T, else 0;\n"
	    "                  -t auto takes Otsu's threshold of each image\n"
	    "  --norm l2|l1    gradient norm: sqrt(gx^2+gy^2) (default) or |gx|+|gy|\n"
	    "  --border mode   replicate (default), zero, reflect or wrap\n"
	    "  -m strategy     GPU kernel strategy (below); --cpu = -m cpu\n"
	    "  --block WxH     threads per block;  --rows N  rows per thread\n"
	    "  --device N      GPU number\n"
	    "  --max-pixels N  refuse larger images (default 2^28; 0: no limit)\n"
	    "  -f pnm|png      output format (default: by output name; PNM on stdout)\n"
	    "  -o dir          batch: write dir/<input base name>.<ext> per input\n"
	    "  -v              timings per image on stderr;  -q  no notices\n"
	    "  -h, --help      this help;  -V, --version  the version\n\n");
	cli_strategies(stdout);
}

/* Parses -t: a number >= 0, or "auto". */
static int
parse_threshold(const char *arg, struct sobel_opts *so, struct gf_err *e)
{
	if (strcmp(arg, "auto") == 0) {
		so->threshold_auto = 1;
		return 0;
	}
	so->threshold = 1;
	return gf_parse_double(arg, "threshold -t", 0, 1e9, &so->t, e);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		GF_LONGOPTS,
		{"norm", required_argument, NULL, OPT_NORM},
		{NULL, 0, NULL, 0}
	};
	struct gf_opts o;
	struct sobel_opts so = {0};
	struct gf_err e = {{0}};
	struct tool t = {.name = "sobel", .filter = sobel_filter, .ctx = &so};
	int c, r;

	gf_opts_init(&o);
	while ((c = getopt_long(argc, argv, ":" GF_SHORTOPTS "t:", longopts, NULL)) != -1) {
		if (c == '?' || c == ':')
			r = (cli_bad_option("sobel", c, argv), 0);
		else if (c == 't')
			r = parse_threshold(optarg, &so, &e) < 0 ? -1 : 1;
		else if (c == OPT_NORM && strcmp(optarg, "l1") != 0 &&
		    strcmp(optarg, "l2") != 0)
			r = gf_fail(&e, "'%s' is not a norm; choose l2 or l1", optarg);
		else if (c == OPT_NORM)
			r = (so.l1 = strcmp(optarg, "l1") == 0, 1);
		else
			r = gf_opts_common(&o, c, optarg, &e);
		if (r < 0)
			fprintf(stderr, "sobel: %s\n", e.msg);
		if (r <= 0) {
			usage(stderr);
			return 2;
		}
	}
	if (o.help) {
		help();
		return 0;
	}
	if (o.version) {
		cli_version("sobel");
		return 0;
	}
	so.border = o.border;
	so.strategy = o.strategy;
	so.launch = o.launch;
	return cli_run("sobel", &t, &o, argc - optind, argv + optind, usage);
}
