/*
 * remote.c - the tool's side of the server (remote.h): the hello, a
 * lane's connection and window, and one image there and back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "proto.h"
#include "remote.h"
#include "sockpath.h"

/* How long a hello waits for the server's answer. */
#define HELLO_TIMEOUT_S 60

struct remote {
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int sock;               /* the first connection, until a lane takes it */
	char *hello;            /* the hello's payload, for each lane */
	size_t hello_len;
	struct proto_ready ready;
};

struct remote_lane {
	struct remote *r;
	int sock;
	int memfd;              /* the window */
	void *map;
	size_t size;
};

/* The hello of h into r->hello; -1 with e if its options do not fit. */
static int
hello_pack(struct remote *r, const struct remote_hello *h, struct gf_err *e)
{
	struct proto_hello ph = {0};
	size_t n = sizeof(ph);
	char *p;

	if (h->argc < 1 || h->argc > PROTO_MAX_ARGS)
		return gf_fail(e, "%d options are more than a server takes (%d)",
		    h->argc, PROTO_MAX_ARGS);
	for (int i = 0; i < h->argc; i++)
		n += strlen(i == 0 ? h->tool : h->argv[i]) + 1;
	if (n - sizeof(ph) > PROTO_MAX_ARGBYTES)
		return gf_fail(e, "options of %zu bytes are more than a server "
		    "takes (%d)", n - sizeof(ph), PROTO_MAX_ARGBYTES);
	if ((p = malloc(n)) == NULL)
		return gf_nomem(e, "out of memory");
	proto_build_this(&ph.build, h->version);
	snprintf(ph.tool, sizeof(ph.tool), "%s", h->tool);
	ph.argc = (uint32_t)h->argc;
	ph.strip_rows = h->strip_rows;
	memcpy(p, &ph, sizeof(ph));
	n = sizeof(ph);
	for (int i = 0; i < h->argc; i++) {     /* argv[0]: the tool's name */
		const char *a = i == 0 ? h->tool : h->argv[i];
		size_t k = strlen(a) + 1;
		memcpy(p + n, a, k);
		n += k;
	}
	r->hello = p;
	r->hello_len = n;
	return 0;
}

/*
 * A connection to r's server, greeted: 1 with *sock and the answer in
 * r->ready; 0 no server answers; -2 refused (e why); -1 e.
 */
