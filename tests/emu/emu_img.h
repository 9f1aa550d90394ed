/*
 * emu_img.h - what the emulator's checks share on the host side: a
 * device image in host memory, and an image loaded and made gray.
 */
#ifndef GF_EMU_IMG_H
#define GF_EMU_IMG_H

#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" {
#include "gpu.h"
#include "img.h"
}

/* A device image in host memory: rows pitched to 256 bytes. */
static inline struct gpu_image
dev_image(int w, int h, unsigned maxval)
{
	struct gpu_image d;
	d.pitch = ((size_t)w * gf_sample_bytes(maxval) + 255) / 256 * 256;
	d.width = w;
	d.height = h;
	d.maxval = maxval;
	d.px = aligned_alloc(256, d.pitch * h);
	memset(d.px, 0x5a, d.pitch * h);
	return d;
}

/* path as one gray image in im; -1, with a message on stderr, if it cannot be read. */
static inline int
emu_load_gray(const char *prog, const char *path, struct image *im)
{
	struct image gray = {0};
	struct gf_err e;

	if (img_load(path, im, &e) < 0) {
		fprintf(stderr, "%s: %s\n", prog, e.msg);
		return -1;
	}
	if (im->channels != 1) {
		if (img_to_gray(im, &gray, &e) < 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, path, e.msg);
			img_free(im);
			return -1;
		}
		img_free(im);
		*im = gray;
	}
	return 0;
}

#endif
