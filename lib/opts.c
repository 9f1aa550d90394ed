/*
 * opts.c - parsing of the options and option values all tools share.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"

void
gf_opts_init(struct gf_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->strategy = GF_AUTO;
	o->border = GF_BORDER_REPLICATE;
	o->device = -1;
	o->format = IMG_FORMAT_AUTO;
	o->max_pixels = IMG_DEFAULT_MAX_PIXELS;
}

int
gf_parse_int(const char *s, const char *what, long lo, long hi, long *v,
    struct gf_err *e)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0)
		return gf_fail(e, "%s '%s' is not an integer", what, s);
	if (*v < lo || *v > hi)
		return gf_fail(e, "%s is %ld; it must be %ld to %ld", what, *v, lo, hi);
	return 0;
}

int
gf_parse_double(const char *s, const char *what, double lo, double hi,
    double *v, struct gf_err *e)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || errno != 0 || !isfinite(*v))
		return gf_fail(e, "%s '%s' is not a number", what, s);
	if (*v < lo || *v > hi)
		return gf_fail(e, "%s is %g; it must be %g to %g", what, *v, lo, hi);
	return 0;
}

int
gf_parse_border(const char *s, enum gf_border *b, struct gf_err *e)
{
	static const char *names[] = {"replicate", "zero", "reflect", "wrap"};

	for (int i = 0; i < 4; i++) {
		if (strcmp(s, names[i]) == 0) {
			*b = (enum gf_border)i;
			return 0;
		}
	}
	return gf_fail(e, "'%s' is not a border mode; choose replicate, zero, "
	    "reflect or wrap", s);
}

/* Parses WxH for --block. */
static int
parse_block(const char *s, struct gf_launch *l, struct gf_err *e)
{
	char *end, *x;
	long w, h;

	x = strchr(s, 'x');
	if (x == NULL)
		return gf_fail(e, "block '%s' is not of the form WxH (e.g. 32x8)", s);
	errno = 0;
	w = strtol(s, &end, 10);
	if (end != x || end == s || errno != 0)
		return gf_fail(e, "block '%s' is not of the form WxH (e.g. 32x8)", s);
	h = strtol(x + 1, &end, 10);
	if (*end != '\0' || end == x + 1 || errno != 0)
		return gf_fail(e, "block '%s' is not of the form WxH (e.g. 32x8)", s);
	if (w < 1 || h < 1 || w > 1024 || h > 1024)
		return gf_fail(e, "block %ldx%ld: each side must be 1 to 1024", w, h);
	l->block_w = (int)w;
	l->block_h = (int)h;
	return 0;
}

int
gf_opts_common(struct gf_opts *o, int c, const char *arg, struct gf_err *e)
{
	long v;

	switch (c) {
	case 'm':
		return gf_strategy_parse(arg, &o->strategy, e) < 0 ? -1 : 1;
	case GF_OPT_CPU:
		o->strategy = GF_CPU;
		return 1;
	case GF_OPT_BORDER:
		return gf_parse_border(arg, &o->border, e) < 0 ? -1 : 1;
	case 'f':
		return img_format_parse(arg, &o->format, e) < 0 ? -1 : 1;
	case 'o':
		o->outdir = arg;
		return 1;
	case GF_OPT_BLOCK:
		return parse_block(arg, &o->launch, e) < 0 ? -1 : 1;
	case GF_OPT_ROWS:
		if (gf_parse_int(arg, "--rows", 1, 4096, &v, e) < 0)
			return -1;
		o->launch.rows = (int)v;
		return 1;
	case GF_OPT_DEVICE:
		if (gf_parse_int(arg, "--device", 0, 1023, &v, e) < 0)
			return -1;
		o->device = (int)v;
		return 1;
	case GF_OPT_MAX_PIXELS:
		if (gf_parse_int(arg, "--max-pixels", 0, LONG_MAX, &v, e) < 0)
			return -1;
		o->max_pixels = v;
		return 1;
	case 'v':
		o->verbose = 1;
		o->quiet = 0;
		return 1;
	case 'q':
		o->quiet = 1;
		o->verbose = 0;
		return 1;
	case 'h':
		o->help = 1;
		return 1;
	case 'V':
		o->version = 1;
		return 1;
	}
	return 0;
}
