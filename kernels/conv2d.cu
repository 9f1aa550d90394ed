/*
 * conv2d.cu - conv2d's generic GPU kernels: the four 2D strategies
 * (global, texture, shared, sliding) and the separable row and column
 * passes, any size and depth; the launch shapes; and the launchers,
 * which hand 8-bit images to conv2d_fast8.cu and conv2d_sep.cu where a
 * fast kernel runs.
 * The taps live in constant memory (every thread of a warp reads the same
 * tap at the same time: a broadcast).  Every kernel accumulates through
 * the core of lib/ops/conv2d/conv2d_core.h in row-major tap order, so the result is
 * the CPU reference's bit for bit; they differ only in how samples arrive.
 *
 * Templates: T is the sample type (uint8_t, uint16_t), Acc the
 * accumulator of the plan's mode (int32_t, int64_t, float).
 */
#include <cuda_runtime.h>

#include "conv8.cuh"

extern __shared__ __align__(16) unsigned char conv2d_smem[];

/*
 * Sample (x, y) of d with the border applied: 0 where the border says so.
 * A plain load, not stencil.cuh's gf_load_px (__ldg): the same value,
 * but these kernels' loads stay as they were measured.
 */
template <typename T>
static __device__ __forceinline__ int
load_px(const gpu_image &d, int x, int y, int border)
{
	int bx = gf_border_index(x, d.width, border);
	int by = gf_border_index(y, d.height, border);
	return bx < 0 || by < 0 ? 0 : gf_row<T>(d, by)[bx];
}

/* global: one thread per output pixel, every sample read from global memory. */
template <typename T, typename Acc>
__global__ void
conv2d_global(gpu_image in, gpu_image out, conv2d_coef c)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	Acc acc = 0;

	if (x >= in.width || y >= in.height)
		return;
	for (int i = 0; i < c.kh; i++)
		for (int j = 0; j < c.kw; j++)
			acc = conv_ops<Acc>::mac(acc, conv_ops<Acc>::tap(i * c.kw + j),
			    load_px<T>(in, x + j - c.ax, y + i - c.ay, c.border));
	gf_store_px<T>(out, x, y, conv_ops<Acc>::finish(acc, c));
}

/* texture: as global, the samples fetched through the texture cache. */
template <typename T, typename Acc>
__global__ void
conv2d_texture(cudaTextureObject_t tex, gpu_image out, conv2d_coef c)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	Acc acc = 0;

	if (x >= out.width || y >= out.height)
		return;
	for (int i = 0; i < c.kh; i++) {
		int by = gf_border_index(y + i - c.ay, out.height, c.border);
		for (int j = 0; j < c.kw; j++) {
			int bx = gf_border_index(x + j - c.ax, out.width, c.border);
			int v = bx < 0 || by < 0 ? 0 :
			    tex2D<T>(tex, bx + 0.5f, by + 0.5f);
			acc = conv_ops<Acc>::mac(acc, conv_ops<Acc>::tap(i * c.kw + j), v);
		}
	}
	gf_store_px<T>(out, x, y, conv_ops<Acc>::finish(acc, c));
}

/*
 * shared: a block of bw x bh threads makes a tile of bw x (bh * rows)
 * outputs.  It first loads the tile plus its apron (kw - 1 columns, kh - 1
 * rows, placed by the anchor) into shared memory, row by row with
 * consecutive threads on consecutive columns (coalesced), synchronizes,
 * then computes every output from shared memory.  Thread (tx, ty) makes
 * rows ty, ty + bh, ... of the tile.
 */
template <typename T, typename Acc>
__global__ void
conv2d_shared(gpu_image in, gpu_image out, conv2d_coef c, int rows)
{
	T *tile = (T *)conv2d_smem;
	const int bw = blockDim.x, bh = blockDim.y;
	const int sw = bw + c.kw - 1, sh = bh * rows + c.kh - 1;
	const int x0 = blockIdx.x * bw, y0 = blockIdx.y * bh * rows;
	const int x = x0 + threadIdx.x;

	for (int sy = threadIdx.y; sy < sh; sy += bh)
		for (int sx = threadIdx.x; sx < sw; sx += bw)
			tile[sy * sw + sx] = load_px<T>(in, x0 + sx - c.ax,
			    y0 + sy - c.ay, c.border);
	__syncthreads();
	for (int r = 0; r < rows; r++) {
		int ty = threadIdx.y + r * bh, y = y0 + ty;
		Acc acc = 0;
		if (x >= in.width || y >= in.height)
			continue;
		for (int i = 0; i < c.kh; i++) {
			const T *s = tile + (ty + i) * sw + threadIdx.x;
			for (int j = 0; j < c.kw; j++)
				acc = conv_ops<Acc>::mac(acc,
				    conv_ops<Acc>::tap(i * c.kw + j), s[j]);
		}
		gf_store_px<T>(out, x, y, conv_ops<Acc>::finish(acc, c));
	}
}

