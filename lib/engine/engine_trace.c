/*
 * engine_trace.c - GPUFILT_TRACE=FILE: every step of every slot, timed,
 * written to FILE when the run ends, one line a step:
 *
 *   ms step job index thread
 *
 * ms since the run began; step a letter (engine_int.h, TRACE_*); the
 * thread that took it, as "r3" (reader 3), "l0" (lane 0), "d0" (GPU 0's
 * JPEG decoder), "e5" (encoder 5) or "w" (the writer).  The run's own
 * steps have job -1, but G (the GPUs decided), whose job is how many
 * GPUs the lanes use (lane n on the run's GPU n modulo that).
 * bench/trace.py reads it and says where images waited and how busy
 * each stage was: what a run's -v summary can only average, and, on
 * several GPUs, each one's lanes apart.  Off (and free) unless asked.
 * The file is opened when the run begins: one that cannot be written
 * fails the run before anything is read, with the reason.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine_int.h"

struct trace_step {
	double ms;
	int job, index;
	char step, who;
	short n;
};

struct trace {
	pthread_mutex_t mu;
	double t0;
	struct trace_step *s;
	size_t n, cap;
	FILE *f;                /* opened by trace_open, written by trace_close */
	char path[1024];
};

/*
 * How long ago the process began (Linux: /proc/self/stat's start time,
 * in clock ticks since boot), so that the trace shows what came before
 * the run; 0 where it cannot tell.
 */
static double
process_age_ms(void)
{
	char buf[1024], *p;
	unsigned long long start = 0;
	struct timespec now;
	long hz = sysconf(_SC_CLK_TCK);
	size_t n;
	FILE *f = fopen("/proc/self/stat", "r");

	if (f == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* Field 22; the command name (field 2) may hold spaces, so count from its ')'. */
	if ((p = strrchr(buf, ')')) == NULL || hz <= 0 ||
	    clock_gettime(CLOCK_BOOTTIME, &now) != 0)
		return 0;
	for (int field = 2; field < 22 && p != NULL; field++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p, "%llu", &start) != 1)
		return 0;
	return (now.tv_sec + now.tv_nsec / 1e9 - (double)start / hz) * 1000;
}

static void
trace_add(struct engine *en, int job, int index, int step, int who, int n)
{
	struct trace *t = en->trace;
	double ms;

	if (t == NULL)
		return;
	ms = gf_now_ms() - t->t0;
	pthread_mutex_lock(&t->mu);
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 4096;
		struct trace_step *p = realloc(t->s, cap * sizeof(*p));
		if (p == NULL) {
			pthread_mutex_unlock(&t->mu);
			return;
		}
		t->s = p;
		t->cap = cap;
	}
	t->s[t->n++] = (struct trace_step){ms, job, index, (char)step, (char)who,
	    (short)n};
	pthread_mutex_unlock(&t->mu);
}

void
trace_mark(struct engine *en, const struct slot *s, int step, int who, int n)
{
	if (en->trace != NULL)
		trace_add(en, s->job, s->index, step, who, n);
}

void
trace_job(struct engine *en, int job, int step, int who, int n)
{
	if (en->trace != NULL)
		trace_add(en, job, 0, step, who, n);
}

int
trace_open(struct engine *en, struct gf_err *e)
{
	const char *path = en->o->set.trace;
	struct trace *t;

	if (path == NULL || *path == '\0')
		return 0;
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return gf_nomem(e, "out of memory");
	if ((t->f = fopen(path, "w")) == NULL) {
		int err = errno;
		free(t);
		return gf_fail(e, "GPUFILT_TRACE names %s, which cannot be written: %s",
		    path, strerror(err));
	}
	pthread_mutex_init(&t->mu, NULL);
	t->t0 = gf_now_ms();
	snprintf(t->path, sizeof(t->path), "%s", path);
	en->trace = t;
	trace_add(en, -1, 0, 'P', 'o', 0);
	if (t->n > 0)
		t->s[0].ms = -process_age_ms();
	return 0;
}

int
trace_close(struct engine *en, struct gf_err *e)
{
	struct trace *t = en->trace;
	int bad, err;

	if (t == NULL)
		return 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_step *p = &t->s[i];
		if (p->who == 'w')
			fprintf(t->f, "%.3f %c %d %d w\n", p->ms, p->step, p->job,
			    p->index);
		else
			fprintf(t->f, "%.3f %c %d %d %c%d\n", p->ms, p->step, p->job,
			    p->index, p->who, p->n);
	}
	bad = fflush(t->f) != 0 || ferror(t->f);
	err = errno;
	if (fclose(t->f) != 0 && !bad) {
		bad = 1;
		err = errno;
	}
	if (bad)
		gf_fail(e, "cannot write the trace to %s (GPUFILT_TRACE): %s", t->path,
		    strerror(err));
	pthread_mutex_destroy(&t->mu);
	free(t->s);
	free(t);
	en->trace = NULL;
	return bad ? -1 : 0;
}
