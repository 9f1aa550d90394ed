/*
 * conv2d_cpu.c - conv2d on the CPU: the reference that every GPU path
 * equals, made fast.  Rows are split into bands over threads (pool.h).
 * Each band keeps a ring of kh source rows, each widened once to int32
 * (or float) and padded with kw - 1 border samples, so that the loops
 * over a row have no border branches: an output row is kh * kw passes
 * acc[x] = mac(acc[x], tap, row[x + j]) over the whole row, which the
 * compiler vectorizes.  Each pixel still sees the same conv2d_core.h
 * operations in the same (i, j) order as every GPU path, so the floats
 * agree bit for bit.  The separable path keeps a ring of kh row-pass
 * results instead and runs the column pass the same way.  8-bit integer
 * kernels whose sums fit 16 bits take the AVX2 paths of
 * conv2d_lanes_cpu.c instead, where the CPU has AVX2.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d_cpu_int.h"
#include "pool.h"

/*
 * One band's rows: pad holds a padded source row (rw = w + kw - 1
 * values), ring kh rows of rw 4-byte values (int32 or float), acc the
 * accumulators of an output row (int32, int64 or float), res its
 * finished samples.
 */
struct conv_rows {
	int32_t *pad;
	char *ring;
	void *acc;
	uint16_t *res;
	size_t row_bytes;       /* of a ring row */
};

/* Columns per block of an output row: acc and kh source rows fit in L1. */
#define CONV_BLOCK 512

/* ---- row loops, each a whole row through the conv2d_core.h steps */

GF_CLONES static void
mac_row_i32(int32_t *acc, const int32_t *src, int32_t tap, int n)
{
	for (int x = 0; x < n; x++)
		acc[x] = conv2d_mac_i32(acc[x], tap, src[x]);
}

GF_CLONES static void
mac_row_i64(int64_t *acc, const int32_t *src, int32_t tap, int n)
{
	for (int x = 0; x < n; x++)
		acc[x] = conv2d_mac_i64(acc[x], tap, src[x]);
}

GF_CLONES static void
mac_row_u32(uint32_t *acc, const int32_t *src, uint32_t tap, int n)
{
	for (int x = 0; x < n; x++)
		acc[x] += tap * (uint32_t)src[x];
}

GF_CLONES static void
mac_row_f32(float *acc, const float *src, float tap, int n)
{
	for (int x = 0; x < n; x++)
		acc[x] = conv2d_mac_f32(acc[x], tap, src[x]);
}

static void
finish_row_i64(const int64_t *acc, uint16_t *res, int n,
    const struct conv2d_coef *c)
{
	for (int x = 0; x < n; x++)
		res[x] = (uint16_t)conv2d_finish_i64(acc[x], c);
}

/* finish_row_i64 of sums kept in uint32 (conv_job's u32). */
static void
finish_row_u32(const uint32_t *acc, uint16_t *res, int n,
    const struct conv2d_coef *c)
{
	for (int x = 0; x < n; x++)
		res[x] = (uint16_t)conv2d_finish_i64((int64_t)acc[x], c);
}

GF_CLONES static void
finish_row_f32(const float *acc, uint16_t *res, int n,
    const struct conv2d_coef *c)
{
	struct conv2d_coef k = *c;

	for (int x = 0; x < n; x++)
		res[x] = (uint16_t)conv2d_finish_f32(acc[x], &k);
}

GF_CLONES static void
widen_row8(const uint8_t *s, int32_t *d, int n)
{
	for (int x = 0; x < n; x++)
		d[x] = s[x];
}

GF_CLONES static void
to_float_row(const int32_t *s, float *d, int n)
{
	for (int x = 0; x < n; x++)
		d[x] = (float)s[x];
}



/* ---- one band */

/* Bytes of a ring row, 64-byte aligned, for an image w wide. */
static size_t
ring_row_bytes(const struct conv2d_coef *c, int w)
{
	return (((size_t)w + c->kw - 1) * 4 + 63) / 64 * 64;
}

/* A band's scratch: kh ring rows, the padded row, acc and res. */
static size_t
conv_scratch(const struct conv2d_coef *c, int w)
{
	return ring_row_bytes(c, w) * (c->kh + 1) + (size_t)w * 10;
}

/* r's rows in a band's scratch m (conv_scratch bytes). */
static void
rows_carve(struct conv_rows *r, const struct conv_job *j, char *m)
{
	const struct conv2d_coef *c = &j->pl->coef;
	size_t w = (size_t)j->in->width;

	r->row_bytes = ring_row_bytes(c, (int)w);
	r->ring = m;
	r->pad = (int32_t *)(m + r->row_bytes * c->kh);
	r->acc = m + r->row_bytes * (c->kh + 1);
	r->res = (uint16_t *)(m + r->row_bytes * (c->kh + 1) + w * 8);
}

