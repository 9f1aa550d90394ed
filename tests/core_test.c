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
			/* and the GPU's way, through the host's 1 / sqrtf */
			if (p->mode == SOBEL_MAG_L2 && got == want &&
			    sobel_root_biased((float)gx, (float)gy,
			    (float)p->maxval) - 8388608.0f != (float)want)
				got = ~0u;
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

/*
 * gf_root_biased, the GPU's root, for every s it is given, from the
 * correctly rounded 1 / sqrt(s) moved up to 8 ulps either way: four times
 * the GPU's rsqrt error.  s = 2^-30 stands for 0.
 */
static int
root_biased(void)
{
	for (uint32_t i = 0; i <= 65281; i++) {
		float s = i <= 65280 ? (float)i : 0x1p-30f;
		float want = i <= 65280 ? (float)gf_isqrt_round32(i) : 0.0f;
		float y = (float)(1.0 / sqrt((double)s));
		for (int k = 0; k < 8; k++)
			y = nextafterf(y, 0.0f);
		for (int k = -8; k <= 8; k++, y = nextafterf(y, 1e30f)) {
			float got = gf_root_biased(s, y) - 8388608.0f;
			if (got != want) {
				printf("fail root-biased: s=%a from y=%a gives %g, not %g\n",
				    s, y, got, want);
				return 1;
			}
		}
	}
	printf("pass root-biased\n");
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
	int failed = root_biased();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sobel_params p = {cases[i].mode, cases[i].maxval, cases[i].t, SOBEL_OP_SOBEL};
		char name[64];
		snprintf(name, sizeof(name), "float-core/%s", cases[i].name);
		failed |= exhaustive(name, &p);
	}
	return failed;
}
