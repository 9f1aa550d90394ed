/*
 * gf.h - what every part of gpufilt shares: the error record that library
 * functions fill instead of printing, the image in memory, and the marker
 * for functions compiled for both the host (gcc) and the GPU (nvcc).
 *
 * This header is read by C11 and by CUDA C++; keep it to plain C.
 */
#ifndef GF_H
#define GF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define GF_HD __host__ __device__ __forceinline__
#else
#define GF_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Library functions return 0 on success and -1 on failure, after writing a
 * full sentence with the offending values into an error record.  Only cmd/
 * prints it (prefixed with the program name) and decides the exit status.
 */
struct gf_err {
	char msg[512];
	int nomem;              /* set by gf_nomem: memory ran out */
};

/* Formats a message into e (printf style) and returns -1, for "return gf_fail(...)". */
int gf_fail(struct gf_err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * gf_fail for memory that ran out, where it ran out: e->nomem says so to
 * whoever turns the error into a code (libgpufilt's GF_ENOMEM).  gf_fail
 * leaves e->nomem as it is, so a message that wraps one keeps its kind.
 */
int gf_nomem(struct gf_err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * An image in host memory.  Samples are stored row-major, channels
 * interleaved, rows packed with no padding: sample (x, y, c) is at
 * index (y * width + x) * channels + c.  The sample type is uint8_t when
 * maxval <= 255 and uint16_t (host byte order) otherwise.
 */
struct image {
	int width;
	int height;
	int channels;           /* 1 gray, 2 gray+alpha, 3 RGB, 4 RGB+alpha */
	unsigned maxval;        /* 1..65535 */
	void *px;
	/*
	 * 1: the samples are signed values v held as v + 32768 (offset
	 * binary, maxval 65535: sobel --gradient x and y).  PNM and PNG
	 * write them so; TIFF writes v itself, as signed 16-bit samples.
	 */
	int offset_binary;
};

/* The colour channels of img (1 or 3): alpha, if any, is the one after them. */
static inline int
img_colour_channels(const struct image *img)
{
	return img->channels >= 3 ? 3 : 1;
}

static inline int
img_has_alpha(const struct image *img)
{
	return img->channels == 2 || img->channels == 4;
}

/* Largest width or height accepted anywhere: keeps every index in int. */
#define GF_MAX_DIM 262144

/* Bytes per sample for a maxval: 1 or 2. */
GF_HD int
gf_sample_bytes(unsigned maxval)
{
	return maxval > 255 ? 2 : 1;
}

/* Sample i (an index into px) of a host image, and storing one. */
static inline unsigned
img_get(const struct image *img, size_t i)
{
	return img->maxval > 255 ? ((const uint16_t *)img->px)[i] :
	    ((const uint8_t *)img->px)[i];
}

static inline void
img_set(struct image *img, size_t i, unsigned v)
{
	if (img->maxval > 255)
		((uint16_t *)img->px)[i] = (uint16_t)v;
	else
		((uint8_t *)img->px)[i] = (uint8_t)v;
}

/* Bytes of the pixel buffer of img (checked against overflow when read). */
size_t img_bytes(const struct image *img);

/*
 * The first sample of img above its maxval (an index in img_get's
 * order), or SIZE_MAX when there is none (always so for maxval 255 and
 * 65535).  The filters are planned for samples within maxval (an int32
 * sum, a histogram of maxval + 1 bins): readers check what their format
 * does not, and the server checks a client's image.
 */
size_t img_over_maxval(const struct image *img);

/* Allocates img->px for the dimensions already set in img; -1 (px NULL) if too large. */
int img_alloc(struct image *img, struct gf_err *e);

/* Allocates img as an image of like's size and maxval with channels channels. */
int img_alloc_like(struct image *img, const struct image *like, int channels,
    struct gf_err *e);

/* Frees img->px and clears the pointer. */
void img_free(struct image *img);

/*
 * Copies the NUL-terminated text src into dst (size n, always terminated)
 * with every byte outside printable ASCII written as \xNN and a final
 * newline dropped: reasons from decoder libraries quote bytes of the
 * file, which must never reach a terminal raw.  An empty src gives
 * "no reason given".  Returns dst.
 */
char *gf_escape(char *dst, size_t n, const char *src);

/* A monotonic clock in milliseconds, for the -v timings. */
double gf_now_ms(void);
/* The time ms milliseconds from now, for pthread_cond_timedwait. */
struct timespec;
void gf_deadline(struct timespec *ts, long ms);
/*
 * Host memory a process may pin for its images: an eighth of the
 * machine's, 2 GiB at most (the engine's slots, the server's windows).
 */
size_t gf_pinned_budget(void);

#ifdef __cplusplus
}
#endif

#endif
