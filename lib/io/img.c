/*
 * img.c - image input and output behind lib/io/img.h: the reader's state,
 * the stream's walk from image to image, the size and pixel-limit checks
 * every decoder makes from the header.  Which decoder reads an image is
 * the format table's choice from its first bytes (img_format.c: never
 * from the file's name, never by reading an unknown stream whole), and
 * so is which writer writes one.  The decoders live one format per file:
 * img_pnm.c (libnetpbm), img_png.c (libdeflate, libpng), img_jpeg.c
 * (libjpeg-turbo), img_tiff.c (libtiff), img_webp.c (libwebp), img_stb.c
 * (stb_image for BMP, TGA and GIF).  img_reader_input holds a stream in
 * memory for the decoders that want it whole (PNG, TIFF, WebP).
 *
 * A stream is any sequence of PNM, PNG, JPEG and WebP images: each
 * decoder leaves the stream where its image ended (img_reader_unread,
 * img_reader_seek), and what follows must be the next image or the end.
 * A BMP, TGA, GIF or piped TIFF cannot tell where it ends: its reader
 * gives back what lies past what it can tell is its own (r->endless),
 * and anything there but whitespace fails the stream, after the image.
 */
#define _GNU_SOURCE             /* fopencookie */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "img_int.h"
#include "outfile.h"

int
img_reader_open(struct img_reader **r, FILE *f, const char *name,
    struct gf_err *e)
{
	*r = calloc(1, sizeof(**r));
	if (*r == NULL)
		return gf_nomem(e, "out of memory");
	(*r)->f = f;
	(*r)->name = name;
	(*r)->max_pixels = IMG_DEFAULT_MAX_PIXELS;
	(*r)->autorotate = 1;
	return 0;
}

void
img_reader_set_buffer(struct img_reader *r, const struct img_buffer *b)
{
	r->buf = *b;
}

void
img_reader_set_max_pixels(struct img_reader *r, long long n)
{
	r->max_pixels = n;
}

void
img_reader_set_autorotate(struct img_reader *r, int on)
{
	r->autorotate = on;
}

void
img_reader_set_gray(struct img_reader *r, int on)
{
	r->gray = on;
}

void
img_reader_set_check(struct img_reader *r, const void *p, size_t n)
{
	r->check_p = p;
	r->check_len = n;
}

void
img_reader_set_plan(struct img_reader *r, struct img_jpeg_plan *pp)
{
	r->plan = pp;
}

long
img_reader_check_outside(const struct img_reader *r)
{
	return r->outside;
}

void
img_reader_set_frame(struct img_reader *r, const struct img_frame *fr)
{
	r->file_size = fr->file ? (long long)(fr->len + fr->tail) : 0;
}

int
img_reader_alloc(struct img_reader *r, struct image *img, struct gf_err *e)
{
	if (r->buf.get == NULL)
		return img_alloc(img, e);
	r->sizing = *img;
	r->sizing.px = NULL;
	img->px = r->buf.get(r->buf.arg, img_bytes(img));
	if (img->px == NULL)
		return gf_nomem(e, "%s: out of memory for a %d x %d image", r->name,
		    img->width, img->height);
	return 0;
}

const struct image *
img_reader_sizing(const struct img_reader *r)
{
	return &r->sizing;
}

void
img_reader_release(struct img_reader *r, struct image *img)
{
	if (r->buf.get == NULL)
		img_free(img);
	img->px = NULL;
}

void
img_reader_close(struct img_reader *r)
{
	if (r != NULL) {
		if (r->open != NULL)
			r->open->close(r->state);
		if (r->stacked)
			fclose(r->f);   /* ours, and those under it; not the caller's */
		free(r->back);
		img_icc_free(&r->icc);
	}
	free(r);
}

