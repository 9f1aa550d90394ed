/*
 * img_webp.c - WebP in and out through libwebp (decode.h, encode.h),
 * libwebpdemux (demux.h, for animations and the EXIF and ICCP chunks)
 * and libwebpmux (mux.h, an ICC profile out).
 * In: lossy (VP8) and lossless (VP8L) files, with or without alpha, and
 * the first frame of an animation as it is displayed (composited on its
 * canvas); RGB, or RGB+alpha when the file says it has alpha, 8 bit;
 * turned as an EXIF chunk's Orientation says, unless the reader keeps
 * pixels as stored; an ICCP chunk's profile kept for the writer.
 * The canvas size is parsed from the sniffed header and checked (sides,
 * pixel limit, and a RIFF length longer than the file) before anything
 * is read.  A WebP knows its length: its RIFF chunk is read, chunk by
 * chunk, and no further, so that it may be one image of a stream.  What
 * is kept for decoding is bounded by the canvas (webp_most); an
 * animation's frames after the first are read past, not kept.  Then,
 * before anything is decoded, the pixels are weighed against the bytes
 * that code them (webp_weigh): a lossy frame's macroblocks against its
 * VP8 data, a lossless frame's pixels against its VP8L data, and an
 * animation's canvas against its first frame; damaged data fails the
 * image.
 * Out: one image, 8 bit: lossless at quality 0 (the default: a round
 * trip is exact, colour under transparent pixels included), lossy at
 * quality 1-100 (--quality); gray is written as RGB, maxval below 255
 * scaled to 255; 16-bit images and sides above 16383 are refused; the
 * writer's ICC profile goes into an ICCP chunk (libwebpmux).
 * libwebp keeps no state between calls: readers on several threads
 * share nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

#include "img_int.h"

/* What the first bytes of a WebP say, before anything is decoded. */
struct webp_head {
	unsigned long riff;     /* the file's length by its RIFF header */
	long width, height;     /* the canvas */
};

/* 24-bit little-endian field, as VP8X stores the canvas size less one. */
static unsigned long
le24(const unsigned char *p)
{
	return (unsigned long)img_le16(p) | (unsigned long)p[2] << 16;
}

/*
 * The canvas size from the first chunk of the n sniffed bytes at b
 * ("RIFF" size "WEBP" then VP8X, VP8L or VP8): -1 with a message when
 * the chunk is none of these or too short to hold its size.
 */
static int
webp_parse_head(const struct img_reader *r, const unsigned char *b, size_t n,
    struct webp_head *h, struct gf_err *e)
{
	h->riff = img_le32(b + 4) + 8ul;
	if (n >= 30 && memcmp(b + 12, "VP8X", 4) == 0) {
		h->width = (long)le24(b + 24) + 1;
		h->height = (long)le24(b + 27) + 1;
		return 0;
	}
	if (n >= 25 && memcmp(b + 12, "VP8L", 4) == 0 && b[20] == 0x2f) {
		unsigned long bits = img_le32(b + 21);
		h->width = (long)(bits & 0x3fff) + 1;
		h->height = (long)(bits >> 14 & 0x3fff) + 1;
		return 0;
	}
	if (n >= 30 && memcmp(b + 12, "VP8 ", 4) == 0 &&
	    memcmp(b + 23, "\x9d\x01\x2a", 3) == 0) {
		h->width = (long)(img_le16(b + 26) & 0x3fff);
		h->height = (long)(img_le16(b + 28) & 0x3fff);
		return 0;
	}
	return gf_fail(e, "%s: a WebP whose first chunk is not a VP8X, VP8L or "
	    "VP8 header this reader knows (or is cut short): %.4s", r->name,
	    n >= 16 && b[12] >= 0x20 && b[12] < 0x7f ? (const char *)b + 12 :
	    "????");
}

/*
 * The most bytes of a w x h WebP's chunks kept for decoding: 8 a pixel
 * (a lossless pixel is at most four codes of 15 bits, a lossy one less)
 * and IMG_INPUT_SLACK of other chunks (ICC profile, EXIF, XMP).
 */
static unsigned long long
webp_most(long w, long h)
{
	return (unsigned long long)w * (unsigned long long)h * 8 + IMG_INPUT_SLACK;
}

