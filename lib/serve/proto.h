/*
 * proto.h - the messages between a tool and the server (gpufiltd), over
 * an AF_UNIX SOCK_SEQPACKET socket: one message per packet, a header and
 * a fixed payload of its type, checked for size before it is read.  A
 * message that is not what its type says ends that connection, never the
 * server.  Both ends are one build (the hello carries its version and
 * the sizes of the structures; another build is refused, and the tool
 * runs in process).
 *
 * A connection serves one lane of one run:
 *
 *   tool                                   server
 *   PROTO_HELLO  tool, options (argv)  ->
 *                                      <-  PROTO_READY  its GPUs for the run
 *                                      <-  PROTO_REFUSED  why not
 *                                      <-  PROTO_ELSEWHERE  what it asks this
 *                                          server has not (a GPU): in process
 *   PROTO_WINDOW + a memfd, an index   ->  (sealed against shrinking; mapped
 *                                          at that index, replacing what was)
 *   PROTO_IMAGE  its windows, offsets  ->
 *                                      <-  PROTO_ROWS  rows of the output
 *                                          done so far (a tall image's strips;
 *                                          any may be left out)
 *                                      <-  PROTO_DONE  times, or the error
 *   ... more images; closing the socket ends the lane.
 *
 * The pixels cross in the windows, never in messages; the files stay
 * with the tool, which reads and writes them itself.  A window is the
 * tool's own memory: the buffer its reader decodes into and the one its
 * writer encodes from, so that nothing is copied on the tool's side.  A
 * connection holds at most PROTO_WINDOWS of them.  A connection may
 * instead ask PROTO_STATUS (answered by PROTO_TEXT) or PROTO_STOP.
 *
 * The tool may borrow its buffers from the server's pool instead of
 * making them (window.h says why), on a connection that said hello:
 *
 *   PROTO_LEND  a size                 ->
 *                                      <-  PROTO_LENT + a memfd of at least
 *                                          that size, zeroed; or none now
 *                                          (size 0, no memfd)
 *   PROTO_GIVE + a lent memfd          ->  (no answer: it goes back to the
 *                                          pool once no lane holds it)
 *
 * A lent memfd is then a window like any other: its lanes send it as
 * PROTO_WINDOW, and only connections of the process it was lent to may.
 * What a connection borrowed goes back when it closes.
 */
#ifndef GF_PROTO_H
#define GF_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "gf.h"
#include "tool.h"

#define PROTO_VERSION 4
#define PROTO_MAX_ARGS 256
#define PROTO_MAX_ARGBYTES 32768
#define PROTO_MAX_GPUS 32
/*
 * Windows a connection holds at once: a batch's lane meets the input and
 * output buffers of every slot of the run (readers times slots).
 */
#define PROTO_WINDOWS 256
/* A window of at most this many bytes (what two 2^31-pixel RGBA16 images need). */
#define PROTO_MAX_WINDOW ((uint64_t)1 << 36)

enum proto_type {
	PROTO_HELLO = 1,
	PROTO_READY,
	PROTO_REFUSED,
	PROTO_WINDOW,
	PROTO_IMAGE,
	PROTO_DONE,
	PROTO_STATUS,
	PROTO_STOP,
	PROTO_TEXT,
	PROTO_ELSEWHERE,
	PROTO_ROWS,
	PROTO_LEND,
	PROTO_LENT,
	PROTO_GIVE,
	PROTO_NTYPES
};

struct proto_hdr {
	uint32_t type;
	uint32_t len;           /* bytes of payload after the header */
};

/* The build's identity: the version and the sizes both ends must share. */
struct proto_build {
	char version[32];
	uint32_t proto;
	uint32_t times_size, err_size;
};

/* PROTO_HELLO: followed by argc strings, each ending in NUL. */
struct proto_hello {
	struct proto_build build;
	char tool[16];          /* sobel, conv2d, edge */
	uint32_t argc;
	int32_t strip_rows;     /* GPUFILT_STRIP_ROWS; 0: by size */
	uint32_t lane;          /* a lane of a run that said hello already */
	uint32_t pad;
};

