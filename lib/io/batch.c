/*
 * batch.c - output names of -o DIR batches, the check for collisions,
 * and the shards of a batch.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "batch.h"

int
batch_path(const char *dir, const char *input, const char *ext, char *buf,
    size_t size, struct gf_err *e)
{
	const char *base = strrchr(input, '/'), *dot, *sep;
	int blen, dlen = (int)strlen(dir);

	while (dlen > 1 && dir[dlen - 1] == '/')
		dlen--;         /* "out/" and "out" name the same outputs */
	base = base == NULL ? input : base + 1;
	dot = strrchr(base, '.');
	blen = dot == NULL || dot == base ? (int)strlen(base) : (int)(dot - base);
	sep = dlen > 0 && dir[dlen - 1] == '/' ? "" : "/";
	if (snprintf(buf, size, "%.*s%s%.*s.%s", dlen, dir, sep, blen, base,
	    ext) >= (int)size)
		return gf_fail(e, "output path for %s in %s is too long", input, dir);
	return 0;
}

/*
 * An input's output path (with the first extension of its format) and
 * place; or, for a shard, the input's own name and place.
 */
struct batch_out {
	char *path;
	int index;
};

static int
out_cmp(const void *a, const void *b)
{
	const struct batch_out *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c != 0 ? c : x->index - y->index;
}

