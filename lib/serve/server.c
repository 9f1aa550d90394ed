/*
 * server.c - the server (server.h): it opens its GPUs, each with a
 * bounded set of workers (engine.h's lanes outside a run; server_gpu.c),
 * and answers a client's messages (proto.h), one function per message,
 * which a thread per connection reads (server_loop.c).  A JPEG image
 * (PROTO_JPEG) is decoded on its GPU's engines, or declined.
 *
 * What a client can cost it: a thread while connected (at most
 * max_clients of them), mappings of the windows the client made (its
 * memory, not the server's; PROTO_WINDOWS at most), the pool's windows
 * it borrowed (PROTO_WINDOWS a connection; the pool is bounded), and a
 * worker's time per image.  Memory on
 * a GPU is bounded by its workers: WORKERS per GPU, each keeping the
 * buffers of the largest image it filtered.  Nothing a client sends is
 * trusted: sizes, offsets and indices are checked before use, and a
 * message that is not one ends that connection.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "poison.h"
#include "server_int.h"

#define MSG_CAP (sizeof(struct proto_hdr) + sizeof(struct proto_hello) + \
    PROTO_MAX_ARGBYTES)

void
server_log(struct server *s, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (s->o.log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	s->o.log(s->o.log_arg, line);
}

/* A GPU of s for CUDA calls that need a current one; -1: none. */
static int
any_gpu(const struct server *s)
{
	return s->ndev > 0 ? s->dev[0].base.device : -1;
}

int
server_open(struct server **sp, const struct server_opts *o, struct gf_err *e)
{
	struct server *s = calloc(1, sizeof(*s));
	struct gf_err ge = {0};
	int n = 0;

	*sp = NULL;
	if (s == NULL)
		return gf_nomem(e, "out of memory");
	s->o = *o;
	s->t0 = s->last = gf_now_ms();
	pthread_mutex_init(&s->mu, NULL);
	windows_init(&s->wins, -1, o->pool_keep_ms);
	pthread_cond_init(&s->cv, NULL);
	for (size_t i = 0; i < sizeof(s->socks) / sizeof(s->socks[0]); i++)
		s->socks[i] = -1;
	if (s->o.max_clients <= 0 || s->o.max_clients > (int)(sizeof(s->socks) /
	    sizeof(s->socks[0])))
		s->o.max_clients = sizeof(s->socks) / sizeof(s->socks[0]);
	if (o->no_gpu) {
		snprintf(s->why, sizeof(s->why), "the server opens no GPU");
		*sp = s;
		return 0;
	}
	if (gpu_count(&n, &ge) < 0) {
		snprintf(s->why, sizeof(s->why), "%s", ge.msg);
		n = 0;
	}
	s->ndev = o->ndevices > 0 ? o->ndevices : n < GF_MAX_DEVICES ? n :
	    GF_MAX_DEVICES;
	if (s->ndev > PROTO_MAX_GPUS)
		s->ndev = PROTO_MAX_GPUS;
	for (int i = 0; i < s->ndev; i++) {
		s->dev[i].srv = s;
		if (sdev_open(&s->dev[i], o->ndevices > 0 ? o->devices[i] : i,
		    e) < 0) {
			server_close(s);
			return -1;
		}
	}
	pthread_mutex_lock(&s->wins.mu);
	s->wins.device = any_gpu(s);
	pthread_mutex_unlock(&s->wins.mu);
	for (int i = 0; i < s->ndev; i++)
		sdev_warm(&s->dev[i]);
	*sp = s;
	return 0;
}

int
server_gpus(const struct server *s, const char **why)
{
	if (why != NULL)
		*why = s->why;
	return s->ndev;
}

void
server_close(struct server *s)
{
	if (s == NULL)
		return;
	windows_fini(&s->wins);         /* unpinned while the contexts live */
	for (int i = 0; i < s->ndev; i++)
		sdev_close(&s->dev[i]);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s);
}

/* ---- a connection's messages */

