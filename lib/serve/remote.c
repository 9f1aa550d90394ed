/*
 * remote.c - the tool's side of the server (remote.h): the hello, a
 * lane's connection and window, the buffers borrowed from the server's
 * pool, and one image there and back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "img.h"
#include "proto.h"
#include "remote.h"
#include "sockpath.h"

/* How long a hello waits for the server's answer. */
#define HELLO_TIMEOUT_S 60

struct remote {
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	/*
	 * The hello's connection: the run's buffers are borrowed on it,
	 * one at a time (mu), and go back when it closes; -1 once it broke
	 * (the run's buffers are its own from then on).
	 */
	int sock;
	pthread_mutex_t mu;
	char *hello;            /* the hello's payload, for each lane */
	size_t hello_len;
	struct proto_ready ready;
};

struct remote_lane {
	struct remote *r;
	int sock;
	struct remote_mem own;  /* a window of its own, for what is copied */
	/* The id of the memory the server has at each window index (0: none). */
	unsigned long long sent[PROTO_WINDOWS];
	int next;               /* the index a new one takes */
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
 * *ready; 0 no server answers; -2 refused (e why); -3 elsewhere (e
 * why); -1 e.
 */
static int
remote_greet(struct remote *r, int *sock, struct proto_ready *ready,
    struct gf_err *e)
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
	memcpy(ready, m.buf + sizeof(m.h), sizeof(*ready));
	ready->why[sizeof(ready->why) - 1] = '\0';
	for (int i = 0; i < PROTO_MAX_GPUS; i++)
		ready->name[i][sizeof(ready->name[i]) - 1] = '\0';
	if (ready->ngpus > PROTO_MAX_GPUS) {
		gf_fail(e, "the server at %s offers %u GPUs", r->path,
		    ready->ngpus);
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
	pthread_mutex_init(&r->mu, NULL);
	if (strlen(path) >= sizeof(r->path)) {
		pthread_mutex_destroy(&r->mu);
		free(r);
		return gf_fail(e, "socket path %s is longer than %zu bytes", path,
		    sizeof(r->path) - 1);
	}
	memcpy(r->path, path, strlen(path) + 1);
	if (hello_pack(r, h, e) < 0 ||
	    (rc = remote_greet(r, &r->sock, &r->ready, e)) <= 0) {
		rc = r->hello == NULL ? -1 : rc;
		remote_close(r);
		return rc;
	}
	/* Every later hello is a lane's. */
	memcpy(r->hello + offsetof(struct proto_hello, lane), &(uint32_t){1},
	    sizeof(uint32_t));
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
	pthread_mutex_destroy(&r->mu);
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
remote_jpeg(const struct remote *r)
{
	return r->ready.jpeg != 0;
}

/* The message of a run whose server has ended: -2 after e. */
static int
server_gone(const struct remote *r, struct gf_err *e)
{
	return gf_fail(e, "the server (gpufiltd, pid %d, %s) ended during the run",
	    r->ready.pid, r->path), -2;
}

int
remote_lane_open(struct remote *r, struct remote_lane **lp, struct gf_err *e)
{
	struct remote_lane *l = calloc(1, sizeof(*l));
	struct proto_ready ready;
	int rc = 1;

	*lp = NULL;
	if (l == NULL)
		return gf_nomem(e, "out of memory");
	l->r = r;
	l->own.fd = -1;
	if ((rc = remote_greet(r, &l->sock, &ready, e)) > 0 &&
	    ready.pid != r->ready.pid) {
		close(l->sock);
		rc = 0;
	}
	if (rc <= 0) {
		/*
		 * A lane greets at its first image, perhaps long after the
		 * hello: no server there, one that breaks off the greeting, or
		 * another in its place means that the run's server has ended.
		 * (-2: it refused this lane, and says why.)
		 */
		if (rc != -2)
			server_gone(r, e);
		free(l);
		return -1;
	}
	*lp = l;
	return 0;
}

/* A window's bytes for size: whole megabytes, as both ends make them. */
static size_t
mem_round(size_t size)
{
	return (size + 0xfffff) & ~(size_t)0xfffff;
}

/* An id no other remote_mem of this process has had. */
static unsigned long long
mem_id(void)
{
	static unsigned long long ids;

	return __atomic_add_fetch(&ids, 1, __ATOMIC_RELAXED);
}

int
remote_mem_alloc(struct remote_mem *m, size_t size, struct gf_err *e)
{
	int err;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	size = mem_round(size);
	if (size == 0 || size > PROTO_MAX_WINDOW)
		return gf_fail(e, "%zu bytes of pixels are more than the server "
		    "takes (%llu)", size, (unsigned long long)PROTO_MAX_WINDOW);
	if ((m->fd = memfd_create("gpufilt-window", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING)) < 0)
		return gf_fail(e, "cannot make shared memory: %s", strerror(errno));
	/*
	 * Sealed so that it cannot shrink under the server's mapping.  Its
	 * pages come as they are written: made all at once (MAP_POPULATE),
	 * a batch's readers held the process's memory map between them for
	 * a quarter of a second before the first image (GPUFILT_TRACE).
	 */
	if (ftruncate(m->fd, (off_t)size) < 0 ||
	    fcntl(m->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) < 0 ||
	    (m->base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
	    m->fd, 0)) == MAP_FAILED) {
		err = errno;
		m->base = NULL;
		remote_mem_free(m);
		if (err == ENOMEM || err == ENOSPC)
			return gf_nomem(e, "out of memory for %zu bytes of shared "
			    "memory", size);
		return gf_fail(e, "cannot make %zu bytes of shared memory: %s",
		    size, strerror(err));
	}
	m->size = size;
	m->id = mem_id();
	return 0;
}

int
remote_mem_lend(struct remote *r, struct remote_mem *m, size_t size)
{
	union {
		struct proto_hdr h;
		char buf[sizeof(struct proto_hdr) + sizeof(struct proto_lend)];
	} a;
	struct proto_lend l = {mem_round(size)};
	struct gf_err e;
	struct stat st;
	uint32_t type;
	size_t len;
	int fd = -1, rc;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	if (r == NULL || l.size == 0 || l.size > PROTO_MAX_WINDOW)
		return 0;
	pthread_mutex_lock(&r->mu);
	rc = r->sock >= 0 &&
	    proto_send(r->sock, PROTO_LEND, &l, sizeof(l), -1, &e) == 0 &&
	    proto_recv(r->sock, &a, sizeof(a), &type, &len, &fd, &e) > 0 &&
	    type == PROTO_LENT && len == sizeof(l);
	if (!rc && r->sock >= 0) {
		close(r->sock);         /* no more asking: the lanes will tell */
		r->sock = -1;
	}
	pthread_mutex_unlock(&r->mu);
	if (rc)
		memcpy(&l, a.buf + sizeof(a.h), sizeof(l));
	/*
	 * None now, or not what was asked: the run makes its own.  Mapped
	 * without MAP_POPULATE: its pages exist, and each thread faults in
	 * what it touches, side by side, where populating took the
	 * process's memory map for about a millisecond a window.
	 */
	if (!rc || fd < 0 || l.size < size || l.size > PROTO_MAX_WINDOW ||
	    fstat(fd, &st) < 0 || (uint64_t)st.st_size != l.size ||
	    (m->base = mmap(NULL, (size_t)l.size, PROT_READ | PROT_WRITE,
	    MAP_SHARED, fd, 0)) == MAP_FAILED) {
		m->base = NULL;
		if (fd >= 0)
			close(fd);
		return 0;
	}
	m->fd = fd;
	m->size = (size_t)l.size;
	m->id = mem_id();
	m->lender = r;
	return 1;
}

size_t
remote_mem_send(const struct remote_mem *m, const void *p, size_t n, int fd)
{
	const char *at = p, *base = m->base;
	off_t off;
	size_t done = 0;
	ssize_t k;

	if (m->fd < 0 || base == NULL || at < base || at > base + m->size ||
	    n > m->size - (size_t)(at - base))
		return 0;
	off = at - base;
	while (done < n) {
		if ((k = sendfile(fd, m->fd, &off, n - done)) > 0)
			done += (size_t)k;
		else if (k == 0 || errno != EINTR)
			break;
	}
	return done;
}

void
remote_mem_free(struct remote_mem *m)
{
	struct remote *r = m->lender;
	struct gf_err e;

	if (r != NULL) {
		pthread_mutex_lock(&r->mu);
		if (r->sock >= 0)
			(void)proto_send(r->sock, PROTO_GIVE, NULL, 0, m->fd, &e);
		pthread_mutex_unlock(&r->mu);
	}
	if (m->base != NULL)
		munmap(m->base, m->size);
	if (m->fd >= 0)
		close(m->fd);
	memset(m, 0, sizeof(*m));
	m->fd = -1;
}

void
remote_lane_close(struct remote_lane *l)
{
	if (l == NULL)
		return;
	remote_mem_free(&l->own);
	if (l->sock >= 0)
		close(l->sock);
	free(l);
}

/* Where an output follows its input in the lane's own window. */
#define OWN_ALIGN 64

/* The lane's own window, of at least need bytes: 0, or -1 e. */
static int
own_fit(struct remote_lane *l, size_t need, struct gf_err *e)
{
	if (need <= l->own.size)
		return 0;
	remote_mem_free(&l->own);
	return remote_mem_alloc(&l->own, need + (need >> 2), e);
}

/*
 * The server's index of window m, sent to it first if it has not got
 * it (in the place of the one sent longest ago): the index, or -1 e
 * when the server is gone.
 */
static int
window_index(struct remote_lane *l, const struct remote_mem *m,
    struct gf_err *e)
{
	struct proto_window w = {0};
	int i;

