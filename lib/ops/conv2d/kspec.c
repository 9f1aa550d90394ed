/*
 * kspec.c - conv2d's kernels from text (-k): inline rows, ImageMagick's
 * kernel strings, @file, named kernels, and --divisor.  What a kernel's
 * taps allow (exact integers, separable passes): kspec_class.c.
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
	int explicit_rows;      /* rows ended by ';' */
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
	if (kp->ncol == (k->kh == 0 ? KSPEC_MAX_ROW1 : CONV_MAX_K))
		return kparse_fail(kp, "kernel row %d has more than %d values",
		    row, k->kh == 0 ? KSPEC_MAX_ROW1 : CONV_MAX_K);
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
	kp->explicit_rows += explicit;
	if (k->kh == 0 && kp->ncol > CONV_MAX_K && explicit)
		return kparse_fail(kp, "kernel row 1 has more than %d values",
		    CONV_MAX_K);
	if (k->kh == 0)
		k->kw = kp->ncol;
	else if (k->kw > CONV_MAX_K)
		return kparse_fail(kp, "kernel row 1 has more than %d values",
		    CONV_MAX_K);
	else if (kp->ncol != k->kw)
		return kparse_fail(kp, "kernel row %d has %d values; row 1 has %d",
		    k->kh + 1, kp->ncol, k->kw);
	k->kh++;
	kp->ncol = 0;
	return 0;
}

/*
 * Parses rows of values in s into k (taps, kw, kh), unclassified; file
 * names the file (NULL for inline text).  Row 1 may hold up to
 * KSPEC_MAX_ROW1 values when it is the only row and no ';' ends it,
 * for kspec_square to fold.  *explicit_rows gets the count of ';'.
 */
static int
kparse_rows(const char *s, const char *file, struct kspec *k,
    int *explicit_rows, struct gf_err *e)
{
	struct kparse kp = {k, file, 1, 0, 0, e};
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
	*explicit_rows = kp.explicit_rows;
	return 0;
}

/* Reshapes k's one row of w * h values into h rows of w. */
static void
kspec_fold(struct kspec *k, int w, int h)
{
	k->kw = w;
	k->kh = h;
}

/*
 * One row of n values, with no ';', where n is the square of an odd
 * side s of 3 or more (9, 25, 49 ... 3969) is read as s x s, as
 * ImageMagick reads such a list; k->note says so for -v.  A longer row
 * is an error.
 */
static int
kspec_square(struct kspec *k, const char *file, struct gf_err *e)
{
	int n = k->kw, side = (int)lround(sqrt((double)n));

	if (side * side == n && side % 2 == 1 && side >= 3) {
		kspec_fold(k, side, side);
		snprintf(k->note, sizeof(k->note), "the %d values of -k were read "
		    "as %dx%d rows, as ImageMagick reads them; end them with ';' "
		    "for one row of %d", n, side, side, n);
		return 0;
	}
	if (n > CONV_MAX_K) {
		if (file != NULL)
			return gf_fail(e, "kernel file %.80s: its one row has %d values, "
			    "more than %d and not an odd square (9, 25, 49 ...)", file,
			    n, CONV_MAX_K);
		return gf_fail(e, "kernel row 1 has more than %d values (%d), and "
		    "%d is not the square of an odd side", CONV_MAX_K, n, n);
	}
	return 0;
}

/* Parses rows of values in s; file names the file (NULL for inline text). */
static int
kparse_text(const char *s, const char *file, struct kspec *k,
    struct gf_err *e)
{
	int explicit_rows = 0;

	if (kparse_rows(s, file, k, &explicit_rows, e) < 0)
		return -1;
	if (k->kh == 1 && explicit_rows == 0 && kspec_square(k, file, e) < 0)
		return -1;
	kspec_classify(k);
	return 0;
}

/*
 * ImageMagick's "WxH[+X+Y]:" (or "N:", N x N) in front of a kernel:
 * 1 with *w, *h, the anchor *x, *y (without +X+Y, ImageMagick's
 * ((W-1)/2, (H-1)/2)) and *rest after the ':'; 0 if text does not
 * begin so.
 */
