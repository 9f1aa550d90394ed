/*
 * server.h - the server (gpufiltd) as a library: the GPUs it keeps open,
 * and the lanes it serves to the tools over its socket (proto.h).  It
 * opens nothing a client names: a client sends its options and a window
 * of shared memory, and gets its images back there.  cmd/gpufiltd.c
 * gives it the socket, builds the tools, prints its log and handles
 * signals.
 */
#ifndef GF_SERVER_H
#define GF_SERVER_H

#include "gf.h"
#include "opts.h"
#include "tool.h"

struct server;

struct server_opts {
	const char *version;    /* GF_VERSION: clients of another build are refused */
	/* The GPUs to open, as --device: none (ndevices 0): all there are. */
	int devices[GF_MAX_DEVICES];
	int ndevices;
	int idle_ms;            /* end after this long with no client; 0: never */
	int pool_keep_ms;       /* the pool's free windows kept this long; 0: its default */
	int max_clients;        /* connections at once; more are closed at once */
	int fault_at;           /* tests: the K-th image on a GPU loses its context */
	int no_gpu;             /* tests, fuzzing: open no GPU, make no CUDA call */
	/*
	 * Tests: offer clients the JPEG engines (PROTO_JPEG) even without
	 * them, and decline every JPEG, so that the clients' way back to
	 * their own decode runs where there is no GPU.
	 */
	int jpeg_decline;
	/*
	 * Builds the tool of a client's options (argv[0] the tool's name):
	 * the tool in *t, its options in *ctx (freed with free) and *o.
	 */
	int (*build)(int argc, char **argv, void **ctx, struct tool *t,
	    const struct gf_opts **o, struct gf_err *e);
	/* A line for the log (no newline), or NULL. */
	void (*log)(void *arg, const char *line);
	void *log_arg;
};

/*
 * Opens the GPUs of o (a machine without one gives a server of the CPU:
 * runs ask for a GPU get its reason, as in process).  -1 with e.
 */
int server_open(struct server **s, const struct server_opts *o,
    struct gf_err *e);

/* What server_open found: the GPUs opened, and why none when there is none. */
int server_gpus(const struct server *s, const char **why);

/*
 * Serves clients on listen_fd until stop_fd is readable (the signal
 * handler's pipe), a client asks it to stop, or idle_ms pass with no
 * client; then ends every client's connection and waits for their
 * threads.  0, or -1 with e when the socket fails.
 */
int server_run(struct server *s, int listen_fd, int stop_fd, struct gf_err *e);

/* Releases the GPUs. */
void server_close(struct server *s);

/*
 * One connection of s, served by its caller one message at a time: what
 * the connection's thread of server_run does after its peer check, for
 * tests and the fuzzer (tests/fuzz/fuzz_proto.c) to drive without a
 * listening socket or a thread.  sock: the client's connection, which
 * stays the caller's to close.  NULL when out of memory.
 */
struct server_conn;
struct server_conn *server_conn_new(struct server *s, int sock);
/*
 * Reads one message of the client and answers it (a READY, a DONE after
 * the image is filtered, a TEXT ...): 0 go on, -1 the connection ends (the
 * client closed it, or sent what is not a message of its turn: nothing
 * of it is kept but what server_conn_free releases).  Blocks until a
 * message comes.
 */
int server_conn_step(struct server_conn *c);
/* Lets go of what c holds: its windows and its tool's options. */
void server_conn_free(struct server_conn *c);

#endif
