/*
 * img.h - reading and writing images: PNM (PBM, PGM, PPM, PAM) through
 * libnetpbm, PNG through libpng (libdeflate for the common kind), JPEG
 * through libjpeg-turbo, WebP through libwebp, BMP, TGA and GIF through
 * stb_image; PNM, PNG (8 or 16 bit, libpng), JPEG (8 bit, libjpeg-turbo)
 * or WebP (8 bit, libwebp) out.  A reader walks a stream of concatenated
 * PNM, WebP, PNG and JPEG images, in any mix (a BMP, TGA, GIF or piped
 * TIFF stands alone: nothing but whitespace may follow it); a writer
 * puts one or more images into one output.  Every header is checked
 * (sides, memory, pixel limit, and the bytes that can hold what it
 * promises) before a pixel is decoded.  Readers on different threads
 * share no mutable state.
 */
#ifndef GF_IMG_H
#define GF_IMG_H

#include <stdio.h>

#include "gf.h"

enum img_format {
	IMG_FORMAT_AUTO,        /* by the output name's extension; PNM for stdout */
	IMG_FORMAT_PNM,
	IMG_FORMAT_PNG,
	IMG_FORMAT_JPEG,
	IMG_FORMAT_TIFF,
	IMG_FORMAT_PPM,         /* PNM as P6 (.ppm): gray made RGB, alpha dropped */
	IMG_FORMAT_PAM,         /* PNM as P7 (.pam), of the image's channels */
	IMG_FORMAT_WEBP,
	IMG_FORMAT_NONE         /* a format read, not written (BMP, TGA, GIF) */
};

/* Whether f is PNM of some kind (a stream of images, written in strips). */
#define IMG_FORMAT_IS_PNM(f) ((f) == IMG_FORMAT_PNM || \
	(f) == IMG_FORMAT_PPM || (f) == IMG_FORMAT_PAM)

/* The JPEG quality when none is given (--quality, img_write's 0). */
#define IMG_JPEG_QUALITY 95

/*
 * The formats: lib/io/img_format.c holds them in one table, and these read
 * it.  The names -f takes, blank-separated, for shell completion, in buf
 * (n bytes): buf.
 */
const char *img_format_words(char *buf, size_t n);

/*
 * Parses a name -f takes ("pnm", "png", "jpeg" or "jpg", "tiff" or
 * "tif", "webp"); -1 with a message listing them otherwise.
 */
int img_format_parse(const char *s, enum img_format *f, struct gf_err *e);

/*
 * The format for output path (NULL or "-" is standard output): asked
 * unless AUTO, else by the name's extension
 * (.png, .jpg or .jpeg, .tif or .tiff, .webp; PPM for .ppm and PAM for .pam, as
 * ImageMagick writes them; PNM by the image for .pgm, .pnm, no extension
 * and standard output).  img_format_check refuses the other extensions.
 */
enum img_format img_format_for(const char *path, enum img_format asked);

/*
 * Whether an output named path can be written with format asked: -1
 * with a message listing the extensions we write when asked is AUTO and
 * path has an extension we do not (out.gif, out.bmp).
 */
int img_format_check(const char *path, enum img_format asked,
    struct gf_err *e);

/* The file name extension for a format, without the dot (PNM: by img's channels). */
const char *img_format_ext(enum img_format f, const struct image *img);

/*
 * Every extension img_format_ext may give f (AUTO: the default's), the
 * first for a gray image; NULL-ended.
 */
const char *const *img_format_writes(enum img_format f);

/* The format's name for messages: "PNM", "PNG", "JPEG", "TIFF", "WebP". */
const char *img_format_name(enum img_format f);

struct img_reader;

/*
 * Opens a reader over f (not closed by the reader).  name is used in
 * messages ("standard input" or the path).
 */
int img_reader_open(struct img_reader **r, FILE *f, const char *name,
    struct gf_err *e);

/*
 * Reads the next image of the stream into img (freshly allocated; the
 * caller frees it with img_free).  Returns 1 for an image, 0 at the clean
 * end of the stream (whitespace may follow the last image), -1 on a bad
 * or truncated image, on bytes after an image that begin none, or on
 * anything but whitespace after an image that cannot tell where it ends
 * (BMP, TGA, GIF, a TIFF from a pipe).
 */
int img_read_next(struct img_reader *r, struct image *img, struct gf_err *e);

/*
 * Where a reader puts the pixels of the images it reads.  By default
 * img_alloc (malloc; the caller frees with img_free).  A caller that
 * wants them in memory of its own (pinned for the GPU) sets get: it
 * returns at least bytes bytes that stay the caller's, or NULL when it
 * has none; the reader then never frees img->px, and nor may img_free.
 */
