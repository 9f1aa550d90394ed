/*
 * cli_serve.h - whether a tool's run goes to the server (gpufiltd): the
 * setting GPUFILT_SERVER (auto, off, start, require) and --no-server,
 * the socket's path, starting a server on demand, and what -v says of
 * it.  A run the server serves is this process's run all the same (its
 * files, messages and exit status), with the server's lanes; see
 * lib/serve/remote.h.  Included by cli.c alone.
 */
#ifndef GF_CLI_SERVE_H
#define GF_CLI_SERVE_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "remote.h"
#include "sockpath.h"

enum { SERVE_OFF, SERVE_AUTO, SERVE_START, SERVE_REQUIRE };

/*
 * The options argv[0 .. nopts-1] of run ct as the server gets them
 * (cli.c): argv[0] the tool's name, each option as -c or --name and its
 * value, a value the server cannot read (a file) replaced by what it
 * holds (ct->serve_value).  The count, with *out NULL-terminated (free
 * it with cli_serve_argv_free); -1 with e when the run cannot be served.
 */
int cli_serve_argv(const struct cli_tool *ct, int nopts, char **argv,
    char ***out, struct gf_err *e);
void cli_serve_argv_free(char **v);

/* GPUFILT_SERVER's value: SERVE_*, or -1 when it is not one. */
static inline int
serve_mode(const char *v)
{
	if (v == NULL || *v == '\0' || strcmp(v, "auto") == 0)
		return SERVE_AUTO;
	if (strcmp(v, "0") == 0 || strcmp(v, "off") == 0)
		return SERVE_OFF;
	if (strcmp(v, "start") == 0)
		return SERVE_START;
	if (strcmp(v, "require") == 0)
		return SERVE_REQUIRE;
	return -1;
}

/*
 * Starts a server at path, detached, as `gpufiltd -S path`: the one
 * beside this tool's binary, else the PATH's.  Waits for it to be
 * ready (its first process exits then).  This process has made no CUDA
 * call: it may fork.  0, or -1 with e.
 */
static inline int
serve_start(const char *path, struct gf_err *e)
{
	char self[PATH_MAX], beside[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *prog = "gpufiltd";
	int status;
	pid_t pid;

	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash != NULL) {
			*slash = '\0';
			snprintf(beside, sizeof(beside), "%s/gpufiltd", self);
			if (access(beside, X_OK) == 0)
				prog = beside;
		}
	}
	fflush(NULL);
	if ((pid = fork()) < 0)
		return gf_fail(e, "cannot start gpufiltd: %s", strerror(errno));
	if (pid == 0) {
		execlp(prog, "gpufiltd", "-q", "-S", path, (char *)NULL);
		fprintf(stderr, "gpufiltd: cannot run %s: %s\n", prog, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return gf_fail(e, "waiting for gpufiltd: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return gf_fail(e, "gpufiltd did not start (%s %d)", WIFEXITED(status) ?
		    "exit status" : "signal", WIFEXITED(status) ?
		    WEXITSTATUS(status) : WTERMSIG(status));
	return 0;
}

/*
 * Whether run ct (its options: argv[0 .. nopts-1]) goes to the server,
 * and o->remote set when it does.  0: decided (served or in process;
 * with -v, a note of why a server did not take it in note->msg, else
 * ""); else the exit status, and e says why: GPUFILT_SERVER is not a
 * setting (2), or require and the run cannot be served (1).  Runs the
 * server cannot take run in process: --no-server, a kernel file whose
 * text inline is another kernel, the JPEG engines asked for
 * (GPUFILT_GPU_DECODE: theirs are the process's), a GPU the server has
 * not opened.  Of these, require fails only the kernel file: the others
 * are the user's choice, in process by design.
 */
static inline int
serve_decide(const struct cli_tool *ct, int nopts, char **argv,
    struct gf_err *note, struct gf_err *err)
{
	struct gf_opts *o = ct->common;
	const char *env = getenv("GPUFILT_SERVER");
	int mode = serve_mode(env), rc = 0;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct gf_err e = {0};
	const char *why = NULL;
	struct remote_hello h = {GF_VERSION, ct->name, 0, NULL, o->set.strip_rows};
	char **sargv = NULL;

	note->msg[0] = '\0';
	if (mode < 0)
		return gf_fail(err, "GPUFILT_SERVER=%s is not a setting: give auto, "
		    "off, start or require", env), 2;
	if (o->no_server || mode == SERVE_OFF)
		return 0;
	if (o->set.gpu_decode == 1 || o->set.gpu_decode == 2) {
		/* By design in process, whatever GPUFILT_SERVER says. */
		gf_fail(note, "not served (GPUFILT_GPU_DECODE asks for this "
		    "process's JPEG engines): running in this process");
		return 0;
	}
	if (sockpath_resolve(path, sizeof(path), getenv("GPUFILT_SOCKET"),
	    getenv("XDG_RUNTIME_DIR"), getenv("TMPDIR"), mode == SERVE_START,
	    &e) < 0)
		why = e.msg;
	/* No socket file, no server: the options are not sent for nothing. */
	if (why == NULL && mode == SERVE_AUTO && access(path, F_OK) != 0)
		return 0;
	if (why == NULL && (h.argc = cli_serve_argv(ct, nopts, argv, &sargv,
	    &e)) < 0)
		why = e.msg;
	h.argv = sargv;
	if (why == NULL && (rc = remote_open(&o->remote, path, &h, &e)) == 0 &&
	    mode == SERVE_START) {
		/*
		 * Tools that start one at once race: the losers' gpufiltd exits
		 * 1 (one answers already), so the answer is what counts.
		 */
		int started = serve_start(path, &e);
		rc = remote_open(&o->remote, path, &h, &e);
		if (rc == 0 && started < 0)
			rc = -1;
	}
	if (why == NULL && rc == 0)
		snprintf(e.msg, sizeof(e.msg), "no server answers at %s", path);
	if (why == NULL && rc != 1)
		why = e.msg;
	cli_serve_argv_free(sargv);
	if (why == NULL)
		return 0;
	if (mode == SERVE_REQUIRE && rc != -3)
		return gf_fail(err, "GPUFILT_SERVER=require: the run is not served: "
		    "%s", why), 1;
	if (rc != 0)
		gf_fail(note, "not served (%s): running in this process", why);
	return 0;
}

#endif
