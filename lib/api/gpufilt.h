/*
 * gpufilt.h - libgpufilt, the public C API of gpufilt: the filters of the
 * tools sobel(1), conv2d(1) and edge(1), with the same options, on
 * images in host memory (on a GPU or the CPU) and on device buffers in a
 * CUDA program's stream.  The manual is gpufilt(3).
 *
 * Nothing here prints or exits: every call returns GF_OK or an error
 * code, and fills the caller's gf_error (when not NULL) with a sentence
 * that names the values.  Calls on different contexts share no state but
 * the device's constant memory, which the library guards; one context
 * may be used from several threads, its calls then run one at a time.
 *
 * This header needs neither CUDA's headers nor a C++ compiler: a
 * cudaStream_t is a struct CUstream_st *, which the device calls take.
 */
#ifndef GPUFILT_H
#define GPUFILT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header; gf_version() gives the library's. */
#define GF_VERSION_MAJOR 0
#define GF_VERSION_MINOR 1
#define GF_VERSION_STRING "0.1"
#define GF_VERSION_NUMBER (GF_VERSION_MAJOR * 10000 + GF_VERSION_MINOR * 100)

/* The error codes; gf_strerror() says each in words. */
enum {
	GF_OK = 0,
	GF_EINVAL,      /* an argument or option value refused before anything ran */
	GF_ENOMEM,      /* out of host memory */
	GF_ENOGPU,      /* a GPU was asked for and none is usable */
	GF_ECUDA,       /* the GPU run failed (a CUDA call, device memory, a launch) */
	GF_EIMAGE       /* gf_load or gf_save: a file unreadable, unwritable or refused */
};

/* What failed: the code returned, and a full sentence (never a newline). */
typedef struct gf_error {
	int code;
	char message[512];
} gf_error;

/*
 * An image.  Row y starts at (char *)data + y * stride; each row holds
 * width pixels of channels samples, interleaved; samples are uint8_t
 * when maxval <= 255, else uint16_t in host byte order.  stride 0 means
 * packed rows (width * channels * sample bytes).  Images that the
 * library makes (gf_load, the host filters' output) are packed and
 * freed with gf_image_free.
 *
 * Device images (the *_device calls) have one channel, data a device
 * pointer aligned to 256 bytes and stride a multiple of 256, as
 * cudaMallocPitch gives.
 *
 * offset_binary 1 says that the samples are signed values g held as
 * g + 32768 (maxval 65535), as gf_sobel gives the gradients "x" and "y"
 * (and sets it); gf_save then writes them as sobel(1) writes those: to
 * TIFF as signed 16-bit samples (SampleFormat INT, g itself), to PNM
 * and PNG as they are.  gf_load and the other filters give 0; the
 * filters read samples as unsigned whatever it says, and the device
 * calls neither read nor set it.
 */
typedef struct gf_image {
	int width, height;
	int channels;           /* 1 gray, 2 gray+alpha, 3 RGB, 4 RGB+alpha */
	unsigned maxval;        /* 1 to 65535 */
	size_t stride;          /* bytes from a row to the next; 0: packed */
	void *data;
	int offset_binary;      /* signed samples, g + 32768 (see above) */
} gf_image;

/*
 * The options of the three tools, by the tools' names for them (but
 * op for --operator, a word of C++); each filter reads the shared ones
 * and its own.  gf_options_init gives the tools' defaults.
 */
