/*
 * outfile.h - outputs that appear whole or not at all.  Writing goes to a
 * temporary file beside the target (same directory, so the final rename
 * is atomic); commit renames it over the target, abort removes it, and an
 * existing target is untouched until the commit.
 *
 * What is replaced, and what is written in place:
 * - a new name, or an existing regular file: temporary file, then rename;
 *   a replaced file keeps its permission bits;
 * - a symbolic link to a regular file: the link itself is replaced by a
 *   regular file (with the mode of the file it pointed to), never written
 *   through;
 * - anything else that exists (a character or block device, a FIFO, a
 *   socket) and a link to one of the process's standard descriptors (as
 *   /dev/stdout is): written in place, since a rename would replace the
 *   node and not reach its reader.  Such an output cannot be withdrawn on
 *   failure.
 *
 * Temporary files of open outputs are listed in a lock-free registry, which
 * grows with the outputs open at once (every one is listed), so that a
 * signal handler (installed by cmd/, on any thread) can remove
 * them with outfile_remove_temps() before the process dies.
 */
#ifndef GF_OUTFILE_H
#define GF_OUTFILE_H

#include <limits.h>
#include <stdio.h>

#include "gf.h"

struct outfile {
	FILE *f;
	int direct;             /* written in place: no temporary file */
	int slot;               /* registry slot of tmp, -1 if none */
	char path[PATH_MAX];
	char tmp[PATH_MAX];     /* "" when direct */
};

/*
 * Opens an output for path: a temporary file beside it, or path itself
 * when it is a device, FIFO or socket.  -1 (e set) if the directory is not
 * writable or path is a directory.
 */
int outfile_open(struct outfile *o, const char *path, struct gf_err *e);

/*
 * Flushes and closes; renames the temporary over the target.  On failure
 * removes the temporary (the target is left as it was) and returns -1.
 */
int outfile_commit(struct outfile *o, struct gf_err *e);

/* Closes and removes the temporary file; the target is left as it was. */
void outfile_abort(struct outfile *o);

/*
 * Removes the temporary file of every output still open.  Async-signal-
 * safe and callable from any thread: meant for a handler of SIGINT,
 * SIGTERM and the like, after which the process must end (the outputs
 * are no longer usable).
 */
void outfile_remove_temps(void);

#endif
