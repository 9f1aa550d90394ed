/*
 * engine_test - a run whose threads cannot all start (lib/engine/engine.c):
 * pthread_create is wrapped (-Wl,--wrap=pthread_create, the Makefile's)
 * so that its Kth call from the run fails with EAGAIN, for each K until
 * a run needs fewer threads.  Each such run must return -1 with "cannot
 * start a thread", join every thread that did start (under make
 * test-asan or test-tsan a thread left touching the run's freed state
 * is reported; a run that hangs is killed by the alarm), and leave no
 * output but whole ones.  A batch (readers, encoders, a lane) and one
 * image (with -m auto, the GPUs' opener too), on the CPU.  Run from the
 * project root.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "sobel_tool.h"
#include "tool.h"

static int fail_at, calls;

int __real_pthread_create(pthread_t *th, const pthread_attr_t *attr,
    void *(*fn)(void *), void *arg);

int
__wrap_pthread_create(pthread_t *th, const pthread_attr_t *attr,
    void *(*fn)(void *), void *arg)
{
	if (fail_at > 0 && __atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST) == fail_at)
		return EAGAIN;
	return __real_pthread_create(th, attr, fn, arg);
}

static int nfail;

/* A job's message, for the case that fails. */
static char last_error[512];

static void
on_error(void *arg, const char *msg)
{
	(void)arg;
	snprintf(last_error, sizeof(last_error), "%s", msg);
}

/* Files in dir that are not a whole output (a temporary one), or -1. */
static int
leftovers(const char *dir, int *whole)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	*whole = 0;
	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
		    strcmp(de->d_name, "..") == 0))
			continue;
		if (de->d_name[0] != '.')       /* temporaries begin with '.' */
			(*whole)++;
		else
			n++;
	}
	closedir(d);
	return n;
}

/* Runs sobel over jobs with strategy s, failing thread k: its verdict. */
static void
one(const char *name, enum gf_strategy s, int threads, const char *const *in,
    int njobs)
{
	char dir[] = "/tmp/engine_test.XXXXXX", cmd[64];
	struct engine_job jobs[8];
	struct engine_hooks h = {NULL, on_error, NULL, NULL, NULL, 0};
	struct engine_stats st;
	struct sobel_opts so;
	struct tool t;
	int failed = 0;

	for (int k = 1; k <= 64; k++) {
		struct gf_err e = {0};
		int rc, left, whole;

		if (mkdtemp(dir) == NULL) {
			printf("fail %s: mkdtemp: %s\n", name, strerror(errno));
			nfail++;
			return;
		}
		memset(&so, 0, sizeof(so));     /* as cmd/'s calloc */
		gf_opts_init(&so.common);
		so.common.strategy = s;
		so.common.threads = threads;
		so.common.outdir = dir;
		sobel_tool(&t, &so);
		for (int j = 0; j < njobs; j++) {
			jobs[j].input = in[j];
			jobs[j].output = NULL;
			jobs[j].outdir = dir;
		}
		alarm(60);
		calls = 0;
		fail_at = k;
		rc = engine_run(&t, &so.common, jobs, njobs, &h, &st, &e);
		fail_at = 0;
		alarm(0);
		left = leftovers(dir, &whole);
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "engine_test: cannot remove %s\n", dir);
		memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
		/*
		 * The run needed fewer threads, or the one that failed was a
		 * CPU filter's helper (lib/base/pool.c works on without it):
		 * the run is whole.  Else it failed, and says why.
		 */
		if (rc == 0 && whole == njobs && left == 0) {
			if (calls >= k)
				continue;
			if (failed == 0) {
				printf("fail %s: no thread of the run failed it\n", name);
				nfail++;
			} else {
				printf("pass %s (%d of %d threads failed it)\n", name,
				    failed, k - 1);
			}
			return;
		}
		if (rc != -1 || strstr(e.msg, "cannot start a thread") == NULL ||
		    left != 0) {
			printf("fail %s/thread-%d: status %d, %d left over: %s%s\n", name,
			    k, rc, left, e.msg, last_error);
			nfail++;
			return;
		}
		failed++;
	}
	printf("fail %s: more than 64 threads\n", name);
	nfail++;
}

int
main(void)
{
	static const char *const batch[] = {"samples/coins.pgm",
	    "samples/px2x3.pgm", "samples/retina1023x517.pgm", "samples/small.jpg"};
	static const char *const single[] = {"samples/coins.pgm"};

	one("thread-fails/batch-cpu", GF_CPU, 2, batch, 4);
	one("thread-fails/batch-auto", GF_AUTO, 3, batch, 4);
	one("thread-fails/one-auto", GF_AUTO, 1, single, 1);
	return nfail != 0;
}