/* Whether the sniffed header is a VP8X's that says the file is an animation. */
static int
webp_animated(const struct img_reader *r)
{
	return r->nhead >= 21 && memcmp(r->head + 12, "VP8X", 4) == 0 &&
	    (r->head[20] & 0x02);
}

/*
 * What a frame's data may show, a bound set as GIF's screen rule is
 * (img_stb.c).  Lossy (VP8): every macroblock of 16 x 16 pixels takes
 * at least 1.6 bits of its first partition, whatever its content: its
 * luma mode (B_PRED 0.82 bits at the least) and its chroma mode (DC
 * 0.85) are coded with fixed probabilities, so a byte codes at most 5
 * (VP8_MB_PER_BYTE), and VP8_MB_SPARE more are allowed for the header.
 * Lossless (VP8L): prefix codes of one symbol code a pixel in no bits at
 * all, so no length bounds the pixels; past VP8L_SPARE pixels, more than
 * VP8L_PX_PER_BYTE a byte is refused.  That is what the leanest codings
 * of a real image reach: a palette of two colours packs 8 pixels in one,
 * and a backward reference of 4096 of those takes 10 bits or more
 * (4096 * 8 * 8 / 10); only an image all but blank codes more.
 * Animation: the canvas may hold at most WEBP_CANVAS_PER_FRAME times the
 * pixels its first frame shows plus WEBP_CANVAS_SPARE: the rest is made
 * from no bytes at all, and libwebp keeps two canvases of 4 bytes a
 * pixel.
 */
#define VP8_MB_PER_BYTE 5ull
#define VP8_MB_SPARE 64ull
#define VP8L_PX_PER_BYTE 26214ull
#define VP8L_SPARE (1ull << 24)
#define WEBP_CANVAS_PER_FRAME 16ull
#define WEBP_CANVAS_SPARE (1ull << 22)

/*
 * The checks made from the header before the file is read: the canvas
 * against the limits, and a regular file's length against the RIFF
 * header's (a file cut short cannot decode).
 */
static int
webp_check_head(struct img_reader *r, struct webp_head *hd, struct gf_err *e)
{
	struct webp_head h = {0, 0, 0};
	off_t start, size;

	if (webp_parse_head(r, r->head, r->nhead, &h, e) < 0 ||
	    img_check_size(r, h.width, h.height, 4, 255, e) < 0)
		return -1;
	if (!webp_animated(r) && h.riff > webp_most(h.width, h.height))
		return gf_fail(e, "%s: a %ld x %ld WebP needs at most %llu bytes, "
		    "and its RIFF header says %lu", r->name, h.width, h.height,
		    webp_most(h.width, h.height), h.riff);
	if (img_reader_file(r, &start, &size) && (unsigned long long)size <
	    h.riff)
		return gf_fail(e, "%s: WebP is cut short: its header says %lu "
		    "bytes, the file has %lld", r->name, h.riff, (long long)size);
	*hd = h;
	return 0;
}

/* libwebp's status codes in words. */
static const char *
webp_status(VP8StatusCode s)
{
	switch (s) {
	case VP8_STATUS_OUT_OF_MEMORY:
		return "out of memory";
	case VP8_STATUS_INVALID_PARAM:
		return "invalid parameter";
	case VP8_STATUS_BITSTREAM_ERROR:
		return "damaged data (bitstream error)";
	case VP8_STATUS_UNSUPPORTED_FEATURE:
		return "a feature libwebp does not support";
	case VP8_STATUS_NOT_ENOUGH_DATA:
		return "the data ends too soon (truncated)";
	default:
		return "libwebp gave no reason";
	}
}

/*
 * Weighs the pixels of a frame's image chunk (tag VP8L or "VP8 ", n
 * bytes of data at p) against those bytes (see above); *w and *h get
 * the frame's size, 0 where the chunk is too short to say (libwebp then
 * refuses it).
 */