size_t
img_reader_bytes(struct img_reader *r, void *buf, size_t n)
{
	unsigned char *o = buf;
	size_t k = r->nhead - r->hpos, m;

	if (k > n)
		k = n;
	memcpy(o, r->head + r->hpos, k);
	r->hpos += k;
	if ((m = r->nback - r->bpos) > n - k)
		m = n - k;
	if (m > 0) {
		memcpy(o + k, r->back + r->bpos, m);
		r->bpos += m;
		k += m;
	}
	if (r->back != NULL && r->bpos == r->nback) {
		free(r->back);
		r->back = NULL;
		r->nback = r->bpos = 0;
	}
	if (k < n)
		k += fread(o + k, 1, n - k, r->f);
	return k;
}

/* ---- bytes given back */

/*
 * A pipe's bytes that a decoder read past its image (img_reader_unread)
 * wait in r->back, ahead of f's: img_reader_bytes, img_reader_peek and
 * img_reader_skip_space take them first, at no cost to a stream of JPEGs.
 * libnetpbm reads a FILE, so before a PNM image they move into a FILE of
 * the reader's (fopencookie) that returns them, then what the FILE under
 * it has: each PNM that follows a JPEG in a pipe stacks one more.
 */
struct img_pushback {
	FILE *under;
	int own_under;          /* under is one of these too: closed with it */
	unsigned char *b;       /* b[pos..n) come before under's bytes */
	size_t n, pos;
};

static ssize_t
pushback_read(void *cookie, char *buf, size_t size)
{
	struct img_pushback *pb = cookie;
	size_t k = pb->n - pb->pos;

	if (k == 0) {
		k = fread(buf, 1, size, pb->under);
		return k == 0 && ferror(pb->under) ? -1 : (ssize_t)k;
	}
	if (k > size)
		k = size;
	memcpy(buf, pb->b + pb->pos, k);
	pb->pos += k;
	return (ssize_t)k;
}

static int
pushback_close(void *cookie)
{
	struct img_pushback *pb = cookie;
	int ret = pb->own_under ? fclose(pb->under) : 0;

	free(pb->b);
	free(pb);
	return ret;
}

/* Moves r->back's bytes into a FILE stacked on r->f (see above). */
static int
back_to_file(struct img_reader *r, struct gf_err *e)
{
	static const cookie_io_functions_t io = {pushback_read, NULL, NULL,
	    pushback_close};
	struct img_pushback *pb;
	FILE *f = NULL;

	if (r->bpos == r->nback)
		return 0;
	if ((pb = calloc(1, sizeof(*pb))) == NULL ||
	    (f = fopencookie(pb, "rb", io)) == NULL) {
		free(pb);
		return gf_nomem(e, "out of memory reading %s", r->name);
	}
	pb->under = r->f;
	pb->own_under = r->stacked;
	pb->b = r->back;
	pb->n = r->nback;
	pb->pos = r->bpos;
	r->back = NULL;
	r->nback = r->bpos = 0;
	r->f = f;
	r->stacked = 1;
	return 0;
}

int
img_reader_unread(struct img_reader *r, const void *p, size_t n,
    struct gf_err *e)
{
	size_t rest = r->nhead - r->hpos, left = r->nback - r->bpos;
	unsigned char *b;

	if (n + rest == 0)
		return 0;
	if (left == 0 && !r->stacked &&
	    fseeko(r->f, -(off_t)(n + rest), SEEK_CUR) == 0) {
		r->nhead = r->hpos = 0;
		return 0;
	}
	/* A pipe: p's bytes, the sniffed ones not taken, then the rest of back. */
	if ((b = malloc(n + rest + left)) == NULL)
		return gf_nomem(e, "out of memory reading %s", r->name);
	if (n > 0)
		memcpy(b, p, n);
	memcpy(b + n, r->head + r->hpos, rest);
	if (left > 0)
		memcpy(b + n + rest, r->back + r->bpos, left);
	free(r->back);
	r->back = b;
	r->nback = n + rest + left;
	r->bpos = 0;
	r->nhead = r->hpos = 0;
	return 0;
}

int
img_reader_peek(struct img_reader *r)
{
	int c;

	if (r->bpos < r->nback)
		return r->back[r->bpos];
	if ((c = getc(r->f)) != EOF)
		ungetc(c, r->f);
	return c;
}

