/*
 * img.c - image input and output.  PNM is read through libnetpbm (whose
 * errors would exit the process: every call is guarded with pm_setjmpbuf
 * and turned into an error return); everything else through stb_image.
 * The reader is picked from the first byte of the stream, never from the
 * file's name.  Raw PNM rasters are read and written as bytes once
 * libnetpbm has parsed or written the header, which keeps a stream of
 * video frames fast.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <pam.h>
#include <stb_image.h>
#include <stb_image_write.h>

#include "img.h"
#include "outfile.h"

struct img_reader {
	FILE *f;
	const char *name;
	int nread;              /* images read so far */
	int done;               /* stream ended (or was not PNM) */
	struct img_buffer buf;  /* where pixels go; get == NULL: img_alloc */
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
 * The one piece of mutable file-scope state in lib/, forced by that API.
 */
static char pnm_msg[256];

static void
pnm_error_msg(const char *msg)
{
	snprintf(pnm_msg, sizeof(pnm_msg), "%s", msg);
	pnm_msg[strcspn(pnm_msg, "\n")] = '\0';
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

int
img_format_parse(const char *s, enum img_format *f, struct gf_err *e)
{
	if (strcmp(s, "pnm") == 0)
		*f = IMG_FORMAT_PNM;
	else if (strcmp(s, "png") == 0)
		*f = IMG_FORMAT_PNG;
	else
		return gf_fail(e, "'%s' is not an output format; choose pnm or png", s);
	return 0;
}

enum img_format
img_format_for(const char *path, enum img_format asked)
{
	const char *dot;

	if (asked != IMG_FORMAT_AUTO)
		return asked;
	if (path == NULL || strcmp(path, "-") == 0)
		return IMG_FORMAT_PNM;
	dot = strrchr(path, '.');
	if (dot != NULL && strchr(dot, '/') == NULL && strcasecmp(dot, ".png") == 0)
		return IMG_FORMAT_PNG;
	return IMG_FORMAT_PNM;
}

const char *
img_format_ext(enum img_format f, const struct image *img)
{
	if (f == IMG_FORMAT_PNG)
		return "png";
	return img->channels == 1 ? "pgm" : "ppm";
}

int
img_reader_open(struct img_reader **r, FILE *f, const char *name,
    struct gf_err *e)
{
	*r = calloc(1, sizeof(**r));
	if (*r == NULL)
		return gf_fail(e, "out of memory");
	(*r)->f = f;
	(*r)->name = name;
	return 0;
}

void
img_reader_set_buffer(struct img_reader *r, const struct img_buffer *b)
{
	r->buf = *b;
}

/* Gives img (dimensions set) its pixel memory: the caller's buffer or img_alloc. */
static int
reader_alloc(struct img_reader *r, struct image *img, struct gf_err *e)
{
	if (r->buf.get == NULL)
		return img_alloc(img, e);
	img->px = r->buf.get(r->buf.arg, img_bytes(img));
	if (img->px == NULL)
		return gf_fail(e, "%s: out of memory for a %d x %d image", r->name,
		    img->width, img->height);
	return 0;
}

/* Undoes reader_alloc after a failed read. */
static void
reader_release(struct img_reader *r, struct image *img)
{
	if (r->buf.get == NULL)
		img_free(img);
	img->px = NULL;
}

void
img_reader_close(struct img_reader *r)
{
	free(r);
}

/* Refuses sizes that do not fit the tools or the machine, before allocating. */
static int
check_size(const struct img_reader *r, long width, long height, int channels,
    unsigned maxval, struct gf_err *e)
{
	long pages = sysconf(_SC_PHYS_PAGES), pagesize = sysconf(_SC_PAGESIZE);
	double bytes = (double)width * height * channels * gf_sample_bytes(maxval);

	if (width < 1 || height < 1)
		return gf_fail(e, "%s: image is %ld x %ld pixels; both sides must "
		    "be at least 1", r->name, width, height);
	if (width > GF_MAX_DIM || height > GF_MAX_DIM)
		return gf_fail(e, "%s: image is %ld x %ld pixels; the largest side "
		    "supported is %d", r->name, width, height, GF_MAX_DIM);
	if (maxval < 1 || maxval > 65535)
		return gf_fail(e, "%s: maxval is %u; it must be 1 to 65535",
		    r->name, maxval);
	if (pages > 0 && pagesize > 0 && bytes > (double)pages * pagesize)
		return gf_fail(e, "%s: a %ld x %ld image needs %.0f bytes, more "
		    "than this machine's memory", r->name, width, height, bytes);
	return 0;
}

/* pnm_readpaminit under a guard: -1 with libnetpbm's reason on a bad header. */
static int
pnm_header(struct img_reader *r, struct pam *pam, struct gf_err *e)
{
	jmp_buf jb, *saved;

	pthread_mutex_lock(&pnm_lock);
	pnm_setup();
	if (setjmp(jb) != 0) {
		pm_setjmpbuf(saved);
		gf_fail(e, "%s: bad PNM header in image %d: %s", r->name,
		    r->nread + 1, pnm_msg);
		pthread_mutex_unlock(&pnm_lock);
		return -1;
	}
	pm_setjmpbufsave(&jb, &saved);
	pnm_readpaminit(r->f, pam, PAM_STRUCT_SIZE(tuple_type));
	pm_setjmpbuf(saved);
	pthread_mutex_unlock(&pnm_lock);
	return 0;
}

/* Checks that no sample exceeds maxval (raw rasters are not checked by libnetpbm). */
static int
check_samples(const struct img_reader *r, const struct image *img,
    struct gf_err *e)
{
	size_t n = (size_t)img->width * img->height * img->channels;

	if (img->maxval == 255 || img->maxval == 65535)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned v = img_get(img, i);
		if (v > img->maxval) {
			size_t px = i / img->channels;
			return gf_fail(e, "%s: sample value %u in column %zu of row %zu "
			    "exceeds maxval %u", r->name, v, px % img->width + 1,
			    px / img->width + 1, img->maxval);
		}
	}
	return 0;
}

