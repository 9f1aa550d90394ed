/*
 * img_jpeg_bits.c - a JPEG file kept as its compressed bytes, for a
 * decoder elsewhere (the GPU's JPEG engines, lib/io/jpeg_gpu.c), with every
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
 * A marker walk over a JPEG's bytes, which may go on as more of them
 * arrive (a frame of a pipe): where it stands (a marker's 0xff, or in a
 * scan's coded data), the SOS markers so far, and the restart markers in
 * the coded data (-1 once one came out of turn, RST0 to RST7 and round).
 */
struct jpeg_walk {
	size_t pos;
	int in_scan;
	int scans;
	long restarts;
};

enum { WALK_BAD, WALK_END, WALK_MORE };

/* A walk from just past the SOI. */
static void
jpeg_walk_start(struct jpeg_walk *w)
{
	memset(w, 0, sizeof(*w));
	w->pos = 2;
}

/*
 * Past the coded data from w->pos, to the 0xff of the marker that ends
 * it: WALK_END when found, WALK_MORE when the n bytes end first (w->pos
 * where the walk goes on).  Entropy-coded data ends at the first 0xff
 * that is followed by neither a stuffed 0x00, nor a restart marker, nor
 * a fill byte.
 */
static int
jpeg_walk_scan(const unsigned char *p, size_t n, struct jpeg_walk *w)
{
	size_t i = w->pos;

	for (;; i++) {
		const unsigned char *ff;
		if (i + 1 >= n || (ff = memchr(p + i, 0xff, n - 1 - i)) == NULL) {
			w->pos = i + 1 >= n ? i : n - 1;
			return WALK_MORE;
		}
		i = (size_t)(ff - p);
		if (p[i + 1] >= 0xd0 && p[i + 1] <= 0xd7) {
			if (w->restarts >= 0)
				w->restarts = p[i + 1] - 0xd0 == w->restarts % 8 ?
				    w->restarts + 1 : -1;
		} else if (p[i + 1] != 0x00 && p[i + 1] != 0xff) {
			w->pos = i;
			return WALK_END;
		}
	}
}

/*
 * Walks on over the markers of the JPEG of n bytes at p (SOI first; the
 * same bytes as at the walk's last step, and maybe more): WALK_END with
 * w->pos just past its EOI, WALK_MORE when the bytes end first, WALK_BAD
 * when it is malformed.  Linear over all its steps: w->pos never goes
 * back, so no byte is looked at again beyond the few of a marker cut by
 * the bytes' end (a run of fill bytes, 0xff, is passed once).
 */
static int
jpeg_walk_on(const unsigned char *p, size_t n, struct jpeg_walk *w)
{
	for (;;) {
		size_t i = w->pos;
		unsigned m;
		if (w->in_scan) {
			if (jpeg_walk_scan(p, n, w) == WALK_MORE)
				return WALK_MORE;
			w->in_scan = 0;
			i = w->pos;
		}
		if (i + 1 >= n)
			return WALK_MORE;
		if (p[i] != 0xff)
			return WALK_BAD;
		while (i + 1 < n && p[i + 1] == 0xff)
			i++;
		w->pos = i;             /* the fill before it is not walked again */
		if (i + 1 >= n)
			return WALK_MORE;
		m = p[i + 1];
		i += 2;
		if (m == 0xd9) {
			w->pos = i;
			return WALK_END;
		}
		if (m == 0x01 || (m >= 0xd0 && m <= 0xd7))
			return WALK_BAD;        /* outside coded data */
		if (m == 0xd8 || m == 0x00)
			return WALK_BAD;
		if (i + 2 > n)
			return WALK_MORE;       /* at the marker's 0xff, as saved */
		if (be16(p + i) < 2)
			return WALK_BAD;
		w->pos = i + be16(p + i);
		if (m == 0xda) {
			w->scans++;
			w->in_scan = 1;
		}
	}
}

/*
 * The offset just past the EOI of the JPEG of n bytes at p (SOI first),
 * or 0 when it has none or is malformed; w counts its scans and restart
 * markers.
 */
