/*
 * img_tiff.c - TIFF in and out through libtiff.  libtiff seeks: a
 * regular file is read where it lies (pread), a pipe is read whole into
 * memory (up to the bytes the pixel limit allows, img_reader_input), and
 * what lies past the last byte its pages use is given back to the
 * stream after the last page (tiff_end); its output
 * is built in memory and then written to the FILE, which may be a pipe.
 * Each TIFF has its own error and warning handlers (TIFFOpenOptions),
 * which keep libtiff's reason in the call's struct: nothing is printed
 * and readers on several threads share nothing.
 *
 * In: 8- and 16-bit unsigned samples, and 16-, 32- and 64-bit floating
 * point ones made 16-bit (img_tiff_float_put), one strip or tile layout
 * with the channels interleaved; gray (min-is-black or min-is-white), RGB
 * and JPEG-compressed YCbCr, each with at most one extra sample, kept as
 * alpha; every page of a multi-page file, one image each; the
 * Orientation tag applied unless the reader says not (img_orient); each
 * page's ICC profile (tag 34675) kept for the writer.  A
 * warning while a page's pixels are decoded fails the page, whose
 * buffer is cleared first: no earlier contents reach an output.
 * Out: one page, uncompressed, 8 or 16 bit like PNG, alpha unassociated,
 * the writer's ICC profile in tag 34675; BigTIFF when the pixels pass
 * 2 GiB.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "img_tiff_lib.h"

#include "img_int.h"
#include "img_tiff_int.h"

/* Bytes that a page's tiles may hold beyond its pixels (they overhang its edges). */
#define TIFF_SLACK (16u << 20)

/*
 * What a TIFF's strips and tiles can hold, weighed against what its pages
 * promise (tiff_weigh): a page may have TIFF_PAGE_SPARE bytes of pixels
 * more than its compression can give from its bytes, all pages together
 * TIFF_FILE_SPARE more than from the file's.
 */
#define TIFF_PAGE_SPARE (1ull << 20)
#define TIFF_FILE_SPARE (16ull << 20)

/* Pixels above which a written TIFF is BigTIFF (offsets past 4 GiB). */
#define TIFF_BIG_BYTES (2ull << 30)

/* An open TIFF: reading one, the pages of a stream; or writing one. */
struct img_tiff {
	TIFF *tif;
	struct tiff_mem mem;
	char msg[200];          /* libtiff's last error, escaped */
	/*
	 * While a page's pixels are decoded, libtiff's first warning (its
	 * codecs warn of corrupt or missing data, e.g. a JPEG strip smaller
	 * than the strip, and go on): it fails the page.
	 */
	int decoding;
	char warning[200];
	int ended;              /* past the last page (tiff_end) */
};

/* libtiff's errors: the reason kept, escaped; nothing printed. */
static int
tiff_on_error(TIFF *tif, void *arg, const char *module, const char *fmt,
    va_list ap)
{
	struct img_tiff *t = arg;
	char raw[sizeof(t->msg)];

	(void)tif;
	(void)module;
	vsnprintf(raw, sizeof(raw), fmt, ap);
	gf_escape(t->msg, sizeof(t->msg), raw);
	return 1;
}

/* libtiff's warnings: kept while pixels are decoded, else dropped (unknown tags and the like). */
static int
tiff_on_warning(TIFF *tif, void *arg, const char *module, const char *fmt,
    va_list ap)
{
	struct img_tiff *t = arg;
	char raw[sizeof(t->warning)];

	(void)tif;
	(void)module;
	if (!t->decoding || t->warning[0] != '\0')
		return 1;
	vsnprintf(raw, sizeof(raw), fmt, ap);
	gf_escape(t->warning, sizeof(t->warning), raw);
	if (t->warning[0] == '\0')
		snprintf(t->warning, sizeof(t->warning), "a warning without words");
	return 1;
}

/*
 * libtiff's process-wide handlers print to stderr; they are cleared
 * once, so that a message that reaches no handler of ours is dropped.
 */
