/*
 * img_tiff_mem.c - libtiff's client procedures over a TIFF in memory, or
 * a regular file read in place by pread (img_tiff_int.h): apart from
 * img_tiff.c so that the reader and writer read as what they do with
 * the TIFF, not how its bytes move.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "img_int.h"
#include "img_tiff_int.h"

tmsize_t
img_tiff_mem_read(thandle_t h, void *buf, tmsize_t n)
{
	struct tiff_mem *m = h;
	size_t k;

	if (n < 0 || m->pos >= m->len)
		return n < 0 ? -1 : 0;
	k = m->len - m->pos < (uint64_t)n ? m->len - (size_t)m->pos : (size_t)n;
	if (m->file) {
		ssize_t got = img_pread(m->fd, buf, k, m->start + (off_t)m->pos);
		if (got < 0)
			return -1;
		k = (size_t)got;
	} else {
		memcpy(buf, m->p + m->pos, k);
	}
	m->pos += k;
	if (m->pos > m->high)
		m->high = m->pos;
	return (tmsize_t)k;
}

/* Grows a writable buffer to hold end bytes, zeroing what a seek skipped. */
static int
img_tiff_mem_grow(struct tiff_mem *m, uint64_t end)
{
	size_t cap = m->cap > 0 ? m->cap : 1 << 16;
	unsigned char *p;

	if (end > SIZE_MAX / 2)
		return -1;
	while (cap < end)
		cap *= 2;
	if (cap != m->cap) {
		if ((p = realloc(m->p, cap)) == NULL)
			return -1;
		m->p = p;
		m->cap = cap;
	}
	if (end > m->len) {
		memset(m->p + m->len, 0, (size_t)end - m->len);
		m->len = (size_t)end;
	}
	return 0;
}

tmsize_t
img_tiff_mem_write(thandle_t h, void *buf, tmsize_t n)
{
	struct tiff_mem *m = h;

	if (!m->writable || n < 0 || img_tiff_mem_grow(m, m->pos + (uint64_t)n) < 0)
		return -1;
	memcpy(m->p + m->pos, buf, (size_t)n);
	m->pos += (uint64_t)n;
	return n;
}

toff_t
img_tiff_mem_seek(thandle_t h, toff_t off, int whence)
{
	struct tiff_mem *m = h;
	uint64_t from = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? m->pos :
	    m->len;

	/* off is unsigned; a negative relative seek wraps and is caught here. */
	if (whence != SEEK_SET && (int64_t)off < 0 && (uint64_t)-(int64_t)off > from)
		return (toff_t)-1;
	m->pos = from + off;
	return m->pos;
}

int
img_tiff_mem_close(thandle_t h)
{
	(void)h;
	return 0;
}

toff_t
img_tiff_mem_size(thandle_t h)
{
	return ((struct tiff_mem *)h)->len;
}

/*
 * Nothing is mapped: a stream read whole is read through img_tiff_mem_read,
 * which keeps the furthest byte libtiff used (where it ends, tiff_end).
 */
int
img_tiff_mem_map(thandle_t h, void **base, toff_t *size)
{
	(void)h;
	(void)base;
	(void)size;
	return 0;
}

void
img_tiff_mem_unmap(thandle_t h, void *base, toff_t size)
{
	(void)h;
	(void)base;
	(void)size;
}

void
img_tiff_mem_free(struct tiff_mem *m)
{
	free(m->p);            /* a file's descriptor is the reader's */
	memset(m, 0, sizeof(*m));
}