struct img_buffer {
	void *(*get)(void *arg, size_t bytes);
	void *arg;
};

void img_reader_set_buffer(struct img_reader *r, const struct img_buffer *b);

/*
 * While get runs (and until the next image), the image it is asked for:
 * its width, height, channels and maxval as the header gave them, known
 * before a pixel is decoded (px NULL).  A caller can so weigh an image
 * by its size, not only its bytes, before deciding what to do with it.
 */
const struct image *img_reader_sizing(const struct img_reader *r);

/* The default pixel limit of a reader: 2^28 pixels (a 16384 x 16384 image). */
#define IMG_DEFAULT_MAX_PIXELS (1LL << 28)

/*
 * Images of more than n pixels (width * height) are refused from their
 * header, before anything is decoded or allocated (decompression bombs);
 * 0 lifts the limit.  The default is IMG_DEFAULT_MAX_PIXELS.
 */
void img_reader_set_max_pixels(struct img_reader *r, long long n);

/*
 * Whether a JPEG's EXIF Orientation and a TIFF's Orientation tag (2-8)
 * are applied, so that the image comes out as it is displayed (1, the
 * default, as cv2.imread and vips autorot do), or the pixels are kept as
 * stored (0, --no-autorotate).
 */
void img_reader_set_autorotate(struct img_reader *r, int on);

/*
 * Whether the caller works on gray (1) or on the image as stored (0,
 * the default).  With 1, a colour JPEG comes out as its luma, one
 * channel: the Y plane libjpeg decodes, whose chroma it then neither
 * transforms nor upsamples (a JPEG stored as RGB: libjpeg's gray of it).  That is the gray of a colour
 * JPEG for the tools, on every path.  Other formats stay colour, and
 * the caller makes them gray with img_to_gray; img->channels says what
 * came.
 */
void img_reader_set_gray(struct img_reader *r, int on);

/*
 * With the reader's whole input in memory (the n bytes at p, which r
 * reads through a memory stream), the next JPEG that r reads is checked,
 * not decoded: its header as for a decode, then a walk over its coded
 * data (lib/io/img_jpeg_check.c).  img_read_next then gives the header's
 * verdict, or 1 with img's sizes and no pixels (img->px NULL), and
 * img_reader_check_outside the walk's.  p NULL: decode as usual.  Only
 * a JPEG is checked: any other image is read as usual.
 */
void img_reader_set_check(struct img_reader *r, const void *p, size_t n);

/*
 * After a JPEG checked with img_reader_set_check: 0 when the GPU's JPEG
 * engines give libjpeg-turbo's bytes for it (it decodes without an error
 * or a warning, and every luma block is one the engines decode as
 * libjpeg does); the number of luma blocks they may not, or -1 when the
 * walk is unsure (libjpeg may refuse it, or read it otherwise).
 */
long img_reader_check_outside(const struct img_reader *r);

/*
 * With img_reader_set_check, the scan is not walked but planned for the
 * walk on the GPU (jpeg_walk.h; jpeg_gpu.h's walker): img_read_next fills
 * pp->plan and pp->len bytes of pp->data (the coded data without its
 * stuffing, pp->cap at most), and img_reader_check_outside says 0, or -1
 * when it is unsure already.  NULL: walk on the CPU.
 */
struct jw_plan;
struct img_jpeg_plan {
	struct jw_plan *plan;
	unsigned char *data;
	size_t cap, len;
};
void img_reader_set_plan(struct img_reader *r, struct img_jpeg_plan *pp);

void img_reader_close(struct img_reader *r);

/*
 * An image's ICC profile, as its file held it: len bytes at p
 * (malloc'd), name the PNG iCCP chunk's keyword (empty: none given).
 * len 0: none.  What readers take: a JPEG's APP2 ICC_PROFILE markers
 * reassembled in their sequence as libjpeg-turbo's
 * jpeg_read_icc_profile does (markers that disagree on their count, or
 * miss or repeat a number, give none), a PNG's iCCP chunk inflated, a
 * TIFF's tag 34675 (each page its own), a WebP's ICCP chunk.  A profile
 * whose header does not parse (img_icc_space 0) or of more than
 * IMG_ICC_MAX bytes is dropped: the image is read without it.
 */
struct img_icc {
	unsigned char *p;
	size_t len;
	char name[80];
};

/* The largest profile kept: 16 MiB (a JPEG's 255 markers hold 16707345 bytes). */
#define IMG_ICC_MAX ((size_t)16 << 20)

void img_icc_free(struct img_icc *icc);

