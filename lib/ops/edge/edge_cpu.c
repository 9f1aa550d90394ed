/*
 * edge_cpu.c - Canny on the CPU: the reference that every GPU path
 * equals, made fast.  Smoothing is conv2d_cpu's separable path (the
 * same float steps as the GPU's); the gradient histogram of --auto, and
 * gradients fused with suppression and the double threshold, run in
 * row bands over threads (pool.h) with whole-row loops; hysteresis is a
 * stack flood from the strong pixels.  Every decision is edge_core.h's.
 */
#include <stdlib.h>
#include <string.h>

#include "conv2d.h"
#include "edge.h"
#include "edge_max.h"
#include "gradient.h"
#include "otsu.h"
#include "pool.h"

/* Bands are at least this many rows, so that small images use one thread. */
#define EDGE_BAND_ROWS 16

/* ---- gradients, suppression and the double threshold, fused per band */

struct classify_job {
	const struct image *im;
	int border, nbands;
	const struct grad_thresh *p;
	const void *zero;
	uint8_t *lab;           /* width x height classes */
};

/*
 * Three rows of gradients and magnitudes, row y in slot y % 3; 8-bit
 * images keep 32-bit magnitudes (edge_mag32) in the same memory.
 */
struct grad_ring {
	int *gx[3], *gy[3];
	uint64_t *mag[3];
	uint32_t *mag32[3];
};

/* Bytes of a ring for rows w wide: a band's scratch. */
static size_t
ring_scratch(int w)
{
	return 3 * (size_t)w * (2 * sizeof(int) + sizeof(uint64_t));
}

/* r's rows in a band's scratch m (ring_scratch bytes). */
static void
ring_carve(struct grad_ring *r, char *m, int w)
{
	size_t row = ring_scratch(w) / 3;

	for (int k = 0; k < 3; k++, m += row) {
		r->mag[k] = (uint64_t *)m;
		r->mag32[k] = (uint32_t *)m;
		r->gx[k] = (int *)(m + (size_t)w * sizeof(uint64_t));
		r->gy[k] = r->gx[k] + w;
	}
}

GF_CLONES static void
mag_row(const int *gx, const int *gy, uint64_t *mag, int n, int l1)
{
	for (int x = 0; x < n; x++)
		mag[x] = grad_mag(gx[x], gy[x], l1);
}

GF_CLONES static void
mag_row32(const int *gx, const int *gy, uint32_t *mag, int n, int l1)
{
	if (l1)
		for (int x = 0; x < n; x++)
			mag[x] = edge_mag32(gx[x], gy[x], 1);
	else
		for (int x = 0; x < n; x++)
			mag[x] = edge_mag32(gx[x], gy[x], 0);
}

static void
ring_fill(struct grad_ring *r, const struct classify_job *j, int y)
{
	int k = y % 3, w = j->im->width;
	const void *rows[3];

	sobel_rows_at(j->im, y, j->border, j->zero, rows);
	sobel_grad_row(rows, j->im->maxval > 255, w, j->border, r->gx[k],
	    r->gy[k]);
	if (j->im->maxval <= 255)
		mag_row32(r->gx[k], r->gy[k], r->mag32[k], w, j->p->l1);
	else
		mag_row(r->gx[k], r->gy[k], r->mag[k], w, j->p->l1);
}

/*
 * NAME(gx, gy, u, m, d, lab, n, p): the classes of columns 1..n of a row
 * from its gradients and the magnitudes (of type T) of the rows above
 * (u), at (m) and below (d), with SECTOR and CLASSIFY, edge_core.h's
 * cores for T, and their thresholds P.  The neighbours across the edge
 * are picked by edge_sector_offset's (dx, dy) with selects among all
 * eight loaded neighbours, not by indexing, so the loop has no
 * data-dependent addresses.  One body for both widths: 8-bit images
 * take the 32-bit cores, twice as many a vector.
 */
