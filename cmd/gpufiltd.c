/*
 * gpufiltd - the server that keeps the GPUs warm for sobel, conv2d and
 * edge (man/gpufiltd.1).  Its options, the socket (made here, or handed
 * over by systemd), detaching, signals and the log are this file's; the
 * serving is lib/serve/server.c's.
 *
 * The order matters: the socket is made and the process detaches (fork)
 * before any CUDA call, since a process that touched CUDA must never
 * fork; the parent waits until the child has its GPUs open and says so,
 * so that a client started right after `gpufiltd` finds it ready.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_env.h"
#include "conv2d.h"
#include "opts.h"
#include "proto.h"
#include "server.h"
#include "sockpath.h"

#ifndef GF_VERSION
#error "GF_VERSION is not defined: build with make (VERSION in the Makefile)"
#endif

#define IDLE_MIN 10             /* minutes with no client before it ends */

static const char usage_text[] =
    "usage: gpufiltd [-fqv] [-d list] [-i minutes] [-S socket]\n"
    "       gpufiltd -k [-S socket]\n"
    "       gpufiltd -s [-S socket]\n";

struct daemon_opts {
	int foreground, verbose, quiet, stop, status;
	struct gf_opts dev;     /* -d, parsed as --device */
	long idle_min;
	const char *socket;
};

static int stop_pipe[2] = {-1, -1};
static int log_on;
/* The server's GPUFILT_* settings (cli_env_knobs), set before it serves. */
static struct gf_settings settings;

/* The log: "gpufiltd: <time> <line>" on stderr with -v (the foreground's). */
static void
log_line(void *arg, const char *line)
{
	char safe[4096], when[32];
	time_t now = time(NULL);

	(void)arg;
	if (!log_on)
		return;
	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	fprintf(stderr, "gpufiltd: %s %s\n", when, gf_escape(safe, sizeof(safe),
	    line));
}