/* Channel c of image row ry, padded through xmap, into pad (w + kw - 1 values). */
static void
load_pad(const struct conv_job *j, int c, int ry, int32_t *pad)
{
	const struct image *in = j->in;
	int w = in->width, ch = in->channels, ax = j->pl->coef.ax;
	int rw = w + j->pl->coef.kw - 1;
	size_t base = (size_t)ry * w * ch + c;

	if (ch == 1 && in->maxval <= 255)
		widen_row8((const uint8_t *)in->px + base, pad + ax, w);
	else
		for (int x = 0; x < w; x++)
			pad[ax + x] = (int32_t)img_get(in, base + (size_t)x * ch);
	for (int x = 0; x < rw; x++) {
		int xi = j->xmap[x];
		if (x == ax)
			x += w - 1;     /* the interior is done */
		else
			pad[x] = xi < 0 ? 0 : (int32_t)img_get(in, base +
			    (size_t)xi * ch);
	}
}

/*
 * Fills ring row (v + ay) % kh for virtual row v (index v + ay of ymap):
 * the padded source row for the 2D path, its row pass for the separable
 * one; zeros where the border reads zeros.
 */
static void
fill_ring(const struct conv_job *j, struct conv_rows *r, int c, int vi)
{
	const struct conv2d_plan *pl = j->pl;
	const struct conv2d_coef *co = &pl->coef;
	int w = j->in->width, rw = w + co->kw - 1, ry = j->ymap[vi];
	int real = co->mode == CONV2D_F32, n = pl->separable ? w : rw;
	char *dst = r->ring + (size_t)(vi % co->kh) * r->row_bytes;
	float *fpad = (float *)r->pad;

	if (ry < 0) {
		memset(dst, 0, (size_t)n * 4);
		return;
	}
	if (!pl->separable) {
		load_pad(j, c, ry, (int32_t *)dst);
		if (real)
			to_float_row((int32_t *)dst, (float *)dst, rw);
		return;
	}
	load_pad(j, c, ry, r->pad);
	if (real)
		to_float_row(r->pad, fpad, rw);
	memset(dst, 0, (size_t)w * 4);
	for (int k = 0; k < co->kw; k++) {
		if (real)
			mac_row_f32((float *)dst, fpad + k, pl->taps.frow[k], w);
		else
			mac_row_i32((int32_t *)dst, r->pad + k, pl->taps.irow[k], w);
	}
}

/*
 * Whether an I64 plan may sum in uint32: no tap below 0 (so the separable
 * row pass, and every partial sum, is >= 0) and every sum below 2^32 (16-bit
 * images under the fixed-point gauss: 65536 * 65535).  Its sums are then
 * the int64 ones exactly, eight a vector instead of four.
 */
static int
u32_takes(const struct conv2d_plan *pl)
{
	const struct conv2d_coef *c = &pl->coef;
	double rs = 0, cs = 0, s = 0;

	if (c->mode != CONV2D_I64)
		return 0;
	for (int j = 0; pl->separable && j < c->kw; j++) {
		if (pl->taps.irow[j] < 0)
			return 0;
		rs += pl->taps.irow[j];
	}
	for (int i = 0; pl->separable && i < c->kh; i++) {
		if (pl->taps.icol[i] < 0)
			return 0;
		cs += pl->taps.icol[i];
	}
	for (int i = 0; !pl->separable && i < c->kw * c->kh; i++) {
		if (pl->taps.itaps[i] < 0)
			return 0;
		s += pl->taps.itaps[i];
	}
	return (pl->separable ? rs * cs : s) * c->maxval < 4294967296.0;
}

/* acc += taps[i] (kw of them, or the one column factor) times ring row src. */
static void
mac_taps(const struct conv_job *j, void *acc, const char *src, int i, int w)
{
	const struct conv2d_plan *pl = j->pl;
	const struct conv2d_coef *c = &pl->coef;
	int nt = pl->separable ? 1 : c->kw;

	for (int k = 0; k < nt; k++) {
		int t = pl->separable ? i : i * c->kw + k;
		int32_t it = pl->separable ? pl->taps.icol[i] : pl->taps.itaps[t];
		if (c->mode == CONV2D_F32)
			mac_row_f32(acc, (const float *)src + k, pl->separable ?
			    pl->taps.fcol[i] : pl->taps.ftaps[t], w);
		else if (j->u32)
			mac_row_u32(acc, (const int32_t *)src + k, (uint32_t)it, w);
		else if (c->mode == CONV2D_I64)
			mac_row_i64(acc, (const int32_t *)src + k, it, w);
		else
			mac_row_i32(acc, (const int32_t *)src + k, it, w);
	}
}

