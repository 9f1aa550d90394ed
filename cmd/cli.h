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

#include "batch.h"
#include "cli_env.h"
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
 * Refuses a -o DIR batch before it runs (prints why, returns 2): DIR is
 * missing or not a directory, there is no input, two inputs would be
 * written to one output, or an input would be replaced by its output.
 */
static inline int
cli_check_batch(const char *prog, const struct gf_opts *o, int argc,
    char **argv)
{
	struct gf_err e = {{0}};

	if (batch_check(o->outdir, argv, argc, o->format, &e) < 0) {
		fprintf(stderr, "%s: %s\n", prog, e.msg);
		return 2;
	}
	if (argc == 0) {
		fprintf(stderr, "%s: -o %s needs at least one input file\n", prog,
		    o->outdir);
		return 2;
	}
	return 0;
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
	int fallback, status = 0, on_gpu;

	if (o->outdir == NULL && argc > 2) {
		fprintf(stderr, "%s: too many operands (%d): give at most an input "
		    "and an output, or -o DIR for many inputs\n", prog, argc);
		usage(stderr);
		return 2;
	}
	if (o->outdir != NULL && cli_check_batch(prog, o, argc, argv) != 0)
		return 2;
	on_gpu = tool_open_engine(&g, o, &fallback, &e);
	if (on_gpu < 0) {
		fprintf(stderr, "%s: %s\n", prog, e.msg);
		return 1;
	}
	if (fallback && !o->quiet)
		fprintf(stderr, "%s: running on the CPU (%s)\n", prog, e.msg);
	t->gpu = on_gpu ? &g : NULL;
	t->format = o->format;
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
	if (status == 0)
		status = cli_close_stdout(prog);
	return status;
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
