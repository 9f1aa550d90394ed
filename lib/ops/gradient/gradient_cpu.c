/*
 * gradient_cpu.c - sobel's gradient (gx, gy) of a row of a gray image on
 * the CPU, through the border rule: the interior columns in a loop the
 * compiler vectorizes, the border columns one by one.  Shared by sobel's
 * rows (lib/ops/sobel/sobel_cpu.c) and edge's CPU path (lib/ops/edge/edge_cpu.c).
 */
#include "border.h"
#include "gradient.h"
#include "pool.h"

/* Sample x of a row of 8-bit (wide = 0) or 16-bit samples. */
static inline int
row_get(const void *row, int wide, int x)
{
	return wide ? ((const uint16_t *)row)[x] : ((const uint8_t *)row)[x];
}

void
sobel_rows_at(const struct image *gray, int y, int border, const void *zero,
    const void *r[3])
{
	size_t stride = (size_t)gray->width * gf_sample_bytes(gray->maxval);

	for (int k = 0; k < 3; k++) {
		int yi = gf_border_index(y + k - 1, gray->height, border);
		r[k] = yi < 0 ? zero : (const char *)gray->px + yi * stride;
	}
}

void
sobel_grad_at(const void *const r[3], int wide, int w, int x, int border, int *gx,
    int *gy)
{
	int v[3][3];

	for (int k = 0; k < 3; k++) {
		for (int j = 0; j < 3; j++) {
			int xi = gf_border_index(x + j - 1, w, border);
			v[k][j] = xi < 0 ? 0 : row_get(r[k], wide, xi);
		}
	}
	*gx = sobel_gx(v[0][0], v[0][2], v[1][0], v[1][2], v[2][0], v[2][2]);
	*gy = sobel_gy(v[0][0], v[0][1], v[0][2], v[2][0], v[2][1], v[2][2]);
}

/* Interior gradients, columns 1..n (a, b, c point at column 0 of the rows). */
GF_CLONES static void
grad_interior8(const uint8_t *a, const uint8_t *b, const uint8_t *c, int n,
    int *gx, int *gy)
{
	for (int x = 1; x <= n; x++) {
		gx[x] = sobel_gx(a[x - 1], a[x + 1], b[x - 1], b[x + 1], c[x - 1],
		    c[x + 1]);
		gy[x] = sobel_gy(a[x - 1], a[x], a[x + 1], c[x - 1], c[x], c[x + 1]);
	}
}

GF_CLONES static void
grad_interior16(const uint16_t *a, const uint16_t *b, const uint16_t *c,
    int n, int *gx, int *gy)
{
	for (int x = 1; x <= n; x++) {
		gx[x] = sobel_gx(a[x - 1], a[x + 1], b[x - 1], b[x + 1], c[x - 1],
		    c[x + 1]);
		gy[x] = sobel_gy(a[x - 1], a[x], a[x + 1], c[x - 1], c[x], c[x + 1]);
	}
}

void
sobel_grad_row(const void *const r[3], int wide, int w, int border, int *gx,
    int *gy)
{
	if (w >= 3 && wide)
		grad_interior16(r[0], r[1], r[2], w - 2, gx, gy);
	else if (w >= 3)
		grad_interior8(r[0], r[1], r[2], w - 2, gx, gy);
	/* The border columns: 0 and w - 1, or all of a narrow row. */
	for (int x = 0; x < w; x = x == 0 && w > 2 ? w - 1 : x + 1)
		sobel_grad_at(r, wide, w, x, border, &gx[x], &gy[x]);
}