static int
kspec_im_geometry(const char *text, int *w, int *h, int *x, int *y,
    const char **rest)
{
	const char *s = text;
	char *end;
	long v[4];
	int n = 0;

	while (*s == ' ')
		s++;
	if (*s < '0' || *s > '9')
		return 0;
	v[n++] = strtol(s, &end, 10);
	s = end;
	if (*s == 'x' && s[1] >= '0' && s[1] <= '9') {
		v[n++] = strtol(s + 1, &end, 10);
		s = end;
	} else {
		v[n++] = v[0];
	}
	if ((*s == '+' || *s == '-') && s[1] >= '0' && s[1] <= '9') {
		v[n++] = strtol(s, &end, 10);
		s = end;
		if ((*s != '+' && *s != '-') || s[1] < '0' || s[1] > '9')
			return 0;
		v[n++] = strtol(s, &end, 10);
		s = end;
	}
	while (*s == ' ')
		s++;
	if (*s != ':')
		return 0;
	for (int i = 0; i < n; i++)
		if (v[i] < -KSPEC_MAX_ROW1 || v[i] > KSPEC_MAX_ROW1)
			v[i] = KSPEC_MAX_ROW1 + 1;
	*w = (int)v[0];
	*h = (int)v[1];
	*x = n == 4 ? (int)v[2] : (*w - 1) / 2;
	*y = n == 4 ? (int)v[3] : (*h - 1) / 2;
	*rest = s + 1;
	return 1;
}

/*
 * Moves the taps of k (kw x kh, anchor at (x, y)) into a kernel padded
 * with zeros so that its centre (kw/2, kh/2) is that anchor: e = the
 * anchor's larger reach to either side, the new side 2e + 1.  The taps
 * move to higher places, so copying from the last one down reads each
 * before it is overwritten.
 */
static int
kspec_anchor(struct kspec *k, int x, int y, const char *text,
    struct gf_err *e)
{
	int w = k->kw, h = k->kh;
	int ex = x > w - 1 - x ? x : w - 1 - x, ey = y > h - 1 - y ? y : h - 1 - y;
	int nw = 2 * ex + 1, nh = 2 * ey + 1, left = ex - x, top = ey - y;

	if (nw == w && nh == h)
		return 0;
	if (nw > CONV_MAX_K || nh > CONV_MAX_K)
		return gf_fail(e, "'%.40s': a %dx%d kernel anchored at %d,%d needs "
		    "%dx%d taps centred there, more than %d", text, w, h, x, y, nw,
		    nh, CONV_MAX_K);
	for (int i = h - 1; i >= 0; i--)
		for (int j = w - 1; j >= 0; j--) {
			double v = k->taps[i * w + j];
			k->taps[i * w + j] = 0;
			k->taps[(i + top) * nw + j + left] = v;
		}
	k->kw = nw;
	k->kh = nh;
	return 0;
}

/*
 * ImageMagick's kernel string "WxH[+X+Y]: v v v ...": W*H values, row
 * by row, anchored at X,Y (by default ((W-1)/2, (H-1)/2)).  An anchor
 * off our centre (W/2, H/2) is met by zero padding.
 */