static void
tiff_quiet_globals(void)
{
	TIFFSetErrorHandler(NULL);
	TIFFSetWarningHandler(NULL);
}

/* Opens t->mem with mode ("r", "w", "w8"); max_alloc: libtiff's largest allocation, 0 none. */
static int
tiff_open(struct img_tiff *t, const char *name, const char *mode,
    uint64_t max_alloc)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	TIFFOpenOptions *opts;

	if (tiff_lib_load(t->msg, sizeof(t->msg)) < 0)
		return -1;
	pthread_once(&once, tiff_quiet_globals);
	if ((opts = TIFFOpenOptionsAlloc()) == NULL) {
		snprintf(t->msg, sizeof(t->msg), "out of memory");
		return -1;
	}
	TIFFOpenOptionsSetErrorHandlerExtR(opts, tiff_on_error, t);
	TIFFOpenOptionsSetWarningHandlerExtR(opts, tiff_on_warning, t);
	if (max_alloc > 0 && max_alloc < (uint64_t)INT64_MAX)
		TIFFOpenOptionsSetMaxSingleMemAlloc(opts, (tmsize_t)max_alloc);
	t->tif = TIFFClientOpenExt(name, mode, &t->mem, img_tiff_mem_read,
	    img_tiff_mem_write, img_tiff_mem_seek, img_tiff_mem_close, img_tiff_mem_size,
	    img_tiff_mem_map, img_tiff_mem_unmap, opts);
	TIFFOpenOptionsFree(opts);
	if (t->tif == NULL && t->msg[0] == '\0')
		snprintf(t->msg, sizeof(t->msg), "libtiff cannot open it");
	return t->tif != NULL ? 0 : -1;
}

/* ---- TIFF in */

/*
 * Where libtiff reads r's stream: a regular file in place, from where
 * the sniffed bytes began (a multi-page file may be larger than memory);
 * anything else (a pipe) in memory (img_reader_input).
 */
static int
tiff_input(struct img_reader *r, struct tiff_mem *m, struct gf_err *e)
{
	struct img_input in;
	off_t size;

	if (img_reader_file(r, &m->start, &size)) {
		m->file = 1;
		m->fd = fileno(r->f);
		m->len = (size_t)size;
		return 0;
	}
	if (img_reader_input(r, "TIFF", &in, e) < 0)
		return -1;
	m->p = (unsigned char *)in.p;
	m->len = in.len;
	return 0;
}

/* A name for a photometric interpretation, for messages. */
static const char *
tiff_photometric_name(unsigned p)
{
	static const char *names[] = {"min-is-white", "min-is-black", "RGB",
	    "palette", "transparency mask", "CMYK", "YCbCr", "?", "CIE L*a*b*"};

	return p < sizeof(names) / sizeof(names[0]) ? names[p] : "unknown";
}

/* What a page holds, from its tags. */
struct tiff_page {
	uint32_t w, h;
	uint16_t bits, spp, format, planar, photometric, compression, orientation;
	int colours;            /* 1 or 3 */
};

/*
 * The maxval of the image a page becomes: 255 for 8-bit samples, 65535
 * for 16-bit ones and for floating point (img_tiff_float_put).
 */
static unsigned
tiff_maxval(const struct tiff_page *p)
{
	return p->bits == 8 ? 255 : 65535;
}

/* The bytes of a pixel of the page as stored (as libtiff decodes it). */
static size_t
tiff_pixel_bytes(const struct tiff_page *p)
{
	return (size_t)p->spp * (p->bits / 8);
}

/* The tags of the current page; -1 (e set) for a layout we do not read. */
static int
tiff_page_tags(struct img_reader *r, TIFF *tif, struct tiff_page *p,
    struct gf_err *e)
{
	int page = r->nread + 1;

