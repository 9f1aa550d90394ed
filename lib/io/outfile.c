/*
 * outfile.c - temporary file beside the target, renamed when complete;
 * outputs that are not regular files written in place; and the registry
 * of live temporary files that a signal handler empties.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "outfile.h"

/* ---- the registry of live temporary files */

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the registry needs lock-free int atomics");
_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2,
    "the registry needs lock-free pointer atomics");

enum { SLOT_FREE, SLOT_FILLING, SLOT_LIVE, SLOT_REMOVING };
#define OUTFILE_SLOTS 64

/*
 * The temporary files that exist now: one of lib/'s three mutable globals
 * (HACKING.md), as a signal handler can reach nothing else.  A chunk of OUTFILE_SLOTS slots,
 * then as many more chunks as outputs are ever open at once, each chained
 * to the last by one compare-and-swap and never freed, so a handler
 * walking the chain meets only whole chunks.  A slot's path is written
 * only while the slot is FILLING (owned by the thread that claimed it),
 * and the handler reads it only after moving the slot from LIVE to
 * REMOVING, so it never sees a half-written path and never removes a
 * file twice.  Lock-free atomics are async-signal-safe; no thread ever
 * waits on another.  A slot's number is its chunk's place times
 * OUTFILE_SLOTS plus its place in the chunk.
 */
struct slot_chunk {
	struct {
		atomic_int state;
		char path[PATH_MAX];
	} slot[OUTFILE_SLOTS];
	struct slot_chunk *_Atomic next;
};
static struct slot_chunk live;

/* The chunk after c, made and chained when there is none yet; NULL without memory. */
static struct slot_chunk *
chunk_next(struct slot_chunk *c)
{
	struct slot_chunk *n = atomic_load(&c->next), *none = NULL;

	if (n != NULL)
		return n;
	if ((n = calloc(1, sizeof(*n))) == NULL)
		return NULL;
	if (atomic_compare_exchange_strong(&c->next, &none, n))
		return n;
	free(n);                /* another thread chained one first */
	return none;
}

/* A FILLING slot's number for the caller, or -1 when out of memory. */
static int
slot_claim(void)
{
	struct slot_chunk *c = &live;

	for (int base = 0; c != NULL && base <= INT_MAX - 2 * OUTFILE_SLOTS;
	    base += OUTFILE_SLOTS, c = chunk_next(c))
		for (int i = 0; i < OUTFILE_SLOTS; i++) {
			int s = SLOT_FREE;
			if (atomic_compare_exchange_strong(&c->slot[i].state, &s,
			    SLOT_FILLING))
				return base + i;
		}
	return -1;
}

/* The state and path of slot number i (claimed, so its chunk exists). */
static atomic_int *
slot_state(int i, char **path)
{
	struct slot_chunk *c = &live;

	for (; i >= OUTFILE_SLOTS; i -= OUTFILE_SLOTS)
		c = atomic_load(&c->next);
	if (path != NULL)
		*path = c->slot[i].path;
	return &c->slot[i].state;
}

/* Frees slot i; one a handler is removing stays taken (the process is ending). */
static void
slot_release(int i)
{
	int s = SLOT_LIVE;
	atomic_int *state;

	if (i < 0)
		return;
	state = slot_state(i, NULL);
	if (!atomic_compare_exchange_strong(state, &s, SLOT_FREE) &&
	    s == SLOT_FILLING)
		atomic_store(state, SLOT_FREE);
}

void
outfile_remove_temps(void)
{
	for (struct slot_chunk *c = &live; c != NULL; c = atomic_load(&c->next))
		for (int i = 0; i < OUTFILE_SLOTS; i++) {
			int s = SLOT_LIVE;
			if (atomic_compare_exchange_strong(&c->slot[i].state, &s,
			    SLOT_REMOVING))
				unlink(c->slot[i].path);
		}
}

/* ---- temporary files */

