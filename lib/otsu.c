/*
 * otsu.c - Otsu's threshold on the CPU: the reference that the GPU
 * search in kernels/edge.cu equals.
 */
#include "otsu.h"

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
