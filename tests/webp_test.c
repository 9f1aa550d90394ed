/*
 * webp_test - WebP in and out (lib/io/img_webp.c): lossless round trips
 * exact (gray, RGB, alpha, colour under transparent pixels, a scaled
 * maxval), lossy at a quality, the first frame of an animation made
 * here with libwebpmux's encoder, an EXIF orientation applied (or not),
 * 16-bit and oversized results refused,
 * and damaged, truncated and oversized files refused with a message.
 * Prints "pass NAME" or "fail NAME: why".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <webp/encode.h>
#include <webp/mux.h>

#include "img.h"
#include "img_int.h"
#include "unit.h"

/* A file of bytes in a fresh temporary path (len of them); 0 or -1. */
static int
put_file(char *path, const void *bytes, size_t len)
{
	int fd;
	FILE *f;

	strcpy(path, "/tmp/webp_test.XXXXXX");
	if ((fd = mkstemp(path)) < 0 || (f = fdopen(fd, "wb")) == NULL)
		return -1;
	if (fwrite(bytes, 1, len, f) != len) {
		fclose(f);
		return -1;
	}
	return fclose(f) == 0 ? 0 : -1;
}

/* img as WebP at quality (0: lossless) into *buf (malloc'd, *len bytes). */
static int
encode(const struct image *img, int quality, unsigned char **buf, size_t *len,
    struct gf_err *e)
{
	char *p = NULL;
	FILE *f = open_memstream(&p, len);
	int ret;

	if (f == NULL)
		return gf_fail(e, "open_memstream failed");
	ret = img_write(f, img, IMG_FORMAT_WEBP, quality, "test.webp", e);
	fclose(f);
	*buf = (unsigned char *)p;
	if (ret < 0) {
		free(p);
		*buf = NULL;
	}
	return ret;
}

/*
 * Reads bytes as a file, pixels turned by their EXIF orientation when
 * autorotate; 1 with the image, else -1 with e.
 */
static int
decode_as(const unsigned char *bytes, size_t len, long long max_pixels,
    int autorotate, struct image *img, struct gf_err *e)
{
	char path[32];
	FILE *f;
	struct img_reader *r;
	int ret = -1;

	if (put_file(path, bytes, len) < 0)
		return gf_fail(e, "cannot make a temporary file");
	if ((f = fopen(path, "rb")) != NULL &&
	    img_reader_open(&r, f, "input", e) == 0) {
		if (max_pixels >= 0)
			img_reader_set_max_pixels(r, max_pixels);
		img_reader_set_autorotate(r, autorotate);
		ret = img_read_next(r, img, e);
		img_reader_close(r);
	}
	if (f != NULL)
		fclose(f);
	remove(path);
	return ret;
}

static int
decode(const unsigned char *bytes, size_t len, long long max_pixels,
    struct image *img, struct gf_err *e)
{
	return decode_as(bytes, len, max_pixels, 1, img, e);
}

/* The RGB(A) samples WebP keeps of sample i of img: gray as RGB, scaled to 255. */
static unsigned
want_sample(const struct image *img, size_t i, int out_ch)
{
	size_t px = i / out_ch, c = i % out_ch;
	int ch = img->channels;
	unsigned v;

	if (c == 3)
		v = img_get(img, px * ch + ch - 1);
	else
		v = img_get(img, px * ch + (ch >= 3 ? c : 0));
	return (v * 255 + img->maxval / 2) / img->maxval;
}

/* A lossless round trip of img gives every sample back exactly. */
static void
check_lossless(const char *name, const struct image *img)
{
	const int out_ch = img_has_alpha(img) ? 4 : 3;
	struct image back = {0};
	struct gf_err e = {0};
	unsigned char *buf;
	size_t len, n = (size_t)img->width * img->height * out_ch;

	if (encode(img, 0, &buf, &len, &e) < 0 || decode(buf, len, -1, &back,
	    &e) != 1) {
		result(name, 0, "%s", e.msg);
		free(buf);
		return;
	}
	if (back.width != img->width || back.height != img->height ||
	    back.channels != out_ch || back.maxval != 255)
		result(name, 0, "got %dx%d, %d channels, maxval %u", back.width,
		    back.height, back.channels, back.maxval);
	else if (len < 16 || memcmp(buf + 12, "VP8L", 4) != 0)
		result(name, 0, "the file's first chunk is not VP8L (lossless)");
	else {
		size_t i = 0;
		while (i < n && img_get(&back, i) == want_sample(img, i, out_ch))
			i++;
		result(name, i == n, "sample %zu is %u, expected %u", i,
		    i < n ? img_get(&back, i) : 0, i < n ?
		    want_sample(img, i, out_ch) : 0);
	}
	img_free(&back);
	free(buf);
}

