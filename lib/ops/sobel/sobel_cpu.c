/*
 * sobel_cpu.c - sobel on the CPU: the reference that every GPU strategy
 * equals, made fast.  Rows are split into bands over threads (pool.h);
 * within a row the interior columns run through a branch-free loop that
 * the compiler vectorizes, and only the two border columns go through
 * the border rule.  Every value still comes from sobel_core.h; the
 * gradients of a row from lib/ops/gradient/gradient_cpu.c.
 */
#include <stdlib.h>
#include <string.h>

#include "border.h"
#include "gradient.h"
#include "pool.h"
#include "sobel.h"

/* Bands are at least this many rows, so that small images use one thread. */
#define SOBEL_BAND_ROWS 16

/*
 * The 8-bit interior rows, one function per mode: q's mode is a
 * constant in each, so sobel_value_f (the core every 8-bit path calls)
 * folds to a loop without branches.  Columns 1..n of o.
 */
#define SOBEL_ROW8(name, MODE) \
GF_CLONES static void \
name(const uint8_t *a, const uint8_t *b, const uint8_t *c, uint8_t *o, \
    int n, const struct sobel_params *p) \
{ \
	struct sobel_params q = *p; \
	q.mode = MODE; \
	for (int x = 1; x <= n; x++) { \
		int gx = sobel_gx(a[x - 1], a[x + 1], b[x - 1], b[x + 1], \
		    c[x - 1], c[x + 1]); \
		int gy = sobel_gy(a[x - 1], a[x], a[x + 1], c[x - 1], c[x], \
		    c[x + 1]); \
		o[x] = (uint8_t)(int)sobel_value_f((float)gx, (float)gy, &q); \
	} \
}

SOBEL_ROW8(row8_mag_l2, SOBEL_MAG_L2)
SOBEL_ROW8(row8_mag_l1, SOBEL_MAG_L1)
SOBEL_ROW8(row8_thresh_l2, SOBEL_THRESH_L2)
SOBEL_ROW8(row8_thresh_l1, SOBEL_THRESH_L1)

/* One row of a 16-bit image into o, through the gradient rows gx, gy. */
static void
sobel_row_wide(const void *const r[3], int w, const struct sobel_params *p,
    int border, int *gx, int *gy, uint16_t *o)
{
	sobel_grad_row(r, 1, w, border, gx, gy);
	for (int x = 0; x < w; x++)
		o[x] = (uint16_t)sobel_value(gx[x], gy[x], p);
}

/* One row of an 8-bit image into o: the interior by mode, then the border columns. */
static void
sobel_row8(const void *const r[3], int w, const struct sobel_params *p,
    int border, uint8_t *o)
{
	static void (*const rows[])(const uint8_t *, const uint8_t *,
	    const uint8_t *, uint8_t *, int, const struct sobel_params *) = {
		[SOBEL_MAG_L2] = row8_mag_l2, [SOBEL_MAG_L1] = row8_mag_l1,
		[SOBEL_THRESH_L2] = row8_thresh_l2, [SOBEL_THRESH_L1] = row8_thresh_l1
	};
	int gx, gy;

	if (w >= 3)
		rows[p->mode](r[0], r[1], r[2], o, w - 2, p);
	for (int x = 0; x < w; x = x == 0 && w > 2 ? w - 1 : x + 1) {
		sobel_grad_at(r, 0, w, x, border, &gx, &gy);
		o[x] = (uint8_t)(int)sobel_value_f((float)gx, (float)gy, p);
	}
}

void
sobel_row_cpu(const struct image *gray, int y, const struct sobel_params *p,
    int border, const void *zero, int *grad, void *o)
{
	const void *r[3];
	int w = gray->width;

	sobel_rows_at(gray, y, border, zero, r);
	if (gray->maxval > 255)
		sobel_row_wide(r, w, p, border, grad, grad + w, o);
	else
		sobel_row8(r, w, p, border, o);
}

/* What the bands of one sobel_cpu call share. */
struct sobel_job {
	const struct image *in;
	struct image *out;
	const struct sobel_params *p;
	int border;
	int nbands;
	const void *zero;       /* a row of zeros, for the zero border */
};

/* A band's scratch: a row of gradients for 16-bit images. */
static size_t
sobel_scratch(const struct image *in)
{
	return in->maxval > 255 ? 2 * (size_t)in->width * sizeof(int) : 0;
}

static int
sobel_band(void *arg, int b, void *scratch)
{
	const struct sobel_job *j = arg;
	int w = j->in->width, y0, y1, *grad = scratch;
	size_t stride = (size_t)w * gf_sample_bytes(j->in->maxval);

	pool_band_rows(j->in->height, j->nbands, b, &y0, &y1);
	for (int y = y0; y < y1; y++)
		sobel_row_cpu(j->in, y, j->p, j->border, j->zero, grad,
		    (char *)j->out->px + y * stride);
	return 0;
}

int
sobel_cpu(const struct image *gray, struct image *out,
    const struct sobel_params *p, int border, int nthreads, struct gf_err *e)
{
	struct sobel_job j = {gray, out, p, border, 0, NULL};
	void *zero;
	int ret;

	if (p->mode < SOBEL_MAG_L2 || p->mode > SOBEL_GRAD_Y)
		return gf_fail(e, "sobel mode %d is not one of 0 to %d", p->mode,
		    SOBEL_GRAD_Y);
	if (p->op < 0 || p->op >= SOBEL_NOPS)
		return gf_fail(e, "sobel operator %d is not one of 0 to %d", p->op,
		    SOBEL_NOPS - 1);
	if (p->mode == SOBEL_DIRECTION && gray->maxval < 255)
		return gf_fail(e, "the direction's bins 0 to 255 need a maxval of "
		    "255 or more; this image's is %u", gray->maxval);
	if (sobel_op_path(p) || sobel_wide_path(p, gray->maxval))
		return sobel_op_cpu(gray, out, p, border, nthreads, e);
	*out = (struct image){gray->width, gray->height, 1, p->maxval, NULL, 0};
	if (img_alloc(out, e) < 0)
		return -1;
	zero = calloc((size_t)gray->width, 2);
	j.zero = zero;
	nthreads = pool_threads_for(nthreads, (double)gray->width * gray->height);
	j.nbands = pool_bands(gray->height, nthreads, SOBEL_BAND_ROWS);
	ret = zero == NULL ? -1 : pool_run(nthreads, j.nbands,
	    sobel_scratch(gray), sobel_band, &j);
	free(zero);
	if (ret < 0) {
		img_free(out);
		return gf_nomem(e, "out of memory for sobel on a %d x %d image",
		    gray->width, gray->height);
	}
	return 0;
}
