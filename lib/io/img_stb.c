/*
 * img_stb.c - BMP, TGA and GIF in through stb_image, the formats it
 * serves well.  stb_image's implementation is compiled here, static and
 * limited to those three decoders (STBI_ONLY_*), so no other format
 * (JPEG, PNG, PSD, HDR, PIC, PNM) can ever reach it, and its failure
 * reason is thread-local.  stb needs the whole file in memory, so the
 * header is parsed first: its dimensions go through the pixel limit, and
 * the length it implies (exact for uncompressed BMP and TGA, a lower
 * bound for RLE TGA) is required before stb sees a byte; a GIF's screen
 * is weighed against its first frame and that against its LZW bytes.  What is read
 * is bounded by what the header allows: never a whole unknown stream.
 * None of the three says where it ends as a stream's images do: what
 * lies past the end that its header or blocks imply (past an
 * uncompressed BMP's pixels, or the length its header gives; past a
 * TGA's pixels, unless the TGA 2.0 footer ends the stream; past a GIF's
 * trailer) is given back to the stream, where anything but whitespace
 * fails the run once the image is written (img.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "img_int.h"

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_ONLY_BMP
#define STBI_ONLY_TGA
#define STBI_ONLY_GIF
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_NO_HDR
#define STBI_MAX_DIMENSIONS GF_MAX_DIM
/*
 * stb's buffers start zeroed: a hostile BMP can leave pixels of its
 * image unwritten, and memory malloc hands back may still hold the
 * pixels of the image decoded before it in the same run (one input's
 * pixels in another's output).  Unwritten pixels are 0 instead.
 */
#define STBI_MALLOC(n) calloc(1, (n))
#define STBI_REALLOC(p, n) realloc((p), (n))
#define STBI_FREE(p) free(p)
/* stb declares static functions it does not define without its other formats. */
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <stb_image.h>
#pragma GCC diagnostic pop

/* The most stb can be given (its lengths are int). */
#define STB_MAX_FILE ((unsigned long long)INT_MAX)

/* The three formats stb reads here. */
enum stb_kind { STB_BMP, STB_TGA, STB_GIF };

/* What a header says: the size, and the bytes the file must and may have. */
struct stb_head {
	const char *format;
	long w, h;
	unsigned bpp;
	unsigned long long need; /* the file is truncated below this length */
	unsigned long long most; /* bytes worth reading: stb reads no further */
	int exact;              /* need is exact (uncompressed), not a bound */
	unsigned long long size; /* BMP: the file's length by its header */
};

/*
 * Bytes that may follow a BMP's pixels up to the length its header
 * gives (writers' padding, a V5 header's colour profile), and a TGA's
 * (its 2.0 extension area and footer).
 */
#define STB_TAIL_MAX (1ull << 20)

/* BMP: the core (12-byte) or a Windows (40 or more) info header. */
static int
bmp_head(const unsigned char *b, size_t n, struct stb_head *h)
{
	unsigned long hsz = n >= 18 ? img_le32(b + 14) : 0, comp = 0;
	unsigned long long stride, rows;

	h->format = "BMP";
	if (n < 26 || (hsz != 12 && n < 34))
		return -1;
	if (hsz == 12) {
		h->w = (long)img_le16(b + 18);
		h->h = (long)img_le16(b + 20);
		h->bpp = img_le16(b + 24);
	} else {
		h->w = (long)(int32_t)img_le32(b + 18);
		h->h = (long)(int32_t)img_le32(b + 22);
		h->bpp = img_le16(b + 28);
		comp = img_le32(b + 30);
	}
	rows = (unsigned long long)(h->h < 0 ? -h->h : h->h);
	stride = ((unsigned long long)(h->w > 0 ? h->w : 0) * h->bpp + 31) / 32 * 4;
	h->need = img_le32(b + 10);
	/* stb reads its compression as an int: a negative one is uncompressed. */
	h->exact = comp == 0 || comp == 3 || comp == 6 || (int32_t)comp < 0;
	if (h->exact && h->w <= GF_MAX_DIM && rows <= GF_MAX_DIM)
		h->need += stride * rows;
	h->size = img_le32(b + 2);
	h->most = h->size > h->need && h->size - h->need <= STB_TAIL_MAX ?
	    h->size : h->need;
	if (!h->exact)  /* RLE and the like: stb refuses them */
		h->most = h->need + STB_TAIL_MAX;
	h->h = (long)rows;
	return 0;
}

