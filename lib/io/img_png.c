/*
 * img_png.c - PNG in.  A PNG is read into memory up to the end of its IEND
 * chunk, where the next image of a stream begins (png_input).  The common
 * kind (8 or 16 bits, gray or RGB, with or without alpha, not interlaced,
 * no tRNS or PLTE) takes the fast path: IDAT's data inflated in one call by
 * libdeflate, about twice as fast as zlib, then unfiltered straight into
 * the image's final buffer.  Any other PNG, and any that fails one of the
 * fast path's checks, goes to libpng, whose verdict and messages stand;
 * both paths give the same bytes (tests/png_test.c).  libpng decodes rows
 * straight into the final buffer too.  An iCCP chunk's ICC profile is read
 * apart from both (png_icc), for the writer.  PNG out: img_png_write.c.
 * What a PNG may hold is bounded by its header (png_most), whatever the
 * pixel limit allows.  Image data that goes on past the last row (more
 * inflated bytes than the rows, or compressed bytes after the zlib stream's
 * end) fails the image on both paths: libpng only warns of it (a warning
 * known by its whole text: others quote the file's, an iCCP profile's name)
 * and would inflate all of it; it is stopped PNG_PAST_MAX bytes past the
 * last row.
 * libpng reports errors by longjmp to the jmp_buf in its own png struct,
 * and its messages go into a context of each call: readers on several
 * threads share nothing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <png.h>

#include "img_int.h"
#include "img_png_filter.h"

/* One read call: where libpng's messages go, and what to undo. */
struct png_call {
	struct img_reader *r;
	const unsigned char *src; /* the PNG being read, srclen bytes */
	size_t srclen, srcpos;
	struct image *img;
	png_bytep *rows;        /* row pointers into img->px */
	size_t kept;            /* img->px is the fast path's, of these bytes; 0: none */
	int allocated;          /* img->px came from img_reader_alloc */
	int reading;            /* libpng is reading the rows (png_read_image) */
	int interlaced;
	png_uint_32 height;
	size_t past;            /* bytes read since the last row */
	int surplus;            /* libpng warned of data past the last row */
	char msg[200];          /* libpng's reason, escaped */
};

static void
png_on_error(png_structp png, png_const_charp msg)
{
	struct png_call *c = png_get_error_ptr(png);

	gf_escape(c->msg, sizeof(c->msg), msg);
	png_longjmp(png, 1);
}

/* Image data past the last row: libpng's warnings of it alone, kept. */
static void
png_on_warning(png_structp png, png_const_charp msg)
{
	struct png_call *c = png_get_error_ptr(png);

	if (c != NULL && strlen(msg) > 4 && (strcmp(msg + 4, ": Too much image "
	    "data") == 0 || strcmp(msg + 4, ": Extra compressed data") == 0))
		c->surplus = 1;
}

/* ---- PNG in: the chunks */

/* The signature's bytes, and where the IHDR chunk that follows it ends. */
#define PNG_SIG_BYTES 8
#define PNG_IHDR_END (PNG_SIG_BYTES + 8 + 13 + 4)

/* The longest chunk length: 2^31 - 1. */
#define PNG_LEN_MAX 0x7fffffffu

/*
 * The longest chunk other than IDAT that libpng reads (its
 * PNG_USER_CHUNK_MALLOC_MAX); it refuses the file for a longer one.
 */
#define PNG_CHUNK_MAX 8000000u

static uint32_t
png_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
	    p[3];
}

/* Whether the chunk at p (length, type, len bytes of data, CRC) has a sound CRC. */
static int
png_crc_ok(const unsigned char *p, uint32_t len)
{
	return libdeflate_crc32(0, p + 4, 4 + (size_t)len) == png_be32(p + 8 + len);
}

/* Whether a chunk type is four ASCII letters, as libpng demands. */
static int
png_type_ok(const unsigned char *type)
{
	for (int i = 0; i < 4; i++)
		if (!(type[i] >= 'A' && type[i] <= 'Z') &&
		    !(type[i] >= 'a' && type[i] <= 'z'))
			return 0;
	return 1;
}

/* IHDR's fields. */
struct png_header {
	uint32_t width, height;
	unsigned depth, color, interlace;
};