int
img_reader_skip_space(struct img_reader *r, int *more, struct gf_err *e)
{
	while (r->bpos < r->nback && isspace(r->back[r->bpos]))
		r->bpos++;
	if (r->bpos < r->nback) {
		*more = 1;
		return 0;
	}
	return img_format_row(IMG_FORMAT_AUTO)->more(r, more, e);
}

int
img_reader_seek(struct img_reader *r, off_t off, struct gf_err *e)
{
	r->nhead = r->hpos = 0;
	if (fseeko(r->f, off, SEEK_SET) < 0)
		return gf_fail(e, "cannot read %s: %s", r->name, strerror(errno));
	return 0;
}

int
img_reader_slurp(struct img_reader *r, unsigned long long most,
    unsigned char **buf, size_t *len, struct gf_err *e)
{
	size_t cap = 1 << 16, n = 0, got;
	unsigned char *b = NULL, *nb;

	if (most > SIZE_MAX / 2)
		most = SIZE_MAX / 2;
	do {
		if (cap > most)
			cap = (size_t)most;
		nb = realloc(b, cap > 0 ? cap : 1);
		if (nb == NULL) {
			free(b);
			return gf_nomem(e, "out of memory reading %s", r->name);
		}
		b = nb;
		got = img_reader_bytes(r, b + n, cap - n);
		n += got;
		cap *= 2;
	} while (n == cap / 2 && n < most);
	if (ferror(r->f)) {
		free(b);
		return gf_fail(e, "cannot read %s: %s", r->name, strerror(errno));
	}
	*buf = b;
	*len = n;
	return 0;
}

long long
img_input_cap(long long max_pixels)
{
	long pages = sysconf(_SC_PHYS_PAGES), pagesize = sysconf(_SC_PAGESIZE);
	long long mem = pages > 0 && pagesize > 0 ? (long long)pages * pagesize :
	    LLONG_MAX;

	if (max_pixels <= 0 || max_pixels > (mem - IMG_INPUT_SLACK) / 8)
		return mem;
	return max_pixels * 8 + IMG_INPUT_SLACK;
}

void *
img_big_alloc(size_t n)
{
	const size_t huge = (size_t)2 << 20;
	size_t whole = (n + huge - 1) / huge * huge;
	void *p;

	if (n < 2 * huge)
		return malloc(n > 0 ? n : 1);
	if (posix_memalign(&p, huge, whole) != 0)
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, whole, MADV_HUGEPAGE);
#endif
	return p;
}