	for (i = 0; i < PROTO_WINDOWS; i++)
		if (l->sent[i] == m->id)
			return i;
	i = l->next;
	l->next = (l->next + 1) % PROTO_WINDOWS;
	w.size = m->size;
	w.index = (uint32_t)i;
	l->sent[i] = 0;
	if (proto_send(l->sock, PROTO_WINDOW, &w, sizeof(w), m->fd, e) < 0)
		return -1;
	l->sent[i] = m->id;
	return i;
}

/* Whether n bytes at p lie in m. */
static int
mem_holds(const struct remote_mem *m, const void *p, size_t n)
{
	return m != NULL && m->fd >= 0 && (const char *)p >= (char *)m->base &&
	    (size_t)((const char *)p - (char *)m->base) <= m->size &&
	    n <= m->size - (size_t)((const char *)p - (char *)m->base);
}

/*
 * Sends image pi (its windows, offsets, gpu filled in by the caller),
 * then takes the rows as they come (copied from the lane's own window
 * when outm is NULL) and the end: 0, 1 declined (a JPEG the server did
 * not decode), -1 the image failed there (e), -2 the lane is broken (e).
 */
static int
exchange(struct remote_lane *l, struct proto_image *pi, struct image *out,
    const struct remote_mem *outm, const struct remote_rows *rows,
    struct gf_times *t, struct gf_err *e)
{
	union {
		struct proto_hdr h;
		char buf[sizeof(struct proto_hdr) + sizeof(struct proto_done)];
	} m;
	struct proto_done d;
	struct proto_rows pr;
	size_t outb = img_bytes(out), len;
	size_t orow = outb / (size_t)out->height;
	int done = 0, fd, rc;
	uint32_t type;