/* Samples per pixel as stored, by colour type (a palette index is one). */
static unsigned
png_channels(unsigned color)
{
	return color == 2 ? 3 : color == 4 ? 2 : color == 6 ? 4 : 1;
}

/*
 * The most bytes a PNG of header h may hold: its rows as stored (a
 * filter byte each, 7 more for an interlaced image's passes), a quarter
 * more for deflate's worst case and the IDAT chunks' framing, and
 * IMG_INPUT_SLACK of other chunks (text, ICC profile, EXIF).
 */
static unsigned long long
png_most(const struct png_header *h)
{
	unsigned long long row = ((unsigned long long)h->width *
	    png_channels(h->color) * h->depth + 7) / 8 + 1;
	unsigned long long raw = row * h->height + (h->interlace ? 7ull *
	    h->height : 0);

	return raw + raw / 4 + IMG_INPUT_SLACK;
}

/*
 * Bytes of the PNG that libpng may read past the last row, for the end
 * of the zlib stream (its last codes and checksum, maybe in another
 * IDAT chunk); past them, the image data goes on, and the image fails.
 */
#define PNG_PAST_MAX (64u << 10)

/*
 * Whether the n bytes at p begin with a signature and an IHDR chunk, CRC
 * sound, whose fields libpng takes: sides 1 to 2^31 - 1, a depth that
 * the colour type allows, compression and filter method 0, interlace 0
 * or 1.  The signature itself was sniffed.
 */
static int
png_header_parse(const unsigned char *p, size_t n, struct png_header *h)
{
	static const unsigned char ihdr[8] = {0, 0, 0, 13, 'I', 'H', 'D', 'R'};
	const unsigned char *f = p + PNG_SIG_BYTES + 8;
	unsigned depths;        /* bit d set: depth d allowed */

	if (n < PNG_IHDR_END || memcmp(p + PNG_SIG_BYTES, ihdr, 8) != 0 ||
	    !png_crc_ok(p + PNG_SIG_BYTES, 13))
		return 0;
	h->width = png_be32(f);
	h->height = png_be32(f + 4);
	h->depth = f[8];
	h->color = f[9];
	h->interlace = f[12];
	if (h->color == 0)
		depths = 1u << 1 | 1u << 2 | 1u << 4 | 1u << 8 | 1u << 16;
	else if (h->color == 3)
		depths = 1u << 1 | 1u << 2 | 1u << 4 | 1u << 8;
	else if (h->color == 2 || h->color == 4 || h->color == 6)
		depths = 1u << 8 | 1u << 16;
	else
		depths = 0;
	return h->width >= 1 && h->width <= PNG_LEN_MAX && h->height >= 1 &&
	    h->height <= PNG_LEN_MAX && h->depth <= 16 &&
	    (depths >> h->depth & 1) && f[10] == 0 && f[11] == 0 &&
	    h->interlace <= 1;
}

/*
 * Refuses, from the IHDR in the sniffed bytes, an image that the size
 * checks would refuse anyway, before the stream is read into memory (a
 * palette image counts as RGB, the least it becomes).  A header that is
 * not sound, or sides past GF_MAX_DIM, are left to the decoders and
 * their messages.
 */
static int
png_check_head(struct img_reader *r, struct gf_err *e)
{
	struct png_header h;

	if (!png_header_parse(r->head, r->nhead, &h) || h.width > GF_MAX_DIM ||
	    h.height > GF_MAX_DIM)
		return 0;
	return img_check_size(r, (long)h.width, (long)h.height,
	    h.color == 3 ? 3 : (int)png_channels(h.color),
	    h.depth == 16 ? 65535 : 255, e);
}

/* ---- PNG in: the fast path */

/*
 * A PNG on the fast path.  raw holds the inflated image data, height
 * rows of a filter byte then rowbytes bytes (rawbytes in all), followed
 * by rowbytes zeros: the row above the first.
 */
struct png_fast {
	struct png_header h;
	size_t bpp;             /* bytes of a pixel: the filters' left distance */
	size_t rowbytes;
	size_t rawbytes;
	const unsigned char *z; /* the zlib stream: one IDAT's data, or zjoin */
	size_t zlen;
	unsigned char *zjoin;   /* the data of several IDATs, joined */
	unsigned char *raw;
};

