/*
 * opts.c - parsing of the options and option values all tools share.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "pool.h"

void
gf_opts_init(struct gf_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->strategy = GF_AUTO;
	o->border = GF_BORDER_REPLICATE;
	o->format = IMG_FORMAT_AUTO;
	o->max_pixels = IMG_DEFAULT_MAX_PIXELS;
	o->set.staging = 1;
	o->set.pinned = 1;
	o->set.read_ahead = 1;
	o->set.reader_gray = -1;
	o->set.split = -1;
	o->set.jpeg_share = 1;
	o->set.gpu_decode = -1;
	o->set.dp4a = 1;
}

int
gf_parse_int(const char *s, const char *what, long lo, long hi, long *v,
    struct gf_err *e)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || (errno != 0 && errno != ERANGE))
		return gf_fail(e, "%s '%s' is not an integer", what, s);
	if (errno == ERANGE)
		return gf_fail(e, "%s '%s' is out of range; it must be %ld to %ld",
		    what, s, lo, hi);
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
	if (*s == '\0' || *end != '\0' || isnan(*v) ||
	    (errno != 0 && errno != ERANGE))
		return gf_fail(e, "%s '%s' is not a number", what, s);
	if (errno == ERANGE && fabs(*v) < 1)
		return gf_fail(e, "%s '%s' is out of range: too close to 0 to be "
		    "represented (give 0, or at least %g)", what, s, DBL_MIN);
	if (errno == ERANGE || isinf(*v))
		return gf_fail(e, "%s '%s' is out of range; it must be %.15g to "
		    "%.15g", what, s, lo, hi);
	return gf_check_double(*v, what, lo, hi, e);
}

int
gf_check_double(double v, const char *what, double lo, double hi,
    struct gf_err *e)
{
	if (isnan(v))
		return gf_fail(e, "%s is not a number", what);
	/* %.15g: the bounds in plain digits (1000000000, not 1e+09). */
	if (v < lo || v > hi)
		return gf_fail(e, "%s is %.15g; it must be %.15g to %.15g", what, v,
		    lo, hi);
	return 0;
}

const char *const gf_border_names[GF_NBORDERS] = {"replicate", "zero",
    "reflect", "wrap"};

int
gf_parse_border(const char *s, enum gf_border *b, struct gf_err *e)
{
	for (int i = 0; i < GF_NBORDERS; i++) {
		if (strcmp(s, gf_border_names[i]) == 0) {
			*b = (enum gf_border)i;
			return 0;
		}
	}
	return gf_fail(e, "'%s' is not a border mode; choose replicate, zero, "
	    "reflect or wrap", s);
}

int
gf_parse_colour(const char *s, int *channels, int *max, struct gf_err *e)
{
	if (strcmp(s, "gray") != 0 && strcmp(s, "channels") != 0 &&
	    strcmp(s, "max") != 0)
		return gf_fail(e, "--colour '%s' is not a colour mode; choose "
		    "gray, channels or max", s);
	*channels = strcmp(s, "channels") == 0;
	*max = strcmp(s, "max") == 0;
	return 0;
}

/*
 * A decimal number of digits only (no sign, no space) at s, up to max:
 * its value, with *end after it; -1 when s has no digit, -2 when it is
 * larger than max.
 */
static long
parse_digits(const char *s, long max, const char **end)
{
	long v = 0;

	*end = s;
	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)**end); (*end)++)
		if (v <= max)
			v = v * 10 + (**end - '0');
	return v > max ? -2 : v;
}

int
gf_parse_devices(const char *s, struct gf_opts *o, struct gf_err *e)
{
	const char *p = s, *end;
	long v;
	int n = 0;

	o->all_devices = strcmp(s, "all") == 0;
	o->ndevices = 0;
	if (o->all_devices)
		return 0;
	for (;; p = end + 1) {
		if ((v = parse_digits(p, 1023, &end)) == -1 || (*end != ',' &&
		    *end != '\0'))
			return gf_fail(e, "--device '%s' is not a GPU number, a list of "
			    "them separated by commas (0,2,3) or all", s);
		if (v == -2)
			return gf_fail(e, "--device '%s': GPU %.*s is out of range; GPU "
			    "numbers are 0 to 1023", s, (int)(end - p), p);
		for (int i = 0; i < n; i++)
			if (o->devices[i] == v)
				return gf_fail(e, "--device '%s' names GPU %ld twice", s, v);
		if (n == GF_MAX_DEVICES)
			return gf_fail(e, "--device '%s' names more than %d GPUs", s,
			    GF_MAX_DEVICES);
		o->devices[n++] = (int)v;
		if (*end == '\0')
			break;
	}
	o->ndevices = n;
	return 0;
}