/*
 * Gray, gray+alpha, RGB and RGBA of noise (lossless at any content),
 * alpha 0 over colour, and maxval 15 (17 v).
 */
static void
test_lossless(void)
{
	static const unsigned rgba[] = {10, 20, 30, 0, 40, 50, 60, 0, 7, 8, 9,
	    128, 250, 251, 252, 255};
	static const unsigned v15[] = {0, 1, 7, 8, 14, 15};
	struct image img[] = {image_noise(37, 23, 1, 255, 255, 1),
	    image_noise(37, 23, 2, 255, 255, 2), image_noise(37, 23, 3, 255, 255, 3),
	    image_noise(37, 23, 4, 255, 255, 4), image_of(2, 2, 4, 255, rgba),
	    image_of(3, 2, 1, 15, v15)};
	static const char *const names[] = {"webp_lossless_gray",
	    "webp_lossless_gray_alpha", "webp_lossless_rgb", "webp_lossless_rgba",
	    "webp_lossless_colour_under_alpha_0", "webp_lossless_maxval_15_scaled"};

	for (size_t k = 0; k < sizeof(img) / sizeof(img[0]); k++) {
		check_lossless(names[k], &img[k]);
		img_free(&img[k]);
	}
}

/* A smooth w x h RGB (ch 3) or RGBA (ch 4) image; alpha a ramp. */
static struct image
smooth(int w, int h, int ch)
{
	struct image img = image_of(w, h, ch, 255, NULL);

	for (size_t i = 0; i < (size_t)w * h * ch; i++) {
		size_t x = i / ch % w, y = i / ch / w, c = i % ch;
		img_set(&img, i, c == 3 ? (unsigned)(x * 255 / (w - 1)) :
		    (unsigned)(x + y * 2 + c * 40));
	}
	return img;
}

/* Largest difference between a and b over n samples. */
static unsigned
worst_diff(const struct image *a, const struct image *b, size_t n, int only_c,
    int ch)
{
	unsigned worst = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned x = img_get(a, i), y = img_get(b, i);
		unsigned d = x > y ? x - y : y - x;
		if ((only_c < 0 || (int)(i % ch) == only_c) && d > worst)
			worst = d;
	}
	return worst;
}

/*
 * Lossy: quality 90 is a VP8 chunk (not VP8L), within 12 of the
 * original; quality 10 makes a smaller file than 90; alpha stays exact
 * (libwebp codes it losslessly by default).
 */
static void
test_lossy(void)
{
	struct image img = smooth(64, 48, 3), rgba = smooth(64, 48, 4);
	struct image back = {0}, aback = {0};
	struct gf_err e = {0};
	unsigned char *q90 = NULL, *q10 = NULL, *qa = NULL;
	size_t l90, l10, la, n = 64 * 48 * 3;

	if (encode(&img, 90, &q90, &l90, &e) < 0 || encode(&img, 10, &q10, &l10,
	    &e) < 0 || decode(q90, l90, -1, &back, &e) != 1) {
		result("webp_lossy_q90", 0, "%s", e.msg);
	} else {
		unsigned d = worst_diff(&img, &back, n, -1, 3);
		result("webp_lossy_q90", back.channels == 3 &&
		    memcmp(q90 + 12, "VP8 ", 4) == 0 && d <= 12,
		    "channels %d, chunk %.4s, a sample differs by %u",
		    back.channels, q90 + 12, d);
		result("webp_lossy_q10_smaller", l10 < l90,
		    "quality 10 made %zu bytes, quality 90 %zu", l10, l90);
		img_free(&back);
	}
	if (encode(&rgba, 75, &qa, &la, &e) < 0 || decode(qa, la, -1, &aback,
	    &e) != 1) {
		result("webp_lossy_alpha_exact", 0, "%s", e.msg);
	} else {
		unsigned d = aback.channels == 4 ? worst_diff(&rgba, &aback,
		    64 * 48 * 4, 3, 4) : 999;
		result("webp_lossy_alpha_exact", d == 0,
		    "channels %d, an alpha sample differs by %u", aback.channels, d);
		img_free(&aback);
	}
	free(q90);
	free(q10);
	free(qa);
	img_free(&img);
	img_free(&rgba);
}

