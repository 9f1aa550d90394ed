/*
 * conv8.cuh - what the 8-bit kernels of conv2d share (conv2d_fast8.cu,
 * conv2d_sep.cu): their exactness argument, loads of 16-byte chunks
 * through the border rule, the row walks, and the host's rule for when
 * a fast kernel runs and with how much shared memory.
 */
#ifndef GF_CONV8_CUH
#define GF_CONV8_CUH

#include "conv2d.cuh"
#include "mma.cuh"

/* ---- the 8-bit fast paths
 *
 * For 8-bit images whose plan accumulates in float (the real mode, or an
 * integer mode with coef.fexact), shared, sliding and the separable path
 * run kernels with the kernel size K fixed at compile time, so that every
 * loop over taps unrolls, every tap is a constant-memory operand read
 * uniformly by the warp, and the window stays in registers.  A thread
 * makes 16 consecutive outputs of a row (one 16-byte chunk).
 *
 * Exactness.  Each output still sums tap * sample with fmaf starting from
 * 0.0f, tap rows i in increasing order and, within a row, tap columns j in
 * increasing order, as the CPU reference does; in the real mode that is
 * the reference's own sequence of float operations, so the results are
 * equal bit for bit.  In an integer mode, fexact means sum|taps| * maxval
 * < 2^24 (for the separable passes also sum|row| * sum|col| * maxval <
 * 2^24): every product and every partial sum is then an integer of
 * magnitude below 2^24, which float32 represents exactly, so every fmaf
 * is exact, the accumulator ends holding the exact integer sum (in any
 * order), and (int32_t) of it equals the int32 sum of the reference; it
 * then goes through the same conv2d_finish_i32.  Samples become floats
 * exactly: 2^23 + p built by a byte permute, minus 2^23.
 */

#define FAST_THREADS 256        /* __launch_bounds__ of the fast kernels */
/*
 * Blocks of FAST_THREADS an SM that the registers of the 2D fast kernels
 * of width K must leave room for: two up to 5x5 (128 registers, none
 * spilled), so that more warps hide the loads (5x5 sliding gains most,
 * shared about the same); one for wider kernels, which at 128 registers
 * spill hundreds of bytes and lose more than the extra warps give.
 */
#define FAST_MINB(K) ((K) <= 5 ? 2 : 1)
#define FAST_SMEM 49152         /* shared memory every device gives a block */
#define SEP_R 8                 /* output rows per item of the column pass */
/*
 * The mode of the fast 2D kernels for a plan with coef.dp4a: int32
 * accumulators, each step four products of a sample byte and a signed
 * tap byte (dp4a), so a 5 x 5 output is 10 steps, not 25 fmaf.  Exact:
 * the sum is the reference's int32 sum, in any order.
 */
#define CONV8_DP4A 100

/* The accumulator of the fast kernels of mode M. */
template <int M> struct acc8 { typedef float type; };
template <> struct acc8<CONV8_DP4A> { typedef int32_t type; };

/* The bytes of image columns x0 - 16 .. x0 + 31 of one row. */
struct raw48 {
	uint4 a, b, c;
};

/*
 * Bytes 0 .. hi - 1 of the 16-byte chunk at image column xs of row, the
 * rest zero, each through the border rule (-1: zero), in a rolled loop:
 * gf_chunk_border's mirror, shifted in from the bottom so that the first
 * lands at byte hi - 1.
 */
static __device__ __forceinline__ uint4
chunk_to(const uint8_t *row, int xs, int hi, int width, int border)
{
	uint32_t w0 = 0, w1 = 0, w2 = 0, w3 = 0;

#pragma unroll 1
	for (int k = hi - 1; k >= 0; k--) {
		int xi = gf_border_index(xs + k, width, border);
		uint32_t v = xi < 0 ? 0u : (uint32_t)__ldg(row + xi);
		w3 = __funnelshift_l(w2, w3, 8);
		w2 = __funnelshift_l(w1, w2, 8);
		w1 = __funnelshift_l(w0, w1, 8);
		w0 = w0 << 8 | v;
	}
	return make_uint4(w0, w1, w2, w3);
}