int
gf_parse_shard(const char *s, struct gf_opts *o, struct gf_err *e)
{
	const char *slash, *end;
	long k = parse_digits(s, 1000000, &slash), n = -1;

	if (k != -1 && *slash == '/')
		n = parse_digits(slash + 1, 1000000, &end);
	if (k == -1 || n == -1 || *slash != '/' || *end != '\0')
		return gf_fail(e, "--shard '%s' is not of the form K/N (0/4 is the "
		    "first of four shards)", s);
	if (n == -2 || n == 0)
		return gf_fail(e, "--shard '%s' is out of range: N must be 1 to "
		    "1000000", s);
	if (k == -2 || k >= n)
		return gf_fail(e, "--shard '%s' is out of range: K counts from 0, "
		    "so for %ld shards it must be 0 to %ld", s, n, n - 1);
	o->shard_k = (int)k;
	o->shard_n = (int)n;
	return 0;
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
	enum img_format f;
	long v;

	switch (c) {
	case 'm':
		return gf_strategy_parse(arg, &o->strategy, e) < 0 ? -1 : 1;
	case GF_OPT_CPU:
		o->strategy = GF_CPU;
		return 1;
	case GF_OPT_FALLBACK:
		o->fallback = 1;
		return 1;
	case GF_OPT_BORDER:
		return gf_parse_border(arg, &o->border, e) < 0 ? -1 : 1;
	case 'f':
		if (img_format_parse(arg, &f, e) < 0)
			return -1;
		o->format = f;
		return 1;
	case GF_OPT_QUALITY:
		if (gf_parse_int(arg, "--quality", 1, 100, &v, e) < 0)
			return -1;
		o->quality = (int)v;
		return 1;
	case 'o':
		/* An unset $OUTDIR must not become the root directory. */
		if (arg[0] == '\0')
			return gf_fail(e, "-o '' names no directory; give the "
			    "directory to write into (-o . for this one)");
		o->outdir = arg;
		return 1;
	case GF_OPT_BLOCK:
		return parse_block(arg, &o->launch, e) < 0 ? -1 : 1;
	case GF_OPT_ROWS:
		if (gf_parse_int(arg, "--rows", 1, 4096, &v, e) < 0)
			return -1;
		o->launch.rows = (int)v;
		return 1;
	case 'j':
		if (gf_parse_int(arg, "-j", 1, POOL_MAX_THREADS, &v, e) < 0)
			return -1;
		o->threads = (int)v;
		return 1;
	case GF_OPT_DEVICE:
		return gf_parse_devices(arg, o, e) < 0 ? -1 : 1;
	case GF_OPT_SHARD:
		return gf_parse_shard(arg, o, e) < 0 ? -1 : 1;
	case GF_OPT_MAX_PIXELS:
		if (gf_parse_int(arg, "--max-pixels", 0, LONG_MAX, &v, e) < 0)
			return -1;
		o->max_pixels = v;
		return 1;
	case GF_OPT_NO_AUTOROTATE:
		o->no_autorotate = 1;
		return 1;
	case GF_OPT_FILES_FROM:
		if (arg[0] == '\0')
			return gf_fail(e, "--files-from '' names no file; give the list's "
			    "file, or - for standard input");
		o->files_from = arg;
		return 1;
	case '0':
		o->null_sep = 1;
		return 1;
	case GF_OPT_NO_SERVER:
		o->no_server = 1;
		return 1;
	case GF_OPT_PROGRESS:
		o->progress = 1;
		return 1;
	case 'v':               /* independent of -q, in either order */
		o->verbose = 1;
		return 1;
	case 'q':
		o->quiet = 1;
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

/* Length of the option name in word "--name[=value]", after the dashes. */
static size_t
long_name_len(const char *word)
{
	return strcspn(word + 2, "=");
}

/*
 * The long options whose names begin with the n bytes of name: the count,
 * with the first exact match (or else the first match) in *first and the
 * first one whose val is val in *with_val (NULL if none).
 */
static int
long_matches(const struct option *longopts, const char *name, size_t n, int val,
    const struct option **first, const struct option **with_val)
{
	int count = 0;

	*first = *with_val = NULL;
	for (const struct option *l = longopts; l->name != NULL; l++) {
		if (strncmp(l->name, name, n) != 0)
			continue;
		count++;
		if (*first == NULL || l->name[n] == '\0')
			*first = l;
		if (*with_val == NULL && l->val == val)
			*with_val = l;
	}
	return count;
}

/* "option --b is ambiguous: it could be --border, --block or --bias". */
static int
refuse_ambiguous(const struct option *longopts, const char *name, size_t n,
    struct gf_err *e)
{
	size_t len;
	int count = 0, total = 0;

	for (const struct option *l = longopts; l->name != NULL; l++)
		total += strncmp(l->name, name, n) == 0;
	len = (size_t)snprintf(e->msg, sizeof(e->msg), "option --%.*s is "
	    "ambiguous: it could be", (int)n, name);
	for (const struct option *l = longopts; l->name != NULL; l++) {
		if (strncmp(l->name, name, n) != 0 || len >= sizeof(e->msg))
			continue;
		count++;
		len += (size_t)snprintf(e->msg + len, sizeof(e->msg) - len, "%s--%s",
		    count == 1 ? " " : count == total ? " or " : ", ", l->name);
	}
	return -1;
}

/*
 * The distance of a (na bytes) from b, both at most OPTS_NAME_MAX bytes
 * (longer: a large number): insertions, deletions, substitutions and
 * swaps of neighbours, each 1 (optimal string alignment).
 */
#define OPTS_NAME_MAX 40
static int
name_distance(const char *a, size_t na, const char *b)
{
	int d[OPTS_NAME_MAX + 1][OPTS_NAME_MAX + 1];
	size_t nb = strlen(b);

	if (na > OPTS_NAME_MAX || nb > OPTS_NAME_MAX)
		return 1000;
	for (size_t i = 0; i <= na; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= nb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= na; i++)
		for (size_t j = 1; j <= nb; j++) {
			int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[na][nb];
}

/*
 * The long option nearest to name (n bytes) that a typo could have come
 * from: at most 2 edits, and fewer than a third of the name's length;
 * NULL if none.
 */
static const struct option *
nearest_long(const struct option *longopts, const char *name, size_t n)
{
	const struct option *best = NULL;
	int bestd = 3;

	for (const struct option *l = longopts; l->name != NULL; l++) {
		int d = name_distance(name, n, l->name);
		if (d < bestd && 3 * (size_t)d < strlen(l->name)) {
			bestd = d;
			best = l;
		}
	}
	return best;
}

int
gf_opts_refused(int c, char *const *argv, const struct option *longopts,
    struct gf_err *e)
{
	const struct option *near;
	const char *word = optind > 0 ? argv[optind - 1] : "";
	const struct option *first, *with_val;
	size_t n = 0;
	int count = 0;

	/* A long option's error leaves its word at optind - 1 and sets optopt
	 * to its val (0 when unknown); a short one sets optopt to the letter. */
	if (strncmp(word, "--", 2) == 0 && word[2] != '\0') {
		n = long_name_len(word);
		count = long_matches(longopts, word + 2, n, optopt, &first, &with_val);
	}
	if (n > 0 && optopt == 0 && count > 1)
		return refuse_ambiguous(longopts, word + 2, n, e);
	if (n > 0 && optopt == 0 &&
	    (near = nearest_long(longopts, word + 2, n)) != NULL)
		return gf_fail(e, "option --%.*s is unknown; did you mean --%s?",
		    (int)n, word + 2, near->name);
	if (n > 0 && optopt == 0)
		return gf_fail(e, "option --%.*s is unknown", (int)n, word + 2);
	if (n > 0 && with_val != NULL && c == ':')
		return gf_fail(e, "option --%s needs a value", with_val->name);
	if (n > 0 && with_val != NULL)
		return gf_fail(e, "option --%s takes no value", with_val->name);
	if (!isprint(optopt))
		return gf_fail(e, "option byte 0x%02x is unknown", optopt & 0xff);
	if (c == ':')
		return gf_fail(e, "option -%c needs a value", optopt);
	return gf_fail(e, "option -%c is unknown", optopt);
}