/* Output row y of channel c from the ring rows (y + i) % kh. */
static void
out_row(const struct conv_job *j, struct conv_rows *r, int c, int y)
{
	const struct conv2d_plan *pl = j->pl;
	const struct conv2d_coef *co = &pl->coef;
	const struct image *out = j->out;
	int w = out->width, ch = out->channels;
	size_t base = (size_t)y * w * ch + c;
	size_t abytes = co->mode == CONV2D_I64 && !j->u32 ? 8 : 4;

	memset(r->acc, 0, (size_t)w * abytes);
	/* Column blocks small enough that acc and the kh rows stay in L1. */
	for (int x0 = 0; x0 < w; x0 += CONV_BLOCK) {
		int n = w - x0 < CONV_BLOCK ? w - x0 : CONV_BLOCK;
		char *acc = (char *)r->acc + (size_t)x0 * abytes;
		for (int i = 0; i < co->kh; i++)
			mac_taps(j, acc, r->ring + (size_t)((y + i) % co->kh) *
			    r->row_bytes + (size_t)x0 * 4, i, n);
	}
	if (co->mode == CONV2D_F32)
		finish_row_f32(r->acc, r->res, w, co);
	else if (j->u32)
		finish_row_u32(r->acc, r->res, w, co);
	else if (co->mode == CONV2D_I64)
		finish_row_i64(r->acc, r->res, w, co);
	else
		conv2d_finish_row_i32(r->acc, r->res, w, co);
	if (ch == 1 && out->maxval <= 255)
		conv2d_narrow_row8(r->res, (uint8_t *)out->px + base, w);
	else
		for (int x = 0; x < w; x++)
			img_set(j->out, base + (size_t)x * ch, r->res[x]);
}

/* Rows y0 .. y1-1 of in's alpha channel, unchanged, into out's. */
static void
copy_alpha(const struct image *in, struct image *out, int y0, int y1)
{
	size_t ch = (size_t)in->channels, w = (size_t)in->width;

	for (size_t i = (size_t)y0 * w; i < (size_t)y1 * w; i++)
		img_set(out, i * ch + ch - 1, img_get(in, i * ch + ch - 1));
}

static int
conv_band(void *arg, int b, void *scratch)
{
	const struct conv_job *j = arg;
	int kh = j->pl->coef.kh, y0, y1;
	struct conv_rows r;

	pool_band_rows(j->in->height, j->nbands, b, &y0, &y1);
#ifdef CONV_SEP8
	if (j->sep8 || j->lanes2d) {
		if (j->sep8)
			conv2d_sep8_band(j, scratch, y0, y1);
		else
			conv2d_lanes2d_band(j, scratch, y0, y1);
		if (img_has_alpha(j->in))
			copy_alpha(j->in, j->out, y0, y1);
		return 0;
	}
#endif
	rows_carve(&r, j, scratch);
	for (int c = 0; c < img_colour_channels(j->in) && y0 < y1; c++) {
		/* Output row y reads virtual rows y .. y + kh - 1 of ymap. */
		for (int v = y0; v < y0 + kh - 1; v++)
			fill_ring(j, &r, c, v);
		for (int y = y0; y < y1; y++) {
			fill_ring(j, &r, c, y + kh - 1);
			out_row(j, &r, c, y);
		}
	}
	if (img_has_alpha(j->in))
		copy_alpha(j->in, j->out, y0, y1);
	return 0;
}

/* ---- the whole image */

static int
maps_make(struct conv_job *j)
{
	const struct conv2d_coef *c = &j->pl->coef;
	int w = j->in->width, h = j->in->height;

	j->xmap = malloc((size_t)(w + c->kw - 1) * sizeof(int));
	j->ymap = malloc((size_t)(h + c->kh - 1) * sizeof(int));
	if (j->xmap == NULL || j->ymap == NULL)
		return -1;
	for (int x = 0; x < w + c->kw - 1; x++)
		j->xmap[x] = gf_border_index(x - c->ax, w, c->border);
	for (int y = 0; y < h + c->kh - 1; y++)
		j->ymap[y] = gf_border_index(y - c->ay, h, c->border);
	return 0;
}

int
conv2d_cpu(const struct image *in, struct image *out,
    const struct conv2d_filter *p, int nthreads, struct gf_err *e)
{
	struct conv2d_plan *pl = malloc(sizeof(*pl));
	struct conv_job j = {in, out, pl, NULL, NULL, 0, 0, 0, 0};
	size_t scratch;
	int ret = -1;

	out->px = NULL;
	if (pl == NULL)
		return gf_nomem(e, "out of memory");
	if (conv2d_plan_make(p, in->maxval, pl, e) < 0 ||
	    img_alloc_like(out, in, in->channels, e) < 0)
		goto done;
	/* Taps per sample, against sobel's nine. */
	nthreads = pool_threads_for(nthreads, (double)in->width * in->height *
	    in->channels * (pl->coef.kw * pl->coef.kh) / 9);
	j.nbands = pool_bands(in->height, nthreads, 2 * pl->coef.kh + 8);
	scratch = conv_scratch(&pl->coef, in->width);
#ifdef CONV_SEP8
	if ((j.sep8 = conv2d_sep8_takes(pl)) != 0)
		scratch = conv2d_sep8_scratch(&pl->coef, in->width);
	else if ((j.lanes2d = conv2d_lanes2d_takes(pl)) != 0)
		scratch = conv2d_lanes2d_scratch(&pl->coef, in->width);
#endif
	j.u32 = u32_takes(pl);
	if (maps_make(&j) < 0 || pool_run(nthreads, j.nbands, scratch,
	    conv_band, &j) < 0)
		gf_nomem(e, "out of memory for a %d x %d image", in->width,
		    in->height);
	else
		ret = 0;
done:
	if (ret < 0)
		img_free(out);
	free(j.xmap);
	free(j.ymap);
	free(pl);
	return ret;
}
