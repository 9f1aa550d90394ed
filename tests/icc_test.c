/*
 * icc_test - ICC profiles in lib/io (img_icc.c, img_jpeg_icc.c and the
 * formats' readers and writers): the header check and which image a
 * profile fits; every format that holds one, written and read back to
 * the same bytes, and each image of a stream its own; a JPEG's APP2
 * markers, in hundreds of made-up arrangements (out of order, repeated,
 * missing, lying counts, short, other APP2 markers between), joined as
 * libjpeg-turbo's jpeg_read_icc_profile joins them, by the CPU's reader
 * and the GPU path's header parse alike; a PNG iCCP that inflates past
 * the cap, is cut short, has a bad CRC or lies after IDAT; a TIFF whose
 * pages hold different profiles; the library's gf_load_icc and
 * gf_save_icc.  Prints "pass NAME" or "fail NAME: why".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jpeglib.h>
#include <tiffio.h>
#include <zlib.h>

#include "gpufilt.h"
#include "img.h"
#include "img_int.h"
#include "unit.h"

static void
put32(unsigned char *p, unsigned long v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/*
 * A profile libpng takes, of colour space space, n bytes (>= 200, a
 * multiple of 4): one XYZ tag and a private one over the rest, whose
 * bytes follow seed.
 */
static unsigned char *
make_profile(const char *space, size_t n, unsigned seed)
{
	unsigned char *p = calloc(1, n);

	if (p == NULL)
		abort();
	put32(p, n);
	put32(p + 8, 0x04300000);
	memcpy(p + 12, "mntr", 4);
	memcpy(p + 16, space, 4);
	memcpy(p + 20, "XYZ ", 4);
	memcpy(p + 36, "acsp", 4);
	put32(p + 68, 0xf6d6);
	put32(p + 72, 0x10000);
	put32(p + 76, 0xd32d);
	put32(p + 128, 2);
	memcpy(p + 132, "wtpt", 4);
	put32(p + 136, 156);
	put32(p + 140, 20);
	memcpy(p + 144, "gpfP", 4);
	put32(p + 148, 176);
	put32(p + 152, n - 176);
	memcpy(p + 156, "XYZ ", 4);
	for (size_t k = 176; k < n; k++) {
		seed = seed * 1664525u + 1013904223u;
		p[k] = (unsigned char)(seed >> 24);
	}
	return p;
}

static void
test_space(void)
{
	unsigned char *g = make_profile("GRAY", 400, 1), *c = make_profile("RGB ", 400, 2);
	unsigned char *k = make_profile("CMYK", 400, 3);
	unsigned char bad[400];

	result("space_gray", img_icc_space(g, 400) == 1, "not GRAY");
	result("space_rgb", img_icc_space(c, 400) == 3, "not RGB");
	result("space_cmyk", img_icc_space(k, 400) == 0, "CMYK taken");
	result("space_short", img_icc_space(c, 131) == 0 && img_icc_space(NULL, 0) == 0,
	    "a profile shorter than its header taken");
	result("space_length_field", img_icc_space(c, 396) == 0,
	    "a length field that is not the length taken");
	memcpy(bad, c, 400);
	memcpy(bad + 36, "acsq", 4);
	result("space_signature", img_icc_space(bad, 400) == 0, "no 'acsp' taken");
	memcpy(bad, c, 400);
	put32(bad + 152, 400);
	result("space_tag_outside", img_icc_space(bad, 400) == 0, "a tag past the end taken");
	memcpy(bad, c, 400);
	put32(bad + 128, 30);
	result("space_tag_count", img_icc_space(bad, 400) == 0, "a tag table past the end taken");
	memcpy(bad, c, 400);
	memcpy(bad + 12, "link", 4);
	result("space_device_link", img_icc_space(bad, 400) == 0, "a device link taken");
	memcpy(bad, c, 400);
	memcpy(bad + 20, "CMYK", 4);
	result("space_pcs", img_icc_space(bad, 400) == 0, "a PCS of CMYK taken");
	free(g);
	free(c);
	free(k);
}

