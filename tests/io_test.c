/*
 * io_test - lib/io/img.h and lib/io/outfile.h: round trips of every format we
 * write through temporary files, the PNM variants we only read, streams
 * of several images, and each way an input can be bad (-1 and a message
 * naming the problem).  Run from the project root (samples/).  Prints
 * "pass NAME", "fail NAME: why" or "skip NAME: why".
 */
#include <dirent.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tiffio.h>

#include "img.h"
#include "img_int.h"
#include "outfile.h"
#include "unit.h"

/*
 * Whether img has the given shape and samples; why gets the first
 * difference.
 */
static int
same(const struct image *img, int w, int h, int ch, unsigned maxval,
    const unsigned *want, char *why, size_t whylen)
{
	size_t n = (size_t)w * h * ch;

	if (img->width != w || img->height != h || img->channels != ch ||
	    img->maxval != maxval) {
		snprintf(why, whylen, "got %dx%d, %d channels, maxval %u; expected "
		    "%dx%d, %d, %u", img->width, img->height, img->channels,
		    img->maxval, w, h, ch, maxval);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (img_get(img, i) != want[i]) {
			snprintf(why, whylen, "sample %zu is %u, expected %u", i,
			    img_get(img, i), want[i]);
			return 0;
		}
	return 1;
}

/* A fresh temporary file under /tmp, open for reading and writing. */
static FILE *
scratch(char *path)
{
	int fd;

	strcpy(path, "/tmp/io_test.XXXXXX");
	fd = mkstemp(path);
	return fd < 0 ? NULL : fdopen(fd, "w+b");
}

/*
 * Reads the images of bytes (len of them) in turn, as a stream; returns
 * img_read_next's value for image k (0-based) with the image in img
 * (images before k are freed).
 */
static int
read_nth(const void *bytes, size_t len, int k, struct image *img,
    struct gf_err *e)
{
	char path[32];
	FILE *f = scratch(path);
	struct img_reader *r;
	int ret = -1;

	if (f == NULL || fwrite(bytes, 1, len, f) != len || fseek(f, 0, SEEK_SET)) {
		if (f)
			fclose(f), remove(path);
		snprintf(e->msg, sizeof(e->msg), "cannot make a temporary file");
		return -2;
	}
	if (img_reader_open(&r, f, "input", e) == 0) {
		for (int i = 0; i <= k; i++) {
			ret = img_read_next(r, img, e);
			if (ret <= 0 || i == k)
				break;
			img_free(img);
		}
		img_reader_close(r);
	}
	fclose(f);
	remove(path);
	return ret;
}

/* Reads the first image of bytes and compares it with the expectation. */
static void
expect_read(const char *name, const void *bytes, size_t len, int w, int h,
    int ch, unsigned maxval, const unsigned *want)
{
	struct image img = {0};
	struct gf_err e = {0};
	char why[600];

	if (read_nth(bytes, len, 0, &img, &e) != 1) {
		result(name, 0, "not read: %s", e.msg);
		return;
	}
	result(name, same(&img, w, h, ch, maxval, want, why, sizeof(why)), "%s", why);
	img_free(&img);
}

/* Image k of bytes must fail with a message containing needle. */
static void
expect_error_at(const char *name, const void *bytes, size_t len, int k,
    const char *needle)
{
	struct image img = {0};
	struct gf_err e = {0};
	int ret = read_nth(bytes, len, k, &img, &e);

	printf("# %s: %s\n", name, e.msg);
	if (ret >= 0) {
		result(name, 0, "img_read_next gave %d, not -1", ret);
		if (ret > 0)
			img_free(&img);
		return;
	}
	result(name, ret == -1 && e.msg[0] && strstr(e.msg, needle),
	    "message '%s' lacks '%s'", e.msg, needle);
}

static void
expect_error(const char *name, const void *bytes, size_t len, const char *needle)
{
	expect_error_at(name, bytes, len, 0, needle);
}

/* Same, for a NUL-terminated text. */
static void
expect_error_s(const char *name, const char *text, const char *needle)
{
	expect_error(name, text, strlen(text), needle);
}

/* ---- round trips */

/*
 * Writes img in format fmt to a temporary file and reads it back (into
 * back); -1 with e on failure.  The file's bytes go to head (up to
 * headlen) for checks of the layout.
 */
static int
round_trip(const struct image *img, enum img_format fmt, struct image *back,
    unsigned char *head, size_t headlen, struct gf_err *e)
{
	char path[32];
	FILE *f = scratch(path);
	int ret;

	if (f == NULL)
		return gf_fail(e, "cannot make a temporary file");
	ret = img_write(f, img, fmt, 100, path, e);
	if (ret == 0 && head) {
		memset(head, 0, headlen);
		if (fseek(f, 0, SEEK_SET) == 0 && fread(head, 1, headlen, f) == 0)
			head[0] = '\0';
	}
	fclose(f);
	if (ret == 0)
		ret = img_load(path, back, e);
	remove(path);
	return ret;
}

static void
check_round_trip(const char *name, const struct image *img, enum img_format fmt,
    const unsigned *want)
{
	struct image back = {0};
	struct gf_err e = {0};
	char why[600];
	const unsigned *w = want;

	if (w == NULL) {
		static unsigned vals[64];
		for (size_t i = 0; i < (size_t)img->width * img->height * img->channels; i++)
			vals[i] = img_get(img, i);
		w = vals;
	}
	if (round_trip(img, fmt, &back, NULL, 0, &e) < 0) {
		result(name, 0, "%s", e.msg);
		return;
	}
	result(name, same(&back, img->width, img->height, img->channels,
	    fmt == IMG_FORMAT_PNM ? img->maxval : img->maxval > 255 ? 65535 : 255,
	    w, why, sizeof(why)),
	    "%s", why);
	img_free(&back);
}

/*
 * PGM and PPM, 8 and 16 bit (values above 255 survive), maxval 7 kept;
 * PNG gray and RGB.  The 16-bit PGM's raster is big-endian: 0x1234 is
 * written as the bytes 0x12 0x34 after the header "P5\n3 2\n65535\n".
 */
static void
test_round_trips(void)
{
	static const unsigned g8[] = {0, 1, 127, 128, 254, 255};
	static const unsigned g16[] = {0x1234, 256, 65535, 300, 1, 0};
	static const unsigned c8[] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 1, 2, 3};
	static const unsigned c16[] = {65535, 0, 1000, 256, 255, 257, 40000, 2, 3,
	    4, 5, 65534};
	static const unsigned g7[] = {0, 1, 2, 3, 4, 5, 6, 7};
	struct image a = image_of(3, 2, 1, 255, g8), b = image_of(3, 2, 1, 65535, g16);
	struct image c = image_of(2, 2, 3, 255, c8), d = image_of(2, 2, 3, 65535, c16);
	struct image g = image_of(4, 2, 1, 7, g7), back = {0};
	unsigned char head[20];
	struct gf_err e = {0};
	int ok;

	check_round_trip("pgm_8bit", &a, IMG_FORMAT_PNM, NULL);
	check_round_trip("pgm_16bit", &b, IMG_FORMAT_PNM, NULL);
	check_round_trip("ppm_8bit", &c, IMG_FORMAT_PNM, NULL);
	check_round_trip("ppm_16bit", &d, IMG_FORMAT_PNM, NULL);
	check_round_trip("pgm_maxval_7", &g, IMG_FORMAT_PNM, NULL);
	check_round_trip("png_gray", &a, IMG_FORMAT_PNG, NULL);
	check_round_trip("png_rgb", &c, IMG_FORMAT_PNG, NULL);
	check_round_trip("tiff_gray_8bit", &a, IMG_FORMAT_TIFF, NULL);
	check_round_trip("tiff_gray_16bit", &b, IMG_FORMAT_TIFF, NULL);
	check_round_trip("tiff_rgb_8bit", &c, IMG_FORMAT_TIFF, NULL);
	check_round_trip("tiff_rgb_16bit", &d, IMG_FORMAT_TIFF, NULL);
	ok = round_trip(&b, IMG_FORMAT_PNM, &back, head, sizeof(head), &e) == 0;
	result("pgm_16bit_big_endian", ok && memcmp(head, "P5\n3 2\n65535\n\x12\x34", 15)
	    == 0, "file starts '%.13s' %02x %02x %s", head, head[13], head[14], e.msg);
	if (ok)
		img_free(&back);
	img_free(&a);
	img_free(&b);
	img_free(&c);
	img_free(&d);
	img_free(&g);
}