/*
 * sliding: each thread owns column x of a strip of `rows` output rows and
 * walks down the strip's input rows once.  It keeps a window of kh
 * accumulators in registers, one per output row still open: input row u
 * adds tap row i to output row u - i.  An output opens at its first input
 * row (i = 0) and is written after its last (i = kh - 1), so each output
 * still sums tap rows in order, and each input row is read once per
 * strip.  The loop over the window is unrolled by KH (the kernel height,
 * a template parameter) so that the ring indices are constants and the
 * accumulators stay in registers; KH == 0 handles any other height with
 * the ring in local memory.
 */
template <typename T, typename Acc, int KH>
__global__ void
conv2d_sliding(gpu_image in, gpu_image out, conv2d_coef c, int rows)
{
	const int kh = KH > 0 ? KH : c.kh;
	const int x = blockIdx.x * blockDim.x + threadIdx.x;
	const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * rows;
	Acc acc[KH > 0 ? KH : CONV_MAX_K];

	if (x >= in.width || y0 >= in.height)
		return;
	const int nout = min(rows, in.height - y0), nin = nout + kh - 1;
	for (int u0 = 0; u0 < nin; u0 += kh) {
#pragma unroll
		for (int du = 0; du < kh; du++) {
			const int u = u0 + du;
			if (u >= nin)
				break;
			acc[du] = 0;
			for (int j = 0; j < c.kw; j++) {
				int v = load_px<T>(in, x + j - c.ax, y0 + u - c.ay, c.border);
#pragma unroll
				for (int i = 0; i < kh; i++)
					if (u - i >= 0 && u - i < nout)
						acc[(du - i + kh) % kh] = conv_ops<Acc>::mac(
						    acc[(du - i + kh) % kh],
						    conv_ops<Acc>::tap(i * c.kw + j), v);
			}
			if (u - (kh - 1) >= 0 && u - (kh - 1) < nout)
				gf_store_px<T>(out, x, y0 + u - (kh - 1),
				    conv_ops<Acc>::finish(acc[(du + 1) % kh], c));
		}
	}
}

/*
 * Separable row pass: tmp(x, y) = sum over j of row[j] * p(x + j - ax, y),
 * for the image's rows only (the column pass applies the border in y).
 * A block loads its tile's rows plus the horizontal apron into shared
 * memory (coalesced), synchronizes, and sums from there.
 */
template <typename T, typename R>
__global__ void
conv2d_rows(gpu_image in, R *tmp, size_t tpitch, conv2d_coef c, int rows)
{
	T *tile = (T *)conv2d_smem;
	const int bw = blockDim.x, bh = blockDim.y, th = bh * rows;
	const int sw = bw + c.kw - 1;
	const int x0 = blockIdx.x * bw, y0 = blockIdx.y * th;
	const int x = x0 + threadIdx.x;

	for (int sy = threadIdx.y; sy < th && y0 + sy < in.height; sy += bh)
		for (int sx = threadIdx.x; sx < sw; sx += bw)
			tile[sy * sw + sx] = load_px<T>(in, x0 + sx - c.ax, y0 + sy,
			    c.border);
	__syncthreads();
	for (int r = 0; r < rows; r++) {
		int ty = threadIdx.y + r * bh, y = y0 + ty;
		R acc = 0;
		if (x >= in.width || y >= in.height)
			continue;
		for (int j = 0; j < c.kw; j++)
			acc = conv_ops<R>::mac(acc, conv_ops<R>::row(j),
			    tile[ty * sw + threadIdx.x + j]);
		((R *)((char *)tmp + (size_t)y * tpitch))[x] = acc;
	}
}

/*
 * Separable column pass: out(x, y) = finish(sum over i of
 * col[i] * tmp(x, y + i - ay)), the border applied to rows of tmp.  A
 * block loads its tile's columns plus the vertical apron (coalesced),
 * synchronizes, and sums from shared memory.
 */
