/*
 * img_jpeg.c - JPEG in and out through libjpeg-turbo's libjpeg API
 * (jpeglib.h).
 * Chosen over TurboJPEG because it streams: the compressed bytes come
 * from the FILE through a source manager (no slurping of the file) and
 * jpeg_read_scanlines writes decoded rows straight into the image's
 * final buffer.  Each call has its own error manager and jmp_buf, so
 * readers on several threads share nothing.  Gray JPEGs are read as
 * gray, YCbCr and RGB as RGB, or, for a caller that works on gray
 * (img_reader_set_gray), as libjpeg's grayscale output: of a YCbCr JPEG
 * the decoded Y plane, with the chroma neither transformed nor
 * upsampled (what djpeg -grayscale and cv2.imread's IMREAD_GRAYSCALE
 * give, and a GPU's JPEG engines as their luma).  CMYK and YCCK are
 * refused.  Out: 8-bit gray or RGB (YCbCr in the file), maxval below 255
 * scaled to 255, alpha dropped, one image per file; 16-bit images are
 * refused.  A warning of corrupt or missing data fails the image
 * (jpeg_on_message).  An EXIF Orientation tag (APP1, parsed by libexif
 * in img_orient.c) turns the decoded image unless the reader keeps
 * pixels as stored.  An ICC profile (APP2, img_jpeg_icc.c) is kept for
 * the writer; out, the writer's profile goes into APP2 markers.
 */
#include <errno.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "img_int.h"

/*
 * Each scan passes over the blocks of its components, however few bytes
 * it has (an end-of-band run of 32767 blocks takes 15 bits).  The blocks
 * of every scan so far, together, may be this many times the image's
 * blocks, plus this many for each byte read: libjpeg's progressive
 * scripts pass over the image about 10 times.
 */
#define JPEG_SCAN_PASSES 16
#define JPEG_SCAN_BLOCKS_PER_BYTE 64

/* One decode: libjpeg's structs, where its errors go, and the input buffer. */
struct jpeg_call {
	struct jpeg_decompress_struct cinfo;
	struct jpeg_error_mgr err;
	struct jpeg_source_mgr src;
	struct jpeg_progress_mgr progress;
	jmp_buf jb;
	struct img_reader *r;
	long long avail;        /* bytes of a regular file from the stream's start; -1: a pipe */
	unsigned long long fed; /* bytes given to libjpeg so far */
	unsigned long long work; /* blocks of the scans seen so far */
	int scans;              /* scans seen so far */
	JOCTET *ahead;          /* a pipe's bytes read ahead (jpeg_has_bytes) */
	char msg[JMSG_LENGTH_MAX + 64];
	JOCTET buf[65536];
};

static struct jpeg_call *
jpeg_call_of(j_common_ptr cinfo)
{
	return (struct jpeg_call *)((char *)cinfo -
	    offsetof(struct jpeg_call, cinfo));
}

/* libjpeg's fatal errors: the message, escaped, then back to the guard. */
static void
jpeg_on_error(j_common_ptr cinfo)
{
	struct jpeg_call *c = jpeg_call_of(cinfo);
	char raw[JMSG_LENGTH_MAX];

	cinfo->err->format_message(cinfo, raw);
	gf_escape(c->msg, sizeof(c->msg), raw);
	longjmp(c->jb, 1);
}

/* Nothing libjpeg says is printed (a compressor's messages included). */
static void
jpeg_quiet(j_common_ptr cinfo)
{
	(void)cinfo;
}

/*
 * libjpeg's warnings: corrupt or missing data, which libjpeg works
 * around with made-up pixels (djpeg exits 2 for them), fails the image
 * as an error does, in libjpeg's words.  Only the warnings that say
 * nothing of the pixels pass: an unknown JFIF revision or Adobe
 * transform code, a bad ICC profile (which img_jpeg_icc.c reads, not
 * libjpeg's reader, the one that warns of it).  Traces are dropped.
 */
static void
jpeg_on_message(j_common_ptr cinfo, int level)
{
	int code = cinfo->err->msg_code;

	if (level >= 0 || code == JWRN_JFIF_MAJOR || code == JWRN_ADOBE_XFORM ||
	    code == JWRN_BOGUS_ICC)
		return;
	jpeg_on_error(cinfo);
}

