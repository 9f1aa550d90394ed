/*
 * batch.h - the outputs of a -o DIR batch: each input is written to
 * dir/<its base name without extension>.<extension of the output format>,
 * and a batch is refused before anything runs when two inputs would be
 * written to one output or an input would be replaced by its own output.
 * Shared by the engine's writer (lib/engine/engine_write.c) and the check in
 * cmd/, which also picks a shard of the inputs (--shard) here.
 */
#ifndef GF_BATCH_H
#define GF_BATCH_H

#include <stddef.h>
#include <stdio.h>

#include "gf.h"
#include "img.h"

/* Writes dir/<base of input>.ext into buf (size bytes); -1 if it does not fit. */
int batch_path(const char *dir, const char *input, const char *ext, char *buf,
    size_t size, struct gf_err *e);

/*
 * Checks a batch of n inputs into dir in format fmt (AUTO: PNM) before it
 * runs: dir must be a directory or not exist yet, no two inputs may share an
 * output (PGM, PPM and PAM count as one name, since which one is written
 * depends on the image), and no output, under any extension it may get,
 * may be an existing file that is an input, its own or another's
 * (compared by device and inode, symbolic links followed, so any
 * spelling of the path is caught).  -1 with e naming the directory, or
 * the two inputs, or the input and the output.  Standard input ("-") is
 * left to the run.
 */
int batch_check(const char *dir, char *const *inputs, int n,
    enum img_format fmt, struct gf_err *e);

/*
 * Makes directory dir and its missing parents, as mkdir -p does (mode
 * 0777 less the umask); nothing if it exists.  -1 with e naming the
 * directory that could not be made and why.
 */
int batch_mkdir(const char *dir, struct gf_err *e);

/*
 * Shard k of of (--shard K/N): the inputs whose position, when the n
 * inputs are sorted by the bytes of their names as given (strcmp, so
 * "b" and "./b" are different names; equal names keep their order), is
 * k modulo of.  They go into out (room for n) in the order given, so
 * that the shards 0 .. of-1 of one list are disjoint and cover it
 * whatever order each host is given the names in; out may be inputs
 * itself.  Returns their count,
 * or -1 with e when out of memory.
 */
int batch_shard(char *const *inputs, int n, int k, int of, char **out,
    struct gf_err *e);

/*
 * The names of a batch's list (--files-from): each ends at sep ('\n',
 * or '\0' for -0) or at the end of f; empty names are skipped, the
 * bytes of the others kept as they are (a '\r' or a blank included).
 * *names gets a malloc'd array of *n malloc'd strings (batch_list_free
 * frees it).  -1 with e naming what, when f cannot be read or holds a
 * name of more than PATH_MAX bytes or, with '\n', a NUL.
 */
int batch_read_list(FILE *f, const char *what, int sep, char ***names,
    int *n, struct gf_err *e);
void batch_list_free(char **names, int n);

#endif
