/*
 * server_hostile - a client of gpufiltd that lies (tests/t_server.sh):
 * garbage, short and long packets, lengths that do not match, unknown
 * types, hellos whose strings do not add up, options that are not a
 * run's, windows that are not sealed or not as large as they say, images
 * outside their window, at an odd offset of 16-bit samples or with
 * samples above their maxval, a flood of descriptors, and connections that end
 * at every step; and its pool: lends asked before the hello or of no
 * size, buffers given back that were never lent, a lent buffer named by
 * another process (which must be refused), and one written on, given
 * back and lent again (which must come back zeroed).  After each, the
 * server must have ended that connection (or refused the run) and still
 * answer a status; at the end it must hold no more descriptors than at
 * the start, but for its pool's; and JPEGs (PROTO_JPEG) whose bytes lie
 * outside their window, of no orientation, of colour, of an unknown
 * kind or for a colour tool.  Prints "ok NAME" or "bad NAME WHY" lines
 * for the harness's tally.
 *
 * usage: server_hostile SOCKET VERSION
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proto.h"
#include "sendfds.h"

static const char *sock_path, *version;
static int server_pid, pool_buffers;

static int
dial(void)
{
	struct sockaddr_un a = {0};
	struct timeval tv = {10, 0};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	a.sun_family = AF_UNIX;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock_path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("server_hostile: connect");
		exit(2);
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* Sends raw bytes as one packet, with nfd copies of descriptor fd. */
static void
raw(int s, const void *p, size_t n, int fd, int nfd)
{
	int fds[SENDFDS_MAX];

	for (int i = 0; i < nfd && i < SENDFDS_MAX; i++)
		fds[i] = fd;
	sendfds(s, p, n, fds, nfd, MSG_NOSIGNAL);
}

/* A message: header and payload. */
static void
msg(int s, uint32_t type, const void *p, size_t n, int fd)
{
	char buf[65536];
	struct proto_hdr h = {type, (uint32_t)n};

	memcpy(buf, &h, sizeof(h));
	if (n > 0)
		memcpy(buf + sizeof(h), p, n);
	raw(s, buf, sizeof(h) + n, fd, fd >= 0);
}

/* A hello of argc strings packed as given (args: NUL-separated, len bytes). */
static void
hello(int s, uint32_t argc, const char *args, size_t len, const char *ver)
{
	char buf[40000];
	struct proto_hello h;

	memset(&h, 0, sizeof(h));
	proto_build_this(&h.build, ver);
	snprintf(h.tool, sizeof(h.tool), "sobel");
	h.argc = argc;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), args, len);
	msg(s, PROTO_HELLO, buf, sizeof(h) + len, -1);
}

/*
 * What the server did with s: 0 it closed it, else the type of its
 * answer (PROTO_REFUSED, PROTO_READY ...); -1 it said nothing in 10 s.
 */
static int
answer(int s)
{
	char buf[8192];
	ssize_t n = recv(s, buf, sizeof(buf), 0);
	struct proto_hdr h;

	if (n == 0 || (n < 0 && errno == ECONNRESET))
		return 0;
	if (n < (ssize_t)sizeof(h))
		return -1;
	memcpy(&h, buf, sizeof(h));
	return (int)h.type;
}

/* Whether the server still answers a status; reads its pid the first time. */
static int
alive(void)
{
	int s = dial();
	char buf[2048];
	ssize_t n;

	msg(s, PROTO_STATUS, NULL, 0, -1);
	n = recv(s, buf, sizeof(buf) - 1, 0);
	close(s);
	if (n < (ssize_t)sizeof(struct proto_hdr))
		return 0;
	buf[n] = '\0';
	if (server_pid == 0)
		sscanf(buf + sizeof(struct proto_hdr), "pid %d", &server_pid);
	{
		/* "...; N buffers of M MB in the pool, ..." */
		char *b = strstr(buf + sizeof(struct proto_hdr), " buffers of ");
		while (b != NULL && b > buf + sizeof(struct proto_hdr) &&
		    b[-1] >= '0' && b[-1] <= '9')
			b--;
		if (b != NULL)
			pool_buffers = atoi(b);
	}
	return 1;
}

