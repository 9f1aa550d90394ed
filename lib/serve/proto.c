/*
 * proto.c - sending and receiving the messages of proto.h, with the
 * checks every message gets before its payload is read.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto.h"

void
proto_build_this(struct proto_build *b, const char *version)
{
	memset(b, 0, sizeof(*b));
	snprintf(b->version, sizeof(b->version), "%s", version);
	b->proto = PROTO_VERSION;
	b->times_size = sizeof(struct gf_times);
	b->err_size = sizeof(struct gf_err);
}

int
proto_build_same(const struct proto_build *b, const char *version)
{
	struct proto_build me;

	proto_build_this(&me, version);
	return memcmp(b->version, me.version, sizeof(me.version)) == 0 &&
	    b->proto == me.proto && b->times_size == me.times_size &&
	    b->err_size == me.err_size;
}

static int
send_flags(int sock, uint32_t type, const void *p, size_t n, int fd,
    int flags, struct gf_err *e)
{
	struct proto_hdr h = {type, (uint32_t)n};
	struct iovec iov[2] = {{&h, sizeof(h)}, {(void *)p, n}};
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	struct msghdr m = {0};
	ssize_t r;

	m.msg_iov = iov;
	m.msg_iovlen = n > 0 ? 2 : 1;
	if (fd >= 0) {
		struct cmsghdr *cm;
		memset(&c, 0, sizeof(c));
		m.msg_control = c.buf;
		m.msg_controllen = sizeof(c.buf);
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	do
		r = sendmsg(sock, &m, MSG_NOSIGNAL | flags);
	while (r < 0 && errno == EINTR);
	if (r < 0 && (flags & MSG_DONTWAIT) &&
	    (errno == EAGAIN || errno == EWOULDBLOCK))
		return 1;
	if (r < 0)
		return gf_fail(e, "cannot send to the server's socket: %s",
		    strerror(errno));
	if ((size_t)r != sizeof(h) + n)
		return gf_fail(e, "a message of %zu bytes went out as %zd",
		    sizeof(h) + n, r);
	return 0;
}

int
proto_send(int sock, uint32_t type, const void *p, size_t n, int fd,
    struct gf_err *e)
{
	return send_flags(sock, type, p, n, fd, 0, e);
}

int
proto_send_nowait(int sock, uint32_t type, const void *p, size_t n,
    struct gf_err *e)
{
	return send_flags(sock, type, p, n, -1, MSG_DONTWAIT, e);
}

/* Closes every descriptor that came in the control data of m. */
static int
proto_take_fds(struct msghdr *m, int *fd)
{
	int n = 0;

	*fd = -1;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(m); cm != NULL;
	    cm = CMSG_NXTHDR(m, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int got;
			memcpy(&got, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (n++ == 0)
				*fd = got;
			else
				close(got);
		}
	}
	return n;
}

int
proto_recv(int sock, void *buf, size_t cap, uint32_t *type, size_t *len,
    int *fd, struct gf_err *e)
{
	struct iovec iov = {buf, cap};
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(2 * sizeof(int))];
	} c;
	struct msghdr m = {0};
	struct proto_hdr h;
	ssize_t r;
	int nfd;

	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = c.buf;
	m.msg_controllen = sizeof(c.buf);
	*fd = -1;
	do
		r = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return gf_fail(e, "cannot read the socket: %s", strerror(errno));
	nfd = proto_take_fds(&m, fd);
	if (r == 0 && nfd == 0)
		return 0;
	if (nfd > 1 || (m.msg_flags & MSG_CTRUNC)) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return gf_fail(e, "a message came with %d descriptors or more; "
		    "at most one is expected", nfd + 1);
	}
	if ((m.msg_flags & MSG_TRUNC) || (size_t)r < sizeof(h))
		goto bad;
	memcpy(&h, buf, sizeof(h));
	if (h.len != (size_t)r - sizeof(h) || h.type == 0 ||
	    h.type >= PROTO_NTYPES)
		goto bad;
	*type = h.type;
	*len = h.len;
	return 1;
bad:
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	return gf_fail(e, "a message of %zd bytes is not one (the most is %zu)",
	    r, cap);
}

int
proto_strings(char *p, size_t len, uint32_t n, char **argv, struct gf_err *e)
{
	size_t at = 0;

	if (n == 0 || n > PROTO_MAX_ARGS || len > PROTO_MAX_ARGBYTES)
		return gf_fail(e, "%u arguments in %zu bytes: 1 to %d in at most %d",
		    n, len, PROTO_MAX_ARGS, PROTO_MAX_ARGBYTES);
	for (uint32_t i = 0; i < n; i++) {
		char *end = at < len ? memchr(p + at, '\0', len - at) : NULL;
		if (end == NULL)
			return gf_fail(e, "argument %u does not end", i);
		argv[i] = p + at;
		at = (size_t)(end - p) + 1;
	}
	if (at != len)
		return gf_fail(e, "%zu bytes after the %u arguments", len - at, n);
	argv[n] = NULL;
	return 0;
}
