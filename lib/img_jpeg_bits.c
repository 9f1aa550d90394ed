/*
 * img_jpeg_bits.c - a JPEG file kept as its compressed bytes, for a
 * decoder elsewhere (the GPU's JPEG engines, lib/jpeg_gpu.c), with every
 * check the CPU reader makes from the header done here on the host: the
 * size and pixel limit (img_check_size, the same messages), the colour
 * space, and the coding.  Only files the engines decode exactly as
 * libjpeg's gray decode are taken; for any other the caller reads the
 * file as before (img_read_next), which gives its own verdict.  Apart
 * from img_jpeg.c because it decodes nothing and shares none of its
 * state; the marker walk below is what says where the one image ends.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jpeglib.h>
#include <libexif/exif-data.h>

#include "img_int.h"

static unsigned
be16(const unsigned char *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/*
 * What the marker walk found: SOS markers, and restart markers in the
 * coded data (-1 once one came out of turn, RST0 to RST7 and round).
 */
struct jpeg_walk {
	int scans;
	long restarts;
};

/*
 * Walks the markers of the JPEG of n bytes at p (SOI first): the offset
 * just past its EOI, or 0 when it has none or is malformed; w counts
 * its scans and restart markers.  Entropy-coded data ends at the first
 * 0xff that is followed by neither a stuffed 0x00, nor a restart marker,
 * nor a fill byte.
 */
static size_t
jpeg_bits_end(const unsigned char *p, size_t n, struct jpeg_walk *w)
{
	size_t i = 2;

	w->scans = 0;
	w->restarts = 0;
	while (i + 1 < n) {
		unsigned m;
		if (p[i] != 0xff)
			return 0;
		while (i + 1 < n && p[i + 1] == 0xff)
			i++;
		if (i + 1 >= n)
			return 0;
		m = p[i + 1];
		i += 2;
		if (m == 0xd9)
			return i;
		if (m == 0x01 || (m >= 0xd0 && m <= 0xd7))
			return 0;       /* outside coded data */
		if (m == 0xd8 || m == 0x00 || i + 2 > n || be16(p + i) < 2)
			return 0;
		i += be16(p + i);
		if (m != 0xda)
			continue;
		w->scans++;
		for (; i + 1 < n; i++) {
			const unsigned char *ff = memchr(p + i, 0xff, n - 1 - i);
			if (ff == NULL) {
				i = n;
				break;
			}
			i = (size_t)(ff - p);
			if (p[i + 1] >= 0xd0 && p[i + 1] <= 0xd7 && w->restarts >= 0)
				w->restarts = p[i + 1] - 0xd0 == w->restarts % 8 ?
				    w->restarts + 1 : -1;
			else if (p[i + 1] != 0x00 && p[i + 1] != 0xff &&
			    (p[i + 1] < 0xd0 || p[i + 1] > 0xd7))
				break;
		}
	}
	return 0;
}

/*
 * The EXIF Orientation (1-8) in IFD0 of the first EXIF APP1 marker that
 * libjpeg saved; 1 when there is none or it is unreadable (as the CPU
 * reader, img_jpeg.c).
 */