static void
jpeg_src_init(j_decompress_ptr cinfo)
{
	(void)cinfo;
}

/* Refills the buffer: the sniffed bytes, then the file; the end of the file is an error. */
static boolean
jpeg_src_fill(j_decompress_ptr cinfo)
{
	struct jpeg_call *c = jpeg_call_of((j_common_ptr)cinfo);
	size_t n = img_reader_bytes(c->r, c->buf, sizeof(c->buf));

	if (n == 0)
		ERREXIT(cinfo, JERR_INPUT_EOF);
	c->src.next_input_byte = c->buf;
	c->src.bytes_in_buffer = n;
	c->fed += n;
	return TRUE;
}

/* Bytes libjpeg has taken from the stream so far. */
static unsigned long long
jpeg_bytes_read(const struct jpeg_call *c)
{
	return c->fed - c->src.bytes_in_buffer;
}

/*
 * Whether the stream holds need more bytes past what libjpeg has taken:
 * a regular file by its size; a pipe by reading them ahead into
 * c->ahead, from which libjpeg then reads.
 */
static int
jpeg_has_bytes(struct jpeg_call *c, unsigned long long need)
{
	size_t have = c->src.bytes_in_buffer, got;

	if (need <= have)
		return 1;
	if (c->avail >= 0)
		return (unsigned long long)c->avail - jpeg_bytes_read(c) >= need;
	if (need > SIZE_MAX || (c->ahead = malloc((size_t)need)) == NULL)
		return 0;
	memcpy(c->ahead, c->src.next_input_byte, have);
	got = img_reader_bytes(c->r, c->ahead + have, (size_t)need - have);
	c->fed += got;
	c->src.next_input_byte = c->ahead;
	c->src.bytes_in_buffer = have + got;
	return have + got == need;
}

/* Blocks of the image's components (a sum), or of the current scan's. */
static unsigned long long
jpeg_blocks(j_decompress_ptr ci, int scan)
{
	unsigned long long n = 0;
	int k, m = scan ? ci->comps_in_scan : ci->num_components;

	for (k = 0; k < m; k++) {
		jpeg_component_info *comp = scan ? ci->cur_comp_info[k] :
		    &ci->comp_info[k];
		n += (unsigned long long)comp->width_in_blocks * comp->height_in_blocks;
	}
	return n;
}

/*
 * The fewest bytes of coded data the current scan can have, from its
 * header.  A Huffman code is at least a bit: a sequential scan codes a
 * DC difference and an end of block for each block, a progressive DC
 * scan one code or bit, an AC scan an end-of-band run of up to 32767
 * blocks in 15 bits.  Arithmetic coding goes below a bit a decision:
 * a byte for 64 blocks is asked of it, which no photograph comes near.
 */
unsigned long long
img_jpeg_scan_min_bytes(j_decompress_ptr ci)
{
	unsigned long long blocks = jpeg_blocks(ci, 1);

	if (ci->arith_code)
		return blocks / 64;
	if (!ci->progressive_mode)
		return blocks / 4;
	if (ci->Ss == 0)
		return blocks / 8;
	return (blocks + 32766) / 32767 * 15 / 8;
}

static void
jpeg_src_skip(j_decompress_ptr cinfo, long n)
{
	struct jpeg_source_mgr *s = cinfo->src;

	while (n > (long)s->bytes_in_buffer) {
		n -= (long)s->bytes_in_buffer;
		s->fill_input_buffer(cinfo);
	}
	if (n > 0) {
		s->next_input_byte += n;
		s->bytes_in_buffer -= (size_t)n;
	}
}

static void
jpeg_src_term(j_decompress_ptr cinfo)
{
	(void)cinfo;
}

/*
 * At each new scan, its blocks join the work; work beyond what the
 * image's blocks and the bytes read so far allow (JPEG_SCAN_PASSES) is
 * refused: scans of next to no data that pass over a large image again
 * and again are a CPU-time bomb.
 */