template <typename R, typename Acc, typename T>
__global__ void
conv2d_cols(const R *tmp, size_t tpitch, gpu_image out, conv2d_coef c,
    int rows)
{
	R *tile = (R *)conv2d_smem;
	const int bw = blockDim.x, bh = blockDim.y;
	const int sh = bh * rows + c.kh - 1;
	const int x0 = blockIdx.x * bw, y0 = blockIdx.y * bh * rows;
	const int x = x0 + threadIdx.x;

	for (int sy = threadIdx.y; sy < sh; sy += bh) {
		int by = gf_border_index(y0 + sy - c.ay, out.height, c.border);
		R v = 0;
		if (by >= 0 && x < out.width)
			v = ((const R *)((const char *)tmp + (size_t)by * tpitch))[x];
		tile[sy * bw + threadIdx.x] = v;
	}
	__syncthreads();
	for (int r = 0; r < rows; r++) {
		int ty = threadIdx.y + r * bh, y = y0 + ty;
		Acc acc = 0;
		if (x >= out.width || y >= out.height)
			continue;
		for (int i = 0; i < c.kh; i++)
			acc = conv_ops<Acc>::mac(acc, conv_ops<Acc>::col(i),
			    tile[(ty + i) * bw + threadIdx.x]);
		gf_store_px<T>(out, x, y, conv_ops<Acc>::finish(acc, c));
	}
}

/*
 * Default launch shapes by strategy, chosen by the bench's sweep
 * (build/bench/bench -s conv2d, 12288x12288): for the generic
 * kernels, and for the 8-bit fast ones, whose threads make 16 columns
 * each, up to 5x5 and wider.  The separable path runs for every strategy
 * when the plan is separable; it takes the auto row.
 */
static const struct conv2d_defaults {
	struct gf_launch generic, fast8, fast8_wide;
} conv2d_defaults[GF_NSTRATEGIES] = {
	/* generic        fast8        fast8, K > 5 */
	{{32, 8, 4},    {8, 16, 4},  {8, 16, 4}},    /* auto: the separable path */
	{{0, 0, 0},     {0, 0, 0},   {0, 0, 0}},     /* cpu */
	{{32, 8, 1},    {32, 8, 1},  {32, 8, 1}},    /* global (no fast kernel) */
	{{32, 8, 1},    {32, 8, 1},  {32, 8, 1}},    /* texture (no fast kernel) */
	{{32, 8, 4},    {16, 8, 8},  {16, 8, 8}},    /* shared */
	{{128, 1, 32},  {32, 4, 16}, {32, 4, 32}},   /* sliding */
};

/*
 * Besides the table, from the same sweep.  shared's tensor-core kernel
 * (dp4a taps): 32-row tiles of 8x16 threads up to 5x5, whose apron of
 * K - 1 rows is short, so that more blocks hide the loads; 64 rows wider,
 * where the apron costs more than the blocks gain.  The fused separable
 * kernel above 11 taps: tiles of 32 columns and 256 rows, whose row pass
 * recomputes K - 1 apron rows for 256 outputs, not 64; narrower kernels
 * measured a little slower so, and keep the auto row.
 */
static const struct gf_launch mma8 = {8, 16, 2}, mma8_wide = {8, 16, 4};
static const struct gf_launch sep8_tall = {2, 64, 4};

extern "C" void
conv2d_shape(const struct conv2d_coef *c, enum gf_strategy s,
    struct gf_launch *l)
{
	const struct conv2d_defaults *d = &conv2d_defaults[s];
	const int k = fast_k(*c, s);

	if (s == GF_AUTO && k > 11)
		gf_launch_default(s, &sep8_tall, l);
	else if (s == GF_SHARED && k != 0 && c->dp4a)
		gf_launch_default(s, k <= 5 ? &mma8 : &mma8_wide, l);
	else
		gf_launch_default(s, k == 0 ? &d->generic : k <= 5 ? &d->fast8 :
		    &d->fast8_wide, l);
}

/* shared where the tensor cores take the taps, sliding where another fast kernel runs. */
extern "C" enum gf_strategy
conv2d_auto(const struct conv2d_coef *c)
{
	return fast_k(*c, GF_SLIDING) != 0 && !c->dp4a ? GF_SLIDING : GF_SHARED;
}

extern "C" int
conv2d_tile_w(const struct conv2d_coef *c, int strategy,
    const struct gf_launch *l)
{
	return fast_runs(*c, strategy, l) ? 16 * l->block_w : l->block_w;
}

extern "C" size_t
conv2d_smem_sep(const struct conv2d_coef *c, const struct gf_launch *l)
{
	return fast_runs(*c, GF_AUTO, l) ? fast_smem(*c, GF_AUTO, l) : 0;
}

/* ---- launchers */

extern "C" size_t
conv2d_smem_tile(const struct conv2d_coef *c, const struct gf_launch *l)
{
	if (fast_runs(*c, GF_SHARED, l))
		return fast_smem(*c, GF_SHARED, l);
	return (size_t)(l->block_w + c->kw - 1) *
	    ((size_t)l->block_h * l->rows + c->kh - 1) * gf_sample_bytes(c->maxval);
}

