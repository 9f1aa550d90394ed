/*
 * gf.c - the error record and image memory shared by every module.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gf.h"

int
gf_fail(struct gf_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (e != NULL)
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int
gf_nomem(struct gf_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (e != NULL) {
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		e->nomem = 1;
	}
	va_end(ap);
	return -1;
}

size_t
img_bytes(const struct image *img)
{
	return (size_t)img->width * (size_t)img->height * (size_t)img->channels *
	    (size_t)gf_sample_bytes(img->maxval);
}

size_t
img_over_maxval(const struct image *img)
{
	size_t n = (size_t)img->width * img->height * img->channels;

	if (img->maxval == 255 || img->maxval == 65535)
		return SIZE_MAX;
	for (size_t i = 0; i < n; i++)
		if (img_get(img, i) > img->maxval)
			return i;
	return SIZE_MAX;
}

int
img_alloc(struct image *img, struct gf_err *e)
{
	img->px = NULL;
	if (img->width < 1 || img->height < 1 || img->width > GF_MAX_DIM ||
	    img->height > GF_MAX_DIM)
		return gf_fail(e, "an image of %d x %d pixels is not supported "
		    "(each side must be 1 to %d)", img->width, img->height,
		    GF_MAX_DIM);
	img->px = malloc(img_bytes(img));
	if (img->px == NULL)
		return gf_nomem(e, "out of memory for a %d x %d image (%zu bytes)",
		    img->width, img->height, img_bytes(img));
	return 0;
}

int
img_alloc_like(struct image *img, const struct image *like, int channels,
    struct gf_err *e)
{
	img->width = like->width;
	img->height = like->height;
	img->channels = channels;
	img->maxval = like->maxval;
	return img_alloc(img, e);
}

void
img_free(struct image *img)
{
	free(img->px);
	img->px = NULL;
}

char *
gf_escape(char *dst, size_t n, const char *src)
{
	size_t len = strlen(src), k = 0;

	if (n == 0)
		return dst;
	while (len > 0 && src[len - 1] == '\n')
		len--;
	if (len == 0)
		src = "no reason given", len = strlen(src);
	for (size_t i = 0; i < len && k + 5 <= n; i++) {
		unsigned char c = (unsigned char)src[i];
		if (c >= 0x20 && c < 0x7f)
			dst[k++] = (char)c;
		else
			k += (size_t)snprintf(dst + k, n - k, "\\x%02x", c);
	}
	dst[k < n ? k : n - 1] = '\0';
	return dst;
}

double
gf_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void
gf_deadline(struct timespec *ts, long ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += ms % 1000 * 1000000L;
	ts->tv_sec += ts->tv_nsec / 1000000000L;
	ts->tv_nsec %= 1000000000L;
}

size_t
gf_pinned_budget(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	size_t n = pages > 0 && page > 0 ? (size_t)pages * (size_t)page / 8 : 0;

	return n < ((size_t)2 << 30) ? n : (size_t)2 << 30;
}