static int
kspec_parse_im(const char *text, int w, int h, int x, int y,
    const char *rest, struct kspec *k, struct gf_err *e)
{
	int explicit_rows = 0;

	if (w < 1 || h < 1 || w > CONV_MAX_K || h > CONV_MAX_K)
		return gf_fail(e, "'%.40s': an ImageMagick kernel's sides must be 1 "
		    "to %d", text, CONV_MAX_K);
	if (x < 0 || x >= w || y < 0 || y >= h)
		return gf_fail(e, "'%.40s': the anchor %d,%d is outside the %dx%d "
		    "kernel", text, x, y, w, h);
	if (kparse_rows(rest, NULL, k, &explicit_rows, e) < 0)
		return -1;
	if (k->kh == 1 && k->kw == w * h)
		kspec_fold(k, w, h);
	if (k->kw != w || k->kh != h)
		return gf_fail(e, "'%.40s' needs %d values (%dx%d); %d given", text,
		    w * h, w, h, k->kw * k->kh);
	if (kspec_anchor(k, x, y, text, e) < 0)
		return -1;
	if (k->kw != w || k->kh != h)
		snprintf(k->note, sizeof(k->note), "the %dx%d kernel anchored at "
		    "%d,%d runs as %dx%d with zeros around it, centred there", w, h,
		    x, y, k->kw, k->kh);
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

/* Whether -k @FILE may read a file here (kspec_no_files). */
static int kspec_files = 1;

void
kspec_no_files(void)
{
	kspec_files = 0;
}

static int
kspec_parse_file(const char *path, struct kspec *k, struct gf_err *e)
{
	char *text = NULL;
	int rc;

	if (!kspec_files)
		return gf_fail(e, "kernel file %s: this process reads no kernel "
		    "files (a server: the tool reads them and runs itself)", path);
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

/* The 1D taps q of gauss:SIGMA:SIZE (size odd, 1 to CONV_MAX_K), summing to KSPEC_GAUSS_ONE. */
static void
gauss_taps(double sigma, int size, int *q)
{
	double g[CONV_MAX_K], sum = 0;
	int r = size / 2;

	for (int i = 0; i < size; i++)
		sum += g[i] = exp(-(double)(i - r) * (i - r) / (2 * sigma * sigma));
	for (int i = 0; i < size; i++)
		g[i] /= sum;
	gauss_round(g, size, q);
}

/* The size of sigma's kernels by the 3 sigma rule; -1 with e past CONV_MAX_K. */
static int
gauss_size(const char *what, double sigma, struct gf_err *e)
{
	if (!(sigma > 0) || sigma > CONV_MAX_K)
		return gf_fail(e, "%s sigma %g must be above 0 (and at most %d)",
		    what, sigma, CONV_MAX_K);
	if (ceil(3 * sigma) > (CONV_MAX_K - 1) / 2)
		return gf_fail(e, "%s sigma %g needs %g taps, more than %d; "
		    "give a smaller sigma%s", what, sigma, 2 * ceil(3 * sigma) + 1,
		    CONV_MAX_K, strcmp(what, "gauss") == 0 ?
		    " or gauss:SIGMA:SIZE" : "");
	return 2 * (int)ceil(3 * sigma) + 1;
}

int
kspec_gauss(struct kspec *k, double sigma, int size, struct gf_err *e)
{
	int q[CONV_MAX_K], r, lo = 0, trim = size == 0;

	if (size == 0 && (size = gauss_size("gauss", sigma, e)) < 0)
		return -1;
	if (!(sigma > 0) || sigma > CONV_MAX_K)
		return gf_fail(e, "gauss sigma %g must be above 0 (and at most %d)",
		    sigma, CONV_MAX_K);
	if (size < 1 || size > CONV_MAX_K || size % 2 == 0)
		return gf_fail(e, "gauss size %d must be odd, 1 to %d", size,
		    CONV_MAX_K);
	memset(k, 0, sizeof(*k));
	r = size / 2;
	gauss_taps(sigma, size, q);
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

/*
 * Drops the outer rings of k (square, odd) whose taps are all 0, so
 * that the stencil reads no pixels it does not weigh.  The taps move to
 * lower places, so copying from the first one up reads each before it
 * is overwritten.
 */
static void
kspec_trim(struct kspec *k)
{
	int n = k->kw, lo = 0, m;

	for (; lo < n / 2; lo++) {
		int zero = 1;
		for (int i = 0; i < n && zero; i++)
			zero = k->taps[lo * n + i] == 0 && k->taps[(n - 1 - lo) * n + i]
			    == 0 && k->taps[i * n + lo] == 0 &&
			    k->taps[i * n + n - 1 - lo] == 0;
		if (!zero)
			break;
	}
	if (lo == 0)
		return;
	m = n - 2 * lo;
	for (int i = 0; i < m; i++)
		for (int j = 0; j < m; j++)
			k->taps[i * m + j] = k->taps[(i + lo) * n + j + lo];
	for (int i = m * m; i < n * n; i++)
		k->taps[i] = 0;
	k->kw = k->kh = m;
}

/*
 * dog:S1,S2: gauss:S1:N minus gauss:S2:N in fixed point, N the 3 sigma
 * size of the larger sigma: taps q1[i] q1[j] - q2[i] q2[j], which sum
 * to 0, standing for 65536 times the kernel.
 */
static int
kspec_dog(struct kspec *k, double s1, double s2, struct gf_err *e)
{
	int q1[CONV_MAX_K], q2[CONV_MAX_K], n;

	if (s1 == s2)
		return gf_fail(e, "dog:%g,%g: the two sigmas are equal, which "
		    "leaves nothing; give two different ones", s1, s2);
	if ((n = gauss_size("dog", s1 > s2 ? s1 : s2, e)) < 0)
		return -1;
	memset(k, 0, sizeof(*k));
	gauss_taps(s1, n, q1);
	gauss_taps(s2, n, q2);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			k->taps[i * n + j] = (double)(q1[i] * q1[j] - q2[i] * q2[j]);
	k->kw = k->kh = n;
	kspec_trim(k);
	kspec_classify(k);
	k->unit = KSPEC_GAUSS_ONE * KSPEC_GAUSS_ONE;
	return 0;
}

/*
 * unsharp:SIGMA,AMOUNT: p + A (p - gauss:SIGMA p), A = AMOUNT rounded
 * to a multiple of 1/256 (a = 256 A): taps (256 + a) 65536 at the
 * centre less a q[i] q[j], standing for 2^24 times the kernel.
 */
static int
kspec_unsharp(struct kspec *k, double sigma, double amount,
    struct gf_err *e)
{
	int q[CONV_MAX_K], n, r;
	double a = floor(amount * 256 + 0.5), one = KSPEC_GAUSS_ONE;

	if ((n = gauss_size("unsharp", sigma, e)) < 0)
		return -1;
	memset(k, 0, sizeof(*k));
	gauss_taps(sigma, n, q);
	r = n / 2;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			k->taps[i * n + j] = -a * q[i] * q[j];
	k->taps[r * n + r] += (one + a) * one * one;
	k->kw = k->kh = n;
	kspec_trim(k);
	kspec_classify(k);
	k->unit_sum = 1;
	k->unit = one * one * one;
	return 0;
}

/*
 * log:SIGMA: the Laplacian of a Gaussian, negated (a positive centre,
 * as ImageMagick's LoG), over 2 ceil(4 SIGMA) + 1 taps:
 * (1 - r^2 / (2 SIGMA^2)) exp(-r^2 / (2 SIGMA^2)) / (pi SIGMA^4), each
 * times KSPEC_LOG_ONE rounded half up, then the centre made the
 * negated sum of the others so that flat areas give 0.
 */
static int
kspec_log(struct kspec *k, double sigma, struct gf_err *e)
{
	int n, r;
	double s2 = sigma * sigma, sum = 0;

	if (!(sigma >= KSPEC_LOG_MIN_SIGMA) || ceil(4 * sigma) > (CONV_MAX_K - 1) / 2)
		return gf_fail(e, "log sigma %g must be %g to %g (4 sigma on each "
		    "side in at most %d taps)", sigma, KSPEC_LOG_MIN_SIGMA,
		    (CONV_MAX_K - 1) / 2 / 4.0, CONV_MAX_K);
	memset(k, 0, sizeof(*k));
	n = 2 * (int)ceil(4 * sigma) + 1;
	r = n / 2;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			double d2 = (double)((i - r) * (i - r) + (j - r) * (j - r));
			double v = (1 - d2 / (2 * s2)) * exp(-d2 / (2 * s2)) /
			    (M_PI * s2 * s2);
			k->taps[i * n + j] = floor(v * KSPEC_LOG_ONE + 0.5);
			if (i != r || j != r)
				sum += k->taps[i * n + j];
		}
	k->taps[r * n + r] = -sum;
	k->kw = k->kh = n;
	kspec_trim(k);
	kspec_classify(k);
	k->unit = KSPEC_LOG_ONE;
	return 0;
}

/* Two numbers "A,B" of a named kernel's argument. */
static int
kspec_two(char *arg, const char *name, const char *what1, double lo1,
    double hi1, double *v1, const char *what2, double lo2, double hi2,
    double *v2, struct gf_err *e)
{
	char *b = strchr(arg, ',');

	if (b == NULL)
		return gf_fail(e, "%s:%.40s needs two numbers, %s and %s, split by "
		    "a comma: %s:%s,%s", name, arg, what1, what2, name, what1, what2);
	*b++ = '\0';
	if (gf_parse_double(arg, what1, lo1, hi1, v1, e) < 0 ||
	    gf_parse_double(b, what2, lo2, hi2, v2, e) < 0)
		return -1;
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
	{"laplacian", "-1 -1 -1; -1 8 -1; -1 -1 -1"},
	{"laplacian:8", "-1 -1 -1; -1 8 -1; -1 -1 -1"},
	{"laplacian:4", "0 -1 0; -1 4 -1; 0 -1 0"},
	{"prewitt", "-1 0 1; -1 0 1; -1 0 1"},
	{"prewittx", "-1 0 1; -1 0 1; -1 0 1"},
	{"prewitty", "-1 -1 -1; 0 0 0; 1 1 1"},
	{"scharrx", "-3 0 3; -10 0 10; -3 0 3"},
	{"scharry", "-3 -10 -3; 0 0 0; 3 10 3"},
	{"identity", "0 0 0; 0 1 0; 0 0 0"},
};
#define KSPEC_NFIXED (sizeof(kspec_fixed) / sizeof(kspec_fixed[0]))

void
kspec_names(char *w, size_t n)
{
	size_t len = (size_t)snprintf(w, n, "box: gauss: log: dog: unsharp:");

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
	if (arg != NULL && strcmp(buf, "log") == 0) {
		if (gf_parse_double(arg, "log sigma", KSPEC_LOG_MIN_SIGMA,
		    CONV_MAX_K, &sigma, e) < 0)
			return -1;
		return kspec_log(k, sigma, e);
	}
	if (arg != NULL && strcmp(buf, "dog") == 0) {
		double s2;
		if (kspec_two(arg, "dog", "SIGMA1", GF_MIN_SIGMA, CONV_MAX_K, &sigma,
		    "SIGMA2", GF_MIN_SIGMA, CONV_MAX_K, &s2, e) < 0)
			return -1;
		return kspec_dog(k, sigma, s2, e);
	}
	if (arg != NULL && strcmp(buf, "unsharp") == 0) {
		double amount;
		if (kspec_two(arg, "unsharp", "SIGMA", GF_MIN_SIGMA, CONV_MAX_K,
		    &sigma, "AMOUNT", 0, KSPEC_UNSHARP_MAX, &amount, e) < 0)
			return -1;
		return kspec_unsharp(k, sigma, amount, e);
	}
	return gf_fail(e, "'%.60s' is not a kernel: give rows of numbers, "
	    "WxH: and values, @FILE, or one of box:N, gauss:SIGMA[:SIZE], "
	    "log:SIGMA, dog:S1,S2, unsharp:SIGMA,AMOUNT, sharpen, laplace, "
	    "laplacian[:4|:8], prewittx, prewitty, scharrx, scharry, emboss, "
	    "sobelx, sobely, identity", text);
}

int
kspec_parse(const char *text, struct kspec *k, struct gf_err *e)
{
	const char *rest;
	int w, h, x, y;

	if (kspec_im_geometry(text, &w, &h, &x, &y, &rest))
		return kspec_parse_im(text, w, h, x, y, rest, k, e);
	if (text[0] == '@')
		return kspec_parse_file(text + 1, k, e);
	if ((text[0] >= 'a' && text[0] <= 'z') || (text[0] >= 'A' && text[0] <= 'Z'))
		return kspec_named(text, k, e);
	return kparse_text(text, NULL, k, e);
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
