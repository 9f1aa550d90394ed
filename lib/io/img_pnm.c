/*
 * img_pnm.c - PNM (PBM, PGM, PPM, PAM) in and out through libnetpbm, whose
 * errors would exit the process: every call is guarded with pm_setjmpbuf
 * and turned into an error return.  Raw rasters are read and written as
 * bytes once libnetpbm has parsed or written the header, which keeps a
 * stream of video frames fast.
 *
 * A header is first copied from the stream by pnm_copy_header, within
 * limits (the bytes of its tokens and lines, no control bytes in a PAM
 * line), and libnetpbm parses the copy: its PAM parser reads a line into
 * a fixed buffer and, given one of 253 bytes, copies between overlapping
 * strings (the fuzzer found it).
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <pam.h>

#include "img_int.h"

/*
 * The length of struct pam that libnetpbm should fill, up to tuple_type.
 * PAM_STRUCT_SIZE does the same through a null pointer, which UBSan
 * reports; offsetof is the defined way.
 */
#define PNM_PAM_LEN (offsetof(struct pam, tuple_type) + \
	sizeof(((struct pam *)NULL)->tuple_type))

/*
 * Header limits: the bytes read for one (comments too), its copy, and a
 * line of PAM (libnetpbm reads one into a buffer of 256 bytes).
 */
#define HEAD_READ_MAX ((long)1 << 20)
#define HEAD_COPY_MAX 8192
#define HEAD_LINE_MAX 200

/* A header's copy, and the bytes read for it. */
struct pnm_head {
	char b[HEAD_COPY_MAX];
	size_t n;
	long read;
};

/*
 * libnetpbm keeps its error jump buffer and message hooks in globals, so
 * every call into it holds this lock: readers on several threads (a batch
 * decoded by a pool) then never share that state.
 */
static pthread_mutex_t pnm_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * libnetpbm reports an error through a callback that takes no context,
 * then longjmps to the guard; this buffer carries the message across.
 * One of lib/'s three mutable globals (HACKING.md), forced by that API.
 */
static char pnm_msg[256];

static void
pnm_error_msg(const char *msg)
{
	gf_escape(pnm_msg, sizeof(pnm_msg), msg);
}

static void
pnm_quiet(const char *msg)
{
	(void)msg;
}

static void
pnm_setup(void)
{
	static int done;

	if (!done) {
		pm_init("gpufilt", 0);
		pm_setusererrormsgfn(pnm_error_msg);
		pm_setusermessagefn(pnm_quiet);
		done = 1;
	}
	pnm_msg[0] = '\0';
}

/* The next byte of r's header, counted against HEAD_READ_MAX; EOF past it. */
static int
head_getc(struct img_reader *r, struct pnm_head *h)
{
	return h->read++ < HEAD_READ_MAX ? getc(r->f) : EOF;
}

/* -1 with e: the header ended early, or ran too long, or a reason. */
static int
head_fail(struct img_reader *r, const struct pnm_head *h, const char *why,
    struct gf_err *e)
{
	char len[80];

	if (why == NULL && h->read > HEAD_READ_MAX) {
		snprintf(len, sizeof(len), "it is too long: it does not end within "
		    "%ld bytes", HEAD_READ_MAX);
		why = len;
	} else if (why == NULL && h->n >= sizeof(h->b)) {
		snprintf(len, sizeof(len), "it is too long: its fields, comments "
		    "aside, pass %d bytes", HEAD_COPY_MAX);
		why = len;
	} else if (why == NULL) {
		why = ferror(r->f) ? strerror(errno) : "it is truncated";
	}
	return gf_fail(e, "%s: bad PNM header in image %d: %s", r->name,
	    r->nread + 1, why);
}

static int
head_put(struct pnm_head *h, int c)
{
	if (h->n >= sizeof(h->b))
		return -1;
	h->b[h->n++] = (char)c;
	return 0;
}

/*
 * The rest of a P1-P6 header: ntok whitespace-separated numbers (width,
 * height, and maxval but for PBM), with comments dropped and the
 * whitespace between numbers copied as one byte (so that any number of
 * comment lines fits the copy, within HEAD_READ_MAX), up to and with
 * the one whitespace byte after the last, where the raster begins.
 */
static int
copy_pnm_tokens(struct img_reader *r, struct pnm_head *h, int ntok,
    struct gf_err *e)
{
	int c, tok = 0, in_token = 0;