/*
 * The colour space of the profile's header: 1 for GRAY, 3 for RGB, 0
 * for any other (CMYK, Lab) or for bytes that are not a profile libpng
 * would embed (shorter than its header or its tag table, a length field
 * that is not len, no 'acsp', a device link or abstract class, a PCS
 * neither XYZ nor Lab, a tag outside the profile).
 */
int img_icc_space(const unsigned char *p, size_t len);

/*
 * Whether img written as fmt carries icc: the format holds a profile
 * (PNG, JPEG, TIFF, WebP), and the profile describes the image as
 * written - GRAY for a gray image, RGB for a colour one (WebP, which
 * stores gray as RGB, takes RGB ones only).  A gray image of a colour
 * input (a gray tool's output) so drops the input's RGB profile.
 */
int img_icc_fits(const struct img_icc *icc, const struct image *img,
    enum img_format fmt);

/*
 * Moves the profile of the image that img_read_next last gave into
 * *icc, freeing what *icc held; empty when the image had none.
 */
void img_reader_take_icc(struct img_reader *r, struct img_icc *icc);

/*
 * Appends img to f in format fmt (PNM: PGM, PPM, or PAM with alpha, at
 * img's maxval; PPM: P6, gray made RGB, alpha dropped; PAM: P7; PNG:
 * 8 bit for maxval <= 255, 16 bit above, samples scaled to 255 or 65535;
 * JPEG: 8 bit at quality (1-100, 0: IMG_JPEG_QUALITY), samples scaled to
 * 255, maxval above 255 refused; WebP: 8 bit, lossless at quality 0,
 * lossy at 1-100, maxval above 255 refused).  A PNG, JPEG, TIFF or WebP
 * file holds one image: the caller writes no second one.
 */
int img_write(FILE *f, const struct image *img, enum img_format fmt,
    int quality, const char *name, struct gf_err *e);

/*
 * img_write with img's ICC profile (NULL or empty: none), embedded when
 * img_icc_fits, else left out: a PNG's iCCP (named as it came, else
 * "ICC profile"), a JPEG's APP2 markers, a TIFF's tag 34675, a WebP's
 * ICCP chunk.
 */
int img_write_icc(FILE *f, const struct image *img, enum img_format fmt,
    int quality, const struct img_icc *icc, const char *name,
    struct gf_err *e);

/*
 * Appends rows y0 .. y1-1 of img to f as PNM of kind fmt (PNM, PPM or
 * PAM), the header first when y0 is 0: img_write's PNM output, for an
 * image whose rows arrive in strips.
 */
int img_write_rows(FILE *f, const struct image *img, enum img_format fmt,
    int y0, int y1, const char *name, struct gf_err *e);
/*
 * Whether the samples of img's PNM body of kind fmt are img->px's bytes
 * as they lie (8 bits, the same channels), so that they may be written
 * by other means after the header (img_write_rows for no rows).
 */
int img_pnm_as_is(const struct image *img, enum img_format fmt);

/* Reads the one image of a file (tests, tools); -1 if none or unreadable. */
int img_load(const char *path, struct image *img, struct gf_err *e);

/* Writes one image to path, atomically (temporary file, then rename). */
int img_save(const char *path, const struct image *img, enum img_format fmt,
    struct gf_err *e);

/*
 * img_load as a reader set so reads (gray as img_reader_set_gray, any
 * colour left then made gray in place; autorotate), the image's ICC
 * profile into *icc (NULL: not kept); img_save with a profile to embed
 * where it fits (img_write_icc).
 */
int img_load_icc(const char *path, int gray, int autorotate, struct image *img,
    struct img_icc *icc, struct gf_err *e);
int img_save_icc(const char *path, const struct image *img, enum img_format fmt,
    const struct img_icc *icc, struct gf_err *e);

/*
 * Colour to gray: Y = (299 R + 587 G + 114 B + 500) / 1000, into gray
 * (allocated here, in's size and maxval, one channel); alpha is dropped,
 * and gray+alpha gives its gray.  lib/io/gray.c.
 */
int img_to_gray(const struct image *in, struct image *gray, struct gf_err *e);
/* The same in img's own buffer, which keeps its size; img ends with one channel. */
void img_gray_in_place(struct image *img);

/*
 * n bytes for an image's worth of data, freed with free: a file read
 * whole, a PNG's inflated rows, the engine's host buffers.  Tens of
 * megabytes for a photograph, first touched page by page; in huge pages,
 * where the kernel gives them on request (transparent huge pages
 * "madvise" or "always"), that costs a quarter as much, which a large
 * PNG's read time shows.  Below 4 MB, plain malloc.
 */
