/*
 * img_format.c - the one table of image formats (struct img_format_row
 * in img_int.h) and what reads it: -f's parser and its completion words,
 * the format an output name chooses, the choice of decoder from the
 * first bytes of a stream, the writers' dispatch, and every message that
 * lists formats.  A new format is its file (lib/img_<name>.c) and a row
 * here; nothing else names it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "img_int.h"

/*
 * In the order messages, completion and the man pages list them
 * (tests/t_man.sh holds the man pages to it): PNM, the default, first;
 * the kinds of PNM an extension chooses after it; then the formats
 * written; then those only read.  Each sniffer refuses the others'
 * first bytes (TGA, which has no magic number, those of every format
 * here), so the order of sniffing does not matter.
 */
const struct img_format_row img_formats[] = {
	{IMG_FORMAT_PNM, "PNM", {"pnm"}, {"pgm", "pnm"}, {"pgm", "ppm", "pam"},
	    16, IMG_ROW_STREAM | IMG_ROW_FILE | IMG_ROW_DEFAULT,
	    img_pnm_sniff, img_pnm_read, img_pnm_write, NULL, img_pnm_more},
	{IMG_FORMAT_PPM, "PNM", {NULL}, {"ppm"}, {"ppm"}, 16, 0,
	    NULL, NULL, img_pnm_write, NULL, NULL},
	{IMG_FORMAT_PAM, "PNM", {NULL}, {"pam"}, {"pam"}, 16, 0,
	    NULL, NULL, img_pnm_write, NULL, NULL},
	{IMG_FORMAT_WEBP, "WebP", {"webp"}, {"webp"}, {"webp"}, 8, IMG_ROW_STREAM,
	    img_webp_sniff, img_webp_read, img_webp_write, NULL, NULL},
	{IMG_FORMAT_PNG, "PNG", {"png"}, {"png"}, {"png"}, 16, IMG_ROW_STREAM,
	    img_png_sniff, img_png_read, img_png_write, NULL, NULL},
	{IMG_FORMAT_JPEG, "JPEG", {"jpeg", "jpg"}, {"jpg", "jpeg"}, {"jpg"}, 8,
	    IMG_ROW_STREAM, img_jpeg_sniff, img_jpeg_read, img_jpeg_write, NULL, NULL},
	{IMG_FORMAT_TIFF, "TIFF", {"tiff", "tif"}, {"tif", "tiff"}, {"tif"}, 16,
	    0, img_tiff_sniff, img_tiff_read, img_tiff_write, img_tiff_close, NULL},
	{IMG_FORMAT_NONE, "BMP", {NULL}, {NULL}, {NULL}, 0, 0,
	    img_bmp_sniff, img_bmp_read, NULL, NULL, NULL},
	{IMG_FORMAT_NONE, "TGA", {NULL}, {NULL}, {NULL}, 0, 0,
	    img_tga_sniff, img_tga_read, NULL, NULL, NULL},
	{IMG_FORMAT_NONE, "GIF", {NULL}, {NULL}, {NULL}, 0, 0,
	    img_gif_sniff, img_gif_read, NULL, NULL, NULL},
};
const size_t img_nformats = sizeof(img_formats) / sizeof(img_formats[0]);

/* An id no row has (IMG_FORMAT_NONE) gets the first row's. */
const struct img_format_row *
img_format_row(enum img_format f)
{
	for (size_t i = 0; i < img_nformats; i++)
		if (img_formats[i].id == f ||
		    (f == IMG_FORMAT_AUTO && (img_formats[i].flags & IMG_ROW_DEFAULT)))
			return &img_formats[i];
	return &img_formats[0];
}

/* ---- lists for messages */

/* A list being written into buf (n bytes), items joined "a, b or c". */
struct list {
	char *buf;
	size_t n, len;
	const char *item[16];   /* where each item starts in buf */
	int count;
};

static void
list_put(struct list *l, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (l->len >= l->n)
		return;
	va_start(ap, fmt);
	k = vsnprintf(l->buf + l->len, l->n - l->len, fmt, ap);
	va_end(ap);
	if (k < 0 || l->len + (size_t)k >= l->n)
		l->len = l->n - 1;      /* cut short; nothing more is added */
	else
		l->len += (size_t)k;
}

/*
 * The items of l (each NUL-ended in l's scratch) joined by sep, with
 * last before the last one, into out (n bytes): out.
 */