/*
 * Row yi of im (mapped; -1 reads zeros) around the chunk at x0 (a
 * multiple of 16): only the bytes of columns x0 - K/2 .. x0 + 16 + (K - 1
 * - K/2) - 1 are used (K <= 33).  Inside the image, three aligned 16-byte
 * loads (the outer two are the neighbours' chunks, L1 hits).  Near the
 * left and right edges, each of the three chunks that is not wholly
 * inside is made column by column through the border rule, in a loop
 * kept rolled: unrolled in every step of a walk, that rare path was most
 * of the code of the kernels (sliding 5x5: 278 KB), whose warps then
 * waited on instruction fetch.  Only the columns used are made: K/2 on
 * the left, so the image's edge blocks stay nearly as fast as the rest.
 */
template <int K>
static __device__ __forceinline__ raw48
fetch8(const gpu_image &im, int yi, int x0, int border)
{
	const int A = K / 2, HI = K - 1 - A, W = im.width;
	raw48 r;

	r.a = r.b = r.c = make_uint4(0, 0, 0, 0);
	if (yi < 0)
		return r;
	const uint8_t *row = gf_row<uint8_t>(im, yi);
	if (x0 >= 16 && x0 + 32 <= W) {
		r.a = __ldg((const uint4 *)(row + x0 - 16));
		r.b = __ldg((const uint4 *)(row + x0));
		r.c = __ldg((const uint4 *)(row + x0 + 16));
		return r;
	}
	r.a = x0 >= 16 ? __ldg((const uint4 *)(row + x0 - 16)) :
	    gf_chunk_border<uint8_t>(row, x0 - 16, W, border, 16 - A);
	r.b = x0 + 16 <= W ? __ldg((const uint4 *)(row + x0)) :
	    gf_chunk_border<uint8_t>(row, x0, W, border);
	if (HI > 0)
		r.c = x0 + 32 <= W ? __ldg((const uint4 *)(row + x0 + 16)) :
		    chunk_to(row, x0 + 16, HI < 16 ? HI : 16, W, border);
	return r;
}

/* f[k] = sample of column x0 - K/2 + k, k < 16 + K - 1, as an exact float. */
template <int K>
static __device__ __forceinline__ void
conv8_unpack(const raw48 &r, float *f)
{
	const uint32_t w[12] = {r.a.x, r.a.y, r.a.z, r.a.w, r.b.x, r.b.y,
	    r.b.z, r.b.w, r.c.x, r.c.y, r.c.z, r.c.w};
#pragma unroll
	for (int k = 0; k < 16 + K - 1; k++) {
		const int b = 16 - K / 2 + k;
		f[k] = gf_byte_f(w[b / 4], b % 4);
	}
}

/*
 * The core's finish for the accumulator of mode M: a word whose low byte
 * is the sample.
 */
template <int M>
static __device__ __forceinline__ unsigned
finish8(typename acc8<M>::type a, const conv2d_coef &c)
{
	if constexpr (M == CONV2D_F32)
		return conv2d_round8_f32(conv2d_scale_f32(a, &c), c.maxval);
	else
		return conv2d_finish_i32((int32_t)a, &c);      /* exact: see above */
}

/* Four results (each <= 255) as the bytes of one word. */
static __device__ __forceinline__ uint32_t
pack4(unsigned a, unsigned b, unsigned c, unsigned d)
{
	return __byte_perm(__byte_perm(a, b, 0x0040), __byte_perm(c, d, 0x0040),
	    0x5410);
}