static int
send_text(struct server_conn *c, uint32_t type, const char *fmt, ...)
{
	struct proto_text t = {0};
	struct gf_err e;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t.text, sizeof(t.text), fmt, ap);
	va_end(ap);
	return proto_send(c->sock, type, &t, sizeof(t), -1, &e);
}

/*
 * The GPUs of c's run, as its --device names them, among the server's:
 * the first (no --device), all, or the list.  -1 with e naming one the
 * server does not have.
 */
static int
conn_gpus(struct server_conn *c, struct gf_err *e)
{
	struct server *s = c->srv;
	const struct gf_opts *o = c->o;

	c->ngpus = 0;
	if (s->ndev == 0)
		return 0;
	if (o->ndevices == 0) {
		c->ngpus = o->all_devices ? s->ndev : 1;
		for (int i = 0; i < c->ngpus; i++)
			c->gpus[i] = i;
		return 0;
	}
	for (int k = 0; k < o->ndevices; k++) {
		int i;
		for (i = 0; i < s->ndev && s->dev[i].base.device != o->devices[k]; i++)
			;
		if (i == s->ndev)
			return gf_fail(e, "GPU %d is not one the server has open",
			    o->devices[k]);
		c->gpus[c->ngpus++] = i;
	}
	return 0;
}

/*
 * Whether c's GPUs may decode its JPEGs: built with nvJPEG, and none of
 * them is known to have no engines.
 */
static int
conn_jpeg(const struct server_conn *c)
{
	int yes = jpeg_gpu_built() && c->ngpus > 0;

	for (int i = 0; yes && i < c->ngpus; i++) {
		struct sdev *d = &c->srv->dev[c->gpus[i]];
		pthread_mutex_lock(&d->mu);
		yes = d->jpeg_state != JPEG_NONE;
		pthread_mutex_unlock(&d->mu);
	}
	return yes;
}

/* PROTO_HELLO: builds the client's tool and answers with its GPUs. */
static int
on_hello(struct server_conn *c, char *p, size_t len)
{
	struct server *s = c->srv;
	struct proto_hello h;
	struct proto_ready r;
	char *argv[PROTO_MAX_ARGS + 1];
	struct gf_err e = {0};

	if (c->ctx != NULL || len < sizeof(h))
		return -1;
	memcpy(&h, p, sizeof(h));
	if (!proto_build_same(&h.build, s->o.version))
		return send_text(c, PROTO_REFUSED, "the server (gpufiltd %.31s) is "
		    "of another build than this tool (%s)", h.build.version,
		    s->o.version), -1;
	if (proto_strings(p + sizeof(h), len - sizeof(h), h.argc, argv, &e) < 0 ||
	    s->o.build((int)h.argc, argv, &c->ctx, &c->tool, &c->o, &e) < 0)
		return send_text(c, PROTO_REFUSED, "%s", e.msg), -1;
	if (conn_gpus(c, &e) < 0)
		return send_text(c, PROTO_ELSEWHERE, "%s", e.msg), -1;
	c->strip_rows = h.strip_rows > 0 ? h.strip_rows : 0;
	memset(&r, 0, sizeof(r));
	r.ngpus = (uint32_t)c->ngpus;
	for (int i = 0; i < c->ngpus; i++) {
		const struct gpu *g = &s->dev[c->gpus[i]].base;
		r.number[i] = g->device;
		snprintf(r.name[i], sizeof(r.name[i]), "%s", g->name);
	}
	snprintf(r.why, sizeof(r.why), "%s", s->why);
	r.pid = (int32_t)getpid();
	r.jpeg = c->tool.gray && (s->o.jpeg_decline || conn_jpeg(c));
	pthread_mutex_lock(&s->mu);
	s->runs += h.lane == 0;
	c->lane = h.lane != 0;
	pthread_mutex_unlock(&s->mu);
	return proto_send(c->sock, PROTO_READY, &r, sizeof(r), -1, &e);
}