static const char *
list_join(const struct list *l, const char *sep, const char *last, char *out,
    size_t n)
{
	size_t len = 0;

	out[0] = '\0';
	for (int i = 0; i < l->count && len < n; i++) {
		int k = snprintf(out + len, n - len, "%s%s", i == 0 ? "" :
		    i == l->count - 1 ? last : sep, l->item[i]);
		len = k < 0 ? n : len + (size_t)k;
	}
	return out;
}

/* Starts an item of l; list_end closes it. */
static void
list_item(struct list *l)
{
	if (l->count < 16 && l->len < l->n)
		l->item[l->count++] = l->buf + l->len;
}

static void
list_end(struct list *l)
{
	if (l->len + 1 < l->n)
		l->len++;               /* past the item's NUL */
}

/* The first -f word of each format, joined "pnm, png or jpeg" (or by sep, last). */
static const char *
list_words(const char *sep, const char *last, char *out, size_t n)
{
	char scratch[IMG_FORMAT_LIST_MAX];
	struct list l = {scratch, sizeof(scratch), 0, {NULL}, 0};

	for (size_t i = 0; i < img_nformats; i++)
		if (img_formats[i].words[0] != NULL) {
			list_item(&l);
			list_put(&l, "%s", img_formats[i].words[0]);
			list_end(&l);
		}
	return list_join(&l, sep, last, out, n);
}

/* The names of the formats that have all of flags and a reader, joined "a, b or c". */
static const char *
list_names(unsigned flags, const char *sep, const char *last, char *out,
    size_t n)
{
	char scratch[IMG_FORMAT_LIST_MAX];
	struct list l = {scratch, sizeof(scratch), 0, {NULL}, 0};

	for (size_t i = 0; i < img_nformats; i++)
		if (img_formats[i].read != NULL &&
		    (img_formats[i].flags & flags) == flags) {
			list_item(&l);
			list_put(&l, "%s", img_formats[i].name);
			list_end(&l);
		}
	return list_join(&l, sep, last, out, n);
}

