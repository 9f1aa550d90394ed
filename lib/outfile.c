/*
 * outfile.c - temporary file beside the target, renamed when complete.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

int
outfile_open(struct outfile *o, const char *path, struct gf_err *e)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash == NULL ? 0 : (int)(slash - path) + 1, fd;
	struct stat st;
	mode_t mask;

	o->f = NULL;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return gf_fail(e, "cannot write %s: it is a directory", path);
	if (snprintf(o->path, sizeof(o->path), "%s", path) >= (int)sizeof(o->path) ||
	    snprintf(o->tmp, sizeof(o->tmp), "%.*s.%s.XXXXXX", dirlen, path,
	    path + dirlen) >= (int)sizeof(o->tmp))
		return gf_fail(e, "output path is too long: %s", path);
	fd = mkstemp(o->tmp);
	if (fd < 0)
		return gf_fail(e, "cannot create %s: %s", path, strerror(errno));
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) < 0 || (o->f = fdopen(fd, "wb")) == NULL) {
		int err = errno;
		close(fd);
		unlink(o->tmp);
		return gf_fail(e, "cannot create %s: %s", path, strerror(err));
	}
	return 0;
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
	if (!bad && rename(o->tmp, o->path) == 0)
		return 0;
	if (!bad)
		err = errno;
	unlink(o->tmp);
	return gf_fail(e, "cannot write %s: %s", o->path, strerror(err));
}

void
outfile_abort(struct outfile *o)
{
	if (o->f != NULL)
		fclose(o->f);
	o->f = NULL;
	unlink(o->tmp);
}