static void
test_fits(void)
{
	unsigned char *g = make_profile("GRAY", 400, 1), *c = make_profile("RGB ", 400, 2);
	struct img_icc gi = {g, 400, ""}, ci = {c, 400, ""};
	struct image gray = {4, 4, 1, 255, NULL, 0}, ga = {4, 4, 2, 255, NULL, 0};
	struct image rgb = {4, 4, 3, 255, NULL, 0}, rgba = {4, 4, 4, 65535, NULL, 0};
	static const enum img_format held[] = {IMG_FORMAT_PNG, IMG_FORMAT_JPEG,
	    IMG_FORMAT_TIFF};
	int bad = 0;

	for (size_t i = 0; i < sizeof(held) / sizeof(held[0]); i++) {
		bad += !img_icc_fits(&gi, &gray, held[i]) + !img_icc_fits(&gi, &ga, held[i]);
		bad += !img_icc_fits(&ci, &rgb, held[i]) + !img_icc_fits(&ci, &rgba, held[i]);
		bad += img_icc_fits(&ci, &gray, held[i]) + img_icc_fits(&gi, &rgb, held[i]);
	}
	result("fits_space", bad == 0, "%d of the 18 cases wrong", bad);
	result("fits_webp", img_icc_fits(&ci, &rgb, IMG_FORMAT_WEBP) &&
	    !img_icc_fits(&gi, &gray, IMG_FORMAT_WEBP), "WebP takes RGB alone");
	result("fits_pnm", !img_icc_fits(&gi, &gray, IMG_FORMAT_PNM) &&
	    !img_icc_fits(&ci, &rgb, IMG_FORMAT_PPM) &&
	    !img_icc_fits(&ci, &rgb, IMG_FORMAT_PAM) &&
	    !img_icc_fits(&ci, &rgb, IMG_FORMAT_AUTO), "PNM holds none");
	result("fits_none", !img_icc_fits(NULL, &rgb, IMG_FORMAT_PNG), "NULL fits");
	free(g);
	free(c);
}

/* img with icc (NULL: none) as fmt, into *buf (malloc'd, *len bytes). */
static int
write_mem(const struct image *img, enum img_format fmt, const struct img_icc *icc,
    char **buf, size_t *len, struct gf_err *e)
{
	FILE *f = open_memstream(buf, len);
	int ret;

	if (f == NULL)
		abort();
	ret = img_write_icc(f, img, fmt, 0, icc, "memory", e);
	fclose(f);
	return ret;
}

/*
 * The images of the n bytes at p, read in turn (at most 4): their
 * count, the profile of each into icc[] (and with bits, the GPU path's
 * header parse of the first, which must agree).  -1 on a read error.
 */
static int
read_mem(const void *p, size_t n, struct img_icc *icc, struct gf_err *e)
{
	FILE *f = fmemopen((void *)p, n, "rb");
	struct img_reader *r;
	struct image img;
	int k = 0, got;

	if (f == NULL || img_reader_open(&r, f, "memory", e) < 0)
		abort();
	while (k < 4 && (got = img_read_next(r, &img, e)) > 0) {
		img_reader_take_icc(r, &icc[k++]);
		img_free(&img);
	}
	img_reader_close(r);
	fclose(f);
	return got < 0 ? -1 : k;
}

static int
same_icc(const struct img_icc *a, const unsigned char *p, size_t n)
{
	return a->len == n && (n == 0 || memcmp(a->p, p, n) == 0);
}