static int
fds_of_server(void)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", server_pid);
	if ((dir = opendir(path)) == NULL)
		return -1;
	while ((d = readdir(dir)) != NULL)
		n += d->d_name[0] != '.';
	closedir(dir);
	return n;
}

static void
verdict(const char *name, int got, int want)
{
	if (got != want)
		printf("bad hostile/%s: the server answered %d, not %d\n", name, got,
		    want);
	else if (!alive())
		printf("bad hostile/%s: the server no longer answers\n", name);
	else
		printf("ok hostile/%s\n", name);
}

/* A connection past a good hello (sobel -t 60 --cpu), or -1. */
static int
ready(void)
{
	static const char args[] = "sobel\0-t\00060\0--cpu";
	int s = dial();

	hello(s, 4, args, sizeof(args), version);
	if (answer(s) != PROTO_READY) {
		close(s);
		return -1;
	}
	return s;
}

/* A memfd of size bytes, sealed against shrinking when sealed. */
static int
window(size_t size, int sealed)
{
	int fd = memfd_create("hostile", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
		exit(2);
	if (sealed)
		fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK);
	return fd;
}

/*
 * A buffer of the pool, of at least size bytes, lent on s: its memfd, or
 * -1 when none came in 5 s (the pool makes one after the first ask).
 */
static int
lend(int s, size_t size)
{
	for (int tries = 0; tries < 100; tries++) {
		struct proto_lend l = {size};
		char buf[256], cb[CMSG_SPACE(sizeof(int))];
		struct iovec io = {buf, sizeof(buf)};
		struct msghdr m = {0};
		struct cmsghdr *c;
		int fd = -1;

		msg(s, PROTO_LEND, &l, sizeof(l), -1);
		m.msg_iov = &io;
		m.msg_iovlen = 1;
		m.msg_control = cb;
		m.msg_controllen = sizeof(cb);
		if (recvmsg(s, &m, MSG_CMSG_CLOEXEC) <
		    (ssize_t)(sizeof(struct proto_hdr) + sizeof(l)))
			return -1;
		if ((c = CMSG_FIRSTHDR(&m)) != NULL && c->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(c), sizeof(fd));
		if (fd >= 0)
			return fd;
		usleep(50000);
	}
	return -1;
}

/* Whether n bytes of fd are all zero. */
static int
zeroed(int fd, size_t n)
{
	unsigned char *p = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);
	size_t i = 0;

	if (p == MAP_FAILED)
		return 0;
	while (i < n && p[i] == 0)
		i++;
	munmap(p, n);
	return i == n;
}