/*
 * Alpha is kept by PAM, PNG and TIFF, 8 and 16 bit, gray and RGB: a
 * 2 x 2 image with alpha 0, 1, 128 and 255 (65535) comes back as it was.
 * TIFF scales maxval 15 like PNG: 17 v.
 */
static void
test_alpha(void)
{
	static const unsigned ga8[] = {0, 0, 10, 1, 200, 128, 255, 255};
	static const unsigned ga16[] = {0, 0, 1000, 1, 40000, 32768, 65535, 65535};
	static const unsigned rgba8[] = {1, 2, 3, 0, 4, 5, 6, 1, 7, 8, 9, 128,
	    250, 251, 252, 255};
	static const unsigned rgba16[] = {1, 2, 3, 0, 400, 500, 600, 1, 7, 8, 9,
	    32768, 65000, 65001, 65002, 65535};
	static const unsigned v15[] = {0, 1, 7, 8, 14, 15}, w15[] = {0, 17, 119, 136,
	    238, 255};
	struct image img[4] = {image_of(2, 2, 2, 255, ga8),
	    image_of(2, 2, 2, 65535, ga16), image_of(2, 2, 4, 255, rgba8),
	    image_of(2, 2, 4, 65535, rgba16)};
	static const char *const shape[4] = {"gray_alpha_8bit", "gray_alpha_16bit",
	    "rgba_8bit", "rgba_16bit"};
	static const struct {
		const char *name;
		enum img_format f;
	} fmts[] = {{"pam", IMG_FORMAT_PNM}, {"png", IMG_FORMAT_PNG},
	    {"tiff", IMG_FORMAT_TIFF}};
	struct image g15 = image_of(3, 2, 1, 15, v15);
	char name[64];

	for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
		for (int k = 0; k < 4; k++) {
			snprintf(name, sizeof(name), "%s_%s", fmts[f].name, shape[k]);
			check_round_trip(name, &img[k], fmts[f].f, NULL);
		}
	check_round_trip("tiff_maxval_15_scaled", &g15, IMG_FORMAT_TIFF, w15);
	for (int k = 0; k < 4; k++)
		img_free(&img[k]);
	img_free(&g15);
}

/*
 * PNG is 8 bit: maxval 15 is scaled by (v * 255 + 7) / 15 = 17 v, so
 * 0 1 7 8 14 15 -> 0 17 119 136 238 255.  maxval 100 shows the rounding:
 * (v * 255 + 50) / 100: 1 -> 305/100 = 3 (2.55), 2 -> 560/100 = 5 (5.1),
 * 50 -> 12800/100 = 128 (127.5, half up), 99 -> 25295/100 = 252 (252.45),
 * 100 -> 255, 0 -> 0.
 */
static void
test_png_scaled(void)
{
	static const unsigned v15[] = {0, 1, 7, 8, 14, 15}, w15[] = {0, 17, 119, 136,
	    238, 255};
	static const unsigned v100[] = {0, 1, 2, 50, 99, 100}, w100[] = {0, 3, 5, 128,
	    252, 255};
	struct image a = image_of(3, 2, 1, 15, v15), b = image_of(6, 1, 1, 100, v100);

	check_round_trip("png_maxval_15_scaled", &a, IMG_FORMAT_PNG, w15);
	check_round_trip("png_maxval_100_rounded", &b, IMG_FORMAT_PNG, w100);
	img_free(&a);
	img_free(&b);
}

/*
 * 16-bit PNG: maxval 65535 as is; maxval 1000 scaled by
 * (v * 65535 + 500) / 1000: 1 -> 66035 / 1000 = 66 (65.535),
 * 500 -> 32768 (32767.5, half up), 999 -> 65469 (65469.465), 1000 -> 65535.
 */