/* The header and the rows' layout; 0 for a PNG the fast path does not take. */
static int
png_fast_layout(const unsigned char *p, size_t len, struct png_fast *f)
{
	struct png_header *h = &f->h;

	if (!png_header_parse(p, len, h) || h->interlace != 0 || h->color == 3 ||
	    h->depth < 8 || h->width > GF_MAX_DIM || h->height > GF_MAX_DIM)
		return 0;
	f->bpp = png_channels(h->color) * (h->depth / 8);
	f->rowbytes = (size_t)h->width * f->bpp;
	if (h->height > (SIZE_MAX - f->rowbytes) / (1 + f->rowbytes))
		return 0;
	f->rawbytes = (size_t)h->height * (1 + f->rowbytes);
	return 1;
}

/*
 * Whether a chunk before the image data leaves the pixels alone and
 * libpng reads or skips it without refusing the file: an ancillary chunk
 * (lower-case first letter) other than tRNS, of at most PNG_CHUNK_MAX
 * bytes.  Critical chunks (PLTE, unknown ones) are libpng's to judge.
 */
static int
png_chunk_skippable(const unsigned char *type, uint32_t len)
{
	return (type[0] & 0x20) != 0 && memcmp(type, "tRNS", 4) != 0 &&
	    len <= PNG_CHUNK_MAX;
}

/*
 * Finds the image data: the run of IDAT chunks after the chunks that
 * png_chunk_skippable passes, each IDAT's length and CRC checked, their
 * data joined in f->zjoin when there are several.  The run ends at the
 * first other chunk, at the end of the data or at what does not parse
 * as a chunk: libpng reads no further than the end of the zlib stream,
 * which lies before it in a sound file.  0 for a PNG left to libpng.
 */
static int
png_fast_idat(const unsigned char *p, size_t len, struct png_fast *f)
{
	/* libpng refuses an IDAT longer than the raw data, deflate's overhead aside. */
	size_t idat_max = f->rawbytes > PNG_CHUNK_MAX ? f->rawbytes : PNG_CHUNK_MAX;
	size_t pos = PNG_IHDR_END, n = 0;
	uint32_t clen;

	for (; len - pos >= 12; pos += 12 + (size_t)clen) {
		clen = png_be32(p + pos);
		if (clen > PNG_LEN_MAX || clen > len - pos - 12 ||
		    !png_type_ok(p + pos + 4))
			break;
		if (memcmp(p + pos + 4, "IDAT", 4) != 0) {
			if (n > 0 || !png_chunk_skippable(p + pos + 4, clen))
				break;
			continue;
		}
		if (clen > idat_max || !png_crc_ok(p + pos, clen))
			return 0;
		if (n++ == 0) {
			f->z = p + pos + 8;
			f->zlen = clen;
			continue;
		}
		if (f->zjoin == NULL) {         /* room for every IDAT left */
			if ((f->zjoin = img_big_alloc(f->zlen + (len - pos))) == NULL)
				return 0;
			memcpy(f->zjoin, f->z, f->zlen);
			f->z = f->zjoin;
		}
		memcpy(f->zjoin + f->zlen, p + pos + 8, clen);
		f->zlen += clen;
	}
	return n > 0;
}

/*
 * Inflates the image data into f->raw, which it must fill exactly, with
 * nothing left of it, and checks every row's filter type.  A zlib window of less than 32 KiB is
 * left to libpng (zlib refuses distances past it; libdeflate does not
 * look), like anything else amiss, a wrong Adler-32 included.
 */
static int
png_fast_inflate(struct png_fast *f)
{
	struct libdeflate_decompressor *d;
	enum libdeflate_result res;
	size_t used;

	if (f->zlen < 2 || (f->z[0] & 0xf0) != 0x70 ||
	    f->rawbytes > SIZE_MAX - f->rowbytes)
		return 0;
	if ((f->raw = img_big_alloc(f->rawbytes + f->rowbytes)) == NULL)
		return 0;
	if ((d = libdeflate_alloc_decompressor()) == NULL)
		return 0;
	res = libdeflate_zlib_decompress_ex(d, f->z, f->zlen, f->raw,
	    f->rawbytes, &used, NULL);
	libdeflate_free_decompressor(d);
	if (res != LIBDEFLATE_SUCCESS || used != f->zlen)
		return 0;       /* data past the rows: libpng's verdict */
	for (size_t y = 0; y < f->h.height; y++)
		if (f->raw[y * (1 + f->rowbytes)] > 4)
			return 0;
	memset(f->raw + f->rawbytes, 0, f->rowbytes);
	return 1;
}

