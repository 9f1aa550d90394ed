/*
 * edge.c - the edge tool's operation: the CPU reference (smoothing,
 * classes from lib/edge_core.h, hysteresis by flood fill from the strong
 * pixels) and the GPU pipeline that keeps every intermediate on the
 * device and equals the reference bit for bit.
 */
#include <stdlib.h>
#include <string.h>

#include "conv2d.h"
#include "edge.h"
#include "otsu.h"
#include "sobel.h"
#include "tool.h"

/* ---- CPU reference ---- */

/* Sobel's gx and gy of every pixel of row y. */
static void
grad_row(const struct image *im, int y, int border, int *gx, int *gy)
{
	for (int x = 0; x < im->width; x++) {
		int a = img_sample(im, x - 1, y - 1, border);
		int b = img_sample(im, x, y - 1, border);
		int c = img_sample(im, x + 1, y - 1, border);
		int d = img_sample(im, x - 1, y, border);
		int f = img_sample(im, x + 1, y, border);
		int g = img_sample(im, x - 1, y + 1, border);
		int h = img_sample(im, x, y + 1, border);
		int i = img_sample(im, x + 1, y + 1, border);
		gx[x] = sobel_gx(a, c, d, f, g, i);
		gy[x] = sobel_gy(a, b, c, g, h, i);
	}
}

int
edge_histogram_cpu(const struct image *gray, int border, int l1,
    uint32_t *hist, struct gf_err *e)
{
	int w = gray->width;
	int *gx = malloc(2 * (size_t)w * sizeof(int)), *gy = gx + w;

	if (gx == NULL)
		return gf_fail(e, "out of memory for the gradient histogram");
	memset(hist, 0, ((size_t)gray->maxval + 1) * sizeof(*hist));
	for (int y = 0; y < gray->height; y++) {
		grad_row(gray, y, border, gx, gy);
		for (int x = 0; x < w; x++)
			hist[edge_hist_value(gx[x], gy[x], l1, gray->maxval)]++;
	}
	free(gx);
	return 0;
}

int
edge_otsu_cpu(const struct image *gray, int border, int l1, uint32_t *t,
    struct gf_err *e)
{
	uint32_t *hist = malloc(((size_t)gray->maxval + 1) * sizeof(*hist));

	if (hist == NULL)
		return gf_fail(e, "out of memory for the gradient histogram");
	if (edge_histogram_cpu(gray, border, l1, hist, e) < 0) {
		free(hist);
		return -1;
	}
	*t = otsu_threshold(hist, (int)gray->maxval + 1);
	free(hist);
	return 0;
}

struct edge_params
edge_params_for(const struct edge_opts *o)
{
	struct edge_params p;

	p.l1 = o->l1;
	p.low = edge_thresh_store(o->low, o->l1);
	p.high = edge_thresh_store(o->high, o->l1);
	return p;
}

/* Three rows of gradients and magnitudes, indexed by y % 3. */
struct grad_ring {
	int *gx[3], *gy[3];
	uint64_t *mag[3];
	void *mem;
};

static int
ring_alloc(struct grad_ring *r, int w, struct gf_err *e)
{
	size_t row = (size_t)w * (2 * sizeof(int) + sizeof(uint64_t));
	char *m = malloc(3 * row);

	if (m == NULL)
		return gf_fail(e, "out of memory for %d gradient rows", w);
	r->mem = m;
	for (int k = 0; k < 3; k++, m += row) {
		r->mag[k] = (uint64_t *)m;
		r->gx[k] = (int *)(m + (size_t)w * sizeof(uint64_t));
		r->gy[k] = r->gx[k] + w;
	}
	return 0;
}

static void
ring_fill(struct grad_ring *r, const struct image *im, int y, int border,
    int l1)
{
	int k = y % 3;

	grad_row(im, y, border, r->gx[k], r->gy[k]);
	for (int x = 0; x < im->width; x++)
		r->mag[k][x] = edge_mag(r->gx[k][x], r->gy[k][x], l1);
}

/*
 * The class (enum edge_class) of every pixel of im into lab (width x
 * height bytes): suppression and double threshold inside, EDGE_NONE on
 * the outer frame.
 */