/* Finishes 16 accumulators and stores them at (x0, y), clipped at the width. */
template <int M>
static __device__ __forceinline__ void
store16(const gpu_image &out, int y, int x0, const typename acc8<M>::type *a,
    const conv2d_coef &c)
{
	unsigned r[16];
#pragma unroll
	for (int k = 0; k < 16; k++)
		r[k] = finish8<M>(a[k], c);
	uint8_t *row = gf_row_out<uint8_t>(out, y);
	if (x0 + 16 <= out.width) {
		*(uint4 *)(row + x0) = make_uint4(pack4(r[0], r[1], r[2], r[3]),
		    pack4(r[4], r[5], r[6], r[7]), pack4(r[8], r[9], r[10], r[11]),
		    pack4(r[12], r[13], r[14], r[15]));
		return;
	}
#pragma unroll
	for (int k = 0; k < 16; k++)
		if (x0 + k < out.width)
			row[x0 + k] = (uint8_t)r[k];
}

/* Rows from global memory (sliding): image row y, border applied. */
template <int K>
struct conv8_rows_global {
	gpu_image in;
	int x0, border;

	__device__ __forceinline__ raw48 operator()(int y) const
	{
		return fetch8<K>(in, gf_border_index(y, in.height, border), x0,
		    border);
	}
};

/*
 * Rows from a shared tile (shared): image row y is tile row y - y_top;
 * chunk points at the thread's chunk in tile row 0, whose neighbours
 * 16 bytes either side are in the tile too.
 */
struct conv8_rows_smem {
	const uint8_t *chunk;
	int stride, y_top;

	__device__ __forceinline__ raw48 operator()(int y) const
	{
		const uint8_t *p = chunk + (y - y_top) * stride;
		raw48 r;
		r.a = *(const uint4 *)(p - 16);
		r.b = *(const uint4 *)p;
		r.c = *(const uint4 *)(p + 16);
		return r;
	}
};

/*
 * One input row as mode M sums it: mac(i, k, a) adds tap row i's
 * products for output column k to a.  Floats: the samples as exact
 * floats, one fmaf a tap in the reference's order.
 */
template <int K, int M>
struct row8 {
	float f[16 + K - 1];

	__device__ __forceinline__ row8(const raw48 &r) { conv8_unpack<K>(r, f); }

	__device__ __forceinline__ float mac(int i, int k, float a) const
	{
#pragma unroll
		for (int j = 0; j < K; j++)
			a = fmaf(c_taps.ftaps[i * K + j], f[k + j], a);
		return a;
	}
};

/*
 * dp4a: the row's bytes as they came; output k's taps 4m .. 4m + 3 meet
 * the four bytes from byte 16 - K/2 + k + 4m on: one funnel shift (none
 * when aligned) and one dp4a.
 */
template <int K>
struct row8<K, CONV8_DP4A> {
	uint32_t w[12];

	__device__ __forceinline__ row8(const raw48 &r)
	    : w{r.a.x, r.a.y, r.a.z, r.a.w, r.b.x, r.b.y, r.b.z, r.b.w, r.c.x,
	    r.c.y, r.c.z, r.c.w} {}

	__device__ __forceinline__ int32_t mac(int i, int k, int32_t a) const
	{
#pragma unroll
		for (int m = 0; m < (K + 3) / 4; m++) {
			const int b = 16 - K / 2 + k + 4 * m;
			a = dp4a_us(__funnelshift_r(w[b / 4], w[b / 4 + 1], 8 * (b % 4)),
			    c_taps.qtaps[i * CONV_DP4A_W + m], a);
		}
		return a;
	}
};

/*
 * Output rows ybeg .. yend - 1 (yend > ybeg) of the 16 columns at x0:
 * walks down the nout + K - 1 input rows once, each read, unpacked and
 * used by the K outputs that need it; the next row is fetched before the
 * current one is used.  Input row u (image row ybeg - K/2 + u) adds tap
 * row i to the open output u - i for every i, then output u - (K - 1),
 * which has all K rows, is stored.  The accumulators are a shift
 * register, slot K - 1 - i holding output u - i, moved down one slot a
 * row.  A ring indexed by output mod K moves nothing, but needs the walk
 * unrolled K times for its indices to be constants; that made the code
 * K times larger, and the warps waited on instruction fetch: the shift
 * register measured faster at every width.
 */