/*
 * Reads a raw raster (P5, P6, P7) as bytes, big-endian samples, alpha
 * dropped.  Without alpha the bytes go straight into the image.
 */
static int
pnm_raw_raster(struct img_reader *r, const struct pam *pam,
    struct image *img, struct gf_err *e)
{
	int bps = gf_sample_bytes(img->maxval), depth = pam->depth;
	size_t rowbytes = (size_t)pam->width * depth * bps, got;
	uint8_t *row = NULL;

	if (depth == img->channels) {
		/* The whole raster in one read, straight into the image. */
		got = fread(img->px, 1, rowbytes * img->height, r->f);
		if (got != rowbytes * img->height)
			return gf_fail(e, "%s: image %d is truncated: its pixel data "
			    "ends in row %zu of %d", r->name, r->nread + 1,
			    got / rowbytes + 1, img->height);
	} else if ((row = malloc(rowbytes)) == NULL) {
		return gf_fail(e, "out of memory");
	}
	for (int y = 0; depth != img->channels && y < img->height; y++) {
		uint8_t *dst = (uint8_t *)img->px + (size_t)y * img->width *
		    img->channels * bps;
		if (fread(row, 1, rowbytes, r->f) != rowbytes) {
			free(row);
			return gf_fail(e, "%s: image %d is truncated: its pixel data "
			    "ends in row %d of %d", r->name, r->nread + 1, y + 1,
			    img->height);
		}
		for (int x = 0; x < img->width; x++)
			memcpy(dst + (size_t)x * img->channels * bps,
			    row + (size_t)x * depth * bps, (size_t)img->channels * bps);
	}
	if (depth != img->channels)
		free(row);
	if (bps == 2) {
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

static int
read_pnm(struct img_reader *r, struct image *img, struct gf_err *e)
{
	struct pam pam;
	int raw;

	if (pnm_header(r, &pam, e) < 0)
		return -1;
	if (pam.depth < 1 || pam.depth > 4)
		return gf_fail(e, "%s: PAM image %d has depth %u; only gray (1), "
		    "gray+alpha (2), RGB (3) and RGB+alpha (4) are read", r->name,
		    r->nread + 1, pam.depth);
	if (check_size(r, pam.width, pam.height, pam.depth >= 3 ? 3 : 1,
	    (unsigned)pam.maxval, e) < 0)
		return -1;
	img->width = pam.width;
	img->height = pam.height;
	img->channels = pam.depth >= 3 ? 3 : 1;
	img->maxval = (unsigned)pam.maxval;
	if (reader_alloc(r, img, e) < 0)
		return -1;
	raw = pam.format == RPGM_FORMAT || pam.format == RPPM_FORMAT ||
	    pam.format == PAM_FORMAT;
	if ((raw ? pnm_raw_raster(r, &pam, img, e) :
	    pnm_tuple_raster(r, &pam, img, e)) < 0) {
		reader_release(r, img);
		return -1;
	}
	return 1;
}

/* Whether another PNM image follows (guarded pnm_nextimage). */
static int
pnm_more(struct img_reader *r, int *more, struct gf_err *e)
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

/* Reads what is left of the stream into memory, for stb. */
static int
slurp(struct img_reader *r, uint8_t **buf, size_t *len, struct gf_err *e)
{
	size_t cap = 1 << 16, n = 0, got;
	uint8_t *b = malloc(cap), *nb;

	while (b != NULL && (got = fread(b + n, 1, cap - n, r->f)) > 0) {
		n += got;
		if (n == cap) {
			if (cap > (size_t)INT_MAX / 2) {
				free(b);
				return gf_fail(e, "%s: file is larger than 1 GiB, too "
				    "large for the PNG/JPEG reader", r->name);
			}
			nb = realloc(b, cap *= 2);
			if (nb == NULL)
				free(b);
			b = nb;
		}
	}
	if (b == NULL)
		return gf_fail(e, "out of memory reading %s", r->name);
	if (ferror(r->f)) {
		free(b);
		return gf_fail(e, "cannot read %s: %s", r->name, strerror(errno));
	}
	*buf = b;
	*len = n;
	return 0;
}

/* Copies stb's pixels (n channels, alpha dropped) into img. */
static void
from_stb(struct image *img, const void *px, int n)
{
	size_t npx = (size_t)img->width * img->height;

	for (size_t i = 0; i < npx; i++)
		for (int c = 0; c < img->channels; c++) {
			size_t k = i * n + c;
			img_set(img, i * img->channels + c, img->maxval > 255 ?
			    ((const uint16_t *)px)[k] : ((const uint8_t *)px)[k]);
		}
}

static int
read_stb(struct img_reader *r, struct image *img, struct gf_err *e)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	int w, h, n, is16;
	void *px;

	if (slurp(r, &buf, &len, e) < 0)
		return -1;
	if (!stbi_info_from_memory(buf, (int)len, &w, &h, &n)) {
		free(buf);
		return gf_fail(e, "%s: not an image this tool reads (PNM, PNG, "
		    "JPEG, BMP, TGA, GIF): %s", r->name, stbi_failure_reason());
	}
	is16 = stbi_is_16_bit_from_memory(buf, (int)len);
	if (check_size(r, w, h, n >= 3 ? 3 : 1, is16 ? 65535 : 255, e) < 0) {
		free(buf);
		return -1;
	}
	px = is16 ? (void *)stbi_load_16_from_memory(buf, (int)len, &w, &h, &n, 0)
	    : (void *)stbi_load_from_memory(buf, (int)len, &w, &h, &n, 0);
	free(buf);
	if (px == NULL)
		return gf_fail(e, "%s: cannot decode the image: %s", r->name,
		    stbi_failure_reason());
	img->width = w;
	img->height = h;
	img->channels = n >= 3 ? 3 : 1;
	img->maxval = is16 ? 65535 : 255;
	if (reader_alloc(r, img, e) < 0) {
		stbi_image_free(px);
		return -1;
	}
	from_stb(img, px, n);
	stbi_image_free(px);
	return 1;
}

int
img_read_next(struct img_reader *r, struct image *img, struct gf_err *e)
{
	int c, more, ret;

	img->px = NULL;
	if (r->done)
		return 0;
	if (r->nread > 0) {
		if (pnm_more(r, &more, e) < 0)
			return -1;
		if (!more) {
			r->done = 1;
			return 0;
		}
	}
	c = getc(r->f);
	if (c == EOF) {
		if (ferror(r->f))
			return gf_fail(e, "cannot read %s: %s", r->name, strerror(errno));
		return gf_fail(e, "%s is empty: there is no image in it", r->name);
	}
	ungetc(c, r->f);
	if (c == 'P') {
		ret = read_pnm(r, img, e);
	} else if (r->nread > 0) {
		return gf_fail(e, "%s: image %d is not PNM; only PNM images can "
		    "follow one another in a stream", r->name, r->nread + 1);
	} else {
		ret = read_stb(r, img, e);
		r->done = 1;
	}
	if (ret > 0)
		r->nread++;
	return ret;
}

/* The PNM header through libnetpbm, guarded. */
static int
write_pnm_header(FILE *f, const struct image *img, const char *name,
    struct gf_err *e)
{
	jmp_buf jb, *saved;
	struct pam pam;