static void
test_round_trips(void)
{
	static const struct {
		enum img_format fmt;
		const char *name;
		int ch;
		unsigned maxval;
	} c[] = {
		{IMG_FORMAT_PNG, "png_gray", 1, 255}, {IMG_FORMAT_PNG, "png_rgba16", 4, 65535},
		{IMG_FORMAT_JPEG, "jpeg_gray", 1, 255}, {IMG_FORMAT_JPEG, "jpeg_rgb", 3, 255},
		{IMG_FORMAT_TIFF, "tiff_gray16", 1, 65535}, {IMG_FORMAT_TIFF, "tiff_rgb", 3, 255},
		{IMG_FORMAT_WEBP, "webp_rgb", 3, 255}, {IMG_FORMAT_WEBP, "webp_rgba", 4, 255},
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		/* 150000 bytes: three APP2 markers in a JPEG. */
		size_t n = 150000;
		unsigned char *p = make_profile(c[i].ch >= 3 ? "RGB " : "GRAY", n, (unsigned)i);
		struct img_icc in = {p, n, "a name"}, out[4] = {{0}};
		struct image img = image_noise(37, 23, c[i].ch, c[i].maxval, c[i].maxval, 9);
		struct gf_err e = {0};
		char name[64], *buf = NULL;
		size_t len = 0;
		int k = write_mem(&img, c[i].fmt, &in, &buf, &len, &e) < 0 ? -1 :
		    read_mem(buf, len, out, &e);

		snprintf(name, sizeof(name), "round_trip_%s", c[i].name);
		result(name, k == 1 && same_icc(&out[0], p, n), "%s", k < 0 ? e.msg :
		    "another profile came back");
		snprintf(name, sizeof(name), "round_trip_%s_name", c[i].name);
		if (c[i].fmt == IMG_FORMAT_PNG)
			result(name, k == 1 && strcmp(out[0].name, "a name") == 0,
			    "name '%s'", out[0].name);
		img_icc_free(&out[0]);
		free(buf);
		img_free(&img);
		free(p);
	}
}

/*
 * A stream of PNG, JPEG and WebP images, the second of each kind without
 * a profile: each image comes with its own, none after one that had one.
 */
static void
test_stream(void)
{
	static const enum img_format fmts[] = {IMG_FORMAT_PNG, IMG_FORMAT_JPEG,
	    IMG_FORMAT_WEBP};
	unsigned char *a = make_profile("RGB ", 1000, 5), *b = make_profile("RGB ", 2000, 6);
	struct img_icc ia = {a, 1000, ""}, ib = {b, 2000, ""}, out[4] = {{0}};
	const struct img_icc *seq[3] = {&ia, NULL, &ib};
	struct image img = image_noise(16, 8, 3, 255, 255, 3);
	struct gf_err e = {0};

	for (size_t f = 0; f < 3; f++) {
		char *all = NULL, *one, name[64];
		size_t alen = 0, len;
		FILE *s = open_memstream(&all, &alen);
		int k;

		for (int i = 0; i < 3; i++) {
			one = NULL;
			if (write_mem(&img, fmts[f], seq[i], &one, &len, &e) < 0)
				abort();
			fwrite(one, 1, len, s);
			free(one);
		}
		fclose(s);
		k = read_mem(all, alen, out, &e);
		snprintf(name, sizeof(name), "stream_%s", img_format_name(fmts[f]));
		result(name, k == 3 && same_icc(&out[0], a, 1000) && out[1].len == 0 &&
		    same_icc(&out[2], b, 2000), "%d images: profiles of %zu, %zu, %zu bytes%s%s",
		    k, out[0].len, out[1].len, out[2].len, k < 0 ? ": " : "", k < 0 ? e.msg : "");
		for (int i = 0; i < 4; i++)
			img_icc_free(&out[i]);
		free(all);
	}
	img_free(&img);
	free(a);
	free(b);
}

/* ---- JPEG markers against libjpeg-turbo */

/* libjpeg-turbo's own reading of the JPEG of n bytes at p: 1 with *icc, or 0. */
static void
quiet(j_common_ptr ci)
{
	(void)ci;
}

static int
libjpeg_icc(const unsigned char *p, size_t n, struct img_icc *icc)
{
	struct jpeg_decompress_struct ci;
	struct jpeg_error_mgr err;
	JOCTET *d = NULL;
	unsigned len = 0;
	int ok;

	ci.err = jpeg_std_error(&err);
	err.output_message = quiet;
	jpeg_create_decompress(&ci);
	jpeg_mem_src(&ci, p, (unsigned long)n);
	jpeg_save_markers(&ci, JPEG_APP0 + 2, 0xffff);
	jpeg_read_header(&ci, TRUE);
	ok = jpeg_read_icc_profile(&ci, &d, &len);
	jpeg_destroy_decompress(&ci);
	icc->p = ok ? d : NULL;
	icc->len = ok ? len : 0;
	return ok;
}