static void
jpeg_on_progress(j_common_ptr cinfo)
{
	j_decompress_ptr d = (j_decompress_ptr)cinfo;
	struct jpeg_call *c = jpeg_call_of(cinfo);
	unsigned long long blocks = jpeg_blocks(d, 0), read, most;

	if (d->input_scan_number <= c->scans)
		return;
	c->scans = d->input_scan_number;
	c->work += jpeg_blocks(d, 1);
	read = jpeg_bytes_read(c);
	most = JPEG_SCAN_PASSES * blocks + JPEG_SCAN_BLOCKS_PER_BYTE * read;
	if (c->work > most) {
		snprintf(c->msg, sizeof(c->msg), "by scan %d its scans pass over "
		    "%llu blocks, more than %d times the image's %llu blocks and %d "
		    "for each of the %llu bytes read", c->scans, c->work,
		    JPEG_SCAN_PASSES, blocks, JPEG_SCAN_BLOCKS_PER_BYTE, read);
		longjmp(c->jb, 1);
	}
}

/* Wires the error, source and progress managers of c. */
static void
jpeg_setup(struct jpeg_call *c)
{
	c->cinfo.err = jpeg_std_error(&c->err);
	c->err.error_exit = jpeg_on_error;
	c->err.output_message = jpeg_quiet;
	c->err.emit_message = jpeg_on_message;
	c->src.init_source = jpeg_src_init;
	c->src.fill_input_buffer = jpeg_src_fill;
	c->src.skip_input_data = jpeg_src_skip;
	c->src.resync_to_restart = jpeg_resync_to_restart;
	c->src.term_source = jpeg_src_term;
	c->progress.progress_monitor = jpeg_on_progress;
}

/*
 * The EXIF Orientation (1-8) of the first EXIF APP1 marker that libjpeg
 * saved; 1 (as stored) when there is none or it is unreadable.
 */
static int
jpeg_orientation(j_decompress_ptr ci)
{
	jpeg_saved_marker_ptr m = ci->marker_list;

	while (m != NULL && (m->marker != JPEG_APP0 + 1 || m->data_length < 6 ||
	    memcmp(m->data, "Exif\0\0", 6) != 0))
		m = m->next;
	return m == NULL ? 1 : img_exif_orientation(m->data, m->data_length);
}

/*
 * The image decoded: the JPEG read up to its EOI, the bytes read past
 * that given back to the stream (the next image's), and the image turned
 * as its EXIF orientation says; 1, or -1.
 */
static int
jpeg_finish(struct jpeg_call *c, struct image *img, struct gf_err *e)
{
	int o = c->r->autorotate ? jpeg_orientation(&c->cinfo) : 1;

	jpeg_finish_decompress(&c->cinfo);     /* frees the saved markers */
	if (img_reader_unread(c->r, c->src.next_input_byte,
	    c->src.bytes_in_buffer, e) < 0)
		return -1;
	if (o != 1 && img_orient(img, o, e) < 0)
		return -1;
	return 1;
}

/*
 * The check that stands for the pixels' decode (img_reader_set_check):
 * the walk over the scan's coded data, which lies in the reader's bytes
 * from where libjpeg's header parse stopped (lib/io/img_jpeg_check.c).
 * Always 1: an image the walk is unsure of has r->outside -1.
 */
static int
jpeg_check(struct jpeg_call *c)
{
	struct img_reader *r = c->r;
	unsigned long long at = jpeg_bytes_read(c);

	if (jpeg_has_multiple_scans(&c->cinfo) || at > r->check_len)
		r->outside = -1;        /* not what the walk reads: unsure */
	else if (r->plan != NULL)
		r->outside = img_jpeg_walk_plan(&c->cinfo, r->check_p + at,
		    r->check_len - at, r->plan->plan, r->plan->data, r->plan->cap,
		    &r->plan->len);
	else
		r->outside = img_jpeg_check_scan(&c->cinfo, r->check_p + at,
		    r->check_len - at);
	return 1;
}

/*
 * Reads the header, checks the size and colour space, then decodes each
 * row into img's final buffer, and turns it as its EXIF orientation
 * says.  Under the caller's setjmp; -1 (e set) for a refusal of ours,
 * libjpeg's errors longjmp.
 */
static int
jpeg_decode(struct jpeg_call *c, struct image *img, int *allocated,
    struct gf_err *e)
{
	struct jpeg_decompress_struct *ci = &c->cinfo;
	size_t rowbytes;