	for (;;) {
		if ((c = head_getc(r, h)) == '#') {
			while ((c = head_getc(r, h)) != EOF && c != '\n' && c != '\r')
				;
			if (c != EOF)
				c = '\n';
		}
		if (c != EOF && !in_token && isspace(c) && h->n > 0 &&
		    isspace((unsigned char)h->b[h->n - 1]))
			continue;
		if (c == EOF || head_put(h, c) < 0)
			return head_fail(r, h, NULL, e);
		if (!isspace(c))
			in_token = 1;
		else if (in_token && ++tok == ntok)
			return 0;
		else
			in_token = 0;
	}
}

/*
 * The rest of a PAM header, line by line up to ENDHDR: comment lines
 * dropped, each other line at most HEAD_LINE_MAX bytes of text.
 */
static int
copy_pam_lines(struct img_reader *r, struct pnm_head *h, struct gf_err *e)
{
	char why[40];

	for (int line = 1;; line++) {
		size_t start = h->n, len = 0;
		int c, comment = 0;
		while ((c = head_getc(r, h)) != EOF && c != '\n') {
			if (len++ == 0 && c == '#' && line > 1)
				comment = 1;
			if (comment)
				continue;
			if (len > HEAD_LINE_MAX || (iscntrl(c) && !isspace(c))) {
				snprintf(why, sizeof(why), "line %d %s", line,
				    len > HEAD_LINE_MAX ? "is too long" :
				    "has a control byte");
				return head_fail(r, h, why, e);
			}
			if (head_put(h, c) < 0)
				return head_fail(r, h, NULL, e);
		}
		if (c == EOF || (!comment && head_put(h, '\n') < 0))
			return head_fail(r, h, NULL, e);
		while (start < h->n && isspace((unsigned char)h->b[start]))
			start++;
		if (!comment && h->n - start >= 7 &&
		    strncmp(h->b + start, "ENDHDR", 6) == 0 &&
		    isspace((unsigned char)h->b[start + 6]))
			return 0;
	}
}

/*
 * Copies image r->nread + 1's header from the stream into h (see the
 * top of the file); 0, or -1 with e.  A magic number other than P1-P7
 * is left to libnetpbm to refuse.
 */
static int
pnm_copy_header(struct img_reader *r, struct pnm_head *h, struct gf_err *e)
{
	int p = head_getc(r, h), d = head_getc(r, h);

	if (p == EOF || d == EOF || head_put(h, p) < 0 || head_put(h, d) < 0)
		return head_fail(r, h, NULL, e);
	if (d == '7')
		return copy_pam_lines(r, h, e);
	if (d >= '1' && d <= '6')
		return copy_pnm_tokens(r, h, d == '1' || d == '4' ? 2 : 3, e);
	return 0;
}

/*
 * The header of image r->nread + 1: copied (pnm_copy_header), then parsed
 * by pnm_readpaminit under a guard; -1 with libnetpbm's reason on a bad
 * one.  pam->file is then r's stream, where the raster is.
 */
static int
pnm_header(struct img_reader *r, struct pam *pam, struct gf_err *e)
{
	struct pnm_head h;
	jmp_buf jb, *saved;
	FILE *m;

	h.n = 0;
	h.read = 0;
	if (pnm_copy_header(r, &h, e) < 0)
		return -1;
	if ((m = fmemopen(h.b, h.n, "r")) == NULL)
		return gf_nomem(e, "%s: out of memory", r->name);
	pthread_mutex_lock(&pnm_lock);
	pnm_setup();
	if (setjmp(jb) != 0) {
		pm_setjmpbuf(saved);
		gf_fail(e, "%s: bad PNM header in image %d: %s", r->name,
		    r->nread + 1, pnm_msg);
		pthread_mutex_unlock(&pnm_lock);
		fclose(m);
		return -1;
	}
	pm_setjmpbufsave(&jb, &saved);
	pnm_readpaminit(m, pam, PNM_PAM_LEN);
	pm_setjmpbuf(saved);
	pthread_mutex_unlock(&pnm_lock);
	fclose(m);
	pam->file = r->f;
	return 0;
}

/* Checks that no sample exceeds maxval (raw rasters are not checked by libnetpbm). */
static int
check_samples(const struct img_reader *r, const struct image *img,
    struct gf_err *e)
{
	size_t i = img_over_maxval(img), px = i / img->channels;

	if (i == SIZE_MAX)
		return 0;
	return gf_fail(e, "%s: sample value %u in column %zu of row %zu "
	    "exceeds maxval %u", r->name, img_get(img, i), px % img->width + 1,
	    px / img->width + 1, img->maxval);
}