static int
webp_weigh_frame(struct img_reader *r, const unsigned char *tag,
    const unsigned char *p, size_t n, long *w, long *h, struct gf_err *e)
{
	unsigned long long px, most;

	*w = *h = 0;
	if (memcmp(tag, "VP8L", 4) == 0 && n >= 5 && p[0] == 0x2f) {
		unsigned long bits = img_le32(p + 1);
		*w = (long)(bits & 0x3fff) + 1;
		*h = (long)(bits >> 14 & 0x3fff) + 1;
		px = (unsigned long long)*w * (unsigned long long)*h;
		most = VP8L_PX_PER_BYTE * n + VP8L_SPARE;
		if (px > most)
			return gf_fail(e, "%s: a lossless WebP of %ld x %ld = %llu "
			    "pixels from %zu bytes of data, which code at most %llu "
			    "(%llu a byte past the first %llu: only an image all but "
			    "blank codes more)", r->name, *w, *h, px, n, most,
			    VP8L_PX_PER_BYTE, VP8L_SPARE);
	} else if (memcmp(tag, "VP8 ", 4) == 0 && n >= 10 &&
	    memcmp(p + 3, "\x9d\x01\x2a", 3) == 0) {
		*w = (long)(img_le16(p + 6) & 0x3fff);
		*h = (long)(img_le16(p + 8) & 0x3fff);
		px = (unsigned long long)(*w + 15) / 16 * ((unsigned long long)(*h + 15) / 16);
		most = VP8_MB_PER_BYTE * n + VP8_MB_SPARE;
		if (px > most)
			return gf_fail(e, "%s: a lossy WebP of %ld x %ld pixels has "
			    "%llu macroblocks, and its %zu bytes of data code at most "
			    "%llu", r->name, *w, *h, px, n, most);
	}
	return 0;
}

/*
 * The first chunk of tag (or, tag NULL, the first VP8 or VP8L chunk)
 * among the chunks of n bytes at p: its data in *data, *size bytes (cut
 * to what there is); 0 if there is none.
 */
static int
webp_find(const unsigned char *p, size_t n, const char *tag,
    const unsigned char **data, size_t *size)
{
	size_t pos = 0;

	while (pos <= n && n - pos >= 8) {     /* a padded chunk may end at n + 1 */
		unsigned long len = img_le32(p + pos + 4);
		if (tag != NULL ? memcmp(p + pos, tag, 4) == 0 :
		    memcmp(p + pos, "VP8 ", 4) == 0 || memcmp(p + pos, "VP8L", 4) == 0) {
			*data = p + pos + 8;
			*size = len < n - pos - 8 ? (size_t)len : n - pos - 8;
			return 1;
		}
		if (len > n - pos - 8)
			return 0;
		pos += 8 + (size_t)len + (len & 1);
	}
	return 0;
}

/*
 * Weighs the WebP of n bytes at b (its chunks as kept, the canvas in
 * *hd) before it is decoded: its still image, or an animation's first
 * frame and the canvas against what that frame shows.  What does not
 * parse is left to libwebp's verdict.
 */
static int
webp_weigh(struct img_reader *r, const unsigned char *b, size_t n,
    const struct webp_head *hd, struct gf_err *e)
{
	const unsigned char *d, *f;
	size_t len, flen;
	unsigned long long canvas, shown, fw, fh, fx, fy;
	long w, h;

	if (n < 20)
		return 0;
	if (memcmp(b + 12, "VP8X", 4) != 0 || n < 30 || !(b[20] & 0x02))
		return webp_find(b + 12, n - 12, NULL, &d, &len) ?
		    webp_weigh_frame(r, d - 8, d, len, &w, &h, e) : 0;
	if (!webp_find(b + 30, n - 30, "ANMF", &f, &flen) || flen < 16 ||
	    !webp_find(f + 16, flen - 16, NULL, &d, &len))
		return 0;
	if (webp_weigh_frame(r, d - 8, d, len, &w, &h, e) < 0)
		return -1;
	fx = 2 * (unsigned long long)le24(f);
	fy = 2 * (unsigned long long)le24(f + 3);
	fw = fx < (unsigned long long)hd->width ? hd->width - fx : 0;
	fh = fy < (unsigned long long)hd->height ? hd->height - fy : 0;
	fw = le24(f + 6) + 1 < fw ? le24(f + 6) + 1 : fw;
	fh = le24(f + 9) + 1 < fh ? le24(f + 9) + 1 : fh;
	shown = fw * fh;
	canvas = (unsigned long long)hd->width * (unsigned long long)hd->height;
	if (canvas > WEBP_CANVAS_PER_FRAME * shown + WEBP_CANVAS_SPARE)
		return gf_fail(e, "%s: the WebP animation's canvas is %ld x %ld "
		    "pixels, and its first frame shows %llu of them; a canvas of "
		    "more than %llu times its frame and %llu pixels is refused",
		    r->name, hd->width, hd->height, shown, WEBP_CANVAS_PER_FRAME,
		    WEBP_CANVAS_SPARE);
	return 0;
}

