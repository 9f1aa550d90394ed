/*
 * cli.c - main() of every tool (cli_main): one option loop over the
 * shared options and the tool's own, --help and --version, the operands
 * (one input and output, or -o DIR and many inputs) as the engine's
 * jobs, what the engine reports (messages, -v lines, progress, the run
 * summary) on stderr, and the exit status.  Printing and exiting live
 * here, in cmd/, never in lib/.  Linked into each tool beside its
 * cmd/<tool>.c, which holds only the tool's definition (cli.h).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <unistd.h>

#include "batch.h"
#include "cli.h"
#include "cli_complete.h"
#include "cli_env.h"
#include "cli_serve.h"
#include "engine.h"
#include "gpu.h"

/* The version is set in one place, the Makefile's VERSION. */
#ifndef GF_VERSION
#error "GF_VERSION is not defined: build with make (VERSION in the Makefile)"
#endif

/* What the engine's hooks print with: the program, -v/-q, the progress line. */
struct cli_ctx {
	const char *prog;
	const struct gf_opts *o;
	int tty;                /* stderr is a terminal: progress and summary */
	int progress_shown;     /* a progress line is on the terminal */
	double progress_at;     /* when it was last drawn (ms into the run) */
	int progress_tenth;     /* off a terminal: the tenths of inputs reported */
};

/*
 * "prog: message" on stderr, the message escaped as library text is
 * (gf_escape: bytes outside printable ASCII as \xNN), so that a file name
 * holding a newline or a terminal escape cannot forge or erase a line.
 * Escaping is idempotent: text the library escaped already is unchanged.
 */