/*
 * PROTO_WINDOW: the client's memfd, once it is sealed against
 * shrinking, at its index, in the place of what was there.
 */
static int
on_window(struct server_conn *c, const char *p, size_t len, int fd)
{
	struct proto_window w;
	struct window *cw;
	struct stat st;
	int seals;

	if (c->ctx == NULL || len != sizeof(w) || fd < 0)
		return -1;
	memcpy(&w, p, sizeof(w));
	seals = fcntl(fd, F_GET_SEALS);
	if (w.index >= PROTO_WINDOWS || w.size == 0 ||
	    w.size > PROTO_MAX_WINDOW || seals < 0 || !(seals & F_SEAL_SHRINK) ||
	    fstat(fd, &st) < 0 || (uint64_t)st.st_size < w.size ||
	    (cw = window_get(&c->srv->wins, fd, (size_t)w.size, &st, c->pid)) ==
	    NULL)
		return -1;
	window_drop(&c->srv->wins, c->win[w.index]);
	c->win[w.index] = cw;
	return 0;
}

/*
 * PROTO_LEND: a window of the pool, lent to c's process; none (size 0)
 * when the pool has none of about that size free now, or c holds as
 * many as it may.
 */
static int
on_lend(struct server_conn *c, const char *p, size_t len)
{
	struct proto_lend l;
	struct window *w = NULL;
	struct gf_err e;

	if (c->ctx == NULL || len != sizeof(l))
		return -1;
	memcpy(&l, p, sizeof(l));
	if (l.size == 0 || l.size > PROTO_MAX_WINDOW)
		return -1;
	/* (A client of another pid namespace has none here: it borrows none.) */
	if (c->pid > 0 && c->nlent < PROTO_WINDOWS &&
	    (w = window_lend(&c->srv->wins, (size_t)l.size, c->pid)) != NULL)
		c->lent[c->nlent++] = w;
	l.size = w != NULL ? w->size : 0;
	return proto_send(c->sock, PROTO_LENT, &l, sizeof(l), w != NULL ? w->fd :
	    -1, &e);
}

/* PROTO_GIVE: a window c borrowed goes back (once no lane holds it). */
static int
on_give(struct server_conn *c, size_t len, int fd)
{
	struct stat st;

	if (len != 0 || fd < 0 || fstat(fd, &st) < 0)
		return -1;
	for (int i = 0; i < c->nlent; i++)
		if (c->lent[i]->dev == st.st_dev && c->lent[i]->ino == st.st_ino) {
			window_drop(&c->srv->wins, c->lent[i]);
			c->lent[i] = c->lent[--c->nlent];
			return 0;
		}
	return -1;
}

/*
 * bytes at off of window i of c: their address, or NULL when i is no
 * window or they do not lie in it.
 */
static char *
window_at(const struct server_conn *c, uint32_t i, uint64_t off, size_t bytes)
{
	const struct window *w = i < PROTO_WINDOWS ? c->win[i] : NULL;

	if (w == NULL || off > w->size || bytes > w->size - off)
		return NULL;
	return (char *)w->map + off;
}

/*
 * The image of pi in c's windows, and where its output goes: 0, or -1
 * when a size, an offset or an index is not one, the two overlap, or
 * the image is larger than the run's --max-pixels (the client lies).
 * 16-bit samples lie at even offsets: the filters read them as uint16_t.
 */
static int
image_check(const struct server_conn *c, const struct proto_image *pi,
    struct image *in, struct image *out)
{
	size_t inb, outb;
	int same;