/*
 * The JPEG of jlen bytes at jpg (SOI first) with up to 8 APP2 markers
 * after SOI, chosen by seed: half the time a whole set (numbers 1 to its
 * count, in any order) that one change in four spoils (a number
 * repeated in another's place or besides, above the count in another's
 * place or besides, made 0, a count changed); else ICC ones of random
 * numbers and counts (mostly 1-4, at times 0 or 255); random lengths (0
 * to 300 bytes of data, a few cut below the 14 of their header), and an
 * "MPF" one at times.  Into *out (malloc'd, *olen bytes).
 */
static void
splice_markers(const unsigned char *jpg, size_t jlen, uint32_t *seed,
    unsigned char **out, size_t *olen)
{
	size_t cap = jlen + 8 * (4 + 14 + 300), n = 2;
	unsigned char *o = calloc(1, cap);
	uint32_t s = *seed;
	int markers;

#define RND(m) ((s = s * 1664525u + 1013904223u), (s >> 8) % (m))
	if (o == NULL)
		abort();
	unsigned seqs[8], counts[8], whole = RND(2), spoil = RND(4) == 0;

	memcpy(o, jpg, 2);
	markers = whole ? 1 + (int)RND(4) : (int)RND(9);
	for (int k = 0; k < markers; k++) {
		unsigned j = (unsigned)RND((unsigned)k + 1);
		seqs[k] = seqs[j];      /* a random order of 1..markers */
		seqs[j] = (unsigned)k + 1;
		counts[k] = (unsigned)markers;
	}
	if (whole && spoil) {
		unsigned at = (unsigned)RND((unsigned)markers), how = (unsigned)RND(6);
		if (how == 0)
			seqs[at] = seqs[(at + 1) % markers];
		else if (how >= 4) {    /* one number twice, or one past the count */
			seqs[markers] = how == 4 ? seqs[at] : (unsigned)markers + 1;
			counts[markers] = counts[at];
			markers++;
		}
		else if (how == 1)
			seqs[at] = (unsigned)markers + 1;
		else if (how == 2)
			seqs[at] = 0;
		else
			counts[at] = (unsigned)markers + 1;
	}
	for (int k = 0; k < markers; k++) {
		size_t len = RND(301);
		int kind = whole ? 2 + (int)RND(40) : (int)RND(20);
		unsigned char *m = o + n;
		m[0] = 0xff;
		m[1] = 0xe2;
		if (kind == 0) {                /* another APP2 */
			memcpy(m + 4, "MPF\0", 4);
			len = 4 + len;
		} else if (kind == 1) {         /* an ICC header cut short */
			memcpy(m + 4, "ICC_PROFILE\0", 12);
			len = RND(14);
		} else {
			memcpy(m + 4, "ICC_PROFILE\0", 12);
			m[16] = (unsigned char)(whole ? seqs[k] : RND(10) == 0 ? RND(256) :
			    RND(5));
			m[17] = (unsigned char)(whole ? counts[k] : RND(10) == 0 ? RND(256) :
			    1 + RND(4));
			if (whole && kind == 2)
				len = 0;        /* an empty part */
			for (size_t i = 0; i < len; i++)
				m[18 + i] = (unsigned char)RND(256);
			len += 14;
		}
		m[2] = (unsigned char)((len + 2) >> 8);
		m[3] = (unsigned char)(len + 2);
		n += 4 + len;
	}
#undef RND
	memcpy(o + n, jpg + 2, jlen - 2);
	*olen = n + jlen - 2;
	*out = o;
	*seed = s;
}