	jpeg_create_decompress(ci);
	ci->src = &c->src;
	ci->progress = &c->progress;
	if (c->r->autorotate)
		img_jpeg_keep_exif(ci);
	img_jpeg_keep_icc(ci);
	jpeg_read_header(ci, TRUE);
	(void)img_jpeg_icc(ci, &c->r->icc);    /* out of memory: none */
	if (ci->jpeg_color_space == JCS_CMYK || ci->jpeg_color_space == JCS_YCCK)
		return gf_fail(e, "%s: the JPEG image is CMYK, which is not read; "
		    "convert it to RGB first", c->r->name);
	img->channels = ci->jpeg_color_space == JCS_GRAYSCALE || c->r->gray ? 1 : 3;
	img->maxval = 255;
	if (img_check_size(c->r, (long)ci->image_width, (long)ci->image_height,
	    img->channels, 255, e) < 0)
		return -1;
	if (!jpeg_has_bytes(c, img_jpeg_scan_min_bytes(ci)))
		return gf_fail(e, "%s: the JPEG image is %u x %u, and its first scan "
		    "needs at least %llu bytes of coded data, more than the file "
		    "holds", c->r->name, ci->image_width, ci->image_height,
		    img_jpeg_scan_min_bytes(ci));
	ci->out_color_space = img->channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
	jpeg_start_decompress(ci);
	img->width = (int)ci->output_width;
	img->height = (int)ci->output_height;
	if (ci->output_components != img->channels)
		return gf_fail(e, "%s: the JPEG decoder gave %d channels, not %d",
		    c->r->name, ci->output_components, img->channels);
	if (c->r->check_p != NULL)
		return jpeg_check(c);
	if (img_reader_alloc(c->r, img, e) < 0)
		return -1;
	*allocated = 1;
	rowbytes = (size_t)img->width * img->channels;
	while (ci->output_scanline < ci->output_height) {
		JSAMPROW rows[4];
		int n = 0;
		for (; n < 4 && ci->output_scanline + n < ci->output_height; n++)
			rows[n] = (JSAMPROW)img->px + (ci->output_scanline + n) * rowbytes;
		jpeg_read_scanlines(ci, rows, (JDIMENSION)n);
	}
	return jpeg_finish(c, img, e);
}

/* jpeg_decode under the error jump; c and allocated are the caller's. */
static int
jpeg_read_guarded(struct jpeg_call *c, struct image *img, int *allocated,
    struct gf_err *e)
{
	if (setjmp(c->jb) != 0)
		return gf_fail(e, "%s: cannot decode the JPEG image: %s", c->r->name,
		    c->msg);
	return jpeg_decode(c, img, allocated, e);
}

int
img_jpeg_read(struct img_reader *r, struct image *img, struct gf_err *e)
{
	struct jpeg_call *c = malloc(sizeof(*c));
	int ret, allocated = 0;
	off_t start, size;

	if (c == NULL)
		return gf_nomem(e, "out of memory");
	memset(c, 0, offsetof(struct jpeg_call, buf));
	c->r = r;
	if (r->file_size > 0)   /* a frame of a file, in memory (img_reader_set_frame) */
		c->avail = r->file_size - (ftello(r->f) - (off_t)r->nhead);
	else
		c->avail = img_reader_file(r, &start, &size) ? (long long)size : -1;
	jpeg_setup(c);
	ret = jpeg_read_guarded(c, img, &allocated, e);
	jpeg_destroy_decompress(&c->cinfo);
	free(c->ahead);
	free(c);
	if (ret < 0 && allocated)
		img_reader_release(r, img);
	return ret;
}

/* ---- JPEG out */

/*
 * From this quality up colour is written without chroma subsampling
 * (4:4:4), below it at libjpeg's 4:2:0, as ImageMagick and libvips do.
 */
#define JPEG_FULL_CHROMA_QUALITY 90

/* One encode: libjpeg's structs, where its errors go, one scaled row. */
struct jpeg_out {
	struct jpeg_compress_struct cinfo;
	struct jpeg_error_mgr err;
	jmp_buf jb;
	JSAMPLE *row;           /* a row scaled to 255 (maxval < 255) */
	char msg[JMSG_LENGTH_MAX + 64];
};