	if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &p->w) ||
	    !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &p->h) ||
	    !TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &p->photometric))
		return gf_fail(e, "%s: TIFF page %d has no width, height or "
		    "photometric interpretation", r->name, page);
	TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &p->bits);
	TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &p->spp);
	TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &p->format);
	TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &p->planar);
	TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &p->compression);
	TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &p->orientation);
	if (p->format == SAMPLEFORMAT_IEEEFP) {
		if (p->bits != 16 && p->bits != 32 && p->bits != 64)
			return gf_fail(e, "%s: TIFF page %d has floating-point samples of "
			    "%u bits; 16, 32 and 64 are read", r->name, page, p->bits);
	} else if (p->format != SAMPLEFORMAT_UINT) {
		return gf_fail(e, "%s: TIFF page %d has sample format %u (%s); "
		    "unsigned integer and floating-point samples are read", r->name,
		    page, p->format, p->format == SAMPLEFORMAT_INT ?
		    "signed integer" : "other");
	} else if (p->bits != 8 && p->bits != 16) {
		return gf_fail(e, "%s: TIFF page %d has %u bits per sample; 8 and 16 "
		    "are read", r->name, page, p->bits);
	}
	if (p->planar != PLANARCONFIG_CONTIG)
		return gf_fail(e, "%s: TIFF page %d stores each channel in a plane of "
		    "its own (planar configuration %u); only interleaved channels "
		    "are read", r->name, page, p->planar);
	switch (p->photometric) {
	case PHOTOMETRIC_MINISBLACK:
	case PHOTOMETRIC_MINISWHITE:
		p->colours = 1;
		break;
	case PHOTOMETRIC_RGB:
		p->colours = 3;
		break;
	case PHOTOMETRIC_YCBCR:
		if (p->compression == COMPRESSION_JPEG && p->bits == 8 &&
		    TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB)) {
			p->colours = 3;
			break;
		}
		/* FALLTHROUGH */
	default:
		return gf_fail(e, "%s: TIFF page %d is %s (photometric interpretation "
		    "%u, compression %u); gray, RGB and JPEG-compressed YCbCr are read",
		    r->name, page, tiff_photometric_name(p->photometric),
		    p->photometric, p->compression);
	}
	if (p->spp != p->colours && p->spp != p->colours + 1)
		return gf_fail(e, "%s: TIFF page %d is %s with %u samples per pixel; "
		    "%d (or %d with alpha) are read", r->name, page,
		    tiff_photometric_name(p->photometric), p->spp, p->colours,
		    p->colours + 1);
	return 0;
}

/*
 * Puts n samples of the page as libtiff decodes them (host byte order),
 * at src, into img from sample k: unsigned ones copied, floating-point
 * ones made 16-bit (img_tiff_float_put).
 */
static void
tiff_put(const struct tiff_page *p, struct image *img, size_t k,
    const unsigned char *src, size_t n)
{
	if (p->format == SAMPLEFORMAT_IEEEFP)
		img_tiff_float_put(img, k, src, n, p->bits);
	else
		memcpy((char *)img->px + k * (p->bits / 8), src, n * (p->bits / 8));
}

/*
 * Decodes the strips of the page into img (its rows are the page's
 * rows): unsigned samples in place, floating-point ones through one
 * strip's buffer.  rowbytes: a row's bytes as stored.
 */
static int
tiff_read_strips(struct img_reader *r, struct img_tiff *t,
    const struct tiff_page *p, struct image *img, size_t rowbytes,
    struct gf_err *e)
{
	uint32_t rps = 0, nstrips = TIFFNumberOfStrips(t->tif);
	size_t per = (size_t)img->width * img->channels;
	unsigned char *buf = NULL;