static int
classify_cpu(const struct image *im, int border, const struct edge_params *p,
    uint8_t *lab, struct gf_err *e)
{
	int w = im->width, h = im->height;
	struct grad_ring r;

	memset(lab, EDGE_NONE, (size_t)w * h);
	if (w < 3 || h < 3)
		return 0;
	if (ring_alloc(&r, w, e) < 0)
		return -1;
	ring_fill(&r, im, 0, border, p->l1);
	ring_fill(&r, im, 1, border, p->l1);
	for (int y = 1; y < h - 1; y++) {
		ring_fill(&r, im, y + 1, border, p->l1);
		for (int x = 1; x < w - 1; x++) {
			int s = edge_sector(r.gx[y % 3][x], r.gy[y % 3][x]), dx, dy;
			edge_sector_offset(s, &dx, &dy);
			uint64_t before = r.mag[(y + dy + 3) % 3][x + dx];
			uint64_t after = r.mag[(y - dy + 3) % 3][x - dx];
			lab[(size_t)y * w + x] = (uint8_t)edge_classify(
			    r.mag[y % 3][x], before, after, s, p);
		}
	}
	free(r.mem);
	return 0;
}

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

/* Makes the weak 8-neighbours of pixel j strong and pushes them. */
static int
grow_from(uint8_t *lab, int w, int h, size_t j, struct px_stack *s)
{
	int x = (int)(j % w), y = (int)(j / w);

	for (int v = y - 1; v <= y + 1; v++)
		for (int u = x - 1; u <= x + 1; u++) {
			size_t k = (size_t)v * w + u;
			if (u < 0 || v < 0 || u >= w || v >= h || lab[k] != EDGE_WEAK)
				continue;
			lab[k] = EDGE_STRONG;
			if (stack_push(s, k) < 0)
				return -1;
		}
	return 0;
}

/*
 * Hysteresis: every weak pixel 8-connected to a strong one, directly or
 * through weak pixels, becomes strong.  A depth-first flood fill from
 * each strong pixel; the result is the union of the connected components
 * holding a strong pixel, which no order of work changes.
 */
static int
hysteresis_cpu(uint8_t *lab, int w, int h, struct gf_err *e)
{
	struct px_stack s = {0};
	size_t n = (size_t)w * h;
	int ret = 0;

	for (size_t i = 0; i < n && ret == 0; i++) {
		if (lab[i] != EDGE_STRONG)
			continue;
		ret = grow_from(lab, w, h, i, &s);
		while (ret == 0 && s.n > 0)
			ret = grow_from(lab, w, h, s.v[--s.n], &s);
	}
	free(s.v);
	if (ret < 0)
		return gf_fail(e, "out of memory for hysteresis on a %d x %d "
		    "image", w, h);
	return 0;
}

/* out (allocated, gray's size and maxval): maxval on edges, else 0. */
static int
labels_to_image(const uint8_t *lab, const struct image *gray,
    struct image *out, struct gf_err *e)
{
	size_t n = (size_t)gray->width * gray->height;

	if (img_alloc_like(out, gray, 1, e) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		img_set(out, i, lab[i] == EDGE_STRONG ? out->maxval : 0);
	}
	return 0;
}

/* The conv2d parameters of the smoothing stage. */
static int
smooth_params(const struct edge_opts *o, struct conv2d_params *cp,
    struct gf_err *e)
{
	memset(cp, 0, sizeof(*cp));
	cp->border = (enum gf_border)o->border;
	cp->allow_separable = 1;
	return kspec_gauss(&cp->k, o->sigma, 0, e);
}

/* The thresholds for gray: o's, or Otsu's with --auto (info gets them). */
static int
thresholds_cpu(const struct image *gray, const struct edge_opts *o,
    struct edge_params *p, struct edge_info *info, struct gf_err *e)
{
	uint32_t t;

	if (!o->auto_thresh) {
		*p = edge_params_for(o);
		info->low = o->low;
		info->high = o->high;
		return 0;
	}
	if (edge_otsu_cpu(gray, o->border, o->l1, &t, e) < 0)
		return -1;
	edge_auto_params(t, o->l1, p);
	info->high = t;
	info->low = t / 2.0;
	return 0;
}