	memset(&pam, 0, sizeof(pam));
	pam.size = sizeof(pam);
	pam.len = PAM_STRUCT_SIZE(tuple_type);
	pam.file = f;
	pam.format = img->channels == 1 ? RPGM_FORMAT : RPPM_FORMAT;
	pam.plainformat = 0;
	pam.width = img->width;
	pam.height = img->height;
	pam.depth = (unsigned)img->channels;
	pam.maxval = img->maxval;
	strcpy(pam.tuple_type, img->channels == 1 ? PAM_PGM_TUPLETYPE :
	    PAM_PPM_TUPLETYPE);
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

int
img_write_rows(FILE *f, const struct image *img, int y0, int y1,
    const char *name, struct gf_err *e)
{
	size_t row = (size_t)img->width * img->channels, n = row * (y1 - y0);

	if (y0 == 0 && write_pnm_header(f, img, name, e) < 0)
		return -1;
	if (img->maxval <= 255) {
		if (fwrite((const uint8_t *)img->px + row * y0, 1, n, f) != n)
			return gf_fail(e, "cannot write %s: %s", name, strerror(errno));
		return 0;
	}
	const uint16_t *s = (const uint16_t *)img->px + row * y0;
	uint8_t buf[8192];
	for (size_t i = 0; i < n; ) {
		size_t k = 0;
		for (; k < sizeof(buf) && i < n; k += 2, i++) {
			buf[k] = (uint8_t)(s[i] >> 8);
			buf[k + 1] = (uint8_t)s[i];
		}
		if (fwrite(buf, 1, k, f) != k)
			return gf_fail(e, "cannot write %s: %s", name, strerror(errno));
	}
	return 0;
}

static void
png_out(void *ctx, void *data, int size)
{
	FILE *f = ctx;

	if (fwrite(data, 1, (size_t)size, f) != (size_t)size)
		(void)0;        /* seen by ferror() after the call */
}

/* PNG is 8 bit: samples of a smaller maxval are scaled to 0..255. */
static int
write_png(FILE *f, const struct image *img, const char *name, struct gf_err *e)
{
	size_t n = (size_t)img->width * img->height * img->channels;
	uint8_t *px = img->px, *scaled = NULL;
	int ok;

	if (img->maxval > 255)
		return gf_fail(e, "cannot write %s as PNG: the image is 16 bit "
		    "(maxval %u) and PNG output is 8 bit only; write PGM instead "
		    "(-f pnm or a .pgm name)", name, img->maxval);
	if (img->maxval < 255) {
		scaled = malloc(n);
		if (scaled == NULL)
			return gf_fail(e, "out of memory");
		for (size_t i = 0; i < n; i++)
			scaled[i] = (uint8_t)((px[i] * 255u + img->maxval / 2) / img->maxval);
		px = scaled;
	}
	ok = stbi_write_png_to_func(png_out, f, img->width, img->height,
	    img->channels, px, img->width * img->channels);
	free(scaled);
	if (!ok || ferror(f))
		return gf_fail(e, "cannot write %s as PNG%s%s", name,
		    ferror(f) ? ": " : "", ferror(f) ? strerror(errno) : "");
	return 0;
}

int
img_write(FILE *f, const struct image *img, enum img_format fmt,
    const char *name, struct gf_err *e)
{
	if (fmt == IMG_FORMAT_PNG)
		return write_png(f, img, name, e);
	return img_write_rows(f, img, 0, img->height, name, e);
}

int
img_load(const char *path, struct image *img, struct gf_err *e)
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
	ret = img_read_next(r, img, e);
	img_reader_close(r);
	fclose(f);
	return ret > 0 ? 0 : -1;
}

int
img_save(const char *path, const struct image *img, enum img_format fmt,
    struct gf_err *e)
{
	struct outfile o;

	if (outfile_open(&o, path, e) < 0)
		return -1;
	if (img_write(o.f, img, img_format_for(path, fmt), path, e) < 0) {
		outfile_abort(&o);
		return -1;
	}
	return outfile_commit(&o, e);
}
