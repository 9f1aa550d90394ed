/*
 * img_int.h - what the image readers and writers of lib/img_*.c share
 * behind lib/io/img.h: the reader's state, the sniffed first bytes of a
 * stream, the size and pixel-limit check every decoder makes from the
 * header before decoding a pixel, and the one place where a decoder's
 * pixels get their memory.  Private to lib/io/img*.c.
 */
#ifndef GF_IMG_INT_H
#define GF_IMG_INT_H

#include <stdio.h>
#include <sys/types.h>

#include "img.h"

/* Bytes sniffed from the start of a non-PNM stream: the largest header we parse (BMP). */
#define IMG_HEAD_MAX 64

/*
 * One image format, a row of the one table of them (lib/io/img_format.c):
 * what -f takes, the output names that choose it, the extensions it
 * writes, the most bits a sample it writes, how its first bytes are
 * recognised, its reader and its writer.  The parser of -f, the choice
 * by extension, the messages that list formats, shell completion and
 * the man pages' lists (tests/t_man.sh) all read the table.  A format is
 * a file of its own (lib/img_<name>.c: sniff, read, write) and a row.
 */
struct img_format_row {
	enum img_format id;     /* IMG_FORMAT_NONE: read, not written */
	const char *name;       /* in messages ("WebP"); PNM's kinds all "PNM" */
	const char *words[3];   /* what -f takes, the first the one offered; NULL-ended */
	const char *exts[3];    /* output names that choose it (.jpg .jpeg) */
	const char *writes[4];  /* the extensions it writes, by the image (PNM: pgm ppm pam) */
	unsigned bits;          /* the most bits a sample it writes: 8 or 16; 0: none */
	unsigned flags;         /* IMG_ROW_* */
	/* Whether the first n bytes of a stream (up to IMG_HEAD_MAX) are this format. */
	int (*sniff)(const unsigned char *b, size_t n);
	/*
	 * The next image: 1, or -1 with e set.  A format that reads one
	 * file as several images (TIFF's pages) keeps its state in r->state
	 * with r->open its row: img_read_next then calls read again, which
	 * gives 0 after the last image, and img_reader_close calls close.
	 */
	int (*read)(struct img_reader *r, struct image *img, struct gf_err *e);
	/*
	 * img to f, whole; quality as img_write takes it; icc NULL, or a
	 * profile that img_icc_fits, to embed; -1 with e set.
	 */
	int (*write)(FILE *f, const struct image *img, enum img_format fmt,
	    int quality, const struct img_icc *icc, const char *name,
	    struct gf_err *e);
	/* Frees what read keeps in r->state between images; NULL: it keeps none. */
	void (*close)(void *state);
	/*
	 * The default row's (PNM's, libnetpbm's rule): past the whitespace
	 * after an image of a stream, whether another image follows (*more),
	 * or -1 with e.
	 */
	int (*more)(struct img_reader *r, int *more, struct gf_err *e);
};

/*
 * Knows where it ends, so may follow and be followed by another image
 * in a stream (PNM, PNG, JPEG, WebP); the others may only stand alone.
 */
#define IMG_ROW_STREAM  1u
/* Read by its library from the FILE: sniffed from the one byte peeked (PNM). */
#define IMG_ROW_FILE    2u
/* Written for no extension and standard output; named last in advice. */
#define IMG_ROW_DEFAULT 4u

/* The rows, in the order messages and man pages list them, and their count. */
extern const struct img_format_row img_formats[];
extern const size_t img_nformats;

/* The row of a format we write (AUTO: the default's). */
const struct img_format_row *img_format_row(enum img_format f);

/*
 * The formats whose samples reach 16 bits, as advice ("PNG (.png), TIFF
 * (.tif) or PNM (.pgm, .ppm, .pam)"), in buf (n bytes): buf.
 */
const char *img_formats_deep(char *buf, size_t n);

/*
 * The format that the first n bytes of a stream begin; NULL for none.
 * peeked: among those of IMG_ROW_FILE, from the one byte peeked; else
 * among the others, from the bytes sniffed into r->head.
 */
const struct img_format_row *img_format_sniff(const unsigned char *b,
    size_t n, int peeked);

/*
 * The names of the formats read that have every one of flags, joined by
 * ", " and last ("PNM, WebP, PNG or JPEG"), in buf (n bytes): buf.
 */
const char *img_format_names(unsigned flags, const char *last, char *buf,
    size_t n);

/* Room for any list of formats that lib/io/img_format.c writes. */
#define IMG_FORMAT_LIST_MAX 512

