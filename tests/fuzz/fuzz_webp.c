/*
 * fuzz_webp - libFuzzer target for the WebP reader (lib/io/img_webp.c): the
 * reading of a RIFF chunk by chunk up to its length, the weighing of its
 * frames and canvas against their bytes (issue 45), libwebp's decoders
 * and demuxer, and what follows a WebP in a stream.  The bytes, with
 * "RIFF" and "WEBP" put over bytes 0-3 and 8-11 (and, for a size of 0 or
 * 1 modulo 4, the RIFF length made the input's, so that mutations reach
 * the chunks rather than the length), are a stream read with
 * img_read_next until its end or an error, pixel limit 2^20.  By size
 * modulo 3 the stream is a regular file (memfd), a memory stream
 * (fmemopen) or a pipe (a FILE that cannot seek); an odd-sized input
 * decodes into memory of the caller's.  Every input is read twice, and
 * both readings must give the same images and the same end, or the
 * target aborts.  Built by `make fuzz` like fuzz_img.
 */
#define _GNU_SOURCE             /* fopencookie, memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_io.h"
#include "img.h"

/* What one reading gave: its images (a hash) and its end. */
struct fuzz_pass {
	uint64_t hash;
	int images, ret;
	char msg[sizeof(((struct gf_err *)0)->msg)];
};

static void
fuzz_pass_add(struct fuzz_pass *p, const struct image *img)
{
	const unsigned char *b = img->px;
	uint64_t h = p->hash ^ (uint64_t)img->width << 40 ^
	    (uint64_t)img->height << 16 ^ (uint64_t)img->channels << 8;

	for (size_t i = 0, n = img_bytes(img); i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	p->hash = h * 1099511628211ULL;
	p->images++;
}

/* Reads the stream once into p. */
static void
fuzz_read(const uint8_t *data, size_t size, struct fuzz_pass *p)
{
	struct fuzz_pipe fp;
	struct img_reader *r;
	struct img_buffer b;
	struct image img;
	struct gf_err e = {0};
	void *mine = NULL;
	FILE *f = fuzz_stream(&fp, data, size, (enum fuzz_kind)(size % 3));
	int got = -1;

	if (f == NULL)
		abort();
	if (img_reader_open(&r, f, "fuzz", &e) == 0) {
		img_reader_set_max_pixels(r, 1 << 20);
		b.get = fuzz_get;
		b.arg = &mine;
		if (size % 2)
			img_reader_set_buffer(r, &b);
		while ((got = img_read_next(r, &img, &e)) > 0) {
			fuzz_pass_add(p, &img);
			if (size % 2)
				free(mine), mine = NULL;
			else
				img_free(&img);
		}
		free(mine);     /* a failed read leaves the caller's memory to it */
		img_reader_close(r);
	}
	p->ret = got;
	snprintf(p->msg, sizeof(p->msg), "%s", got < 0 ? e.msg : "");
	fclose(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_pass a = {0}, b = {0};
	uint8_t *copy;
	uint32_t n = (uint32_t)size - 8;

	if (size < 12 || (copy = malloc(size)) == NULL)
		return 0;
	memcpy(copy, data, size);
	memcpy(copy, "RIFF", 4);
	memcpy(copy + 8, "WEBP", 4);
	if (size % 4 < 2) {
		copy[4] = n & 0xff, copy[5] = n >> 8 & 0xff;
		copy[6] = n >> 16 & 0xff, copy[7] = n >> 24 & 0xff;
	}
	fuzz_read(copy, size, &a);
	fuzz_read(copy, size, &b);
	if (a.images != b.images || a.hash != b.hash || a.ret != b.ret ||
	    strcmp(a.msg, b.msg) != 0) {
		fprintf(stderr, "fuzz_webp: one reading gave %d images and %d (%s), "
		    "the next %d and %d (%s)\n", a.images, a.ret, a.msg, b.images,
		    b.ret, b.msg);
		abort();
	}
	free(copy);
	return 0;
}