/* Swaps the bytes of each 16-bit sample of n bytes at p. */
static void
png_swap16(uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2) {
		uint8_t t = p[i];

		p[i] = p[i + 1];
		p[i + 1] = t;
	}
}

/*
 * Unfilters f's rows into img's final buffer, 16-bit samples in host
 * order.  A row is swapped once the row below no longer needs it as
 * stored.
 */
static void
png_fast_unfilter(const struct png_fast *f, struct image *img)
{
	const uint8_t *in = f->raw, *zeros = f->raw + f->rawbytes;
	uint8_t *out = img->px;
	size_t n = f->rowbytes;
	int swap = 0;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	swap = f->h.depth == 16;
#endif
	for (size_t y = 0; y < f->h.height; y++, in += 1 + n, out += n) {
		img_png_unfilter_row(in[0], in + 1, y > 0 ? out - n : zeros, out,
		    n, f->bpp);
		if (swap && y > 0)
			png_swap16(out - n, n);
	}
	if (swap)
		png_swap16(out - n, n);
}

/*
 * img_png_read_fast's work.  The buffer is asked for before the inflate:
 * a run then learns the size, and opens its GPUs, while this inflates.
 * Given up on (0), *kept is that buffer's bytes (else 0), img->px still,
 * for libpng to fill: a caller's get is asked once per image.
 */
static int
png_fast_read(struct img_reader *r, const unsigned char *png, size_t len,
    struct image *img, size_t *kept, struct gf_err *e)
{
	struct png_fast f = {0};
	unsigned channels, maxval;
	int ret = 0;

	*kept = 0;
	if (!png_fast_layout(png, len, &f))
		return 0;
	channels = png_channels(f.h.color);
	maxval = f.h.depth == 16 ? 65535 : 255;
	if (img_check_size(r, (long)f.h.width, (long)f.h.height, (int)channels,
	    maxval, e) < 0)
		return -1;
	if (png_fast_idat(png, len, &f)) {
		img->width = (int)f.h.width;
		img->height = (int)f.h.height;
		img->channels = (int)channels;
		img->maxval = maxval;
		if (img_reader_alloc(r, img, e) < 0) {
			ret = -1;
		} else if (png_fast_inflate(&f)) {
			png_fast_unfilter(&f, img);
			ret = 1;
		} else {
			*kept = img_bytes(img);
		}
	}
	free(f.zjoin);
	free(f.raw);
	return ret;
}

int
img_png_read_fast(struct img_reader *r, const unsigned char *png, size_t len,
    struct image *img, struct gf_err *e)
{
	size_t kept;
	int ret = png_fast_read(r, png, len, img, &kept, e);

	if (kept)
		img_reader_release(r, img);
	return ret;
}

/* ---- PNG in: libpng */

/* libpng's input: the PNG in memory; short means truncated. */
static void
png_source(png_structp png, png_bytep data, size_t n)
{
	struct png_call *c = png_get_io_ptr(png);

	if (c->reading && (c->interlaced ? png_get_current_pass_number(png) >= 7 :
	    png_get_current_row_number(png) >= c->height) &&
	    (c->past += n) > PNG_PAST_MAX)
		png_error(png, "its image data goes on past its last row (more "
		    "than 65536 bytes of it)");
	if (n > c->srclen - c->srcpos)
		png_error(png, "the file is truncated");
	memcpy(data, c->src + c->srcpos, n);
	c->srcpos += n;
}

/*
 * Sets the transformations that give our samples: palette to RGB, gray
 * below 8 bit scaled to 8, a tRNS chunk (transparent palette entries or
 * colour) to an alpha channel, 16 bit in host order.
 */
static void
png_transforms(png_structp png, png_infop info, int color, int depth)
{
	if (color == PNG_COLOR_TYPE_PALETTE)
		png_set_palette_to_rgb(png);
	if (color == PNG_COLOR_TYPE_GRAY && depth < 8)
		png_set_expand_gray_1_2_4_to_8(png);
	if (png_get_valid(png, info, PNG_INFO_tRNS))
		png_set_tRNS_to_alpha(png);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (depth == 16)
		png_set_swap(png);
#endif
	png_set_interlace_handling(png);
}

