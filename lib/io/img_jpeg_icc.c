/*
 * img_jpeg_icc.c - a JPEG's ICC profile: the APP2 markers that begin
 * "ICC_PROFILE\0", a sequence number (1-255) and the count of them, and
 * the profile's bytes, split over them in order.  libjpeg's
 * jpeg_save_markers would keep every APP2 marker until the image ends
 * (a JPEG of nothing but them, from a pipe, held whole); the processor
 * here keeps only ICC ones, and of those only while they agree: a
 * marker whose count differs from the first one's, whose number is 0 or
 * above the count, or that repeats a number makes the profile void (the
 * markers kept so far stay, one empty marker of number 0 is added, and
 * no more are kept).  So at most 256 markers are held, 16.7 MB at the
 * very most, and the profile joined is jpeg_read_icc_profile's (which
 * would warn where this gives none).  Both libjpeg readers use it: the
 * CPU's (img_jpeg.c) and the GPU's bytes (img_jpeg_bits.c), so that a
 * JPEG's profile is the same whichever decodes it.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "img_int.h"

#define ICC_MARKER (JPEG_APP0 + 2)
#define ICC_OVERHEAD 14         /* "ICC_PROFILE\0", number, count */

/* Whether a kept marker is an ICC one (every APP2 kept is). */
static int
icc_is(jpeg_saved_marker_ptr m)
{
	return m->marker == ICC_MARKER && m->data_length >= ICC_OVERHEAD;
}

/*
 * Whether the ICC marker of number seq and count n may join those kept:
 * the same count as the first, a number in 1..n not yet seen, and no
 * void marker kept.
 */
static int
icc_agrees(j_decompress_ptr ci, unsigned seq, unsigned n)
{
	for (jpeg_saved_marker_ptr m = ci->marker_list; m != NULL; m = m->next) {
		if (!icc_is(m))
			continue;
		if (m->data[12] == 0 || m->data[13] != n || m->data[12] == seq)
			return 0;
	}
	return seq >= 1 && seq <= n;
}

/* A marker of len bytes of data, in the image's memory, appended to ci's list. */
static jpeg_saved_marker_ptr
icc_keep(j_decompress_ptr ci, size_t len)
{
	struct jpeg_marker_struct *m, **tail;

	m = ci->mem->alloc_large((j_common_ptr)ci, JPOOL_IMAGE, sizeof(*m) + len);
	m->next = NULL;
	m->marker = ICC_MARKER;
	m->original_length = (unsigned)len;
	m->data_length = (unsigned)len;
	m->data = (JOCTET *)(m + 1);
	for (tail = &ci->marker_list; *tail != NULL; tail = &(*tail)->next)
		;
	*tail = m;
	return m;
}

/* Whether a void marker (number 0) is kept already. */
static int
icc_void(j_decompress_ptr ci)
{
	for (jpeg_saved_marker_ptr m = ci->marker_list; m != NULL; m = m->next)
		if (icc_is(m) && m->data[12] == 0)
			return 1;
	return 0;
}

/*
 * libjpeg's processor of an APP2 marker, called just past its code: an
 * ICC one that agrees with those kept is kept whole in the image's
 * memory (freed with it); one that does not voids the profile; any
 * other APP2 is skipped.
 */
static boolean
icc_marker(j_decompress_ptr ci)
{
	JOCTET len2[2], head[ICC_OVERHEAD];
	jpeg_saved_marker_ptr m;
	size_t len;

	img_jpeg_take(ci, len2, 2);
	len = (size_t)len2[0] << 8 | len2[1];
	if (len <= 2)
		return TRUE;
	len -= 2;
	if (len < ICC_OVERHEAD) {
		img_jpeg_take(ci, NULL, len);
		return TRUE;
	}
	img_jpeg_take(ci, head, ICC_OVERHEAD);
	if (memcmp(head, "ICC_PROFILE", 12) != 0 || icc_void(ci)) {
		ci->src->skip_input_data(ci, (long)(len - ICC_OVERHEAD));
		return TRUE;
	}
	if (!icc_agrees(ci, head[12], head[13])) {
		ci->src->skip_input_data(ci, (long)(len - ICC_OVERHEAD));
		m = icc_keep(ci, ICC_OVERHEAD);
		memcpy(m->data, head, 12);
		m->data[12] = m->data[13] = 0;
		return TRUE;
	}
	m = icc_keep(ci, len);
	memcpy(m->data, head, ICC_OVERHEAD);
	img_jpeg_take(ci, m->data + ICC_OVERHEAD, len - ICC_OVERHEAD);
	return TRUE;
}

void
img_jpeg_keep_icc(struct jpeg_decompress_struct *ci)
{
	jpeg_set_marker_processor(ci, ICC_MARKER, icc_marker);
}

int
img_jpeg_icc(struct jpeg_decompress_struct *ci, struct img_icc *icc)
{
	jpeg_saved_marker_ptr part[256] = {NULL};
	unsigned n = 0;
	size_t total = 0, at = 0;

	img_icc_free(icc);
	for (jpeg_saved_marker_ptr m = ci->marker_list; m != NULL; m = m->next) {
		if (!icc_is(m))
			continue;
		if (m->data[12] == 0)
			return 0;       /* void */
		n = m->data[13];
		part[m->data[12]] = m;
	}
	for (unsigned k = 1; k <= n; k++) {
		if (part[k] == NULL)
			return 0;       /* a number missing */
		total += part[k]->data_length - ICC_OVERHEAD;
	}
	if (total == 0)
		return 0;
	if ((icc->p = malloc(total)) == NULL)
		return -1;
	for (unsigned k = 1; k <= n; k++) {
		size_t len = part[k]->data_length - ICC_OVERHEAD;
		memcpy(icc->p + at, part[k]->data + ICC_OVERHEAD, len);
		at += len;
	}
	icc->len = total;
	return 0;
}