typedef struct gf_options {
	/* Shared (sobel(1)'s OPTIONS). */
	const char *strategy;   /* -m: "auto" (NULL), "cpu", "global", "texture", "shared", "sliding" */
	const char *border;     /* --border: "replicate" (NULL), "zero", "reflect", "wrap" */
	int threads;            /* -j: CPU threads; 0: one per CPU online */
	int block_w, block_h;   /* --block WxH: threads per block; 0 0: the strategy's */
	int rows;               /* --rows: rows per thread; 0: the strategy's */
	int l1;                 /* sobel --norm l1, edge --l1: |gx| + |gy| */
	int auto_threshold;     /* sobel -t auto, edge --auto: Otsu's threshold */
	/*
	 * sobel and edge --colour: "gray" (NULL): colour made gray, one
	 * channel; "channels": each colour channel filtered alone, alpha
	 * kept (the output has the input's channels), as vips sobel;
	 * "max": at each pixel the gradient of the colour channel whose
	 * gradient is largest (the first on ties), one channel, alpha
	 * ignored, as OpenCV's Canny on colour.  On an image of one colour
	 * channel (gray, gray+alpha, a device image) "max" gives "gray"'s.
	 */
	const char *colour;
	/* sobel */
	double threshold;       /* -t T: an edge map; < 0 (the default): the magnitude */
	/*
	 * --gradient: "magnitude" (NULL), "direction", "x" or "y"; x and y
	 * are the signed gradients at 16 bits (maxval 65535), each sample
	 * g + 32768 (offset binary: flip its top bit for an int16; the
	 * output's offset_binary says so).
	 */
	const char *gradient;
	int depth;              /* --depth 16: the magnitude at 16 bits; 0: the input's */
	/* --operator: "sobel" (NULL, 3x3), "prewitt", "scharr", "sobel5", "sobel7" */
	const char *op;
	/* conv2d */
	const char *kernel;     /* -k: "1 2 1; 2 4 2; 1 2 1", "@file", "gauss:1.4", ... */
	int normalize;          /* --normalize */
	double divisor;         /* --divisor D; 0: none */
	double bias;            /* --bias B */
	int abs;                /* --abs */
	int no_separable;       /* --no-separable */
	/* edge */
	double sigma;           /* --sigma: 1.4; 0: no smoothing */
	double low, high;       /* --low, --high; < 0 (the default): not given */
	/*
	 * --low and --high as edge(1) reads them, in place of low and high:
	 * a magnitude ("40"), a percentage of the range of the image's
	 * magnitudes ("30%") or a quantile of them ("q0.9"); NULL (the
	 * default): not given.  quantiles (--quantiles): a plain number in
	 * them is a quantile, and high_spec is needed.
	 */
	const char *low_spec, *high_spec;
	int quantiles;
} gf_options;

/* A device (or the CPU) and what it keeps between calls: opaque. */
typedef struct gf_context gf_context;

/* gf_open's device: the default GPU if there is one, else the CPU. */
#define GF_DEVICE_AUTO (-1)
/* gf_open's device: the CPU alone. */
#define GF_DEVICE_CPU (-2)

/* The library's version, "0.1". */
const char *gf_version(void);

/* The code's meaning in words ("no usable GPU"); never NULL. */
const char *gf_strerror(int code);

/* The tools' defaults: auto strategy, replicate border, sigma 1.4. */
void gf_options_init(gf_options *o);

/*
 * Opens a context on GPU number device (0, 1, ...), GF_DEVICE_AUTO or
 * GF_DEVICE_CPU; NULL with err on failure (GF_ENOGPU when a GPU number
 * was asked and is not usable).  Release with gf_close.
 */
gf_context *gf_open(int device, gf_error *err);
void gf_close(gf_context *ctx);

/* The GPU number the context runs on, or -1 for the CPU. */
int gf_device(const gf_context *ctx);

/*
 * The filters on host images.  in is any image (sobel and edge make
 * colour gray first and ignore alpha, unless colour says otherwise;
 * conv2d filters each colour channel and keeps alpha); *out is made here
 * (packed; gf_image_free), offset_binary set for sobel's gradients "x"
 * and "y".  They run
 * on the context's GPU unless o->strategy is "cpu" or the context is the
 * CPU's; o NULL means the defaults (conv2d needs a kernel).  The result
 * is the tool's, bit for bit, on any strategy.
 */
int gf_sobel(gf_context *ctx, const gf_image *in, gf_image *out,
    const gf_options *o, gf_error *err);
int gf_conv2d(gf_context *ctx, const gf_image *in, gf_image *out,
    const gf_options *o, gf_error *err);