/* The pool's cases (proto.h: PROTO_LEND, PROTO_GIVE). */
static void
pool_cases(void)
{
	struct proto_lend l = {1 << 20};
	struct proto_window w = {.size = 1 << 20};
	struct stat st;
	pid_t kid;
	int s, fd, t, status;

	s = dial(); msg(s, PROTO_LEND, &l, sizeof(l), -1);
	verdict("lend-before-hello", answer(s), 0); close(s);
	s = ready(); l.size = 0; msg(s, PROTO_LEND, &l, sizeof(l), -1);
	verdict("lend-no-size", answer(s), 0); close(s);
	s = ready(); l.size = UINT64_MAX; msg(s, PROTO_LEND, &l, sizeof(l), -1);
	verdict("lend-huge", answer(s), 0); close(s);
	s = ready(); msg(s, PROTO_GIVE, NULL, 0, -1);
	verdict("give-no-fd", answer(s), 0); close(s);
	s = ready(); fd = window(1 << 20, 1); msg(s, PROTO_GIVE, NULL, 0, fd);
	close(fd);
	verdict("give-not-lent", answer(s), 0); close(s);

	s = ready();
	if ((fd = lend(s, 1 << 20)) < 0 || fstat(fd, &st) < 0 ||
	    st.st_size < (1 << 20)) {
		printf("bad hostile/lend: no buffer of 1 MB was lent in 5 s\n");
		close(s);
		return;
	}
	printf("%s hostile/lent-zeroed\n", zeroed(fd, 1 << 20) ? "ok" : "bad");
	/* Another process may not name it; this one may, on another connection. */
	if ((kid = fork()) == 0) {
		int k = ready();
		msg(k, PROTO_WINDOW, &w, sizeof(w), fd);
		_exit(answer(k) == 0 ? 0 : 1);
	}
	status = -1;
	if (kid > 0)
		waitpid(kid, &status, 0);
	verdict("lent-named-by-another-process", status == 0 ? 0 : -1, 0);
	t = ready();
	{
		struct proto_image pi = {.gpu = -1, .width = 8, .height = 8,
		    .channels = 1, .maxval = 255, .in_off = 0, .out_off = 1024};
		msg(t, PROTO_WINDOW, &w, sizeof(w), fd);
		msg(t, PROTO_IMAGE, &pi, sizeof(pi), -1);
	}
	verdict("lent-used-by-its-process", answer(t), PROTO_DONE);
	/* Written on and given back: lent again, it is zeroed. */
	{
		unsigned char junk[4096];
		memset(junk, 0xa5, sizeof(junk));
		if (pwrite(fd, junk, sizeof(junk), 4096) < 0)
			exit(2);
	}
	msg(s, PROTO_GIVE, NULL, 0, fd);
	close(fd);
	close(t);
	close(s);
	usleep(100000);
	s = ready();
	fd = lend(s, 1 << 20);
	printf("%s hostile/lent-again-zeroed\n", fd >= 0 && zeroed(fd, 1 << 20) ?
	    "ok" : "bad");
	if (fd >= 0)
		close(fd);
	close(s);
}

/*
 * A JPEG image (PROTO_JPEG) of pi's fields on a connection past the hello
 * of args (n strings, len bytes), in a window of win bytes whose first
 * bytes are a JPEG's start: the server's answer, as answer's.
 */
static int
jpeg_case(struct proto_image pi, size_t win, const char *args, uint32_t n,
    size_t len)
{
	struct proto_window w = {.size = win};
	int s = dial(), fd = window(win, 1), got;
	static const unsigned char soi[] = {0xff, 0xd8, 0xff, 0xd9};

	hello(s, n, args, len, version);
	if (answer(s) != PROTO_READY) {
		close(s);
		close(fd);
		return -1;
	}
	if (pwrite(fd, soi, sizeof(soi), 0) < 0)
		exit(2);
	msg(s, PROTO_WINDOW, &w, sizeof(w), fd);
	close(fd);
	msg(s, PROTO_IMAGE, &pi, sizeof(pi), -1);
	got = answer(s);
	close(s);
	return got;
}

static void
jpeg_cases(void)
{
	static const char sobel[] = "sobel\0-t\00060\0--cpu";
	static const char conv[] = "conv2d\0-k\0gauss:1.4\0--cpu";
	const struct proto_image good = {.gpu = -1, .width = 8, .height = 8,
	    .channels = 1, .maxval = 255, .in_off = 0, .out_off = 1024,
	    .kind = PROTO_JPEG, .orientation = 1, .in_len = 100};
	struct proto_image pi;

	verdict("jpeg-declined-on-the-cpu", jpeg_case(good, 4096, sobel, 4,
	    sizeof(sobel)), PROTO_DONE);
	pi = good; pi.orientation = 0;
	verdict("jpeg-orientation-0", jpeg_case(pi, 4096, sobel, 4,
	    sizeof(sobel)), 0);
	pi = good; pi.orientation = 9;
	verdict("jpeg-orientation-9", jpeg_case(pi, 4096, sobel, 4,
	    sizeof(sobel)), 0);
	pi = good; pi.in_len = 5000;
	verdict("jpeg-bytes-past-window", jpeg_case(pi, 4096, sobel, 4,
	    sizeof(sobel)), 0);
	pi = good; pi.in_len = 2000;
	verdict("jpeg-bytes-over-output", jpeg_case(pi, 4096, sobel, 4,
	    sizeof(sobel)), 0);
	pi = good; pi.channels = 3;
	verdict("jpeg-colour", jpeg_case(pi, 4096, sobel, 4, sizeof(sobel)), 0);
	pi = good; pi.kind = 7;
	verdict("image-unknown-kind", jpeg_case(pi, 4096, sobel, 4,
	    sizeof(sobel)), 0);
	verdict("jpeg-colour-tool", jpeg_case(good, 4096, conv, 4,
	    sizeof(conv)), 0);
}

