/*
 * cli.h - the part of main() that every tool shares: choosing the GPU or
 * the CPU, the operand loop (one input and output, or -o DIR and many
 * inputs), messages on stderr and the exit status.  Printing and exiting
 * live here, in cmd/, never in lib/.
 */
#ifndef GF_CLI_H
#define GF_CLI_H

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tool.h"

#ifndef GF_VERSION
#define GF_VERSION "0.1"
#endif

/* -v: one line per image on stderr. */
static inline void
cli_report(const char *input, int index, const struct image *out,
    const struct gf_times *t, void *arg)
{
	const char *prog = arg;
	double gbs = t->kernel > 0 ? t->kernel_bytes / (t->kernel * 1e6) : 0;

	fprintf(stderr, "%s: %s image %d: %dx%d, ", prog, input, index,
	    out->width, out->height);
	if (t->auto_threshold)
		fprintf(stderr, "threshold %g (Otsu), ", t->threshold);
	fprintf(stderr, "read %.2f ms, upload %.2f ms, kernel %.3f ms (%.1f GB/s), "
	    "download %.2f ms, write %.2f ms\n", t->read, t->upload, t->kernel,
	    gbs, t->download, t->write);
}

static inline void
cli_version(const char *prog)
{
	printf("%s (gpufilt) %s\n", prog, GF_VERSION);
}

/*
 * Runs tool t over the operands after option parsing and returns the exit
 * status: 0 if every image was written, 1 if any run failed, 2 for a
 * usage error (too many operands, -o without a directory).
 */
static inline int
cli_run(const char *prog, struct tool *t, const struct gf_opts *o, int argc,
    char **argv, void (*usage)(FILE *))
{
	struct gf_err e = {{0}};
	struct gpu g;
	struct stat st;
	int fallback, status = 0, on_gpu;

	if (o->outdir == NULL && argc > 2) {
		fprintf(stderr, "%s: too many operands (%d): give at most an input "
		    "and an output, or -o DIR for many inputs\n", prog, argc);
		usage(stderr);
		return 2;
	}
	if (o->outdir != NULL && (stat(o->outdir, &st) != 0 || !S_ISDIR(st.st_mode))) {
		fprintf(stderr, "%s: -o %s: not a directory\n", prog, o->outdir);
		return 2;
	}
	if (o->outdir != NULL && argc == 0) {
		fprintf(stderr, "%s: -o %s needs at least one input file\n", prog,
		    o->outdir);
		return 2;
	}
	on_gpu = tool_open_engine(&g, o, &fallback, &e);
	if (on_gpu < 0) {
		fprintf(stderr, "%s: %s\n", prog, e.msg);
		return 1;
	}
	if (fallback && !o->quiet)
		fprintf(stderr, "%s: running on the CPU (%s)\n", prog, e.msg);
	t->gpu = on_gpu ? &g : NULL;
	t->format = o->format;
	t->max_pixels = o->max_pixels;
	if (!o->verbose)
		t->report = NULL;
	else if (t->report == NULL)
		t->report = cli_report;
	if (t->report == cli_report)
		t->report_arg = (void *)prog;
	if (o->outdir == NULL) {
		if (tool_run(t, argc > 0 ? argv[0] : NULL, argc > 1 ? argv[1] : NULL,
		    NULL, &e) < 0) {
			fprintf(stderr, "%s: %s\n", prog, e.msg);
			status = 1;
		}
	}
	for (int i = 0; o->outdir != NULL && i < argc; i++) {
		if (tool_run(t, argv[i], NULL, o->outdir, &e) < 0) {
			fprintf(stderr, "%s: %s\n", prog, e.msg);
			status = 1;
		}
	}
	if (on_gpu)
		gpu_close(&g);
	if (fclose(stdout) != 0 && status == 0) {
		fprintf(stderr, "%s: cannot write standard output: %s\n", prog,
		    strerror(errno));
		status = 1;
	}
	return status;
}

/* The message for what getopt_long refused (optstring starts with ':'). */
static inline void
cli_bad_option(const char *prog, int c, char **argv)
{
	if (c == ':')
		fprintf(stderr, "%s: option %s needs a value\n", prog, argv[optind - 1]);
	else
		fprintf(stderr, "%s: unknown option %s\n", prog, argv[optind - 1]);
}

/* Prints the strategy table for --help. */
static inline void
cli_strategies(FILE *f)
{
	fprintf(f, "strategies (-m):\n");
	for (int i = 0; i < GF_NSTRATEGIES; i++)
		fprintf(f, "  %-8s %s\n", gf_strategies[i].name, gf_strategies[i].summary);
}

#endif