/* Reads a raw raster (P5, P6, P7) as bytes straight into the image, big-endian samples. */
static int
pnm_raw_raster(struct img_reader *r, struct image *img, struct gf_err *e)
{
	size_t rowbytes = (size_t)img->width * img->channels *
	    gf_sample_bytes(img->maxval);
	size_t got = fread(img->px, 1, rowbytes * img->height, r->f);

	if (got != rowbytes * img->height)
		return gf_fail(e, "%s: image %d is truncated: its pixel data "
		    "ends in row %zu of %d", r->name, r->nread + 1,
		    got / rowbytes + 1, img->height);
	if (img->maxval > 255) {
		uint8_t *b = img->px;
		for (size_t i = 0; i < img_bytes(img) / 2; i++)
			((uint16_t *)img->px)[i] = (uint16_t)(b[2 * i] << 8 | b[2 * i + 1]);
	}
	return check_samples(r, img, e);
}

/* Reads a plain or PBM raster through libnetpbm's tuple rows, guarded. */
static int
pnm_tuple_raster(struct img_reader *r, struct pam *pam, struct image *img,
    struct gf_err *e)
{
	jmp_buf jb, *saved;
	tuple *volatile row = NULL;
	volatile int y = 0;

	pthread_mutex_lock(&pnm_lock);
	if (setjmp(jb) != 0) {
		pm_setjmpbuf(saved);
		if (row != NULL)
			pnm_freepamrow(row);
		gf_fail(e, "%s: image %d is bad or truncated in row %d: %s",
		    r->name, r->nread + 1, y + 1, pnm_msg);
		pthread_mutex_unlock(&pnm_lock);
		return -1;
	}
	pm_setjmpbufsave(&jb, &saved);
	row = pnm_allocpamrow(pam);
	for (y = 0; y < img->height; y++) {
		pnm_readpamrow(pam, row);
		for (int x = 0; x < img->width; x++)
			for (int c = 0; c < img->channels; c++)
				img_set(img, ((size_t)y * img->width + x) *
				    img->channels + c, (unsigned)row[x][c]);
	}
	pnm_freepamrow(row);
	pm_setjmpbuf(saved);
	pthread_mutex_unlock(&pnm_lock);
	return 0;
}

int
img_pnm_read(struct img_reader *r, struct image *img, struct gf_err *e)
{
	struct pam pam;
	int raw;

	if (pnm_header(r, &pam, e) < 0)
		return -1;
	if (pam.depth < 1 || pam.depth > 4)
		return gf_fail(e, "%s: PAM image %d has depth %u; only gray (1), "
		    "gray+alpha (2), RGB (3) and RGB+alpha (4) are read", r->name,
		    r->nread + 1, pam.depth);
	if (img_check_size(r, pam.width, pam.height, (int)pam.depth,
	    (unsigned)pam.maxval, e) < 0)
		return -1;
	img->width = pam.width;
	img->height = pam.height;
	img->channels = (int)pam.depth;
	img->maxval = (unsigned)pam.maxval;
	if (img_reader_alloc(r, img, e) < 0)
		return -1;
	raw = pam.format == RPGM_FORMAT || pam.format == RPPM_FORMAT ||
	    pam.format == PAM_FORMAT;
	if ((raw ? pnm_raw_raster(r, img, e) :
	    pnm_tuple_raster(r, &pam, img, e)) < 0) {
		img_reader_release(r, img);
		return -1;
	}
	return 1;
}

/* Whether another PNM image follows (guarded pnm_nextimage). */
int
img_pnm_more(struct img_reader *r, int *more, struct gf_err *e)
{
	jmp_buf jb, *saved;
	int eof = 1;

	pthread_mutex_lock(&pnm_lock);
	pnm_setup();
	if (setjmp(jb) != 0) {
		pm_setjmpbuf(saved);
		gf_fail(e, "%s: garbage after image %d: %s", r->name,
		    r->nread, pnm_msg);
		pthread_mutex_unlock(&pnm_lock);
		return -1;
	}
	pm_setjmpbufsave(&jb, &saved);
	pnm_nextimage(r->f, &eof);
	pm_setjmpbuf(saved);
	pthread_mutex_unlock(&pnm_lock);
	*more = !eof;
	return 0;
}

/*
 * The channels of img as PNM of kind fmt: PPM makes gray RGB and drops
 * alpha; PNM and PAM keep them.
 */
static int
pnm_channels(const struct image *img, enum img_format fmt)
{
	return fmt == IMG_FORMAT_PPM ? 3 : img->channels;
}

/*
 * The PNM header through libnetpbm, guarded: for PNM, PGM or PPM, or PAM
 * with alpha; for PPM, PPM; for PAM, PAM; of channels samples a pixel.
 */
