/*
 * iccmake - ICC profiles for tests/t_icc.sh, with nothing but the
 * libraries: no profile ships with the system here, and ImageMagick is
 * not installed.
 *
 *   iccmake profile gray|rgb|cmyk [BYTES [zero]]
 *                                           a valid profile to stdout
 *   iccmake embed IN PROFILE OUT            IN with PROFILE, written as
 *                                           OUT's extension says
 *   iccmake extract FILE                    FILE's profile to stdout
 *   iccmake name FILE                       a PNG's iCCP name to stdout
 *   iccmake jpeg IN.jpg PROFILE OUT.jpg SPEC
 *                                           IN with PROFILE split into
 *                                           APP2 markers as SPEC says
 *   iccmake png IN.png PROFILE OUT.png [NAME]
 *                                           IN with an iCCP chunk of
 *                                           PROFILE (name NAME) after
 *                                           IHDR, deflated by zlib
 *
 * A profile is libpng's idea of valid (header, 'acsp', a tag table inside
 * it): a version 4.3 display profile of D50 white point and curves,
 * padded with a private tag to BYTES (rounded up to 4) when asked, of
 * zeros with "zero" (a profile that deflates to next to nothing).
 * extract reads with the reference libraries, not gpufilt's readers:
 * libjpeg-turbo's jpeg_read_icc_profile, libpng's png_get_iCCP,
 * libtiff's tag, libwebpdemux's ICCP chunk; exit 1 with "none" on
 * stderr when the file has no profile.  SPEC is the markers in file
 * order, "SEQ/COUNT" each, comma-separated ("1/3,3/3,2/3"): the profile
 * is cut into as many equal parts as SPEC has markers (the last takes
 * the rest), the marker of number SEQ holding part SEQ (the k-th marker
 * the k-th part where SEQ is none of them), so that markers out of order
 * join into the profile, and a SPEC that lies (a repeated or missing
 * number, counts that differ) makes a file libjpeg-turbo gives no
 * profile for.  embed writes with gpufilt's writers (img_write_icc).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <png.h>
#include <tiffio.h>
#include <webp/demux.h>
#include <zlib.h>

#include "img.h"

static void
be32(unsigned char *p, unsigned long v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* A profile of colour space space ("GRAY", "RGB ", "CMYK"), len >= its minimum. */
static unsigned char *
profile(const char *space, size_t want, int zero, size_t *len)
{
	static const char *gray[] = {"wtpt", "kTRC"};
	static const char *rgb[] = {"wtpt", "rXYZ", "gXYZ", "bXYZ", "rTRC",
	    "gTRC", "bTRC"};
	const char **tags = strcmp(space, "GRAY") == 0 ? gray : rgb;
	size_t ntags = strcmp(space, "GRAY") == 0 ? 2 : 7, n, at;
	unsigned char *p;

	n = 132 + 12 * (ntags + 1) + 20 + 12;       /* a wtpt/XYZ and one curve, shared */
	if (want > n)
		n = (want + 3) & ~(size_t)3;
	if ((p = calloc(1, n)) == NULL)
		exit(2);
	be32(p, n);
	memcpy(p + 4, "gpft", 4);
	be32(p + 8, 0x04300000);
	memcpy(p + 12, "mntr", 4);
	memcpy(p + 16, space, 4);
	memcpy(p + 20, "XYZ ", 4);
	p[24] = 0x07, p[25] = 0xea;                 /* 2026-11-27 */
	p[27] = 11, p[29] = 27;
	memcpy(p + 36, "acsp", 4);
	be32(p + 68, 0x0000f6d6);                   /* D50 */
	be32(p + 72, 0x00010000);
	be32(p + 76, 0x0000d32d);
	memcpy(p + 80, "gpft", 4);
	be32(p + 128, ntags + 1);
	at = 132 + 12 * (ntags + 1);
	/* The XYZ tag at at (20 bytes), the curve at at + 20 (12 bytes). */
	memcpy(p + at, "XYZ ", 4);
	be32(p + at + 8, 0x0000f6d6);
	be32(p + at + 12, 0x00010000);
	be32(p + at + 16, 0x0000d32d);
	memcpy(p + at + 20, "curv", 4);
	for (size_t k = 0; k < ntags; k++) {
		unsigned char *t = p + 132 + 12 * k;
		int curve = tags[k][1] == 'T' || tags[k][0] == 'k';
		memcpy(t, tags[k], 4);
		be32(t + 4, curve ? at + 20 : at);
		be32(t + 8, curve ? 12 : 20);
	}
	/* The private tag: the rest, its bytes a pattern that shows a shift. */
	memcpy(p + 132 + 12 * ntags, "gpfP", 4);
	be32(p + 132 + 12 * ntags + 4, at + 32);
	be32(p + 132 + 12 * ntags + 8, n - at - 32);
	for (size_t k = at + 32; k < n && !zero; k++)
		p[k] = (unsigned char)(k * 7 + k / 251);
	*len = n;
	return p;
}