static void
test_png_16bit(void)
{
	static const unsigned v[] = {1000, 2000, 0, 65535, 256, 1};
	static const unsigned c[] = {1, 2, 3, 40000, 50000, 60000};
	static const unsigned v1000[] = {0, 1, 500, 999, 1000}, w1000[] = {0, 66,
	    32768, 65469, 65535};
	struct image a = image_of(3, 2, 1, 65535, v), b = image_of(2, 1, 3, 65535, c);
	struct image d = image_of(5, 1, 1, 1000, v1000);

	check_round_trip("png_16bit_gray", &a, IMG_FORMAT_PNG, NULL);
	check_round_trip("png_16bit_rgb", &b, IMG_FORMAT_PNG, NULL);
	check_round_trip("png_16bit_maxval_1000_scaled", &d, IMG_FORMAT_PNG, w1000);
	img_free(&a);
	img_free(&b);
	img_free(&d);
}

/*
 * JPEG out (lossy): smooth gradients, gray and RGB, and a maxval-100
 * gray image, written at quality 100 and read back by our reader: the
 * same size and channels, maxval 255, every sample within 8 of the
 * original (scaled to 255); a 16-bit image is refused, naming PNG.
 */
static void
check_jpeg_round_trip(const char *name, int ch, unsigned maxval)
{
	enum { W = 37, H = 23 };
	struct image img = image_of(W, H, ch, maxval, NULL), back = {0};
	struct gf_err e = {0};
	unsigned worst = 0;
	size_t n = (size_t)W * H * ch;

	for (size_t i = 0; i < n; i++) {
		size_t x = i / ch % W, y = i / ch / W, c = i % ch;
		((unsigned char *)img.px)[i] = (unsigned char)((x * 2 + y * 3 +
		    c * 40) * maxval / 255);
	}
	if (round_trip(&img, IMG_FORMAT_JPEG, &back,
	    NULL, 0, &e) < 0) {
		result(name, 0, "%s", e.msg);
		img_free(&img);
		return;
	}
	if (back.width != W || back.height != H || back.channels != ch ||
	    back.maxval != 255) {
		result(name, 0, "got %dx%d, %d channels, maxval %u", back.width,
		    back.height, back.channels, back.maxval);
	} else {
		for (size_t i = 0; i < n; i++) {
			unsigned want = (img_get(&img, i) * 255 + maxval / 2) / maxval;
			unsigned got = img_get(&back, i);
			unsigned d = got > want ? got - want : want - got;
			worst = d > worst ? d : worst;
		}
		result(name, worst <= 8, "a sample differs by %u", worst);
	}
	img_free(&img);
	img_free(&back);
}

static void
test_jpeg(void)
{
	static const unsigned v[] = {1000, 2000, 0, 65535, 256, 1};
	struct image big = image_of(3, 2, 1, 65535, v), back = {0};
	struct gf_err e = {0};
	int ret;

	check_jpeg_round_trip("jpeg_q100_gray", 1, 255);
	check_jpeg_round_trip("jpeg_q100_rgb", 3, 255);
	check_jpeg_round_trip("jpeg_q100_maxval_100_scaled", 1, 100);
	ret = round_trip(&big, IMG_FORMAT_JPEG, &back, NULL, 0, &e);
	result("jpeg_16bit_refused", ret < 0 && strstr(e.msg, "16 bit") &&
	    strstr(e.msg, "PNG"), "ret %d: %s", ret, e.msg);
	if (ret == 0)
		img_free(&back);
	img_free(&big);
}

/* ---- streams */

/*
 * Three PGMs of different sizes and maxvals written one after another
 * into one file come back in order, then 0 (and 0 again).
 */
static void
test_stream(void)
{
	static const unsigned v1[] = {1, 2, 3, 4}, v2[] = {999, 0, 500},
	    v3[] = {7, 6, 5, 4, 3, 2};
	struct image in[3] = {image_of(2, 2, 1, 255, v1), image_of(3, 1, 1, 1000, v2),
	    image_of(1, 6, 1, 7, v3)};
	const unsigned *want[3] = {v1, v2, v3};
	struct gf_err e = {0};
	struct img_reader *r = NULL;
	struct image img = {0};
	char path[32], why[600] = "";
	FILE *f = scratch(path);
	int ok = f != NULL, ret = 0, k;

	for (k = 0; ok && k < 3; k++)
		ok = img_write(f, &in[k], IMG_FORMAT_PNM, 0, path, &e) == 0;
	ok = ok && fseek(f, 0, SEEK_SET) == 0 && img_reader_open(&r, f, path, &e) == 0;
	for (k = 0; ok && k < 3; k++) {
		ok = (ret = img_read_next(r, &img, &e)) == 1 &&
		    same(&img, in[k].width, in[k].height, 1, in[k].maxval, want[k],
		    why, sizeof(why));
		if (ret == 1)
			img_free(&img);
	}
	if (ok && (ret = img_read_next(r, &img, &e)) != 0)
		ok = 0, snprintf(why, sizeof(why), "after 3 images got %d", ret);
	if (ok && (ret = img_read_next(r, &img, &e)) != 0)
		ok = 0, snprintf(why, sizeof(why), "after the end got %d", ret);
	result("stream_3_pgms", ok, "image %d: %s %s", k, why, e.msg);
	if (r)
		img_reader_close(r);
	if (f)
		fclose(f), remove(path);
	for (k = 0; k < 3; k++)
		img_free(&in[k]);
}

/*
 * A read image is never offset binary, whatever the caller's struct held:
 * fuzz_img's stack image once made the TIFF writer read 8-bit samples as
 * signed 16-bit ones (a heap overflow under ASan).
 */
static void
test_read_not_signed(void)
{
	static const unsigned v[] = {1, 2, 3, 4};
	struct image in = image_of(2, 2, 1, 255, v), img;
	struct gf_err e = {0};
	struct img_reader *r = NULL;
	char path[32];
	FILE *f = scratch(path);
	int ok = f != NULL && img_write(f, &in, IMG_FORMAT_PNM, 0, path, &e) == 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && img_reader_open(&r, f, path, &e) == 0;

	memset(&img, 0xff, sizeof(img));
	ok = ok && img_read_next(r, &img, &e) == 1 && img.offset_binary == 0;
	result("read_not_offset_binary", ok, "offset_binary %d: %s",
	    img.offset_binary, e.msg);
	if (ok)
		img_free(&img);
	if (r)
		img_reader_close(r);
	if (f)
		fclose(f), remove(path);
	img_free(&in);
}