static void __attribute__((format(printf, 2, 3)))
cli_say(const char *prog, const char *fmt, ...)
{
	char raw[2 * PATH_MAX + 1024], safe[4 * sizeof(raw)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", prog, gf_escape(safe, sizeof(safe), raw));
}

/*
 * A usage error, as GNU tools give it: "prog: <sentence>" (escaped, as
 * cli_say) and the way to the options, "Try 'prog --help'.", on stderr.
 * Returns 2, the status.
 */
static int __attribute__((format(printf, 2, 3)))
cli_usage(const char *prog, const char *fmt, ...)
{
	char raw[2 * PATH_MAX + 1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	cli_say(prog, "%s", raw);
	fprintf(stderr, "Try '%s --help'.\n", prog);
	return 2;
}

/* Clears the progress line before anything else goes to stderr. */
static void
cli_clear_progress(struct cli_ctx *c)
{
	if (c->progress_shown)
		fputs("\r\033[K", stderr);
	c->progress_shown = 0;
}

/*
 * The notice that the CPU runs instead of the GPU, and why: with -v, or
 * when --fallback asked for it; never with -q.  -m auto alone says
 * nothing, as vips and ImageMagick say nothing (and a pipeline of two
 * tools said it twice).
 */
static void
cli_notice(void *arg, const char *msg)
{
	struct cli_ctx *c = arg;

	if (c->o->quiet || !(c->o->verbose || c->o->fallback))
		return;
	cli_say(c->prog, "running on the CPU (%s)", msg);
}

static void
cli_error(void *arg, const char *msg)
{
	struct cli_ctx *c = arg;

	cli_clear_progress(c);
	cli_say(c->prog, "%s", msg);
}

/* -v: one line per image on stderr. */
static void
cli_report(void *arg, const char *input, int index, const struct image *out,
    const struct gf_times *t, int device)
{
	struct cli_ctx *c = arg;
	double gbs = t->kernel > 0 ? t->kernel_bytes / (t->kernel * 1e6) : 0;
	const char *otsu = t->otsu ? " (Otsu)" : "";
	char name[4 * PATH_MAX];

	if (!c->o->verbose)
		return;
	cli_clear_progress(c);
	fprintf(stderr, "%s: %s image %d: %dx%d, ", c->prog,
	    gf_escape(name, sizeof(name), input), index, out->width, out->height);
	if (t->thresholds == 1)
		fprintf(stderr, "threshold %g%s, ", t->high, otsu);
	else if (t->thresholds == 2)
		fprintf(stderr, "low %g high %g%s, ", t->low, t->high, otsu);
	if (t->engines)
		fprintf(stderr, "read %.2f ms (decoder: JPEG engines, %.2f ms), ",
		    t->read, t->decode);
	else
		fprintf(stderr, "read %.2f ms (decoder: CPU), ", t->read);
	if (device >= 0)
		fprintf(stderr, "GPU %d: upload %.2f ms, kernel %.3f ms (%.1f GB/s), "
		    "download %.2f ms, ", device, t->upload, t->kernel, gbs,
		    t->download);
	else
		fprintf(stderr, "cpu %.2f ms, ", t->cpu);
	fprintf(stderr, "write %.2f ms%s\n", t->write, t->served ?
	    " (filtered by gpufiltd)" : "");
}

/* "12 s", "3 min 05 s", "2 h 10 min": a time left of secs seconds. */
static void
cli_time_left(char *buf, size_t n, double secs)
{
	long s = (long)(secs + 0.5);

	if (s < 60)
		snprintf(buf, n, "%ld s", s);
	else if (s < 3600)
		snprintf(buf, n, "%ld min %02ld s", s / 60, s % 60);
	else
		snprintf(buf, n, "%ld h %02ld min", s / 3600, s / 60 % 60);
}

/*
 * The progress line's text: inputs done of all, their percentage and the
 * time left at the rate so far (a batch), images and the rate.
 */
static void
cli_progress_text(char *buf, size_t n, int jobs_done, int njobs,
    int images, double ms)
{
	size_t len = 0;
	char left[32];

	if (njobs > 1 && jobs_done > 0) {
		cli_time_left(left, sizeof(left), ms / 1000 / jobs_done *
		    (njobs - jobs_done));
		len = (size_t)snprintf(buf, n, "%d/%d inputs (%.0f%%), %s left, ",
		    jobs_done, njobs, 100.0 * jobs_done / njobs, left);
	} else if (njobs > 1) {
		len = (size_t)snprintf(buf, n, "0/%d inputs, ", njobs);
	}
	if (len < n)
		snprintf(buf + len, n - len, "%d images, %.1f images/s", images,
		    ms > 0 ? images / (ms / 1000) : 0);
}

/*
 * Progress.  On a terminal, once a run has lasted a second: one line
 * redrawn in place.  Elsewhere with --progress (a log, nohup, CI): a
 * line each time another tenth of the inputs is done, and at least
 * every 10 seconds.
 */
static void
cli_progress(void *arg, int jobs_done, int njobs, int images, double ms)
{
	struct cli_ctx *c = arg;
	char text[160];
	int tenth = njobs > 1 ? (int)(10LL * jobs_done / njobs) : 0;

	if (c->o->quiet)
		return;
	if (c->tty) {
		if (ms < 1000 || ms - c->progress_at < 100)
			return;
		cli_progress_text(text, sizeof(text), jobs_done, njobs, images, ms);
		fprintf(stderr, "\r\033[K%s: %s", c->prog, text);
		c->progress_at = ms;
		c->progress_shown = 1;
		return;
	}
	if (!c->o->progress || (tenth <= c->progress_tenth &&
	    ms - c->progress_at < 10000))
		return;
	cli_progress_text(text, sizeof(text), jobs_done, njobs, images, ms);
	fprintf(stderr, "%s: %s\n", c->prog, text);
	c->progress_tenth = tenth;
	c->progress_at = ms;
}

/*
 * The rate and busy lines of the run summary (cli_summary); where JPEGs
 * could go to the GPUs' JPEG engines, the images each decoder took and
 * how busy the engines' decoders were.
 */
static void
cli_summary_rate(struct cli_ctx *c, const struct engine_stats *st)
{
	double s = st->wall_ms / 1000;

	if (c->o->quiet || st->images < 2 || !(c->o->verbose || c->tty) || s <= 0)
		return;
	fprintf(stderr, "%s: %d images in %.2f s, %.1f images/s, %.1f MB/s; busy: "
	    "read %.0f%% (%d threads), %s %.0f%% (%d lanes), write %.0f%% "
	    "(%d threads)\n", c->prog, st->images, s, st->images / s,
	    st->bytes_in / 1e6 / s, 100 * st->read_ms / (st->wall_ms *
	    st->readers), st->readers, st->served ? (st->on_gpu ? "gpufiltd gpu" :
	    "gpufiltd cpu") : st->on_gpu ? "gpu" : "cpu",
	    100 * st->filter_ms / (st->wall_ms * st->lanes), st->lanes,
	    100 * st->write_ms / (st->wall_ms * st->writers), st->writers);
	for (int i = 0; i < st->ndevices; i++)
		fprintf(stderr, "%s: GPU %d (%s): %d images, busy %.0f%%\n", c->prog,
		    st->dev[i].device, st->dev[i].name, st->dev[i].images,
		    100 * st->dev[i].busy_ms / st->wall_ms);
	if (!st->jpeg_on) {
		if (st->jpeg_why[0] != '\0')
			fprintf(stderr, "%s: JPEGs decoded on the CPU: %s\n", c->prog,
			    st->jpeg_why);
		return;
	}
	fprintf(stderr, "%s: decoders: %d images on the GPUs' JPEG engines, %d on "
	    "the CPU", c->prog, st->jpeg_engines, st->images - st->jpeg_engines);
	if (st->jpeg_cpu > 0)
		fprintf(stderr, " (%d of them refused or failed by the engines)",
		    st->jpeg_cpu);
	if (st->jpeg_unsure > 0)
		fprintf(stderr, " (%d kept from them by the check of their coded "
		    "data: damaged, or read otherwise by the engines)", st->jpeg_unsure);
	for (int i = 0; !st->served && i < st->ndevices; i++)
		fprintf(stderr, "; GPU %d's engines busy %.0f%%", st->dev[i].device,
		    100 * st->dev[i].jpeg_busy_ms / st->wall_ms);
	fprintf(stderr, "\n");
}

/*
 * The run summary, for runs of several images with -v or on a terminal:
 * the rate, and how busy each stage was (the bottleneck is near 100%);
 * on the GPU, a line per GPU: the images it took and the fraction of
 * the run it had one.  Then, unless -q, how many of the njobs inputs of
 * a batch failed, if any did: their messages may have scrolled away.
 */
static void
cli_summary(struct cli_ctx *c, const struct engine_stats *st, int failed,
    int njobs)
{
	cli_clear_progress(c);
	cli_summary_rate(c, st);
	if (!c->o->quiet && njobs > 1 && failed > 0)
		cli_say(c->prog, "%d of %d inputs failed", failed, njobs);
}

/*
 * Refuses to wait on a terminal for an image (no input operand, or "-",
 * with standard input a terminal: returns 2, a usage error) and to write
 * an image's bytes onto one (standard output a terminal: returns 1, as
 * gzip and zstd refuse), each with the way out; 0 otherwise.
 */
static int
cli_check_terminal(const char *prog, const struct gf_opts *o, int argc,
    char **argv)
{
	if (o->outdir != NULL)
		return 0;
	if ((argc == 0 || strcmp(argv[0], "-") == 0) && isatty(STDIN_FILENO))
		return cli_usage(prog, "standard input is a terminal, not an "
		    "image: name an input file, or pipe an image in");
	if ((argc < 2 || strcmp(argv[1], "-") == 0) && isatty(STDOUT_FILENO)) {
		cli_say(prog, "not writing an image to a terminal: name an output "
		    "file, or redirect standard output (> out.pgm) or pipe it");
		return 1;
	}
	return 0;
}

/*
 * Refuses a -o DIR batch before it runs (prints why, returns 2): DIR is
 * not a directory, there is no input, two inputs would be written to one
 * output, or an input would be replaced by its output.  Then makes DIR
 * if it does not exist (returns 1 if it cannot be made).
 */
static int
cli_check_batch(const char *prog, const struct gf_opts *o, int argc,
    char **argv)
{
	struct gf_err e = {0};

	if (argc == 0)
		return cli_usage(prog, "-o %s needs at least one input file",
		    o->outdir);
	if (batch_check(o->outdir, argv, argc, o->format, &e) < 0)
		return cli_usage(prog, "%s", e.msg);
	if (batch_mkdir(o->outdir, &e) < 0) {
		cli_say(prog, "%s", e.msg);
		return 1;
	}
	return 0;
}

/*
 * --shard K/N of a checked batch: keeps in argv, in place and in the
 * order given, the operands of shard K (batch_shard) and returns their
 * count (with -v, says so when there are none); -1 after a message.
 */
static int
cli_shard(const char *prog, const struct gf_opts *o, int argc, char **argv)
{
	struct gf_err e = {0};
	int n = batch_shard(argv, argc, o->shard_k, o->shard_n, argv, &e);

	if (n < 0)
		cli_say(prog, "%s", e.msg);
	else if (n == 0 && o->verbose && !o->quiet)
		fprintf(stderr, "%s: shard %d/%d of %d inputs is empty\n", prog,
		    o->shard_k, o->shard_n, argc);
	return n;
}

/*
 * Whether the run goes to the server (serve_decide): the exit status of
 * a refusal, after its message; 0 when decided, after -v's note.
 */
static int
cli_serve(const struct cli_tool *ct, int nopts, char **opts)
{
	struct gf_err note, err = {0};
	int status = serve_decide(ct, nopts, opts, &note, &err);

	if (status == 2)
		return cli_usage(ct->name, "%s", err.msg);
	if (status != 0)
		cli_say(ct->name, "%s", err.msg);
	else if (note.msg[0] != '\0' && ct->common->verbose && !ct->common->quiet)
		cli_say(ct->name, "%s", note.msg);
	return status;
}

/*
 * Runs tool t over the operands after option parsing and returns the exit
 * status: 0 if every image was written, 1 if any run failed, 2 for a
 * usage error (too many operands, -o without a directory, --shard
 * without -o).
 */
static int
cli_run_operands(const struct cli_tool *ct, const struct tool *t, int argc,
    char **argv, int nopts, char **opts)
{
	const char *prog = ct->name;
	const struct gf_opts *o = ct->common;
	struct gf_err e = {0};
	struct cli_ctx c = {prog, o, isatty(STDERR_FILENO), 0, 0, 0};
	struct engine_hooks h = {cli_notice, cli_error, cli_report, cli_progress,
	    &c, 1};
	struct engine_stats stats;
	struct engine_job one, *jobs = &one;
	int status = 0, njobs = 1, failed;

	if (o->outdir == NULL && o->shard_n > 0)
		return cli_usage(prog, "--shard needs a batch (-o DIR): it picks "
		    "some of the input files");
	if (o->outdir == NULL && argc > 2)
		return cli_usage(prog, "too many operands (%d): give at most an "
		    "input and an output, or -o DIR for many inputs", argc);
	if (o->outdir == NULL && argc > 1 &&
	    img_format_check(argv[1], o->format, &e) < 0)
		return cli_usage(prog, "%s", e.msg);
	if ((status = cli_check_terminal(prog, o, argc, argv)) != 0)
		return status;
	if (o->outdir != NULL && (status = cli_check_batch(prog, o, argc,
	    argv)) != 0)
		return status;
	if (o->outdir != NULL && o->shard_n > 0 &&
	    (argc = cli_shard(prog, o, argc, argv)) <= 0)
		return argc < 0 ? 1 : cli_close_stdout(prog);
	if ((status = cli_serve(ct, nopts, opts)) != 0)
		return status;
	if (o->outdir != NULL) {
		njobs = argc;
		if ((jobs = calloc((size_t)argc, sizeof(*jobs))) == NULL) {
			fprintf(stderr, "%s: out of memory\n", prog);
			return 1;
		}
		for (int i = 0; i < argc; i++)
			jobs[i] = (struct engine_job){argv[i], NULL, o->outdir};
	} else {
		one = (struct engine_job){argc > 0 ? argv[0] : NULL,
		    argc > 1 ? argv[1] : NULL, NULL};
	}
	failed = engine_run(t, o, jobs, njobs, &h, &stats, &e);
	if (failed < 0) {
		cli_error(&c, e.msg);
		status = 1;
	} else if (failed > 0) {
		status = 1;
	}
	cli_summary(&c, &stats, failed, njobs);
	if (jobs != &one)
		free(jobs);
	remote_close(o->remote);
	ct->common->remote = NULL;
	if (status == 0)
		status = cli_close_stdout(prog);
	return status;
}

/*
 * The names of --files-from (the file, or standard input for "-"), after
 * the n operands of argv, into a new *all (*nall names; *list, *nlist:
 * what to free).  The exit status of a refusal, after a message; 0.
 */
static int
cli_files_from(const char *prog, const struct gf_opts *o, int n, char **argv,
    char ***all, int *nall, char ***list, int *nlist)
{
	struct gf_err e = {0};
	int from_stdin = strcmp(o->files_from, "-") == 0;
	FILE *f = from_stdin ? stdin : fopen(o->files_from, "r");

	if (f == NULL) {
		cli_say(prog, "--files-from %s: cannot open it: %s", o->files_from,
		    strerror(errno));
		return 1;
	}
	if (batch_read_list(f, from_stdin ? "- (standard input)" : o->files_from,
	    o->null_sep ? '\0' : '\n', list, nlist, &e) < 0) {
		if (!from_stdin)
			fclose(f);
		cli_say(prog, "%s", e.msg);
		return 1;
	}
	if (!from_stdin)
		fclose(f);
	for (int i = 0; from_stdin && i < *nlist; i++)
		if (strcmp((*list)[i], "-") == 0)
			return cli_usage(prog, "--files-from - reads its list from "
			    "standard input, so no input in it can be - (standard input)");
	if (n + *nlist == 0)
		return cli_usage(prog, "--files-from %s names no input", o->files_from);
	if (*nlist > INT_MAX - n || (*all = calloc((size_t)(n + *nlist),
	    sizeof(**all))) == NULL) {
		cli_say(prog, "out of memory for %d inputs", *nlist);
		return 1;
	}
	memcpy(*all, argv, (size_t)n * sizeof(*argv));
	memcpy(*all + n, *list, (size_t)*nlist * sizeof(**list));
	*nall = n + *nlist;
	return 0;
}

/*
 * cli_run_operands over the operands and, with --files-from, the names
 * of its list after them (a batch only).  The exit status.
 */
static int
cli_run(const struct cli_tool *ct, const struct tool *t, int argc,
    char **argv, int nopts, char **opts)
{
	const struct gf_opts *o = ct->common;
	char **all = NULL, **list = NULL;
	int nall = 0, nlist = 0, status;

	if (o->null_sep && o->files_from == NULL)
		return cli_usage(ct->name, "-0 reads the names of --files-from as "
		    "ending in NUL; give --files-from FILE");
	if (o->files_from == NULL)
		return cli_run_operands(ct, t, argc, argv, nopts, opts);
	if (o->outdir == NULL)
		return cli_usage(ct->name, "--files-from needs a batch (-o DIR): "
		    "the names it lists are inputs, each written to DIR");
	status = cli_files_from(ct->name, o, argc, argv, &all, &nall, &list,
	    &nlist);
	if (status == 0)
		status = cli_run_operands(ct, t, nall, all, nopts, opts);
	free(all);
	batch_list_free(list, nlist);
	return status;
}

/* Prints the strategy table for --help. */
static void
cli_strategies(FILE *f)
{
	fprintf(f, "strategies (-m):\n");
	for (int i = 0; i < GF_NSTRATEGIES; i++)
		fprintf(f, "  %-8s %s\n", gf_strategies[i].name, gf_strategies[i].summary);
}


/* The help lines of the options every tool shares. */
static const char cli_common_help[] =
    "  --border mode   replicate (default), zero, reflect or wrap\n"
    "  -m strategy     GPU kernel strategy (below); --cpu = -m cpu\n"
    "  --fallback      the CPU reference, with a notice, if -m finds no GPU\n"
    "  --block WxH     threads per block;  --rows N  rows per thread\n"
    "  --device N|all  GPU number, a list (0,2,3) or all: images go to the\n"
    "                  first free one\n"
    "  --shard K/N     batch: only the inputs whose place in the sorted list\n"
    "                  is K modulo N (K from 0)\n"
    "  --max-pixels N  refuse larger images (default 2^28; 0: no limit)\n"
    "  --no-autorotate keep JPEG, TIFF and WebP pixels as stored, not as their\n"
    "                  orientation tag says they are displayed\n"
    "  -j N            decoders and CPU threads (default: one per CPU online)\n"
    "  -f format       output format: pnm, webp, png, jpeg or tiff (default:\n"
    "                  by output name; PNM on stdout)\n"
    "  --quality N     JPEG quality, 1 to 100 (default 95); WebP lossy at N\n"
    "                  (default lossless)\n"
    "  -o dir          batch: write dir/<input base name>.<ext> per input\n"
    "  --files-from F  batch: the inputs named in file F, one a line (- for\n"
    "                  standard input), after any operands\n"
    "  -0, --null      --files-from's names end in NUL, as xargs -0 reads\n"
    "  --progress      progress lines (inputs, %, time left) on stderr even\n"
    "                  when it is not a terminal\n"
    "  --no-server     run in this process, not through a server (gpufiltd)\n"
    "                  that answers: GPUFILT_SERVER=off for one run\n"
    "  -v              timings per image on stderr\n"
    "  -q              no notices, progress or summary, even with -v\n"
    "  --completion SH print the completion script of shell SH: bash, zsh\n"
    "                  or fish\n"
    "  -h, --help      this help;  -V, --version  the version\n";

/* --help: the synopsis, the tool's options, the shared ones, the strategies. */
static void
cli_help(const struct cli_tool *ct)
{
	printf("%s\n%s%s\n", ct->synopsis, ct->help, cli_common_help);
	cli_strategies(stdout);
}

/* The option that prints the shell completion (cli_complete.h). */
enum { CLI_OPT_COMPLETION = GF_OPT_TOOL - 1 };

/*
 * The shared long options, --completion, then the tool's, into all
 * (GF_CLI_MAXOPTS).
 */
#define GF_CLI_MAXOPTS 32
static void
cli_longopts(const struct cli_tool *ct, struct option *all)
{
	static const struct option common[] = {GF_LONGOPTS,
	    {"completion", required_argument, NULL, CLI_OPT_COMPLETION},
	    {NULL, 0, NULL, 0}};
	int n = 0;

	for (const struct option *l = common; l->name != NULL; l++)
		all[n++] = *l;
	for (const struct option *l = ct->longopts; l->name != NULL &&
	    n < GF_CLI_MAXOPTS - 1; l++)
		all[n++] = *l;
	all[n] = (struct option){NULL, 0, NULL, 0};
}

/*
 * --completion bash|zsh|fish: the completion script of ct, from its
 * option tables, help and values, on standard output.  The exit status.
 */
static int
cli_completion(const struct cli_tool *ct, const char *shell)
{
	struct option longopts[GF_CLI_MAXOPTS];
	static struct complete_opt o[GF_CLI_MAXOPTS + 64];
	char shortopts[64], help[4096];
	int n;

	cli_longopts(ct, longopts);
	snprintf(shortopts, sizeof(shortopts), "%s%s", GF_SHORTOPTS, ct->shortopts);
	snprintf(help, sizeof(help), "%s%s", ct->help, cli_common_help);
	n = complete_opts(shortopts, longopts, o, GF_CLI_MAXOPTS + 64);
	for (int i = 0; i < n; i++)
		if (ct->complete == NULL || !ct->complete(o[i].code, o[i].words,
		    sizeof(o[i].words)))
			complete_words(o[i].code, CLI_OPT_COMPLETION, o[i].words,
			    sizeof(o[i].words));
	if (strcmp(shell, "bash") == 0)
		complete_bash(stdout, ct->name, o, n);
	else if (strcmp(shell, "zsh") == 0)
		complete_zsh(stdout, ct->name, o, n, help);
	else if (strcmp(shell, "fish") == 0)
		complete_fish(stdout, ct->name, o, n, help);
	else
		return cli_usage(ct->name, "'%s' is not a shell this tool "
		    "completes for; choose bash, zsh or fish", shell);
	return cli_close_stdout(ct->name);
}

/*
 * Adds to e the hint of ct for the option getopt_long refused as unknown
 * (c '?'), where ct has one for its word ("-t", or "--threshold" with
 * or without "=value").
 */
static void
cli_hint(const struct cli_tool *ct, int c, char *const *argv,
    struct gf_err *e)
{
	const char *word = optind > 0 ? argv[optind - 1] : "";
	char shortw[3] = {'-', (char)optopt, '\0'};
	size_t n, len;

	if (c != '?' || ct->hints == NULL)
		return;
	if (strncmp(word, "--", 2) != 0)
		word = shortw;
	n = strcspn(word, "=");
	for (const struct cli_hint *h = ct->hints; h->word != NULL; h++)
		if (strlen(h->word) == n && strncmp(h->word, word, n) == 0 &&
		    (len = strlen(e->msg)) < sizeof(e->msg))
			snprintf(e->msg + len, sizeof(e->msg) - len, ": %s", h->text);
}

/*
 * The option loop: every option of argv into ct->ctx and *ct->common,
 * and the shell of --completion into *shell.  Returns optind, or -1 with
 * e set on a usage error.
 */
static int
cli_parse(const struct cli_tool *ct, int argc, char **argv,
    const char **shell, struct gf_err *e)
{
	struct option longopts[GF_CLI_MAXOPTS];
	char shortopts[64];
	int c, r;

	cli_longopts(ct, longopts);
	snprintf(shortopts, sizeof(shortopts), ":%s%s", GF_SHORTOPTS,
	    ct->shortopts);
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == '?' || c == ':') {
			gf_opts_refused(c, argv, longopts, e);
			cli_hint(ct, c, argv, e);
			return -1;
		}
		if (c == CLI_OPT_COMPLETION) {
			*shell = optarg;
			continue;
		}
		r = gf_opts_common(ct->common, c, optarg, e);
		if (r == 0)
			r = ct->option(ct->ctx, c, optarg, e);
		if (r == 0)
			r = gf_fail(e, "option -%c is unknown", c);
		if (r < 0)
			return -1;
	}
	return optind;
}

