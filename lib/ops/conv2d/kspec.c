/*
 * kspec.c - conv2d's kernels from text (-k): inline rows, @file, named
 * kernels, and the classification (integer taps, rank one) that selects
 * the exact integer arithmetic and the separable passes.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d.h"
#include "opts.h"

#define KSPEC_FILE_MAX (1 << 20)

/* The state of one parse: where we are, for messages that name the spot. */
struct kparse {
	struct kspec *k;
	const char *file;       /* NULL for inline text */
	int line;               /* 1-based line in file */
	int ncol;               /* values in the row being read */
	struct gf_err *e;
};

/* gf_fail with "kernel file F, line L: " in front when reading a file. */
static int
kparse_fail(const struct kparse *kp, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
kparse_fail(const struct kparse *kp, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (kp->file != NULL)
		return gf_fail(kp->e, "kernel file %.80s, line %d: %s", kp->file,
		    kp->line, msg);
	return gf_fail(kp->e, "%s", msg);
}

/* Reads one value of token s (len bytes) into the row being read. */
static int
kparse_value(struct kparse *kp, const char *s, size_t len)
{
	struct kspec *k = kp->k;
	int row = k->kh + 1, col = kp->ncol + 1;
	char buf[64], *end;
	double v;

	if (k->kh == CONV_MAX_K)
		return kparse_fail(kp, "the kernel has more than %d rows", CONV_MAX_K);
	if (k->kh > 0 && kp->ncol == k->kw)
		return kparse_fail(kp, "kernel row %d has more values than row 1 "
		    "(%d)", row, k->kw);
	if (kp->ncol == CONV_MAX_K)
		return kparse_fail(kp, "kernel row %d has more than %d values",
		    row, CONV_MAX_K);
	if (len >= sizeof(buf))
		return kparse_fail(kp, "kernel row %d, value %d: '%.20s...' is not "
		    "a number", row, col, s);
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (*end != '\0' || isnan(v) || (errno != 0 && errno != ERANGE))
		return kparse_fail(kp, "kernel row %d, value %d: '%s' is not a "
		    "number", row, col, buf);
	if (errno == ERANGE && fabs(v) < 1)
		return kparse_fail(kp, "kernel row %d, value %d: '%s' is too close "
		    "to 0 to be represented (give 0, or at least %g)", row, col, buf,
		    DBL_MIN);
	if (!isfinite(v) || fabs(v) > KSPEC_MAX_TAP)
		return kparse_fail(kp, "kernel row %d, value %d: %s is too large; "
		    "taps must be within -%.15g to %.15g", row, col, buf, KSPEC_MAX_TAP,
		    KSPEC_MAX_TAP);
	k->taps[k->kh * k->kw + kp->ncol] = v;
	kp->ncol++;
	return 0;
}

/*
 * Ends the row being read at ';' (explicit) or a newline or the end of
 * the text: an explicit empty row is an error, other empty ones (blank
 * lines, a trailing ';') are skipped.
 */
static int
kparse_end_row(struct kparse *kp, int explicit)
{
	struct kspec *k = kp->k;

	if (kp->ncol == 0) {
		if (explicit)
			return kparse_fail(kp, "kernel row %d is empty", k->kh + 1);
		return 0;
	}
	if (k->kh == 0)
		k->kw = kp->ncol;
	else if (kp->ncol != k->kw)
		return kparse_fail(kp, "kernel row %d has %d values; row 1 has %d",
		    k->kh + 1, kp->ncol, k->kw);
	k->kh++;
	kp->ncol = 0;
	return 0;
}

/* Parses rows of values in s; file names the file (NULL for inline text). */
static int
kparse_text(const char *s, const char *file, struct kspec *k,
    struct gf_err *e)
{
	struct kparse kp = {k, file, 1, 0, e};
	size_t len;

	memset(k, 0, sizeof(*k));
	for (;;) {
		s += strspn(s, " \t\r,");
		if (*s == '#') {
			s += strcspn(s, "\n");
			continue;
		}
		if (*s == ';' || *s == '\n' || *s == '\0') {
			if (kparse_end_row(&kp, *s == ';') < 0)
				return -1;
			if (*s == '\0')
				break;
			kp.line += *s == '\n';
			s++;
			continue;
		}
		len = strcspn(s, " \t\r,;\n#");
		if (kparse_value(&kp, s, len) < 0)
			return -1;
		s += len;
	}
	if (k->kh == 0)
		return kparse_fail(&kp, "the kernel is empty: give rows of "
		    "numbers such as \"1 2 1; 2 4 2; 1 2 1\"");
	kspec_classify(k);
	return 0;
}

/* Reads the whole of file path (at most KSPEC_FILE_MAX bytes) into *text. */
static int
read_small_file(const char *path, char **text, struct gf_err *e)
{
	FILE *f = fopen(path, "rb");
	size_t n;
	char *buf;

	if (f == NULL)
		return gf_fail(e, "cannot open kernel file %s: %s", path,
		    strerror(errno));
	buf = malloc(KSPEC_FILE_MAX + 1);
	if (buf == NULL) {
		fclose(f);
		return gf_nomem(e, "out of memory reading kernel file %s", path);
	}
	n = fread(buf, 1, KSPEC_FILE_MAX + 1, f);
	if (ferror(f) || n > KSPEC_FILE_MAX || memchr(buf, '\0', n) != NULL) {
		int err = ferror(f) ? errno : 0;
		free(buf);
		fclose(f);
		if (err != 0)
			return gf_fail(e, "cannot read kernel file %s: %s", path,
			    strerror(err));
		return gf_fail(e, "kernel file %s is not a text of at most %d "
		    "bytes", path, KSPEC_FILE_MAX);
	}
	fclose(f);
	buf[n] = '\0';
	*text = buf;
	return 0;
}

static int
kspec_parse_file(const char *path, struct kspec *k, struct gf_err *e)
{
	char *text = NULL;
	int rc;

	if (*path == '\0')
		return gf_fail(e, "kernel '@' names no file; write -k @FILE");
	if (read_small_file(path, &text, e) < 0)
		return -1;
	rc = kparse_text(text, path, k, e);
	free(text);
	return rc;
}

/* Sets k to n x n ones, divided by n*n (box:N). */
static void
kspec_box(struct kspec *k, int n)
{
	memset(k, 0, sizeof(*k));
	k->kw = k->kh = n;
	for (int i = 0; i < n * n; i++)
		k->taps[i] = 1;
	for (int i = 0; i < n; i++)
		k->col[i] = k->row[i] = 1;
	k->integer = 1;
	k->separable = 1;
	k->normalized = 1;
}

/*
 * Rounds the normalized 1D Gaussian g (n taps, n odd, sum 1) to integers
 * q summing to KSPEC_GAUSS_ONE: from the outermost pair inwards, each
 * tap is g * ONE plus the rounding error carried from the pair outside
 * it, rounded half up (the pair keeps the kernel symmetric); the centre
 * takes what is left, so it is within one of its own scaled value.
 */
static void
gauss_round(const double *g, int n, int *q)
{
	double err = 0;
	int side = 0, r = n / 2;

	for (int i = 0; i < r; i++) {
		double v = g[i] * KSPEC_GAUSS_ONE + err;
		q[i] = q[n - 1 - i] = (int)floor(v + 0.5);
		err = v - q[i];
		side += q[i];
	}
	q[r] = KSPEC_GAUSS_ONE - 2 * side;
}

int
kspec_gauss(struct kspec *k, double sigma, int size, struct gf_err *e)
{
	double g[CONV_MAX_K], sum = 0;
	int q[CONV_MAX_K], r, lo = 0, trim = size == 0;

	if (!(sigma > 0) || sigma > CONV_MAX_K)
		return gf_fail(e, "gauss sigma %g must be above 0 (and at most %d)",
		    sigma, CONV_MAX_K);
	if (size == 0 && ceil(3 * sigma) > (CONV_MAX_K - 1) / 2)
		return gf_fail(e, "gauss sigma %g needs %g taps, more than %d; "
		    "give a smaller sigma or gauss:SIGMA:SIZE", sigma,
		    2 * ceil(3 * sigma) + 1, CONV_MAX_K);
	if (size < 0 || size > CONV_MAX_K || (size != 0 && size % 2 == 0))
		return gf_fail(e, "gauss size %d must be odd, 1 to %d", size,
		    CONV_MAX_K);
	memset(k, 0, sizeof(*k));
	if (size == 0)
		size = 2 * (int)ceil(3 * sigma) + 1;
	r = size / 2;
	for (int i = 0; i < size; i++)
		sum += g[i] = exp(-(double)(i - r) * (i - r) / (2 * sigma * sigma));
	for (int i = 0; i < size; i++)
		g[i] /= sum;
	gauss_round(g, size, q);
	/* A size of our own drops the pairs of end taps that round to 0. */
	while (trim && lo < r && q[lo] == 0)
		lo++;
	size -= 2 * lo;
	for (int i = 0; i < size; i++)
		k->row[i] = k->col[i] = q[lo + i];
	for (int i = 0; i < size; i++)
		for (int j = 0; j < size; j++)
			k->taps[i * size + j] = k->col[i] * k->row[j];
	k->kw = k->kh = size;
	k->integer = 1;
	k->separable = 1;
	k->unit_sum = 1;
	k->unit = KSPEC_GAUSS_ONE * KSPEC_GAUSS_ONE;
	return 0;
}

/* The named kernels of fixed taps. */
static const struct {
	const char *name, *taps;
} kspec_fixed[] = {
	{"sharpen", "0 -1 0; -1 5 -1; 0 -1 0"},
	{"laplace", "0 1 0; 1 -4 1; 0 1 0"},
	{"emboss", "-2 -1 0; -1 1 1; 0 1 2"},
	{"sobelx", "-1 0 1; -2 0 2; -1 0 1"},
	{"sobely", "-1 -2 -1; 0 0 0; 1 2 1"},
	{"identity", "0 0 0; 0 1 0; 0 0 0"},
};
#define KSPEC_NFIXED (sizeof(kspec_fixed) / sizeof(kspec_fixed[0]))

void
kspec_names(char *w, size_t n)
{
	size_t len = (size_t)snprintf(w, n, "box: gauss:");

	for (size_t i = 0; i < KSPEC_NFIXED && len < n; i++)
		len += (size_t)snprintf(w + len, n - len, " %s", kspec_fixed[i].name);
}

/* Parses the name[:args] of a named kernel. */
static int
kspec_named(const char *text, struct kspec *k, struct gf_err *e)
{
	char buf[128], *arg, *arg2;
	double sigma;
	long n = 0;

	for (size_t i = 0; i < KSPEC_NFIXED; i++)
		if (strcmp(text, kspec_fixed[i].name) == 0)
			return kparse_text(kspec_fixed[i].taps, NULL, k, e);
	snprintf(buf, sizeof(buf), "%s", text);
	arg = strchr(buf, ':');
	if (arg != NULL)
		*arg++ = '\0';
	if (arg != NULL && strcmp(buf, "box") == 0) {
		if (gf_parse_int(arg, "box size", 1, CONV_MAX_K, &n, e) < 0)
			return -1;
		kspec_box(k, (int)n);
		return 0;
	}
	if (arg != NULL && strcmp(buf, "gauss") == 0) {
		arg2 = strchr(arg, ':');
		if (arg2 != NULL)
			*arg2++ = '\0';
		if (gf_parse_double(arg, "gauss sigma", GF_MIN_SIGMA, CONV_MAX_K, &sigma, e) < 0)
			return -1;
		if (arg2 != NULL && gf_parse_int(arg2, "gauss size", 1, CONV_MAX_K,
		    &n, e) < 0)
			return -1;
		return kspec_gauss(k, sigma, (int)n, e);
	}
	return gf_fail(e, "'%.60s' is not a kernel: give rows of numbers, "
	    "@FILE, or one of box:N, gauss:SIGMA[:SIZE], sharpen, laplace, "
	    "emboss, sobelx, sobely, identity", text);
}

int
kspec_parse(const char *text, struct kspec *k, struct gf_err *e)
{
	if (text[0] == '@')
		return kspec_parse_file(text + 1, k, e);
	if ((text[0] >= 'a' && text[0] <= 'z') || (text[0] >= 'A' && text[0] <= 'Z'))
		return kspec_named(text, k, e);
	return kparse_text(text, NULL, k, e);
}

/* ---- classification */

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

int
kspec_parse_divisor(const char *text, double *d, struct gf_err *e)
{
	if (gf_parse_double(text, "--divisor", -KSPEC_MAX_TAP, KSPEC_MAX_TAP, d,
	    e) < 0)
		return -1;
	return kspec_check_divisor(*d, e);
}

int
kspec_check_divisor(double d, struct gf_err *e)
{
	if (gf_check_double(d, "--divisor", -KSPEC_MAX_TAP, KSPEC_MAX_TAP, e) < 0)
		return -1;
	if (d == 0)
		return gf_fail(e, "--divisor 0 would divide by zero; give a "
		    "nonzero divisor");
	if (fabs(d) < KSPEC_MIN_DIVISOR)
		return gf_fail(e, "--divisor %g is too small: the taps divided by it "
		    "leave the range of float; give at least %g in magnitude", d,
		    KSPEC_MIN_DIVISOR);
	return 0;
}