/* ---- PNM variants that are only read */

/*
 * PBM: 1 is black in the file; libnetpbm's pam reader returns
 * PAM_PBM_BLACK = 0 for black and PAM_PBM_WHITE = 1 for white, maxval 1.
 * Rows "1 0 1" / "0 1 0" therefore read 0 1 0 / 1 0 1.  P4 packs them
 * into bits, high bit first, rows padded to a byte: 0xA0 0x40.  P2
 * (plain PGM) maxval 300 is 16 bit.  PAM alpha channels are kept.
 */
static void
test_pnm_variants(void)
{
	static const unsigned pbm[] = {0, 1, 0, 1, 0, 1};
	static const unsigned p2[] = {0, 150, 300, 1, 2, 3};
	static const unsigned ga[] = {10, 255, 20, 0};
	static const unsigned rgba[] = {1, 2, 3, 255, 4, 5, 6, 0};
	static const unsigned rgba16[] = {0x0102, 3, 65535, 0x1234};
	static const char p1[] = "P1\n# comment\n3 2\n1 0 1\n0 1 0\n";
	static const char p4[] = "P4\n3 2\n\xa0\x40";
	static const char p2t[] = "P2\n3 2\n300\n0 150 300\n1 2 3\n";
	static const char p7ga[] = "P7\nWIDTH 2\nHEIGHT 1\nDEPTH 2\nMAXVAL 255\n"
	    "TUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n\x0a\xff\x14\x00";
	static const char p7rgba[] = "P7\nWIDTH 2\nHEIGHT 1\nDEPTH 4\nMAXVAL 255\n"
	    "TUPLTYPE RGB_ALPHA\nENDHDR\n\x01\x02\x03\xff\x04\x05\x06\x00";
	static const char p7rgba16[] = "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 4\nMAXVAL 65535\n"
	    "TUPLTYPE RGB_ALPHA\nENDHDR\n\x01\x02\x00\x03\xff\xff\x12\x34";

	expect_read("pbm_plain_p1", p1, sizeof(p1) - 1, 3, 2, 1, 1, pbm);
	expect_read("pbm_raw_p4", p4, sizeof(p4) - 1, 3, 2, 1, 1, pbm);
	expect_read("pgm_plain_p2_16bit", p2t, sizeof(p2t) - 1, 3, 2, 1, 300, p2);
	expect_read("pam_gray_alpha", p7ga, sizeof(p7ga) - 1, 2, 1, 2, 255, ga);
	expect_read("pam_rgb_alpha", p7rgba, sizeof(p7rgba) - 1, 2, 1, 4, 255, rgba);
	expect_read("pam_rgb_alpha_16bit", p7rgba16, sizeof(p7rgba16) - 1, 1, 1, 4,
	    65535, rgba16);
}

/* ---- orientation */

/*
 * img_orient on the 3 x 2 image  a b c / d e f  (a = 1 ... f = 6), by
 * hand from the EXIF definitions: 2 mirrors, 3 turns 180 degrees, 4
 * flips, 5 transposes, 6 turns 90 degrees clockwise (the first row
 * becomes the right column), 7 transverses, 8 turns counter-clockwise.
 */
static void
test_orient(void)
{
	static const unsigned v[] = {1, 2, 3, 4, 5, 6};
	static const unsigned want[9][6] = {
		{0}, {1, 2, 3, 4, 5, 6}, {3, 2, 1, 6, 5, 4}, {6, 5, 4, 3, 2, 1},
		{4, 5, 6, 1, 2, 3}, {1, 4, 2, 5, 3, 6}, {4, 1, 5, 2, 6, 3},
		{6, 3, 5, 2, 4, 1}, {3, 6, 2, 5, 1, 4}};
	char name[32], why[600];

	for (int o = 1; o <= 8; o++) {
		struct image img = image_of(3, 2, 1, 65535, v);
		struct gf_err e = {0};
		int ok = img_orient(&img, o, &e) == 0;
		snprintf(name, sizeof(name), "orientation_%d", o);
		result(name, ok && same(&img, o >= 5 ? 2 : 3, o >= 5 ? 3 : 2, 1,
		    65535, want[o], why, sizeof(why)), "%s %s", why, e.msg);
		img_free(&img);
	}
}

/* ---- TIFF files made by hand */

/* What tiff_make writes: one strip per page, uncompressed, little-endian. */
struct tiff_spec {
	uint32_t w, h;
	uint16_t bits, spp, photometric, planar, format;
	int pages;
	size_t cut;             /* the file ends this many bytes early */
};

static void
le16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void
le32(unsigned char *p, unsigned long v)
{
	le16(p, (unsigned)(v & 0xffff));
	le16(p + 2, (unsigned)(v >> 16));
}

/*
 * Writes the TIFF of s into buf (cap bytes) and returns its length:
 * header, then per page its IFD and its pixels, sample i of page k
 * being (i + 16 k) mod 256 in every byte of the sample.  The pixels
 * are written only as far as cap allows (huge headers).
 */
static size_t
tiff_make(unsigned char *buf, size_t cap, const struct tiff_spec *s)
{
	enum { N = 12 };
	size_t px = (size_t)s->w * s->h * s->spp * (s->bits / 8), off = 8;

	memset(buf, 0, cap);
	memcpy(buf, "II*\0", 4);
	le32(buf + 4, 8);
	for (int k = 0; k < s->pages; k++) {
		const unsigned tags[N][3] = {{256, 4, s->w}, {257, 4, s->h},
		    {258, 3, s->bits}, {259, 3, 1}, {262, 3, s->photometric},
		    {273, 4, 0}, {277, 3, s->spp}, {278, 4, s->h},
		    {279, 4, (unsigned)px}, {284, 3, s->planar},
		    {338, 3, 2}, {339, 3, s->format}};
		size_t ifd = off, data = ifd + 2 + N * 12 + 4, n = 0;
		for (int t = 0; t < N; t++) {
			/* ExtraSamples (unassociated alpha) only with 2 or 4 samples. */
			if (tags[t][0] == 338 && s->spp != 2 && s->spp != 4)
				continue;
			unsigned char *e = buf + ifd + 2 + n++ * 12;
			le16(e, tags[t][0]);
			le16(e + 2, tags[t][1]);
			le32(e + 4, 1);
			if (tags[t][1] == 3)
				le16(e + 8, tags[t][2]);
			else
				le32(e + 8, tags[t][0] == 273 ? (unsigned long)data : tags[t][2]);
		}
		le16(buf + ifd, (unsigned)n);
		off = data + px;
		le32(buf + ifd + 2 + n * 12, k + 1 < s->pages ? (unsigned long)off : 0);
		for (size_t i = 0; i < px && data + i < cap; i++)
			buf[data + i] = (unsigned char)(i / (s->bits / 8) + 16 * k);
	}
	return (off < cap ? off : cap) - s->cut;
}