	if (pi->width < 1 || pi->height < 1 ||
	    pi->width > (1 << 24) || pi->height > (1 << 24) || pi->channels < 1 ||
	    pi->channels > 4 || pi->maxval < 1 || pi->maxval > 65535 ||
	    pi->gpu < -1 || pi->gpu >= c->ngpus)
		return -1;
	if (c->o->max_pixels > 0 &&
	    (long long)pi->width * pi->height > c->o->max_pixels)
		return -1;      /* the client's reader refuses such an image */
	*in = (struct image){pi->width, pi->height, pi->channels, pi->maxval,
	    NULL, 0};
	*out = *in;
	out->channels = tool_out_channels(&c->tool, pi->channels);
	out->maxval = tool_out_maxval(&c->tool, pi->maxval);
	inb = img_bytes(in);
	outb = img_bytes(out);
	if (pi->in_off % (uint64_t)gf_sample_bytes(in->maxval) != 0 ||
	    pi->out_off % (uint64_t)gf_sample_bytes(out->maxval) != 0)
		return -1;
	if (inb == 0 || outb == 0 ||
	    (in->px = window_at(c, pi->in_win, pi->in_off, inb)) == NULL ||
	    (out->px = window_at(c, pi->out_win, pi->out_off, outb)) == NULL)
		return -1;
	same = c->win[pi->in_win]->dev == c->win[pi->out_win]->dev &&
	    c->win[pi->in_win]->ino == c->win[pi->out_win]->ino;
	if (same && pi->in_off < pi->out_off + outb &&
	    pi->out_off < pi->in_off + inb)
		return -1;
	return 0;
}

/*
 * The JPEG of pi (PROTO_JPEG) in c's windows, as image_check: its bytes
 * in *bits, their count in *len, and the output (turned by the
 * orientation) in out.  -1 when a size, an offset, the orientation or
 * the tool is not one (a colour tool takes no JPEG here).
 */
static int
jpeg_check(const struct server_conn *c, const struct proto_image *pi,
    const unsigned char **bits, size_t *len, struct image *out)
{
	int turned = pi->orientation >= 5;
	size_t outb;

	if (!c->tool.gray || pi->channels != 1 || pi->maxval != 255 ||
	    pi->orientation < 1 || pi->orientation > 8 || pi->in_len < 2 ||
	    pi->in_len > PROTO_MAX_WINDOW || pi->width < 1 || pi->height < 1 ||
	    pi->width > (1 << 24) || pi->height > (1 << 24) || pi->gpu < -1 ||
	    pi->gpu >= c->ngpus || pi->out_off % 2 != 0)
		return -1;
	if (c->o->max_pixels > 0 &&
	    (long long)pi->width * pi->height > c->o->max_pixels)
		return -1;
	*len = (size_t)pi->in_len;
	*out = (struct image){turned ? pi->height : pi->width, turned ?
	    pi->width : pi->height, 1, tool_out_maxval(&c->tool, 255), NULL, 0};
	outb = img_bytes(out);
	if (outb == 0 ||
	    (*bits = (unsigned char *)window_at(c, pi->in_win, pi->in_off,
	    *len)) == NULL ||
	    (out->px = window_at(c, pi->out_win, pi->out_off, outb)) == NULL)
		return -1;
	if (c->win[pi->in_win]->dev == c->win[pi->out_win]->dev &&
	    c->win[pi->in_win]->ino == c->win[pi->out_win]->ino &&
	    pi->in_off < pi->out_off + outb && pi->out_off < pi->in_off + *len)
		return -1;
	return 0;
}

/* One image on the server's CPU, into out (the window). */
static int
image_cpu(struct server_conn *c, const struct image *in, struct image *out,
    struct gf_times *t, struct gf_err *e)
{
	struct image o = {0};
	int rc = engine_cpu_filter(&c->tool, in, &o, t, e);

	if (rc == 0 && img_bytes(&o) != img_bytes(out))
		rc = gf_fail(e, "the CPU made a %dx%d image of %d channels",
		    o.width, o.height, o.channels);
	if (rc == 0)
		memcpy(out->px, o.px, img_bytes(out));
	img_free(&o);
	return rc;
}

/*
 * A tall image's first n rows are in the client's window: told, when
 * its socket has room (a client that does not read loses only the
 * news, and never holds the worker).
 */