static unsigned char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = NULL;
	size_t cap = 0, n = 0, got;

	if (f == NULL) {
		perror(path);
		exit(2);
	}
	do {
		if (n == cap && (p = realloc(p, cap = cap ? 2 * cap : 65536)) == NULL)
			exit(2);
		got = fread(p + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	*len = n;
	return p;
}

static int
put(const unsigned char *p, size_t n)
{
	return fwrite(p, 1, n, stdout) == n && fflush(stdout) == 0 ? 0 : 2;
}

static int
none(void)
{
	fprintf(stderr, "none\n");
	return 1;
}

static int
extract_jpeg(FILE *f)
{
	struct jpeg_decompress_struct ci;
	struct jpeg_error_mgr err;
	JOCTET *p = NULL;
	unsigned n = 0;
	int rc;

	ci.err = jpeg_std_error(&err);
	jpeg_create_decompress(&ci);
	jpeg_stdio_src(&ci, f);
	jpeg_save_markers(&ci, JPEG_APP0 + 2, 0xffff);
	jpeg_read_header(&ci, TRUE);
	rc = jpeg_read_icc_profile(&ci, &p, &n) ? put(p, n) : none();
	free(p);
	jpeg_destroy_decompress(&ci);
	return rc;
}

static int
extract_png(FILE *f, int name)
{
	png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL,
	    NULL, NULL);
	png_infop info = png_create_info_struct(png);
	png_charp nm;
	png_bytep p;
	png_uint_32 n;
	int type, rc;

	png_init_io(png, f);
	png_read_info(png, info);
	if (!png_get_iCCP(png, info, &nm, &type, &p, &n))
		rc = none();
	else
		rc = name ? put((unsigned char *)nm, strlen(nm)) : put(p, n);
	png_destroy_read_struct(&png, &info, NULL);
	return rc;
}

static int
extract_tiff(const char *path)
{
	TIFF *t = TIFFOpen(path, "r");
	uint32_t n;
	void *p;
	int rc;

	if (t == NULL)
		return 2;
	rc = TIFFGetField(t, TIFFTAG_ICCPROFILE, &n, &p) ? put(p, n) : none();
	TIFFClose(t);
	return rc;
}

static int
extract_webp(const unsigned char *b, size_t len)
{
	WebPData data = {b, len};
	WebPDemuxer *d = WebPDemux(&data);
	WebPChunkIterator it;
	int rc;

	if (d == NULL)
		return 2;
	if (WebPDemuxGetChunk(d, "ICCP", 1, &it)) {
		rc = put(it.chunk.bytes, it.chunk.size);
		WebPDemuxReleaseChunkIterator(&it);
	} else {
		rc = none();
	}
	WebPDemuxDelete(d);
	return rc;
}

static int
extract(const char *path, int name)
{
	size_t len;
	unsigned char *b = slurp(path, &len);
	FILE *f = fopen(path, "rb");
	int rc = 2;

	if (len >= 3 && b[0] == 0xff && b[1] == 0xd8)
		rc = extract_jpeg(f);
	else if (len >= 8 && memcmp(b, "\x89PNG", 4) == 0)
		rc = extract_png(f, name);
	else if (len >= 4 && (memcmp(b, "II*", 3) == 0 || memcmp(b, "MM", 2) == 0))
		rc = extract_tiff(path);
	else if (len >= 12 && memcmp(b + 8, "WEBP", 4) == 0)
		rc = extract_webp(b, len);
	else
		fprintf(stderr, "%s: no format iccmake reads\n", path);
	fclose(f);
	free(b);
	return rc;
}

static int
embed(const char *in, const char *prof, const char *out)
{
	struct image img = {0};
	struct gf_err e = {0};
	struct img_icc icc = {0};
	FILE *f;
	int rc;

	icc.p = slurp(prof, &icc.len);
	if (img_load(in, &img, &e) < 0 || (f = fopen(out, "wb")) == NULL) {
		fprintf(stderr, "iccmake: %s\n", e.msg[0] ? e.msg : out);
		return 2;
	}
	rc = img_write_icc(f, &img, img_format_for(out, IMG_FORMAT_AUTO), 0,
	    &icc, out, &e);
	if (fclose(f) != 0 || rc < 0) {
		fprintf(stderr, "iccmake: %s\n", e.msg);
		return 2;
	}
	img_free(&img);
	free(icc.p);
	return 0;
}

