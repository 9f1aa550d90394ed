/*
 * engine_gpu.c - the GPUs of a run: opened on threads of their own while
 * the first input is read, the decision whether the run uses them, and
 * what their lanes record on them (busy time, images, a device that
 * breaks and so stops the run).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"

static void *
device_open_main(void *arg)
{
	struct device *d = arg;

	jdec_early(d);
	d->opened = gpu_open(&d->base, d->number, &d->err) == 0;
	return NULL;
}

/* Closes the devices that opened, and forgets them all. */
void
devices_close(struct engine *en)
{
	for (int i = 0; i < en->gpus.ndev && !en->gpus.remote; i++) {
		jdec_close_device(&en->gpus.dev[i]);
		if (en->gpus.dev[i].opened)
			gpu_close(&en->gpus.dev[i].base);
	}
	free(en->gpus.dev);
	en->gpus.dev = NULL;
	en->gpus.ndev = 0;
}

/*
 * Opens the GPUs of --device (the default one, a list, or all there
 * are, at most GF_MAX_DEVICES), each on a thread of its own, so that
 * their contexts are made at once.  0 when all opened; -1 with e naming
 * the first that did not; -2 with e when there is no GPU at all.
 */
static int
devices_open(struct engine *en, struct gf_err *e)
{
	const struct gf_opts *o = en->o;
	int n, i;

	if (gpu_count(&n, e) < 0)
		return -2;
	en->gpus.ndev = o->all_devices ? (n < GF_MAX_DEVICES ? n : GF_MAX_DEVICES) :
	    o->ndevices > 0 ? o->ndevices : 1;
	en->gpus.dev = calloc((size_t)en->gpus.ndev, sizeof(*en->gpus.dev));
	if (en->gpus.dev == NULL) {
		en->gpus.ndev = 0;
		return gf_nomem(e, "out of memory");
	}
	for (i = 0; i < en->gpus.ndev; i++) {
		struct device *d = &en->gpus.dev[i];
		d->en = en;
		d->number = o->all_devices ? i : o->ndevices > 0 ? o->devices[i] : -1;
		d->spawned = en->gpus.ndev > 1 &&
		    pthread_create(&d->th, NULL, device_open_main, d) == 0;
		if (!d->spawned)
			device_open_main(d);
	}
	for (i = 0; i < en->gpus.ndev; i++)
		if (en->gpus.dev[i].spawned)
			pthread_join(en->gpus.dev[i].th, NULL);
	for (i = 0; i < en->gpus.ndev && en->gpus.dev[i].opened; i++)
		;
	if (i == en->gpus.ndev)
		return 0;
	if (en->gpus.dev[i].number >= 0 && en->gpus.dev[i].number < n)
		gf_fail(e, "cannot open GPU %d: %s", en->gpus.dev[i].number,
		    en->gpus.dev[i].err.msg);
	else
		*e = en->gpus.dev[i].err;
	devices_close(en);
	return -1;
}

/*
 * The server's GPUs for the run, as devices_open's: 0 (en->gpus.dev set
 * from them, opened there, not here), -2 with e when it has none.  The
 * server answered for --device already: a GPU it does not have was a
 * refusal, and the run is in process.
 */
static int
devices_remote(struct engine *en, struct gf_err *e)
{
	struct remote *r = en->o->remote;
	const char *why;
	int n = remote_gpus(r, &why);

	if (n == 0)
		return gf_fail(e, "%s", why), -2;
	if ((en->gpus.dev = calloc((size_t)n, sizeof(*en->gpus.dev))) == NULL)
		return gf_nomem(e, "out of memory");
	en->gpus.ndev = n;
	for (int i = 0; i < n; i++) {
		struct device *d = &en->gpus.dev[i];
		d->en = en;
		d->number = remote_gpu_number(r, i);
		d->base.device = d->number;
		snprintf(d->base.name, sizeof(d->base.name), "%s",
		    remote_gpu_name(r, i));
	}
	return 0;
}

/* "--device 0,2" or "--device all", as the user named the GPUs, in w. */
static void
gpu_named(const struct gf_opts *o, char *w, size_t n)
{
	size_t len = (size_t)snprintf(w, n, "--device %s",
	    o->all_devices ? "all" : "");

	for (int i = 0; i < o->ndevices && len < n; i++)
		len += (size_t)snprintf(w + len, n - len, "%s%d", i ? "," : "",
		    o->devices[i]);
}

/*
 * Whether to use the GPU: 1 yes (en->gpus.dev open), 0 the CPU (with
 * *fallback when -m auto, or any strategy with --fallback, found no GPU:
 * the reason is in e), -1 when an explicit GPU strategy, or a GPU named
 * by --device, cannot run (e says why, and names --cpu, and --fallback
 * when there is no GPU at all).
 */