/*
 * Reads the header, checks the size, then decodes every row into the
 * final buffer.  Called under the caller's setjmp; -1 (e set) for a
 * refused size, libpng's errors longjmp.
 */
static int
png_decode(png_structp png, png_infop info, struct png_call *c,
    struct gf_err *e)
{
	struct image *img = c->img;
	png_uint_32 w, h;
	int depth, color;
	size_t rowbytes;

	png_set_read_fn(png, c, png_source);
	png_set_user_limits(png, GF_MAX_DIM, GF_MAX_DIM);
	png_read_info(png, info);
	png_get_IHDR(png, info, &w, &h, &depth, &color, NULL, NULL, NULL);
	png_transforms(png, info, color, depth);
	png_read_update_info(png, info);
	img->channels = png_get_channels(png, info);
	img->maxval = depth == 16 ? 65535 : 255;
	if (img_check_size(c->r, (long)w, (long)h, img->channels, img->maxval, e) < 0)
		return -1;
	img->width = (int)w;
	img->height = (int)h;
	rowbytes = (size_t)img->width * img->channels * gf_sample_bytes(img->maxval);
	if (png_get_rowbytes(png, info) != rowbytes)
		png_error(png, "unexpected row layout after the transformations");
	c->rows = malloc((size_t)img->height * sizeof(*c->rows));
	if (c->rows == NULL)
		return gf_nomem(e, "out of memory");
	/* (the fast path takes no PNG whose transformations change its size) */
	if (c->kept != 0 && img_bytes(img) != c->kept)
		return gf_fail(e, "%s: the PNG's layout changed between its "
		    "decoders", c->r->name);
	if (c->kept == 0 && img_reader_alloc(c->r, img, e) < 0)
		return -1;
	c->allocated = 1;
	for (int y = 0; y < img->height; y++)
		c->rows[y] = (png_bytep)img->px + (size_t)y * rowbytes;
	c->interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
	c->height = h;
	c->reading = 1;
	png_read_image(png, c->rows);
	if (c->surplus)
		png_error(png, "its image data goes on past its last row");
	return 1;
}

/* png_decode under libpng's error jump; *c is the caller's, not this frame's. */
static int
png_read_guarded(png_structp png, png_infop info, struct png_call *c,
    struct gf_err *e)
{
	if (setjmp(png_jmpbuf(png)) != 0)
		return gf_fail(e, "%s: cannot decode the PNG image: %s", c->r->name,
		    c->msg);
	return png_decode(png, info, c, e);
}

/* img_png_read_libpng's work; kept: as png_fast_read's. */
static int
png_libpng_read(struct img_reader *r, const unsigned char *png_bytes,
    size_t len, struct image *img, size_t kept, struct gf_err *e)
{
	struct png_call c = {.r = r, .src = png_bytes, .srclen = len, .img = img,
	    .kept = kept, .allocated = kept != 0};
	png_structp png;
	png_infop info = NULL;
	int ret;

	png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &c, png_on_error,
	    png_on_warning);
	if (png != NULL)
		info = png_create_info_struct(png);
	if (info == NULL) {
		png_destroy_read_struct(&png, NULL, NULL);
		ret = gf_nomem(e, "out of memory");
	} else {
		ret = png_read_guarded(png, info, &c, e);
		png_destroy_read_struct(&png, &info, NULL);
	}
	free(c.rows);
	if (ret < 0 && c.allocated)
		img_reader_release(r, img);
	return ret;
}

int
img_png_read_libpng(struct img_reader *r, const unsigned char *png_bytes,
    size_t len, struct image *img, struct gf_err *e)
{
	return png_libpng_read(r, png_bytes, len, img, 0, e);
}

/* ---- PNG in: the ICC profile */

/*
 * The ICC profile of the PNG of len bytes at p (its chunks sound so far
 * as the header's), from its iCCP chunk: the first, before PLTE and
 * IDAT as the standard puts it, with a sound CRC, a keyword of 1 to 79
 * bytes, compression method 0 and a zlib stream that inflates to the
 * length the profile's header gives, at most IMG_ICC_MAX bytes; else
 * none.  Read apart from both decoders, so that they give the same.
 * The keyword is kept when libpng would write it as it is.
 */