const char *
img_formats_deep(char *buf, size_t n)
{
	char scratch[IMG_FORMAT_LIST_MAX];
	struct list l = {scratch, sizeof(scratch), 0, {NULL}, 0};

	/* The default last: the one a user falls back on. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < img_nformats; i++) {
			const struct img_format_row *f = &img_formats[i];
			int last = (f->flags & IMG_ROW_DEFAULT) != 0;
			if (f->bits < 16 || f->words[0] == NULL || last != pass)
				continue;
			list_item(&l);
			list_put(&l, "%s (", f->name);
			for (int k = 0; f->writes[k] != NULL; k++)
				list_put(&l, "%s.%s", k ? ", " : "", f->writes[k]);
			list_put(&l, ")");
			list_end(&l);
		}
	return list_join(&l, ", ", " or ", buf, n);
}

/*
 * The output extensions, a format's together: ".pgm, .pnm, .ppm, .pam
 * (PNM), .png, .jpg, .jpeg (JPEG)", the name left out where it is only
 * the extension.
 */
static const char *
list_exts(char *out, size_t n)
{
	char scratch[IMG_FORMAT_LIST_MAX];
	struct list l = {scratch, sizeof(scratch), 0, {NULL}, 0};
	int nexts = 0;

	for (size_t i = 0; i < img_nformats; i++) {
		const struct img_format_row *f = &img_formats[i];
		const struct img_format_row *next = i + 1 < img_nformats ?
		    &img_formats[i + 1] : NULL;
		if (f->exts[0] == NULL)
			continue;
		if (nexts == 0)
			list_item(&l);
		for (int k = 0; f->exts[k] != NULL; k++)
			list_put(&l, "%s.%s", nexts++ ? ", " : "", f->exts[k]);
		if (next != NULL && next->exts[0] != NULL &&
		    strcmp(next->name, f->name) == 0)
			continue;       /* the same format: one group */
		if (nexts > 1 || strcasecmp(f->name, f->exts[0]) != 0)
			list_put(&l, " (%s)", f->name);
		list_end(&l);
		nexts = 0;
	}
	return list_join(&l, ", ", " or ", out, n);
}

/* ---- -f and output names */

const char *
img_format_words(char *buf, size_t n)
{
	return list_words(" ", " ", buf, n);
}

int
img_format_parse(const char *s, enum img_format *f, struct gf_err *e)
{
	char words[IMG_FORMAT_LIST_MAX];

	for (size_t i = 0; i < img_nformats; i++)
		for (int k = 0; img_formats[i].words[k] != NULL; k++)
			if (strcmp(s, img_formats[i].words[k]) == 0) {
				*f = img_formats[i].id;
				return 0;
			}
	return gf_fail(e, "'%s' is not an output format; choose %s", s,
	    list_words(", ", " or ", words, sizeof(words)));
}

/* The extension of path's last component, after its dot; NULL if none. */
static const char *
path_ext(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;

	base = base == NULL ? path : base + 1;
	dot = strrchr(base, '.');
	return dot == NULL || dot == base ? NULL : dot + 1;
}

/* The row that path's extension chooses; NULL if unknown or none (*none). */
static const struct img_format_row *
path_row(const char *path, int *none)
{
	const char *ext = path_ext(path);

	*none = ext == NULL;
	for (size_t i = 0; ext != NULL && i < img_nformats; i++)
		for (int k = 0; img_formats[i].exts[k] != NULL; k++)
			if (strcasecmp(ext, img_formats[i].exts[k]) == 0)
				return &img_formats[i];
	return NULL;
}

enum img_format
img_format_for(const char *path, enum img_format asked)
{
	const struct img_format_row *f;
	int none;

	if (asked != IMG_FORMAT_AUTO)
		return asked;
	if (path == NULL || strcmp(path, "-") == 0 ||
	    (f = path_row(path, &none)) == NULL)
		return img_format_row(IMG_FORMAT_AUTO)->id;
	return f->id;
}

int
img_format_check(const char *path, enum img_format asked, struct gf_err *e)
{
	char exts[IMG_FORMAT_LIST_MAX], words[IMG_FORMAT_LIST_MAX];
	const struct img_format_row *row, *want;
	int none;

	if (path == NULL || strcmp(path, "-") == 0)
		return 0;
	row = path_row(path, &none);
	want = img_format_row(asked);
	if (asked != IMG_FORMAT_AUTO && row != NULL && row->id != IMG_FORMAT_NONE &&
	    strcmp(row->name, want->name) != 0)
		return gf_fail(e, "%s: -f %s would write %s into a name that says "
		    "%s; end the name in .%s, give -f %s, or leave -f out", path,
		    want->words[0], want->name, row->name, want->exts[0],
		    row->words[0] != NULL ? row->words[0] : "pnm");
	if (asked != IMG_FORMAT_AUTO || row != NULL || none)
		return 0;
	return gf_fail(e, "%s: cannot write .%s files; the output name must end "
	    "in %s, or have no extension (%s), or give -f %s", path,
	    path_ext(path), list_exts(exts, sizeof(exts)),
	    img_format_row(IMG_FORMAT_AUTO)->name,
	    list_words("|", "|", words, sizeof(words)));
}

const char *
img_format_ext(enum img_format f, const struct image *img)
{
	const char *const *w = img_format_row(f)->writes;

	if (w[1] == NULL)
		return w[0];
	/* PNM: PGM for gray, PPM for colour, PAM for alpha. */
	if (img_has_alpha(img))
		return w[2];
	return img->channels == 1 ? w[0] : w[1];
}

const char *const *
img_format_writes(enum img_format f)
{
	return img_format_row(f)->writes;
}

const char *
img_format_name(enum img_format f)
{
	return img_format_row(f)->name;
}

/* ---- reading and writing */

const struct img_format_row *
img_format_sniff(const unsigned char *b, size_t n, int peeked)
{
	for (size_t i = 0; i < img_nformats; i++) {
		const struct img_format_row *f = &img_formats[i];
		int by_file = (f->flags & IMG_ROW_FILE) != 0;
		if (f->sniff != NULL && by_file == peeked && f->sniff(b, n))
			return f;
	}
	return NULL;
}

const char *
img_format_names(unsigned flags, const char *last, char *buf, size_t n)
{
	return list_names(flags, ", ", last, buf, n);
}

int
img_write(FILE *f, const struct image *img, enum img_format fmt,
    int quality, const char *name, struct gf_err *e)
{
	return img_write_icc(f, img, fmt, quality, NULL, name, e);
}

int
img_write_icc(FILE *f, const struct image *img, enum img_format fmt,
    int quality, const struct img_icc *icc, const char *name,
    struct gf_err *e)
{
	const struct img_format_row *r = img_format_row(fmt);
	char deep[IMG_FORMAT_LIST_MAX];

	if (r->write == NULL)
		return gf_fail(e, "cannot write %s as %s: it is read, not written",
		    name, r->name);
	if (r->bits < 16 && img->maxval > 255)
		return gf_fail(e, "cannot write %s as %s: the image is 16 bit "
		    "(maxval %u) and %s holds 8; write %s", name, r->name,
		    img->maxval, r->name, img_formats_deep(deep, sizeof(deep)));
	return r->write(f, img, fmt, quality, img_icc_fits(icc, img, fmt) ? icc :
	    NULL, name, e);
}
