/*
 * opts.h - the options every tool shares (-m, --cpu, --fallback, --border,
 * -f, -j, -o, --quality, --block, --rows, --device, --shard, --max-pixels,
 * --no-autorotate, --files-from, -0, --progress, --no-server, -v, -q, -h,
 * -V) and the parsers for option values, so
 * that the three tools accept and refuse values alike.
 */
#ifndef GF_OPTS_H
#define GF_OPTS_H

#include <getopt.h>

#include "border.h"
#include "gf.h"
#include "img.h"
#include "strategy.h"

/*
 * The GPUFILT_* settings that shape a run's stages, most of them the
 * tests' and the bench's knobs (man/sobel.1's ENVIRONMENT says what each
 * means).  cmd/cli_env.h fills them from the environment, in one place:
 * the library never reads it.  gf_opts_init sets each to what an unset
 * variable means.
 */
struct gf_settings {
	int strip_rows;         /* GPUFILT_STRIP_ROWS: rows per GPU strip; 0: by size */
	int lanes;              /* GPUFILT_LANES: lanes per GPU, 1 to 8; else the default */
	int staging;            /* GPUFILT_STAGING: a batch stages through pinned buffers */
	int pinned;             /* GPUFILT_PINNED: the slots' buffers are pinned */
	int read_ahead;         /* GPUFILT_READ_AHEAD: reading while the GPUs open */
	int reader_gray;        /* GPUFILT_READER_GRAY: -1 the rule; 0 GPU, 1 readers */
	int split;              /* GPUFILT_SPLIT: a stream's decoders; -1: -j's rule */
	int gpu_decode;         /* GPUFILT_GPU_DECODE: 0 CPU; 1 JPEG engines; 2 and wait; 3 the server's; -1 unset */
	int jpeg_batch;         /* GPUFILT_JPEG_BATCH: 1 to 256 a batch; else 32 */
	int jpeg_share;         /* GPUFILT_JPEG_SHARE: readers take the engines' JPEGs */
	int jpeg_fail;          /* GPUFILT_JPEG_FAIL: the engines fail JPEG K; 0: none */
	int fail_gpu, fail_at;  /* GPUFILT_FAIL_GPU D:K: GPU D breaks at image K; K 0: never */
	int dp4a;               /* GPUFILT_DP4A: conv2d's byte taps four at a time */
	const char *trace;      /* GPUFILT_TRACE: the run's trace file; NULL: none */
};

/* The most GPUs one run uses: a --device list, or the first of --device all. */
#define GF_MAX_DEVICES 32

struct gf_opts {
	enum gf_strategy strategy;
	int fallback;           /* --fallback: the CPU when a -m strategy finds no GPU */
	enum gf_border border;
	struct gf_launch launch;
	/*
	 * --device: ndevices GPU numbers, distinct, in the order given; none
	 * (ndevices 0) is the default device, or with all_devices every GPU.
	 */
	int devices[GF_MAX_DEVICES];
	int ndevices;
	int all_devices;
	/* --shard K/N: only the batch inputs of sorted position K modulo N; N 0: all */
	int shard_k, shard_n;
	long long max_pixels;   /* --max-pixels: larger images refused; 0: no limit */
	int no_autorotate;      /* --no-autorotate: keep pixels as stored (EXIF, TIFF) */
	/*
	 * The small-run rule (lib/engine/engine_small.c): with -m auto and no
	 * --device, one input (not -o) that holds one image of at most this
	 * many pixels runs on the CPU, whose work ends before a GPU would
	 * have opened.  0 (gf_opts_init's): never.  cmd/ sets
	 * GF_SMALL_PIXELS, or GPUFILT_SMALL_PIXELS.  served_small_pixels
	 * is the same rule when a server (gpufiltd) would filter the run:
	 * its GPUs are open, but an image still crosses to it and back
	 * (GF_SERVED_SMALL_PIXELS, or GPUFILT_SERVED_SMALL_PIXELS).
	 */
	long long small_pixels, served_small_pixels;
	struct gf_settings set; /* the environment's settings (cmd/cli_env.h) */
	enum img_format format;
	int quality;            /* --quality 1-100; 0: JPEG IMG_JPEG_QUALITY, WebP lossless */
	const char *outdir;     /* -o DIR: batch mode */
	int threads;            /* -j N: decoders and CPU threads; 0: online CPUs */
	const char *files_from; /* --files-from FILE: batch inputs listed there; "-": stdin */
	int null_sep;           /* -0, --null: that list's names end in NUL, not newline */
	int progress;           /* --progress: progress lines on any stderr */
	int no_server;          /* --no-server: in process, whatever GPUFILT_SERVER says */
	/*
	 * The server (gpufiltd) that filters this run's images (remote.h),
	 * or NULL: the run filters them itself.
	 */
	struct remote *remote;
	int verbose;            /* -v: a line per image */
	int quiet;              /* -q: no notices, progress or summary, even with -v */
	int help;
	int version;
};

/*
 * The tools' small_pixels: 16 MP (4096 x 4096), below the crossover
 * where a cold GPU process beats --cpu for the costliest default run
 * (conv2d -k gauss:1.4 on a colour JPEG).  bench/crossover.sh measures
 * it; the figures are in its output, not here.
 */