/* The spec of a good w x h page of bits and spp, min-is-black or RGB. */
static struct tiff_spec
tiff_good(uint32_t w, uint32_t h, uint16_t bits, uint16_t spp, int pages)
{
	return (struct tiff_spec){w, h, bits, spp, spp >= 3 ? 2 : 1, 1, 1,
	    pages, 0};
}

/* Reads every page of the TIFF of s; checks each page's size and first samples. */
static void
check_tiff_pages(const char *name, const struct tiff_spec *s, int from_pipe)
{
	static unsigned char buf[1 << 16];
	size_t len = tiff_make(buf, sizeof(buf), s);
	FILE *f = fmemopen(buf, len, "rb");
	char path[32] = "";
	struct img_reader *r = NULL;
	struct image img = {0};
	struct gf_err e = {0};
	int k = 0, ret = -2, ok = 1;

	if (!from_pipe && f != NULL) {
		fclose(f);
		if ((f = scratch(path)) != NULL &&
		    (fwrite(buf, 1, len, f) != len || fseek(f, 0, SEEK_SET) != 0))
			fclose(f), f = NULL;
	}
	if (f != NULL && img_reader_open(&r, f, "input", &e) == 0) {
		while (ok && (ret = img_read_next(r, &img, &e)) == 1) {
			ok = img.width == (int)s->w && img.height == (int)s->h &&
			    img.channels == s->spp && img_get(&img, 1) ==
			    (unsigned)(1 + 16 * k) * (s->bits == 16 ? 257 : 1);
			k++;
			img_free(&img);
		}
		img_reader_close(r);
	}
	if (f != NULL)
		fclose(f);
	if (path[0])
		remove(path);
	result(name, ok && ret == 0 && k == s->pages, "%d of %d pages, last "
	    "read %d: %s", k, s->pages, ret, e.msg);
}

/* Page k (0-based) of the TIFF of s must be refused with a message containing needle. */
static void
expect_tiff_error_at(const char *name, const struct tiff_spec *s, int k,
    const char *needle)
{
	static unsigned char buf[1 << 16];
	size_t len = tiff_make(buf, sizeof(buf), s);

	expect_error_at(name, buf, len, k, needle);
}


/*
 * TIFF in: the shapes we read, each from a file (mapped) and from a
 * pipe (read whole); three pages as a stream; and the headers we
 * refuse, each with a sentence naming the value.
 */
static void
test_tiff_read(void)
{
	static const uint16_t shapes[][2] = {{8, 1}, {16, 1}, {8, 2}, {16, 2},
	    {8, 3}, {16, 3}, {8, 4}, {16, 4}};
	/* w, h, bits, spp, photometric, planar, format, pages, cut */
	static const struct {
		const char *name;
		struct tiff_spec s;
		int page;
		const char *needle;
	} bad[] = {
		{"tiff_huge_pixel_limit", {100000, 100000, 8, 1, 1, 1, 1, 1, 0}, 0,
		    "more than the limit"},
		{"tiff_side_too_large", {300000, 1, 8, 1, 1, 1, 1, 1, 0}, 0, "262144"},
		{"tiff_12_bits", {4, 4, 12, 1, 1, 1, 1, 1, 0}, 0,
		    "has 12 bits per sample; 8 and 16"},
		{"tiff_float_24_bits", {4, 4, 24, 1, 1, 1, 3, 1, 0}, 0,
		    "floating-point samples of 24 bits; 16, 32 and 64 are read"},
		{"tiff_signed", {4, 4, 16, 1, 1, 1, 2, 1, 0}, 0,
		    "sample format 2 (signed integer)"},
		{"tiff_planar", {4, 4, 8, 3, 2, 2, 1, 1, 0}, 0, "planar configuration 2"},
		{"tiff_cmyk", {4, 4, 8, 4, 5, 1, 1, 1, 0}, 0,
		    "is CMYK (photometric interpretation 5"},
		{"tiff_5_samples", {4, 4, 8, 5, 2, 1, 1, 1, 0}, 0, "5 samples per pixel"},
		{"tiff_truncated_strip", {40, 40, 8, 1, 1, 1, 1, 1, 100}, 0,
		    "strip 1 of 1 is 1600 bytes at offset 158, past the end"},
		/* Refused before page 1 is decoded: every page is weighed first. */
		{"tiff_truncated_second_page", {4, 4, 8, 1, 1, 1, 1, 2, 8}, 0,
		    "TIFF page 2: strip 1 of 1 is 16 bytes at offset 324, past the end"},
	};
	struct tiff_spec s;
	char name[64];

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (int pipe = 0; pipe < 2; pipe++) {
			s = tiff_good(5, 3, shapes[i][0], shapes[i][1], 1);
			snprintf(name, sizeof(name), "tiff_read_%ubit_%uch_%s",
			    shapes[i][0], shapes[i][1], pipe ? "pipe" : "file");
			check_tiff_pages(name, &s, pipe);
		}
	s = tiff_good(7, 2, 8, 3, 3);
	check_tiff_pages("tiff_3_pages_file", &s, 0);
	check_tiff_pages("tiff_3_pages_pipe", &s, 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_tiff_error_at(bad[i].name, &bad[i].s, bad[i].page, bad[i].needle);
	expect_error("tiff_header_only", "II*\0\x08\0\0", 7, "TIFF");
	expect_error("tiff_ifd_past_end", "II*\0\xff\xff\0\0", 8, "TIFF");
}

/* ---- bad inputs */

/* The first n bytes of a file into buf (malloc'd); 0 if it is shorter. */
static size_t
file_head(const char *path, size_t n, unsigned char **buf)
{
	FILE *f = fopen(path, "rb");
	size_t got = 0;

	*buf = malloc(n);
	if (f && *buf)
		got = fread(*buf, 1, n, f);
	if (f)
		fclose(f);
	return got == n ? n : 0;
}

static void
test_bad_header(void)
{
	expect_error("empty_file", "", 0, "empty");
	expect_error_s("truncated_header", "P5\n3 ", "header");
	expect_error_s("truncated_maxval", "P5\n3 2\n", "header");
	expect_error_s("width_0", "P5\n0 2\n255\n", "Width is zero");
	expect_error_s("height_0", "P5\n2 0\n255\n", "Height is zero");
	expect_error_s("negative_width", "P5\n-3 2\n255\n", "header");
	expect_error_s("dimensions_overflow", "P5\n4294967296 4294967296\n255\n", "header");
	expect_error_s("side_too_large", "P5\n262145 1\n255\n", "262144");
	expect_error_s("maxval_0", "P5\n2 2\n0\n", "maxval");
	expect_error_s("maxval_70000", "P5\n2 2\n70000\n", "maxval");
	expect_error_s("pam_depth_5", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 5\nMAXVAL 255\n"
	    "ENDHDR\n12345", "depth 5");
}

/*
 * 262144 x 262144 x 3 x 2 bytes = 412 GB: more than the machine has,
 * refused before any allocation (skipped on a machine with more).
 */
static void
test_too_big(void)
{
	double mem = (double)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);

	if (mem >= 412e9) {
		printf("skip dimensions_exceed_memory: this machine has %.0f bytes\n", mem);
		return;
	}
	expect_error_s("dimensions_exceed_memory", "P6\n262144 262144\n65535\n",
	    "memory");
}