static size_t
jpeg_bits_end(const unsigned char *p, size_t n, struct jpeg_walk *w)
{
	jpeg_walk_start(w);
	return jpeg_walk_on(p, n, w) == WALK_END ? w->pos : 0;
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

/*
 * Parses b's header into b's sizes and orientation, and its ICC profile
 * into *icc (NULL: not kept): 1 taken, 0 not.
 */
static int
jpeg_bits_parse(struct img_reader *r, struct img_jpeg_bits *b, int colour,
    const struct jpeg_walk *w, struct img_icc *icc)
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
			img_jpeg_keep_exif(&c->ci);
		if (icc != NULL)
			img_jpeg_keep_icc(&c->ci);
		if (jpeg_read_header(&c->ci, TRUE) == JPEG_HEADER_OK &&
		    jpeg_bits_class_ok(&c->ci, colour) &&
		    jpeg_bits_restarts_ok(&c->ci, w) &&
		    img_check_size(r, (long)c->ci.image_width,
		    (long)c->ci.image_height, 1, 255, &e) == 0) {
			b->width = (int)c->ci.image_width;
			b->height = (int)c->ci.image_height;
			b->components = c->ci.num_components;
			b->orientation = r->autorotate ? jpeg_bits_orientation(&c->ci) : 1;
			if (icc != NULL)
				(void)img_jpeg_icc(&c->ci, icc);  /* out of memory: none */
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
		return gf_nomem(e, "%s: out of memory for its %zu bytes", name, b->len);
	if (img_pread(fileno(f), b->p, b->len, 0) != (ssize_t)b->len)
		return gf_fail(e, "cannot read %s: %s", name, strerror(errno));
	/* One image, nothing after it: else the reader's stream rules apply. */
	end = jpeg_bits_end(b->p, b->len, &w);
	if (end != b->len || w.scans != 1 ||
	    !jpeg_bits_parse(&r, b, o->colour, &w, o->icc)) {
		if (o->buf.get == NULL)
			free(b->p);
		memset(b, 0, sizeof(*b));
		return 0;
	}
	return 1;
}

int
img_jpeg_frame_bits(const unsigned char *p, size_t len, const char *name,
    const struct img_bits_opts *o, struct img_jpeg_bits *b)
{
	struct img_reader r = {0};
	struct jpeg_walk w;

	memset(b, 0, sizeof(*b));
	r.name = name;
	r.max_pixels = o->max_pixels;
	r.autorotate = o->autorotate;
	b->p = (unsigned char *)p;
	b->len = len;
	if (len < 4 || jpeg_bits_end(p, len, &w) != len || w.scans != 1 ||
	    !jpeg_bits_parse(&r, b, o->colour, &w, o->icc)) {
		memset(b, 0, sizeof(*b));
		return 0;
	}
	return 1;
}

/* ---- a JPEG frame of a stream */

/* A frame's bytes are read this many at a time, the rest given back. */
#define FRAME_CHUNK ((size_t)64 << 10)
/*
 * A frame larger than this is left to the stream's reader: a frame's
 * bytes are held whole before it is decoded, and a JPEG without its EOI
 * (a truncated stream) would be held to the stream's end.
 */
#define FRAME_MAX ((size_t)64 << 20)

/*
 * Whether the frame of len bytes at p decodes alone as in its stream,
 * from its header: it parses, it is one the reader decodes (not CMYK),
 * it passes the reader's size checks, and it holds the coded data that
 * its first scan needs (the one test the CPU reader makes beyond the
 * image's end: the stream after it could give those bytes).  Its sizes
 * into fr.
 */
static int
jpeg_frame_parse(struct img_reader *r, const unsigned char *p, size_t len,
    struct img_frame *fr)
{
	struct jpeg_bits_call *c = calloc(1, sizeof(*c));
	struct jpeg_decompress_struct *ci;
	struct gf_err e;
	volatile int ok = 0;

	if (c == NULL)
		return 0;
	ci = &c->ci;
	ci->err = jpeg_std_error(&c->err);
	c->err.error_exit = jpeg_bits_on_error;
	c->err.emit_message = jpeg_bits_quiet;
	if (setjmp(c->jb) == 0) {
		jpeg_create_decompress(ci);
		jpeg_mem_src(ci, p, (unsigned long)len);
		if (jpeg_read_header(ci, TRUE) == JPEG_HEADER_OK &&
		    ci->jpeg_color_space != JCS_CMYK && ci->jpeg_color_space != JCS_YCCK) {
			int ch = ci->jpeg_color_space == JCS_GRAYSCALE || r->gray ? 1 : 3;
			if (img_check_size(r, (long)ci->image_width,
			    (long)ci->image_height, ch, 255, &e) == 0 &&
			    ci->src->bytes_in_buffer >= img_jpeg_scan_min_bytes(ci)) {
				fr->width = (int)ci->image_width;
				fr->height = (int)ci->image_height;
				fr->channels = ch;
				ok = 1;
			}
		}
	}
	jpeg_destroy_decompress(ci);
	free(c);
	return ok;
}

/* At least n bytes in fr, its first ones kept; -1 when out of memory. */
static int
frame_room(struct img_frame *fr, size_t n)
{
	unsigned char *p;

	if (n <= fr->cap)
		return 0;
	if (n < 2 * fr->cap)
		n = 2 * fr->cap;
	if ((p = realloc(fr->p, n)) == NULL)
		return -1;
	fr->p = p;
	fr->cap = n;
	return 0;
}

/*
 * Reads the JPEG that r's stream holds next into fr, a chunk at a time,
 * up to its EOI and IMG_FRAME_TAIL bytes past it (fewer at the stream's
 * end): 1; 0 when it is not one (not a JPEG, malformed, no EOI before
 * the stream's end or FRAME_MAX), with n bytes read into fr.
 */
static int
frame_bytes(struct img_reader *r, struct img_frame *fr, size_t *n,
    struct jpeg_walk *w)
{
	size_t got;
	int st = WALK_MORE;

	*n = 0;
	jpeg_walk_start(w);
	do {
		if (*n >= FRAME_MAX || frame_room(fr, *n + FRAME_CHUNK) < 0)
			return 0;
		got = img_reader_bytes(r, fr->p + *n, FRAME_CHUNK);
		*n += got;
		if (!img_jpeg_sniff(fr->p, *n))
			return 0;
		if (st == WALK_MORE)
			st = jpeg_walk_on(fr->p, *n, w);
	} while ((st == WALK_MORE || (st == WALK_END &&
	    *n - w->pos < IMG_FRAME_TAIL)) && got == FRAME_CHUNK);
	return st == WALK_END;
}

int
img_jpeg_frame_read(struct img_reader *r, struct img_frame *fr,
    struct gf_err *e)
{
	struct jpeg_walk w;
	off_t start, size;
	size_t n;
	int more;

	fr->len = fr->tail = 0;
	/* After an image that cannot tell its end, img_read_next judges. */
	if (r->open != NULL || r->done || r->endless != NULL)
		return 0;
	if (r->nread > 0) {
		if (img_reader_skip_space(r, &more, e) < 0)
			return -1;
		if (!more)
			return 0;
	}
	/* Only a JPEG starts with 0xff: nothing else is read, or given back. */
	if (img_reader_peek(r) != 0xff)
		return 0;
	fr->file = img_reader_file(r, &start, &size);
	if (!frame_bytes(r, fr, &n, &w) || !jpeg_frame_parse(r, fr->p, w.pos, fr))
		return img_reader_unread(r, fr->p, n, e) < 0 ? -1 : 0;
	if (img_reader_unread(r, fr->p + w.pos, n - w.pos, e) < 0)
		return -1;
	fr->len = w.pos;
	fr->tail = n - w.pos < IMG_FRAME_TAIL ? n - w.pos : IMG_FRAME_TAIL;
	r->nread++;
	return 1;
}
