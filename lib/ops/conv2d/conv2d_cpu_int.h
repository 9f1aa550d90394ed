/*
 * conv2d_cpu_int.h - what conv2d_cpu.c shares with its 16-bit lanes
 * paths in conv2d_lanes_cpu.c, and nothing else: the job that a call's
 * bands share, and each path's three entry points (whether it takes a
 * plan, its scratch bytes per thread, one band).
 */
#ifndef GF_CONV2D_CPU_INT_H
#define GF_CONV2D_CPU_INT_H

#include <stddef.h>
#include <stdint.h>

#include "conv2d.h"

/*
 * What the bands of one conv2d_cpu call share.  xmap[x'] is the column
 * read for padded column x' (x' - ax through the border rule), ymap[v]
 * the row for virtual row v - ay; -1 reads a zero.
 */
struct conv_job {
	const struct image *in;
	struct image *out;
	const struct conv2d_plan *pl;
	int *xmap, *ymap;
	int nbands;
	int sep8;               /* the 16-bit lanes paths */
	int lanes2d;
	int u32;                /* an I64 plan summed in uint32 (u32_takes) */
};

/* d[x] = s[x] for x < n, each sample (<= 255) narrowed to a byte. */
void conv2d_narrow_row8(const uint16_t *s, uint8_t *d, int n);

#if defined(__x86_64__) && defined(__GNUC__)
#define CONV_SEP8 1

/*
 * The separable path: a plan with non-negative row factors whose sum
 * times maxval is at most 65535, 8-bit samples, an AVX2 CPU.
 */
int conv2d_sep8_takes(const struct conv2d_plan *pl);
size_t conv2d_sep8_scratch(const struct conv2d_coef *c, int w);
void conv2d_sep8_band(const struct conv_job *j, void *scratch, int y0,
    int y1);

/*
 * The 2D path: a plan whose sum |taps| times maxval is at most 32767,
 * 8-bit samples, an AVX2 CPU.
 */
int conv2d_lanes2d_takes(const struct conv2d_plan *pl);
size_t conv2d_lanes2d_scratch(const struct conv2d_coef *c, int w);
void conv2d_lanes2d_band(const struct conv_job *j, void *scratch, int y0,
    int y1);
#endif

#endif