static void
test_jpeg_markers(void)
{
	struct image img = image_noise(24, 16, 3, 255, 255, 11);
	struct gf_err e = {0};
	char *jpg = NULL, *err = NULL;
	size_t jlen = 0;
	uint32_t seed = 12345;
	int differ = 0, some = 0, none = 0, bits_differ = 0, failed = 0;
	char path[] = "/tmp/icc_test.XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0 || write_mem(&img, IMG_FORMAT_JPEG, NULL, &jpg, &jlen, &e) < 0)
		abort();
	for (int t = 0; t < 600; t++) {
		unsigned char *p;
		size_t n;
		struct img_icc want = {0}, got[4] = {{0}}, bits = {0};
		struct img_bits_opts o = {0, 1, 1, {NULL, NULL}, &bits};
		struct img_jpeg_bits b;
		FILE *f;

		splice_markers((unsigned char *)jpg, jlen, &seed, &p, &n);
		libjpeg_icc(p, n, &want);
		if (read_mem(p, n, got, &e) != 1) {
			failed++;
			free(err);
			err = strdup(e.msg);
		}
		if (!same_icc(&got[0], want.p, want.len))
			differ++;
		/* The GPU path's header parse, of the same bytes as a file. */
		if (ftruncate(fd, 0) < 0 || pwrite(fd, p, n, 0) != (ssize_t)n ||
		    (f = fdopen(dup(fd), "rb")) == NULL)
			abort();
		if (img_jpeg_bits_read(f, path, &o, &b, &e) == 1) {
			free(b.p);
			bits_differ += !same_icc(&bits, want.p, want.len);
		} else {
			bits_differ++;
		}
		fclose(f);
		some += want.len > 0;
		none += want.len == 0;
		img_icc_free(&want);
		img_icc_free(&got[0]);
		img_icc_free(&bits);
		free(p);
	}
	result("jpeg_markers_read", failed == 0, "%d of 600 failed to read: %s", failed,
	    err);
	result("jpeg_markers_as_libjpeg", differ == 0 && some > 100 && none > 100,
	    "%d of 600 differ from jpeg_read_icc_profile (%d with a profile, %d "
	    "without)", differ, some, none);
	result("jpeg_markers_bits_path", bits_differ == 0,
	    "%d of 600 differ on the GPU path's parse", bits_differ);
	close(fd);
	unlink(path);
	free(err);
	free(jpg);
	img_free(&img);
}

/* ---- PNG's iCCP */

/*
 * The PNG png (len bytes) with an iCCP chunk of name and the zlib
 * stream z (zlen bytes) inserted after IHDR (after IDAT with late), its
 * CRC broken with badcrc.  Into *out, *olen bytes.
 */
static void
png_with_iccp(const unsigned char *png, size_t len, const char *name,
    const unsigned char *z, size_t zlen, int late, int badcrc,
    unsigned char **out, size_t *olen)
{
	size_t nlen = strlen(name), clen = nlen + 2 + zlen, at = 33, n;
	unsigned char *o = malloc(len + 12 + clen), *c;

	if (o == NULL)
		abort();
	if (late) {         /* past the first IDAT */
		while (memcmp(png + at + 4, "IDAT", 4) != 0)
			at += 12 + ((size_t)png[at] << 24 | (size_t)png[at + 1] << 16 |
			    (size_t)png[at + 2] << 8 | png[at + 3]);
		at += 12 + ((size_t)png[at] << 24 | (size_t)png[at + 1] << 16 |
		    (size_t)png[at + 2] << 8 | png[at + 3]);
	}
	memcpy(o, png, at);
	n = at;
	put32(o + n, clen);
	memcpy(o + n + 4, "iCCP", 4);
	c = o + n + 8;
	memcpy(c, name, nlen + 1);
	c[nlen + 1] = 0;
	memcpy(c + nlen + 2, z, zlen);
	put32(c + clen, crc32(0, o + n + 4, (uInt)(4 + clen)) ^ (badcrc ? 1 : 0));
	n += 12 + clen;
	memcpy(o + n, png + at, len - at);
	*olen = n + len - at;
	*out = o;
}

/* Reads the PNG of n bytes at p: 1 when it reads, with *icc. */
static int
png_icc_of(const unsigned char *p, size_t n, struct img_icc *icc, struct gf_err *e)
{
	struct img_icc got[4] = {{0}};
	int k = read_mem(p, n, got, e);

	*icc = got[0];
	return k == 1;
}

