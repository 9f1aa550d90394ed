/*
 * cli_env.h - what every main does about hostile surroundings, first and
 * last: standard descriptors that were closed, signals that must not
 * leave temporary files behind, and the check that standard output was
 * really written.  Kept apart from cli.h's operand loop; printing and
 * exiting live here, in cmd/, never in lib/.
 */
#ifndef GF_CLI_ENV_H
#define GF_CLI_ENV_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
 * Catches the signals that end the process (interrupt, termination,
 * hang-up, a closed pipe, resource limits, and crashes) with
 * cli_on_signal.  A signal the caller ignores (nohup, a background job's
 * SIGINT) stays ignored.
 */
static inline void
cli_signals(void)
{
	static const int sigs[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE,
	    SIGALRM, SIGXCPU, SIGXFSZ, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
	const int n = (int)(sizeof(sigs) / sizeof(sigs[0]));
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cli_on_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < n; i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (int i = 0; i < n; i++)
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
}

/* The first act of every main: sane descriptors 0-2, signal cleanup. */
static inline void
cli_start(const char *prog)
{
	if (cli_std_fds() < 0) {
		fprintf(stderr, "%s: cannot open /dev/null for a closed standard "
		    "descriptor: %s\n", prog, strerror(errno));
		exit(1);
	}
	cli_signals();
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
