/*
 * sendfds.h - one packet with descriptors over a Unix socket, for the
 * test programs that play a client or a proxy (server_hostile.c,
 * fuzz/fuzz_proto.c, fuzz/proto_record.c).  Unlike lib/serve/proto.c's
 * proto_send, any bytes and any number of descriptors, up to
 * SENDFDS_MAX: they send what a real client never would.
 */
#ifndef GF_SENDFDS_H
#define GF_SENDFDS_H

#include <string.h>
#include <sys/socket.h>

#define SENDFDS_MAX 256

/* Sends the n bytes at p and the nfd descriptors fds to sock (sendmsg flags). */
static inline ssize_t
sendfds(int sock, const void *p, size_t n, const int *fds, int nfd, int flags)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * SENDFDS_MAX)];
	} c;
	struct iovec iov = {(void *)p, n};
	struct msghdr m = {0};

	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	if (nfd > 0 && nfd <= SENDFDS_MAX) {
		struct cmsghdr *cm;

		memset(&c, 0, sizeof(c));
		m.msg_control = c.buf;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfd);
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfd);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)nfd);
	}
	return sendmsg(sock, &m, flags);
}

#endif
