/*
 * outfile.h - outputs that appear whole or not at all.  Writing goes to a
 * temporary file beside the target (same directory, so the final rename
 * is atomic); commit renames it over the target, abort removes it, and an
 * existing target is untouched until the commit.
 */
#ifndef GF_OUTFILE_H
#define GF_OUTFILE_H

#include <limits.h>
#include <stdio.h>

#include "gf.h"

struct outfile {
	FILE *f;
	char path[PATH_MAX];
	char tmp[PATH_MAX];
};

/* Creates the temporary file for path; -1 if the directory is not writable. */
int outfile_open(struct outfile *o, const char *path, struct gf_err *e);

/* Flushes, closes and renames over the target; on failure removes the temporary. */
int outfile_commit(struct outfile *o, struct gf_err *e);

/* Closes and removes the temporary file; the target is left as it was. */
void outfile_abort(struct outfile *o);

#endif
