/*
 * gpufilt_opts.c - gf_options, the public struct of libgpufilt's options,
 * through the tools' own parsers and checks into their option structs
 * (so values are refused with the tools' messages), and the tool the
 * engine runs for them (gpufilt_opts.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "conv2d.h"
#include "gpufilt_opts.h"
#include "opts.h"

/* Number v, checked as the tools check an option's number. */
static int
take_number(double v, const char *what, double lo, double hi, double *out,
    struct gf_err *e)
{
	if (gf_check_double(v, what, lo, hi, e) < 0)
		return -1;
	*out = v;
	return 0;
}

static int
common_from(struct gf_opts *c, const gf_options *o, struct gf_err *e)
{
	char v[64];

	gf_opts_init(c);
	if (o->strategy != NULL && gf_opts_common(c, 'm', o->strategy, e) < 0)
		return -1;
	if (o->border != NULL &&
	    gf_opts_common(c, GF_OPT_BORDER, o->border, e) < 0)
		return -1;
	if (o->threads < 0)
		return gf_fail(e, "threads is %d; it must be 0 (one per CPU online) "
		    "or more", o->threads);
	snprintf(v, sizeof(v), "%d", o->threads);
	if (o->threads > 0 && gf_opts_common(c, 'j', v, e) < 0)
		return -1;
	snprintf(v, sizeof(v), "%dx%d", o->block_w, o->block_h);
	if ((o->block_w != 0 || o->block_h != 0) &&
	    gf_opts_common(c, GF_OPT_BLOCK, v, e) < 0)
		return -1;
	snprintf(v, sizeof(v), "%d", o->rows);
	if (o->rows != 0 && gf_opts_common(c, GF_OPT_ROWS, v, e) < 0)
		return -1;
	return 0;
}

static int
sobel_from(struct op *op, const gf_options *o, struct gf_err *e)
{
	struct sobel_opts *so = &op->u.sobel;

	if (common_from(&so->common, o, e) < 0)
		return -1;
	so->l1 = o->l1 != 0;
	if (o->auto_threshold)
		so->threshold_auto = 1;
	else if (isnan(o->threshold) || o->threshold >= 0) {
		so->threshold = 1;
		if (take_number(o->threshold, "threshold -t", 0, 1e9, &so->t, e) < 0)
			return -1;
	}
	if ((o->gradient != NULL && sobel_gradient_parse(o->gradient, so,
	    e) < 0) || (o->colour != NULL && gf_parse_colour(o->colour,
	    &so->channels, &so->max, e) < 0) || (o->op != NULL &&
	    sobel_op_parse(o->op, &so->op, e) < 0))
		return -1;
	if (o->depth != 0 && o->depth != 16)
		return gf_fail(e, "depth is %d; it must be 16 (the magnitude at 16 "
		    "bits) or 0 (the input's)", o->depth);
	so->depth16 = o->depth == 16;
	if (sobel_opts_check(so, e) < 0)
		return -1;
	op->common = &so->common;
	sobel_tool(&op->tool, so);
	return 0;
}

static int
conv2d_from(struct op *op, const gf_options *o, struct gf_err *e)
{
	struct conv2d_opts *co = &op->u.conv2d;
	struct conv2d_filter *f = &co->filter;

	if (common_from(&co->common, o, e) < 0)
		return -1;
	if (o->kernel == NULL)
		return gf_fail(e, "no kernel: give one in the options' kernel, e.g. "
		    "\"gauss:1.4\" or \"1 2 1; 2 4 2; 1 2 1\"");
	if (kspec_parse(o->kernel, &f->k, e) < 0)
		return -1;
	f->normalize = o->normalize != 0;
	if (o->divisor != 0 && kspec_check_divisor(o->divisor, e) < 0)
		return -1;
	f->divisor = o->divisor;
	if (f->normalize && f->divisor != 0)
		return gf_fail(e, "--normalize and --divisor exclude each other; "
		    "give one");
	if (take_number(o->bias, "--bias", -KSPEC_MAX_TAP, KSPEC_MAX_TAP,
	    &f->bias, e) < 0)
		return -1;
	f->abs = o->abs != 0;
	f->allow_separable = !o->no_separable;
	op->common = &co->common;
	conv2d_tool(&op->tool, co);
	return 0;
}

/*
 * One of edge's thresholds, given as a number v (< 0: not given) or as
 * spec, the tool's text (NULL: not given), not both; *given says which.
 */
static int
edge_threshold(double v, const char *spec, const char *what, int quantiles,
    double *t, enum edge_tkind *kind, int *given, struct gf_err *e)
{
	*given = spec != NULL || !(v < 0);
	if (spec != NULL && !(v < 0))
		return gf_fail(e, "%s is given twice, as %g and as '%s'; give one "
		    "(the other negative or NULL)", what, v, spec);
	if (spec != NULL)
		return edge_parse_thresh(spec, what, quantiles, t, kind, e);
	*kind = EDGE_T_VALUE;
	return *given ? take_number(v, what, 0, 1e6, t, e) : 0;
}

/* edge's thresholds as edge(1) takes them: --auto, --high alone, or both. */
static int
edge_thresholds(struct edge_opts *eo, const gf_options *o, struct gf_err *e)
{
	int have_low, have_high;

	eo->auto_thresh = o->auto_threshold != 0;
	if (o->quantiles && (o->high_spec == NULL || !(o->low < 0)))
		return gf_fail(e, "quantiles (--quantiles) reads high_spec and "
		    "low_spec as quantiles; give the thresholds there, high_spec "
		    "at least");
	if (edge_threshold(o->high, o->high_spec, "--high", o->quantiles,
	    &eo->high, &eo->high_kind, &have_high, e) < 0 ||
	    edge_threshold(o->low, o->low_spec, "--low", o->quantiles, &eo->low,
	    &eo->low_kind, &have_low, e) < 0)
		return -1;
	return edge_settle_thresholds(eo, have_low, have_high, e);
}

static int
edge_from(struct op *op, const gf_options *o, struct gf_err *e)
{
	struct edge_opts *eo = &op->u.edge;

	if (common_from(&eo->common, o, e) < 0 ||
	    take_number(o->sigma, "--sigma", 0, 10, &eo->sigma, e) < 0)
		return -1;
	if (edge_check_sigma(eo->sigma, e) < 0)
		return -1;
	eo->l1 = o->l1 != 0;
	if (o->colour != NULL && gf_parse_colour(o->colour, &eo->channels,
	    &eo->max, e) < 0)
		return -1;
	if (edge_thresholds(eo, o, e) < 0)
		return -1;
	op->common = &eo->common;
	edge_tool(&op->tool, eo);
	return 0;
}

struct op *
op_make(enum op_kind kind, const gf_options *o, int *code, struct gf_err *e)
{
	static int (*const from[])(struct op *, const gf_options *,
	    struct gf_err *) = {sobel_from, conv2d_from, edge_from};
	struct op *op = calloc(1, sizeof(*op));
	gf_options defaults;

	*code = GF_ENOMEM;
	if (op == NULL) {
		gf_nomem(e, "out of memory");
		return NULL;
	}
	if (o == NULL) {
		gf_options_init(&defaults);
		o = &defaults;
	}
	if (from[kind](op, o, e) < 0) {
		free(op);
		*code = GF_EINVAL;
		return NULL;
	}
	return op;
}