struct img_reader {
	FILE *f;
	const char *name;
	int nread;              /* images read so far */
	int done;               /* stream ended */
	/*
	 * The format of the image just read when it cannot tell where it ends
	 * (BMP, TGA, GIF, a TIFF from a pipe): nothing but whitespace may
	 * follow it; NULL for one that can (img_read_next).
	 */
	const char *endless;
	long long max_pixels;   /* width * height above this is refused; 0: no limit */
	struct img_buffer buf;  /* where pixels go; get == NULL: img_alloc */
	struct image sizing;    /* the image get was last asked for (no px) */
	unsigned char head[IMG_HEAD_MAX]; /* sniffed bytes, read before f's */
	size_t nhead;           /* bytes in head */
	size_t hpos;            /* bytes of head already consumed */
	int autorotate;         /* apply JPEG's and TIFF's orientation tags */
	int gray;               /* a colour JPEG comes out as its luma (img_reader_set_gray) */
	const struct img_format_row *open; /* the format whose state is open */
	void *state;            /* its state between images (TIFF's pages) */
	unsigned char *back;    /* a pipe's bytes given back (img_reader_unread): */
	size_t nback, bpos;     /* back[bpos..nback) come before f's */
	int stacked;            /* f is the reader's, over the caller's (img.c) */
	long long file_size;    /* > 0: f is memory read as a file of this size */
	const unsigned char *check_p; /* a JPEG is checked, not decoded: the */
	size_t check_len;       /* reader's bytes (img_reader_set_check) */
	long outside;           /* the last check's luma blocks outside the engines' range */
	struct img_jpeg_plan *plan;     /* the check plans the walk (img_reader_set_plan) */
	struct img_icc icc;     /* the last image's ICC profile (img_reader_take_icc) */
};

/*
 * Reads up to n bytes of the stream: what is left of head, then f.
 * Returns the count; fewer than n only at the end of the file or on an
 * error (ferror(r->f)).
 */
size_t img_reader_bytes(struct img_reader *r, void *buf, size_t n);

/*
 * Gives back the end of what img_reader_bytes returned: the n bytes at p,
 * read past the end of an image (JPEG's decoder reads in blocks), so
 * that the stream stands where the image ended, with the sniffed bytes
 * not yet consumed, for whatever follows it.  A file is sought back; a
 * pipe's bytes wait in r->back, which the reader reads before f's.  0,
 * or -1 with e set.
 */
int img_reader_unread(struct img_reader *r, const void *p, size_t n,
    struct gf_err *e);

/* The next byte of the stream, left unread; EOF at its end or on an error. */
int img_reader_peek(struct img_reader *r);

/*
 * Past the whitespace after an image: whether another image follows
 * (*more), or -1 with e (libnetpbm's verdict on what follows).
 */
int img_reader_skip_space(struct img_reader *r, int *more, struct gf_err *e);

/*
 * Puts r's stream, a regular file, at offset off of it, the sniffed
 * bytes dropped: past an image read by offset (PNG), where the next
 * one starts.  0, or -1 with e set.
 */
int img_reader_seek(struct img_reader *r, off_t off, struct gf_err *e);

/*
 * Reads the stream, from its sniffed bytes on, into *buf (malloc'd): up
 * to most bytes, fewer at the end of the file.  -1 on a read error.
 */
int img_reader_slurp(struct img_reader *r, unsigned long long most,
    unsigned char **buf, size_t *len, struct gf_err *e);

/*
 * A stream read whole into memory, from its sniffed bytes on, for
 * decoders that want every byte at once (PNG) or whose libraries seek
 * (TIFF from a pipe).  A regular file is read, not mapped: a mapped file
 * that shrinks under the reader kills it with SIGBUS, a read one only
 * comes up short.
 */
struct img_input {
	const unsigned char *p; /* malloc'd */
	size_t len;
};

/*
 * The most bytes of a stream read whole for a pixel limit (0: none):
 * every pixel in 16-bit RGBA plus IMG_INPUT_SLACK, at most the machine's
 * memory.
 */
#define IMG_INPUT_SLACK (16u << 20)
long long img_input_cap(long long max_pixels);

/*
 * Whether r's stream is a regular file; then *start is where its sniffed
 * bytes began and *size the bytes from there on.
 */
int img_reader_file(struct img_reader *r, off_t *start, off_t *size);

/*
 * n bytes of fd from offset off into buf, through short reads and
 * signals: the count, less than n only at the end of the file, or -1.
 */
ssize_t img_pread(int fd, void *buf, size_t n, off_t off);

/*
 * Puts the rest of r's stream in *in; a stream longer than
 * img_input_cap is refused, naming format ("PNG", "TIFF").
 */
int img_reader_input(struct img_reader *r, const char *format,
    struct img_input *in, struct gf_err *e);