	TIFFGetFieldDefaulted(t->tif, TIFFTAG_ROWSPERSTRIP, &rps);
	if (rps == 0 || rps > (uint32_t)img->height)
		rps = (uint32_t)img->height;
	if (p->format == SAMPLEFORMAT_IEEEFP &&
	    (buf = malloc((size_t)rps * rowbytes)) == NULL)
		return gf_nomem(e, "out of memory");
	for (uint32_t s = 0; s < nstrips && (uint64_t)s * rps < (uint64_t)img->height; s++) {
		uint32_t y0 = s * rps, n = img->height - y0 < rps ? img->height - y0 : rps;
		tmsize_t want = (tmsize_t)(n * rowbytes);
		if (TIFFReadEncodedStrip(t->tif, s, buf != NULL ? (void *)buf :
		    (char *)img->px + y0 * rowbytes, want) != want ||
		    t->warning[0] != '\0') {
			free(buf);
			return gf_fail(e, "%s: TIFF page %d: cannot decode strip %u (rows "
			    "%u to %u): %s", r->name, r->nread + 1, s + 1, y0 + 1, y0 + n,
			    t->msg[0] ? t->msg : t->warning[0] ? t->warning :
			    "it is short");
		}
		if (buf != NULL)
			tiff_put(p, img, (size_t)y0 * per, buf, n * per);
	}
	free(buf);
	if ((uint64_t)nstrips * rps < (uint64_t)img->height)
		return gf_fail(e, "%s: TIFF page %d has %u strips of %u rows for %d "
		    "rows", r->name, r->nread + 1, nstrips, rps, img->height);
	return 0;
}

/* Decodes the tiles of the page into img, through one tile's buffer. */
static int
tiff_read_tiles(struct img_reader *r, struct img_tiff *t,
    const struct tiff_page *p, struct image *img, struct gf_err *e)
{
	uint32_t tw = 0, th = 0;
	size_t pxbytes = tiff_pixel_bytes(p);
	uint64_t tbytes, pagebytes = (uint64_t)img->width * img->height * pxbytes;
	unsigned char *buf;

	TIFFGetField(t->tif, TIFFTAG_TILEWIDTH, &tw);
	TIFFGetField(t->tif, TIFFTAG_TILELENGTH, &th);
	tbytes = (uint64_t)tw * th * pxbytes;
	/* A tile far larger than the image is a memory bomb, not a layout. */
	if (tw == 0 || th == 0 || (uint64_t)TIFFTileSize64(t->tif) != tbytes ||
	    tbytes > pagebytes + TIFF_SLACK)
		return gf_fail(e, "%s: TIFF page %d has tiles of %u x %u pixels for a "
		    "%d x %d image", r->name, r->nread + 1, tw, th, img->width,
		    img->height);
	if ((buf = malloc((size_t)tbytes)) == NULL)
		return gf_nomem(e, "out of memory");
	for (uint32_t y = 0; y < (uint32_t)img->height; y += th)
		for (uint32_t x = 0; x < (uint32_t)img->width; x += tw) {
			uint32_t n = img->width - x < tw ? img->width - x : tw;
			memset(buf, 0, (size_t)tbytes);
			if (TIFFReadTile(t->tif, buf, x, y, 0, 0) < 0 ||
			    t->warning[0] != '\0') {
				free(buf);
				return gf_fail(e, "%s: TIFF page %d: cannot decode the tile at "
				    "(%u, %u): %s", r->name, r->nread + 1, x, y, t->msg[0] ?
				    t->msg : t->warning);
			}
			for (uint32_t k = 0; k < th && y + k < (uint32_t)img->height; k++)
				tiff_put(p, img, (((size_t)y + k) * img->width + x) *
				    img->channels, buf + (size_t)k * tw * pxbytes,
				    (size_t)n * img->channels);
		}
	free(buf);
	return 0;
}

/* Min-is-white gray: each gray sample v becomes maxval - v (alpha kept). */
static void
tiff_invert_gray(struct image *img)
{
	size_t n = (size_t)img->width * img->height;

	for (size_t i = 0; i < n; i++) {
		size_t k = i * img->channels;
		img_set(img, k, img->maxval - img_get(img, k));
	}
}

/*
 * The most bytes of pixels one byte of a compression can give: a bound,
 * not a typical ratio.  PackBits repeats a byte 128 times for 2; an LZW
 * code of 12 bits stands for at most 4096 bytes; deflate's limit is
 * 1032; a JPEG block of 64 samples takes at least 2 bits (a little more
 * is allowed, for colour subsampling); the others, that libtiff may
 * have, get zstd's bound (a block of 128 KiB in 4 bytes).
 */
