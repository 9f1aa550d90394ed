/*
 * core_test - the 8-bit float core of sobel (sobel_value_f) against the
 * integer definition (sobel_value) for every gradient an 8-bit image can
 * have, |gx|, |gy| <= 4 * 255, in every mode, for several maxvals and
 * thresholds.  Every path of every tool computes 8-bit sobel values
 * through sobel_value_f, so this is what makes its exactness a fact.
 */
#include <math.h>
#include <stdio.h>

#include "sobel_core.h"

/* Compares the two cores over all gradients for p; prints one result line. */
static int
exhaustive(const char *name, const struct sobel_params *p)
{
	long bad = 0;
	int gx0 = 0, gy0 = 0;

	for (int gx = -1020; gx <= 1020; gx++) {
		for (int gy = -1020; gy <= 1020; gy++) {
			unsigned want = sobel_value(gx, gy, p);
			unsigned got = (unsigned)sobel_value_f((float)gx, (float)gy, p);
			if (want != got && bad++ == 0) {
				gx0 = gx;
				gy0 = gy;
			}
		}
	}
	if (bad == 0)
		printf("pass %s\n", name);
	else
		printf("fail %s: %ld gradients differ, first gx=%d gy=%d\n", name,
		    bad, gx0, gy0);
	return bad != 0;
}

/* gf_round_sqrt_f from guesses 1 below, at and 1 above the answer. */
static int
round_sqrt(void)
{
	for (uint32_t s = 0; s <= 2 * 1020 * 1020; s++) {
		float want = (float)gf_isqrt_round32(s);
		for (int d = -1; d <= 1; d++) {
			if (want + d < 0)
				continue;
			float got = gf_round_sqrt_f((float)s, want + d);
			if (got != want) {
				printf("fail round-sqrt: s=%u from guess %g gives %g, not %g\n",
				    s, want + d, got, want);
				return 1;
			}
		}
	}
	printf("pass round-sqrt\n");
	return 0;
}

/*
 * gf_round_sqrt_y, the GPU's way, from 1 / sqrt(max(s, 1)) rounded to
 * float and moved up to 64 ulps either way: far more than rsqrtf's 2 ulps.
 */
static int
round_sqrt_y(void)
{
	for (uint32_t s = 0; s <= 2 * 1020 * 1020; s++) {
		float want = (float)gf_isqrt_round32(s);
		float y0 = (float)(1.0 / sqrt(s > 1 ? (double)s : 1.0));
		float lo = y0, hi = y0;
		for (int k = 0; k < 64; k++) {
			lo = nextafterf(lo, 0.0f);
			hi = nextafterf(hi, 2.0f);
		}
		const float ys[] = {lo, y0, hi};
		for (int i = 0; i < 3; i++) {
			float got = gf_round_sqrt_y((float)s, ys[i]);
			if (got != want) {
				printf("fail round-sqrt-y: s=%u from y=%a gives %g, not %g\n",
				    s, ys[i], got, want);
				return 1;
			}
		}
	}
	printf("pass round-sqrt-y\n");
	return 0;
}

int
main(void)
{
	static const struct { const char *name; int mode; unsigned maxval; uint64_t t; } cases[] = {
		{"mag-l2-255", SOBEL_MAG_L2, 255, 0},
		{"mag-l2-1", SOBEL_MAG_L2, 1, 0},
		{"mag-l2-100", SOBEL_MAG_L2, 100, 0},
		{"mag-l1-255", SOBEL_MAG_L1, 255, 0},
		{"mag-l1-15", SOBEL_MAG_L1, 15, 0},
		{"thresh-l2-0", SOBEL_THRESH_L2, 255, 0},
		{"thresh-l2-3660", SOBEL_THRESH_L2, 255, 3660},
		{"thresh-l2-huge", SOBEL_THRESH_L2, 255, 1ull << 40},
		{"thresh-l2-2^24", SOBEL_THRESH_L2, 255, 1u << 24},
		{"thresh-l1-120", SOBEL_THRESH_L1, 200, 120},
		{"thresh-l1-huge", SOBEL_THRESH_L1, 255, 1ull << 33},
	};
	int failed = round_sqrt() | round_sqrt_y();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sobel_params p = {cases[i].mode, cases[i].maxval, cases[i].t};
		char name[64];
		snprintf(name, sizeof(name), "float-core/%s", cases[i].name);
		failed |= exhaustive(name, &p);
	}
	return failed;
}