static void
png_icc(const unsigned char *p, size_t len, struct img_icc *icc)
{
	uint32_t clen;

	img_icc_free(icc);
	for (size_t pos = PNG_IHDR_END; len - pos >= 12; pos += 12 + (size_t)clen) {
		const unsigned char *type = p + pos + 4, *d = p + pos + 8, *nul;
		clen = png_be32(p + pos);
		if (clen > PNG_LEN_MAX || clen > len - pos - 12 || !png_type_ok(type) ||
		    memcmp(type, "IDAT", 4) == 0 || memcmp(type, "PLTE", 4) == 0)
			return;
		if (memcmp(type, "iCCP", 4) != 0)
			continue;
		if (!png_crc_ok(p + pos, clen) ||
		    (nul = memchr(d, 0, clen < 80 ? clen : 80)) == NULL ||
		    nul == d || (size_t)(nul - d) + 2 > clen || nul[1] != 0 ||
		    !img_icc_inflate(nul + 2, clen - (size_t)(nul - d) - 2, icc))
			return;
		memcpy(icc->name, d, (size_t)(nul - d) + 1);
		if (!img_icc_name_ok(icc->name))
			icc->name[0] = '\0';
		return;
	}
}

/* ---- PNG in: one PNG of a stream */

/*
 * The bytes of the PNG at offset start of the regular file fd (size
 * bytes from there on), by its chunks' lengths: from the signature to
 * the end of IEND's CRC, or size when the chunks run past the end or a
 * length is out of range (the decoders then say what is wrong).  The
 * headers are read through a window of PNG_WINDOW bytes, so that many
 * small chunks cost a read per window, not one each.
 */
#define PNG_WINDOW 4096
static off_t
png_file_extent(int fd, off_t start, off_t size)
{
	unsigned char w[PNG_WINDOW];
	off_t pos = PNG_SIG_BYTES, at = 0;
	ssize_t got = 0;

	while (pos + 12 <= size) {
		const unsigned char *h;
		uint32_t len;
		if (pos + 8 > at + got) {
			at = pos;
			if ((got = img_pread(fd, w, sizeof(w), start + at)) < 8)
				return size;
		}
		h = w + (pos - at);
		if ((len = png_be32(h)) > PNG_LEN_MAX)
			return size;
		pos += 12 + (off_t)len;
		if (memcmp(h + 4, "IEND", 4) == 0)
			return pos < size ? pos : size;
	}
	return size;
}

/*
 * The most bytes of the PNG of r's stream held in memory: what its
 * header allows (png_most; 16 MiB for a header that is not sound or has
 * sides past GF_MAX_DIM, which the decoders refuse), at most what the
 * pixel limit allows.
 */
struct png_cap {
	long long most;
	int by_header;          /* the header's bound, not the pixel limit's */
	struct png_header h;
	int sound;              /* h was parsed */
};

static void
png_cap(struct img_reader *r, struct png_cap *c)
{
	unsigned long long hd;

	c->sound = png_header_parse(r->head, r->nhead, &c->h) &&
	    c->h.width <= GF_MAX_DIM && c->h.height <= GF_MAX_DIM;
	hd = c->sound ? png_most(&c->h) : IMG_INPUT_SLACK;
	c->most = img_input_cap(r->max_pixels);
	c->by_header = hd < (unsigned long long)c->most;
	if (c->by_header)
		c->most = (long long)hd;
}

/* Refuses a PNG longer than c allows: len bytes, or -1 for more than c->most. */
static int
png_too_long(struct img_reader *r, const struct png_cap *c, long long len,
    struct gf_err *e)
{
	char size[64] = "longer";

	if (len >= 0)
		snprintf(size, sizeof(size), "%lld bytes", len);
	if (c->by_header && c->sound)
		return gf_fail(e, "%s: a PNG of %lu x %lu pixels holds at most "
		    "%lld bytes (its rows deflated, and 16 MiB of other chunks), "
		    "and this one is %s", r->name, (unsigned long)c->h.width,
		    (unsigned long)c->h.height, c->most, size);
	if (len >= 0)
		snprintf(size, sizeof(size), "%lld bytes, more than the", len);
	else
		snprintf(size, sizeof(size), "more than the");
	if (c->by_header)
		return gf_fail(e, "%s: a PNG whose header does not parse is read "
		    "no further than %lld bytes", r->name, c->most);
	return gf_fail(e, "%s: a PNG is held in memory whole, and this one is "
	    "%s %lld bytes the pixel limit allows, from a pipe as from a file "
	    "(--max-pixels raises it)", r->name, size, c->most);
}

