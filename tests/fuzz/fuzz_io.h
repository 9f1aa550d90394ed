/*
 * fuzz_io.h - what the image fuzz targets share: the caller's-memory
 * buffer (fuzz_get) and the input as a FILE of the kind a reader meets,
 * a regular file (a memfd: fstat and pread work), a memory stream, or a
 * pipe (no seeking: bytes read past an image come back through the
 * reader's pushback).  Included by fuzz_img.c, fuzz_tiff.c and
 * fuzz_webp.c after _GNU_SOURCE (fopencookie, memfd_create).
 */
#ifndef GF_FUZZ_IO_H
#define GF_FUZZ_IO_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The caller's-memory path: a fresh malloc per image, freed by the target. */
static inline void *
fuzz_get(void *arg, size_t bytes)
{
	void **slot = arg;

	*slot = malloc(bytes > 0 ? bytes : 1);
	return *slot;
}

/* The input as a pipe: its bytes in order, no seeking. */
struct fuzz_pipe {
	const uint8_t *p;
	size_t n;
};

static inline ssize_t
fuzz_pipe_read(void *cookie, char *buf, size_t size)
{
	struct fuzz_pipe *fp = cookie;

	if (size > fp->n)
		size = fp->n;
	memcpy(buf, fp->p, size);
	fp->p += size;
	fp->n -= size;
	return (ssize_t)size;
}

enum fuzz_kind { FUZZ_FILE, FUZZ_MEMORY, FUZZ_PIPE };

/* The size bytes at data as a FILE of the kind asked (fp: a pipe's state). */
static inline FILE *
fuzz_stream(struct fuzz_pipe *fp, const uint8_t *data, size_t size,
    enum fuzz_kind kind)
{
	static const cookie_io_functions_t pipe_io = {fuzz_pipe_read, NULL, NULL,
	    NULL};
	int fd;
	FILE *f;

	fp->p = data;
	fp->n = size;
	if (kind == FUZZ_MEMORY)
		return fmemopen((void *)data, size, "rb");
	if (kind == FUZZ_PIPE)
		return fopencookie(fp, "rb", pipe_io);
	if ((fd = memfd_create("fuzz", 0)) < 0)
		return NULL;
	if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0 ||
	    (f = fdopen(fd, "rb")) == NULL) {
		close(fd);
		return NULL;
	}
	return f;
}

#endif