static void
rows_tell(void *arg, int n)
{
	struct server_conn *c = arg;
	struct proto_rows r = {n};
	struct gf_err e;

	(void)proto_send_nowait(c->sock, PROTO_ROWS, &r, sizeof(r), &e);
}

/*
 * One image on GPU d, in and out in windows wi and wo (wi NULL: in is
 * the server's own memory): 1 when d's context was lost on it.
 */
static int
image_gpu(struct server_conn *c, struct sdev *d, const struct image *in,
    struct window *wi, struct image *out, struct window *wo,
    struct gf_times *t, struct gf_err *e)
{
	struct server *s = c->srv;
	struct engine_worker *w = worker_take(d, e);
	int rc, lost = 0, k, pinned;

	if (w == NULL)
		return -1;
	pinned = (wi != NULL ? window_pinned(&s->wins, wi, d->base.device) : 0) |
	    (wi == wo ? 0 : window_pinned(&s->wins, wo, d->base.device)) << 1;
	if (wi == wo && (pinned & 1))
		pinned |= 2;
	pthread_mutex_lock(&d->mu);
	k = ++d->images;
	pthread_mutex_unlock(&d->mu);
	if (s->o.fault_at > 0 && k == s->o.fault_at) {
		rc = gpu_poison(&d->base, e);
	} else {
		rc = engine_worker_filter(w, &c->tool, c->strip_rows, in, out,
		    pinned, rows_tell, c, t, e);
	}
	if (rc < 0)
		lost = engine_worker_broken(w);
	worker_give(d, w, lost);
	return rc < 0 ? (lost ? 1 : -1) : 0;
}

/*
 * A copy of in of the server's own (*own) when its maxval is less than
 * its samples' range: the filters are planned for samples within maxval
 * (an int32 sum, a histogram of maxval + 1 bins), which the client's
 * reader ensures but the client may not, and it may write its window
 * while the server reads it; so the copy is checked, and filtered.  0
 * (own->px NULL: none needed), -1 with e out of memory, -2 a sample is
 * above maxval (the client lies).
 */
static int
image_own(const struct image *in, struct image *own, struct gf_err *e)
{
	*own = *in;
	own->px = NULL;
	if (in->maxval == 255 || in->maxval == 65535)
		return 0;
	if (img_alloc(own, e) < 0)
		return -1;
	memcpy(own->px, in->px, img_bytes(in));
	if (img_over_maxval(own) == SIZE_MAX)
		return 0;
	img_free(own);
	return -2;
}

/*
 * A PROTO_JPEG image: decoded on its GPU's engines and filtered, or
 * declined (no engines there, on the CPU, or they do not take it), and
 * PROTO_DONE says which.
 */
static int
on_jpeg(struct server_conn *c, const struct proto_image *pi)
{
	struct server *s = c->srv;
	struct proto_done d;
	struct engine_worker *w;
	struct jpeg_gpu_queue *j;
	struct sdev *dv;
	const unsigned char *bits;
	struct image out;
	struct gf_err e = {0};
	size_t n;
	int rc = 0, lost = 0, declined = 1;

	if (jpeg_check(c, pi, &bits, &n, &out) < 0)
		return -1;
	memset(&d, 0, sizeof(d));
	dv = pi->gpu >= 0 ? &s->dev[c->gpus[pi->gpu]] : NULL;
	if (dv != NULL && !s->o.jpeg_decline && (j = sdev_jpeg(s, dv)) != NULL) {
		if ((w = worker_take(dv, &e)) == NULL) {
			rc = -1;
		} else {
			window_populate(c->win[pi->in_win], (void *)bits, n, 0);
			window_populate(c->win[pi->out_win], out.px, img_bytes(&out),
			    1);
			rc = engine_worker_filter_jpeg(w, j, &c->tool, bits, n,
			    pi->width, pi->height, pi->orientation, &out,
			    window_pinned(&s->wins, c->win[pi->out_win],
			    dv->base.device), &d.t, &declined, &e);
			if (rc < 0)
				lost = engine_worker_broken(w);
			worker_give(dv, w, lost);
		}
	}
	d.declined = rc == 0 && declined;
	d.ok = rc == 0 && !declined;
	d.broken = lost;
	if (lost) {
		struct gf_err why = e;
		server_log(s, "GPU %d lost its context: %s", dv->base.device, why.msg);
		gf_fail(&e, "%s (the GPU's context is lost: the server ends)",
		    why.msg);
	}
	snprintf(d.msg, sizeof(d.msg), "%s", e.msg);
	c->images += d.ok;
	pthread_mutex_lock(&s->mu);
	s->images += d.ok;
	s->jpegs += d.ok;
	s->declined += d.declined;
	pthread_mutex_unlock(&s->mu);
	return proto_send(c->sock, PROTO_DONE, &d, sizeof(d), -1, &e);
}

