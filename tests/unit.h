/*
 * unit.h - what the C unit tests share: one line per case on standard
 * output, "pass NAME" or "fail NAME: why", read by tests/run.sh, and the
 * count of failures that decides the exit status.
 */
#ifndef GF_UNIT_H
#define GF_UNIT_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gf.h"

static int nfail;

/* Prints case name as passed, or as failed with a printf-style reason. */
static void __attribute__((format(printf, 3, 4)))
result(const char *name, int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s", ok ? "pass" : "fail", name);
	if (!ok) {
		nfail++;
		printf(": ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	printf("\n");
}

/* An image of w x h x ch samples from vals (NULL: zeros); aborts without memory. */
static struct image __attribute__((unused))
image_of(int w, int h, int ch, unsigned maxval, const unsigned *vals)
{
	struct image img = {w, h, ch, maxval, NULL, 0};

	if (img_alloc(&img, NULL) < 0)
		abort();
	for (size_t i = 0; i < (size_t)w * h * ch; i++)
		img_set(&img, i, vals ? vals[i] : 0);
	return img;
}

/*
 * A reproducible pseudo-random w x h x ch image of maxval: samples 0 to
 * amp (at most maxval), from a linear congruential sequence of seed.
 */
static struct image __attribute__((unused))
image_noise(int w, int h, int ch, unsigned maxval, unsigned amp, uint32_t seed)
{
	struct image img = image_of(w, h, ch, maxval, NULL);

	for (size_t i = 0; i < (size_t)w * h * ch; i++) {
		seed = seed * 1664525u + 1013904223u;
		img_set(&img, i, (seed >> 8) % (amp + 1));
	}
	return img;
}

#endif
