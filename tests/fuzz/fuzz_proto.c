/*
 * fuzz_proto - libFuzzer target for the server's side of a connection
 * (lib/serve/server.c and proto.c): the input is what a client sends,
 * packet by packet, with the descriptors it passes.  Each packet goes
 * into one end of a socketpair, the server reads it from the other with
 * server_conn_step, as a connection's thread of gpufiltd does, and its
 * answers are read and dropped before the next packet (so neither end
 * ever waits).  The server opens no GPU and makes no CUDA call; the
 * images it is asked for are filtered on its CPU, in the windows the
 * "client" made.  The client's options go through the tools' own
 * parser (cli_tool_build), as gpufiltd's build_tool gives them, with
 * gpufiltd's setting that -k @FILE reads no file (kspec_no_files) but
 * not its environment's GPUFILT_* knobs (the defaults).
 *
 * The input is a run of records, each
 *
 *   ctl     1 byte: bits 0-2 the descriptors of the packet (FD_* below),
 *           bit 3 send the packet as it is (else its header's len is made
 *           its payload's, a hello's build this build's, and a window's
 *           size at most its memfd's, so that mutations get past the
 *           framing, the version and the size check), bit 4 the client
 *           goes away after this packet, bit 5 a new memfd's bytes are
 *           at most 7 (16-bit samples at most 1799: within a maxval such
 *           as 4095's, which the server checks)
 *   size    3 bytes, little-endian, for FD_MEMFD, FD_UNSEALED and FD_TWO:
 *           the new memfd's size (made MAX_WINDOW where it is more: a
 *           real client's windows are of 1 MiB or more)
 *   which   1 byte, for FD_AGAIN: an earlier memfd of this input (mod
 *           their count)
 *   n       2 bytes, little-endian, then n bytes: the packet (fewer where
 *           the input ends)
 *
 * At the end the client's end is closed and the server reads that.
 * After each input the target checks that the server let go of it all:
 * no descriptor more than before, and no mapping of a window left.
 * Seeds: build/fuzz/seeds/proto, recorded from real runs of the tools
 * through a CPU server by tests/fuzz/proto_record.c (tests/fuzz/README).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../sendfds.h"
#include "cli.h"
#include "conv2d.h"
#include "proto.h"
#include "server.h"

#ifndef GF_VERSION
#error "GF_VERSION is not defined: build with make"
#endif

#define MAX_WINDOW (1 << 16)    /* a window's bytes: the CPU's work per image */
#define MAX_MEMFDS 512
#define FLOOD 64                /* descriptors of one FD_FLOOD packet */
#define MEMFD_NAME "fuzz-proto-window"

enum {
	FD_NONE,
	FD_MEMFD,               /* a new memfd, sealed against shrinking */
	FD_AGAIN,               /* an earlier memfd of this input */
	FD_UNSEALED,            /* a new memfd, not sealed */
	FD_NULL,                /* /dev/null */
	FD_TWO,                 /* a new sealed memfd and /dev/null */
	FD_FLOOD,               /* FLOOD copies of /dev/null */
	FD_SELF                 /* the client's own end of the socket */
};

#define CTL_RAW 0x08
#define CTL_GONE 0x10
#define CTL_LOW 0x20

static struct server *srv;
static struct gf_settings settings;
static int show;                /* FUZZ_PROTO_SAY: answers on stderr */

/* As gpufiltd's build_tool: the tool of a client's options, by its name. */
static int
fuzz_build(int argc, char **argv, void **ctx, struct tool *t,
    const struct gf_opts **o, struct gf_err *e)
{
	static const struct cli_tool *const tools[] = {&sobel_cli, &conv2d_cli,
	    &edge_cli};

	return cli_tools_build(tools, sizeof(tools) / sizeof(tools[0]), argc, argv,
	    &settings, ctx, t, o, e);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct server_opts so = {0};
	struct gf_opts dflt;
	struct gf_err e = {0};

	(void)argc;
	(void)argv;
	show = getenv("FUZZ_PROTO_SAY") != NULL;
	kspec_no_files();       /* as gpufiltd: -k @FILE reads no file here */
	gf_opts_init(&dflt);
	settings = dflt.set;
	so.version = GF_VERSION;
	so.no_gpu = 1;
	so.build = fuzz_build;
	if (server_open(&srv, &so, &e) < 0) {
		fprintf(stderr, "fuzz_proto: %s\n", e.msg);
		abort();
	}
	return 0;
}

