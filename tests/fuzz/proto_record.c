/*
 * proto_record - records fuzz_proto's seeds from real runs: a proxy
 * between the tools and gpufiltd that passes every packet on unchanged
 * (the descriptors with it) and writes what each client sends, in
 * fuzz_proto's input format, to a file per connection, DIR/NAME-K.  A
 * sealed memfd is written as a new window of its size (FD_MEMFD, of low
 * samples, which pass the server's check of any maxval) or as the one of
 * this connection that it is again (FD_AGAIN); any other descriptor as
 * /dev/null.  It serves until SIGTERM (tests/fuzz/
 * proto_seeds.sh starts and ends it).
 *
 * usage: proto_record LISTEN SERVER DIR NAME
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../sendfds.h"

#define MAX_CONNS 64
#define MAX_FDS 8
#define MAX_WINS 512

enum { FD_NONE, FD_MEMFD, FD_AGAIN, FD_UNSEALED, FD_NULL };
#define CTL_LOW 0x20            /* a new memfd's samples low, within any maxval */

struct pair {
	int client, server;
	FILE *out;
	dev_t dev[MAX_WINS];
	ino_t ino[MAX_WINS];
	int nwin;
};

static volatile sig_atomic_t done;

static void
on_term(int sig)
{
	(void)sig;
	done = 1;
}

static int
unix_socket(const char *path, int listening)
{
	struct sockaddr_un a = {0};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	a.sun_family = AF_UNIX;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (fd < 0)
		return -1;
	if (listening ? bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(fd, 64) < 0 : connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A packet of from into buf, its descriptors in fds: its length, -1 at the end. */
static ssize_t
take(int from, char *buf, size_t cap, int *fds, int *nfd)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * MAX_FDS)];
	} c;
	struct iovec iov = {buf, cap};
	struct msghdr m = {0};
	ssize_t n;

	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = c.buf;
	m.msg_controllen = sizeof(c.buf);
	*nfd = 0;
	n = recvmsg(from, &m, MSG_CMSG_CLOEXEC);
	if (n <= 0)
		return -1;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm != NULL;
	    cm = CMSG_NXTHDR(&m, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t i = 0; i < k && *nfd < MAX_FDS; i++)
				memcpy(&fds[(*nfd)++], CMSG_DATA(cm) + i * sizeof(int),
				    sizeof(int));
		}
	return n;
}

/* Sends buf (n bytes) and the nfd descriptors fds to to, and closes them. */
static int
give(int to, const char *buf, size_t n, const int *fds, int nfd)
{
	ssize_t r = sendfds(to, buf, n, fds, nfd, MSG_NOSIGNAL);

	for (int i = 0; i < nfd; i++)
		close(fds[i]);
	return r == (ssize_t)n ? 0 : -1;
}

/* The record of a client's packet (fuzz_proto.c's format). */
static void
record(struct pair *p, const char *buf, size_t n, const int *fds, int nfd)
{
	unsigned char head[8];
	size_t k = 0;
	struct stat st;
	int seals = nfd > 0 ? fcntl(fds[0], F_GET_SEALS) : -1;

	if (nfd == 0) {
		head[k++] = FD_NONE;
	} else if (seals < 0 || fstat(fds[0], &st) < 0) {
		head[k++] = FD_NULL;
	} else {
		int i;
		for (i = 0; i < p->nwin && (p->dev[i] != st.st_dev ||
		    p->ino[i] != st.st_ino); i++)
			;
		if (i < p->nwin) {
			head[k++] = FD_AGAIN;
			head[k++] = (unsigned char)i;
		} else {
			uint32_t size = st.st_size > 0xffffff ? 0xffffff :
			    (uint32_t)st.st_size;
			head[k++] = ((seals & F_SEAL_SHRINK) ? FD_MEMFD :
			    FD_UNSEALED) | CTL_LOW;
			head[k++] = (unsigned char)size;
			head[k++] = (unsigned char)(size >> 8);
			head[k++] = (unsigned char)(size >> 16);
			if (p->nwin < MAX_WINS) {
				p->dev[p->nwin] = st.st_dev;
				p->ino[p->nwin++] = st.st_ino;
			}
		}
	}
	if (n > 0xffff)
		n = 0xffff;
	head[k++] = (unsigned char)n;
	head[k++] = (unsigned char)(n >> 8);
	fwrite(head, 1, k, p->out);
	fwrite(buf, 1, n, p->out);
}

static void
pair_end(struct pair *p)
{
	close(p->client);
	close(p->server);
	fclose(p->out);
	p->client = -1;
}

int
main(int argc, char **argv)
{
	static struct pair pairs[MAX_CONNS];
	static char buf[1 << 17];
	struct sigaction sa = {0};
	int lfd, npair = 0, made = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: proto_record LISTEN SERVER DIR NAME\n");
		return 2;
	}
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	if ((lfd = unix_socket(argv[1], 1)) < 0) {
		fprintf(stderr, "proto_record: cannot listen at %s: %s\n", argv[1],
		    strerror(errno));
		return 1;
	}
	while (!done) {
		struct pollfd pf[1 + 2 * MAX_CONNS];
		int n = 0;

		pf[n++] = (struct pollfd){lfd, POLLIN, 0};
		for (int i = 0; i < npair; i++) {
			pf[n++] = (struct pollfd){pairs[i].client, POLLIN, 0};
			pf[n++] = (struct pollfd){pairs[i].server, POLLIN, 0};
		}
		if (poll(pf, (nfds_t)n, 200) < 0)
			continue;
		for (int i = 0; i < npair; i++) {
			struct pair *p = &pairs[i];
			short cr = pf[1 + 2 * i].revents, sr = pf[2 + 2 * i].revents;
			int fds[MAX_FDS], nfd;
			ssize_t len;

			if (cr) {
				len = take(p->client, buf, sizeof(buf), fds, &nfd);
				if (len < 0) {
					pair_end(p);
					continue;
				}
				record(p, buf, (size_t)len, fds, nfd);
				if (give(p->server, buf, (size_t)len, fds, nfd) < 0) {
					pair_end(p);
					continue;
				}
			}
			if (sr) {
				len = take(p->server, buf, sizeof(buf), fds, &nfd);
				if (len < 0 || give(p->client, buf, (size_t)len, fds,
				    nfd) < 0)
					pair_end(p);
			}
		}
		for (int i = 0; i < npair; i++)
			if (pairs[i].client < 0)
				pairs[i--] = pairs[--npair];
		if ((pf[0].revents & POLLIN) && npair < MAX_CONNS) {
			struct pair *p = &pairs[npair];
			char path[4096];
			p->client = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
			if (p->client < 0)
				continue;
			p->server = unix_socket(argv[2], 0);
			snprintf(path, sizeof(path), "%s/%s-%d", argv[3], argv[4], made++);
			p->out = fopen(path, "wb");
			p->nwin = 0;
			if (p->server < 0 || p->out == NULL) {
				fprintf(stderr, "proto_record: cannot reach %s or "
				    "write %s\n", argv[2], path);
				return 1;
			}
			npair++;
		}
	}
	for (int i = 0; i < npair; i++)
		pair_end(&pairs[i]);
	unlink(argv[1]);
	return 0;
}