static int
jpeg_bits_orientation(j_decompress_ptr ci)
{
	jpeg_saved_marker_ptr m = ci->marker_list;
	ExifData *ed;
	ExifEntry *en;
	int o = 1;

	while (m != NULL && (m->marker != JPEG_APP0 + 1 || m->data_length < 6 ||
	    memcmp(m->data, "Exif\0\0", 6) != 0))
		m = m->next;
	if (m == NULL || (ed = exif_data_new()) == NULL)
		return 1;
	exif_data_unset_option(ed, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
	exif_data_load_data(ed, m->data, m->data_length);
	en = exif_content_get_entry(ed->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);
	if (en != NULL && en->format == EXIF_FORMAT_SHORT && en->components == 1 &&
	    en->size >= 2 && en->data != NULL)
		o = exif_get_short(en->data, exif_data_get_byte_order(ed));
	exif_data_unref(ed);
	return o >= 1 && o <= 8 ? o : 1;
}

/* libjpeg's header parse of the bits; its errors jump back here. */
struct jpeg_bits_call {
	struct jpeg_decompress_struct ci;
	struct jpeg_error_mgr err;
	jmp_buf jb;
};

static void
jpeg_bits_on_error(j_common_ptr ci)
{
	longjmp(((struct jpeg_bits_call *)(void *)ci)->jb, 1);
}

static void
jpeg_bits_quiet(j_common_ptr ci, int level)
{
	(void)ci;
	(void)level;
}

/*
 * Whether the parsed header is one the engines decode as libjpeg's gray
 * does: Huffman-coded, sequential, 8-bit, one scan; gray, or (colour
 * allowed) YCbCr with chroma at 1x1 and luma at 1x1, 2x1, 2x2 or 1x2
 * (4:4:4, 4:2:2, 4:2:0, 4:4:0; not 4:1:1 or 4:1:0).  RGB, CMYK and YCCK
 * JPEGs go to the CPU, whose gray of them is computed, not stored.
 */
static int
jpeg_bits_class_ok(const struct jpeg_decompress_struct *ci, int colour)
{
	const jpeg_component_info *c = ci->comp_info;

	if (ci->progressive_mode || ci->arith_code || ci->data_precision != 8)
		return 0;
	if (ci->num_components == 1)
		return ci->jpeg_color_space == JCS_GRAYSCALE;
	if (!colour || ci->num_components != 3 || ci->jpeg_color_space != JCS_YCbCr)
		return 0;
	for (int k = 1; k < 3; k++)
		if (c[k].h_samp_factor != 1 || c[k].v_samp_factor != 1)
			return 0;
	return c[0].h_samp_factor <= 2 && c[0].v_samp_factor <= 2;
}

/*
 * Whether the coded data holds the restart markers its header implies
 * (one between each restart interval's MCUs, in turn): a file cut short,
 * or with a marker dropped or inserted, goes to the CPU's decoder, whose
 * verdict the engines would not give (they decode some such files without
 * an error).  Files without restart intervals cannot be checked so.
 */
static int
jpeg_bits_restarts_ok(const struct jpeg_decompress_struct *ci,
    const struct jpeg_walk *w)
{
	long mcus, hm = ci->max_h_samp_factor, vm = ci->max_v_samp_factor;

	if (ci->comps_in_scan == 1) {
		const jpeg_component_info *c = ci->cur_comp_info[0];
		long cw = ((long)ci->image_width * c->h_samp_factor + hm - 1) / hm;
		long ch = ((long)ci->image_height * c->v_samp_factor + vm - 1) / vm;
		mcus = (cw + 7) / 8 * ((ch + 7) / 8);
	} else {
		mcus = ((long)ci->image_width + 8 * hm - 1) / (8 * hm) *
		    (((long)ci->image_height + 8 * vm - 1) / (8 * vm));
	}
	if (ci->restart_interval == 0)
		return w->restarts == 0;
	return w->restarts == (mcus + ci->restart_interval - 1) /
	    ci->restart_interval - 1;
}

/* Parses b's header into b's sizes and orientation: 1 taken, 0 not. */
static int
jpeg_bits_parse(struct img_reader *r, struct img_jpeg_bits *b, int colour,
    const struct jpeg_walk *w)
{
	struct jpeg_bits_call *c = calloc(1, sizeof(*c));
	struct gf_err e;
	volatile int ok = 0;

	if (c == NULL)
		return 0;
	c->ci.err = jpeg_std_error(&c->err);
	c->err.error_exit = jpeg_bits_on_error;
	c->err.emit_message = jpeg_bits_quiet;
	if (setjmp(c->jb) == 0) {
		jpeg_create_decompress(&c->ci);
		jpeg_mem_src(&c->ci, b->p, (unsigned long)b->len);
		if (r->autorotate)
			jpeg_save_markers(&c->ci, JPEG_APP0 + 1, 0xffff);
		if (jpeg_read_header(&c->ci, TRUE) == JPEG_HEADER_OK &&
		    jpeg_bits_class_ok(&c->ci, colour) &&
		    jpeg_bits_restarts_ok(&c->ci, w) &&
		    img_check_size(r, (long)c->ci.image_width,
		    (long)c->ci.image_height, 1, 255, &e) == 0) {
			b->width = (int)c->ci.image_width;
			b->height = (int)c->ci.image_height;
			b->components = c->ci.num_components;
			b->orientation = r->autorotate ? jpeg_bits_orientation(&c->ci) : 1;
			ok = 1;
		}
	}
	jpeg_destroy_decompress(&c->ci);
	free(c);
	return ok;
}

int
img_jpeg_bits_sniff(FILE *f)
{
	unsigned char head[3];

	return img_pread(fileno(f), head, 3, 0) == 3 && img_jpeg_sniff(head, 3);
}

int
img_jpeg_bits_read(FILE *f, const char *name, const struct img_bits_opts *o,
    struct img_jpeg_bits *b, struct gf_err *e)
{
	struct img_reader r = {0};
	struct stat st;
	struct jpeg_walk w;
	size_t end;

	memset(b, 0, sizeof(*b));
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 4 ||
	    !img_jpeg_bits_sniff(f))
		return 0;
	r.name = name;
	r.max_pixels = o->max_pixels;
	r.autorotate = o->autorotate;
	if ((long long)st.st_size > img_input_cap(o->max_pixels))
		return 0;
	b->len = (size_t)st.st_size;
	b->p = o->buf.get != NULL ? o->buf.get(o->buf.arg, b->len) : malloc(b->len);
	if (b->p == NULL)
		return gf_fail(e, "%s: out of memory for its %zu bytes", name, b->len);
	if (img_pread(fileno(f), b->p, b->len, 0) != (ssize_t)b->len)
		return gf_fail(e, "cannot read %s: %s", name, strerror(errno));
	/* One image, nothing after it: else the reader's stream rules apply. */
	end = jpeg_bits_end(b->p, b->len, &w);
	if (end != b->len || w.scans != 1 || !jpeg_bits_parse(&r, b, o->colour, &w)) {
		if (o->buf.get == NULL)
			free(b->p);
		memset(b, 0, sizeof(*b));
		return 0;
	}
	return 1;
}