static int
write_pnm_header(FILE *f, const struct image *img, enum img_format fmt,
    int channels, const char *name, struct gf_err *e)
{
	static const char *const types[] = {PAM_PGM_TUPLETYPE,
	    PAM_PGM_ALPHA_TUPLETYPE, PAM_PPM_TUPLETYPE, PAM_PPM_ALPHA_TUPLETYPE};
	jmp_buf jb, *saved;
	struct pam pam;

	memset(&pam, 0, sizeof(pam));
	pam.size = sizeof(pam);
	pam.len = PNM_PAM_LEN;
	pam.file = f;
	pam.format = fmt == IMG_FORMAT_PAM || channels == 2 || channels == 4 ?
	    PAM_FORMAT : channels == 1 ? RPGM_FORMAT : RPPM_FORMAT;
	pam.plainformat = 0;
	pam.width = img->width;
	pam.height = img->height;
	pam.depth = (unsigned)channels;
	pam.maxval = img->maxval;
	strcpy(pam.tuple_type, types[channels - 1]);
	pthread_mutex_lock(&pnm_lock);
	pnm_setup();
	if (setjmp(jb) != 0) {
		pm_setjmpbuf(saved);
		gf_fail(e, "cannot write %s: %s", name, pnm_msg);
		pthread_mutex_unlock(&pnm_lock);
		return -1;
	}
	pm_setjmpbufsave(&jb, &saved);
	pnm_writepaminit(&pam);
	pm_setjmpbuf(saved);
	pthread_mutex_unlock(&pnm_lock);
	return 0;
}

/* Sample v as raw PNM bytes at b (two, big-endian, when wide): past them. */
static uint8_t *
pnm_put(uint8_t *b, unsigned v, int wide)
{
	if (wide)
		*b++ = (uint8_t)(v >> 8);
	*b++ = (uint8_t)v;
	return b;
}

/*
 * n samples of the output from sample i on (both whole pixels of
 * channels samples), as raw PNM bytes into buf: the bytes made.  With
 * fewer channels than img's (PPM of an RGB+alpha image) alpha is
 * dropped; with more (PPM of gray), the gray is given three times.
 */
static size_t
pnm_raw(const struct image *img, int channels, size_t i, size_t n,
    uint8_t *buf)
{
	int wide = img->maxval > 255, in = img->channels;
	uint8_t *b = buf;

	if (channels == in) {
		for (size_t end = i + n; i < end; i++)
			b = pnm_put(b, img_get(img, i), wide);
		return (size_t)(b - buf);
	}
	for (size_t px = i / channels, end = px + n / channels; px < end; px++)
		for (int c = 0; c < channels; c++)
			b = pnm_put(b, img_get(img, px * in + (in < 3 ? 0 : c)), wide);
	return (size_t)(b - buf);
}

int
img_write_rows(FILE *f, const struct image *img, enum img_format fmt,
    int y0, int y1, const char *name, struct gf_err *e)
{
	int channels = pnm_channels(img, fmt), wide = img->maxval > 255;
	size_t row = (size_t)img->width * channels, n = row * (y1 - y0);
	uint8_t buf[8192];
	/* Whole pixels of samples that fill buf. */
	size_t per = sizeof(buf) / (wide ? 2 : 1) / channels * channels;

	if (y0 == 0 && write_pnm_header(f, img, fmt, channels, name, e) < 0)
		return -1;
	if (!wide && channels == img->channels) {
		if (fwrite((const uint8_t *)img->px + row * y0, 1, n, f) != n)
			return gf_fail(e, "cannot write %s: %s", name, strerror(errno));
		return 0;
	}
	for (size_t i = row * y0, end = i + n; i < end; i += per) {
		size_t k = pnm_raw(img, channels, i, end - i < per ? end - i : per,
		    buf);
		if (fwrite(buf, 1, k, f) != k)
			return gf_fail(e, "cannot write %s: %s", name, strerror(errno));
	}
	return 0;
}

int
img_pnm_as_is(const struct image *img, enum img_format fmt)
{
	return img->maxval <= 255 && pnm_channels(img, fmt) == img->channels;
}

int
img_pnm_sniff(const unsigned char *b, size_t n)
{
	return n >= 1 && b[0] == 'P';
}

int
img_pnm_write(FILE *f, const struct image *img, enum img_format fmt,
    int quality, const struct img_icc *icc, const char *name,
    struct gf_err *e)
{
	(void)quality;
	(void)icc;
	return img_write_rows(f, img, fmt, 0, img->height, name, e);
}