/*
 * Reads a chunk's n bytes of data into *b at *len (room *room, within
 * most), or past them when keep is 0.  The count of bytes read.
 */
static size_t
webp_take(struct img_reader *r, unsigned char **b, size_t *len, size_t n,
    int keep)
{
	unsigned char scratch[1 << 14];
	size_t got = 0, k, want;

	if (keep) {
		got = img_reader_bytes(r, *b + *len, n);
		*len += got;
		return got;
	}
	while (got < n) {
		want = n - got < sizeof(scratch) ? n - got : sizeof(scratch);
		k = img_reader_bytes(r, scratch, want);
		got += k;
		if (k < want)
			break;
	}
	return got;
}

/* Room for need bytes in *b (*room of them); -1 with e set. */
static int
webp_room(struct img_reader *r, unsigned char **b, size_t *room, size_t need,
    struct gf_err *e)
{
	unsigned char *nb;
	size_t want = *room;

	if (need <= *room)
		return 0;
	while (want < need)
		want *= 2;
	if ((nb = realloc(*b, want)) == NULL)
		return gf_nomem(e, "out of memory reading %s", r->name);
	*b = nb;
	*room = want;
	return 0;
}

/*
 * The WebP of r's stream into in, chunk by chunk, up to the end its
 * RIFF header gives and no further: every chunk but an animation's
 * frames after its first, at most webp_most bytes of them; the RIFF
 * length put right for what was kept.  A stream that ends first is
 * refused as cut short.
 */
static int
webp_input(struct img_reader *r, const struct webp_head *hd,
    struct img_input *in, struct gf_err *e)
{
	unsigned long long most = webp_most(hd->width, hd->height), pos, n;
	int anim = webp_animated(r), frames = 0, keep;
	unsigned char *b, ch[8];
	size_t len, room = 1u << 12, got, want;

	if ((b = malloc(room)) == NULL)
		return gf_nomem(e, "out of memory reading %s", r->name);
	pos = len = img_reader_bytes(r, b, 12);
	while (pos < hd->riff) {
		want = hd->riff - pos < 8 ? (size_t)(hd->riff - pos) : 8;
		got = img_reader_bytes(r, ch, want);
		pos += got;
		n = got < 8 ? 0 : img_le32(ch + 4) + (img_le32(ch + 4) & 1);
		if (n > hd->riff - pos)
			n = hd->riff - pos;
		keep = got < 8 || !(anim && memcmp(ch, "ANMF", 4) == 0 &&
		    frames++ > 0);
		if (keep && len + got + n > most) {
			free(b);
			return gf_fail(e, "%s: a %ld x %ld WebP needs at most %llu "
			    "bytes, and its chunks up to %.4s hold more", r->name,
			    hd->width, hd->height, most, (char *)ch);
		}
		if (webp_room(r, &b, &room, len + got + (keep ? (size_t)n : 0),
		    e) < 0) {
			free(b);
			return -1;
		}
		if (keep) {
			memcpy(b + len, ch, got);
			len += got;
		}
		if (got < want)
			break;
		got = webp_take(r, &b, &len, (size_t)n, keep);
		pos += got;
		if (got < n)
			break;
	}
	in->p = b;
	in->len = len;
	if (ferror(r->f)) {
		img_input_free(in);
		return gf_fail(e, "cannot read %s: %s", r->name, strerror(errno));
	}
	if (pos < hd->riff) {
		img_input_free(in);
		return gf_fail(e, "%s: WebP is cut short: its header says %lu bytes, "
		    "the stream has %llu", r->name, hd->riff, pos);
	}
	if (len >= 8) {                 /* the RIFF length of what is kept */
		unsigned long k = (unsigned long)len - 8;
		b[4] = k & 0xff, b[5] = k >> 8 & 0xff, b[6] = k >> 16 & 0xff,
		    b[7] = k >> 24 & 0xff;
	}
	return img_reader_unread(r, NULL, 0, e);
}