extern "C" size_t
conv2d_smem_rows(const struct conv2d_coef *c, const struct gf_launch *l)
{
	return (size_t)(l->block_w + c->kw - 1) * l->block_h * l->rows *
	    gf_sample_bytes(c->maxval);
}

extern "C" size_t
conv2d_smem_cols(const struct conv2d_coef *c, const struct gf_launch *l)
{
	return (size_t)l->block_w * ((size_t)l->block_h * l->rows + c->kh - 1) * 4;
}

/* Every kernel file's copy of the taps. */
extern "C" cudaError_t
conv2d_set_taps(const struct conv2d_taps *t, cudaStream_t st)
{
	cudaError_t err = cudaMemcpyToSymbolAsync(c_taps, t, sizeof(*t), 0,
	    cudaMemcpyHostToDevice, st);

	if (err == cudaSuccess)
		err = conv2d_fast8_set_taps(t, st);
	if (err == cudaSuccess)
		err = conv2d_sep_set_taps(t, st);
	return err;
}

/* Blocks covering a width x height output, each making a tile of bw x (bh * rows). */
static dim3
conv2d_grid(int width, int height, const struct gf_launch *l)
{
	int th = l->block_h * l->rows;
	return dim3((width + l->block_w - 1) / l->block_w, (height + th - 1) / th);
}

template <typename T, typename Acc>
static void
launch_sliding(const gpu_image &in, const gpu_image &out, const conv2d_coef &c,
    const gf_launch *l, cudaStream_t st)
{
	dim3 grid = conv2d_grid(in.width, in.height, l);
	dim3 block(l->block_w, l->block_h);

	switch (c.kh) {
	case 3: conv2d_sliding<T, Acc, 3><<<grid, block, 0, st>>>(in, out, c, l->rows); break;
	case 5: conv2d_sliding<T, Acc, 5><<<grid, block, 0, st>>>(in, out, c, l->rows); break;
	case 7: conv2d_sliding<T, Acc, 7><<<grid, block, 0, st>>>(in, out, c, l->rows); break;
	case 9: conv2d_sliding<T, Acc, 9><<<grid, block, 0, st>>>(in, out, c, l->rows); break;
	default: conv2d_sliding<T, Acc, 0><<<grid, block, 0, st>>>(in, out, c, l->rows); break;
	}
}

/* What a launch of any generic 2D strategy is given. */
struct conv2d_args {
	gpu_image in, out;
	conv2d_coef c;
	const gf_launch *l;
	cudaTextureObject_t tex;
	cudaStream_t st;
};

template <typename T, typename Acc>
static void
run_global(const conv2d_args &a)
{
	conv2d_global<T, Acc><<<conv2d_grid(a.in.width, a.in.height, a.l),
	    dim3(a.l->block_w, a.l->block_h), 0, a.st>>>(a.in, a.out, a.c);
}

template <typename T, typename Acc>
static void
run_texture(const conv2d_args &a)
{
	conv2d_texture<T, Acc><<<conv2d_grid(a.in.width, a.in.height, a.l),
	    dim3(a.l->block_w, a.l->block_h), 0, a.st>>>(a.tex, a.out, a.c);
}

template <typename T, typename Acc>
static void
run_shared(const conv2d_args &a)
{
	conv2d_shared<T, Acc><<<conv2d_grid(a.in.width, a.in.height, a.l),
	    dim3(a.l->block_w, a.l->block_h), conv2d_smem_tile(&a.c, a.l), a.st>>>(
	    a.in, a.out, a.c, a.l->rows);
}

template <typename T, typename Acc>
static void
run_sliding(const conv2d_args &a)
{
	launch_sliding<T, Acc>(a.in, a.out, a.c, a.l, a.st);
}

/*
 * conv2d's column of the strategy table for the generic kernels, for
 * sample type T and accumulator Acc: each GPU strategy's launch; the
 * default shapes are conv2d_defaults.
 */
template <typename T, typename Acc>
struct conv2d_kernels {
	static void (*const run[GF_NSTRATEGIES])(const conv2d_args &a);
};

template <typename T, typename Acc>
void (*const conv2d_kernels<T, Acc>::run[GF_NSTRATEGIES])(const conv2d_args &a) = {
	NULL,                   /* auto: resolved before launch */
	NULL,                   /* cpu */
	run_global<T, Acc>, run_texture<T, Acc>, run_shared<T, Acc>,
	run_sliding<T, Acc>,
};