/* TGA: pixels after the id and colour map; RLE packets cover 1 to 128 pixels. */
static int
tga_head(const unsigned char *b, size_t n, struct stb_head *h)
{
	unsigned long long npx, bytespp, base;

	h->format = "TGA";
	if (n < 18)
		return -1;
	h->w = (long)img_le16(b + 12);
	h->h = (long)img_le16(b + 14);
	h->bpp = b[16];
	npx = (unsigned long long)h->w * (unsigned long long)h->h;
	bytespp = (h->bpp + 7) / 8;
	base = 18 + b[0] + (b[1] ? img_le16(b + 5) * ((b[7] + 7u) / 8) : 0);
	h->exact = b[2] < 8;
	if (h->exact) {
		h->need = h->most = base + npx * bytespp;
	} else {
		h->need = base + (npx + 127) / 128 * (1 + bytespp);
		h->most = base + npx * (1 + bytespp);
	}
	h->most += STB_TAIL_MAX;
	return 0;
}

/* GIF: the logical screen, which stb allocates whole; no length is implied. */
static int
gif_head(const unsigned char *b, size_t n, struct stb_head *h)
{
	unsigned long long npx;

	h->format = "GIF";
	if (n < 13)
		return -1;
	h->w = (long)img_le16(b + 6);
	h->h = (long)img_le16(b + 8);
	h->bpp = 8;
	npx = (unsigned long long)h->w * (unsigned long long)h->h;
	h->need = 13;
	h->most = 2 * npx + (16u << 20);
	h->exact = 0;
	return 0;
}

/*
 * GIF's frames against its screen, which stb allocates whole (9 bytes a
 * pixel) before it decodes the first frame onto it: that frame, clipped
 * to the screen, must be coded by its LZW bytes (a 12-bit code stands
 * for at most 4096 pixels: 2731 a byte, GIF_LZW_PX_PER_BYTE), and the
 * screen may hold at most GIF_SCREEN_PER_FRAME times its pixels plus
 * GIF_SCREEN_SPARE: the rest is background, made from no bytes at all.
 */
#define GIF_LZW_PX_PER_BYTE 2731ull
#define GIF_SCREEN_PER_FRAME 16ull
#define GIF_SCREEN_SPARE (1ull << 22)

/* Skips a GIF colour table (flags' high bit, 3 << (size + 1) bytes) at *p. */
static void
gif_skip_table(unsigned flags, size_t *p)
{
	if (flags & 0x80)
		*p += (size_t)3 << ((flags & 7) + 1);
}

/* Skips data sub-blocks at *p up to their terminator; the bytes they hold. */
static unsigned long long
gif_skip_blocks(const unsigned char *b, size_t n, size_t *p)
{
	unsigned long long data = 0;

	while (*p < n && b[*p] != 0) {
		data += b[*p];
		*p += 1 + (size_t)b[*p];
	}
	*p += 1;
	return data;
}

