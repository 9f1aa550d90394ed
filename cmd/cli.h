/*
 * cli.h - what a tool gives the shared main (cmd/cli.c): its name, its
 * synopsis and help lines, its own options and their handler, the check
 * of their combination, and how it becomes the engine's struct tool.
 * Everything else - the shared options, the messages for a bad option,
 * --help and --version, the operands, the exit status - is cli_main's,
 * so every tool answers the same mistake with the same message.
 */
#ifndef GF_CLI_H
#define GF_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "gf.h"
#include "opts.h"
#include "tool.h"

struct cli_tool {
	const char *name;
	const char *synopsis;   /* usage lines: exactly the man page's SYNOPSIS */
	const char *help;       /* the option lines of its own options */
	const char *shortopts;  /* its own short options, getopt style ("t:") */
	const struct option *longopts;  /* its own, from GF_OPT_TOOL; {0} ends */
	/*
	 * Handles option c (as getopt_long returned it) if it is the tool's:
	 * 1 if handled, 0 if not the tool's, -1 with e set on a bad value.
	 */
	int (*option)(void *ctx, int c, const char *arg, struct gf_err *e);
	/* After the options (not for -h, -V): -1 with e set on a usage error. */
	int (*check)(void *ctx, struct gf_err *e);
	/*
	 * The values of the tool's option c for shell completion,
	 * blank-separated, in w (n bytes): 1 with words there, 0 when they
	 * are not known.  NULL: none known.
	 */
	int (*complete)(int c, char *w, size_t n);
	/* Builds the engine's tool from ctx; may print -v notes on stderr. */
	void (*make)(void *ctx, struct tool *t);
	void *ctx;
	struct gf_opts *common; /* the shared options, inside ctx */
	/*
	 * Words that users of the other tools or of other programs type
	 * ("-t", "--threshold"), each with what this tool takes instead,
	 * added to the message that refuses them; {NULL} ends.  NULL: none.
	 */
	const struct cli_hint *hints;
};

struct cli_hint {
	const char *word;
	const char *text;
};

/*
 * The whole of main for tool ct: parses argv into ct->ctx and
 * *ct->common, then runs the operands.  Returns the exit status: 0 if
 * every image was written, 1 if a run failed, 2 for a usage error.
 */
int cli_main(const struct cli_tool *ct, int argc, char **argv);

#endif