	if (proto_send(l->sock, PROTO_IMAGE, pi, sizeof(*pi), -1, e) < 0)
		return server_gone(l->r, e);
	/* Rows as they come (a tall image's strips), then the end. */
	for (;;) {
		rc = proto_recv(l->sock, &m, sizeof(m), &type, &len, &fd, e);
		if (fd >= 0)
			close(fd);
		if (rc <= 0)
			return server_gone(l->r, e);
		if (type != PROTO_ROWS || len != sizeof(pr))
			break;
		memcpy(&pr, m.buf + sizeof(m.h), sizeof(pr));
		if (pr.rows <= done || pr.rows > out->height)
			return server_gone(l->r, e);
		if (outm == NULL)
			memcpy((char *)out->px + (size_t)done * orow, (char *)l->own.base +
			    pi->out_off + (size_t)done * orow,
			    (size_t)(pr.rows - done) * orow);
		done = pr.rows;
		if (rows != NULL)
			rows->done(rows->arg, done);
	}
	if (type != PROTO_DONE || len != sizeof(d))
		return server_gone(l->r, e);
	memcpy(&d, m.buf + sizeof(m.h), sizeof(d));
	d.msg[sizeof(d.msg) - 1] = '\0';
	if (d.declined && pi->kind == PROTO_JPEG && done == 0)
		return 1;
	if (!d.ok) {
		gf_fail(e, "%s", d.msg);
		return d.broken ? -2 : -1;
	}
	if (outm == NULL)
		memcpy((char *)out->px + (size_t)done * orow, (char *)l->own.base +
		    pi->out_off + (size_t)done * orow, outb - (size_t)done * orow);
	t->upload += d.t.upload;
	t->kernel += d.t.kernel;
	t->download += d.t.download;
	t->cpu += d.t.cpu;
	t->kernel_bytes = d.t.kernel_bytes;
	t->thresholds = d.t.thresholds;
	t->otsu = d.t.otsu;
	t->low = d.t.low;
	t->high = d.t.high;
	if (d.t.engines) {
		t->engines = 1;
		t->decode = d.t.decode;
	}
	t->served = 1;
	return 0;
}

/*
 * The windows of pi: the input's n bytes at p (in inm, else copied into
 * the lane's own window) and the output's (in outm, else after the
 * input in the lane's own).  0, or -1/-2 as remote_filter.
 */
static int
windows_of(struct remote_lane *l, struct proto_image *pi, const void *p,
    size_t n, const struct remote_mem *inm, const struct image *out,
    const struct remote_mem *outm, struct gf_err *e)
{
	size_t outb = img_bytes(out), inpad;
	int wi, wo;

	/*
	 * What is not in memory the server can map goes through the lane's,
	 * the output after the input at an offset of OWN_ALIGN (16-bit
	 * samples at an even one: the server takes no other).
	 */
	inpad = inm == NULL ? (n + OWN_ALIGN - 1) & ~(size_t)(OWN_ALIGN - 1) : 0;
	if ((inm == NULL || outm == NULL) &&
	    own_fit(l, inpad + (outm == NULL ? outb : 0), e) < 0)
		return -1;
	if (inm == NULL)
		memcpy(l->own.base, p, n);
	pi->in_off = inm == NULL ? 0 : (uint64_t)((const char *)p -
	    (char *)inm->base);
	pi->out_off = outm == NULL ? inpad :
	    (uint64_t)((char *)out->px - (char *)outm->base);
	if ((wi = window_index(l, inm != NULL ? inm : &l->own, e)) < 0 ||
	    (wo = window_index(l, outm != NULL ? outm : &l->own, e)) < 0)
		return server_gone(l->r, e);
	pi->in_win = (uint32_t)wi;
	pi->out_win = (uint32_t)wo;
	return 0;
}

int
remote_filter(struct remote_lane *l, int gpu, const struct image *in,
    const struct remote_mem *inm, struct image *out,
    const struct remote_mem *outm, const struct remote_rows *rows,
    struct gf_times *t, struct gf_err *e)
{
	struct proto_image pi = {0};
	size_t inb = img_bytes(in);
	int rc;