int gf_edge(gf_context *ctx, const gf_image *in, gf_image *out,
    const gf_options *o, gf_error *err);

/*
 * The filters on one-channel device images (see gf_image) in stream
 * (a cudaStream_t; NULL: the default stream): out is in's size and
 * maxval (65535, uint16_t samples, for sobel's gradient "x" and "y" and
 * depth 16).  The work is queued in stream order; a call returns before it
 * ends, except that -t auto and --auto wait for stream to read their
 * threshold back, and a conv2d kernel whose taps differ from the last
 * one's on the device waits for the device.  The library holds its own
 * CUDA runtime (static), beside any the program links: device pointers
 * and streams are the driver's, the same in every runtime of a process
 * (a cudaStream_t is a CUstream), so the program's may be passed here.
 */
struct CUstream_st;
int gf_sobel_device(gf_context *ctx, const gf_image *in, const gf_image *out,
    const gf_options *o, struct CUstream_st *stream, gf_error *err);
int gf_conv2d_device(gf_context *ctx, const gf_image *in,
    const gf_image *out, const gf_options *o, struct CUstream_st *stream,
    gf_error *err);
int gf_edge_device(gf_context *ctx, const gf_image *in, const gf_image *out,
    const gf_options *o, struct CUstream_st *stream, gf_error *err);

/* gf_load's flags. */
#define GF_LOAD_GRAY 1          /* as sobel and edge read: gray (see below) */
#define GF_LOAD_AS_STORED 2     /* no orientation applied (--no-autorotate) */

/*
 * Reads the first image of a file in any format the tools read (PNM,
 * PNG, JPEG, TIFF, WebP, BMP, TGA, GIF), turned as its EXIF or TIFF
 * orientation says unless GF_LOAD_AS_STORED; a floating-point TIFF as
 * 16 bit, 0 to 1 being black to white (sobel(1)).  With GF_LOAD_GRAY,
 * colour comes out gray, one channel, as sobel(1) and edge(1) make it:
 * a colour JPEG as its luma (the Y plane it stores), other colour as
 * (299 R + 587 G + 114 B + 500) / 1000, alpha dropped; gf_sobel and
 * gf_edge make colour gray by that formula, so only an image loaded
 * gray gives the tools' bytes for a colour JPEG.  gf_save writes one
 * image in the format of the name's extension (.pgm .ppm .pam .png .jpg
 * .tif .webp; PNM without one), whole or not at all; an offset_binary
 * image (maxval 65535, else refused) as sobel(1) writes its signed
 * gradients.
 */
int gf_load(const char *path, gf_image *img, int flags, gf_error *err);
int gf_save(const char *path, const gf_image *img, gf_error *err);

/*
 * gf_load, and the ICC profile the file embeds: *icc (free it with free)
 * of *icc_len bytes, or NULL and 0 when it has none (or one of more than
 * 16 MiB, or JPEG APP2 markers that disagree on their numbers, which
 * libjpeg-turbo takes as none too).  The profile is the file's bytes,
 * whatever flags: a colour file's RGB profile describes no image loaded
 * with GF_LOAD_GRAY.
 */
int gf_load_icc(const char *path, gf_image *img, int flags, void **icc,
    size_t *icc_len, gf_error *err);

/*
 * gf_save with an ICC profile of icc_len bytes (icc NULL: none), embedded
 * as the tools embed their input's: in a PNG, JPEG, TIFF or WebP, when
 * the profile's header is sound and its colour space is the image's (a
 * GRAY profile for one or two channels, RGB for three or four; WebP,
 * which stores gray as RGB, RGB only); else the image is saved without
 * it.  PNM holds none.
 */
int gf_save_icc(const char *path, const gf_image *img, const void *icc,
    size_t icc_len, gf_error *err);

/* Frees what gf_load or a host filter made; data becomes NULL. */
void gf_image_free(gf_image *img);

#ifdef __cplusplus
}
#endif

#endif