static void __attribute__((format(printf, 1, 2)))
say(const char *fmt, ...)
{
	char raw[2048], safe[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	fprintf(stderr, "gpufiltd: %s\n", gf_escape(safe, sizeof(safe), raw));
}

static int
usage(const char *fmt, const char *arg)
{
	if (fmt != NULL) {
		char msg[512];
		snprintf(msg, sizeof(msg), fmt, arg);
		say("%s", msg);
	}
	fputs(usage_text, stderr);
	return 2;
}

/* The tool of a client's options, by its name (argv[0]). */
static int
build_tool(int argc, char **argv, void **ctx, struct tool *t,
    const struct gf_opts **o, struct gf_err *e)
{
	static const struct cli_tool *const tools[] = {&sobel_cli, &conv2d_cli,
	    &edge_cli};

	return cli_tools_build(tools, sizeof(tools) / sizeof(tools[0]), argc, argv,
	    &settings, ctx, t, o, e);
}

static void
on_signal(int sig)
{
	int saved = errno;

	(void)sig;
	if (stop_pipe[1] >= 0 && write(stop_pipe[1], "x", 1) < 0) {
		/* the pipe is full: a stop is pending already */
	}
	errno = saved;
}

static int
parse(int argc, char **argv, struct daemon_opts *d)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0}
	};
	struct gf_err e = {0};
	long v;
	int c;

	memset(d, 0, sizeof(*d));
	d->idle_min = IDLE_MIN;
	while ((c = getopt_long(argc, argv, ":fqvksd:i:S:hV", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'f': d->foreground = 1; break;
		case 'q': d->quiet = 1; break;
		case 'v': d->verbose = 1; break;
		case 'k': d->stop = 1; break;
		case 's': d->status = 1; break;
		case 'S': d->socket = optarg; break;
		case 'd':
			if (gf_parse_devices(optarg, &d->dev, &e) < 0)
				return usage("%s", e.msg);
			break;
		case 'i':
			if (gf_parse_int(optarg, "idle minutes -i", 0, 100000, &v,
			    &e) < 0)
				return usage("%s", e.msg);
			d->idle_min = v;
			break;
		case 'h':
			printf("%s\n"
			    "  -f          stay in the foreground (the log on stderr with -v)\n"
			    "  -d list     the GPUs to keep open: N, a list (0,2) or all "
			    "(default)\n"
			    "  -i minutes  end after this long with no client (default %d; "
			    "0: never)\n"
			    "  -S socket   the socket's path (default: $GPUFILT_SOCKET, else\n"
			    "              $XDG_RUNTIME_DIR/gpufilt/server, else\n"
			    "              /tmp/gpufilt-UID/server)\n"
			    "  -v          log each client;  -q  no messages but errors\n"
			    "  -k          stop the server that answers there\n"
			    "  -s          its status: pid, GPUs, clients, runs served\n"
			    "  -h, --help  this help;  -V, --version  the version\n",
			    usage_text, IDLE_MIN);
			return -1;
		case 'V':
			printf("gpufiltd (gpufilt) %s\n", GF_VERSION);
			return -1;
		case ':':
			return usage("option -%c needs a value", (char[]){(char)optopt, 0});
		default:
			return usage("option -%s is unknown", optopt ?
			    (char[]){(char)optopt, 0} : argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage("'%s': gpufiltd takes no operands", argv[optind]);
	if (d->stop + d->status > 1)
		return usage("%s", "-k and -s: give one");
	return 0;
}

/*
 * -k and -s: a message to the server at path, and its answer.  -k then
 * waits (10 s at most) until the server no longer answers.
 */
static int
control(const char *path, int stop)
{
	union {
		struct proto_hdr h;
		char buf[sizeof(struct proto_hdr) + sizeof(struct proto_text)];
	} m;
	struct gf_err e = {0};
	struct timeval tv = {10, 0};
	struct proto_text t;
	uint32_t type;
	size_t len;
	int fd, got, rc = sockpath_connect(path, &fd, &e);

	if (rc != 0) {
		if (rc > 0)
			say("no server answers at %s", path);
		else
			say("%s", e.msg);
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (proto_send(fd, stop ? PROTO_STOP : PROTO_STATUS, NULL, 0, -1, &e) < 0 ||
	    proto_recv(fd, &m, sizeof(m), &type, &len, &got, &e) <= 0 ||
	    type != PROTO_TEXT || len != sizeof(t)) {
		say("the server at %s did not answer: %s", path, e.msg[0] ? e.msg :
		    "it closed the connection");
		close(fd);
		return 1;
	}
	close(fd);
	memcpy(&t, m.buf + sizeof(m.h), sizeof(t));
	t.text[sizeof(t.text) - 1] = '\0';
	if (!stop) {
		printf("gpufiltd at %s: %s\n", path, t.text);
		return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
	}
	for (int i = 0; i < 1000; i++) {
		if (sockpath_connect(path, &fd, &e) != 0)
			return 0;
		close(fd);
		usleep(10000);
	}
	say("the server at %s still answers after 10 s", path);
	return 1;
}

/*
 * Detaches: the parent waits for the child's word on a pipe (an empty
 * line: ready; else the error to print) and exits with it; the child
 * leaves the session and its terminal, and gets the pipe's write end.
 * Returns the write end in the child; never returns in the parent.
 */
static int
detach(int keep)
{
	int p[2], null;
	pid_t pid;

	if (pipe(p) < 0 || (pid = fork()) < 0) {
		say("cannot detach: %s", strerror(errno));
		exit(1);
	}
	if (pid > 0) {
		char msg[1024];
		ssize_t n;
		close(p[1]);
		while ((n = read(p[0], msg, sizeof(msg) - 1)) < 0 && errno == EINTR)
			;
		if (n == 1 && msg[0] == '\n')
			_exit(0);
		msg[n > 0 ? n : 0] = '\0';
		if (n <= 0)
			say("the server ended before it was ready");
		else
			fputs(msg, stderr);
		_exit(1);
	}
	close(p[0]);
	setsid();
	if (chdir("/") < 0) {
		/* / is always there */
	}
	/* Nothing of the starting process stays open: not a pipe's end. */
	for (int fd = 3; fd < 1024; fd++)
		if (fd != keep && fd != p[1])
			close(fd);
	if ((null = open("/dev/null", O_RDWR)) >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		if (!log_on)
			dup2(null, 2);
		if (null > 2)
			close(null);
	}
	return p[1];
}

/* Tells the waiting parent (ready fd) the error msg, or that all is well. */
static void
tell(int ready, const char *msg)
{
	char line[1100];
	size_t n;

	if (ready < 0)
		return;
	n = msg != NULL ? (size_t)snprintf(line, sizeof(line), "gpufiltd: %s\n",
	    msg) : (size_t)snprintf(line, sizeof(line), "\n");
	if (write(ready, line, n < sizeof(line) ? n : sizeof(line) - 1) < 0) {
		/* the parent is gone: nobody to tell */
	}
	close(ready);
}

static int
serve(const struct daemon_opts *d, const char *path)
{
	struct server_opts so = {0};
	struct gf_opts dflt;
	struct server *srv;
	struct gf_err e = {0};
	struct sigaction sa;
	const char *why, *env;
	int fd, systemd, ready = -1, rc;

	if ((systemd = sockpath_systemd(&fd, &e)) < 0) {
		say("%s", e.msg);
		return 1;
	}
	if (!systemd && sockpath_listen(path, &fd, &e) < 0) {
		say("%s", e.msg);
		return 1;
	}
	if (!systemd && !d->foreground)
		ready = detach(fd);
	if (pipe(stop_pipe) < 0) {
		tell(ready, "cannot make a pipe");
		return 1;
	}
	fcntl(stop_pipe[1], F_SETFL, O_NONBLOCK);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	kspec_no_files();
	gf_opts_init(&dflt);
	settings = dflt.set;
	cli_env_knobs(&settings);
	so.version = GF_VERSION;
	memcpy(so.devices, d->dev.devices, sizeof(so.devices));
	so.ndevices = d->dev.ndevices;
	so.idle_ms = (int)(d->idle_min * 60000);
	so.build = build_tool;
	so.log = log_line;
	if ((env = getenv("GPUFILTD_FAULT")) != NULL)
		so.fault_at = atoi(env);
	if ((env = getenv("GPUFILTD_IDLE_MS")) != NULL)       /* the tests' */
		so.idle_ms = atoi(env);
	if ((env = getenv("GPUFILTD_POOL_KEEP_MS")) != NULL)  /* the tests' */
		so.pool_keep_ms = atoi(env);
	/* The tests': JPEGs offered to clients, each declined (none decoded). */
	so.jpeg_decline = (env = getenv("GPUFILTD_JPEG_DECLINE")) != NULL &&
	    strcmp(env, "1") == 0;
	if (server_open(&srv, &so, &e) < 0) {
		tell(ready, e.msg);
		if (ready < 0)
			say("%s", e.msg);
		if (!systemd)
			sockpath_unlisten(path, fd);
		return 1;
	}
	if (server_gpus(srv, &why) == 0)
		log_line(NULL, why);
	if (!d->quiet && d->foreground)
		say("serving at %s, pid %d", systemd ? "systemd's socket" : path,
		    (int)getpid());
	tell(ready, NULL);
	rc = server_run(srv, fd, stop_pipe[0], &e);
	if (rc < 0)
		say("%s", e.msg);
	if (systemd)
		close(fd);
	else
		sockpath_unlisten(path, fd);
	server_close(srv);
	return rc < 0 ? 1 : 0;
}

int
main(int argc, char **argv)
{
	struct daemon_opts d;
	struct gf_err e = {0};
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int r;

	if ((r = parse(argc, argv, &d)) != 0)
		return r < 0 ? (fflush(stdout) == 0 ? 0 : 1) : r;
	log_on = d.verbose;
	if (sockpath_resolve(path, sizeof(path), d.socket != NULL ? d.socket :
	    getenv("GPUFILT_SOCKET"), getenv("XDG_RUNTIME_DIR"), getenv("TMPDIR"),
	    !d.stop && !d.status, &e) < 0) {
		say("%s", e.msg);
		return 1;
	}
	if (d.stop || d.status)
		return control(path, d.stop);
	return serve(&d, path);
}
