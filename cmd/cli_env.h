/*
 * cli_env.h - what every main does about hostile surroundings, first and
 * last: standard descriptors that were closed, signals that must not
 * leave temporary files behind, and the check that standard output was
 * really written, and the GPUFILT_* settings that cmd/ reads from the
 * environment into the options.  Kept apart from cli.h's operand loop;
 * printing, exiting and getenv live here, in cmd/, never in lib/.
 */
#ifndef GF_CLI_ENV_H
#define GF_CLI_ENV_H

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "opts.h"
#include "outfile.h"

/*
 * Opens /dev/null on each of descriptors 0, 1 and 2 that is closed, so
 * that no file the tool opens lands there (a temporary output on fd 2
 * would receive the messages).  It is opened in the wrong direction
 * (write-only for 0, read-only for 1 and 2): reading a closed standard
 * input or writing a closed standard output still fails, as it would
 * have, instead of succeeding into nothing.  0, or -1 (errno).
 */
static inline int
cli_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		int got = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
		if (got != fd) {
			if (got >= 0)
				close(got);
			return -1;
		}
	}
	return 0;
}

/* Removes the temporary outputs, then dies of sig as if it were not caught. */
static inline void
cli_on_signal(int sig)
{
	outfile_remove_temps();
	signal(sig, SIG_DFL);
	raise(sig);             /* blocked until return: then the default action */
}

/*
 * The signals whose default action ends the process, SIGKILL aside (it
 * cannot be caught), and the real-time ones (SIGRTMIN to SIGRTMAX, all
 * of which end it) besides: a signal that is not caught leaves the
 * temporary outputs behind.  Those that only some systems have are
 * guarded; one of two names (SIGPOLL is SIGIO on Linux) is caught once
 * more, to no harm.
 */
static const int cli_fatal_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE,
	SIGUSR1, SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ,
	SIGVTALRM, SIGPROF, SIGSYS,
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
#ifdef SIGIO
	SIGIO,
#endif
#ifdef SIGPOLL
	SIGPOLL,
#endif
#ifdef SIGPWR
	SIGPWR,
#endif
#ifdef SIGEMT
	SIGEMT,
#endif
#ifdef SIGLOST
	SIGLOST,
#endif
};

/*
 * Catches sig with cli_on_signal, all other signals blocked while it
 * runs.  One the caller ignores (nohup, a background job's SIGINT)
 * stays ignored, and so does a SIGPROF handler set before main (a
 * profiler's: its ticks would end the run); another handler set before
 * main (a sanitizer's for SIGSEGV) gives way, so that the outputs go.
 */