static void
test_bad_data(void)
{
	static const char trunc[] = "P5\n3 2\n255\n\x01\x02\x03\x04";
	static const char trunc16[] = "P5\n2 1\n65535\n\x01\x02\x03";
	static const char above[] = "P5\n2 1\n100\n\x32\xc8";
	static const char above16[] = "P5\n1 1\n1000\n\x03\xe9";
	static const char plain_above[] = "P2\n2 1\n100\n50 101\n";
	static const char plain_trunc[] = "P2\n2 2\n100\n50 10 3\n";
	static const char garbage[] = "P5\n1 1\n255\n\x07xyz";
	static const char garbage_p[] = "P5\n1 1\n255\n\x07Pxyz";
	static const char second_bad[] = "P5\n1 1\n255\n\x07P5\n1 1\n255\n";
	static const unsigned char noise[] = {0x17, 0x9c, 0x03, 0xfe, 0x42, 0x00,
	    0x88, 0x31, 0xd4, 0x5a, 0x66, 0x0b, 0xc1, 0x2f, 0x90, 0x7e};
	unsigned char *png = NULL, *jpg = NULL;
	size_t npng = file_head("samples/chelsea.png", 1000, &png);
	size_t njpg = file_head("samples/small.jpg", 600, &jpg);

	expect_error("truncated_pixels", trunc, sizeof(trunc) - 1, "truncated");
	expect_error("truncated_pixels_16bit", trunc16, sizeof(trunc16) - 1, "truncated");
	expect_error("sample_above_maxval", above, sizeof(above) - 1, "exceeds maxval");
	expect_error("sample_above_maxval_16bit", above16, sizeof(above16) - 1,
	    "exceeds maxval");
	expect_error("plain_sample_above_maxval", plain_above, sizeof(plain_above) - 1,
	    "row 1");
	expect_error("plain_truncated", plain_trunc, sizeof(plain_trunc) - 1, "row 2");
	expect_error("random_bytes", noise, sizeof(noise), "not an image");
	expect_error_at("garbage_after_image", garbage, sizeof(garbage) - 1, 1,
	    "garbage after image 1");
	expect_error_at("garbage_p_after_image", garbage_p, sizeof(garbage_p) - 1, 1,
	    "bad PNM header in image 2");
	expect_error_at("truncated_second_image", second_bad, sizeof(second_bad) - 1, 1,
	    "image 2 is truncated");
	if (npng)
		expect_error("truncated_png", png, npng, "decode");
	else
		result("truncated_png", 0, "cannot read 1000 bytes of samples/chelsea.png");
	if (njpg)
		expect_error("truncated_jpeg", jpg, njpg, "decode");
	else
		result("truncated_jpeg", 0, "cannot read 600 bytes of samples/small.jpg");
	free(png);
	free(jpg);
}

/* ---- limits, escaping, huge output */

/*
 * The pixel limit: a 4 x 4 PGM (16 pixels) is refused under a limit of
 * 15, naming --max-pixels, and read under 16 and under 0 (no limit).
 */
static void
test_max_pixels(void)
{
	static const char pgm[] = "P5\n4 4\n255\n0123456789abcdef";
	static const long long limits[] = {15, 16, 0};
	static const int want[] = {-1, 1, 1};

	for (int i = 0; i < 3; i++) {
		FILE *f = fmemopen((void *)pgm, sizeof(pgm) - 1, "rb");
		struct img_reader *r;
		struct image img = {0};
		struct gf_err e = {0};
		char name[40];
		int got = -2;

		if (f != NULL && img_reader_open(&r, f, "input", &e) == 0) {
			img_reader_set_max_pixels(r, limits[i]);
			got = img_read_next(r, &img, &e);
			img_reader_close(r);
		}
		if (got > 0)
			img_free(&img);
		if (f)
			fclose(f);
		snprintf(name, sizeof(name), "max_pixels_%lld", limits[i]);
		result(name, got == want[i] && (got > 0 || strstr(e.msg,
		    "16 pixels, more than the limit of 15; --max-pixels")),
		    "got %d, message '%s'", got, e.msg);
	}
}

/* gf_escape: printable ASCII kept, the rest as \xNN, a final newline dropped. */
static void
test_escape(void)
{
	char out[64];

	gf_escape(out, sizeof(out), "\x1b[2J chunk\x7f\xff\n");
	result("escape_controls", strcmp(out, "\\x1b[2J chunk\\x7f\\xff") == 0,
	    "got '%s'", out);
	gf_escape(out, sizeof(out), "");
	result("escape_empty", strcmp(out, "no reason given") == 0, "got '%s'", out);
	gf_escape(out, 8, "\x01\x02\x03");
	result("escape_truncated", strcmp(out, "\\x01") == 0, "got '%s'", out);
}