void img_input_free(struct img_input *in);

/*
 * Refuses sizes that do not fit the tools, the machine or the pixel
 * limit, from the header, before anything is allocated or decoded.
 */
int img_check_size(const struct img_reader *r, long width, long height,
    int channels, unsigned maxval, struct gf_err *e);

/* Gives img (dimensions set) its pixel memory: the caller's buffer or img_alloc. */
int img_reader_alloc(struct img_reader *r, struct image *img, struct gf_err *e);

/* Undoes img_reader_alloc after a failed read. */
void img_reader_release(struct img_reader *r, struct image *img);

/*
 * Turns img, decoded as stored, the way an EXIF or TIFF orientation
 * (1-8) says it is displayed: 5-8 swap width and height.  The pixels
 * stay in img->px (the count of bytes does not change); other values
 * leave img as it is.  lib/io/img_orient.c.
 */
int img_orient(struct image *img, int orientation, struct gf_err *e);

/*
 * The Orientation (1-8) in IFD0 of an EXIF block of n bytes at p,
 * "Exif\0\0" then a TIFF header, or the TIFF header alone (WebP's EXIF
 * chunk); 1 (as stored) when there is none or the block is unreadable.
 * libexif bounds every offset by the block's length.  lib/io/img_orient.c.
 */
int img_exif_orientation(const unsigned char *p, size_t n);

/*
 * Row y of img with its samples scaled from maxval to top (255 or
 * 65535, rounded half up): img's own memory when maxval is top, else
 * buf (room for a row of top's samples).
 */
const void *img_out_row(const struct image *img, int y, unsigned top,
    void *buf);

/* The sniffers, readers and writers of the table, one format per file. */
int img_pnm_sniff(const unsigned char *b, size_t n);
int img_png_sniff(const unsigned char *b, size_t n);
int img_jpeg_sniff(const unsigned char *b, size_t n);
int img_tiff_sniff(const unsigned char *b, size_t n);
int img_webp_sniff(const unsigned char *b, size_t n);
int img_bmp_sniff(const unsigned char *b, size_t n);
int img_tga_sniff(const unsigned char *b, size_t n);
int img_gif_sniff(const unsigned char *b, size_t n);
int img_pnm_read(struct img_reader *r, struct image *img, struct gf_err *e);
int img_png_read(struct img_reader *r, struct image *img, struct gf_err *e);
int img_jpeg_read(struct img_reader *r, struct image *img, struct gf_err *e);
int img_webp_read(struct img_reader *r, struct image *img, struct gf_err *e);
int img_bmp_read(struct img_reader *r, struct image *img, struct gf_err *e);
int img_tga_read(struct img_reader *r, struct image *img, struct gf_err *e);
int img_gif_read(struct img_reader *r, struct image *img, struct gf_err *e);

/*
 * img_tiff_read reads page after page of the TIFF that the sniffed bytes
 * begin (r->state holds it open): 1 for an image, 0 after the last page.
 * img_tiff_close frees that state.
 */
int img_tiff_read(struct img_reader *r, struct image *img, struct gf_err *e);
void img_tiff_close(void *state);

/*
 * The two PNG decoders of img_png_read, over a PNG in memory (len bytes
 * from its signature on); the unit tests compare them.
 * img_png_read_libpng reads any PNG.  img_png_read_fast reads the common
 * kind (8 or 16 bits, gray, RGB, with or without alpha, not interlaced,
 * no tRNS or PLTE) when every check passes: 1 for the image, -1 with e
 * set for a size refused or no memory, 0 for any other PNG, damaged ones
 * included, having allocated nothing: libpng then gives the verdict.
 */
int img_png_read_libpng(struct img_reader *r, const unsigned char *png,
    size_t len, struct image *img, struct gf_err *e);
int img_png_read_fast(struct img_reader *r, const unsigned char *png,
    size_t len, struct image *img, struct gf_err *e);

/*
 * The fewest bytes of coded data that the first scan of the JPEG whose
 * header ci has read can have (lib/io/img_jpeg.c): the CPU reader refuses
 * an image whose stream holds fewer past the scan's header, and a
 * stream's frame taken apart from the stream (img_jpeg_frame_read) must
 * hold them itself.
 */
struct jpeg_decompress_struct;
unsigned long long img_jpeg_scan_min_bytes(struct jpeg_decompress_struct *ci);
/*
 * Has libjpeg keep, of a JPEG's APP1 markers, the first EXIF one alone
 * (lib/io/img_jpeg_exif.c), on ci->marker_list: what its orientation needs,
 * and never more than one marker's bytes.  Before jpeg_read_header.
 */