/* A still image: decoded straight into img's final buffer. */
static int
webp_decode_still(struct img_reader *r, const struct img_input *in,
    struct image *img, struct gf_err *e)
{
	WebPDecoderConfig cfg;
	VP8StatusCode s;

	if (!WebPInitDecoderConfig(&cfg))
		return gf_fail(e, "%s: libwebp's decoder does not match its header",
		    r->name);
	cfg.output.colorspace = img->channels == 4 ? MODE_RGBA : MODE_RGB;
	cfg.output.is_external_memory = 1;
	cfg.output.u.RGBA.rgba = img->px;
	cfg.output.u.RGBA.stride = img->width * img->channels;
	cfg.output.u.RGBA.size = img_bytes(img);
	s = WebPDecode(in->p, in->len, &cfg);
	WebPFreeDecBuffer(&cfg.output);
	if (s != VP8_STATUS_OK)
		return gf_fail(e, "%s: bad WebP: %s", r->name, webp_status(s));
	return 0;
}

/* An animation: its first frame composited on the canvas, RGBA, into img. */
static int
webp_decode_first_frame(struct img_reader *r, const struct img_input *in,
    struct image *img, struct gf_err *e)
{
	WebPAnimDecoderOptions opt;
	WebPAnimDecoder *dec;
	WebPData data = {in->p, in->len};
	WebPAnimInfo info;
	uint8_t *canvas;
	int ts, ret = 0;

	if (!WebPAnimDecoderOptionsInit(&opt))
		return gf_fail(e, "%s: libwebpdemux does not match its header",
		    r->name);
	opt.color_mode = MODE_RGBA;
	opt.use_threads = 0;
	if ((dec = WebPAnimDecoderNew(&data, &opt)) == NULL)
		return gf_fail(e, "%s: bad WebP animation: its chunks do not parse "
		    "(damaged or truncated)", r->name);
	if (!WebPAnimDecoderGetInfo(dec, &info) || info.frame_count < 1 ||
	    (long)info.canvas_width != img->width ||
	    (long)info.canvas_height != img->height)
		ret = gf_fail(e, "%s: bad WebP animation: no frame, or a canvas "
		    "that is not the header's %d x %d", r->name, img->width,
		    img->height);
	else if (!WebPAnimDecoderGetNext(dec, &canvas, &ts))
		ret = gf_fail(e, "%s: bad WebP animation: its first frame does "
		    "not decode (damaged or truncated)", r->name);
	else if (img->channels == 4)
		memcpy(img->px, canvas, img_bytes(img));
	else
		for (size_t i = 0, n = (size_t)img->width * img->height; i < n; i++)
			memcpy((uint8_t *)img->px + 3 * i, canvas + 4 * i, 3);
	WebPAnimDecoderDelete(dec);
	return ret;
}

/* The Orientation of the file's EXIF chunk (parsed by libwebpdemux); 1 if none. */
static int
webp_orientation(const struct img_input *in)
{
	WebPData data = {in->p, in->len};
	WebPDemuxer *dmx = WebPDemux(&data);
	WebPChunkIterator it;
	int o = 1;

	if (dmx == NULL)
		return 1;
	if (WebPDemuxGetChunk(dmx, "EXIF", 1, &it)) {
		o = img_exif_orientation(it.chunk.bytes, it.chunk.size);
		WebPDemuxReleaseChunkIterator(&it);
	}
	WebPDemuxDelete(dmx);
	return o;
}

/*
 * The file's ICCP chunk (parsed by libwebpdemux) into r->icc: none when
 * it has none, or one of more than IMG_ICC_MAX bytes.
 */
static void
webp_icc(struct img_reader *r, const struct img_input *in)
{
	WebPData data = {in->p, in->len};
	WebPDemuxer *dmx = WebPDemux(&data);
	WebPChunkIterator it;

	img_icc_free(&r->icc);
	if (dmx == NULL)
		return;
	if (WebPDemuxGetChunk(dmx, "ICCP", 1, &it)) {
		size_t n = it.chunk.size;
		if (n > 0 && n <= IMG_ICC_MAX && (r->icc.p = malloc(n)) != NULL) {
			memcpy(r->icc.p, it.chunk.bytes, n);
			r->icc.len = n;
		}
		WebPDemuxReleaseChunkIterator(&it);
	}
	WebPDemuxDelete(dmx);
}