static unsigned long long
tiff_ratio(unsigned compression)
{
	switch (compression) {
	case COMPRESSION_NONE:
		return 1;
	case COMPRESSION_PACKBITS:
		return 64;
	case COMPRESSION_LZW:
		return 2731;
	case COMPRESSION_ADOBE_DEFLATE:
	case COMPRESSION_DEFLATE:
		return 1032;
	case COMPRESSION_JPEG:
		return 1024;
	default:
		return 32768;
	}
}

static int
tiff_range_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * The bytes of the file that the current page's n strips or tiles hold,
 * each byte counted once however many of them share it; -1 (e set) for
 * one that is missing, lies in the header or past the end of the file
 * (libtiff fills the offsets a page does not list with zeros).
 */
static long long
tiff_page_bytes(struct img_reader *r, struct img_tiff *t, int page,
    uint32_t n, struct gf_err *e)
{
	const char *what = TIFFIsTiled(t->tif) ? "tile" : "strip";
	uint64_t *v = malloc((size_t)(n > 0 ? n : 1) * 2 * sizeof(*v)), end = 0;
	long long held = 0;

	if (v == NULL)
		return gf_nomem(e, "out of memory");
	for (uint32_t s = 0; s < n; s++) {
		uint64_t off = TIFFGetStrileOffset(t->tif, s),
		    len = TIFFGetStrileByteCount(t->tif, s);
		if (off < 8 || len == 0 || off > t->mem.len || len > t->mem.len - off) {
			free(v);
			return gf_fail(e, "%s: TIFF page %d: %s %u of %u is %llu bytes at "
			    "offset %llu, %s", r->name, page, what, s + 1, n,
			    (unsigned long long)len, (unsigned long long)off, off < 8 ?
			    "inside the file's header (the page lists fewer offsets than "
			    "it has strips or tiles?)" : len == 0 ? "which holds nothing" :
			    "past the end of the file");
		}
		v[2 * s] = off;
		v[2 * s + 1] = off + len;
	}
	qsort(v, n, 2 * sizeof(*v), tiff_range_cmp);
	for (uint32_t s = 0; s < n; s++) {
		uint64_t from = v[2 * s] > end ? v[2 * s] : end;
		if (v[2 * s + 1] > from)
			held += (long long)(v[2 * s + 1] - from);
		if (v[2 * s + 1] > end)
			end = v[2 * s + 1];
	}
	free(v);
	return held;
}

/*
 * Weighs the current page: the bytes of pixels it promises against what
 * its compression can give from the bytes its strips or tiles hold; and
 * all pages so far (*need: the fewest bytes of the file they take)
 * against the file.  Pages whose tags or size are refused anyway are
 * left to tiff_page_read (0, *stop set).
 */
static int
tiff_weigh_page(struct img_reader *r, struct img_tiff *t, int page,
    unsigned long long *need, int *stop, struct gf_err *e)
{
	struct tiff_page p = {0};
	unsigned long long px, ratio;
	long long held;
	struct gf_err quiet;

	if (tiff_page_tags(r, t->tif, &p, &quiet) < 0 ||
	    img_check_size(r, (long)p.w, (long)p.h, p.spp, tiff_maxval(&p),
	    &quiet) < 0) {
		*stop = 1;
		return 0;
	}
	held = tiff_page_bytes(r, t, page, TIFFIsTiled(t->tif) ?
	    TIFFNumberOfTiles(t->tif) : TIFFNumberOfStrips(t->tif), e);
	if (held < 0)
		return -1;
	px = (unsigned long long)p.w * p.h * tiff_pixel_bytes(&p);
	ratio = tiff_ratio(p.compression);
	if (px > ratio * (unsigned long long)held + TIFF_PAGE_SPARE)
		return gf_fail(e, "%s: TIFF page %d is %u x %u pixels of %u samples "
		    "(%llu bytes), more than its %lld bytes of compression %u can give "
		    "(at most %llu bytes each)", r->name, page, p.w, p.h, p.spp, px,
		    held, p.compression, ratio);
	*need += px / ratio;
	if (*need > t->mem.len + TIFF_FILE_SPARE / ratio)
		return gf_fail(e, "%s: TIFF pages 1 to %d need at least %llu bytes "
		    "of the file for their pixels and compression, and the file has "
		    "%zu (a strip that pages share counts once)", r->name, page,
		    *need, t->mem.len);
	return 0;
}

