/*
 * sobel_op_cpu.c - the CPU reference of sobel's operators other than the
 * 3x3 Sobel (Prewitt, Scharr, Sobel 5x5 and 7x7: sobel_op_core.h), which
 * every GPU strategy of kernels/sobel_op.cu equals.  A row is made in
 * two separable passes: the columns of the 2r+1 rows around it are
 * smoothed and differenced down (vs, vd), then across, gx = d * vs and
 * gy = s * vd.  Both are exact integer sums, so they give the integers of
 * sobel_op_grad's window, and the sample comes from sobel_value_op, as
 * on the GPU.  Its output samples are p->maxval's (16 bits of an 8-bit
 * image for the signed gradients and --depth 16: sobel_wide_path), so
 * it is also the reference of those outputs for every operator, the 3x3
 * Sobel's included.  Rows are split into bands over threads (pool.h).
 */
#include <stdlib.h>

#include "border.h"
#include "pool.h"
#include "sobel.h"

/* Bands are at least this many rows, so that small images use one thread. */
#define SOBEL_OP_BAND_ROWS 16

/* What the bands of one sobel_op_cpu call share. */
struct op_job {
	const struct image *in;
	struct image *out;
	const struct sobel_params *p;
	struct sobel_taps t;
	int border;
	int nbands;
	const void *zero;       /* a row of zeros, for the zero border */
};

/* Sample x of a row of 8-bit (wide = 0) or 16-bit samples. */
static inline int
op_sample(const void *row, int wide, int x)
{
	return wide ? ((const uint16_t *)row)[x] : ((const uint8_t *)row)[x];
}

/*
 * The column sums of the rows r[0..2R] for columns -R .. w+R-1 into
 * vs[0 ..] (smoothing taps) and vd[0 ..] (derivative taps), through the
 * border rule in x.
 */
static void
op_columns(const void *const *r, int wide, int w, int border,
    const struct sobel_taps *t, int *vs, int *vd)
{
	const int R = t->r;

	for (int c = 0; c < w + 2 * R; c++) {
		int xi = gf_border_index(c - R, w, border), s = 0, d = 0;
		for (int j = 0; xi >= 0 && j <= 2 * R; j++) {
			int v = op_sample(r[j], wide, xi);
			s += t->s[j] * v;
			d += t->d[j] * v;
		}
		vs[c] = s;
		vd[c] = d;
	}
}

/* Row y of the output into o, with scratch for 2 (w + 2R) ints. */
static void
op_row(const struct op_job *j, int y, int *scratch, void *o)
{
	const struct image *in = j->in;
	const int R = j->t.r, w = in->width, wide = in->maxval > 255;
	const int wide_out = j->out->maxval > 255;
	const size_t stride = (size_t)w * gf_sample_bytes(in->maxval);
	int *vs = scratch, *vd = scratch + w + 2 * R;
	const void *r[2 * SOBEL_OP_MAX_R + 1];

	for (int k = 0; k <= 2 * R; k++) {
		int yi = gf_border_index(y + k - R, in->height, j->border);
		r[k] = yi < 0 ? j->zero : (const char *)in->px + yi * stride;
	}
	op_columns(r, wide, w, j->border, &j->t, vs, vd);
	for (int x = 0; x < w; x++) {
		int gx = 0, gy = 0;
		for (int i = 0; i <= 2 * R; i++) {
			gx += j->t.d[i] * vs[x + i];
			gy += j->t.s[i] * vd[x + i];
		}
		unsigned v = sobel_value_op(gx, gy, j->p);
		if (wide_out)
			((uint16_t *)o)[x] = (uint16_t)v;
		else
			((uint8_t *)o)[x] = (uint8_t)v;
	}
}

static int
op_band(void *arg, int b, void *scratch)
{
	const struct op_job *j = arg;
	int y0, y1;
	size_t stride = (size_t)j->in->width * gf_sample_bytes(j->out->maxval);

	pool_band_rows(j->in->height, j->nbands, b, &y0, &y1);
	for (int y = y0; y < y1; y++)
		op_row(j, y, scratch, (char *)j->out->px + y * stride);
	return 0;
}

int
sobel_op_cpu(const struct image *gray, struct image *out,
    const struct sobel_params *p, int border, int nthreads, struct gf_err *e)
{
	struct op_job j = {gray, out, p, sobel_taps_of(p->op), border, 0, NULL};
	size_t scratch = 2 * ((size_t)gray->width + 2 * SOBEL_OP_MAX_R) * sizeof(int);
	void *zero;
	int ret;

	*out = (struct image){gray->width, gray->height, 1, p->maxval, NULL, 0};
	if (img_alloc(out, e) < 0)
		return -1;
	zero = calloc((size_t)gray->width, 2);
	j.zero = zero;
	nthreads = pool_threads_for(nthreads, (double)gray->width * gray->height);
	j.nbands = pool_bands(gray->height, nthreads, SOBEL_OP_BAND_ROWS);
	ret = zero == NULL ? -1 : pool_run(nthreads, j.nbands, scratch, op_band, &j);
	free(zero);
	if (ret < 0) {
		img_free(out);
		return gf_nomem(e, "out of memory for sobel on a %d x %d image",
		    gray->width, gray->height);
	}
	return 0;
}