#define CLASSIFY_ROW(NAME, T, P, SECTOR, CLASSIFY)                          \
GF_CLONES static void                                                       \
NAME(const int *gx, const int *gy, const T *u, const T *m, const T *d,      \
    uint8_t *lab, int n, const P *p)                                        \
{                                                                           \
	P q = *p;                                                           \
                                                                            \
	for (int x = 1; x <= n; x++) {                                      \
		T ml = m[x - 1], mr = m[x + 1];                             \
		T ul = u[x - 1], uc = u[x], ur = u[x + 1];                  \
		T dl = d[x - 1], dc = d[x], dr = d[x + 1];                  \
		int s = SECTOR(gx[x], gy[x]), dx, dy;                       \
		edge_sector_offset(s, &dx, &dy);                            \
		T before = dy == 0 ? (dx < 0 ? ml : mr) :                   \
		    dx < 0 ? ul : dx == 0 ? uc : ur;                        \
		T after = dy == 0 ? (dx < 0 ? mr : ml) :                    \
		    dx < 0 ? dr : dx == 0 ? dc : dl;                        \
		lab[x] = (uint8_t)CLASSIFY(m[x], before, after, s, &q);     \
	}                                                                   \
}

CLASSIFY_ROW(classify_row, uint64_t, struct grad_thresh, edge_sector,
    edge_classify)
CLASSIFY_ROW(classify_row32, uint32_t, struct edge_params32, edge_sector32,
    edge_classify32)

static int
classify_band(void *arg, int b, void *scratch)
{
	const struct classify_job *j = arg;
	int w = j->im->width, h = j->im->height, y0, y1;
	struct grad_ring r;

	pool_band_rows(h, j->nbands, b, &y0, &y1);
	memset(j->lab + (size_t)y0 * w, EDGE_NONE, (size_t)(y1 - y0) * w);
	if (w < 3 || h < 3)
		return 0;
	if (y0 < 1)
		y0 = 1;
	if (y1 > h - 1)
		y1 = h - 1;
	if (y0 >= y1)
		return 0;
	ring_carve(&r, scratch, w);
	ring_fill(&r, j, y0 - 1);
	ring_fill(&r, j, y0);
	struct edge_params32 p32 = edge_params_32(j->p);
	for (int y = y0; y < y1; y++) {
		ring_fill(&r, j, y + 1);
		if (j->im->maxval <= 255)
			classify_row32(r.gx[y % 3], r.gy[y % 3],
			    r.mag32[(y + 2) % 3], r.mag32[y % 3],
			    r.mag32[(y + 1) % 3], j->lab + (size_t)y * w, w - 2,
			    &p32);
		else
			classify_row(r.gx[y % 3], r.gy[y % 3], r.mag[(y + 2) % 3],
			    r.mag[y % 3], r.mag[(y + 1) % 3],
			    j->lab + (size_t)y * w, w - 2, j->p);
	}
	return 0;
}

/*
 * The class (enum edge_class) of every pixel of im into lab (width x
 * height bytes): suppression and double threshold inside, EDGE_NONE on
 * the outer frame.
 */
static int
classify_cpu(const struct image *im, int border, const struct grad_thresh *p,
    uint8_t *lab, int nthreads, struct gf_err *e)
{
	struct classify_job j = {im, border, 0, p, NULL, lab};
	void *zero = calloc((size_t)im->width, 2);
	int ret;

	j.zero = zero;
	nthreads = pool_threads_for(nthreads, (double)im->width * im->height);
	j.nbands = pool_bands(im->height, nthreads, EDGE_BAND_ROWS);
	ret = zero == NULL ? -1 : pool_run(nthreads, j.nbands,
	    ring_scratch(im->width), classify_band, &j);
	free(zero);
	if (ret < 0)
		return gf_nomem(e, "out of memory for the gradients of a %d x %d "
		    "image", im->width, im->height);
	return 0;
}

/* ---- hysteresis */

/* A growable stack of pixel indices for the flood fill. */
struct px_stack {
	size_t *v;
	size_t n, cap;
};

static int
stack_push(struct px_stack *s, size_t i)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4096;
		size_t *v = realloc(s->v, cap * sizeof(*v));
		if (v == NULL)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = i;
	return 0;
}

/*
 * Hysteresis marks the pixels it has grown from EDGE_GROWN, an edge like
 * EDGE_STRONG that the scan for strong pixels passes over.
 */
#define EDGE_GROWN 3

/*
 * Makes the weak 8-neighbours of pixel i grown edges and pushes them.
 * Only interior pixels are ever weak or strong (the frame is EDGE_NONE),
 * so every neighbour of one is inside the image: no bounds checks.
 */