static void
test_png(void)
{
	struct image img = image_noise(20, 10, 3, 255, 255, 4);
	struct gf_err e = {0};
	char *png = NULL;
	size_t plen = 0, big = IMG_ICC_MAX + 4096, n, zlen;
	unsigned char *prof = make_profile("RGB ", 5000, 8), *bomb, *z, *p;
	struct img_icc icc;
	uLongf zl;
	int ok;

	if (write_mem(&img, IMG_FORMAT_PNG, NULL, &png, &plen, &e) < 0)
		abort();
	zl = compressBound(big);
	z = malloc(zl);
	bomb = make_profile("RGB ", 1024, 1);
	bomb = realloc(bomb, big);
	memset(bomb + 1024, 0, big - 1024);
	put32(bomb, big);
	put32(bomb + 152, big - 176);
	if (z == NULL || bomb == NULL || compress2(z, &zl, bomb, big, 9) != Z_OK)
		abort();
	png_with_iccp((unsigned char *)png, plen, "bomb", z, zl, 0, 0, &p, &n);
	ok = png_icc_of(p, n, &icc, &e);
	result("png_bomb", ok && icc.len == 0 && zl < 100000,
	    "%s; a profile of %zu bytes from %lu", ok ? "read" : e.msg, icc.len,
	    (unsigned long)zl);
	img_icc_free(&icc);
	free(p);

	zl = compressBound(5000);
	if (compress2(z, &zl, prof, 5000, 9) != Z_OK)
		abort();
	zlen = zl;
	png_with_iccp((unsigned char *)png, plen, "ok", z, zlen, 0, 0, &p, &n);
	ok = png_icc_of(p, n, &icc, &e);
	result("png_iccp", ok && same_icc(&icc, prof, 5000) && strcmp(icc.name, "ok") == 0,
	    "%s; %zu bytes, name '%s'", ok ? "read" : e.msg, icc.len, icc.name);
	img_icc_free(&icc);
	free(p);

	{       /* a profile's header that claims less than the stream holds */
		unsigned char *more = calloc(1, 6000), *zm = malloc(compressBound(6000));
		uLongf zml = compressBound(6000);
		if (more == NULL || zm == NULL)
			abort();
		memcpy(more, prof, 5000);
		if (compress2(zm, &zml, more, 6000, 9) != Z_OK)
			abort();
		png_with_iccp((unsigned char *)png, plen, "more", zm, zml, 0, 0, &p, &n);
		ok = png_icc_of(p, n, &icc, &e);
		result("png_iccp_longer_than_claimed", ok && icc.len == 0, "%s; %zu bytes",
		    ok ? "read" : e.msg, icc.len);
		img_icc_free(&icc);
		free(p);
		free(more);
		free(zm);
	}

	png_with_iccp((unsigned char *)png, plen, "cut", z, zlen - 9, 0, 0, &p, &n);
	ok = png_icc_of(p, n, &icc, &e);
	result("png_iccp_cut", ok && icc.len == 0, "%s; %zu bytes", ok ? "read" : e.msg,
	    icc.len);
	img_icc_free(&icc);
	free(p);

	png_with_iccp((unsigned char *)png, plen, "crc", z, zlen, 0, 1, &p, &n);
	ok = png_icc_of(p, n, &icc, &e);
	result("png_iccp_bad_crc", ok && icc.len == 0, "%s; %zu bytes", ok ? "read" :
	    e.msg, icc.len);
	img_icc_free(&icc);
	free(p);

	png_with_iccp((unsigned char *)png, plen, "late", z, zlen, 1, 0, &p, &n);
	ok = png_icc_of(p, n, &icc, &e);
	result("png_iccp_after_idat", ok && icc.len == 0, "%s; %zu bytes", ok ? "read" :
	    e.msg, icc.len);
	img_icc_free(&icc);
	free(p);

	png_with_iccp((unsigned char *)png, plen, "two  spaces", z, zlen, 0, 0, &p, &n);
	ok = png_icc_of(p, n, &icc, &e);
	result("png_iccp_odd_name", ok && same_icc(&icc, prof, 5000) && icc.name[0] == '\0',
	    "%s; %zu bytes, name '%s'", ok ? "read" : e.msg, icc.len, icc.name);
	img_icc_free(&icc);
	free(p);

	free(z);
	free(bomb);
	free(prof);
	free(png);
	img_free(&img);
}