/*
 * Before any page is decoded: every page's strips and tiles lie in the
 * file, and the pages promise no more than the file can hold; then back
 * to the first page.
 */
static int
tiff_weigh(struct img_reader *r, struct img_tiff *t, struct gf_err *e)
{
	unsigned long long need = 0;
	int stop = 0, moved = 0;

	for (int page = 1;; page++) {
		if (tiff_weigh_page(r, t, page, &need, &stop, e) < 0)
			return -1;
		if (stop || TIFFLastDirectory(t->tif))
			break;
		moved = 1;      /* a failed read may have spoilt page 1's fields */
		if (!TIFFReadDirectory(t->tif))
			break;  /* left to img_tiff_read, at that page */
	}
	t->msg[0] = '\0';
	if (moved && !TIFFSetDirectory(t->tif, 0))
		return gf_fail(e, "%s: cannot read TIFF page 1 again: %s", r->name,
		    t->msg);
	return 0;
}

/*
 * The current page's ICC profile (tag 34675) into r->icc: none when it
 * has none, or one of more than IMG_ICC_MAX bytes.
 */
static void
tiff_icc(struct img_reader *r, TIFF *tif)
{
	uint32_t n = 0;
	void *data = NULL;

	img_icc_free(&r->icc);
	if (!TIFFGetField(tif, TIFFTAG_ICCPROFILE, &n, &data) || data == NULL ||
	    n == 0 || n > IMG_ICC_MAX || (r->icc.p = malloc(n)) == NULL)
		return;
	memcpy(r->icc.p, data, n);
	r->icc.len = n;
}

/*
 * Reads the current page into img: tags, size check, pixels,
 * orientation, and its ICC profile.
 */
static int
tiff_page_read(struct img_reader *r, struct img_tiff *t, struct image *img,
    struct gf_err *e)
{
	struct tiff_page p = {0};
	size_t rowbytes;
	int ret;

	t->msg[0] = '\0';
	if (tiff_page_tags(r, t->tif, &p, e) < 0 ||
	    img_check_size(r, (long)p.w, (long)p.h, p.spp, tiff_maxval(&p), e) < 0)
		return -1;
	img->width = (int)p.w;
	img->height = (int)p.h;
	img->channels = p.spp;
	img->maxval = tiff_maxval(&p);
	rowbytes = (size_t)img->width * tiff_pixel_bytes(&p);
	if (!TIFFIsTiled(t->tif) && (uint64_t)TIFFScanlineSize64(t->tif) != rowbytes)
		return gf_fail(e, "%s: TIFF page %d has rows of %llu bytes, not the "
		    "%zu of its width and samples", r->name, r->nread + 1,
		    (unsigned long long)TIFFScanlineSize64(t->tif), rowbytes);
	if (img_reader_alloc(r, img, e) < 0)
		return -1;
	/*
	 * The buffer may be the caller's, holding another input's pixels: a
	 * codec that writes less than it says (and does not warn) leaves zeros.
	 */
	memset(img->px, 0, img_bytes(img));
	t->warning[0] = '\0';
	t->decoding = 1;
	ret = TIFFIsTiled(t->tif) ? tiff_read_tiles(r, t, &p, img, e) :
	    tiff_read_strips(r, t, &p, img, rowbytes, e);
	t->decoding = 0;
	if (ret == 0 && p.photometric == PHOTOMETRIC_MINISWHITE)
		tiff_invert_gray(img);
	if (ret == 0 && r->autorotate)
		ret = img_orient(img, p.orientation, e);
	if (ret < 0) {
		img_reader_release(r, img);
		return -1;
	}
	tiff_icc(r, t->tif);
	return 1;
}

