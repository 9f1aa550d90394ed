/*
 * conv2d_rows_cpu.c - the last steps of an output row that both CPU
 * paths take (conv2d_cpu.c, and the 16-bit lanes of conv2d_lanes_cpu.c):
 * int32 sums to samples by conv2d_core.h's finish, and samples to bytes.
 * A file of its own so that the two paths depend on it, not on each
 * other.
 */
#include "conv2d_cpu_int.h"
#include "pool.h"

/*
 * conv2d_finish_i32 when the divisor is d > 1, its floor division
 * floor((2v + d) / 2d) done in double, which vectorizes (x86 has no
 * vector integer division).  Exact: n = 2v + d and D = 2d are below 2^31
 * in magnitude (the I32 mode's bound), so they and n / D's rounding
 * error, below |n / D| 2^-53 < 2^-22 / D, are exact or too small to
 * reach the next integer, which a non-integer n / D is at least 1 / D
 * from.  tests/conv2d_test.c checks it against conv2d_finish_i32.
 */
GF_CLONES static void
finish_row_i32_div(const int32_t *acc, uint16_t *res, int n,
    const struct conv2d_coef *c)
{
	int32_t d = (int32_t)c->div, bias = (int32_t)c->bias;
	int32_t maxval = (int32_t)c->maxval;
	double d2 = 2.0 * d;

	for (int x = 0; x < n; x++) {
		int32_t v = c->abs && acc[x] < 0 ? -acc[x] : acc[x];
		int32_t q = (int32_t)floor((double)(2 * v + d) / d2);
		int32_t r = q + bias;
		res[x] = (uint16_t)(r < 0 ? 0 : r > maxval ? maxval : r);
	}
}

GF_CLONES static void
finish_row_i32_core(const int32_t *acc, uint16_t *res, int n,
    const struct conv2d_coef *c)
{
	struct conv2d_coef k = *c;

	for (int x = 0; x < n; x++)
		res[x] = (uint16_t)conv2d_finish_i32(acc[x], &k);
}

/* conv2d_finish_i32 for a divisor 2^s (pow2 = s + 1), without --abs. */
GF_CLONES static void
finish_row_i32_shift(const int32_t *acc, uint16_t *res, int n,
    const struct conv2d_coef *c)
{
	int32_t half = (int32_t)(c->div >> 1), bias = (int32_t)c->bias;
	int32_t maxval = (int32_t)c->maxval;
	int s = c->pow2 - 1;

	for (int x = 0; x < n; x++) {
		int32_t r = ((acc[x] + half) >> s) + bias;
		res[x] = (uint16_t)(r < 0 ? 0 : r > maxval ? maxval : r);
	}
}

void
conv2d_finish_row_i32(const int32_t *acc, uint16_t *res, int n,
    const struct conv2d_coef *c)
{
	if (c->pow2 > 0 && !c->abs)
		finish_row_i32_shift(acc, res, n, c);
	else if (c->div > 1 && c->pow2 == 0)
		finish_row_i32_div(acc, res, n, c);
	else
		finish_row_i32_core(acc, res, n, c);
}

GF_CLONES void
conv2d_narrow_row8(const uint16_t *s, uint8_t *d, int n)
{
	for (int x = 0; x < n; x++)
		d[x] = (uint8_t)s[x];
}