static int
gif_weigh(struct img_reader *r, const unsigned char *b, size_t n,
    const struct stb_head *h, struct gf_err *e)
{
	unsigned long long screen = (unsigned long long)h->w * h->h, frame, lzw,
	    fw, fh;
	size_t p = 13;
	long fx, fy;

	gif_skip_table(b[10], &p);
	while (p + 1 < n && b[p] == 0x21) {     /* extensions */
		p += 2;
		(void)gif_skip_blocks(b, n, &p);
	}
	if (p + 11 > n || b[p] != 0x2c)
		return gf_fail(e, "%s: the GIF file (%zu bytes) has no image in it "
		    "before it ends", r->name, n);
	fx = (long)img_le16(b + p + 1);
	fy = (long)img_le16(b + p + 3);
	fw = fx < h->w ? (unsigned long long)(h->w - fx) : 0;
	fh = fy < h->h ? (unsigned long long)(h->h - fy) : 0;
	fw = img_le16(b + p + 5) < fw ? img_le16(b + p + 5) : fw;
	fh = img_le16(b + p + 7) < fh ? img_le16(b + p + 7) : fh;
	frame = fw * fh;
	gif_skip_table(b[p + 9], &p);
	p += 11;                                /* descriptor, LZW code size */
	lzw = gif_skip_blocks(b, n, &p);
	if (frame > GIF_LZW_PX_PER_BYTE * lzw + 4096)
		return gf_fail(e, "%s: the GIF's first frame shows %llu pixels of "
		    "the screen from %llu bytes of LZW data, which code at most "
		    "%llu", r->name, frame, lzw, GIF_LZW_PX_PER_BYTE * lzw + 4096);
	if (screen > GIF_SCREEN_PER_FRAME * frame + GIF_SCREEN_SPARE)
		return gf_fail(e, "%s: the GIF's screen is %ld x %ld pixels, and "
		    "its first frame shows %llu of them; a screen of more than %llu "
		    "times its frame and %llu pixels is refused", r->name, h->w,
		    h->h, frame, GIF_SCREEN_PER_FRAME, GIF_SCREEN_SPARE);
	return 0;
}

/* Where a GIF of n bytes at b ends: past its trailer, or its last whole block. */
static size_t
gif_extent(const unsigned char *b, size_t n)
{
	size_t p = 13, at;

	gif_skip_table(b[10], &p);
	while (p < n) {
		at = p;
		if (b[p] == 0x3b)
			return p + 1;
		if (b[p] == 0x21) {
			p += 2;
		} else if (b[p] == 0x2c && p + 10 <= n) {
			gif_skip_table(b[p + 9], &p);
			p += 11;        /* descriptor, LZW code size */
		} else {
			return p;       /* no block: what follows is not the GIF's */
		}
		(void)gif_skip_blocks(b, n, &p);
		if (p > n)
			return n;
		if (p <= at)
			return at;
	}
	return n;
}

/* Where an RLE TGA's packets (base bytes on, bpp bytes a pixel) cover npx pixels. */
static size_t
tga_rle_extent(const unsigned char *b, size_t n, size_t base,
    unsigned long long npx, unsigned bytespp)
{
	unsigned long long got = 0;
	size_t p = base;

	while (got < npx && p < n) {
		unsigned c = b[p++];
		got += (c & 0x7f) + 1;
		p += (c & 0x80 ? 1 : (c & 0x7f) + 1) * (size_t)bytespp;
	}
	return p < n ? p : n;
}

/*
 * Where the image of kind, len bytes at buf, ends as far as it tells
 * (see the top): the bytes after it are not the image's.  full: the
 * stream may go on past len.
 */
static size_t
stb_extent(enum stb_kind kind, const unsigned char *buf, size_t len,
    const struct stb_head *h, int full)
{
	static const char footer[18] = "TRUEVISION-XFILE.";
	size_t end;

	if (kind == STB_GIF)
		return gif_extent(buf, len);
	if (kind == STB_BMP)
		return len;     /* read up to the end its header gives */
	end = h->exact ? (size_t)(h->need < len ? h->need : len) :
	    tga_rle_extent(buf, len, (size_t)(18 + buf[0] + (buf[1] ?
	    img_le16(buf + 5) * ((buf[7] + 7u) / 8) : 0)),
	    (unsigned long long)h->w * h->h, (h->bpp + 7) / 8);
	if (!full && len - end >= 26 && memcmp(buf + len - 18, footer, 18) == 0)
		return len;     /* TGA 2.0: extension area and footer */
	return end;
}

/* Copies stb's 8-bit pixels (n channels, alpha dropped) into img. */
static void
from_stb(struct image *img, const unsigned char *px, int n)
{
	size_t npx = (size_t)img->width * img->height;
	unsigned char *dst = img->px;

	for (size_t i = 0; i < npx; i++)
		for (int c = 0; c < img->channels; c++)
			dst[i * img->channels + c] = px[i * n + c];
}

/* The header of kind, checked: sides, pixel limit, and the file's length. */
static int
stb_check_head(struct img_reader *r, enum stb_kind kind, struct stb_head *h,
    struct gf_err *e)
{
	int bad = kind == STB_BMP ? bmp_head(r->head, r->nhead, h) :
	    kind == STB_TGA ? tga_head(r->head, r->nhead, h) :
	    gif_head(r->head, r->nhead, h);