static void
image_case(const char *name, struct proto_image pi, size_t win)
{
	int s = ready(), fd = window(win, 1);
	struct proto_window w = {.size = win};

	msg(s, PROTO_WINDOW, &w, sizeof(w), fd);
	close(fd);
	msg(s, PROTO_IMAGE, &pi, sizeof(pi), -1);
	verdict(name, answer(s), 0);
	close(s);
}

int
main(int argc, char **argv)
{
	char junk[512];
	int s, fd, before, after, p[2], pooled;

	if (argc != 3) {
		fprintf(stderr, "usage: server_hostile SOCKET VERSION\n");
		return 2;
	}
	sock_path = argv[1];
	version = argv[2];
	if (!alive() || server_pid == 0) {
		printf("bad hostile/start: no server answers at %s\n", sock_path);
		return 0;
	}
	before = fds_of_server();
	pooled = pool_buffers;
	srand(42);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)rand();

	s = dial(); raw(s, junk, sizeof(junk), -1, 0);
	verdict("garbage", answer(s), 0); close(s);
	s = dial(); raw(s, junk, 3, -1, 0);
	verdict("short", answer(s), 0); close(s);
	s = dial();
	{ struct proto_hdr h = {PROTO_STATUS, 1000}; raw(s, &h, sizeof(h), -1, 0); }
	verdict("length-lie", answer(s), 0); close(s);
	s = dial(); msg(s, 999, junk, 8, -1);
	verdict("unknown-type", answer(s), 0); close(s);
	s = dial(); { struct proto_image pi = {0}; msg(s, PROTO_IMAGE, &pi, sizeof(pi), -1); }
	verdict("image-before-hello", answer(s), 0); close(s);
	s = dial(); hello(s, 5, "sobel\0-t", 9, version);
	verdict("hello-argc-lie", answer(s), PROTO_REFUSED); close(s);
	s = dial(); hello(s, 1, "sobel", 5, version);
	verdict("hello-unterminated", answer(s), PROTO_REFUSED); close(s);
	s = dial(); hello(s, 0, "", 0, version);
	verdict("hello-no-args", answer(s), PROTO_REFUSED); close(s);
	s = dial(); hello(s, 1, "rm\0", 3, version);
	verdict("hello-not-a-tool", answer(s), PROTO_REFUSED); close(s);
	s = dial(); hello(s, 2, "sobel\0--help", 13, version);
	verdict("hello-help", answer(s), PROTO_REFUSED); close(s);
	s = dial(); hello(s, 2, "sobel\0in.pgm", 13, version);
	verdict("hello-operand", answer(s), PROTO_REFUSED); close(s);
	s = dial(); hello(s, 3, "conv2d\0-k\0@/etc/passwd", 23, version);
	verdict("hello-kernel-file", answer(s), PROTO_REFUSED); close(s);
	s = dial(); hello(s, 1, "sobel", 6, "0.0-other");
	verdict("hello-other-build", answer(s), PROTO_REFUSED); close(s);
	s = dial(); close(s);
	verdict("gone-at-once", 0, 0);

	s = ready(); { struct proto_window w = {.size = 1 << 20}; msg(s, PROTO_WINDOW, &w, sizeof(w), -1); }
	verdict("window-no-fd", answer(s), 0); close(s);
	s = ready(); fd = window(1 << 20, 0);
	{ struct proto_window w = {.size = 1 << 20}; msg(s, PROTO_WINDOW, &w, sizeof(w), fd); }
	close(fd);
	verdict("window-unsealed", answer(s), 0); close(s);
	s = ready(); fd = window(4096, 1);
	{ struct proto_window w = {.size = 1 << 20}; msg(s, PROTO_WINDOW, &w, sizeof(w), fd); }
	close(fd);
	verdict("window-larger-than-file", answer(s), 0); close(s);
	s = ready();
	if (pipe(p) < 0)
		return 2;
	{ struct proto_window w = {.size = 4096}; msg(s, PROTO_WINDOW, &w, sizeof(w), p[0]); }
	close(p[0]); close(p[1]);
	verdict("window-a-pipe", answer(s), 0); close(s);
	s = ready(); fd = window(4096, 1);
	raw(s, junk, 0, fd, 100);       /* a hundred descriptors, no message */
	{ struct proto_window w = {.size = 4096}; msg(s, PROTO_WINDOW, &w, sizeof(w), fd); }
	raw(s, junk, 16, fd, 150);
	close(fd);
	verdict("descriptor-flood", answer(s), 0); close(s);

	image_case("image-outside", (struct proto_image){.gpu = -1,
	    .width = 64, .height = 64, .channels = 1,
	    .maxval = 255, .in_off = 4000, .out_off = 0}, 4096);
	image_case("image-overlap", (struct proto_image){.gpu = -1,
	    .width = 32, .height = 32, .channels = 1,
	    .maxval = 255, .in_off = 0, .out_off = 512}, 4096);
	image_case("image-zero-width", (struct proto_image){.gpu = -1,
	    .width = 0, .height = 8, .channels = 1,
	    .maxval = 255, .in_off = 0, .out_off = 64}, 4096);
	image_case("image-huge", (struct proto_image){.gpu = -1,
	    .width = 1 << 24, .height = 1 << 24, .channels = 4,
	    .maxval = 65535, .in_off = 0, .out_off = 0}, 4096);
	image_case("image-channels", (struct proto_image){.gpu = -1,
	    .width = 8, .height = 8, .channels = 5,
	    .maxval = 255, .in_off = 0, .out_off = 1024}, 4096);
	image_case("image-gpu-index", (struct proto_image){.gpu = 7,
	    .width = 8, .height = 8, .channels = 1,
	    .maxval = 255, .in_off = 0, .out_off = 1024}, 4096);
	image_case("image-over-max-pixels", (struct proto_image){.gpu = -1,
	    .width = 20000, .height = 20000, .channels = 1,
	    .maxval = 255, .in_off = 0, .out_off = 400000000}, (size_t)1 << 30);
	image_case("image-offset-wrap", (struct proto_image){.gpu = -1,
	    .width = 8, .height = 8, .channels = 1,
	    .maxval = 255, .in_off = UINT64_MAX - 10, .out_off = 1024}, 4096);
	/* 16-bit samples at an odd offset (fuzz_proto: read as uint16_t). */
	image_case("image-16bit-odd-offset", (struct proto_image){.gpu = -1,
	    .width = 8, .height = 8, .channels = 1,
	    .maxval = 65535, .in_off = 235, .out_off = 1024}, 4096);
	image_case("image-16bit-odd-out-offset", (struct proto_image){.gpu = -1,
	    .width = 8, .height = 8, .channels = 1,
	    .maxval = 65535, .in_off = 0, .out_off = 1025}, 4096);

	/*
	 * Samples above the image's maxval (fuzz_proto: the CPU's int32 sum
	 * overflowed), in a window of 16-bit samples 60000 said to be of
	 * maxval 1000, and of bytes 200 said to be of maxval 15.
	 */
	for (int wide = 0; wide < 2; wide++) {
		struct proto_window w = {.size = 4096};
		struct proto_image pi = {.gpu = -1, .width = 8, .height = 8,
		    .channels = 1, .maxval = wide ? 1000 : 15, .in_off = 0,
		    .out_off = 2048};
		uint16_t big[64];

		s = ready(); fd = window(4096, 1);
		for (int i = 0; i < 64; i++)
			big[i] = wide ? 60000 : 200 * 257;
		if (pwrite(fd, big, wide ? sizeof(big) : 64, 0) < 0)
			return 2;
		msg(s, PROTO_WINDOW, &w, sizeof(w), fd);
		msg(s, PROTO_IMAGE, &pi, sizeof(pi), -1);
		close(fd);
		verdict(wide ? "image-16bit-over-maxval" : "image-8bit-over-maxval",
		    answer(s), 0);
		close(s);
	}

	/* The windows' indices (proto.h: PROTO_WINDOWS of them). */
	s = ready(); fd = window(4096, 1);
	{
		struct proto_window w = {.size = 4096, .index = PROTO_WINDOWS};
		msg(s, PROTO_WINDOW, &w, sizeof(w), fd);
	}
	close(fd);
	verdict("window-index-past-end", answer(s), 0); close(s);
	s = ready(); fd = window(4096, 1);
	{
		struct proto_window w = {.size = 4096, .index = 3};
		struct proto_image pi = {.gpu = -1, .width = 8, .height = 8,
		    .channels = 1, .maxval = 255, .in_off = 0,
		    .out_off = 1024, .in_win = 3, .out_win = 4};
		msg(s, PROTO_WINDOW, &w, sizeof(w), fd);
		msg(s, PROTO_IMAGE, &pi, sizeof(pi), -1);
	}
	close(fd);
	verdict("image-window-not-given", answer(s), 0); close(s);
	s = ready(); fd = window(4096, 1);
	{
		/* One memfd at two indices, the image and its output overlapping. */
		struct proto_window w1 = {.size = 4096, .index = 1};
		struct proto_window w2 = {.size = 4096, .index = 2};
		struct proto_image pi = {.gpu = -1, .width = 32, .height = 32,
		    .channels = 1, .maxval = 255, .in_off = 0, .out_off = 512,
		    .in_win = 1, .out_win = 2};
		msg(s, PROTO_WINDOW, &w1, sizeof(w1), fd);
		msg(s, PROTO_WINDOW, &w2, sizeof(w2), fd);
		msg(s, PROTO_IMAGE, &pi, sizeof(pi), -1);
	}
	close(fd);
	verdict("image-overlap-two-indices", answer(s), 0); close(s);
	s = ready(); { struct proto_rows r = {5}; msg(s, PROTO_ROWS, &r, sizeof(r), -1); }
	verdict("rows-from-client", answer(s), 0); close(s);
	s = ready(); fd = window(4096, 1);
	{
		/* Two windows, an image in one and its output in the other. */
		int fd2 = window(8192, 1);
		struct proto_window w1 = {.size = 4096, .index = 0};
		struct proto_window w2 = {.size = 8192, .index = PROTO_WINDOWS - 1};
		struct proto_image pi = {.gpu = -1, .width = 8, .height = 8,
		    .channels = 1, .maxval = 255, .in_off = 0,
		    .out_off = 8128, .in_win = 0,
		    .out_win = PROTO_WINDOWS - 1};
		msg(s, PROTO_WINDOW, &w1, sizeof(w1), fd);
		msg(s, PROTO_WINDOW, &w2, sizeof(w2), fd2);
		msg(s, PROTO_IMAGE, &pi, sizeof(pi), -1);
		close(fd2);
	}
	close(fd);
	verdict("image-two-windows", answer(s), PROTO_DONE); close(s);

	pool_cases();
	jpeg_cases();

	/* A good image after all that: the server still filters. */
	s = ready(); fd = window(4096, 1);
	{
		struct proto_window w = {.size = 4096};
		struct proto_image pi = {.gpu = -1, .width = 8, .height = 8,
		    .channels = 1, .maxval = 255, .in_off = 0,
		    .out_off = 1024};
		msg(s, PROTO_WINDOW, &w, sizeof(w), fd);
		msg(s, PROTO_IMAGE, &pi, sizeof(pi), -1);
	}
	close(fd);
	verdict("good-image-still-served", answer(s), PROTO_DONE);
	close(s);

	usleep(300000);         /* the connections' threads close their ends */
	after = fds_of_server();
	alive();                /* the pool's buffers keep a descriptor each */
	if (before < 0 || after > before + pool_buffers - pooled)
		printf("bad hostile/descriptors: the server held %d before, %d after "
		    "(its pool %d buffers more)\n", before, after,
		    pool_buffers - pooled);
	else
		printf("ok hostile/descriptors\n");
	return 0;
}