/* IN with the profile in APP2 markers as spec says, right after SOI. */
static int
jpeg_split(const char *in, const char *prof, const char *out, const char *spec)
{
	size_t len, plen, nparts = 1, q;
	unsigned char *b = slurp(in, &len), *p = slurp(prof, &plen);
	FILE *f = fopen(out, "wb");
	const char *s;

	for (s = spec; *s != '\0'; s++)
		nparts += *s == ',';
	if (f == NULL || len < 2)
		return 2;
	fwrite(b, 1, 2, f);
	s = spec;
	q = plen / nparts;
	for (size_t k = 0; k < nparts; k++) {
		unsigned seq = 0, count = 0;
		size_t at, part, i;
		unsigned char head[4 + 14];
		int ok = sscanf(s, "%u/%u", &seq, &count) == 2;
		i = seq >= 1 && seq <= nparts ? seq - 1 : k;
		at = i * q;
		part = i + 1 < nparts ? q : plen - at;
		if (!ok || part > 65519) {
			fprintf(stderr, "iccmake: bad spec %s\n", spec);
			return 2;
		}
		head[0] = 0xff, head[1] = 0xe2;
		head[2] = (unsigned char)((part + 16) >> 8);
		head[3] = (unsigned char)(part + 16);
		memcpy(head + 4, "ICC_PROFILE", 12);
		head[16] = (unsigned char)seq, head[17] = (unsigned char)count;
		fwrite(head, 1, sizeof(head), f);
		fwrite(p + at, 1, part, f);
		if ((s = strchr(s, ',')) != NULL)
			s++;
	}
	fwrite(b + 2, 1, len - 2, f);
	free(b);
	free(p);
	return fclose(f) == 0 ? 0 : 2;
}

/* IN with an iCCP chunk of the profile, named name, right after IHDR. */
static int
png_iccp(const char *in, const char *prof, const char *out, const char *name)
{
	size_t len, plen, nlen = strlen(name);
	unsigned char *b = slurp(in, &len), *p = slurp(prof, &plen), *c, hd[8];
	uLongf zlen = compressBound(plen);
	FILE *f = fopen(out, "wb");
	uLong crc;

	if (f == NULL || len < 33 || (c = malloc(nlen + 2 + zlen)) == NULL)
		return 2;
	memcpy(c, name, nlen + 1);
	c[nlen + 1] = 0;
	if (compress2(c + nlen + 2, &zlen, p, plen, 9) != Z_OK)
		return 2;
	fwrite(b, 1, 33, f);                        /* signature, IHDR */
	be32(hd, nlen + 2 + zlen);
	memcpy(hd + 4, "iCCP", 4);
	fwrite(hd, 1, 8, f);
	fwrite(c, 1, nlen + 2 + zlen, f);
	crc = crc32(crc32(0, hd + 4, 4), c, (uInt)(nlen + 2 + zlen));
	be32(hd, crc);
	fwrite(hd, 1, 4, f);
	fwrite(b + 33, 1, len - 33, f);
	free(b);
	free(p);
	free(c);
	return fclose(f) == 0 ? 0 : 2;
}

int
main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "profile") == 0) {
		const char *sp = strcmp(argv[2], "gray") == 0 ? "GRAY" :
		    strcmp(argv[2], "cmyk") == 0 ? "CMYK" : "RGB ";
		size_t n;
		unsigned char *p = profile(sp, argc > 3 ? strtoul(argv[3], NULL,
		    10) : 0, argc > 4 && strcmp(argv[4], "zero") == 0, &n);
		int rc = put(p, n);
		free(p);
		return rc;
	}
	if (argc == 5 && strcmp(argv[1], "embed") == 0)
		return embed(argv[2], argv[3], argv[4]);
	if (argc == 3 && strcmp(argv[1], "extract") == 0)
		return extract(argv[2], 0);
	if (argc == 3 && strcmp(argv[1], "name") == 0)
		return extract(argv[2], 1);
	if (argc == 6 && strcmp(argv[1], "jpeg") == 0)
		return jpeg_split(argv[2], argv[3], argv[4], argv[5]);
	if ((argc == 5 || argc == 6) && strcmp(argv[1], "png") == 0)
		return png_iccp(argv[2], argv[3], argv[4], argc == 6 ? argv[5] :
		    "gpufilt test");
	fprintf(stderr, "usage: iccmake profile gray|rgb|cmyk [BYTES] | embed IN "
	    "PROFILE OUT | extract FILE | name FILE | jpeg IN PROFILE OUT SPEC | "
	    "png IN PROFILE OUT [NAME]\n");
	return 2;
}