/*
 * A PNG of 262144 x 16385 gray pixels: 4295229440 bytes, past 4 GiB,
 * where stb_image_write's (x*n+1)*y overflowed int.  The pixels are
 * untouched anonymous memory (the kernel's zero page, no RAM) and the
 * output a 64 KiB memory stream: the write must fail only on that full
 * stream, with a well-formed IHDR of the full size already written.
 */
static void
test_png_huge(void)
{
	struct image img = {GF_MAX_DIM, 16385, 1, 255, NULL, 0};
	static unsigned char out[65536];
	struct gf_err e = {0};
	FILE *f = fmemopen(out, sizeof(out), "wb");
	void *px = mmap(NULL, img_bytes(&img), PROT_READ, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	int ret = -2;

	if (px == MAP_FAILED || f == NULL) {
		printf("skip png_huge_write: no 4 GiB mapping or memory stream\n");
		if (f)
			fclose(f);
		return;
	}
	setvbuf(f, NULL, _IONBF, 0);
	img.px = px;
	ret = img_write(f, &img, IMG_FORMAT_PNG, 0, "huge.png", &e);
	fclose(f);
	munmap(px, img_bytes(&img));
	result("png_huge_write", ret == -1 && strstr(e.msg, "cannot write") &&
	    memcmp(out + 12, "IHDR\x00\x04\x00\x00\x00\x00\x40\x01\x08\x00", 14)
	    == 0, "returned %d, message '%s', IHDR %02x%02x%02x%02x x "
	    "%02x%02x%02x%02x", ret, e.msg, out[16], out[17], out[18], out[19],
	    out[20], out[21], out[22], out[23]);
}

/* ---- the pool's properties: caller memory, several threads */

static unsigned char caller_mem[1 << 20];

static void *
caller_get(void *arg, size_t bytes)
{
	(void)arg;
	return bytes <= sizeof(caller_mem) ? caller_mem : NULL;
}

/* Reads path, into caller_mem when mine is set; the image in img. */
static int
load_with(const char *path, int mine, struct image *img, struct gf_err *e)
{
	struct img_buffer b = {caller_get, NULL};
	struct img_reader *r;
	FILE *f = fopen(path, "rb");
	int ret = -1;

	if (f == NULL)
		return gf_fail(e, "cannot open %s", path);
	if (img_reader_open(&r, f, path, e) == 0) {
		if (mine)
			img_reader_set_buffer(r, &b);
		ret = img_read_next(r, img, e);
		img_reader_close(r);
	}
	fclose(f);
	return ret;
}

static const char *const pool_files[] = {"samples/chelsea.png", "samples/small.jpg",
    "samples/coins.pgm"};

/* Every decoder puts its pixels in the caller's memory, the same pixels. */
static void
test_caller_buffer(void)
{
	for (int i = 0; i < 3; i++) {
		struct image a = {0}, b = {0};
		struct gf_err e = {0};
		char name[64];
		int ok = load_with(pool_files[i], 0, &a, &e) == 1 &&
		    load_with(pool_files[i], 1, &b, &e) == 1;

		snprintf(name, sizeof(name), "caller_buffer_%s", strrchr(pool_files[i],
		    '.') + 1);
		result(name, ok && b.px == caller_mem && img_bytes(&a) == img_bytes(&b) &&
		    memcmp(a.px, b.px, img_bytes(&a)) == 0, "%s", ok ? "pixels "
		    "elsewhere or different" : e.msg);
		if (ok)
			img_free(&a);
	}
}

/* One pool thread: decodes each file 4 times, compares with want. */
static void *
pool_thread(void *arg)
{
	struct image *want = arg;
	intptr_t bad = 0;

	for (int k = 0; k < 4; k++)
		for (int i = 0; i < 3; i++) {
			struct image img = {0};
			struct gf_err e;
			if (load_with(pool_files[i], 0, &img, &e) != 1) {
				bad++;
				continue;
			}
			bad += memcmp(img.px, want[i].px, img_bytes(&img)) != 0;
			img_free(&img);
		}
	return (void *)bad;
}

/* Four threads decoding PNG, JPEG and PNM at once get the serial pixels. */
static void
test_threads(void)
{
	struct image want[3] = {{0}};
	struct gf_err e = {0};
	pthread_t t[4];
	intptr_t bad = 0;
	void *ret;

	for (int i = 0; i < 3; i++)
		if (load_with(pool_files[i], 0, &want[i], &e) != 1) {
			result("threads", 0, "%s", e.msg);
			return;
		}
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, pool_thread, want);
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], &ret);
		bad += (intptr_t)ret;
	}
	result("threads_decode_alike", bad == 0, "%ld decodes differ or failed",
	    (long)bad);
	for (int i = 0; i < 3; i++)
		img_free(&want[i]);
}

/* ---- outfile */

/* Number of entries in dir besides . and .. */
static int
dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)) != NULL)
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	if (d)
		closedir(d);
	return d ? n : -1;
}

/* The first line of path, or "" */
static void
file_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f && fgets(buf, (int)len, f) == NULL)
		buf[0] = '\0';
	if (f)
		fclose(f);
}

static void
test_outfile(void)
{
	char dir[] = "/tmp/io_test_dir.XXXXXX", target[64], text[32];
	struct outfile o;
	struct gf_err e = {0};
	FILE *f;
	int ok;

	if (mkdtemp(dir) == NULL) {
		result("outfile_abort", 0, "cannot make a temporary directory");
		return;
	}
	snprintf(target, sizeof(target), "%s/out.pgm", dir);
	f = fopen(target, "w");
	if (f)
		fputs("old\n", f), fclose(f);
	ok = outfile_open(&o, target, &e) == 0;
	if (ok) {
		fputs("new\n", o.f);
		outfile_abort(&o);
	}
	file_text(target, text, sizeof(text));
	result("outfile_abort", ok && strcmp(text, "old\n") == 0 && dir_entries(dir) == 1,
	    "target reads '%s', %d entries in the directory %s", text,
	    dir_entries(dir), e.msg);
	ok = outfile_open(&o, target, &e) == 0;
	ok = ok && fputs("new\n", o.f) >= 0 && outfile_commit(&o, &e) == 0;
	file_text(target, text, sizeof(text));
	result("outfile_commit", ok && strcmp(text, "new\n") == 0 && dir_entries(dir) == 1,
	    "target reads '%s', %d entries in the directory %s", text,
	    dir_entries(dir), e.msg);
	remove(target);
	rmdir(dir);
	snprintf(target, sizeof(target), "%s/no/such/dir/out.pgm", dir);
	e.msg[0] = '\0';
	ok = outfile_open(&o, target, &e);
	result("outfile_missing_dir", ok == -1 && strstr(e.msg, "cannot create") &&
	    strstr(e.msg, target), "returned %d, message '%s'", ok, e.msg);
}