int
img_webp_read(struct img_reader *r, struct image *img, struct gf_err *e)
{
	WebPBitstreamFeatures ft;
	struct webp_head hd = {0, 0, 0};
	struct img_input in = {NULL, 0};
	VP8StatusCode s;
	int ret;

	if (webp_check_head(r, &hd, e) < 0 || webp_input(r, &hd, &in, e) < 0)
		return -1;
	if (webp_weigh(r, in.p, in.len, &hd, e) < 0) {
		img_input_free(&in);
		return -1;
	}
	if ((s = WebPGetFeatures(in.p, in.len, &ft)) != VP8_STATUS_OK) {
		img_input_free(&in);
		return gf_fail(e, "%s: bad WebP header: %s", r->name, webp_status(s));
	}
	img->width = ft.width;
	img->height = ft.height;
	img->channels = ft.has_alpha ? 4 : 3;
	img->maxval = 255;
	if (img_check_size(r, ft.width, ft.height, img->channels, 255, e) < 0 ||
	    img_reader_alloc(r, img, e) < 0) {
		img_input_free(&in);
		return -1;
	}
	ret = ft.has_animation ? webp_decode_first_frame(r, &in, img, e) :
	    webp_decode_still(r, &in, img, e);
	if (ret == 0 && r->autorotate)
		ret = img_orient(img, webp_orientation(&in), e);
	if (ret == 0)
		webp_icc(r, &in);
	img_input_free(&in);
	if (ret < 0) {
		img_reader_release(r, img);
		return -1;
	}
	return 1;
}

/* ---- WebP out */

/* The largest side WebP holds. */
#define WEBP_MAX_SIDE 16383

/* libwebp's encoder errors in words. */
static const char *
webp_enc_error(WebPEncodingError err)
{
	switch (err) {
	case VP8_ENC_ERROR_OUT_OF_MEMORY:
	case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY:
		return "out of memory";
	case VP8_ENC_ERROR_BAD_DIMENSION:
		return "the image's size is not one WebP holds";
	case VP8_ENC_ERROR_PARTITION0_OVERFLOW:
	case VP8_ENC_ERROR_PARTITION_OVERFLOW:
		return "a partition overflowed (try a lower --quality)";
	case VP8_ENC_ERROR_BAD_WRITE:
		return strerror(errno);
	case VP8_ENC_ERROR_FILE_TOO_BIG:
		return "the file would exceed 4 GiB";
	default:
		return "libwebp's encoder failed";
	}
}

/* libwebp's output: fwrite to the FILE in custom_ptr; 0 stops the encoder. */
static int
webp_sink(const uint8_t *data, size_t n, const WebPPicture *pic)
{
	return fwrite(data, 1, n, pic->custom_ptr) == n;
}

/*
 * img as packed 8-bit RGB (channels 1 and 3) or RGBA (2 and 4), samples
 * scaled to 255, into *out (malloc'd, width * height * *bpp bytes).
 */
static int
webp_pack(const struct image *img, uint8_t **out, int *bpp, struct gf_err *e)
{
	const int ch = img->channels, alpha = img_has_alpha(img);
	const size_t w = (size_t)img->width;
	uint8_t *row = malloc(w * ch), *p;

	*bpp = alpha ? 4 : 3;
	if (row == NULL || (*out = malloc(w * img->height * *bpp)) == NULL) {
		free(row);
		return gf_nomem(e, "out of memory");
	}
	p = *out;
	for (int y = 0; y < img->height; y++) {
		const uint8_t *s = img_out_row(img, y, 255, row);
		for (size_t x = 0; x < w; x++, s += ch, p += *bpp) {
			p[0] = s[0];
			p[1] = ch >= 3 ? s[1] : s[0];
			p[2] = ch >= 3 ? s[2] : s[0];
			if (alpha)
				p[3] = s[ch - 1];
		}
	}
	free(row);
	return 0;
}

/*
 * The WebP that libwebp encoded into w, with icc in an ICCP chunk (and
 * the VP8X header that announces it), to f.
 */