/* PROTO_READY: the GPUs the run may use (none: the server's CPU, why). */
struct proto_ready {
	uint32_t ngpus;
	int32_t number[PROTO_MAX_GPUS];
	char name[PROTO_MAX_GPUS][128];
	char why[512];
	int32_t pid;
	uint32_t jpeg;          /* it decodes JPEGs on its GPUs (PROTO_JPEG) */
};

/* PROTO_WINDOW: with one descriptor, a memfd of size bytes, as window index. */
struct proto_window {
	uint64_t size;
	uint32_t index;         /* < PROTO_WINDOWS */
	uint32_t pad;
};

/* PROTO_LEND: a window of at least size bytes; PROTO_LENT: its size (0: none). */
struct proto_lend {
	uint64_t size;
};

/*
 * PROTO_IMAGE: filter the image at in_off of window in_win into out_off
 * of window out_win, on GPU gpu of READY's (-1: the CPU).  Of kind
 * PROTO_JPEG (to a server whose READY said jpeg, for a gray tool), the
 * input is a baseline JPEG's in_len bytes, of width x height stored
 * (1 channel, maxval 255), decoded to its luma on the GPU's engines and
 * turned by its EXIF orientation (1-8; the output is turned: swapped
 * for 5 to 8).  The server walks its scan on the GPU first
 * (kernels/jpeg_walk.cu, img_jpeg_check.c's verdict: the engines give
 * libjpeg-turbo's bytes) and declines (PROTO_DONE's declined) what is
 * not clean, or what the engines do not take; the client then decodes
 * it and sends its pixels.
 */
enum { PROTO_PIXELS, PROTO_JPEG };
struct proto_image {
	int32_t gpu;
	int32_t width, height, channels;
	uint32_t maxval;
	uint64_t in_off, out_off;
	uint32_t in_win, out_win;
	uint32_t kind;          /* PROTO_PIXELS, PROTO_JPEG */
	int32_t orientation;    /* PROTO_JPEG's */
	uint64_t in_len;        /* PROTO_JPEG's bytes */
};

/* PROTO_ROWS: the output's first rows rows are in its window. */
struct proto_rows {
	int32_t rows;
};

/* PROTO_DONE */
struct proto_done {
	int32_t ok;
	int32_t broken;         /* the GPU broke: the run must stop */
	int32_t declined;       /* a JPEG not decoded there: send its pixels */
	int32_t pad;
	struct gf_times t;
	char msg[sizeof(((struct gf_err *)0)->msg)];
};

/* PROTO_TEXT, PROTO_REFUSED and PROTO_ELSEWHERE: a line of text. */
struct proto_text {
	char text[1024];
};

/* This build's identity (version: the tools' GF_VERSION), for a hello. */
void proto_build_this(struct proto_build *b, const char *version);
/* Whether b is this build's. */
int proto_build_same(const struct proto_build *b, const char *version);

/*
 * Sends a message of type with payload p (n bytes) and, if fd >= 0, the
 * descriptor fd.  0, or -1 with e set (the peer is gone, or the socket
 * failed).  Never raises SIGPIPE.
 */
int proto_send(int sock, uint32_t type, const void *p, size_t n, int fd,
    struct gf_err *e);
/*
 * The same without waiting: 1 when the socket has no room for it now
 * (nothing was sent).  For messages that may be left out (PROTO_ROWS),
 * so that a client that does not read cannot hold the sender.
 */
int proto_send_nowait(int sock, uint32_t type, const void *p, size_t n,
    struct gf_err *e);

/*
 * Receives one message into buf (cap bytes, header first): its type in
 * *type and payload length in *len; a descriptor that came with it in
 * *fd (else -1; more than one, or one cut off, is an error and they are
 * closed).  1 a message, 0 the peer closed, -1 with e: an error or a
 * message that is not one (too long, shorter than its header, a length
 * that does not match, an unknown type).
 */
int proto_recv(int sock, void *buf, size_t cap, uint32_t *type, size_t *len,
    int *fd, struct gf_err *e);

/*
 * The n NUL-terminated strings of p (len bytes) into argv (at most
 * PROTO_MAX_ARGS, pointing into p): -1 with e if there are not exactly
 * n, or they do not fill p exactly.
 */
int proto_strings(char *p, size_t len, uint32_t n, char **argv,
    struct gf_err *e);

#endif
