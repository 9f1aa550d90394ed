/*
 * conv2d.h - a 2D filter given by its taps: parsing kernels (-k), the
 * CPU reference, and the GPU dispatch over the strategy table: the
 * plan, the tool's filter and the kernels' launchers (lib/ops/conv2d/conv2d.c,
 * lib/ops/conv2d/kspec.c, kernels/conv2d*.cu).
 */
#ifndef GF_CONV2D_H
#define GF_CONV2D_H

#include "border.h"
#include "conv2d_core.h"
#include "gf.h"
#include "gpu.h"
#include "strategy.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A kernel: kh rows of kw taps, row-major, anchor at (kw/2, kh/2).
 * integer: every tap is an integer (exact integer arithmetic).
 * separable: taps[i][j] == col[i] * row[j] (exactly for integer taps,
 * within 1e-6 of the largest |tap| for real ones).
 * normalized: a named kernel meant to be divided by its tap sum (box:N),
 * as if --normalize had been given.  unit_sum: taps that stand for a
 * kernel summing to 1 (gauss), not divided by their sum unless asked.
 * unit: the taps are unit times the kernel they stand for (gauss's fixed
 * point: KSPEC_GAUSS_ONE^2), so every divisor is multiplied by it; 0 is 1.
 */
struct kspec {
	int kw, kh;
	int integer;
	int separable;
	int normalized;
	int unit_sum;
	double unit;
	double taps[CONV_MAX_K * CONV_MAX_K];
	double col[CONV_MAX_K];
	double row[CONV_MAX_K];
	char note[160];         /* how the text was read, for -v; "" if as written */
};

/*
 * The most values one row may hold when it is the kernel's only row:
 * it is then read as a square (kspec_parse).
 */
#define KSPEC_MAX_ROW1 (CONV_MAX_K * CONV_MAX_K)

/* log:SIGMA's fixed point (its taps are this times the kernel) and smallest sigma. */
#define KSPEC_LOG_ONE 65536
#define KSPEC_LOG_MIN_SIGMA 0.5

/* unsharp:SIGMA,AMOUNT's largest AMOUNT. */
#define KSPEC_UNSHARP_MAX 16

/* Largest |tap| accepted, so that integer sums always fit in int64. */
#define KSPEC_MAX_TAP 1e9

struct conv2d_filter {
	struct kspec k;
	int normalize;          /* --normalize */
	double divisor;         /* --divisor, 0 if not given */
	double bias;            /* --bias */
	int abs;                /* --abs: the response's magnitude */
	enum gf_border border;
	int allow_separable;    /* 0 with --no-separable */
	int no_dp4a;            /* GPUFILT_DP4A=0: byte taps summed as others (the bench) */
};

/*
 * Whether p divides by its tap sum: with --normalize; for box:N, meant
 * to be; and, as ImageMagick's -convolve does, for a kernel none of
 * whose taps is negative (a blur: undivided, 1 2 1 makes nearly every
 * pixel white), but not gauss (unit_sum).  Never with --divisor
 * (--divisor 1 keeps the sum).  A sum of 0 divides by 1 (the unit).
 */
int conv2d_normalizes(const struct conv2d_filter *p);

/*
 * Parses -k text: inline rows ("1 2 1; 2 4 2; 1 2 1", values split by
 * spaces or commas, rows by ';' or newlines, '#' starts a comment),
 * where one row of an odd square count of values and no ';' (9, 25 ...)
 * is read as a square, as ImageMagick reads it (k->note says so);
 * ImageMagick's "WxH[+X+Y]: values"; @file with the same text; or a
 * named kernel (box:N, gauss:SIGMA[:SIZE], log:SIGMA, dog:S1,S2,
 * unsharp:SIGMA,AMOUNT, sharpen, laplace, laplacian[:4|:8], prewitt[x|y],
 * scharrx, scharry, emboss, sobelx, sobely, identity).  -1 with a
 * message naming the bad row or value.
 */
int kspec_parse(const char *text, struct kspec *k, struct gf_err *e);
/*
 * From now on, kspec_parse refuses @FILE: for a process (the server) that
 * must never open a file its clients name.
 */
void kspec_no_files(void);
/* The text of kernel file path (what -k @path reads), malloc'd, into *text. */
int kspec_read_file(const char *path, char **text, struct gf_err *e);

/*
 * The named kernels for shell completion, blank-separated, in w (n
 * bytes): "box: gauss: sharpen ...".
 */
void kspec_names(char *w, size_t n);

/* The smallest divisor magnitude: below it taps / divisor leave float's range. */
#define KSPEC_MIN_DIVISOR 1e-9

/*
 * Parses --divisor: a number within +-KSPEC_MAX_TAP whose magnitude is at
 * least KSPEC_MIN_DIVISOR (0 would divide by zero, tinier ones overflow).
 */
int kspec_parse_divisor(const char *text, double *d, struct gf_err *e);
/* The same check of a divisor given as a number (the library's options). */
int kspec_check_divisor(double d, struct gf_err *e);

/*
 * The normalized Gaussian gauss:SIGMA[:SIZE] in fixed point: 1D taps
 * exp(-(i-r)^2 / (2 SIGMA^2)) / sum over SIZE taps (0: 2*ceil(3*SIGMA)+1),
 * made integers summing to KSPEC_GAUSS_ONE by gauss_round (lib/ops/conv2d/kspec.c),
 * and with SIZE 0 the end pairs that round to 0 dropped.  The 2D taps
 * are the products, the divisor their sum, KSPEC_GAUSS_ONE^2: an integer
 * kernel, exact on every path.
 */