/* Room for n bytes in *b (*room of them), within cap; -1 with e set. */
static int
png_room(struct img_reader *r, unsigned char **b, size_t *room, size_t n,
    const struct png_cap *cap, struct gf_err *e)
{
	unsigned char *nb;
	size_t want = *room;

	if ((long long)n > cap->most)
		return png_too_long(r, cap, -1, e);
	if (n <= *room)
		return 0;
	while (want < n)
		want *= 2;
	if ((nb = realloc(*b, want)) == NULL)
		return gf_nomem(e, "out of memory reading %s", r->name);
	*b = nb;
	*room = want;
	return 0;
}

/*
 * The PNG of a pipe into *b (malloc'd, *n bytes), chunk by chunk up to
 * the end of IEND: nothing after it is read.  A truncated PNG, or a
 * length out of range, ends early, for the decoders to refuse.
 */
static int
png_pipe_read(struct img_reader *r, const struct png_cap *cap,
    unsigned char **b, size_t *n, struct gf_err *e)
{
	size_t room = 1 << 16, want = PNG_SIG_BYTES + 8;
	int last = 0;

	*n = 0;
	if ((*b = malloc(room)) == NULL)
		return gf_nomem(e, "out of memory reading %s", r->name);
	for (;;) {
		uint32_t len;
		size_t got;
		if (png_room(r, b, &room, *n + want, cap, e) < 0)
			return -1;
		got = img_reader_bytes(r, *b + *n, want);
		*n += got;
		if (got < want && ferror(r->f))
			return gf_fail(e, "cannot read %s: %s", r->name,
			    strerror(errno));
		if (got < want || last)
			return 0;
		/* The last 8 bytes read are the next chunk's length and type. */
		if ((len = png_be32(*b + *n - 8)) > PNG_LEN_MAX)
			return 0;
		last = memcmp(*b + *n - 4, "IEND", 4) == 0;
		want = (size_t)len + 4 + (last ? 0 : 8);
	}
}

/*
 * One PNG of r's stream into in, the stream left where it ends: from a
 * regular file by offset (its chunk headers, then the PNG in one read),
 * from a pipe chunk by chunk; refused past what its header or the pixel
 * limit allows (png_cap).
 */
static int
png_input(struct img_reader *r, struct img_input *in, struct gf_err *e)
{
	struct png_cap cap;
	unsigned char *buf;
	off_t start, size, len;
	ssize_t got;
	size_t n;

	png_cap(r, &cap);
	if (!img_reader_file(r, &start, &size)) {
		if (png_pipe_read(r, &cap, &buf, &n, e) < 0) {
			free(buf);
			return -1;
		}
		in->p = buf;
		in->len = n;
		return img_reader_unread(r, NULL, 0, e); /* sniffed bytes past IEND */
	}
	len = png_file_extent(fileno(r->f), start, size);
	if ((long long)len > cap.most)
		return png_too_long(r, &cap, (long long)len, e);
	if ((buf = img_big_alloc((size_t)len)) == NULL)
		return gf_nomem(e, "out of memory reading %s", r->name);
	if ((got = img_pread(fileno(r->f), buf, (size_t)len, start)) < 0) {
		free(buf);
		return gf_fail(e, "cannot read %s: %s", r->name, strerror(errno));
	}
	in->p = buf;
	in->len = (size_t)got;
	return img_reader_seek(r, start + len, e);
}

int
img_png_read(struct img_reader *r, struct image *img, struct gf_err *e)
{
	struct img_input in = {NULL, 0};
	size_t kept;            /* the fast path's buffer, which libpng fills */
	int ret;

	if (png_check_head(r, e) < 0 || png_input(r, &in, e) < 0) {
		img_input_free(&in);
		return -1;
	}
	ret = png_fast_read(r, in.p, in.len, img, &kept, e);
	if (ret == 0)
		ret = png_libpng_read(r, in.p, in.len, img, kept, e);
	if (ret > 0)
		png_icc(in.p, in.len, &r->icc);
	img_input_free(&in);
	return ret;
}

int
img_png_sniff(const unsigned char *b, size_t n)
{
	return n >= 8 && memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0;
}