/*
 * An animation of two lossless frames (red, then blue) of 5 x 4 made by
 * libwebpmux: the reader gives the first frame, red, as RGBA.
 */
static void
test_animation(void)
{
	WebPAnimEncoderOptions ao;
	WebPAnimEncoder *enc;
	WebPConfig cfg;
	WebPPicture pic;
	WebPData out = {NULL, 0};
	struct image back = {0};
	struct gf_err e = {0};
	uint32_t colours[2] = {0xffff0000u, 0xff0000ffu};       /* ARGB */
	int ok;

	ok = WebPAnimEncoderOptionsInit(&ao) && WebPConfigInit(&cfg) &&
	    (enc = WebPAnimEncoderNew(5, 4, &ao)) != NULL;
	cfg.lossless = 1;
	for (int k = 0; ok && k < 2; k++) {
		ok = WebPPictureInit(&pic);
		pic.use_argb = 1;
		pic.width = 5;
		pic.height = 4;
		ok = ok && WebPPictureAlloc(&pic);
		for (int i = 0; ok && i < 20; i++)
			pic.argb[i % 5 + i / 5 * pic.argb_stride] = colours[k];
		ok = ok && WebPAnimEncoderAdd(enc, &pic, k * 100, &cfg);
		WebPPictureFree(&pic);
	}
	ok = ok && WebPAnimEncoderAdd(enc, NULL, 200, NULL) &&
	    WebPAnimEncoderAssemble(enc, &out);
	if (!ok) {
		result("webp_animation_first_frame", 0, "libwebpmux made no animation");
	} else if (decode(out.bytes, out.size, -1, &back, &e) != 1) {
		result("webp_animation_first_frame", 0, "%s", e.msg);
	} else {
		const uint8_t *p = back.px;
		int red = back.channels >= 3;
		for (int i = 0; red && i < 20; i++)
			red = p[i * back.channels] == 255 && p[i * back.channels + 1] == 0 &&
			    p[i * back.channels + 2] == 0;
		result("webp_animation_first_frame", back.width == 5 &&
		    back.height == 4 && red, "got %dx%d, %d channels, first pixel "
		    "%u %u %u", back.width, back.height, back.channels, p[0], p[1],
		    p[2]);
		img_free(&back);
	}
	WebPDataClear(&out);
	if (enc != NULL)
		WebPAnimEncoderDelete(enc);
}

/*
 * An EXIF chunk (a bare TIFF header, as WebP writers store it) saying
 * Orientation 6: the 3 x 2 image comes back 2 x 3, turned as img_orient
 * turns it; with autorotate off, as stored.
 */
static void
test_orientation(void)
{
	static const unsigned char tiff[] = {'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0,
	    0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0};
	struct image img = image_noise(3, 2, 3, 255, 255, 5), turned = {0};
	struct image back = {0}, stored = {0};
	struct gf_err e = {0};
	unsigned char *buf = NULL;
	size_t len;
	WebPData in, exif = {tiff, sizeof(tiff)}, out = {NULL, 0};
	WebPMux *mux = NULL;
	char why[600] = "";

	if (encode(&img, 0, &buf, &len, &e) < 0) {
		result("webp_exif_orientation_6", 0, "%s", e.msg);
		img_free(&img);
		return;
	}
	in = (WebPData){buf, len};
	if ((mux = WebPMuxCreate(&in, 1)) == NULL ||
	    WebPMuxSetChunk(mux, "EXIF", &exif, 1) != WEBP_MUX_OK ||
	    WebPMuxAssemble(mux, &out) != WEBP_MUX_OK)
		snprintf(why, sizeof(why), "libwebpmux added no EXIF chunk");
	else if (decode(out.bytes, out.size, -1, &back, &e) != 1 ||
	    decode_as(out.bytes, out.size, -1, 0, &stored, &e) != 1)
		snprintf(why, sizeof(why), "%s", e.msg);
	turned = image_of(3, 2, 3, 255, NULL);
	memcpy(turned.px, img.px, img_bytes(&img));
	if (why[0] == '\0' && img_orient(&turned, 6, &e) < 0)
		snprintf(why, sizeof(why), "%s", e.msg);
	result("webp_exif_orientation_6", why[0] == '\0' && back.width == 2 &&
	    back.height == 3 && memcmp(back.px, turned.px, 18) == 0, "%s got %dx%d",
	    why, back.width, back.height);
	result("webp_exif_orientation_kept", why[0] == '\0' &&
	    stored.width == 3 && memcmp(stored.px, img.px, 18) == 0, "%s got %dx%d",
	    why, stored.width, stored.height);
	WebPDataClear(&out);
	WebPMuxDelete(mux);
	free(buf);
	img_free(&img);
	img_free(&turned);
	img_free(&back);
	img_free(&stored);
}