/* A run's copy of ct with options of its own, at their defaults; -1: no memory. */
static int
cli_instance(const struct cli_tool *ct, struct cli_tool *run)
{
	*run = *ct;
	if ((run->ctx = calloc(1, ct->ctx_size)) == NULL)
		return -1;
	ct->init(run->ctx);
	run->common = ct->common_of(run->ctx);
	return 0;
}

/* cli_main on run, its options allocated (freed by the caller). */
static int
cli_main_run(const struct cli_tool *ct, int argc, char **argv)
{
	struct gf_err e = {0};
	struct tool t;
	const char *shell = NULL;
	int first;

	if ((first = cli_parse(ct, argc, argv, &shell, &e)) >= 0 && shell != NULL)
		return cli_completion(ct, shell);
	if (first < 0 || (!ct->common->help && !ct->common->version &&
	    ct->check(ct->ctx, &e) < 0))
		return cli_usage(ct->name, "%s", e.msg);
	if (ct->common->help || ct->common->version) {
		if (ct->common->help)
			cli_help(ct);
		else
			printf("%s (gpufilt) %s\n", ct->name, GF_VERSION);
		return cli_close_stdout(ct->name);
	}
	cli_env_settings(ct->name, ct->common);
	ct->make(ct->ctx, &t);
	return cli_run(ct, &t, argc - first, argv + first, first, argv);
}

