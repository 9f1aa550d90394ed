/*
 * otsu_cpu.c - Otsu's method on the CPU, the reference that the GPU's
 * (otsu.c, kernels/otsu.cu) equals: the gradient magnitude histogram in
 * row bands on the thread pool, and Otsu's threshold of a histogram
 * (sobel -t auto, edge --auto).  Its loops get the CPU paths' compiler
 * flags (the Makefile's CPU_CFLAGS for *_cpu.c).
 */
#include <stdlib.h>
#include <string.h>

#include "otsu.h"
#include "pool.h"
#include "sobel.h"

/* Bands are at least this many rows, so that small images use one thread. */
#define OTSU_BAND_ROWS 16

struct hist_job {
	const struct image *gray;
	int border, l1, nbands;
	const void *zero;       /* a row of zeros, for the zero border */
	uint32_t *hists;        /* nbands histograms of maxval + 1 bins */
};

/*
 * The histogram value of a gradient (grad_hist_value) is sobel's
 * magnitude, so a band counts the samples of sobel's CPU rows in mode
 * MAG_L2 or MAG_L1; for 8-bit images those come from sobel_value_f,
 * which tests/core_test.c proves equal to sobel_value for every 8-bit
 * gradient.
 */
/* A band's scratch: a row of gradients and one of magnitudes. */
static size_t
hist_scratch(int w)
{
	return (size_t)w * (2 * sizeof(int) + sizeof(uint16_t));
}

static int
hist_band(void *arg, int b, void *scratch)
{
	const struct hist_job *j = arg;
	const struct image *g = j->gray;
	struct sobel_params sp = {j->l1 ? SOBEL_MAG_L1 : SOBEL_MAG_L2,
	    g->maxval, 0, SOBEL_OP_SOBEL};
	uint32_t *hist = j->hists + (size_t)b * (g->maxval + 1);
	int w = g->width, y0, y1;
	int *grad = scratch;
	uint16_t *v16 = (uint16_t *)(grad + 2 * (size_t)w);
	uint8_t *v8 = (uint8_t *)v16;

	pool_band_rows(g->height, j->nbands, b, &y0, &y1);
	for (int y = y0; y < y1; y++) {
		sobel_row_cpu(g, y, &sp, j->border, j->zero, grad, v16);
		for (int x = 0; g->maxval <= 255 && x < w; x++)
			hist[v8[x]]++;
		for (int x = 0; g->maxval > 255 && x < w; x++)
			hist[v16[x]]++;
	}
	return 0;
}

int
otsu_histogram_cpu(const struct image *gray, int border, int l1,
    uint32_t *hist, int nthreads, struct gf_err *e)
{
	size_t nbins = (size_t)gray->maxval + 1;
	struct hist_job j = {gray, border, l1, 0, NULL, NULL};
	void *zero = calloc((size_t)gray->width, 2);
	int ret = -1;

	nthreads = pool_threads_for(nthreads, (double)gray->width * gray->height);
	j.nbands = pool_bands(gray->height, nthreads, OTSU_BAND_ROWS);
	j.zero = zero;
	j.hists = calloc((size_t)j.nbands * nbins, sizeof(uint32_t));
	if (zero != NULL && j.hists != NULL &&
	    pool_run(nthreads, j.nbands, hist_scratch(gray->width),
	    hist_band, &j) == 0) {
		memset(hist, 0, nbins * sizeof(*hist));
		for (int b = 0; b < j.nbands; b++)
			for (size_t i = 0; i < nbins; i++)
				hist[i] += j.hists[b * nbins + i];
		ret = 0;
	}
	free(zero);
	free(j.hists);
	if (ret < 0)
		return gf_nomem(e, "out of memory for the gradient histogram");
	return 0;
}

uint32_t
otsu_threshold(const uint32_t *hist, int nbins)
{
	uint64_t n = 0, s = 0, n0 = 0, s0 = 0;
	double best = -2.0;
	uint32_t t = 0;

	for (int i = 0; i < nbins; i++) {
		n += hist[i];
		s += (uint64_t)i * hist[i];
	}
	for (int i = 0; i < nbins; i++) {
		n0 += hist[i];
		s0 += (uint64_t)i * hist[i];
		double score = otsu_score(n0, s0, n, s);
		if (score > best) {
			best = score;
			t = (uint32_t)i;
		}
	}
	return t;
}

int
otsu_cpu(const struct image *gray, int border, int l1, uint32_t *t,
    int nthreads, struct gf_err *e)
{
	uint32_t *hist = malloc(((size_t)gray->maxval + 1) * sizeof(*hist));

	if (hist == NULL)
		return gf_nomem(e, "out of memory for the gradient histogram");
	if (otsu_histogram_cpu(gray, border, l1, hist, nthreads, e) < 0) {
		free(hist);
		return -1;
	}
	*t = otsu_threshold(hist, (int)gray->maxval + 1);
	free(hist);
	return 0;
}
