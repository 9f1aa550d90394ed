/*
 * img_icc.c - ICC profiles between readers and writers: what a profile's
 * header says of its colour space, whether a written image may carry
 * it, and the reader's hand-over (img.h).  The formats' own code (a
 * JPEG's APP2 markers, a PNG's iCCP, a TIFF's tag, a WebP's ICCP chunk)
 * is in their files; this is what they share, the inflating of a PNG's
 * iCCP (zlib) included.  The check is libpng's (png_icc_check_length,
 * _header and _tag_table): a profile PNG will not embed is taken as no
 * profile by every writer, so that an output's profile does not depend
 * on its format.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "img_int.h"

/* An ICC header's size, and where its tag table starts (its count first). */
#define ICC_HEADER 128
#define ICC_TAGS 132

static unsigned long
icc_be32(const unsigned char *p)
{
	return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 |
	    (unsigned long)p[2] << 8 | p[3];
}

void
img_icc_free(struct img_icc *icc)
{
	free(icc->p);
	icc->p = NULL;
	icc->len = 0;
	icc->name[0] = '\0';
}

/* Whether every tag of the table lies inside the profile's len bytes. */
static int
icc_tags_inside(const unsigned char *p, size_t len)
{
	unsigned long n = icc_be32(p + ICC_HEADER);

	if (n > (len - ICC_TAGS) / 12)
		return 0;
	for (unsigned long i = 0; i < n; i++) {
		const unsigned char *t = p + ICC_TAGS + 12 * i;
		unsigned long start = icc_be32(t + 4), size = icc_be32(t + 8);
		if (start > len || size > len - start)
			return 0;
	}
	return 1;
}

int
img_icc_space(const unsigned char *p, size_t len)
{
	unsigned long cls, space, pcs;

	if (p == NULL || len < ICC_TAGS || len > IMG_ICC_MAX ||
	    icc_be32(p) != len || memcmp(p + 36, "acsp", 4) != 0 ||
	    (p[8] > 3 && (len & 3) != 0) || icc_be32(p + 64) >= 0xffff ||
	    !icc_tags_inside(p, len))
		return 0;
	cls = icc_be32(p + 12);
	space = icc_be32(p + 16);
	pcs = icc_be32(p + 20);
	if (cls == 0x61627374 || cls == 0x6c696e6b)     /* 'abst', 'link' */
		return 0;
	if (pcs != 0x58595a20 && pcs != 0x4c616220)     /* 'XYZ ', 'Lab ' */
		return 0;
	if (space == 0x47524159)                        /* 'GRAY' */
		return 1;
	if (space == 0x52474220)                        /* 'RGB ' */
		return 3;
	return 0;
}

int
img_icc_fits(const struct img_icc *icc, const struct image *img,
    enum img_format fmt)
{
	int space, colour = img_colour_channels(img);

	if (icc == NULL || icc->len == 0 || IMG_FORMAT_IS_PNM(fmt))
		return 0;
	fmt = img_format_row(fmt)->id;  /* AUTO: the default's */
	if (fmt != IMG_FORMAT_PNG && fmt != IMG_FORMAT_JPEG &&
	    fmt != IMG_FORMAT_TIFF && fmt != IMG_FORMAT_WEBP)
		return 0;
	space = img_icc_space(icc->p, icc->len);
	if (fmt == IMG_FORMAT_JPEG && icc->len > IMG_ICC_JPEG_MAX)
		return 0;
	if (fmt == IMG_FORMAT_WEBP)
		return space == 3 && colour == 3;
	return space != 0 && space == colour;
}

int
img_icc_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 79 || s[0] == ' ' || s[n - 1] == ' ')
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 32 || c > 126) && c < 161)
			return 0;
		if (c == ' ' && s[i + 1] == ' ')
			return 0;
	}
	return 1;
}

int
img_icc_inflate(const unsigned char *z, size_t n, struct img_icc *icc)
{
	z_stream s;
	unsigned char head[4], *p = NULL;
	unsigned long len;
	int rc;

	memset(&s, 0, sizeof(s));
	if (n > UINT_MAX || inflateInit(&s) != Z_OK)
		return 0;
	s.next_in = (Bytef *)z;
	s.avail_in = (uInt)n;
	s.next_out = head;
	s.avail_out = sizeof(head);
	rc = inflate(&s, Z_NO_FLUSH);
	len = (unsigned long)head[0] << 24 | (unsigned long)head[1] << 16 |
	    (unsigned long)head[2] << 8 | head[3];
	if (rc == Z_OK && s.avail_out == 0 && len >= 132 && len <= IMG_ICC_MAX &&
	    (p = malloc(len)) != NULL) {
		memcpy(p, head, sizeof(head));
		s.next_out = p + sizeof(head);
		s.avail_out = (uInt)(len - sizeof(head));
		rc = inflate(&s, Z_FINISH);
	}
	inflateEnd(&s);
	if (p == NULL || rc != Z_STREAM_END || s.avail_in != 0 || s.total_out != len) {
		free(p);
		return 0;
	}
	icc->p = p;
	icc->len = len;
	return 1;
}

void
img_reader_take_icc(struct img_reader *r, struct img_icc *icc)
{
	img_icc_free(icc);
	*icc = r->icc;
	memset(&r->icc, 0, sizeof(r->icc));
}