/*
 * A flat w x h page of spp 8-bit samples (all 200) compressed by libtiff
 * with compression, in one strip (its best ratio), is read whole: the
 * bounds tiff_weigh puts on what a strip's bytes can give are not below
 * what a codec does.
 */
static void
check_tiff_flat(const char *name, uint32_t w, uint32_t h, uint16_t spp,
    uint16_t compression)
{
	char path[32];
	FILE *f = scratch(path);
	unsigned char *row = malloc((size_t)w * spp);
	struct image img = {0};
	struct gf_err e = {0};
	TIFF *tif;
	int ok = 0;

	if (f == NULL || row == NULL || (tif = TIFFOpen(path, "w")) == NULL) {
		result(name, 0, "cannot make %s", path);
		goto done;
	}
	memset(row, 200, (size_t)w * spp);
	TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, w);
	TIFFSetField(tif, TIFFTAG_IMAGELENGTH, h);
	TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
	TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, spp);
	TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, spp == 1 ? PHOTOMETRIC_MINISBLACK :
	    PHOTOMETRIC_RGB);
	TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
	TIFFSetField(tif, TIFFTAG_COMPRESSION, compression);
	TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, h);
	if (compression == COMPRESSION_ADOBE_DEFLATE)
		TIFFSetField(tif, TIFFTAG_ZIPQUALITY, 9);
	for (uint32_t y = 0; y < h; y++)
		TIFFWriteScanline(tif, row, y, 0);
	TIFFClose(tif);
	if (img_load(path, &img, &e) == 0) {
		ok = img.width == (int)w && img.height == (int)h &&
		    img.channels == spp;
		for (size_t i = 0; ok && i < img_bytes(&img); i += 4099)
			ok = ((unsigned char *)img.px)[i] >= 199 &&
			    ((unsigned char *)img.px)[i] <= 201;
		img_free(&img);
	}
	result(name, ok, "%s", e.msg[0] ? e.msg : "other pixels");
done:
	if (f != NULL)
		fclose(f), remove(path);
	free(row);
}

static void
test_tiff_flat(void)
{
	check_tiff_flat("tiff_flat_packbits", 2048, 2048, 1, COMPRESSION_PACKBITS);
	check_tiff_flat("tiff_flat_lzw", 2048, 2048, 3, COMPRESSION_LZW);
	check_tiff_flat("tiff_flat_deflate", 4096, 4096, 1,
	    COMPRESSION_ADOBE_DEFLATE);
	check_tiff_flat("tiff_flat_jpeg_gray", 4096, 4096, 1, COMPRESSION_JPEG);
	check_tiff_flat("tiff_flat_jpeg_rgb", 2048, 2048, 3, COMPRESSION_JPEG);
}

/*
 * An image of offset-binary samples (sobel --gradient x, y): TIFF holds
 * them as signed 16-bit samples (SampleFormat 2), v + 32768 written as v;
 * PNM keeps the offset sample as it is; our reader refuses the signed TIFF
 * with a message naming it.
 */
static void
test_tiff_signed(void)
{
	static const unsigned g[] = {0, 1, 32767, 32768, 32769, 65535};
	static const int16_t want[] = {-32768, -32767, -1, 0, 1, 32767};
	struct image a = image_of(3, 2, 1, 65535, g), back = {0};
	char path[64], why[200] = "";
	struct gf_err e = {0};
	uint16_t fmt = 0, bits = 0;
	int16_t row[3];
	TIFF *tif;
	int ok, fd;

	a.offset_binary = 1;
	strcpy(path, "/tmp/io_test.XXXXXX");
	ok = (fd = mkstemp(path)) >= 0 && close(fd) == 0 &&
	    img_save(path, &a, IMG_FORMAT_TIFF, &e) == 0;
	if (ok && (tif = TIFFOpen(path, "r")) != NULL) {
		TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &fmt);
		TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
		for (int y = 0; ok && y < 2; y++) {
			ok = TIFFReadScanline(tif, row, (uint32_t)y, 0) >= 0;
			for (int x = 0; ok && x < 3; x++)
				if (row[x] != want[y * 3 + x]) {
					snprintf(why, sizeof(why), "sample %d is %d, "
					    "expected %d", y * 3 + x, row[x], want[y * 3 + x]);
					ok = 0;
				}
		}
		TIFFClose(tif);
	} else {
		ok = 0;
	}
	result("tiff_signed_int16", ok && fmt == SAMPLEFORMAT_INT && bits == 16,
	    "format %u, %u bits %s %s", fmt, bits, why, e.msg);
	ok = img_load(path, &back, &e) < 0 && strstr(e.msg, "signed") != NULL;
	result("tiff_signed_read_refused", ok, "%s", e.msg);
	unlink(path);
	check_round_trip("pgm_offset_binary_as_is", &a, IMG_FORMAT_PNM, NULL);
	img_free(&a);
}

int
main(void)
{
	test_round_trips();
	test_png_scaled();
	test_png_16bit();
	test_alpha();
	test_orient();
	test_tiff_read();
	test_tiff_flat();
	test_tiff_signed();
	test_jpeg();
	test_stream();
	test_read_not_signed();
	test_pnm_variants();
	test_bad_header();
	test_too_big();
	test_bad_data();
	test_max_pixels();
	test_escape();
	test_png_huge();
	test_caller_buffer();
	test_threads();
	test_outfile();
	return nfail ? 1 : 0;
}