int
cli_main(const struct cli_tool *def, int argc, char **argv)
{
	struct cli_tool run;
	int status;

	cli_start(def->name);
	if (cli_instance(def, &run) < 0) {
		fprintf(stderr, "%s: out of memory\n", def->name);
		return 1;
	}
	status = cli_main_run(&run, argc, argv);
	free(run.ctx);
	return status;
}

int
cli_tool_build(const struct cli_tool *def, int argc, char **argv,
    const struct gf_settings *set, void **ctx, struct tool *t,
    struct gf_err *e)
{
	static pthread_mutex_t getopt_mu = PTHREAD_MUTEX_INITIALIZER;
	struct cli_tool run;
	const char *shell = NULL;
	int first, saved_opterr;

	*ctx = NULL;
	if (cli_instance(def, &run) < 0)
		return gf_nomem(e, "out of memory");
	pthread_mutex_lock(&getopt_mu);
	saved_opterr = opterr;  /* getopt's globals, under its lock */
	optind = 0;             /* glibc: start afresh, as for a new argv */
	opterr = 0;
	first = cli_parse(&run, argc, argv, &shell, e);
	opterr = saved_opterr;
	pthread_mutex_unlock(&getopt_mu);
	if (first >= 0 && (shell != NULL || run.common->help ||
	    run.common->version))
		first = gf_fail(e, "--help, --version and --completion are not runs");
	if (first >= 0 && first != argc)
		first = gf_fail(e, "%d operands after the options: a client sends "
		    "options only", argc - first);
	if (first >= 0 && run.check(run.ctx, e) < 0)
		first = -1;
	if (first < 0) {
		free(run.ctx);
		return -1;
	}
	run.common->verbose = 0;        /* make's notes are the client's to print */
	run.common->quiet = 1;
	run.common->set = *set;
	run.make(run.ctx, t);
	*ctx = run.ctx;
	return 0;
}