static int
grow_from(uint8_t *lab, const ptrdiff_t nb[8], size_t i, struct px_stack *s)
{
	for (int k = 0; k < 8; k++) {
		size_t n = i + nb[k];
		if (lab[n] != EDGE_WEAK)
			continue;
		lab[n] = EDGE_GROWN;
		if (stack_push(s, n) < 0)
			return -1;
	}
	return 0;
}

/* Floods from strong pixel i: it and every weak pixel joined to it become grown edges. */
static int
flood_from(uint8_t *lab, const ptrdiff_t nb[8], size_t i, struct px_stack *s)
{
	int ret;

	lab[i] = EDGE_GROWN;
	ret = grow_from(lab, nb, i, s);
	while (ret == 0 && s->n > 0)
		ret = grow_from(lab, nb, s->v[--s->n], s);
	return ret;
}

/*
 * Hysteresis: every weak pixel 8-connected to a strong one, directly or
 * through weak pixels, becomes an edge.  A depth-first flood fill from
 * each strong pixel; the result is the union of the connected components
 * holding a strong pixel, which no order of work changes.  The scan
 * looks at eight classes a word for a byte that is EDGE_STRONG (2: bit 1
 * without bit 0); the floods only turn weak pixels into grown ones, so
 * a word read before them still shows every strong pixel it holds.
 */
static int
hysteresis_cpu(uint8_t *lab, int w, int h, struct gf_err *e)
{
	const ptrdiff_t nb[8] = {-(ptrdiff_t)w - 1, -(ptrdiff_t)w,
	    -(ptrdiff_t)w + 1, -1, 1, w - 1, w, w + 1};
	const uint64_t ones = 0x0101010101010101ull;
	struct px_stack s = {0};
	size_t n = (size_t)w * h, i = 0;
	int ret = 0;

	for (; i + 8 <= n && ret == 0; i += 8) {
		uint64_t word;
		memcpy(&word, lab + i, sizeof(word));
		uint64_t strong = word & (ones << 1) & ~((word & ones) << 1);
		while (strong != 0 && ret == 0) {
			size_t k = (size_t)__builtin_ctzll(strong) / 8;
			strong &= strong - 1;
			ret = flood_from(lab, nb, i + k, &s);
		}
	}
	for (; i < n && ret == 0; i++)
		if (lab[i] == EDGE_STRONG)
			ret = flood_from(lab, nb, i, &s);
	free(s.v);
	if (ret < 0)
		return gf_nomem(e, "out of memory for hysteresis on a %d x %d "
		    "image", w, h);
	return 0;
}

GF_CLONES static void
labels_to_row8(const uint8_t *lab, uint8_t *out, size_t n, uint8_t maxval)
{
	for (size_t i = 0; i < n; i++)
		out[i] = lab[i] >= EDGE_STRONG ? maxval : 0;
}

/* out (allocated, gray's size and maxval): maxval on edges (strong or grown), else 0. */
static int
labels_to_image(const uint8_t *lab, const struct image *gray,
    struct image *out, struct gf_err *e)
{
	size_t n = (size_t)gray->width * gray->height;