void *img_big_alloc(size_t n);

/*
 * A JPEG file kept as its compressed bytes, for the GPU's JPEG engines
 * (lib/io/jpeg_gpu.h), instead of decoded: lib/io/img_jpeg_bits.c.
 */
struct img_bits_opts {
	long long max_pixels;   /* as img_reader_set_max_pixels */
	int autorotate;         /* as img_reader_set_autorotate */
	int colour;             /* colour may be taken, for its luma (a gray tool) */
	struct img_buffer buf;  /* where the bytes go; get NULL: malloc */
	struct img_icc *icc;    /* the file's ICC profile goes here; NULL: not kept */
};

struct img_jpeg_bits {
	unsigned char *p;       /* len bytes: the whole file, SOI to EOI */
	size_t len;
	int width, height;      /* as stored, before orientation */
	int components;         /* 1 gray, 3 YCbCr */
	int orientation;        /* EXIF 1-8 to apply (1 with autorotate off) */
};

/*
 * Whether file f's first bytes (at offset 0, whatever f's position; read
 * by pread, f untouched) are a JPEG's, as the format table sniffs them:
 * the cheap test before img_jpeg_bits_read, which makes it again.
 */
int img_jpeg_bits_sniff(FILE *f);

/*
 * Reads the regular file f (name in messages) whole into b when it is
 * one JPEG image, nothing after it, that the engines decode as libjpeg's
 * gray decode does (Huffman-coded, sequential, 8-bit, one scan; gray,
 * or with o->colour YCbCr at 4:4:4, 4:2:2, 4:2:0 or 4:4:0) and whose
 * header passes the reader's checks (sides, memory, o->max_pixels).
 * Returns 1 with b; 0 for any other file, f untouched (pread only):
 * read it with img_read_next, which gives its own verdict; -1 with e
 * when the file cannot be read or held.  Nothing is decoded.
 */
int img_jpeg_bits_read(FILE *f, const char *name, const struct img_bits_opts *o,
    struct img_jpeg_bits *b, struct gf_err *e);

/*
 * Whether the len bytes at p, a stream's JPEG frame (struct img_frame's
 * first len), are one image that the engines decode as img_jpeg_bits_read
 * takes a file, by the same checks (o->buf unused): 1 with b, whose p is
 * p (not copied); 0 for any other, which the stream's reader decodes.
 */
int img_jpeg_frame_bits(const unsigned char *p, size_t len, const char *name,
    const struct img_bits_opts *o, struct img_jpeg_bits *b);

/*
 * One JPEG of a stream kept as its bytes, SOI to EOI, to be decoded on
 * another thread (the engine's decode pool, lib/engine/engine_split.c): p holds
 * len bytes, then tail bytes of what followed it in the stream (up to
 * IMG_FRAME_TAIL: libjpeg-turbo's Huffman decoder takes a faster path
 * when more bytes wait in its buffer, and on damaged data the two paths
 * differ, so a lone decode must see the buffers the stream's reader
 * would); file: the stream was a regular file.  p is malloc'd, grown by
 * the reader as frames need (cap); the caller frees it.  width, height
 * and channels are the header's, as the reader decodes it (before
 * orientation).
 */
struct img_frame {
	unsigned char *p;
	size_t len, tail, cap;
	int file;
	int width, height, channels;
};

/* The most bytes a JPEG decoder reads at once: a frame's tail. */
#define IMG_FRAME_TAIL ((size_t)65536)

/*
 * When the next image of r's stream is a JPEG that decodes alone as it
 * does in the stream (its EOI found by a marker walk; its header parses,
 * passes the reader's checks and its size limits, and the frame holds
 * the coded data its first scan needs), reads its bytes into fr and
 * leaves the stream just past it, as img_read_next would, counting it
 * read: 1.  Decoded by img_read_next from a reader of its bytes (with
 * img_reader_set_frame and the same settings), it gives the image, or the error, that the
 * stream's reader would.  0 when it is not such a JPEG or the stream
 * ends: the stream as it was (what was read is given back); read it
 * with img_read_next, which gives its verdict.  -1 with e when out of
 * memory, or when what follows the last image is not one (libnetpbm's
 * verdict, as img_read_next gives it).
 */
int img_jpeg_frame_read(struct img_reader *r, struct img_frame *fr,
    struct gf_err *e);

/*
 * Makes r, opened on a memory stream of fr's len + tail bytes (fmemopen),
 * read them as the stream's reader read them (a regular file's size, or
 * a pipe's reading ahead), so that img_read_next gives what it gave.
 */
void img_reader_set_frame(struct img_reader *r, const struct img_frame *fr);

#endif