static int
webp_put_icc(FILE *f, const WebPMemoryWriter *w, const struct img_icc *icc,
    const char *name, struct gf_err *e)
{
	WebPData image = {w->mem, w->size}, chunk = {icc->p, icc->len};
	WebPData out = {NULL, 0};
	WebPMux *mux = WebPMuxCreate(&image, 0);
	WebPMuxError err = WEBP_MUX_MEMORY_ERROR;

	if (mux != NULL && (err = WebPMuxSetChunk(mux, "ICCP", &chunk, 0)) ==
	    WEBP_MUX_OK)
		err = WebPMuxAssemble(mux, &out);
	WebPMuxDelete(mux);
	if (err != WEBP_MUX_OK) {
		WebPDataClear(&out);
		if (err == WEBP_MUX_MEMORY_ERROR)
			return gf_nomem(e, "cannot write %s as WebP: out of memory",
			    name);
		return gf_fail(e, "cannot write %s as WebP: libwebpmux cannot add "
		    "its ICC profile (error %d)", name, (int)err);
	}
	if (fwrite(out.bytes, 1, out.size, f) != out.size) {
		WebPDataClear(&out);
		return gf_fail(e, "cannot write %s as WebP: %s", name,
		    strerror(errno));
	}
	WebPDataClear(&out);
	return 0;
}

/*
 * Encodes the packed pixels px (bpp 3 or 4) of img's size to f, with
 * icc (NULL: none).
 */
static int
webp_encode(FILE *f, const struct image *img, const uint8_t *px, int bpp,
    int quality, const struct img_icc *icc, const char *name,
    struct gf_err *e)
{
	WebPConfig cfg;
	WebPPicture pic;
	WebPMemoryWriter mem;
	int ok;

	if (!WebPConfigInit(&cfg) || !WebPPictureInit(&pic))
		return gf_fail(e, "cannot write %s as WebP: libwebp's encoder does "
		    "not match its header", name);
	cfg.lossless = quality == 0;
	cfg.exact = quality == 0;
	if (quality > 0)
		cfg.quality = (float)quality;
	pic.use_argb = quality == 0;
	pic.width = img->width;
	pic.height = img->height;
	pic.writer = webp_sink;
	pic.custom_ptr = f;
	if (icc != NULL) {      /* in memory, for the mux to add the profile */
		WebPMemoryWriterInit(&mem);
		pic.writer = WebPMemoryWrite;
		pic.custom_ptr = &mem;
	}
	ok = bpp == 4 ? WebPPictureImportRGBA(&pic, px, img->width * 4) :
	    WebPPictureImportRGB(&pic, px, img->width * 3);
	if (!ok) {
		WebPPictureFree(&pic);
		return gf_nomem(e, "cannot write %s as WebP: out of memory", name);
	}
	ok = WebPEncode(&cfg, &pic);
	if (!ok)
		gf_fail(e, "cannot write %s as WebP: %s", name,
		    webp_enc_error(pic.error_code));
	WebPPictureFree(&pic);
	if (ok && icc != NULL && webp_put_icc(f, &mem, icc, name, e) < 0)
		ok = 0;
	if (icc != NULL)
		WebPMemoryWriterClear(&mem);
	return ok ? 0 : -1;
}

int
img_webp_sniff(const unsigned char *b, size_t n)
{
	return n >= 12 && memcmp(b, "RIFF", 4) == 0 &&
	    memcmp(b + 8, "WEBP", 4) == 0;
}

int
img_webp_write(FILE *f, const struct image *img, enum img_format fmt,
    int quality, const struct img_icc *icc, const char *name,
    struct gf_err *e)
{
	char deep[IMG_FORMAT_LIST_MAX];
	uint8_t *px;
	int bpp, ret;

	(void)fmt;
	if (img->width > WEBP_MAX_SIDE || img->height > WEBP_MAX_SIDE)
		return gf_fail(e, "cannot write %s as WebP: the image is %d x %d "
		    "and WebP holds at most %d x %d; write %s", name, img->width,
		    img->height, WEBP_MAX_SIDE, WEBP_MAX_SIDE,
		    img_formats_deep(deep, sizeof(deep)));
	if (webp_pack(img, &px, &bpp, e) < 0)
		return -1;
	ret = webp_encode(f, img, px, bpp, quality, icc, name, e);
	free(px);
	if (ret == 0 && ferror(f))
		return gf_fail(e, "cannot write %s as WebP: %s", name,
		    strerror(errno));
	return ret;
}