/* A field of n bytes (2, 4 or 8) of the TIFF in memory, in its byte order. */
static uint64_t
tiff_field(const unsigned char *p, int n, int big_endian)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[big_endian ? n - 1 - i : i] << (8 * i);
	return v;
}

/*
 * Where an IFD that libtiff does not read (EXIF, GPS) ends in the TIFF
 * of len bytes at b: its table and the values stored out of it; 0 when
 * it does not lie in the file.
 */
static uint64_t
tiff_ifd_end(const unsigned char *b, size_t len, uint64_t off, int big, int be)
{
	static const unsigned char size[19] = {0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8,
	    4, 8, 4, 0, 0, 8, 8, 8};
	const size_t head = big ? 8 : 2, ent = big ? 20 : 12, inl = big ? 8 : 4;
	uint64_t n, end;

	if (off < 8 || off > len || len - off < head)
		return 0;
	n = tiff_field(b + off, (int)head, be);
	if (n > (len - off - head) / ent)
		return 0;
	end = off + head + n * ent + inl;
	for (uint64_t i = 0; i < n; i++) {
		const unsigned char *e = b + off + head + i * ent;
		unsigned type = (unsigned)tiff_field(e + 2, 2, be);
		uint64_t count = tiff_field(e + 4, (int)inl, be), at, bytes;
		if (type >= sizeof(size) || size[type] == 0 ||
		    count > UINT64_MAX / 8 / size[type])
			continue;
		bytes = count * size[type];
		at = tiff_field(e + 4 + inl, (int)inl, be);
		if (bytes > inl && at <= len && bytes <= len - at && at + bytes > end)
			end = at + bytes;
	}
	return end;
}

/*
 * Past the last page of a TIFF: a file is the TIFF whole, and its stream
 * ends.  A TIFF from a pipe was read to the end of the stream and cannot
 * tell where it ends: what lies past the furthest byte its pages used
 * (their directories, tags and strips, and the EXIF and GPS directories
 * they point to) is given back to the stream, for img_read_next to
 * judge.  0, or -1 with e set.
 */
static int
tiff_end(struct img_reader *r, struct img_tiff *t, struct gf_err *e)
{
	uint64_t end = t->mem.high, off, k;
	int big = TIFFIsBigTIFF(t->tif), be = TIFFIsBigEndian(t->tif);
	static const uint32_t tags[2] = {TIFFTAG_EXIFIFD, TIFFTAG_GPSIFD};

	t->ended = 1;
	if (t->mem.file) {
		r->done = 1;
		return 0;
	}
	if (end < 8)
		end = 8;
	for (tdir_t d = 0; d < TIFFNumberOfDirectories(t->tif) &&
	    TIFFSetDirectory(t->tif, d); d++)
		for (int i = 0; i < 2; i++)
			if (TIFFGetField(t->tif, tags[i], &off) &&
			    (k = tiff_ifd_end(t->mem.p, t->mem.len, off, big, be)) > end)
				end = k;
	if (end >= t->mem.len)
		return 0;
	if (img_reader_unread(r, t->mem.p + end, t->mem.len - (size_t)end, e) < 0)
		return -1;
	t->mem.len = (size_t)end;
	return 0;
}

int
img_tiff_read(struct img_reader *r, struct image *img, struct gf_err *e)
{
	struct img_tiff *t = r->state;

	if (t == NULL) {
		if ((t = calloc(1, sizeof(*t))) == NULL)
			return gf_nomem(e, "out of memory");
		r->state = t;
		r->open = img_format_row(IMG_FORMAT_TIFF);
		if (tiff_input(r, &t->mem, e) < 0)
			return -1;
		if (tiff_open(t, r->name, "r", (uint64_t)img_input_cap(
		    r->max_pixels)) < 0)
			return gf_fail(e, "%s: cannot read the TIFF file: %s", r->name,
			    t->msg);
		if (tiff_weigh(r, t, e) < 0)
			return -1;
	} else if (t->tif == NULL || t->ended) {
		return 0;
	} else if (TIFFLastDirectory(t->tif)) {
		return tiff_end(r, t, e);
	} else if (!TIFFReadDirectory(t->tif)) {
		return gf_fail(e, "%s: cannot read TIFF page %d: %s", r->name,
		    r->nread + 1, t->msg[0] ? t->msg :
		    "its directory is unreadable or loops back to an earlier page");
	}
	return tiff_page_read(r, t, img, e);
}