/* The descriptors open now. */
static int
fds_open(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (d == NULL)
		abort();
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

/* Whether a window's mapping is left in this process. */
static int
windows_mapped(void)
{
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (f == NULL)
		abort();
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = strstr(line, MEMFD_NAME) != NULL;
	fclose(f);
	return found;
}

/*
 * A new memfd of size bytes of a pattern (each byte at most 7 if low),
 * sealed against shrinking if seal.
 */
static int
memfd(size_t size, int seal, int low)
{
	int fd = memfd_create(MEMFD_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	unsigned char *p;

	if (fd < 0)
		abort();
	if (size > 0) {
		if (ftruncate(fd, (off_t)size) < 0)
			abort();
		p = mmap(NULL, size, PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			abort();
		for (size_t i = 0; i < size; i++)
			p[i] = (unsigned char)(i * 131 + (i >> 8) * 7) &
			    (low ? 7 : 255);
		munmap(p, size);
	}
	if (seal && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) < 0)
		abort();
	return fd;
}

/* The server's answer in buf (n bytes), on stderr. */
static void
say(const char *buf, ssize_t n)
{
	struct proto_hdr h;
	struct proto_done d;
	struct proto_text t;

	memcpy(&h, buf, n >= (ssize_t)sizeof(h) ? sizeof(h) : 0);
	if (n < (ssize_t)sizeof(h))
		fprintf(stderr, "fuzz_proto: server: %zd bytes\n", n);
	else if (h.type == PROTO_DONE && n == (ssize_t)(sizeof(h) + sizeof(d))) {
		memcpy(&d, buf + sizeof(h), sizeof(d));
		fprintf(stderr, "fuzz_proto: server: DONE ok %d %.*s\n", d.ok,
		    (int)sizeof(d.msg), d.msg);
	} else if (h.type != PROTO_READY && n == (ssize_t)(sizeof(h) + sizeof(t))) {
		memcpy(&t, buf + sizeof(h), sizeof(t));
		fprintf(stderr, "fuzz_proto: server: type %u: %.*s\n", h.type,
		    (int)sizeof(t.text), t.text);
	} else {
		fprintf(stderr, "fuzz_proto: server: type %u, %zd bytes\n", h.type, n);
	}
}

/*
 * Reads and drops whatever the server sent (and any descriptor with it);
 * shown on stderr when FUZZ_PROTO_SAY is set (to read a reproducer).
 */
static void
drain(int sock)
{
	static char buf[65536];
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * 4)];
	} c;

	for (;;) {
		struct iovec iov = {buf, sizeof(buf)};
		struct msghdr m = {0};

		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		m.msg_control = c.buf;
		m.msg_controllen = sizeof(c.buf);
		ssize_t n = recvmsg(sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

		if (n <= 0)
			return;
		if (show)
			say(buf, n);
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm != NULL;
		    cm = CMSG_NXTHDR(&m, cm))
			if (cm->cmsg_level == SOL_SOCKET &&
			    cm->cmsg_type == SCM_RIGHTS)
				abort();        /* the server passes none */
	}
}

/* The input's bytes, taken from the front. */
struct input {
	const uint8_t *p;
	size_t n;
};

static uint32_t
take(struct input *in, int bytes)
{
	uint32_t v = 0;

	for (int i = 0; i < bytes && in->n > 0; i++, in->p++, in->n--)
		v |= (uint32_t)in->p[0] << (8 * i);
	return v;
}

/*
 * The packet of in's next record into buf, fixed unless raw (fdsize: the
 * bytes of the memfd that comes with it): its length.
 */