template <int K, int M, class Rows>
static __device__ __forceinline__ void
walk8(const Rows &rows, int ybeg, int yend, const gpu_image &out, int x0,
    const conv2d_coef &c)
{
	const int nout = yend - ybeg, nin = nout + K - 1;
	typename acc8<M>::type acc[K][16];
	raw48 next = rows(ybeg - K / 2);

#pragma unroll
	for (int s = 0; s < K; s++)
#pragma unroll
		for (int k = 0; k < 16; k++)
			acc[s][k] = 0;
	for (int u = 0; u < nin; u++) {
		const row8<K, M> row(next);
		if (u + 1 < nin)
			next = rows(ybeg - K / 2 + u + 1);
#pragma unroll
		for (int i = 0; i < K; i++) {
			const int o = u - i;
			if (o < 0 || o >= nout)
				continue;
#pragma unroll
			for (int k = 0; k < 16; k++)
				acc[K - 1 - i][k] = row.mac(i, k, i == 0 ? 0 :
				    acc[K - 1 - i][k]);
		}
		if (u >= K - 1)
			store16<M>(out, ybeg + u - (K - 1), x0, acc[0], c);
#pragma unroll
		for (int s = 0; s < K - 1; s++)
#pragma unroll
			for (int k = 0; k < 16; k++)
				acc[s][k] = acc[s + 1][k];
	}
}

/* ---- launch shapes and the choice of the fast paths (host) */

/*
 * K when strategy (GF_SHARED, GF_SLIDING, or GF_AUTO for the separable
 * path) has an 8-bit fast kernel for c, else 0.
 */
static inline int
fast_k(const conv2d_coef &c, int strategy)
{
	if (c.maxval > 255 || c.kw != c.kh ||
	    !(c.mode == CONV2D_F32 || (c.mode == CONV2D_I32 && c.fexact)))
		return 0;
	if (strategy == GF_AUTO)
		return c.kw >= 3 && c.kw <= 25 && c.kw % 2 == 1 ? c.kw : 0;
	if (strategy == GF_SHARED || strategy == GF_SLIDING)
		return c.kw == 3 || c.kw == 5 || c.kw == 7 || c.kw == 9 ? c.kw : 0;
	return 0;
}

/*
 * Whether shared runs the tensor cores' kernel (conv8_mma) for c at
 * shape l: taps in dp4a's range, 8 threads across (128 columns), whole
 * groups of 4 warps (one per 32 columns).
 */
static inline bool
mma_takes(const conv2d_coef &c, const gf_launch *l)
{
	return c.dp4a && mma_shape(l->block_w, l->block_h);
}

/* Shared memory of the fast kernel of strategy for shape l. */
static inline size_t
fast_smem(const conv2d_coef &c, int strategy, const gf_launch *l)
{
	size_t th = (size_t)l->block_h * l->rows;

	if (strategy == GF_SHARED && mma_takes(c, l))
		return mma_smem(c.kw, (int)th);
	if (strategy == GF_SHARED)
		return (th + c.kw - 1) * (16 * (size_t)l->block_w + 32);
	if (strategy == GF_AUTO)
		return ((th + SEP_R - 1) / SEP_R * SEP_R + c.kw - 1) *
		    16 * (size_t)l->block_w * 4;
	return 0;
}

/* Whether the fast kernel runs for this shape (else the generic one does). */
static inline bool
fast_runs(const conv2d_coef &c, int strategy, const gf_launch *l)
{
	return fast_k(c, strategy) != 0 && l->block_w >= 1 && l->block_h >= 1 &&
	    l->rows >= 1 && (long)l->block_w * l->block_h <= FAST_THREADS &&
	    fast_smem(c, strategy, l) <= FAST_SMEM;
}

#endif