template <typename T, typename Acc>
static cudaError_t
launch_2d(int strategy, const gpu_image &in, const gpu_image &out,
    cudaTextureObject_t tex, const conv2d_coef &c, const gf_launch *l,
    cudaStream_t st)
{
	const conv2d_args a = {in, out, c, l, tex, st};

	if (strategy < 0 || strategy >= GF_NSTRATEGIES ||
	    conv2d_kernels<T, Acc>::run[strategy] == NULL)
		return cudaErrorInvalidValue;
	conv2d_kernels<T, Acc>::run[strategy](a);
	return cudaGetLastError();
}

template <typename T>
static cudaError_t
launch_2d_mode(int strategy, const gpu_image &in, const gpu_image &out,
    cudaTextureObject_t tex, const conv2d_coef &c, const gf_launch *l,
    cudaStream_t st)
{
	switch (c.mode) {
	case CONV2D_I32: return launch_2d<T, int32_t>(strategy, in, out, tex, c, l, st);
	case CONV2D_I64: return launch_2d<T, int64_t>(strategy, in, out, tex, c, l, st);
	default: return launch_2d<T, float>(strategy, in, out, tex, c, l, st);
	}
}

extern "C" cudaError_t
conv2d_launch_2d(int strategy, const struct gpu_image *in,
    const struct gpu_image *out, cudaTextureObject_t tex,
    const struct conv2d_coef *c, const struct gf_launch *l, cudaStream_t st)
{
	if (in->maxval <= 255 && fast_runs(*c, strategy, l))
		return conv2d_launch_fast8(strategy, *in, *out, *c, l, st);
	if (in->maxval > 255)
		return launch_2d_mode<uint16_t>(strategy, *in, *out, tex, *c, l, st);
	return launch_2d_mode<uint8_t>(strategy, *in, *out, tex, *c, l, st);
}

template <typename T, typename R>
static cudaError_t
launch_rows(const gpu_image &in, void *tmp, size_t tpitch, const conv2d_coef &c,
    const gf_launch *l, cudaStream_t st)
{
	conv2d_rows<T, R><<<conv2d_grid(in.width, in.height, l),
	    dim3(l->block_w, l->block_h), conv2d_smem_rows(&c, l), st>>>(
	    in, (R *)tmp, tpitch, c, l->rows);
	return cudaGetLastError();
}

extern "C" cudaError_t
conv2d_launch_rows(const struct gpu_image *in, void *tmp, size_t tmp_pitch,
    const struct conv2d_coef *c, const struct gf_launch *l, cudaStream_t st)
{
	int f = c->mode == CONV2D_F32;

	if (in->maxval > 255)
		return f ? launch_rows<uint16_t, float>(*in, tmp, tmp_pitch, *c, l, st) :
		    launch_rows<uint16_t, int32_t>(*in, tmp, tmp_pitch, *c, l, st);
	return f ? launch_rows<uint8_t, float>(*in, tmp, tmp_pitch, *c, l, st) :
	    launch_rows<uint8_t, int32_t>(*in, tmp, tmp_pitch, *c, l, st);
}

template <typename Acc, typename T>
static cudaError_t
launch_cols(const void *tmp, size_t tpitch, const gpu_image &out,
    const conv2d_coef &c, const gf_launch *l, cudaStream_t st)
{
	typedef typename row_acc<Acc>::type R;

	conv2d_cols<R, Acc, T><<<conv2d_grid(out.width, out.height, l),
	    dim3(l->block_w, l->block_h), conv2d_smem_cols(&c, l), st>>>(
	    (const R *)tmp, tpitch, out, c, l->rows);
	return cudaGetLastError();
}

template <typename T>
static cudaError_t
launch_cols_mode(const void *tmp, size_t tpitch, const gpu_image &out,
    const conv2d_coef &c, const gf_launch *l, cudaStream_t st)
{
	switch (c.mode) {
	case CONV2D_I32: return launch_cols<int32_t, T>(tmp, tpitch, out, c, l, st);
	case CONV2D_I64: return launch_cols<int64_t, T>(tmp, tpitch, out, c, l, st);
	default: return launch_cols<float, T>(tmp, tpitch, out, c, l, st);
	}
}

extern "C" cudaError_t
conv2d_launch_cols(const void *tmp, size_t tmp_pitch,
    const struct gpu_image *out, const struct conv2d_coef *c,
    const struct gf_launch *l, cudaStream_t st)
{
	if (out->maxval > 255)
		return launch_cols_mode<uint16_t>(tmp, tmp_pitch, *out, *c, l, st);
	return launch_cols_mode<uint8_t>(tmp, tmp_pitch, *out, *c, l, st);
}
