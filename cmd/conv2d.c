/*
 * conv2d - any 2D filter given by its taps, on every image of the input.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "conv2d.h"

enum {
	OPT_NORMALIZE = GF_OPT_TOOL,
	OPT_DIVISOR,
	OPT_BIAS,
	OPT_NO_SEPARABLE
};

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: conv2d [-qVv] [-f format] [-m strategy | --cpu] -k kernel\n"
	    "              [--bias B] [--block WxH] [--border mode] [--device N]\n"
	    "              [--divisor D | --normalize] [--max-pixels N] [--no-separable]\n"
	    "              [--rows N] [input [output]]\n"
	    "       conv2d [options] -o dir input ...\n");
}

static void
help(void)
{
	usage(stdout);
	printf("\n"
	    "  -k kernel       taps: \"1 2 1; 2 4 2; 1 2 1\", @file, or box:N,\n"
	    "                  gauss:SIGMA[:SIZE], sharpen, laplace, emboss, sobelx,\n"
	    "                  sobely, identity\n"
	    "  --normalize     divide by the sum of the taps (when it is not 0)\n"
	    "  --divisor D     divide by D;  --bias B  add B after dividing\n"
	    "  --no-separable  run a separable kernel as a 2D one\n"
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

/* Handles conv2d's own option c: 1 if handled, 0 if not ours, -1 on a bad value. */
static int
conv2d_option(struct conv2d_tool *ct, int c, const char *arg, int *have_k,
    struct gf_err *e)
{
	struct conv2d_params *p = &ct->p;

	switch (c) {
	case 'k':
		*have_k = 1;
		return kspec_parse(arg, &p->k, e) < 0 ? -1 : 1;
	case OPT_NORMALIZE:
		p->normalize = 1;
		return 1;
	case OPT_DIVISOR:
		return kspec_parse_divisor(arg, &p->divisor, e) < 0 ? -1 : 1;
	case OPT_BIAS:
		return gf_parse_double(arg, "--bias", -KSPEC_MAX_TAP, KSPEC_MAX_TAP,
		    &p->bias, e) < 0 ? -1 : 1;
	case OPT_NO_SEPARABLE:
		p->allow_separable = 0;
		return 1;
	}
	return 0;
}

/* -v: what the kernel is and how it runs. */
static void
describe_kernel(const struct conv2d_tool *ct)
{
	const struct kspec *k = &ct->p.k;

	fprintf(stderr, "conv2d: kernel %dx%d, %s taps, %s\n", k->kw, k->kh,
	    k->integer ? "integer" : "real",
	    k->separable && ct->p.allow_separable ?
	    "separable (row pass, then column pass)" :
	    k->separable ? "separable, run in 2D (--no-separable)" : "2D");
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		GF_LONGOPTS,
		{"kernel", required_argument, NULL, 'k'},
		{"normalize", no_argument, NULL, OPT_NORMALIZE},
		{"divisor", required_argument, NULL, OPT_DIVISOR},
		{"bias", required_argument, NULL, OPT_BIAS},
		{"no-separable", no_argument, NULL, OPT_NO_SEPARABLE},
		{NULL, 0, NULL, 0}
	};
	static struct conv2d_tool ct;
	struct gf_opts o;
	struct gf_err e = {{0}};
	struct tool t = {.name = "conv2d", .filter = conv2d_filter, .ctx = &ct};
	int c, r, have_k = 0;

	gf_opts_init(&o);
	ct.p.allow_separable = 1;
	while ((c = getopt_long(argc, argv, ":" GF_SHORTOPTS "k:", longopts, NULL)) != -1) {
		if (c == '?' || c == ':')
			r = (cli_bad_option("conv2d", c, argv), 0);
		else
			r = conv2d_option(&ct, c, optarg, &have_k, &e);
		if (r == 0 && c != '?' && c != ':')
			r = gf_opts_common(&o, c, optarg, &e);
		if (r < 0)
			fprintf(stderr, "conv2d: %s\n", e.msg);
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
		cli_version("conv2d");
		return 0;
	}
	if (!have_k || (ct.p.normalize && ct.p.divisor != 0)) {
		fprintf(stderr, "conv2d: %s\n", !have_k ? "no kernel: give one "
		    "with -k, e.g. -k gauss:1.4 or -k \"1 2 1; 2 4 2; 1 2 1\"" :
		    "--normalize and --divisor exclude each other; give one");
		usage(stderr);
		return 2;
	}
	ct.p.border = o.border;
	ct.strategy = o.strategy;
	ct.launch = o.launch;
	if (o.verbose)
		describe_kernel(&ct);
	return cli_run("conv2d", &t, &o, argc - optind, argv + optind, usage);
}