/* PROTO_IMAGE: filters it, and answers PROTO_DONE. */
static int
on_image(struct server_conn *c, const char *p, size_t len)
{
	struct server *s = c->srv;
	struct proto_image pi;
	struct proto_done d;
	struct image in, out, own;
	struct gf_err e = {0};
	int rc;

	if (c->ctx == NULL || len != sizeof(pi))
		return -1;
	memcpy(&pi, p, sizeof(pi));
	if (pi.kind == PROTO_JPEG)
		return on_jpeg(c, &pi);
	if (pi.kind != PROTO_PIXELS || image_check(c, &pi, &in, &out) < 0)
		return -1;
	window_populate(c->win[pi.in_win], in.px, img_bytes(&in), 0);
	window_populate(c->win[pi.out_win], out.px, img_bytes(&out), 1);
	memset(&d, 0, sizeof(d));
	if ((rc = image_own(&in, &own, &e)) == -2)
		return -1;
	if (rc == 0 && pi.gpu < 0)
		rc = image_cpu(c, own.px != NULL ? &own : &in, &out, &d.t, &e);
	else if (rc == 0)
		rc = image_gpu(c, &s->dev[c->gpus[pi.gpu]], own.px != NULL ? &own :
		    &in, own.px != NULL ? NULL : c->win[pi.in_win], &out,
		    c->win[pi.out_win], &d.t, &e);
	img_free(&own);
	d.ok = rc == 0;
	d.broken = rc == 1;
	if (rc == 1) {
		struct sdev *dv = &s->dev[c->gpus[pi.gpu]];
		struct gf_err lost = e;
		server_log(s, "GPU %d lost its context: %s", dv->base.device, lost.msg);
		gf_fail(&e, "%s (the GPU's context is lost: the server ends)",
		    lost.msg);
	}
	snprintf(d.msg, sizeof(d.msg), "%s", e.msg);
	c->images += rc == 0;
	pthread_mutex_lock(&s->mu);
	s->images += rc == 0;
	pthread_mutex_unlock(&s->mu);
	return proto_send(c->sock, PROTO_DONE, &d, sizeof(d), -1, &e);
}