int
img_reader_file(struct img_reader *r, off_t *start, off_t *size)
{
	struct stat st;

	*start = ftello(r->f) - (off_t)r->nhead;
	if (*start < 0 || fstat(fileno(r->f), &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	*size = st.st_size > *start ? st.st_size - *start : 0;
	return 1;
}

ssize_t
img_pread(int fd, void *buf, size_t n, off_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = pread(fd, (char *)buf + got, n - got, off + (off_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return got > 0 ? (ssize_t)got : -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

int
img_reader_input(struct img_reader *r, const char *format,
    struct img_input *in, struct gf_err *e)
{
	long long cap = img_input_cap(r->max_pixels);
	unsigned char *buf;
	off_t start, size;
	ssize_t got;

	memset(in, 0, sizeof(*in));
	if (img_reader_file(r, &start, &size)) {
		/* Read, not mapped: a file that shrinks meanwhile only reads short. */
		if ((long long)size > cap)
			return gf_fail(e, "%s: a %s is held in memory whole, and this "
			    "one is %lld bytes, more than the %lld the pixel limit "
			    "allows (--max-pixels raises it)", r->name, format,
			    (long long)size, cap);
		if ((buf = img_big_alloc((size_t)size)) == NULL)
			return gf_nomem(e, "out of memory reading %s", r->name);
		if ((got = img_pread(fileno(r->f), buf, (size_t)size, start)) < 0) {
			free(buf);
			return gf_fail(e, "cannot read %s: %s", r->name,
			    strerror(errno));
		}
		in->p = buf;
		in->len = (size_t)got;
		return 0;
	}
	if ((unsigned long long)cap >= SIZE_MAX)
		cap = SIZE_MAX - 1;
	if (img_reader_slurp(r, (unsigned long long)cap + 1, &buf, &in->len,
	    e) < 0)
		return -1;
	in->p = buf;
	if (in->len > (unsigned long long)cap) {
		img_input_free(in);
		return gf_fail(e, "%s: a %s is held in memory whole, and this one "
		    "is more than the %lld bytes the pixel limit allows, from a pipe "
		    "as from a file (--max-pixels raises it)", r->name, format, cap);
	}
	return 0;
}

void
img_input_free(struct img_input *in)
{
	free((void *)in->p);
	memset(in, 0, sizeof(*in));
}

int
img_check_size(const struct img_reader *r, long width, long height,
    int channels, unsigned maxval, struct gf_err *e)
{
	long pages = sysconf(_SC_PHYS_PAGES), pagesize = sysconf(_SC_PAGESIZE);
	double bytes = (double)width * height * channels * gf_sample_bytes(maxval);
	long long npx;

	if (width < 1 || height < 1)
		return gf_fail(e, "%s: image is %ld x %ld pixels; both sides must "
		    "be at least 1", r->name, width, height);
	if (width > GF_MAX_DIM || height > GF_MAX_DIM)
		return gf_fail(e, "%s: image is %ld x %ld pixels; the largest side "
		    "supported is %d", r->name, width, height, GF_MAX_DIM);
	npx = (long long)width * height;       /* both sides checked: no overflow */
	if (maxval < 1 || maxval > 65535)
		return gf_fail(e, "%s: maxval is %u; it must be 1 to 65535",
		    r->name, maxval);
	if (pages > 0 && pagesize > 0 && bytes > (double)pages * pagesize)
		return gf_fail(e, "%s: a %ld x %ld image needs %.0f bytes, more "
		    "than this machine's memory", r->name, width, height, bytes);
	if (r->max_pixels > 0 && npx > r->max_pixels)
		return gf_fail(e, "%s: image is %ld x %ld = %lld pixels, more than "
		    "the limit of %lld; --max-pixels N raises it (0: no limit)",
		    r->name, width, height, npx, r->max_pixels);
	return 0;
}

/*
 * The image of a stream that its peeked byte does not give to a reader
 * of the FILE (PNM): sniffs the first bytes (up to IMG_HEAD_MAX) and
 * hands the stream to the format they begin.  After an image only a
 * format of IMG_ROW_STREAM may follow; the others (TIFF, BMP, TGA, GIF)
 * stand alone, and what follows them is judged by img_read_next.
 */
static int
read_other(struct img_reader *r, struct image *img, struct gf_err *e)
{
	const struct img_format_row *f;
	char names[IMG_FORMAT_LIST_MAX];

	r->nhead = r->hpos = 0;
	r->nhead = img_reader_bytes(r, r->head, sizeof(r->head));
	if (ferror(r->f))
		return gf_fail(e, "cannot read %s: %s", r->name, strerror(errno));
	f = img_format_sniff(r->head, r->nhead, 0);
	if (r->nread > 0 && (f == NULL || !(f->flags & IMG_ROW_STREAM)))
		return gf_fail(e, "%s: garbage after image %d: byte %02x where the "
		    "next %s image or the end of the stream should be", r->name,
		    r->nread, r->head[0], img_format_names(IMG_ROW_STREAM, " or ",
		    names, sizeof(names)));
	if (f == NULL)
		return gf_fail(e, "%s: not an image this tool reads (%s): it "
		    "starts with the bytes %02x %02x", r->name,
		    img_format_names(0, ", ", names, sizeof(names)), r->head[0],
		    r->nhead > 1 ? r->head[1] : 0);
	if (!(f->flags & IMG_ROW_STREAM))
		r->endless = f->name;
	return f->read(r, img, e);
}

int
img_read_next(struct img_reader *r, struct image *img, struct gf_err *e)
{
	const struct img_format_row *f;
	unsigned char b;
	int c, more, ret;

	img->px = NULL;
	img->offset_binary = 0;         /* no reader makes signed samples */
	img_icc_free(&r->icc);
	if (r->open != NULL) {          /* the next image of a file (TIFF's page) */
		if ((ret = r->open->read(r, img, e)) > 0)
			r->nread++;
		else
			img_icc_free(&r->icc);
		if (ret != 0 || r->done)
			return ret;
		/* past its last page, from a pipe: what follows it */
	}
	if (r->done)
		return 0;
	if (r->nread > 0) {             /* past whitespace, the end or an image */
		if (img_reader_skip_space(r, &more, e) < 0)
			return -1;
		if (!more) {
			r->done = 1;
			return 0;
		}
		if (r->endless != NULL)
			return gf_fail(e, "%s: garbage after image %d: byte %02x where "
			    "the end of the stream should be (a %s cannot tell where it "
			    "ends, so no image may follow it)", r->name, r->nread,
			    img_reader_peek(r) & 0xff, r->endless);
	}
	c = img_reader_peek(r);
	if (c == EOF) {
		if (ferror(r->f))
			return gf_fail(e, "cannot read %s: %s", r->name, strerror(errno));
		return gf_fail(e, "%s is empty: there is no image in it", r->name);
	}
	b = (unsigned char)c;
	if ((f = img_format_sniff(&b, 1, 1)) != NULL)
		ret = back_to_file(r, e) < 0 ? -1 : f->read(r, img, e);
	else
		ret = read_other(r, img, e);
	if (ret > 0)
		r->nread++;
	else
		img_icc_free(&r->icc);
	return ret;
}

const void *
img_out_row(const struct image *img, int y, unsigned top, void *buf)
{
	size_t n = (size_t)img->width * img->channels, base = (size_t)y * n;
	unsigned m = img->maxval;

	if (m == top)
		return (const char *)img->px + base * gf_sample_bytes(m);
	for (size_t i = 0; i < n; i++) {
		unsigned v = (img_get(img, base + i) * top + m / 2) / m;
		if (top == 255)
			((uint8_t *)buf)[i] = (uint8_t)v;
		else
			((uint16_t *)buf)[i] = (uint16_t)v;
	}
	return buf;
}

int
img_load(const char *path, struct image *img, struct gf_err *e)
{
	return img_load_icc(path, 0, 1, img, NULL, e);
}

int
img_load_icc(const char *path, int gray, int autorotate, struct image *img,
    struct img_icc *icc, struct gf_err *e)
{
	struct img_reader *r;
	FILE *f = fopen(path, "rb");
	int ret;

	if (f == NULL)
		return gf_fail(e, "cannot open %s: %s", path, strerror(errno));
	if (img_reader_open(&r, f, path, e) < 0) {
		fclose(f);
		return -1;
	}
	img_reader_set_gray(r, gray);
	img_reader_set_autorotate(r, autorotate);
	ret = img_read_next(r, img, e);
	if (ret > 0 && icc != NULL)
		img_reader_take_icc(r, icc);
	img_reader_close(r);
	fclose(f);
	if (ret > 0 && gray && img->channels != 1)
		img_gray_in_place(img);
	return ret > 0 ? 0 : -1;
}

int
img_save(const char *path, const struct image *img, enum img_format fmt,
    struct gf_err *e)
{
	return img_save_icc(path, img, fmt, NULL, e);
}

int
img_save_icc(const char *path, const struct image *img, enum img_format fmt,
    const struct img_icc *icc, struct gf_err *e)
{
	struct outfile o;

	if (outfile_open(&o, path, e) < 0)
		return -1;
	if (img_write_icc(o.f, img, img_format_for(path, fmt), 0, icc, path,
	    e) < 0) {
		outfile_abort(&o);
		return -1;
	}
	return outfile_commit(&o, e);
}