int
edge_cpu(const struct image *gray, struct image *out,
    const struct edge_opts *o, struct edge_info *info, struct gf_err *e)
{
	struct image sm = {0};
	const struct image *src = gray;
	struct edge_params p;
	uint8_t *lab = NULL;
	int ret = -1;

	if (o->sigma > 0) {
		struct conv2d_params cp;
		if (smooth_params(o, &cp, e) < 0 || conv2d_cpu(gray, &sm, &cp, e) < 0)
			goto done;
		src = &sm;
	}
	if (thresholds_cpu(src, o, &p, info, e) < 0)
		goto done;
	lab = malloc((size_t)gray->width * gray->height);
	if (lab == NULL) {
		gf_fail(e, "out of memory for the edge classes");
		goto done;
	}
	if (classify_cpu(src, o->border, &p, lab, e) < 0 ||
	    hysteresis_cpu(lab, gray->width, gray->height, e) < 0)
		goto done;
	ret = labels_to_image(lab, gray, out, e);
done:
	free(lab);
	img_free(&sm);
	return ret;
}

/* ---- GPU pipeline ---- */

/* Device scratch of --auto: the bins, then the threshold and the parameters. */
struct auto_scratch {
	uint32_t *bins;
	uint32_t *t;
	struct edge_params *p;
};

static int
auto_scratch_get(struct gpu *g, struct auto_scratch *s, struct gf_err *e)
{
	size_t bins = OTSU_MAX_BINS * sizeof(uint32_t);
	char *m;

	if (gpu_scratch(g, GPU_SLOT_STAGE3, bins + 64, (void **)&m, e) < 0)
		return -1;
	s->bins = (uint32_t *)m;
	s->p = (struct edge_params *)(m + bins);
	s->t = (uint32_t *)(m + bins + 32);
	return 0;
}

/*
 * Histogram and Otsu on the device: leaves the threshold in *s->t and
 * the --auto parameters in *s->p, without waiting.
 */
static int
otsu_device(struct gpu *g, const struct gpu_image *in, int border, int l1,
    const struct auto_scratch *s, struct gf_err *e)
{
	int nbins = (int)in->maxval + 1;
	int priv = (size_t)nbins * sizeof(uint32_t) <= g->smem_block;
	int nblocks = 4 * g->sm_count;

	GPU_TRY(e, cudaMemsetAsync(s->bins, 0, (size_t)nbins * sizeof(uint32_t),
	    g->stream));
	GPU_TRY(e, edge_launch_hist(in, border, l1, s->bins, nblocks, priv,
	    g->stream));
	GPU_TRY(e, edge_launch_otsu(s->bins, nbins, l1, s->t, s->p, g->stream));
	return 0;
}

int
edge_otsu_gpu(struct gpu *g, const struct gpu_image *in, int border, int l1,
    uint32_t *t, struct gf_err *e)
{
	struct auto_scratch s;

	if (auto_scratch_get(g, &s, e) < 0 ||
	    otsu_device(g, in, border, l1, &s, e) < 0)
		return -1;
	GPU_TRY(e, cudaMemcpyAsync(t, s.t, sizeof(*t), cudaMemcpyDeviceToHost,
	    g->stream));
	GPU_TRY(e, cudaStreamSynchronize(g->stream));
	return 0;
}

/* Suppression and double threshold on the device, strategy o->strategy. */
static int
nms_device(struct gpu *g, const struct gpu_image *src,
    const struct gpu_image *lab, const struct edge_params *p,
    const struct edge_params *dp, const struct edge_opts *o,
    struct gf_err *e)
{
	enum gf_strategy s = o->strategy == GF_AUTO ? GF_SLIDING : o->strategy;
	struct gf_launch l = o->launch;
	cudaTextureObject_t tex = 0;
	int tile_w, tile_h;
	size_t smem;

	edge_nms_shape(s, src->maxval, &l, &tile_w, &tile_h, &smem);
	if (gpu_check_shape(g, gf_strategies[s].name, l.block_w, l.block_h,
	    tile_w, tile_h, src->width, src->height, smem, e) < 0)
		return -1;
	if (s == GF_TEXTURE && gpu_texture(g, src, &tex, e) < 0)
		return -1;
	GPU_TRY(e, edge_launch_nms(s, src, lab, p, dp, o->border, &l, tex,
	    g->stream));
	return 0;
}

/*
 * Hysteresis on the device: one connected-component labelling of the
 * classes (kernels/edge.cu), queued without waiting.  Writes out.
 */