static int
remote_greet(struct remote *r, int *sock, struct gf_err *e)
{
	union {
		struct proto_hdr h;
		char buf[sizeof(struct proto_hdr) + sizeof(struct proto_ready)];
	} m;
	struct timeval tv = {HELLO_TIMEOUT_S, 0}, none = {0, 0};
	uint32_t type;
	size_t len;
	int fd, rc;

	if ((rc = sockpath_connect(r->path, sock, e)) != 0)
		return rc > 0 ? 0 : -1;
	if (sockpath_peer_ok(*sock, e) < 0)     /* the server is this user's */
		goto fail;
	setsockopt(*sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (proto_send(*sock, PROTO_HELLO, r->hello, r->hello_len, -1, e) < 0)
		goto fail;
	rc = proto_recv(*sock, &m, sizeof(m), &type, &len, &fd, e);
	if (rc == 0)
		gf_fail(e, "the server at %s closed the connection at the hello",
		    r->path);
	if (rc <= 0)
		goto fail;
	if (fd >= 0)
		close(fd);
	if ((type == PROTO_REFUSED || type == PROTO_ELSEWHERE) &&
	    len == sizeof(struct proto_text)) {
		struct proto_text t;
		memcpy(&t, m.buf + sizeof(m.h), sizeof(t));
		t.text[sizeof(t.text) - 1] = '\0';
		gf_fail(e, "%s", t.text);
		close(*sock);
		*sock = -1;
		return type == PROTO_ELSEWHERE ? -3 : -2;
	}
	if (type != PROTO_READY || len != sizeof(r->ready)) {
		gf_fail(e, "the server at %s answered the hello with a message of "
		    "type %u", r->path, type);
		goto fail;
	}
	memcpy(&r->ready, m.buf + sizeof(m.h), sizeof(r->ready));
	r->ready.why[sizeof(r->ready.why) - 1] = '\0';
	for (int i = 0; i < PROTO_MAX_GPUS; i++)
		r->ready.name[i][sizeof(r->ready.name[i]) - 1] = '\0';
	if (r->ready.ngpus > PROTO_MAX_GPUS) {
		gf_fail(e, "the server at %s offers %u GPUs", r->path,
		    r->ready.ngpus);
		goto fail;
	}
	setsockopt(*sock, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof(none));
	return 1;
fail:
	close(*sock);
	*sock = -1;
	return -1;
}

int
remote_open(struct remote **rp, const char *path, const struct remote_hello *h,
    struct gf_err *e)
{
	struct remote *r = calloc(1, sizeof(*r));
	int rc;

	*rp = NULL;
	if (r == NULL)
		return gf_nomem(e, "out of memory");
	r->sock = -1;
	if (strlen(path) >= sizeof(r->path)) {
		free(r);
		return gf_fail(e, "socket path %s is longer than %zu bytes", path,
		    sizeof(r->path) - 1);
	}
	memcpy(r->path, path, strlen(path) + 1);
	if (hello_pack(r, h, e) < 0 || (rc = remote_greet(r, &r->sock, e)) <= 0) {
		rc = r->hello == NULL ? -1 : rc;
		remote_close(r);
		return rc;
	}
	*rp = r;
	return 1;
}

void
remote_close(struct remote *r)
{
	if (r == NULL)
		return;
	if (r->sock >= 0)
		close(r->sock);
	free(r->hello);
	free(r);
}

int
remote_gpus(const struct remote *r, const char **why)
{
	if (why != NULL)
		*why = r->ready.why;
	return (int)r->ready.ngpus;
}

int
remote_gpu_number(const struct remote *r, int i)
{
	return r->ready.number[i];
}

const char *
remote_gpu_name(const struct remote *r, int i)
{
	return r->ready.name[i];
}

int
remote_pid(const struct remote *r)
{
	return r->ready.pid;
}

int
remote_lane_open(struct remote *r, struct remote_lane **lp, struct gf_err *e)
{
	struct remote_lane *l = calloc(1, sizeof(*l));
	int rc = 1;

	*lp = NULL;
	if (l == NULL)
		return gf_nomem(e, "out of memory");
	l->r = r;
	l->memfd = -1;
	/* The first lane takes the hello's connection; the others greet anew. */
	l->sock = __atomic_exchange_n(&r->sock, -1, __ATOMIC_ACQ_REL);
	if (l->sock < 0 && (rc = remote_greet(r, &l->sock, e)) <= 0) {
		if (rc == 0)
			gf_fail(e, "the server at %s no longer answers", r->path);
		free(l);
		return -1;
	}
	*lp = l;
	return 0;
}

/* Unmaps l's window. */
static void
window_drop(struct remote_lane *l)
{
	if (l->map != NULL)
		munmap(l->map, l->size);
	if (l->memfd >= 0)
		close(l->memfd);
	l->map = NULL;
	l->memfd = -1;
	l->size = 0;
}

void
remote_lane_close(struct remote_lane *l)
{
	if (l == NULL)
		return;
	window_drop(l);
	if (l->sock >= 0)
		close(l->sock);
	free(l);
}

/*
 * A window of at least need bytes, shared with the server: a memfd
 * sealed so that it cannot shrink under the server's mapping.  -1 e;
 * -2 e: the server did not take it.
 */
static int
window_fit(struct remote_lane *l, size_t need, struct gf_err *e)
{
	struct proto_window w;
	size_t size = need + (need >> 2);

	if (need <= l->size)
		return 0;
	window_drop(l);
	size = (size + 0xfffff) & ~(size_t)0xfffff;
	if (size > PROTO_MAX_WINDOW)
		return gf_fail(e, "an image of %zu bytes is more than the server "
		    "takes (%llu)", need, (unsigned long long)PROTO_MAX_WINDOW);
	if ((l->memfd = memfd_create("gpufilt-window", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING)) < 0)
		return gf_fail(e, "cannot make shared memory: %s", strerror(errno));
	if (ftruncate(l->memfd, (off_t)size) < 0 ||
	    fcntl(l->memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) < 0 ||
	    (l->map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
	    l->memfd, 0)) == MAP_FAILED) {
		int err = errno;
		l->map = NULL;
		window_drop(l);
		if (err == ENOMEM)
			return gf_nomem(e, "out of memory for %zu bytes of shared "
			    "memory", size);
		return gf_fail(e, "cannot make %zu bytes of shared memory: %s", size,
		    strerror(err));
	}
	l->size = size;
	w.size = size;
	return proto_send(l->sock, PROTO_WINDOW, &w, sizeof(w), l->memfd, e) < 0 ?
	    -2 : 0;
}

/* The lane's server is gone: the message for it. */
static int
lane_gone(struct remote_lane *l, struct gf_err *e)
{
	return gf_fail(e, "the server (gpufiltd, pid %d, %s) ended during the run",
	    l->r->ready.pid, l->r->path), -2;
}

int
remote_filter(struct remote_lane *l, int gpu, const struct image *in,
    struct image *out, struct gf_times *t, struct gf_err *e)
{
	union {
		struct proto_hdr h;
		char buf[sizeof(struct proto_hdr) + sizeof(struct proto_done)];
	} m;
	struct proto_image pi = {0};
	struct proto_done d;
	size_t inb = img_bytes(in), outb = img_bytes(out), len;
	uint32_t type;
	int fd, rc;

	if ((rc = window_fit(l, inb + outb, e)) < 0)
		return rc == -2 ? lane_gone(l, e) : -1;
	memcpy(l->map, in->px, inb);
	pi.gpu = gpu;
	pi.width = in->width;
	pi.height = in->height;
	pi.channels = in->channels;
	pi.maxval = in->maxval;
	pi.in_off = 0;
	pi.out_off = inb;
	if (proto_send(l->sock, PROTO_IMAGE, &pi, sizeof(pi), -1, e) < 0)
		return lane_gone(l, e);
	rc = proto_recv(l->sock, &m, sizeof(m), &type, &len, &fd, e);
	if (fd >= 0)
		close(fd);
	if (rc <= 0 || type != PROTO_DONE || len != sizeof(d))
		return lane_gone(l, e);
	memcpy(&d, m.buf + sizeof(m.h), sizeof(d));
	d.msg[sizeof(d.msg) - 1] = '\0';
	if (!d.ok) {
		gf_fail(e, "%s", d.msg);
		return d.broken ? -2 : -1;
	}
	memcpy(out->px, (char *)l->map + inb, outb);
	t->upload += d.t.upload;
	t->kernel += d.t.kernel;
	t->download += d.t.download;
	t->cpu += d.t.cpu;
	t->kernel_bytes = d.t.kernel_bytes;
	t->thresholds = d.t.thresholds;
	t->otsu = d.t.otsu;
	t->low = d.t.low;
	t->high = d.t.high;
	t->served = 1;
	return 0;
}