	if (!mem_holds(inm, in->px, inb))
		inm = NULL;
	if (!mem_holds(outm, out->px, img_bytes(out)))
		outm = NULL;
	if ((rc = windows_of(l, &pi, in->px, inb, inm, out, outm, e)) < 0)
		return rc;
	pi.kind = PROTO_PIXELS;
	pi.gpu = gpu;
	pi.width = in->width;
	pi.height = in->height;
	pi.channels = in->channels;
	pi.maxval = in->maxval;
	return exchange(l, &pi, out, outm, rows, t, e);
}

int
remote_filter_jpeg(struct remote_lane *l, int gpu, const struct img_jpeg_bits *b,
    const struct remote_mem *inm, struct image *out,
    const struct remote_mem *outm, struct gf_times *t, struct gf_err *e)
{
	struct proto_image pi = {0};
	int rc;

	if (!mem_holds(inm, b->p, b->len))
		inm = NULL;
	if (!mem_holds(outm, out->px, img_bytes(out)))
		outm = NULL;
	if ((rc = windows_of(l, &pi, b->p, b->len, inm, out, outm, e)) < 0)
		return rc;
	pi.kind = PROTO_JPEG;
	pi.gpu = gpu;
	pi.width = b->width;
	pi.height = b->height;
	pi.channels = 1;
	pi.maxval = 255;
	pi.orientation = b->orientation >= 1 ? b->orientation : 1;
	pi.in_len = b->len;
	return exchange(l, &pi, out, outm, NULL, t, e);
}