static inline void
cli_catch(int sig)
{
	struct sigaction sa, old;

	if (sigaction(sig, NULL, &old) != 0 || old.sa_handler == SIG_IGN ||
	    (sig == SIGPROF && old.sa_handler != SIG_DFL))
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cli_on_signal;
	sa.sa_flags = SA_RESETHAND;
	sigfillset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/*
 * Catches every signal that ends the process (cli_fatal_signals, and
 * the real-time ones) with cli_on_signal.
 */
static inline void
cli_signals(void)
{
	const int n = (int)(sizeof(cli_fatal_signals) / sizeof(cli_fatal_signals[0]));

	for (int i = 0; i < n; i++)
		cli_catch(cli_fatal_signals[i]);
#if defined(SIGRTMIN) && defined(SIGRTMAX)
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		cli_catch(sig);
#endif
}

/*
 * Under a limit on address space (ulimit -v), the threads share one
 * malloc arena.  glibc gives each thread that allocates an arena of its
 * own, up to 8 a core, and reserves 64 MB of address space for each
 * (twice that while it aligns one): a run's readers, lanes and encoders
 * spent most of a limit of a few hundred MB on reservations, and an
 * image's buffer or a served run's window of shared memory failed, out
 * of memory, with the memory itself to spare.
 */
static inline void
cli_address_limit(void)
{
#ifdef M_ARENA_MAX
	struct rlimit rl;

	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		(void)mallopt(M_ARENA_MAX, 1);
#endif
}

/*
 * The first act of every main: sane descriptors 0-2, signal cleanup,
 * malloc within an address-space limit.
 */
static inline void
cli_start(const char *prog)
{
	if (cli_std_fds() < 0) {
		fprintf(stderr, "%s: cannot open /dev/null for a closed standard "
		    "descriptor: %s\n", prog, strerror(errno));
		exit(1);
	}
	cli_signals();
	cli_address_limit();
}

/*
 * The environment's settings of o: GPUFILT_SMALL_PIXELS and
 * GPUFILT_SERVED_SMALL_PIXELS, the small-run rule's pixels without and
 * with a server (opts.h; unset: GF_SMALL_PIXELS, GF_SERVED_SMALL_PIXELS;
 * 0: off).  A value that is not a count is ignored, as ls ignores a bad
 * TABSIZE, with a warning (none with -q).
 */
static inline void
cli_env_pixels(const char *prog, const struct gf_opts *o, const char *name,
    long long dflt, long long *v)
{
	const char *env = getenv(name);
	struct gf_err e = {0};
	long n;

	*v = dflt;
	if (env == NULL)
		return;
	if (gf_parse_int(env, name, 0, 1L << 40, &n, &e) == 0)
		*v = n;
	else if (!o->quiet)
		fprintf(stderr, "%s: ignoring the environment: %s (the default, "
		    "%lld, holds)\n", prog, e.msg, dflt);
}

/*
 * The environment's GPUFILT_* settings of the stages into set (opts.h's
 * struct gf_settings; the man pages' ENVIRONMENT says what each means),
 * the one place that reads them.  Values are taken as the engine took
 * them when it read them itself: a number through atoi, "0" for no, and
 * anything else as unset; none is warned about.
 */
static inline void
cli_env_knobs(struct gf_settings *set)
{
	const char *env;

	if ((env = getenv("GPUFILT_STRIP_ROWS")) != NULL)
		set->strip_rows = atoi(env) > 0 ? atoi(env) : 0;
	if ((env = getenv("GPUFILT_LANES")) != NULL)
		set->lanes = atoi(env);
	if ((env = getenv("GPUFILT_STAGING")) != NULL)
		set->staging = strcmp(env, "0") != 0;
	if ((env = getenv("GPUFILT_PINNED")) != NULL)
		set->pinned = strcmp(env, "0") != 0;
	if ((env = getenv("GPUFILT_READ_AHEAD")) != NULL)
		set->read_ahead = strcmp(env, "0") != 0;
	if ((env = getenv("GPUFILT_READER_GRAY")) != NULL)
		set->reader_gray = atoi(env) != 0;
	if ((env = getenv("GPUFILT_SPLIT")) != NULL && *env != '\0')
		set->split = atoi(env) > 0 ? atoi(env) : 0;
	if ((env = getenv("GPUFILT_GPU_DECODE")) != NULL)
		set->gpu_decode = strcmp(env, "1") == 0 ? 1 :
		    strcmp(env, "2") == 0 ? 2 : strcmp(env, "server") == 0 ? 3 : 0;
	if ((env = getenv("GPUFILT_JPEG_BATCH")) != NULL)
		set->jpeg_batch = atoi(env);
	if ((env = getenv("GPUFILT_JPEG_SHARE")) != NULL)
		set->jpeg_share = strcmp(env, "0") != 0;
	if ((env = getenv("GPUFILT_JPEG_FAIL")) != NULL)
		set->jpeg_fail = atoi(env);
	if ((env = getenv("GPUFILT_FAIL_GPU")) == NULL ||
	    sscanf(env, "%d:%d", &set->fail_gpu, &set->fail_at) != 2)
		set->fail_gpu = set->fail_at = 0;
	if ((env = getenv("GPUFILT_DP4A")) != NULL)
		set->dp4a = strcmp(env, "0") != 0;
	if ((env = getenv("GPUFILT_TRACE")) != NULL && *env != '\0')
		set->trace = env;
}

static inline void
cli_env_settings(const char *prog, struct gf_opts *o)
{
	cli_env_pixels(prog, o, "GPUFILT_SMALL_PIXELS", GF_SMALL_PIXELS,
	    &o->small_pixels);
	cli_env_pixels(prog, o, "GPUFILT_SERVED_SMALL_PIXELS",
	    GF_SERVED_SMALL_PIXELS, &o->served_small_pixels);
	cli_env_knobs(&o->set);
}

/*
 * Flushes and closes standard output, the last act of main: 0, or 1 after
 * "prog: cannot write standard output: reason" on a write error (a full
 * disk, a closed descriptor that was written to).
 */
static inline int
cli_close_stdout(const char *prog)
{
	int err = 0;

	if (fflush(stdout) != 0)
		err = errno;
	else if (ferror(stdout))
		err = EIO;
	if (fclose(stdout) != 0 && err == 0)
		err = errno;
	if (err == 0)
		return 0;
	fprintf(stderr, "%s: cannot write standard output: %s\n", prog,
	    strerror(err));
	return 1;
}

#endif