static size_t
packet(struct input *in, char *buf, int raw, size_t fdsize)
{
	size_t n = take(in, 2);
	struct proto_hdr h;
	struct proto_build b;
	struct proto_window w;

	if (n > in->n)
		n = in->n;
	memcpy(buf, in->p, n);
	in->p += n;
	in->n -= n;
	if (raw || n < sizeof(h))
		return n;
	memcpy(&h, buf, sizeof(h));
	h.len = (uint32_t)(n - sizeof(h));
	memcpy(buf, &h, sizeof(h));
	if (h.type == PROTO_HELLO && n >= sizeof(h) + sizeof(b)) {
		proto_build_this(&b, GF_VERSION);
		memcpy(buf + sizeof(h), &b, sizeof(b));
	}
	if (h.type == PROTO_WINDOW && n == sizeof(h) + sizeof(w)) {
		memcpy(&w, buf + sizeof(h), sizeof(w));
		if (w.size > fdsize)
			w.size = fdsize;
		memcpy(buf + sizeof(h), &w, sizeof(w));
	}
	return n;
}

/* One input's connection, record by record; the descriptors made in memfds. */
static void
connection(struct input *in, int sv[2], int *memfds, size_t *sizes,
    int *nmemfd, int null)
{
	static char buf[65536 + 8];
	struct server_conn *c = server_conn_new(srv, sv[1]);
	int ended = 0;

	if (c == NULL)
		abort();
	while (!ended && sv[0] >= 0 && in->n > 0) {
		unsigned ctl = take(in, 1);
		int fds[FLOOD], nfd = 0, kind = ctl & 7, sent;
		size_t n, fdsize = SIZE_MAX;

		if (kind == FD_MEMFD || kind == FD_UNSEALED || kind == FD_TWO) {
			size_t size = take(in, 3);
			if (*nmemfd == MAX_MEMFDS)
				break;
			fdsize = size < MAX_WINDOW ? size : MAX_WINDOW;
			sizes[*nmemfd] = fdsize;
			fds[nfd++] = memfds[(*nmemfd)++] = memfd(fdsize,
			    kind != FD_UNSEALED, ctl & CTL_LOW);
			if (kind == FD_TWO)
				fds[nfd++] = null;
		} else if (kind == FD_AGAIN) {
			unsigned which = take(in, 1);
			if (*nmemfd > 0) {
				fdsize = sizes[which % (unsigned)*nmemfd];
				fds[nfd++] = memfds[which % (unsigned)*nmemfd];
			}
		} else if (kind == FD_NULL) {
			fds[nfd++] = null;
		} else if (kind == FD_FLOOD) {
			for (; nfd < FLOOD; nfd++)
				fds[nfd] = null;
		} else if (kind == FD_SELF) {
			fds[nfd++] = sv[0];
		}
		n = packet(in, buf, ctl & CTL_RAW, fdsize);
		sent = sendfds(sv[0], buf, n, fds, nfd, MSG_NOSIGNAL | MSG_DONTWAIT) ==
		    (ssize_t)n;
		if (ctl & CTL_GONE) {
			close(sv[0]);
			sv[0] = -1;
		}
		if (sent)
			ended = server_conn_step(c) < 0;
		if (sv[0] >= 0)
			drain(sv[0]);
	}
	if (sv[0] >= 0)
		close(sv[0]);   /* the client goes; what it sent stays queued */
	sv[0] = -1;
	while (!ended)
		ended = server_conn_step(c) < 0;
	server_conn_free(c);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = {data, size};
	int sv[2], memfds[MAX_MEMFDS], nmemfd = 0, null, before = fds_open();
	size_t sizes[MAX_MEMFDS];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ||
	    (null = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
		abort();
	connection(&in, sv, memfds, sizes, &nmemfd, null);
	close(sv[1]);
	close(null);
	for (int i = 0; i < nmemfd; i++)
		close(memfds[i]);
	if (fds_open() != before) {
		fprintf(stderr, "fuzz_proto: %d descriptors open before, %d after\n",
		    before, fds_open());
		abort();
	}
	if (windows_mapped()) {
		fprintf(stderr, "fuzz_proto: a window is still mapped\n");
		abort();
	}
	return 0;
}