	if (img_alloc_like(out, gray, 1, e) < 0)
		return -1;
	if (out->maxval <= 255) {
		labels_to_row8(lab, out->px, n, (uint8_t)out->maxval);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		img_set(out, i, lab[i] >= EDGE_STRONG ? out->maxval : 0);
	return 0;
}

/* ---- the whole detector */

struct grad_thresh
edge_thresh_of(double low, double high, int l1)
{
	struct grad_thresh t;

	t.l1 = l1;
	t.low = edge_thresh_store(low, l1);
	t.high = edge_thresh_store(high, l1);
	return t;
}

struct grad_thresh
edge_thresh_for(const struct edge_params *p)
{
	return edge_thresh_of(p->low, p->high, p->l1);
}

int
edge_needs_hist(const struct edge_params *p)
{
	return !p->auto_thresh && (p->high_kind == EDGE_T_PERCENT ||
	    p->high_kind == EDGE_T_QUANTILE || p->low_kind == EDGE_T_PERCENT ||
	    p->low_kind == EDGE_T_QUANTILE);
}

/* One threshold of kind k and number v in magnitude units, of hist. */
static double
resolve_one(double v, enum edge_tkind k, const uint32_t *hist, int nbins)
{
	uint64_t n = 0, cum = 0;
	int lo = -1, hi = 0;

	if (k == EDGE_T_VALUE || hist == NULL)
		return v;
	for (int i = 0; i < nbins; i++) {
		n += hist[i];
		if (hist[i] != 0) {
			lo = lo < 0 ? i : lo;
			hi = i;
		}
	}
	if (lo < 0)
		return 0;
	if (k == EDGE_T_PERCENT)
		return lo + v / 100 * (hi - lo);
	for (int i = 0; i < nbins; i++) {
		cum += hist[i];
		if ((double)cum >= v * (double)n)
			return i;
	}
	return hi;
}

void
edge_resolve_thresholds(const struct edge_params *p, const uint32_t *hist,
    int nbins, struct edge_info *info)
{
	info->high = resolve_one(p->high, p->high_kind, hist, nbins);
	if (p->low_kind == EDGE_T_HALF)
		info->low = info->high / 2;
	else
		info->low = resolve_one(p->low, p->low_kind, hist, nbins);
	if (info->low > info->high)
		info->low = info->high;
}

int
edge_smooth_filter(const struct edge_params *p, struct conv2d_filter *cp,
    struct gf_err *e)
{
	memset(cp, 0, sizeof(*cp));
	cp->border = (enum gf_border)p->border;
	cp->allow_separable = 1;
	return kspec_gauss(&cp->k, p->sigma, 0, e);
}

/* The thresholds for gray: ep's, or Otsu's when auto (info gets them). */
static int
thresholds_cpu(const struct image *gray, const struct edge_params *ep,
    struct grad_thresh *p, struct edge_info *info, int nthreads,
    struct gf_err *e)
{
	uint32_t t = 0, *hist;

	if (edge_needs_hist(ep)) {
		hist = malloc(((size_t)gray->maxval + 1) * sizeof(*hist));
		if (hist == NULL)
			return gf_nomem(e, "out of memory for the gradient histogram");
		if (otsu_histogram_cpu(gray, ep->border, ep->l1, hist, nthreads,
		    e) < 0) {
			free(hist);
			return -1;
		}
		edge_resolve_thresholds(ep, hist, (int)gray->maxval + 1, info);
		free(hist);
		*p = edge_thresh_of(info->low, info->high, ep->l1);
		return 0;
	}
	if (!ep->auto_thresh) {
		*p = edge_thresh_for(ep);
		info->low = ep->low;
		info->high = ep->high;
		return 0;
	}
	if (otsu_cpu(gray, ep->border, ep->l1, &t, nthreads, e) < 0)
		return -1;
	grad_thresh_auto(t, ep->l1, p);
	info->high = t;
	info->low = t / 2.0;
	return 0;
}

int
edge_cpu(const struct image *gray, struct image *out,
    const struct edge_params *ep, struct edge_info *info, int nthreads,
    struct gf_err *e)
{
	struct image sm = {0};
	const struct image *src = gray;
	struct grad_thresh p;
	uint8_t *lab = NULL;
	int ret = -1;

	if (ep->sigma > 0) {
		struct conv2d_filter cp;
		if (edge_smooth_filter(ep, &cp, e) < 0 ||
		    conv2d_cpu(gray, &sm, &cp, nthreads, e) < 0)
			goto done;
		src = &sm;
	}
	if (thresholds_cpu(src, ep, &p, info, nthreads, e) < 0)
		goto done;
	lab = malloc((size_t)gray->width * gray->height);
	if (lab == NULL) {
		gf_nomem(e, "out of memory for the edge classes");
		goto done;
	}
	if (classify_cpu(src, ep->border, &p, lab, nthreads, e) < 0 ||
	    hysteresis_cpu(lab, gray->width, gray->height, e) < 0)
		goto done;
	ret = labels_to_image(lab, gray, out, e);
done:
	free(lab);
	img_free(&sm);
	return ret;
}

int
edge_finish_cpu(uint8_t *lab, const struct image *like, struct image *out,
    struct gf_err *e)
{
	if (hysteresis_cpu(lab, like->width, like->height, e) < 0)
		return -1;
	return labels_to_image(lab, like, out, e);
}
