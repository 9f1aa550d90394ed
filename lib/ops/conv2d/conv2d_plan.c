/*
 * conv2d_plan.c - the plan of a conv2d filter for an image's maxval:
 * the arithmetic mode, the divisor and whether it runs separable, which
 * the CPU reference (conv2d_cpu.c) and the GPU's dispatch (conv2d.c)
 * both obey.  A file of its own so that both depend on it and neither
 * on the other.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d.h"

/*
 * The divisor before sign folding: --divisor; else the tap sum when
 * normalizing (conv2d_normalizes); else 1; the first and the last times
 * the kernel's unit (gauss's fixed point), whose taps stand for the
 * kernel times it.
 */
static double
plan_divisor(const struct conv2d_filter *p)
{
	const struct kspec *k = &p->k;
	double sum = 0, unit = k->unit > 0 ? k->unit : 1;

	if (p->divisor != 0)
		return p->divisor * unit;
	if (!conv2d_normalizes(p))
		return unit;
	for (int i = 0; i < k->kw * k->kh; i++)
		sum += k->taps[i];
	return sum != 0 ? sum : unit;
}

int
conv2d_normalizes(const struct conv2d_filter *p)
{
	const struct kspec *k = &p->k;

	if (p->divisor != 0)
		return 0;
	if (p->normalize || k->normalized)
		return 1;
	if (k->unit_sum)
		return 0;
	for (int i = 0; i < k->kw * k->kh; i++)
		if (k->taps[i] < 0)
			return 0;
	return 1;
}

/*
 * Whether an integer plan's taps fit dp4a (struct conv2d_coef), and if
 * so, packs them.  p's no_dp4a says no, for the bench to compare.
 */
static void
plan_dp4a(const struct conv2d_filter *p, struct conv2d_plan *pl)
{
	struct conv2d_coef *c = &pl->coef;

	c->dp4a = c->mode == CONV2D_I32 && c->kw == c->kh && c->kw <= CONV_DP4A_K &&
	    !p->no_dp4a;
	for (int i = 0; c->dp4a && i < c->kw * c->kh; i++)
		if (pl->taps.itaps[i] < -128 || pl->taps.itaps[i] > 127)
			c->dp4a = 0;
	if (!c->dp4a)
		return;
	for (int i = 0; i < c->kh; i++)
		for (int j = 0; j < c->kw; j++)
			pl->taps.qtaps[i * CONV_DP4A_W + j / 4] |=
			    (uint32_t)(uint8_t)(int8_t)pl->taps.itaps[i * c->kw + j] << 8 * (j % 4);
}

/* Integer modes: exact int32 or int64 taps, divisor d >= 1, bias. */
static void
plan_integer(const struct conv2d_filter *p, int sign, double d,
    struct conv2d_plan *pl)
{
	const struct kspec *k = &p->k;
	struct conv2d_coef *c = &pl->coef;
	int64_t sumabs = 0, rowabs = 0, colabs = 0, bound, rowbound;

	for (int i = 0; i < k->kw * k->kh; i++) {
		pl->taps.itaps[i] = sign * (int32_t)k->taps[i];
		sumabs += (int64_t)fabs(k->taps[i]);
	}
	for (int j = 0; j < k->kw; j++) {
		pl->taps.irow[j] = sign * (int32_t)k->row[j];
		rowabs += (int64_t)fabs(k->row[j]);
	}
	for (int i = 0; i < k->kh; i++) {
		pl->taps.icol[i] = (int32_t)k->col[i];
		colabs += (int64_t)fabs(k->col[i]);
	}
	/* Float copies for the GPU's float accumulators (used when fexact). */
	for (int i = 0; i < k->kw * k->kh; i++)
		pl->taps.ftaps[i] = (float)pl->taps.itaps[i];
	for (int j = 0; j < k->kw; j++)
		pl->taps.frow[j] = (float)pl->taps.irow[j];
	for (int i = 0; i < k->kh; i++)
		pl->taps.fcol[i] = (float)pl->taps.icol[i];
	c->div = (int64_t)d;
	c->pow2 = 0;
	for (int s = 0; s < 62 && c->pow2 == 0; s++)
		if (c->div == (int64_t)1 << s)
			c->pow2 = s + 1;
	c->bias = (int64_t)p->bias;
	bound = sumabs * (int64_t)c->maxval;
	rowbound = rowabs * (int64_t)c->maxval;
	c->mode = 2 * bound + 2 * c->div + llabs(c->bias) <= INT32_MAX ?
	    CONV2D_I32 : CONV2D_I64;
	pl->separable = p->allow_separable && k->separable &&
	    rowbound <= INT32_MAX;
	c->fexact = c->mode == CONV2D_I32 && (double)bound < 16777216.0 &&
	    (!pl->separable ||
	    (double)rowabs * (double)colabs * c->maxval < 16777216.0);
	plan_dp4a(p, pl);
}

/* The real mode: float taps, divisor and bias, rounded once from double. */
static int
plan_real(const struct conv2d_filter *p, int sign, double d,
    struct conv2d_plan *pl, struct gf_err *e)
{
	const struct kspec *k = &p->k;
	struct conv2d_coef *c = &pl->coef;

	for (int i = 0; i < k->kw * k->kh; i++)
		pl->taps.ftaps[i] = (float)(sign * k->taps[i]);
	for (int j = 0; j < k->kw; j++)
		pl->taps.frow[j] = (float)(sign * k->row[j]);
	for (int i = 0; i < k->kh; i++)
		pl->taps.fcol[i] = (float)k->col[i];
	c->mode = CONV2D_F32;
	c->fdiv = (float)d;
	c->fbias = (float)p->bias;
	if (!(c->fdiv > 0) || isinf(c->fdiv))
		return gf_fail(e, "divisor %g is out of range for float arithmetic",
		    d * sign);
	pl->separable = p->allow_separable && k->separable;
	return 0;
}

int
conv2d_plan_make(const struct conv2d_filter *p, unsigned maxval,
    struct conv2d_plan *pl, struct gf_err *e)
{
	const struct kspec *k = &p->k;
	double d = plan_divisor(p);
	int sign = d < 0 ? -1 : 1;

	if (k->kw < 1 || k->kh < 1 || k->kw > CONV_MAX_K || k->kh > CONV_MAX_K)
		return gf_fail(e, "a %d x %d kernel is not supported (each side "
		    "must be 1 to %d)", k->kw, k->kh, CONV_MAX_K);
	if (fabs(p->bias) > KSPEC_MAX_TAP || fabs(d) > 1e13)
		return gf_fail(e, "bias %g or divisor %g is too large", p->bias, d);
	if (maxval < 1 || maxval > 65535)
		return gf_fail(e, "maxval %u is not 1 to 65535", maxval);
	memset(pl, 0, sizeof(*pl));
	pl->coef.kw = k->kw;
	pl->coef.kh = k->kh;
	pl->coef.ax = k->kw / 2;
	pl->coef.ay = k->kh / 2;
	pl->coef.border = p->border;
	pl->coef.maxval = maxval;
	pl->coef.abs = p->abs;
	d = fabs(d);
	if (k->integer && d == floor(d) && p->bias == floor(p->bias)) {
		plan_integer(p, sign, d, pl);
		return 0;
	}
	return plan_real(p, sign, d, pl, e);
}