/* The user and system time of ru, in seconds. */
static double
cpu_seconds(const struct rusage *ru)
{
	return (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) +
	    (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e6;
}

/* PROTO_STATUS: a line about the server. */
static int
on_status(struct server_conn *c)
{
	struct server *s = c->srv;
	char gpus[1024] = "";
	size_t n = 0;
	long runs, images, jpegs, declined;
	int clients, warming = 0;
	struct jpeg_gpu_queue_counts q = {0};
	struct window_pool_stats ps;
	struct rusage ru = {0};

	(void)getrusage(RUSAGE_SELF, &ru);
	window_pool_stats(&s->wins, &ps);
	for (int i = 0; i < s->ndev && n < sizeof(gpus); i++)
		n += (size_t)snprintf(gpus + n, sizeof(gpus) - n, "%sGPU %d (%s)",
		    i ? ", " : "", s->dev[i].base.device, s->dev[i].base.name);
	for (int i = 0; i < s->ndev; i++) {
		struct sdev *d = &s->dev[i];
		pthread_mutex_lock(&d->mu);
		if (d->jq != NULL)
			jpeg_gpu_queue_counts(d->jq, &q);
		warming |= d->warm_started && !d->warm_done;
		pthread_mutex_unlock(&d->mu);
	}
	pthread_mutex_lock(&s->mu);
	runs = s->runs;
	images = s->images;
	jpegs = s->jpegs;
	declined = s->declined;
	clients = s->clients - 1;
	pthread_mutex_unlock(&s->mu);
	return send_text(c, PROTO_TEXT, "pid %d, up %.0f s, %s%s%s; %d clients now; "
	    "%ld runs and %ld images served (%ld JPEGs decoded on its engines "
	    "in %ld batches (%ld images padding them; %.0f ms reading headers, "
	    "%.0f ms in nvJPEG's calls, %.0f ms waiting for the GPU), %ld "
	    "declined); %.2f s of CPU time; %d buffers of %.0f MB in the pool, "
	    "%d lent now, %ld lends (%ld waited %.0f ms for one being zeroed), "
	    "%ld asked for in vain", (int)getpid(), (gf_now_ms() - s->t0) / 1000,
	    s->ndev > 0 ? gpus : "no GPU: ", s->ndev > 0 ? "" : s->why,
	    warming ? ", warming up" : "", clients,
	    runs, images, jpegs, q.batches, q.padding, q.parse_ms, q.call_ms,
	    q.wait_ms, declined, cpu_seconds(&ru), ps.n, ps.bytes / 1048576.0,
	    ps.lent, ps.lends, ps.waits, ps.wait_ms, ps.misses);
}

struct server_conn *
server_conn_new(struct server *s, int sock)
{
	struct server_conn *c = calloc(1, sizeof(*c));

	if (c == NULL || (c->buf = malloc(MSG_CAP)) == NULL) {
		free(c);
		return NULL;
	}
	c->srv = s;
	c->sock = sock;
	c->slot = -1;
	return c;
}

int
server_conn_step(struct server_conn *c)
{
	struct gf_err e = {0};
	uint32_t type;
	size_t len;
	int fd, rc;
	char *p = c->buf + sizeof(struct proto_hdr);

	rc = proto_recv(c->sock, c->buf, MSG_CAP, &type, &len, &fd, &e);
	if (rc <= 0)
		return -1;
	if (fd >= 0 && type != PROTO_WINDOW && type != PROTO_GIVE) {
		close(fd);
		return -1;
	}
	switch (type) {
	case PROTO_HELLO:
		return on_hello(c, p, len);
	case PROTO_WINDOW:
		rc = on_window(c, p, len, fd);
		if (fd >= 0)
			close(fd);      /* the mapping keeps what it needs */
		return rc;
	case PROTO_IMAGE:
		return on_image(c, p, len);
	case PROTO_LEND:
		return on_lend(c, p, len);
	case PROTO_GIVE:
		rc = on_give(c, len, fd);
		if (fd >= 0)
			close(fd);
		return rc;
	case PROTO_STATUS:
		return c->ctx == NULL && len == 0 ? on_status(c) : -1;
	case PROTO_STOP:
		if (c->ctx != NULL || len != 0)
			return -1;
		pthread_mutex_lock(&c->srv->mu);
		c->srv->stop = 1;
		pthread_mutex_unlock(&c->srv->mu);
		return send_text(c, PROTO_TEXT, "stopping"), -1;
	default:
		return -1;
	}
}

void
server_conn_free(struct server_conn *c)
{
	if (c == NULL)
		return;
	for (int i = 0; i < PROTO_WINDOWS; i++)
		window_drop(&c->srv->wins, c->win[i]);
	for (int i = 0; i < c->nlent; i++)
		window_drop(&c->srv->wins, c->lent[i]);
	free(c->ctx);
	free(c->buf);
	free(c);
}
