/*
 * kspec_class.c - what a parsed kernel allows (kspec_classify): taps
 * that are integers, for the exact integer arithmetic, and rank one, for
 * the separable row and column passes, found exactly for integers and
 * within rounding for real taps.  Apart from kspec.c, which parses text,
 * because the two share nothing but struct kspec.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "conv2d.h"

static int64_t
gcd64(int64_t a, int64_t b)
{
	while (b != 0) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a < 0 ? -a : a;
}

/*
 * Integer rank one: the first nonzero row divided by the gcd of its taps
 * is the row factor (a primitive vector), so every other row is an
 * integer multiple of it if the kernel is rank one at all.
 */
static int
separable_int(struct kspec *k)
{
	int kw = k->kw, kh = k->kh, p = 0, j0 = 0;
	int64_t g = 0, r0;

	for (p = 0; p < kh; p++) {
		g = 0;
		for (int j = 0; j < kw; j++)
			g = gcd64(g, (int64_t)k->taps[p * kw + j]);
		if (g != 0)
			break;
	}
	if (p == kh)
		return 0;
	while (k->taps[p * kw + j0] == 0)
		j0++;
	if (k->taps[p * kw + j0] < 0)
		g = -g;
	for (int j = 0; j < kw; j++)
		k->row[j] = (double)((int64_t)k->taps[p * kw + j] / g);
	r0 = (int64_t)k->row[j0];
	for (int i = 0; i < kh; i++) {
		int64_t t = (int64_t)k->taps[i * kw + j0];
		if (t % r0 != 0)
			return 0;
		k->col[i] = (double)(t / r0);
		for (int j = 0; j < kw; j++)
			if ((int64_t)k->col[i] * (int64_t)k->row[j] !=
			    (int64_t)k->taps[i * kw + j])
				return 0;
	}
	return 1;
}

/*
 * Real rank one within 1e-6 of the largest |tap|: the row through the
 * largest tap is the row factor, its column divided by that tap the
 * column factor.
 */
static int
separable_real(struct kspec *k)
{
	int kw = k->kw, kh = k->kh, p = 0, q = 0;
	double big = 0;

	for (int i = 0; i < kh; i++)
		for (int j = 0; j < kw; j++)
			if (fabs(k->taps[i * kw + j]) > big) {
				big = fabs(k->taps[i * kw + j]);
				p = i;
				q = j;
			}
	if (big == 0)
		return 0;
	for (int j = 0; j < kw; j++)
		k->row[j] = k->taps[p * kw + j];
	for (int i = 0; i < kh; i++)
		k->col[i] = k->taps[i * kw + q] / k->taps[p * kw + q];
	for (int i = 0; i < kh; i++)
		for (int j = 0; j < kw; j++)
			if (fabs(k->taps[i * kw + j] - k->col[i] * k->row[j]) >
			    1e-6 * big)
				return 0;
	return 1;
}

void
kspec_classify(struct kspec *k)
{
	int n = k->kw * k->kh;

	k->integer = 1;
	for (int i = 0; i < n; i++)
		if (k->taps[i] != floor(k->taps[i]))
			k->integer = 0;
	k->separable = k->integer ? separable_int(k) : separable_real(k);
	if (!k->separable) {
		memset(k->col, 0, sizeof(k->col));
		memset(k->row, 0, sizeof(k->row));
	}
}