	if (bad)
		return gf_fail(e, "%s: the %s header is truncated: the file has %zu "
		    "bytes", r->name, h->format, r->nhead);
	if (img_check_size(r, h->w, h->h, 3, 255, e) < 0)
		return -1;
	if (h->need > STB_MAX_FILE)
		return gf_fail(e, "%s: a %ld x %ld %s image of %u bits per pixel "
		    "needs %llu bytes, more than the %s reader takes (%llu)", r->name,
		    h->w, h->h, h->format, h->bpp, h->need, h->format, STB_MAX_FILE);
	return 0;
}

/*
 * A paletted BMP (under 16 bits a pixel) whose pixels name colours its
 * palette does not hold, or whose palette has a negative size: stb keeps
 * the palette in an array on its stack, fills only the file's entries,
 * and would take the others from whatever the stack held before, such
 * as pixels of the image decoded before (one input's pixels in another's
 * output).  The palette's size is counted as stb counts it.  -1 with e.
 */
/* The bytes of a BMP as stb reads them: zeros past the end of what it has. */
static unsigned long
bmp_byte(const unsigned char *b, size_t len, size_t at)
{
	return at < len ? b[at] : 0;
}

static unsigned long
bmp_u16(const unsigned char *b, size_t len, size_t at)
{
	return bmp_byte(b, len, at) | bmp_byte(b, len, at + 1) << 8;
}

static unsigned long
bmp_u32(const unsigned char *b, size_t len, size_t at)
{
	return bmp_u16(b, len, at) | bmp_u16(b, len, at + 2) << 16;
}

static int
bmp_palette_check(struct img_reader *r, const unsigned char *b, size_t len,
    struct gf_err *e)
{
	unsigned long hsz = bmp_u32(b, len, 14), offset = bmp_u32(b, len, 10);
	int core = hsz == 12;
	unsigned bpp = core ? bmp_u16(b, len, 24) : bmp_u16(b, len, 28);
	long w = core ? (long)bmp_u16(b, len, 18) : (long)(int32_t)bmp_u32(b, len, 18);
	long h = core ? (long)bmp_u16(b, len, 20) : (long)(int32_t)bmp_u32(b, len, 22);
	long psize, most = 0;
	size_t row;

	if ((bpp != 1 && bpp != 4 && bpp != 8) || w <= 0 ||
	    (!core && (bmp_u32(b, len, 30) == 1 || bmp_u32(b, len, 30) == 2)))
		return 0;       /* no palette, or stb refuses it (RLE) */
	/*
	 * stb's count: (offset - 38) / 3 for the core header (four entries
	 * short of the file's), else (offset - 14 - hsz) shifted by 2, which
	 * rounds down.  A count of 0 or over 256 stb refuses.
	 */
	psize = core ? ((long)offset - 38) / 3 :
	    (long)offset - 14 - (long)hsz < 0 ? -1 : ((long)offset - 14 - (long)hsz) / 4;
	if (!core && psize < 0)
		return gf_fail(e, "%s: the BMP's pixels begin at byte %lu, inside "
		    "its headers", r->name, offset);
	if (psize == 0 || psize > 256 || psize >= (1L << bpp))
		return 0;
	h = h < 0 ? -h : h;
	row = ((size_t)w * bpp + 31) / 32 * 4;
	for (long y = 0; y < h && offset + (size_t)y * row < len; y++)
		for (long x = 0; x < w; x++) {
			size_t bit = (size_t)x * bpp, at = offset + (size_t)y * row + bit / 8;
			long v;
			if (at >= len)
				break;  /* stb reads zeros there */
			v = (b[at] >> (8 - bpp - bit % 8)) & ((1u << bpp) - 1);
			if (v > most)
				most = v;
		}
	if (most < psize)
		return 0;
	if (core)
		return gf_fail(e, "%s: a BMP of the OS/2 core header whose pixels "
		    "use colour %ld: the reader (stb) takes only the first %ld "
		    "colours of such a palette", r->name, most, psize > 0 ? psize : 0);
	return gf_fail(e, "%s: the BMP's pixels use colour %ld of a palette of %ld",
	    r->name, most, psize);
}

