/*
 * gradient.h - sobel's gradient of a gray image's rows on the CPU
 * (lib/ops/gradient/gradient_cpu.c), the step that sobel's rows and edge's CPU path
 * share.  The values come from sobel_core.h.
 */
#ifndef GF_GRADIENT_H
#define GF_GRADIENT_H

#include "gf.h"
#include "sobel_core.h"

/*
 * Rows y-1, y, y+1 of a gray image through the border rule, for the CPU
 * paths: r[k] points at a row of gray, or at zero (a row of zeros) where
 * the zero border reads outside.
 */
void sobel_rows_at(const struct image *gray, int y, int border,
    const void *zero, const void *r[3]);

/* gx, gy of column x (any x) from the rows r, through the border rule. */
void sobel_grad_at(const void *const r[3], int wide, int w, int x, int border,
    int *gx, int *gy);

/*
 * gx and gy of every column 0..w-1 of the middle row of r (samples
 * 16-bit when wide, else 8-bit), the border rule applied to columns.
 */
void sobel_grad_row(const void *const r[3], int wide, int w, int border,
    int *gx, int *gy);

#endif