/* dir is a directory, or does not exist yet (batch_mkdir makes it). */
static int
check_dir(const char *dir, struct gf_err *e)
{
	struct stat st;

	if (stat(dir, &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	if (stat(dir, &st) != 0)
		return gf_fail(e, "-o %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return gf_fail(e, "-o %s: it is not a directory", dir);
	return 0;
}

/* Makes directory path unless it is one already (mode 0777 less the umask). */
static int
make_one_dir(const char *dir, const char *path, struct gf_err *e)
{
	struct stat st;

	if (mkdir(path, 0777) == 0)
		return 0;
	if (errno == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	if (errno == EEXIST)
		errno = ENOTDIR;
	return gf_fail(e, "-o %s: cannot create the directory %s: %s", dir, path,
	    strerror(errno));
}

int
batch_mkdir(const char *dir, struct gf_err *e)
{
	char path[PATH_MAX];
	size_t n = strlen(dir);

	if (n >= sizeof(path))
		return gf_fail(e, "-o %s: the path is too long", dir);
	memcpy(path, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		if (path[i - 1] == '/')
			continue;       /* "a//b", or a trailing slash */
		path[i] = '\0';
		if (make_one_dir(dir, path, e) < 0)
			return -1;
		path[i] = dir[i];
	}
	return 0;
}

/* An input's file: device and inode, and its place among the inputs. */
struct batch_file {
	dev_t dev;
	ino_t ino;
	int index;
};

static int
file_cmp(const void *a, const void *b)
{
	const struct batch_file *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/*
 * The files of the n inputs (symbolic links followed) into files,
 * sorted; the count.  An input that cannot be stat'ed (missing, or
 * standard input) is left to the run, which reports it.
 */
static int
input_files(char *const *inputs, int n, struct batch_file *files)
{
	struct stat st;
	int m = 0;

	for (int i = 0; i < n; i++)
		if (strcmp(inputs[i], "-") != 0 && stat(inputs[i], &st) == 0)
			files[m++] = (struct batch_file){st.st_dev, st.st_ino, i};
	qsort(files, (size_t)m, sizeof(*files), file_cmp);
	return m;
}

/*
 * None of input i's possible outputs (one per extension of exts) is an
 * existing file that is also an input, its own or another's, however
 * its path is spelt: hard links, symbolic links, a -o that is a link to
 * the inputs' directory.
 */
static int
check_self(const char *dir, char *const *inputs, int i,
    const struct batch_file *files, int nfiles, const char *const *exts,
    struct gf_err *e)
{
	char path[PATH_MAX];
	struct stat out;
	const struct batch_file *hit;

	for (int k = 0; exts[k] != NULL; k++) {
		if (batch_path(dir, inputs[i], exts[k], path, sizeof(path), e) < 0)
			return -1;
		if (stat(path, &out) != 0)
			continue;
		hit = bsearch(&(struct batch_file){out.st_dev, out.st_ino, 0}, files,
		    (size_t)nfiles, sizeof(*files), file_cmp);
		if (hit != NULL && hit->index == i)
			return gf_fail(e, "-o %s: %s would be replaced by its own "
			    "output %s", dir, inputs[i], path);
		if (hit != NULL)
			return gf_fail(e, "-o %s: %s would be replaced by the output "
			    "of %s, %s", dir, inputs[hit->index], inputs[i], path);
	}
	return 0;
}

/* No two of the n outputs in outs have one path; outs is sorted here. */
static int
check_pairs(const char *dir, struct batch_out *outs, int n, char *const *inputs,
    struct gf_err *e)
{
	qsort(outs, (size_t)n, sizeof(*outs), out_cmp);
	for (int i = 1; i < n; i++)
		if (strcmp(outs[i - 1].path, outs[i].path) == 0)
			return gf_fail(e, "-o %s: %s and %s would both be written to "
			    "%s", dir, inputs[outs[i - 1].index],
			    inputs[outs[i].index], outs[i].path);
	return 0;
}

int
batch_check(const char *dir, char *const *inputs, int n, enum img_format fmt,
    struct gf_err *e)
{
	/* Every extension an input's output may get in fmt (img_format_ext). */
	const char *const *exts = img_format_writes(fmt);
	struct batch_out *outs = calloc((size_t)n + 1, sizeof(*outs));
	struct batch_file *files = calloc((size_t)n + 1, sizeof(*files));
	char path[PATH_MAX];
	int m = 0, nfiles, ret = -1;

	if (outs == NULL || files == NULL) {
		gf_nomem(e, "out of memory for %d input names", n);
		goto done;
	}
	if (check_dir(dir, e) < 0)
		goto done;
	nfiles = input_files(inputs, n, files);
	for (int i = 0; i < n; i++) {
		if (strcmp(inputs[i], "-") == 0)
			continue;
		if (check_self(dir, inputs, i, files, nfiles, exts, e) < 0 ||
		    batch_path(dir, inputs[i], exts[0], path, sizeof(path), e) < 0)
			goto done;
		if ((outs[m].path = strdup(path)) == NULL) {
			gf_nomem(e, "out of memory for %d input names", n);
			goto done;
		}
		outs[m++].index = i;
	}
	ret = check_pairs(dir, outs, m, inputs, e);
done:
	for (int i = 0; i < m; i++)
		free(outs[i].path);
	free(outs);
	free(files);
	return ret;
}

int
batch_shard(char *const *inputs, int n, int k, int of, char **out,
    struct gf_err *e)
{
	struct batch_out *v = calloc((size_t)(n > 0 ? n : 1), sizeof(*v));
	char *keep = calloc((size_t)(n > 0 ? n : 1), 1);
	int m = 0;

	if (v == NULL || keep == NULL) {
		free(v);
		free(keep);
		return gf_nomem(e, "out of memory");
	}
	for (int i = 0; i < n; i++)
		v[i] = (struct batch_out){inputs[i], i};
	qsort(v, (size_t)n, sizeof(*v), out_cmp);       /* by name, then place */
	for (int i = k; i < n; i += of)
		keep[v[i].index] = 1;
	for (int i = 0; i < n; i++)
		if (keep[i])
			out[m++] = inputs[i];
	free(v);
	free(keep);
	return m;
}

/* Appends name (len bytes) to *names, growing it; -1 when out of memory. */
static int
list_add(char ***names, int *n, int *cap, const char *name, size_t len)
{
	char *copy;

	if (*n == *cap) {
		int ncap = *cap == 0 ? 256 : *cap * 2;
		char **grown = ncap > *cap ? realloc(*names, (size_t)ncap *
		    sizeof(**names)) : NULL;
		if (grown == NULL)
			return -1;
		*names = grown;
		*cap = ncap;
	}
	if ((copy = malloc(len + 1)) == NULL)
		return -1;
	memcpy(copy, name, len);
	copy[len] = '\0';
	(*names)[(*n)++] = copy;
	return 0;
}

int
batch_read_list(FILE *f, const char *what, int sep, char ***names,
    int *n, struct gf_err *e)
{
	char buf[PATH_MAX + 1];
	size_t len = 0;
	int c, cap = 0, line = 1;

	*names = NULL;
	*n = 0;
	while ((c = getc(f)) != EOF || len > 0) {
		if (c == EOF || c == sep) {
			if (len > 0 && list_add(names, n, &cap, buf, len) < 0)
				goto nomem;
			len = 0;
			line++;
			if (c == EOF)
				break;
			continue;
		}
		if (c == '\0')
			goto fail_nul;
		if (len == PATH_MAX) {
			batch_list_free(*names, *n);
			return gf_fail(e, "--files-from %s: name %d is longer than %d "
			    "bytes", what, line, PATH_MAX);
		}
		buf[len++] = (char)c;
	}
	if (ferror(f)) {
		batch_list_free(*names, *n);
		return gf_fail(e, "--files-from %s: cannot read it: %s", what,
		    strerror(errno));
	}
	return 0;
fail_nul:
	batch_list_free(*names, *n);
	return gf_fail(e, "--files-from %s: name %d holds a NUL byte; a list "
	    "of names ending in NUL (find -print0) needs -0", what, line);
nomem:
	batch_list_free(*names, *n);
	return gf_nomem(e, "--files-from %s: out of memory after %d names", what,
	    *n);
}

void
batch_list_free(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