/* Decodes buf (len bytes) with stb into img's final buffer. */
static int
stb_decode(struct img_reader *r, const unsigned char *buf, size_t len,
    struct image *img, struct gf_err *e)
{
	int w, h, n;
	unsigned char *px = stbi_load_from_memory(buf, (int)len, &w, &h, &n, 0);
	char why[200];

	if (px == NULL)
		return gf_fail(e, "%s: cannot decode the image: %s", r->name,
		    gf_escape(why, sizeof(why), stbi_failure_reason()));
	img->width = w;
	img->height = h;
	img->channels = n >= 3 ? 3 : 1;
	img->maxval = 255;
	if (img_check_size(r, w, h, img->channels, 255, e) < 0 ||
	    img_reader_alloc(r, img, e) < 0) {
		stbi_image_free(px);
		return -1;
	}
	from_stb(img, px, n);
	stbi_image_free(px);
	return 1;
}

static int
stb_read(struct img_reader *r, enum stb_kind kind, struct image *img,
    struct gf_err *e)
{
	struct stb_head h = {0};
	unsigned char *buf = NULL;
	size_t len = 0, end;
	int ret;

	if (stb_check_head(r, kind, &h, e) < 0 ||
	    img_reader_slurp(r, h.most < STB_MAX_FILE ? h.most : STB_MAX_FILE,
	    &buf, &len, e) < 0)
		return -1;
	if (len < h.need) {
		free(buf);
		return gf_fail(e, "%s: the %s image is truncated: its header (%ld x "
		    "%ld, %u bits per pixel) implies %s%llu bytes, the file has %zu",
		    r->name, h.format, h.w, h.h, h.bpp, h.exact ? "" : "at least ",
		    h.need, len);
	}
	end = stb_extent(kind, buf, len, &h, len >= h.most);
	if (img_reader_unread(r, buf + end, len - end, e) < 0) {
		free(buf);
		return -1;
	}
	len = end;
	if ((kind == STB_GIF && gif_weigh(r, buf, len, &h, e) < 0) ||
	    (kind == STB_BMP && bmp_palette_check(r, buf, len, e) < 0)) {
		free(buf);
		return -1;
	}
	ret = stb_decode(r, buf, len, img, e);
	free(buf);
	return ret;
}

int
img_bmp_read(struct img_reader *r, struct image *img, struct gf_err *e)
{
	return stb_read(r, STB_BMP, img, e);
}

int
img_tga_read(struct img_reader *r, struct image *img, struct gf_err *e)
{
	return stb_read(r, STB_TGA, img, e);
}

int
img_gif_read(struct img_reader *r, struct image *img, struct gf_err *e)
{
	return stb_read(r, STB_GIF, img, e);
}

int
img_bmp_sniff(const unsigned char *b, size_t n)
{
	return n >= 2 && b[0] == 'B' && b[1] == 'M';
}

int
img_gif_sniff(const unsigned char *b, size_t n)
{
	return n >= 6 && (memcmp(b, "GIF87a", 6) == 0 ||
	    memcmp(b, "GIF89a", 6) == 0);
}

/*
 * Whether the 18 bytes at b are a plausible TGA header.  TGA has no
 * magic number; a colour-map type of 0 or 1 in b[1] rules out the first
 * bytes of every other format of the table.
 */
int
img_tga_sniff(const unsigned char *b, size_t n)
{
	unsigned cmap, type, bpp;

	if (n < 18)
		return 0;
	cmap = b[1], type = b[2], bpp = b[16];
	if (cmap > 1 || img_le16(b + 12) == 0 || img_le16(b + 14) == 0)
		return 0;
	if (type != 1 && type != 2 && type != 3 && type != 9 && type != 10 &&
	    type != 11)
		return 0;
	if (cmap == 1 && b[7] != 8 && b[7] != 15 && b[7] != 16 && b[7] != 24 &&
	    b[7] != 32)
		return 0;
	return bpp == 8 || bpp == 15 || bpp == 16 || bpp == 24 || bpp == 32;
}