int
cli_tools_build(const struct cli_tool *const *tools, size_t n, int argc,
    char **argv, const struct gf_settings *set, void **ctx, struct tool *t,
    const struct gf_opts **o, struct gf_err *e)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(argv[0], tools[i]->name) == 0) {
			if (cli_tool_build(tools[i], argc, argv, set, ctx, t, e) < 0)
				return -1;
			*o = tools[i]->common_of(*ctx);
			return 0;
		}
	return gf_fail(e, "'%.40s' is not a tool this server runs", argv[0]);
}

void
cli_serve_argv_free(char **v)
{
	for (int i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

int
cli_serve_argv(const struct cli_tool *ct, int nopts, char **argv, char ***out,
    struct gf_err *e)
{
	struct option longopts[GF_CLI_MAXOPTS];
	char shortopts[64], **copy = calloc((size_t)nopts + 1, sizeof(*copy));
	char **res = calloc(2 * (size_t)nopts + 2, sizeof(*res));
	int c, n = 0, saved_opterr = opterr;

	*out = NULL;
	if (copy == NULL || res == NULL || (res[n++] = strdup(ct->name)) == NULL)
		goto nomem;
	memcpy(copy, argv, (size_t)nopts * sizeof(*copy));
	cli_longopts(ct, longopts);
	snprintf(shortopts, sizeof(shortopts), ":%s%s", GF_SHORTOPTS, ct->shortopts);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(nopts, copy, shortopts, longopts, NULL)) != -1) {
		char *text = NULL, word[64];
		int r = 0;
		const struct option *l = longopts;

		if (c == '?' || c == ':')
			continue;       /* cannot be: cli_parse took these options */
		if (optarg != NULL && ct->serve_value != NULL &&
		    (r = ct->serve_value(ct->ctx, c, optarg, &text)) < 0) {
			gf_fail(e, "a value of its options names a file a server does "
			    "not read (%s)", optarg);
			goto fail;
		}
		if (c < 256) {
			snprintf(word, sizeof(word), "-%c", c);
		} else {
			while (l->name != NULL && l->val != c)
				l++;
			snprintf(word, sizeof(word), "--%s", l->name != NULL ? l->name : "");
		}
		if ((res[n++] = strdup(word)) == NULL ||
		    (optarg != NULL && (res[n++] = r == 1 ? text : strdup(optarg)) == NULL))
			goto nomem;
	}
	opterr = saved_opterr;
	free(copy);
	*out = res;
	return n;
nomem:
	gf_nomem(e, "out of memory");
fail:
	opterr = saved_opterr;
	free(copy);
	cli_serve_argv_free(res);
	return -1;
}
