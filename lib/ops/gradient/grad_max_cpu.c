/*
 * grad_max_cpu.c - the CPU reference of the largest-gradient channel
 * (grad_max.h): each colour channel's gradients of a row in two exact
 * separable integer passes (as sobel_op_cpu.c's), the pick by
 * grad_max_pick; then sobel's sample (sobel --colour max) or the
 * gradients kept for edge.  Rows are split into bands over threads
 * (pool.h).
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

/* Sample i of a row of 8-bit (wide = 0) or 16-bit samples. */
static inline int
max_sample(const void *row, int wide, size_t i)
{
	return wide ? ((const uint16_t *)row)[i] : ((const uint8_t *)row)[i];
}

/*
 * The gradients of channel c of row y into gx, gy (width ints each), in
 * two separable passes over scratch vs, vd (width + 2R ints each): the
 * column sums of the 2R+1 rows around y by the smoothing and derivative
 * taps, through the border rule, then across, gx = d * vs and gy =
 * s * vd: the integers of sobel_op_grad's window, summed in another order.
 */
static void
max_channel_row(const struct max_job *j, const void *const *r, int c,
    int *vs, int *vd, int *gx, int *gy)
{
	const struct image *in = j->in;
	const int R = j->t.r, w = in->width, ch = in->channels;
	const int wide = in->maxval > 255;

	for (int k = 0; k < w + 2 * R; k++) {
		int xi = gf_border_index(k - R, w, j->border), sv = 0, dv = 0;
		for (int jy = 0; xi >= 0 && jy <= 2 * R; jy++) {
			int v = r[jy] == NULL ? 0 :
			    max_sample(r[jy], wide, (size_t)xi * ch + c);
			sv += j->t.s[jy] * v;
			dv += j->t.d[jy] * v;
		}
		vs[k] = sv;
		vd[k] = dv;
	}
	for (int x = 0; x < w; x++) {
		int sx = 0, sy = 0;
		for (int i = 0; i <= 2 * R; i++) {
			sx += j->t.d[i] * vs[x + i];
			sy += j->t.s[i] * vd[x + i];
		}
		gx[x] = sx;
		gy[x] = sy;
	}
}

/* A band's scratch for rows w wide: column sums and each channel's gradients. */
static size_t
max_scratch(int w)
{
	return (2 * ((size_t)w + 2 * SOBEL_OP_MAX_R) +
	    2 * GRAD_MAX_PLANES * (size_t)w) * sizeof(int);
}

static int
max_band(void *arg, int b, void *scratch)
{
	const struct max_job *j = arg;
	const struct image *in = j->in;
	const int w = in->width, R = j->t.r, n = img_colour_channels(in);
	const size_t stride = (size_t)w * in->channels *
	    gf_sample_bytes(in->maxval);
	int *vs = scratch, *vd = vs + w + 2 * SOBEL_OP_MAX_R;
	int *g = vd + w + 2 * SOBEL_OP_MAX_R;
	const void *r[2 * SOBEL_OP_MAX_R + 1];
	int y0, y1;

	pool_band_rows(in->height, j->nbands, b, &y0, &y1);
	for (int y = y0; y < y1; y++) {
		for (int k = 0; k <= 2 * R; k++) {
			int yi = gf_border_index(y + k - R, in->height, j->border);
			r[k] = yi < 0 ? NULL : (const char *)in->px + yi * stride;
		}
		for (int c = 0; c < n; c++)
			max_channel_row(j, r, c, vs, vd, g + 2 * c * w,
			    g + (2 * c + 1) * w);
		for (int x = 0; x < w; x++) {
			int cx[GRAD_MAX_PLANES], cy[GRAD_MAX_PLANES], k;
			size_t i = (size_t)y * w + x;
			for (int c = 0; c < n; c++) {
				cx[c] = g[2 * c * w + x];
				cy[c] = g[(2 * c + 1) * w + x];
			}
			k = grad_max_pick(cx, cy, n, j->l1);
			if (j->field != NULL) {
				j->field[2 * i] = cx[k];
				j->field[2 * i + 1] = cy[k];
			} else {
				img_set(j->out, i, sobel_value_op(cx[k], cy[k], j->p));
			}
		}
	}
	return 0;
}

static int
max_run(struct max_job *j, int nthreads, struct gf_err *e)
{
	nthreads = pool_threads_for(nthreads, (double)j->in->width *
	    j->in->height * j->in->channels);
	j->nbands = pool_bands(j->in->height, nthreads, MAX_BAND_ROWS);
	if (pool_run(nthreads, j->nbands, max_scratch(j->in->width), max_band,
	    j) < 0)
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

	if (p->mode == SOBEL_DIRECTION && in->maxval < 255)
		return gf_fail(e, "the direction's bins 0 to 255 need a maxval of "
		    "255 or more; this image's is %u", in->maxval);
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
