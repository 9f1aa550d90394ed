/*
 * grad_max_cpu.c - the CPU reference of the largest-gradient channel
 * (grad_max.h): at each pixel the window of each colour channel through
 * the border rule, its gradients by sobel_op_grad, the pick by
 * grad_max_pick; then sobel's sample (sobel --colour max) or the
 * gradients kept for edge.  Plain per-pixel windows, the very sums every
 * GPU strategy makes; rows are split into bands over threads (pool.h).
 */
#include <stdlib.h>

#include "border.h"
#include "grad_max.h"
#include "pool.h"

/* Bands are at least this many rows, so that small images use one thread. */
#define MAX_BAND_ROWS 16

/* What the bands of one call share. */
struct max_job {
	const struct image *in;
	struct sobel_taps t;
	int border, l1, nbands;
	int *field;                     /* the field, or NULL */
	struct image *out;              /* sobel's output, or NULL */
	const struct sobel_params *p;
};

/* The chosen gx, gy of pixel (x, y). */
static void
max_at(const struct max_job *j, int x, int y, int *gx, int *gy)
{
	const struct image *in = j->in;
	const int R = j->t.r, ch = in->channels, n = img_colour_channels(in);
	int v[(2 * SOBEL_OP_MAX_R + 1) * (2 * SOBEL_OP_MAX_R + 1)];
	int cx[GRAD_MAX_PLANES], cy[GRAD_MAX_PLANES], k;

	for (int c = 0; c < n; c++) {
		for (int jy = 0; jy <= 2 * R; jy++) {
			int yi = gf_border_index(y + jy - R, in->height, j->border);
			for (int ix = 0; ix <= 2 * R; ix++) {
				int xi = gf_border_index(x + ix - R, in->width, j->border);
				v[jy * (2 * R + 1) + ix] = xi < 0 || yi < 0 ? 0 :
				    (int)img_get(in, ((size_t)yi * in->width + xi) * ch + c);
			}
		}
		sobel_op_grad(&j->t, R, v, 2 * R + 1, &cx[c], &cy[c]);
	}
	k = grad_max_pick(cx, cy, n, j->l1);
	*gx = cx[k];
	*gy = cy[k];
}

static int
max_band(void *arg, int b, void *scratch)
{
	const struct max_job *j = arg;
	const int w = j->in->width;
	int y0, y1, gx, gy;

	(void)scratch;
	pool_band_rows(j->in->height, j->nbands, b, &y0, &y1);
	for (int y = y0; y < y1; y++) {
		for (int x = 0; x < w; x++) {
			size_t i = (size_t)y * w + x;
			max_at(j, x, y, &gx, &gy);
			if (j->field != NULL) {
				j->field[2 * i] = gx;
				j->field[2 * i + 1] = gy;
			} else {
				img_set(j->out, i, sobel_value_op(gx, gy, j->p));
			}
		}
	}
	return 0;
}

static int
max_run(struct max_job *j, int nthreads, struct gf_err *e)
{
	j->nbands = pool_bands(j->in->height, nthreads, MAX_BAND_ROWS);
	if (pool_run(nthreads, j->nbands, 0, max_band, j) < 0)
		return gf_nomem(e, "out of memory for the gradients of a %d x %d "
		    "image", j->in->width, j->in->height);
	return 0;
}

int
grad_max_field_cpu(const struct image *in, int op, int border, int l1,
    int *field, int nthreads, struct gf_err *e)
{
	struct max_job j = {in, sobel_taps_of(op), border, l1, 0, field, NULL,
	    NULL};

	return max_run(&j, nthreads, e);
}

int
sobel_max_cpu(const struct image *in, struct image *out,
    const struct sobel_params *p, int border, int nthreads, struct gf_err *e)
{
	struct max_job j = {in, sobel_taps_of(p->op), border, grad_max_l1_of(p),
	    0, NULL, out, p};

	if (img_alloc_like(out, in, 1, e) < 0)
		return -1;
	if (max_run(&j, nthreads, e) < 0) {
		img_free(out);
		return -1;
	}
	return 0;
}

void
grad_max_hist(const int *field, size_t n, int l1, unsigned maxval,
    uint32_t *hist)
{
	for (unsigned v = 0; v <= maxval; v++)
		hist[v] = 0;
	for (size_t i = 0; i < n; i++)
		hist[grad_hist_value(field[2 * i], field[2 * i + 1], l1, maxval)]++;
}