/* What cannot be WebP is refused, naming what can. */
static void
test_refused_out(void)
{
	static const unsigned v[] = {1000, 2000, 0, 65535, 256, 1};
	struct image big = image_of(3, 2, 1, 65535, v);
	struct image wide = {16384, 1, 1, 255, NULL, 0};
	struct gf_err e = {0};
	unsigned char *buf = NULL;
	size_t len;
	int ret;

	ret = encode(&big, 0, &buf, &len, &e);
	result("webp_16bit_refused", ret < 0 && strstr(e.msg, "16 bit") &&
	    strstr(e.msg, "PNG"), "ret %d: %s", ret, e.msg);
	free(buf);
	if (img_alloc(&wide, NULL) < 0)
		abort();
	memset(wide.px, 0, 16384);
	ret = encode(&wide, 0, &buf, &len, &e);
	result("webp_16384_wide_refused", ret < 0 && strstr(e.msg, "16383"),
	    "ret %d: %s", ret, e.msg);
	free(buf);
	img_free(&big);
	img_free(&wide);
}

static void
put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> 8 * i);
}

/* bytes must be refused with a message containing needle. */
static void
expect_refused(const char *name, const unsigned char *bytes, size_t len,
    long long max_pixels, const char *needle)
{
	struct image img = {0};
	struct gf_err e = {0};
	int ret = decode(bytes, len, max_pixels, &img, &e);

	printf("# %s: %s\n", name, e.msg);
	if (ret > 0)
		img_free(&img);
	result(name, ret < 0 && strstr(e.msg, needle) != NULL,
	    "ret %d, message '%s' lacks '%s'", ret, e.msg, needle);
}

/*
 * Damage: a file cut short (its RIFF length then larger than the file;
 * or the length patched to match, so that libwebp meets the end), a
 * lossless bitstream overwritten with 0xff, a lossless header
 * claiming 16384 x 16384 under a pixel limit of 10^6, an unknown first
 * chunk, and a file that ends inside its header.
 */
static void
test_damaged(void)
{
	struct image img = image_noise(40, 30, 3, 255, 255, 9);
	struct gf_err e = {0};
	unsigned char *buf = NULL, *bad;
	size_t len, half;

	if (encode(&img, 0, &buf, &len, &e) < 0 || (bad = malloc(len)) == NULL) {
		result("webp_damaged", 0, "%s", e.msg);
		free(buf);
		img_free(&img);
		return;
	}
	half = len / 2 & ~(size_t)1;
	expect_refused("webp_truncated_file", buf, half, -1, "cut short");
	memcpy(bad, buf, len);
	put_le32(bad + 4, (uint32_t)(half - 8));
	put_le32(bad + 16, (uint32_t)(half - 20));
	expect_refused("webp_truncated_bitstream", bad, half, -1, "bad WebP");
	memcpy(bad, buf, len);
	memset(bad + 30, 0xff, len - 30);
	expect_refused("webp_corrupt_bitstream", bad, len, -1, "bad WebP");
	memcpy(bad, buf, len);
	bad[21] = bad[22] = bad[23] = 0xff;
	bad[24] |= 0x0f;
	expect_refused("webp_max_pixels", bad, len, 1000000, "more than the limit");
	memcpy(bad, buf, len);
	memcpy(bad + 12, "ABCD", 4);
	expect_refused("webp_unknown_chunk", bad, len, -1, "ABCD");
	expect_refused("webp_ends_in_header", buf, 20, -1, "cut short");
	free(bad);
	free(buf);
	img_free(&img);
}

int
main(void)
{
	test_lossless();
	test_lossy();
	test_animation();
	test_orientation();
	test_refused_out();
	test_damaged();
	return nfail > 0;
}