/* Replaces the six X at the end of t with letters and digits, varied by attempt. */
static void
tmp_fill(char *t, unsigned attempt)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789";
	char *x = t + strlen(t) - 6;
	struct timespec ts;
	uint64_t v;

	clock_gettime(CLOCK_REALTIME, &ts);
	v = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^
	    (uint64_t)getpid() << 42 ^ (uintptr_t)t ^ attempt * 0x9e3779b97f4a7c15u;
	v = (v ^ v >> 31) * 0xbf58476d1ce4e5b9u;
	v ^= v >> 29;
	for (int i = 0; i < 6; i++, v /= 62)
		x[i] = set[v % 62];
}

/*
 * Creates a new file from template t (ending in XXXXXX, rewritten) with
 * mode 0666 less the umask, as open(2) applies it; the fd, or -1 (errno).
 */
static int
tmp_create(char *t)
{
	for (unsigned attempt = 0; attempt < 100; attempt++) {
		tmp_fill(t, attempt);
		int fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/*
 * Creates o->tmp beside o->path, registered for signal cleanup: the name
 * is .<name>.XXXXXX, or .gf.XXXXXX where that is too long for the file
 * system.  Returns the fd, or -1 (errno).
 */
static int
tmp_open(struct outfile *o)
{
	const char *slash = strrchr(o->path, '/');
	int dirlen = slash == NULL ? 0 : (int)(slash - o->path) + 1, fd;
	atomic_int *state;
	char *t;

	/* Every temporary file is registered: none may outlive a signal. */
	if ((o->slot = slot_claim()) < 0) {
		errno = ENOMEM;
		return -1;
	}
	state = slot_state(o->slot, &t);
	fd = -1;
	errno = ENAMETOOLONG;
	if (snprintf(t, PATH_MAX, "%.*s.%s.XXXXXX", dirlen, o->path,
	    o->path + dirlen) < PATH_MAX)
		fd = tmp_create(t);
	if (fd < 0 && errno == ENAMETOOLONG) {
		snprintf(t, PATH_MAX, "%.*s.gf.XXXXXX", dirlen, o->path);
		fd = tmp_create(t);
	}
	if (fd >= 0) {
		atomic_store(state, SLOT_LIVE);
		memcpy(o->tmp, t, strlen(t) + 1);
	}
	if (fd < 0) {
		int err = errno;
		slot_release(o->slot);
		o->slot = -1;
		errno = err;
	}
	return fd;
}

/* Removes the temporary file and frees its slot. */
static void
tmp_remove(struct outfile *o)
{
	unlink(o->tmp);
	slot_release(o->slot);
	o->slot = -1;
}

/* ---- what the target is */

enum target {
	TARGET_NEW,             /* nothing there (or not stat-able) */
	TARGET_REGULAR,         /* a regular file, or a link to one: replaced */
	TARGET_DIRECT,          /* device, FIFO, socket: written in place */
	TARGET_STDFD,           /* a link to standard descriptor *fd */
	TARGET_DIR
};

/*
 * Classifies path, filling st with what it resolves to.  A link to a
 * standard descriptor open for writing is TARGET_STDFD, with *fd set.
 */
static enum target
target_of(const char *path, struct stat *st, int *fd)
{
	struct stat lst, fst;

	if (stat(path, st) != 0)
		return TARGET_NEW;
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		for (*fd = 0; *fd <= 2; ++*fd)
			if (fstat(*fd, &fst) == 0 && fst.st_dev == st->st_dev &&
			    fst.st_ino == st->st_ino &&
			    (fcntl(*fd, F_GETFL) & O_ACCMODE) != O_RDONLY)
				return TARGET_STDFD;
	}
	if (S_ISDIR(st->st_mode))
		return TARGET_DIR;
	return S_ISREG(st->st_mode) ? TARGET_REGULAR : TARGET_DIRECT;
}

/* Connects to the Unix stream socket at path; the fd, or -1 (errno). */
static int
socket_connect(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd, err;

	if (strlen(path) >= sizeof(a.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(a.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		err = errno;
		close(fd);
		errno = err;
		fd = -1;
	}
	return fd;
}

/*
 * Opens a target that is not a regular file for writing in place.
 * Returns 0, -1 (e set), or 1 when path turned out to be a regular file
 * (it was replaced since target_of looked): take the temporary-file way.
 */
static int
open_direct(struct outfile *o, const struct stat *st, struct gf_err *e)
{
	struct stat now;
	int fd;

	fd = S_ISSOCK(st->st_mode) ? socket_connect(o->path) :
	    open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return gf_fail(e, "cannot open %s: %s", o->path, strerror(errno));
	if (fstat(fd, &now) == 0 && S_ISREG(now.st_mode)) {
		close(fd);
		return 1;
	}
	o->direct = 1;
	o->f = fdopen(fd, "wb");
	if (o->f == NULL) {
		int err = errno;
		close(fd);
		return gf_fail(e, "cannot open %s: %s", o->path, strerror(err));
	}
	return 0;
}

/* Writes to a copy of standard descriptor fd, which path links to. */
static int
open_stdfd(struct outfile *o, int fd, struct gf_err *e)
{
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);

	o->direct = 1;
	o->f = dup_fd < 0 ? NULL : fdopen(dup_fd, "wb");
	if (o->f != NULL)
		return 0;
	if (dup_fd >= 0)
		close(dup_fd);
	return gf_fail(e, "cannot open %s: %s", o->path, strerror(errno));
}

/* Opens the temporary file; a replaced file's owner and mode carry over. */
static int
open_replacement(struct outfile *o, const struct stat *old, struct gf_err *e)
{
	int fd = tmp_open(o);

	if (fd < 0)
		return gf_fail(e, "cannot create %s: %s", o->path, strerror(errno));
	if (old != NULL) {
		if (fchown(fd, old->st_uid, old->st_gid) != 0) {
			/* Not permitted: the file becomes ours, as a new one. */
		}
		if (fchmod(fd, old->st_mode & 07777) != 0) {
			int err = errno;
			close(fd);
			tmp_remove(o);
			return gf_fail(e, "cannot create %s: %s", o->path, strerror(err));
		}
	}
	o->f = fdopen(fd, "wb");
	if (o->f == NULL) {
		int err = errno;
		close(fd);
		tmp_remove(o);
		return gf_fail(e, "cannot create %s: %s", o->path, strerror(err));
	}
	return 0;
}

int
outfile_open(struct outfile *o, const char *path, struct gf_err *e)
{
	struct stat st;
	int fd = -1, r;

	o->f = NULL;
	o->direct = 0;
	o->slot = -1;
	o->tmp[0] = '\0';
	if (snprintf(o->path, sizeof(o->path), "%s", path) >= (int)sizeof(o->path))
		return gf_fail(e, "output path is too long: %s", path);
	switch (target_of(path, &st, &fd)) {
	case TARGET_DIR:
		return gf_fail(e, "cannot write %s: it is a directory", path);
	case TARGET_STDFD:
		return open_stdfd(o, fd, e);
	case TARGET_DIRECT:
		if ((r = open_direct(o, &st, e)) <= 0)
			return r;
		if (stat(path, &st) != 0)
			return open_replacement(o, NULL, e);
		/* FALLTHROUGH */
	case TARGET_REGULAR:
		return open_replacement(o, &st, e);
	case TARGET_NEW:
		break;
	}
	return open_replacement(o, NULL, e);
}

int
outfile_commit(struct outfile *o, struct gf_err *e)
{
	int bad = fflush(o->f) != 0 || ferror(o->f);
	int err = errno;

	if (fclose(o->f) != 0 && !bad) {
		bad = 1;
		err = errno;
	}
	o->f = NULL;
	if (o->direct && !bad)
		return 0;
	if (o->direct)
		return gf_fail(e, "cannot write %s: %s", o->path, strerror(err));
	if (!bad && rename(o->tmp, o->path) == 0) {
		slot_release(o->slot);
		o->slot = -1;
		return 0;
	}
	if (!bad)
		err = errno;
	tmp_remove(o);
	return gf_fail(e, "cannot write %s: %s", o->path, strerror(err));
}

void
outfile_abort(struct outfile *o)
{
	if (o->f != NULL)
		fclose(o->f);
	o->f = NULL;
	if (!o->direct)
		tmp_remove(o);
}