/* A TIFF of three pages: profiles a, none, b; each page comes with its own. */
static void
test_tiff_pages(void)
{
	char path[] = "/tmp/icc_test.XXXXXX";
	int fd = mkstemp(path);
	unsigned char *a = make_profile("GRAY", 800, 1), *b = make_profile("GRAY", 1200, 2);
	const unsigned char *prof[3] = {a, NULL, b};
	const uint32_t plen[3] = {800, 0, 1200};
	unsigned char row[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	struct img_icc got[4] = {{0}};
	struct gf_err e = {0};
	TIFF *t;
	size_t n;
	char *buf;
	FILE *f;
	int k;

	if (fd < 0 || (t = TIFFOpen(path, "w")) == NULL)
		abort();
	for (int i = 0; i < 3; i++) {
		TIFFSetField(t, TIFFTAG_IMAGEWIDTH, 8);
		TIFFSetField(t, TIFFTAG_IMAGELENGTH, 1);
		TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 8);
		TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
		TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
		TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 1);
		if (prof[i] != NULL)
			TIFFSetField(t, TIFFTAG_ICCPROFILE, plen[i], prof[i]);
		TIFFWriteScanline(t, row, 0, 0);
		TIFFWriteDirectory(t);
	}
	TIFFClose(t);
	f = fdopen(fd, "rb");
	fseek(f, 0, SEEK_END);
	n = (size_t)ftell(f);
	rewind(f);
	buf = malloc(n);
	if (buf == NULL || fread(buf, 1, n, f) != n)
		abort();
	fclose(f);
	unlink(path);
	k = read_mem(buf, n, got, &e);
	result("tiff_pages", k == 3 && same_icc(&got[0], a, 800) && got[1].len == 0 &&
	    same_icc(&got[2], b, 1200), "%d pages: %zu, %zu, %zu bytes%s", k, got[0].len,
	    got[1].len, got[2].len, k < 0 ? e.msg : "");
	for (int i = 0; i < 4; i++)
		img_icc_free(&got[i]);
	free(buf);
	free(a);
	free(b);
}

/* gf_save_icc and gf_load_icc: the profile where it fits, and only there. */
static void
test_api(void)
{
	unsigned char *c = make_profile("RGB ", 4000, 7), px[4 * 3 * 3];
	char path[] = "/tmp/icc_test_api.XXXXXX", png[64];
	gf_image rgb = {4, 3, 3, 255, 0, px, 0}, gray = {4, 3, 1, 255, 0, px, 0}, in;
	gf_error err;
	void *icc = (void *)1;
	size_t n = 1;
	int fd = mkstemp(path), rc;

	if (fd < 0)
		abort();
	close(fd);
	unlink(path);
	snprintf(png, sizeof(png), "%s.png", path);
	for (size_t i = 0; i < sizeof(px); i++)
		px[i] = (unsigned char)(i * 13);
	rc = gf_save_icc(png, &rgb, c, 4000, &err);
	if (rc == GF_OK)
		rc = gf_load_icc(png, &in, GF_LOAD_GRAY, &icc, &n, &err);
	result("api_round_trip", rc == GF_OK && n == 4000 && icc != NULL &&
	    memcmp(icc, c, n) == 0 && in.channels == 1, "%s; %zu bytes",
	    rc ? err.message : "", n);
	if (rc == GF_OK)
		gf_image_free(&in);
	free(icc);
	rc = gf_save_icc(png, &gray, c, 4000, &err);
	if (rc == GF_OK)
		rc = gf_load_icc(png, &in, 0, &icc, &n, &err);
	result("api_gray_drops_rgb", rc == GF_OK && n == 0 && icc == NULL, "%s; %zu bytes",
	    rc ? err.message : "", n);
	if (rc == GF_OK)
		gf_image_free(&in);
	result("api_half_asked", gf_load_icc(png, &in, 0, &icc, NULL, &err) == GF_EINVAL,
	    "gf_load_icc took icc without icc_len");
	unlink(png);
	free(c);
}

int
main(void)
{
	test_space();
	test_fits();
	test_round_trips();
	test_stream();
	test_jpeg_markers();
	test_png();
	test_tiff_pages();
	test_api();
	return nfail != 0;
}