#define KSPEC_GAUSS_ONE 256
int kspec_gauss(struct kspec *k, double sigma, int size, struct gf_err *e);

/* Fills integer and separable (with col, row) from taps, kw and kh. */
void kspec_classify(struct kspec *k);

/*
 * CPU reference (lib/ops/conv2d/conv2d_cpu.c): out gets in's size, channels and
 * maxval; each colour channel is filtered, alpha copied.  nthreads threads (0: the CPUs online); the result does not
 * depend on it.
 */
int conv2d_cpu(const struct image *in, struct image *out,
    const struct conv2d_filter *p, int nthreads, struct gf_err *e);

/*
 * The GPU path, device to device, on one channel: the strategy s with the
 * launch shape l (or the separable passes when p allows and the kernel is
 * separable).  Used by conv2d and by edge's smoothing stage.
 */
int conv2d_gpu(struct gpu *g, const struct gpu_image *in,
    struct gpu_image *out, const struct conv2d_filter *p,
    enum gf_strategy s, const struct gf_launch *l, struct gf_err *e);

/*
 * How a kernel runs on images of one maxval, decided once on the host
 * and obeyed by the CPU reference and the GPU alike: the arithmetic
 * mode, the divisor and bias, and whether the separable passes run.
 * The separable path runs when allowed, the kernel is rank one, and
 * (integer modes) every row sum fits the int32 intermediate.  A real
 * separable kernel then gives the separable result on the CPU too.
 */
struct conv2d_plan {
	struct conv2d_coef coef;
	int separable;
	struct conv2d_taps taps;
};

int conv2d_plan_make(const struct conv2d_filter *p, unsigned maxval,
    struct conv2d_plan *pl, struct gf_err *e);

/*
 * conv2d_gpu without the planning: launches pl's path with the taps that
 * are already in constant memory (conv2d_set_taps(&pl->taps, ...)).  For
 * timing kernels alone (make bench).
 */
int conv2d_gpu_run(struct gpu *g, const struct gpu_image *in,
    const struct gpu_image *out, const struct conv2d_plan *pl,
    enum gf_strategy s, const struct gf_launch *l, struct gf_err *e);

/*
 * The GPU strategy conv2d runs for auto: the fastest in make bench
 * (bench/figures.md).  sliding where the 8-bit fast kernels run and the
 * taps do not go to the tensor cores; shared elsewhere.
 */
enum gf_strategy conv2d_auto(const struct conv2d_coef *c);

/*
 * The CPU path's finish of n accumulators of mode CONV2D_I32 into
 * samples: conv2d_finish_i32 of each, computed so that it vectorizes
 * (exposed for the test that proves the two equal).
 */
void conv2d_finish_row_i32(const int32_t *acc, uint16_t *res, int n,
    const struct conv2d_coef *c);

/*
 * ---- kernels/conv2d*.cu: launch shapes and launchers (no allocation, no
 * copies of images)
 */

/*
 * Completes l for strategy s, or GF_AUTO for the separable path, from
 * the defaults table in kernels/conv2d.cu: the row of the 8-bit fast
 * kernel when s has one for c (its threads make 16 columns each, so its
 * blocks are narrower), else the generic row.
 */
void conv2d_shape(const struct conv2d_coef *c, enum gf_strategy s,
    struct gf_launch *l);

/* Dynamic shared memory of each tiled kernel, for shape checks and launches. */
size_t conv2d_smem_tile(const struct conv2d_coef *c, const struct gf_launch *l);
size_t conv2d_smem_rows(const struct conv2d_coef *c, const struct gf_launch *l);
size_t conv2d_smem_cols(const struct conv2d_coef *c, const struct gf_launch *l);

/*
 * The columns one block of strategy covers with shape l (16 per thread
 * when the 8-bit fast kernel runs, else 1); the shared memory of the
 * fused separable kernel for l, 0 when it does not run (then the row and
 * column passes do).
 */
int conv2d_tile_w(const struct conv2d_coef *c, int strategy,
    const struct gf_launch *l);
size_t conv2d_smem_sep(const struct conv2d_coef *c, const struct gf_launch *l);

/* Both separable passes in one kernel; only when conv2d_smem_sep() > 0. */
cudaError_t conv2d_launch_sep(const struct gpu_image *in,
    const struct gpu_image *out, const struct conv2d_coef *c,
    const struct gf_launch *l, cudaStream_t st);

/* Copies the taps into constant memory, in stream order. */
cudaError_t conv2d_set_taps(const struct conv2d_taps *t, cudaStream_t st);

/* One 2D strategy (GF_GLOBAL..GF_SLIDING); tex is used by GF_TEXTURE only. */
cudaError_t conv2d_launch_2d(int strategy, const struct gpu_image *in,
    const struct gpu_image *out, cudaTextureObject_t tex,
    const struct conv2d_coef *c, const struct gf_launch *l, cudaStream_t st);

/*
 * The separable passes.  tmp holds in->height rows of in->width 4-byte
 * values (int32 for integer modes, float for the real mode), tmp_pitch
 * bytes apart.
 */
cudaError_t conv2d_launch_rows(const struct gpu_image *in, void *tmp,
    size_t tmp_pitch, const struct conv2d_coef *c, const struct gf_launch *l,
    cudaStream_t st);
cudaError_t conv2d_launch_cols(const void *tmp, size_t tmp_pitch,
    const struct gpu_image *out, const struct conv2d_coef *c,
    const struct gf_launch *l, cudaStream_t st);

#ifdef __cplusplus
}
#endif

#endif