#define GF_SMALL_PIXELS (1LL << 24)
/*
 * The same with a warm server: 256 K pixels (512 x 512), below the
 * crossover where its round trip beats --cpu, between 64 K and 1 M
 * pixels since the server lends its buffers warm (bench/crossover.sh
 * with SERVED=1 measures it).
 */
#define GF_SERVED_SMALL_PIXELS (1LL << 18)

/* Long-option codes of the shared options; a tool numbers its own from GF_OPT_TOOL. */
enum {
	GF_OPT_CPU = 256,
	GF_OPT_BORDER,
	GF_OPT_BLOCK,
	GF_OPT_ROWS,
	GF_OPT_DEVICE,
	GF_OPT_MAX_PIXELS,
	GF_OPT_QUALITY,
	GF_OPT_FALLBACK,
	GF_OPT_SHARD,
	GF_OPT_NO_AUTOROTATE,
	GF_OPT_FILES_FROM,
	GF_OPT_PROGRESS,
	GF_OPT_NO_SERVER,
	GF_OPT_TOOL = 300
};

#define GF_SHORTOPTS "m:f:j:o:vqhV0"
#define GF_LONGOPTS \
	{"cpu", no_argument, NULL, GF_OPT_CPU}, \
	{"fallback", no_argument, NULL, GF_OPT_FALLBACK}, \
	{"border", required_argument, NULL, GF_OPT_BORDER}, \
	{"block", required_argument, NULL, GF_OPT_BLOCK}, \
	{"rows", required_argument, NULL, GF_OPT_ROWS}, \
	{"device", required_argument, NULL, GF_OPT_DEVICE}, \
	{"max-pixels", required_argument, NULL, GF_OPT_MAX_PIXELS}, \
	{"quality", required_argument, NULL, GF_OPT_QUALITY}, \
	{"shard", required_argument, NULL, GF_OPT_SHARD}, \
	{"no-autorotate", no_argument, NULL, GF_OPT_NO_AUTOROTATE}, \
	{"files-from", required_argument, NULL, GF_OPT_FILES_FROM}, \
	{"null", no_argument, NULL, '0'}, \
	{"progress", no_argument, NULL, GF_OPT_PROGRESS}, \
	{"no-server", no_argument, NULL, GF_OPT_NO_SERVER}, \
	{"help", no_argument, NULL, 'h'}, \
	{"version", no_argument, NULL, 'V'}

/* The names of --border, in the order of enum gf_border. */
#define GF_NBORDERS 4
extern const char *const gf_border_names[GF_NBORDERS];

/*
 * The smallest Gaussian sigma accepted (edge --sigma, conv2d gauss:): below
 * it 2 sigma^2 underflows and the taps are not numbers.
 */
#define GF_MIN_SIGMA 1e-3

/*
 * Sets the defaults: auto strategy, replicate border, PNM/auto format,
 * 2^28 pixels, and settings as with no GPUFILT_* variable set.
 */
void gf_opts_init(struct gf_opts *o);

/*
 * Handles option c (as getopt_long returned it) if it is a shared one:
 * returns 1 if handled, 0 if it is not shared, -1 on a bad value (e).
 */
int gf_opts_common(struct gf_opts *o, int c, const char *arg,
    struct gf_err *e);

/*
 * The message for an option getopt_long refused (its optstring begins
 * with ':'): c is the '?' or ':' it returned, and optopt and optind are as
 * it left them.  Names the option as the user meant it (-w, or a long
 * option's full name) and what was wrong: unknown, ambiguous, a missing
 * value, or a value given to an option that takes none.  Returns -1.
 */
int gf_opts_refused(int c, char *const *argv, const struct option *longopts,
    struct gf_err *e);

/*
 * Value parsers: the whole string must be a number in [lo, hi]; a number
 * that does not fit a long or a double is "out of range", not "not a number".
 */
int gf_parse_int(const char *s, const char *what, long lo, long hi,
    long *v, struct gf_err *e);
/*
 * The check of gf_parse_double for a number given as a number (the
 * library's options): not NaN, within [lo, hi]; the same messages.
 */
int gf_check_double(double v, const char *what, double lo, double hi,
    struct gf_err *e);
int gf_parse_double(const char *s, const char *what, double lo, double hi,
    double *v, struct gf_err *e);
int gf_parse_border(const char *s, enum gf_border *b, struct gf_err *e);

/*
 * --colour of sobel and edge: "gray" (both 0), "channels" (*channels 1:
 * each colour channel alone) or "max" (*max 1: the largest-gradient
 * channel); -1 with e naming the three if s is none of them.
 */
int gf_parse_colour(const char *s, int *channels, int *max,
    struct gf_err *e);

/*
 * --device: "all", or GPU numbers 0 to 1023 separated by commas ("0,2,3"),
 * none twice, at most GF_MAX_DEVICES, into o's devices.  -1 with e
 * quoting the value and saying what is wrong.
 */
int gf_parse_devices(const char *s, struct gf_opts *o, struct gf_err *e);

/* --shard: "K/N", decimal, 1 <= N <= 1000000 and 0 <= K < N, into o. */
int gf_parse_shard(const char *s, struct gf_opts *o, struct gf_err *e);

#endif
