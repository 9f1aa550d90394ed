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
	/*
	 * The value of option c that a server (gpufiltd), which opens no
	 * file a client names, parses in place of arg: 0 arg itself; 1 the
	 * malloc'd *text (conv2d's -k @FILE: the file's text); -1 the run
	 * cannot be served.  NULL: every value as given.
	 */
	int (*serve_value)(void *ctx, int c, const char *arg, char **text);
	/*
	 * The tool's options: ctx_size bytes that init sets to the defaults,
	 * with the shared options inside them at common_of(ctx).  Each run
	 * (a process, or a client of the server) has its own.
	 */
	size_t ctx_size;
	void (*init)(void *ctx);
	struct gf_opts *(*common_of)(void *ctx);
	/* A run's own ctx and its shared options: set on cli_main's copy. */
	void *ctx;
	struct gf_opts *common;
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

/* The tools, for the server, which serves them all (cmd/gpufiltd.c). */
extern const struct cli_tool sobel_cli, conv2d_cli, edge_cli;

/*
 * For the server: the tool of ct that the options argv[1 .. argc-1] make
 * (a client's, as its cli_main parsed them), into *t with its options in
 * a new *ctx (free it with free), without printing anything; their
 * settings (gf_opts.set) are set, the server's own environment's (what
 * the tool's work reads of them, conv2d's dp4a, is the process's that
 * filters).  -1 with e set when they are not a run's (a usage error,
 * --help, a run that cannot be served).  Thread-safe: getopt's state is
 * guarded.
 */
int cli_tool_build(const struct cli_tool *ct, int argc, char **argv,
    const struct gf_settings *set, void **ctx, struct tool *t,
    struct gf_err *e);

/*
 * cli_tool_build with the tool of tools[0 .. n-1] that argv[0] names,
 * and its gf_opts in *o; -1 with e set for a name none of them has.
 * The server's way from a client's options to a tool.
 */
int cli_tools_build(const struct cli_tool *const *tools, size_t n, int argc,
    char **argv, const struct gf_settings *set, void **ctx, struct tool *t,
    const struct gf_opts **o, struct gf_err *e);

#endif
