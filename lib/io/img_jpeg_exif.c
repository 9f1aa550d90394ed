/*
 * img_jpeg_exif.c - the one APP1 marker of a JPEG that its orientation
 * needs, kept for libjpeg's readers (img_jpeg.c, img_jpeg_bits.c).
 * libjpeg's jpeg_save_markers keeps every marker of a kind until the
 * image ends: a JPEG of nothing but APP1 markers had them all held (600
 * MiB of them from a pipe took 670 MB).  The marker processor here keeps
 * the first EXIF APP1 alone, whole (65533 bytes at most, a marker's
 * most), on ci->marker_list where libjpeg would have put it, and passes
 * over every other APP1 without holding a byte of it; the orientation
 * read from the list is the one it was when every APP1 was kept.  Apart
 * from img_jpeg.c because both of libjpeg's readers use it.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "img_int.h"

void
img_jpeg_take(j_decompress_ptr ci, JOCTET *dst, size_t n)
{
	struct jpeg_source_mgr *s = ci->src;

	while (n > 0) {
		size_t k;
		if (s->bytes_in_buffer == 0 && !s->fill_input_buffer(ci))
			ERREXIT(ci, JERR_CANT_SUSPEND);
		k = s->bytes_in_buffer < n ? s->bytes_in_buffer : n;
		if (dst != NULL) {
			memcpy(dst, s->next_input_byte, k);
			dst += k;
		}
		s->next_input_byte += k;
		s->bytes_in_buffer -= k;
		n -= k;
	}
}

/* Whether ci has kept an EXIF APP1 marker already. */
static int
exif_kept(j_decompress_ptr ci)
{
	for (jpeg_saved_marker_ptr m = ci->marker_list; m != NULL; m = m->next)
		if (m->marker == JPEG_APP0 + 1)
			return 1;
	return 0;
}

/*
 * libjpeg's processor of an APP1 marker, called just past its code: an
 * EXIF one ("Exif\0\0" first), the first of the image, is kept whole in
 * the image's memory (freed with it); the others are skipped.  A length
 * below 2, which libjpeg's own processors take as no data, is that here.
 */
static boolean
exif_marker(j_decompress_ptr ci)
{
	JOCTET len2[2], head[6];
	struct jpeg_marker_struct *m, **tail;
	size_t len, n;

	img_jpeg_take(ci, len2, 2);
	len = (size_t)len2[0] << 8 | len2[1];
	if (len <= 2)
		return TRUE;
	len -= 2;
	n = len < sizeof(head) ? len : sizeof(head);
	img_jpeg_take(ci, head, n);
	if (n < sizeof(head) || memcmp(head, "Exif\0\0", 6) != 0 || exif_kept(ci)) {
		if (len > n)
			ci->src->skip_input_data(ci, (long)(len - n));
		return TRUE;
	}
	m = ci->mem->alloc_large((j_common_ptr)ci, JPOOL_IMAGE, sizeof(*m) + len);
	m->next = NULL;
	m->marker = JPEG_APP0 + 1;
	m->original_length = (unsigned)len;
	m->data_length = (unsigned)len;
	m->data = (JOCTET *)(m + 1);
	memcpy(m->data, head, n);
	img_jpeg_take(ci, m->data + n, len - n);
	for (tail = &ci->marker_list; *tail != NULL; tail = &(*tail)->next)
		;
	*tail = m;
	return TRUE;
}

void
img_jpeg_keep_exif(struct jpeg_decompress_struct *ci)
{
	jpeg_set_marker_processor(ci, JPEG_APP0 + 1, exif_marker);
}