static int
hysteresis_device(struct gpu *g, const struct gpu_image *lab,
    const struct gpu_image *out, struct gf_err *e)
{
	size_t tx = ((size_t)lab->width + EDGE_HYST_TILE - 1) / EDGE_HYST_TILE;
	size_t ty = ((size_t)lab->height + EDGE_HYST_TILE - 1) / EDGE_HYST_TILE;
	size_t nodes = tx * ty * EDGE_HYST_CAP;
	void *scratch;

	if (nodes > UINT32_MAX || tx > (size_t)g->max_grid[0] ||
	    ty > (size_t)g->max_grid[1] ||
	    (nodes + 255) / 256 > (size_t)g->max_grid[0])
		return gf_fail(e, "a %d x %d image is too large for the GPU "
		    "hysteresis", lab->width, lab->height);
	if (gpu_scratch(g, GPU_SLOT_STAGE4, edge_hyst_scratch(lab->width,
	    lab->height), &scratch, e) < 0)
		return -1;
	GPU_TRY(e, edge_launch_hyst(lab, out, scratch, g->stream));
	return 0;
}

/* Smoothing into slot STAGE1 when o asks for it; *src is what follows reads. */
static int
smooth_device(struct gpu *g, const struct gpu_image *in,
    const struct edge_opts *o, struct gpu_image *sm,
    const struct gpu_image **src, struct gf_err *e)
{
	struct conv2d_params cp;
	enum gf_strategy s = o->strategy;

	*src = in;
	if (o->sigma <= 0)
		return 0;
	if (smooth_params(o, &cp, e) < 0 ||
	    gpu_image_get(g, GPU_SLOT_STAGE1, in->width, in->height, in->maxval,
	    sm, e) < 0 || conv2d_gpu(g, in, sm, &cp, s, &o->launch, e) < 0)
		return -1;
	*src = sm;
	return 0;
}

int
edge_run_device(struct gpu *g, const struct gpu_image *in,
    const struct gpu_image *out, const struct edge_opts *o,
    struct edge_info *info, struct gf_err *e)
{
	struct gpu_image sm, lab;
	const struct gpu_image *src;
	struct edge_params p = edge_params_for(o);
	struct auto_scratch as = {0};
	uint32_t t = 0;

	if (smooth_device(g, in, o, &sm, &src, e) < 0)
		return -1;
	if (o->auto_thresh && (auto_scratch_get(g, &as, e) < 0 ||
	    otsu_device(g, src, o->border, o->l1, &as, e) < 0))
		return -1;
	if (gpu_image_get(g, GPU_SLOT_STAGE2, in->width, in->height, 255, &lab,
	    e) < 0 || nms_device(g, src, &lab, &p, as.p, o, e) < 0)
		return -1;
	if (hysteresis_device(g, &lab, out, e) < 0)
		return -1;
	if (o->auto_thresh) {
		GPU_TRY(e, cudaMemcpyAsync(&t, as.t, sizeof(t),
		    cudaMemcpyDeviceToHost, g->stream));
		GPU_TRY(e, cudaStreamSynchronize(g->stream));
	}
	info->low = o->auto_thresh ? t / 2.0 : o->low;
	info->high = o->auto_thresh ? t : o->high;
	return 0;
}

/* Records the thresholds an image used, for -v. */
static void
note_thresholds(struct gf_times *t, const struct edge_opts *o,
    const struct edge_info *info)
{
	t->thresholds = 2;
	t->otsu = o->auto_thresh;
	t->low = info->low;
	t->high = info->high;
}

static int
edge_tool_cpu(void *ctx, const struct image *in, struct image *out,
    struct gf_times *t, struct gf_err *e)
{
	const struct edge_opts *o = ctx;
	struct image gray = {0};
	struct edge_info info;
	int ret;

	if (in->channels != 1 && img_to_gray(in, &gray, e) < 0)
		return -1;
	ret = edge_cpu(gray.px != NULL ? &gray : in, out, o, &info, e);
	img_free(&gray);
	if (ret == 0)
		note_thresholds(t, o, &info);
	return ret;
}

static int
edge_tool_gpu(void *ctx, struct gpu *g, const struct gpu_image *in,
    const struct gpu_image *out, struct gf_times *t, struct gf_err *e)
{
	const struct edge_opts *o = ctx;
	struct edge_info info;

	if (edge_run_device(g, in, out, o, &info, e) < 0)
		return -1;
	note_thresholds(t, o, &info);
	return 0;
}

void
edge_tool(struct tool *t, struct edge_opts *o)
{
	memset(t, 0, sizeof(*t));
	t->name = "edge";
	t->gray = 1;
	t->halo = -1;           /* hysteresis links pixels across the whole image */
	t->cpu = edge_tool_cpu;
	t->gpu = edge_tool_gpu;
	t->ctx = o;
}