void
img_tiff_close(void *state)
{
	struct img_tiff *t = state;

	if (t == NULL)
		return;
	if (t->tif != NULL)
		TIFFClose(t->tif);
	img_tiff_mem_free(&t->mem);
	free(t);
}

/* ---- TIFF out */

/* The tags of a page holding img, and icc's (NULL: none). */
static void
tiff_set_tags(TIFF *tif, const struct image *img, const struct img_icc *icc)
{
	uint16_t alpha = EXTRASAMPLE_UNASSALPHA;

	TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)img->width);
	TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)img->height);
	TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, img->maxval > 255 ? 16 : 8);
	TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)img->channels);
	TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, img->offset_binary ?
	    SAMPLEFORMAT_INT : SAMPLEFORMAT_UINT);
	TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, img_colour_channels(img) == 1 ?
	    PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB);
	TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
	TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
	TIFFSetField(tif, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT);
	if (img_has_alpha(img))
		TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &alpha);
	if (icc != NULL)
		TIFFSetField(tif, TIFFTAG_ICCPROFILE, (uint32_t)icc->len, icc->p);
	TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tif, 0));
}

/* Encodes img into t (open for writing); -1 with t->msg on an error. */
static int
tiff_encode(struct img_tiff *t, const struct image *img,
    const struct img_icc *icc, void *row)
{
	unsigned top = img->maxval > 255 ? 65535 : 255;
	size_t n = img->offset_binary ? (size_t)img->width * img->channels : 0;

	tiff_set_tags(t->tif, img, icc);
	for (int y = 0; y < img->height; y++) {
		const void *r = img_out_row(img, y, top, row);
		/* Offset binary (maxval 65535), v + 32768, as int16: top bit flipped. */
		for (size_t i = 0; i < n; i++)
			((uint16_t *)row)[i] = ((const uint16_t *)r)[i] ^ 0x8000u;
		if (TIFFWriteScanline(t->tif, n ? row : (void *)r, (uint32_t)y, 0) < 0)
			return -1;
	}
	return TIFFFlush(t->tif) ? 0 : -1;
}

int
img_tiff_sniff(const unsigned char *b, size_t n)
{
	return n >= 4 && (memcmp(b, "II*\0", 4) == 0 ||
	    memcmp(b, "MM\0*", 4) == 0 || memcmp(b, "II+\0", 4) == 0 ||
	    memcmp(b, "MM\0+", 4) == 0);
}

int
img_tiff_write(FILE *f, const struct image *img, enum img_format fmt,
    int quality, const struct img_icc *icc, const char *name,
    struct gf_err *e)
{
	struct img_tiff t = {.mem = {.writable = 1}};
	void *row = malloc((size_t)img->width * img->channels * 2);
	int ret;

	(void)fmt;
	(void)quality;
	if (row == NULL)
		return gf_nomem(e, "out of memory");
	ret = tiff_open(&t, name, img_bytes(img) > TIFF_BIG_BYTES ? "w8" : "w", 0);
	if (ret == 0)
		ret = tiff_encode(&t, img, icc, row);
	if (t.tif != NULL)
		TIFFClose(t.tif);
	free(row);
	if (ret < 0) {
		img_tiff_mem_free(&t.mem);
		return gf_fail(e, "cannot write %s as TIFF: %s", name, t.msg[0] ?
		    t.msg : "out of memory");
	}
	if (fwrite(t.mem.p, 1, t.mem.len, f) != t.mem.len)
		ret = gf_fail(e, "cannot write %s: %s", name, strerror(errno));
	img_tiff_mem_free(&t.mem);
	return ret;
}
