/*
 * img_webp.c - WebP in and out through libwebp (decode.h, encode.h) and
 * libwebpdemux (demux.h, for animations).
 * In: lossy (VP8) and lossless (VP8L) files, with or without alpha, and
 * the first frame of an animation as it is displayed (composited on its
 * canvas); RGB, or RGB+alpha when the file says it has alpha, 8 bit;
 * turned as an EXIF chunk's Orientation says, unless the reader keeps
 * pixels as stored.
 * The canvas size is parsed from the sniffed header and checked (sides,
 * pixel limit, and a RIFF length longer than the file) before the file
 * is read whole and anything decoded; damaged data fails the image.
 * Out: one image, 8 bit: lossless at quality 0 (the default: a round
 * trip is exact, colour under transparent pixels included), lossy at
 * quality 1-100 (--quality); gray is written as RGB, maxval below 255
 * scaled to 255; 16-bit images and sides above 16383 are refused.
 * libwebp keeps no state between calls: readers on several threads
 * share nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>

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
 * The checks made from the header before the file is read: the canvas
 * against the limits, and a regular file's length against the RIFF
 * header's (a file cut short cannot decode).
 */
static int
webp_check_head(struct img_reader *r, struct gf_err *e)
{
	struct webp_head h = {0, 0, 0};
	off_t start, size;

	if (webp_parse_head(r, r->head, r->nhead, &h, e) < 0 ||
	    img_check_size(r, h.width, h.height, 4, 255, e) < 0)
		return -1;
	if (img_reader_file(r, &start, &size) && (unsigned long long)size <
	    h.riff)
		return gf_fail(e, "%s: WebP is cut short: its header says %lu "
		    "bytes, the file has %lld", r->name, h.riff, (long long)size);
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

int
img_webp_read(struct img_reader *r, struct image *img, struct gf_err *e)
{
	WebPBitstreamFeatures ft;
	struct img_input in;
	VP8StatusCode s;
	int ret;

	if (webp_check_head(r, e) < 0 || img_reader_input(r, "WebP", &in, e) < 0)
		return -1;
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

/* Encodes the packed pixels px (bpp 3 or 4) of img's size to f. */
static int
webp_encode(FILE *f, const struct image *img, const uint8_t *px, int bpp,
    int quality, const char *name, struct gf_err *e)
{
	WebPConfig cfg;
	WebPPicture pic;
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
    int quality, const char *name, struct gf_err *e)
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
	ret = webp_encode(f, img, px, bpp, quality, name, e);
	free(px);
	if (ret == 0 && ferror(f))
		return gf_fail(e, "cannot write %s as WebP: %s", name,
		    strerror(errno));
	return ret;
}
