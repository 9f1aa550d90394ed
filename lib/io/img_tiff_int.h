/*
 * img_tiff_int.h - a TIFF in memory for libtiff's client procedures
 * (lib/io/img_tiff_mem.c), shared by the TIFF reader and writer
 * (lib/io/img_tiff.c); and floating-point samples made 16-bit for the
 * reader (lib/io/img_tiff_float.c).
 */
#ifndef GF_IMG_TIFF_INT_H
#define GF_IMG_TIFF_INT_H

#include <stdint.h>
#include <sys/types.h>

#include "img_tiff_lib.h"

/*
 * A TIFF in memory, for libtiff's client procedures: mapped or read
 * whole (reading), or growing as libtiff writes (writable).
 */
struct tiff_mem {
	unsigned char *p;
	size_t len, cap;        /* cap: allocated (writable) */
	uint64_t pos;
	int writable;
	/*
	 * Reading a regular file: from fd, at offset start, not from p (pread,
	 * so that a file that shrinks meanwhile only reads short).
	 */
	int file, fd;
	off_t start;
	uint64_t high;          /* reading memory: the furthest byte read */
};

/*
 * libtiff's client procedures over a struct tiff_mem (the handle): read
 * from memory or, for a regular file, by pread at m->start (m->high keeps
 * the furthest byte read); write into memory that grows; seek; size; map
 * memory read whole; close does nothing.  img_tiff_mem_free frees what
 * the reading or writing held.
 */
tmsize_t img_tiff_mem_read(thandle_t h, void *buf, tmsize_t n);
tmsize_t img_tiff_mem_write(thandle_t h, void *buf, tmsize_t n);
toff_t img_tiff_mem_seek(thandle_t h, toff_t off, int whence);
int img_tiff_mem_close(thandle_t h);
toff_t img_tiff_mem_size(thandle_t h);
int img_tiff_mem_map(thandle_t h, void **base, toff_t *size);
void img_tiff_mem_unmap(thandle_t h, void *base, toff_t size);
void img_tiff_mem_free(struct tiff_mem *m);

struct image;

/*
 * Puts n floating-point samples of bits (16, 32 or 64) each, IEEE 754 in
 * the host's byte order (as libtiff decodes them), at src into img
 * (maxval 65535) from sample k: [0, 1] scaled to [0, 65535] and rounded
 * half up; below 0 and NaN 0, above 1 65535.
 */
void img_tiff_float_put(struct image *img, size_t k, const unsigned char *src,
    size_t n, unsigned bits);

#endif