static int
gpu_choose(struct engine *en, int *fallback, struct gf_err *e)
{
	const struct gf_opts *o = en->o;
	char what[GF_MAX_DEVICES * 6 + 16];
	size_t n;
	int r;

	*fallback = 0;
	if (o->strategy == GF_CPU)
		return 0;
	if (small_decide(en, e)) {      /* one modest image: the CPU, as e says */
		pthread_mutex_lock(&en->mu);
		en->gpus.remote = 0;    /* this process's own CPU */
		pthread_mutex_unlock(&en->mu);
		*fallback = 1;
		return 0;
	}
	if ((r = o->remote != NULL ? devices_remote(en, e) : devices_open(en, e)) == 0)
		return 1;
	/*
	 * -m auto with no GPU named (the default one, or all there are, if
	 * there are any), or --fallback on a machine without a GPU.
	 */
	if ((o->strategy == GF_AUTO && o->ndevices == 0 &&
	    (r == -2 || !o->all_devices)) || (o->fallback && r == -2)) {
		*fallback = 1;
		return 0;
	}
	if (o->strategy == GF_AUTO)
		gpu_named(o, what, sizeof(what));
	else
		snprintf(what, sizeof(what), "strategy '%s'",
		    gf_strategies[o->strategy].name);
	n = strlen(e->msg);
	snprintf(e->msg + n, sizeof(e->msg) - n, "; %s needs a GPU (use --cpu "
	    "for the CPU reference%s)", what,
	    r == -2 ? ", or --fallback to run it where there is no GPU" : "");
	return -1;
}

static void *
opener_main(void *arg)
{
	struct engine *en = arg;
	struct gf_err e = {0};
	int fallback, r = gpu_choose(en, &fallback, &e), state;

	pthread_mutex_lock(&en->mu);
	en->gpus.state = r > 0 ? GPU_READY : r == 0 ? GPU_UNUSED : GPU_FATAL;
	en->gpus.fallback = fallback;
	en->gpus.err = e;
	jdec_decide(en, r > 0 && !en->gpus.remote);
	if (r < 0)
		en->stop = 1;
	engine_wake(en);
	state = en->gpus.state;
	pthread_mutex_unlock(&en->mu);
	trace_job(en, -1, 'O', 'o', state);
	if (r > 0)
		jdec_start(en);
	return NULL;
}

/*
 * Starts the thread that opens the GPUs and decides (opener_main),
 * after the small-run rule's setting (small_init); for --cpu the
 * decision is made: no GPU.  -1 if the thread cannot start.
 */
int
devices_start(struct engine *en, pthread_t *opener, struct gf_err *e)
{
	int rc;

	en->gpus.remote = en->o->remote != NULL;
	small_init(en);
	if (en->o->strategy == GF_CPU)
		en->gpus.state = GPU_UNUSED;
	else if ((rc = pthread_create(opener, NULL, opener_main, en)) != 0)
		return gf_fail(e, "cannot start a thread: %s", strerror(rc));
	return 0;
}

/* Waits for the opener's decision: GPU_READY, GPU_UNUSED or GPU_FATAL. */
int
devices_decision(struct engine *en)
{
	int st;

	pthread_mutex_lock(&en->mu);
	while (en->gpus.state == GPU_PENDING)
		pthread_cond_wait(&en->cv, &en->mu);
	st = en->gpus.state;
	pthread_mutex_unlock(&en->mu);
	return st;
}

/*
 * A lane begins an image on d: d is busy from its first lane's start to
 * its last lane's end.  1 when GPUFILT_FAIL_GPU says that this image
 * breaks d (the tests' way to make a GPU fail).
 */
int
device_begin(struct engine *en, struct device *d)
{
	int inject;

	pthread_mutex_lock(&en->mu);
	if (d->active++ == 0)
		d->busy_since = gf_now_ms();
	inject = ++d->taken == en->gpus.fail_at &&
	    d->base.device == en->gpus.fail_gpu;
	pthread_mutex_unlock(&en->mu);
	return inject;
}

void
device_end(struct engine *en, struct device *d, int filtered)
{
	pthread_mutex_lock(&en->mu);
	if (--d->active == 0)
		d->busy_ms += gf_now_ms() - d->busy_since;
	d->images += filtered;
	pthread_mutex_unlock(&en->mu);
}

/*
 * d is broken (slot s failed there with s->err): the run stops, and its
 * error names d and the image.  s's own message is cleared, so that the
 * failure is told once, by engine_run.
 */
void
device_fail(struct engine *en, struct device *d, struct slot *s)
{
	pthread_mutex_lock(&en->mu);
	if (en->gpus.broken == NULL) {
		en->gpus.broken = d;
		gf_fail(&en->gpus.broken_err, "GPU %d (%s) failed on %s image %d: %s",
		    d->base.device, d->base.name, engine_job_name(en, s->job),
		    s->index, s->err.msg);
	}
	en->stop = 1;
	engine_wake(en);
	pthread_mutex_unlock(&en->mu);
	s->err.msg[0] = '\0';
}