static void
jpeg_out_error(j_common_ptr cinfo)
{
	struct jpeg_out *c = (struct jpeg_out *)((char *)cinfo -
	    offsetof(struct jpeg_out, cinfo));
	char raw[JMSG_LENGTH_MAX];

	cinfo->err->format_message(cinfo, raw);
	gf_escape(c->msg, sizeof(c->msg), raw);
	longjmp(c->jb, 1);
}

/*
 * Row y of img as 8-bit samples of its colour channels (JPEG has no
 * alpha): its own memory at maxval 255 without alpha, else c->row.
 */
static JSAMPROW
jpeg_out_row(const struct image *img, struct jpeg_out *c, int y)
{
	int ch = img->channels, nc = img_colour_channels(img);
	size_t base = (size_t)y * img->width * ch;
	unsigned m = img->maxval;

	if (m == 255 && ch == nc)
		return (JSAMPROW)img->px + base;
	for (size_t x = 0; x < (size_t)img->width; x++)
		for (int k = 0; k < nc; k++)
			c->row[x * nc + k] = (JSAMPLE)((img_get(img, base + x * ch + k) *
			    255 + m / 2) / m);
	return c->row;
}

/*
 * Compresses every row of img into f, icc (if any) in APP2 markers
 * before them; called under c->jb's setjmp.
 */
static void
jpeg_encode(struct jpeg_out *c, FILE *f, const struct image *img, int quality,
    const struct img_icc *icc)
{
	JSAMPROW row;

	jpeg_stdio_dest(&c->cinfo, f);
	c->cinfo.image_width = (JDIMENSION)img->width;
	c->cinfo.image_height = (JDIMENSION)img->height;
	c->cinfo.input_components = img_colour_channels(img);
	c->cinfo.in_color_space = img_colour_channels(img) == 1 ? JCS_GRAYSCALE :
	    JCS_RGB;
	jpeg_set_defaults(&c->cinfo);
	jpeg_set_quality(&c->cinfo, quality, TRUE);
	if (quality >= JPEG_FULL_CHROMA_QUALITY)
		for (int k = 0; k < c->cinfo.num_components; k++)
			c->cinfo.comp_info[k].h_samp_factor =
			    c->cinfo.comp_info[k].v_samp_factor = 1;
	jpeg_start_compress(&c->cinfo, TRUE);
	if (icc != NULL)
		jpeg_write_icc_profile(&c->cinfo, icc->p, (unsigned)icc->len);
	for (int y = 0; y < img->height; y++) {
		row = jpeg_out_row(img, c, y);
		jpeg_write_scanlines(&c->cinfo, &row, 1);
	}
	jpeg_finish_compress(&c->cinfo);
}

static int
jpeg_write_guarded(struct jpeg_out *c, FILE *f, const struct image *img,
    int quality, const struct img_icc *icc, const char *name,
    struct gf_err *e)
{
	if (setjmp(c->jb) != 0)
		return gf_fail(e, "cannot write %s as JPEG: %s", name, c->msg);
	jpeg_create_compress(&c->cinfo);
	jpeg_encode(c, f, img, quality, icc);
	return 0;
}

int
img_jpeg_sniff(const unsigned char *b, size_t n)
{
	return n >= 3 && b[0] == 0xff && b[1] == 0xd8 && b[2] == 0xff;
}

int
img_jpeg_write(FILE *f, const struct image *img, enum img_format fmt,
    int quality, const struct img_icc *icc, const char *name,
    struct gf_err *e)
{
	struct jpeg_out *c;
	int ret;

	(void)fmt;
	if (quality == 0)
		quality = IMG_JPEG_QUALITY;
	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->row = malloc((size_t)img->width * img->channels)) == NULL) {
		free(c);
		return gf_nomem(e, "out of memory");
	}
	c->cinfo.err = jpeg_std_error(&c->err);
	c->err.error_exit = jpeg_out_error;
	c->err.output_message = jpeg_quiet;
	ret = jpeg_write_guarded(c, f, img, quality, icc, name, e);
	jpeg_destroy_compress(&c->cinfo);
	free(c->row);
	free(c);
	if (ret == 0 && ferror(f))
		return gf_fail(e, "cannot write %s as JPEG: %s", name, strerror(errno));
	return ret;
}