void img_jpeg_keep_exif(struct jpeg_decompress_struct *ci);
/*
 * Moves n bytes of ci's source into dst (NULL: past them), for a marker
 * processor (img_jpeg_exif.c; img_jpeg_icc.c's too); the end of the data
 * is libjpeg's error.
 */
void img_jpeg_take(struct jpeg_decompress_struct *ci, unsigned char *dst,
    size_t n);

/*
 * The walk over the coded data of ci's one scan, the n bytes at p from
 * its first (after jpeg_start_decompress), as img_jpeg_check.c says: the
 * luma blocks the GPU's engines may not decode as libjpeg does, or -1
 * when unsure (libjpeg may refuse the file, or the engines read it
 * otherwise).
 */
long img_jpeg_check_scan(struct jpeg_decompress_struct *ci,
    const unsigned char *p, size_t n);
/*
 * The same scan planned for the pieced walk (jpeg_walk.h): pl, and its
 * coded data without the stuffing into data (cap bytes; *len of them).
 * 0, or -1 when unsure before any walk (restarts, arithmetic coding,
 * data that does not end in the file's EOI).
 */
int img_jpeg_walk_plan(struct jpeg_decompress_struct *ci,
    const unsigned char *p, size_t n, struct jw_plan *pl, unsigned char *data,
    size_t cap, size_t *len);

/* Whether another PNM image follows, past whitespace (*more), or -1. */
int img_pnm_more(struct img_reader *r, int *more, struct gf_err *e);

/*
 * The writers: the whole image to f, or -1 with e set.  img_write has
 * refused a 16-bit image to a format of 8 (row bits).  JPEG: quality 0 is
 * IMG_JPEG_QUALITY; WebP: quality 0 lossless, 1-100 lossy.  icc: NULL, or
 * a profile to embed that img_icc_fits (PNM holds none).
 */
int img_pnm_write(FILE *f, const struct image *img, enum img_format fmt,
    int quality, const struct img_icc *icc, const char *name,
    struct gf_err *e);
int img_png_write(FILE *f, const struct image *img, enum img_format fmt,
    int quality, const struct img_icc *icc, const char *name,
    struct gf_err *e);
int img_jpeg_write(FILE *f, const struct image *img, enum img_format fmt,
    int quality, const struct img_icc *icc, const char *name,
    struct gf_err *e);
int img_tiff_write(FILE *f, const struct image *img, enum img_format fmt,
    int quality, const struct img_icc *icc, const char *name,
    struct gf_err *e);
int img_webp_write(FILE *f, const struct image *img, enum img_format fmt,
    int quality, const struct img_icc *icc, const char *name,
    struct gf_err *e);

/*
 * Inflates the zlib stream of n bytes at z (a PNG iCCP's), whole and
 * nothing after it, into icc: a profile's first four bytes give its
 * length, which must be 132 to IMG_ICC_MAX bytes and what the stream
 * inflates to.  So nothing is inflated past the length the header
 * claims (a bomb that claims more stops at four bytes), and its memory
 * is taken once.  1, or 0 for none.  img_icc.c.
 */
int img_icc_inflate(const unsigned char *z, size_t n, struct img_icc *icc);

/* A PNG iCCP chunk's name when the profile came with none. */
#define IMG_ICC_NAME "ICC profile"

/*
 * Whether s is a keyword libpng writes as it is: 1 to 79 Latin-1
 * printable bytes, no space first, last or beside another.
 */
int img_icc_name_ok(const char *s);

/*
 * The profile that a JPEG's APP2 ICC_PROFILE markers hold (img_jpeg_icc.c).
 * img_jpeg_keep_icc has libjpeg keep them on ci->marker_list, before
 * jpeg_read_header, checking their numbers as they come: at most one
 * marker of each number 1-255, so never more than 255 markers' bytes.
 * img_jpeg_icc then joins them into *icc (emptied first) after the
 * header, as libjpeg-turbo's jpeg_read_icc_profile does: none when they
 * disagree on their count, miss or repeat a number, or hold no byte.
 * 0, or -1 when out of memory (the image is read without it).
 */
void img_jpeg_keep_icc(struct jpeg_decompress_struct *ci);
int img_jpeg_icc(struct jpeg_decompress_struct *ci, struct img_icc *icc);

/* The most bytes a JPEG's markers hold of a profile: 255 of 65519. */
#define IMG_ICC_JPEG_MAX ((size_t)255 * 65519)

/* Little-endian fields of a header. */
static inline unsigned
img_le16(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static inline unsigned long
img_le32(const unsigned char *p)
{
	return (unsigned long)img_le16(p) | (unsigned long)img_le16(p + 2) << 16;
}

#endif
