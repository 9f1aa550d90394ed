/*
 * mma.cuh - 8-bit stencils on the tensor cores: the fragments, and the
 * tiles with their loads and stores, of conv2d's shared kernel for 8-bit
 * images and taps (kernels/conv2d_fast8.cu conv8_mma), kept apart from it as
 * the part another integer stencil would reuse.
 *
 * Row i of a K x K kernel (K <= 9) applied to the 8 outputs at columns
 * x0 .. x0 + 7 is a product with a banded matrix: out[n] += sum over k of
 * p(x0 - 4 + k) * B_i[k][n], k < 16, with B_i[k][n] = tap[i][k - 4 - n +
 * K/2] (0 off the row).  Sixteen output rows at once make it a matrix
 * product, D (16 rows x 8 columns) += A_i x B_i, where row m of A_i is
 * the 16 input bytes of image row m + i - K/2 from x0 - 4: one warp-wide
 * mma.sync, u8 samples times s8 taps into int32, the tensor cores'
 * integer path.  Two tap rows go to an m16n8k32 (A's halves are rows i
 * and i', B's are B_i and B_i'), a row alone to an m16n8k16.  Every
 * product and sum is an integer, so the result is exact, and equal to any
 * other order's.
 *
 * Fragments (PTX ISA, mma.m16n8k32 for .u8/.s8), lane = 4g + t: A: word 0
 * holds A[g][4t .. 4t+3], word 1 A[g+8][4t ..], words 2 and 3 the same at
 * k + 16; B: word 0 holds B[4t .. 4t+3][g], word 1 the same at k + 16; D:
 * D[g][2t], D[g][2t+1], D[g+8][2t], D[g+8][2t+1].  m16n8k16 is the first
 * half of each.  So a lane's A words are 4 input bytes at one row, read
 * from shared memory as one aligned word, and its B words are 4
 * consecutive taps of one row, the same for every tile.
 *
 * Tiles are MMA_TW = 128 columns wide (a block is 8 threads across).  An
 * input line holds the tile's 8 chunks and one either side (image columns
 * bx0 - 16 .. bx0 + 143 at bytes 0 .. 159), an output line its 128
 * bytes.  Line strides are odd multiples of 16 bytes, so the 8 rows of a
 * fragment fall in 8 different groups of 4 banks; being constants, every
 * offset within a piece is an immediate.
 */
#ifndef GF_MMA_CUH
#define GF_MMA_CUH

#include "stencil.cuh"          /* and cp.async */

#define MMA_TW 128
#define MMA_IS 176              /* input line stride */
#define MMA_OS 144              /* output line stride */

/* Shared memory of a th-row tile for a kernel of kh rows: input and output. */
static __host__ __device__ __forceinline__ size_t
mma_smem(int kh, int th)
{
	return (size_t)(th + kh - 1) * MMA_IS + (size_t)th * MMA_OS;
}

/* c + the four products of a's bytes (unsigned) and b's (signed). */
static __device__ __forceinline__ int32_t
dp4a_us(uint32_t a, uint32_t b, int32_t c)
{
#ifdef __CUDA_ARCH__
	int32_t d;
	asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
	return d;
#else
	for (int i = 0; i < 4; i++)
		c += (int32_t)((a >> 8 * i) & 0xff) * (int32_t)(int8_t)(b >> 8 * i);
	return c;
#endif
}

/* d += a (16 x 32 u8) b (32 x 8 s8), in the fragments above. */
static __device__ __forceinline__ void
mma_k32(int32_t *d, const uint32_t *a, uint32_t b0, uint32_t b1)
{
#ifdef __CUDA_ARCH__
	asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 "
	    "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
	    : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
	    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#elif defined(GF_EMU_H)
	/* The emulator's (tests/emu): every lane's words, then the layout's sums. */
	const int lane = (threadIdx.y * blockDim.x + threadIdx.x) & 31;
	const int g = lane >> 2, t = lane & 3;
	int w[6][32];
	for (int i = 0; i < 4; i++)
		emu_warp_gather((int)a[i], w[i]);
	emu_warp_gather((int)b0, w[4]);
	emu_warp_gather((int)b1, w[5]);
	for (int q = 0; q < 4; q++)
		for (int e = 0; e < 2; e++) {
			const uint32_t lo = w[4][4 * (2 * t + e) + q], hi = w[5][4 * (2 * t + e) + q];
			d[e] = dp4a_us(w[0][4 * g + q], lo, dp4a_us(w[2][4 * g + q], hi, d[e]));
			d[2 + e] = dp4a_us(w[1][4 * g + q], lo,
			    dp4a_us(w[3][4 * g + q], hi, d[2 + e]));
		}
#endif
}

/* d += a (16 x 16 u8) b (16 x 8 s8). */
static __device__ __forceinline__ void
mma_k16(int32_t *d, uint32_t a0, uint32_t a1, uint32_t b0)
{
#ifdef __CUDA_ARCH__
	asm("mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 "
	    "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
	    : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
	    : "r"(a0), "r"(a1), "r"(b0));
#elif defined(GF_EMU_H)
	const uint32_t a[4] = {a0, a1, 0, 0};
	mma_k32(d, a, b0, 0);
#endif
}

/*
 * This lane's B word (g = lane / 4, t = lane % 4) for a tap row of a K x
 * K kernel whose taps, as signed bytes, are packed in p[0 .. 2] (tap j in
 * byte j % 4 of p[j / 4], 0 past K): taps j .. j + 3 with j = 4t - 4 - g +
 * K/2, 0 off the row, cut from the row laid after 12 zero bytes.
 */
template <int K>
static __device__ __forceinline__ uint32_t
mma_bword(int lane, const uint32_t *p)
{
	const int o = 4 * (lane & 3) + 8 - (lane >> 2) + K / 2;   /* 12 + j */
	const int q = o >> 2;
	uint32_t lo = q == 3 ? p[0] : q == 4 ? p[1] : q == 5 ? p[2] : 0;
	uint32_t hi = q == 2 ? p[0] : q == 3 ? p[1] : q == 4 ? p[2] : 0;

	return __funnelshift_r(lo, hi, 8 * (o & 3));
}

/*
 * The 16 bytes of image row yi (mapped; -1: zeros) from column x (a
 * multiple of 16) into dst in shared memory: asynchronously when they lie
 * inside the image, else byte by byte through the border rule.
 */
static __device__ __forceinline__ void
mma_fill(uint8_t *dst, const gpu_image &in, int yi, int x, int border)
{
	const uint8_t *row = gf_row<uint8_t>(in, yi < 0 ? 0 : yi);

	if (yi < 0 || (x >= 0 && x + 16 <= in.width)) {
		__pipeline_memcpy_async(dst, row + (yi < 0 ? 0 : x), 16,
		    yi < 0 ? 16 : 0);
		return;
	}
	*(uint4 *)dst = gf_chunk_border<uint8_t>(row, x, in.width, border);
}

/*
 * Thread tid of nt copies its share of the nrows input lines of the tile
 * at column bx0 whose line 0 is image row y_top (border applied), and
 * commits the copies; the caller waits for them.
 */
static __device__ __forceinline__ void
mma_load_tile(uint8_t *tile, const gpu_image &in, int bx0, int y_top,
    int nrows, int border, int tid, int nt)
{
	/* Chunk ci of line r: image columns bx0 - 16 + 16 ci. */
	const bool inside = bx0 >= 16 && bx0 + MMA_TW + 16 <= in.width;
	for (int i = tid; i < nrows * 10; i += nt) {
		const int r = i / 10, ci = i - 10 * r, y = y_top + r;
		const int yi = gf_border_index(y, in.height, border);
		uint8_t *dst = tile + r * MMA_IS + 16 * ci;
		if (inside && yi >= 0)
			__pipeline_memcpy_async(dst, gf_row<uint8_t>(in, yi) + bx0 -
			    16 + 16 * ci, 16);
		else
			mma_fill(dst, in, yi, bx0 - 16 + 16 * ci, border);
	}
	__pipeline_commit();
}

/* Thread tid of nt stores its share of the th output lines of the tile at (bx0, by0). */
static __device__ __forceinline__ void
mma_store_tile(const uint8_t *otile, const gpu_image &out, int bx0, int by0,
    int th, int tid, int nt)
{
	for (int i = tid; i < th * 8; i += nt) {
		const int r = i >> 3, x = bx0 + 16 * (i & 7), y = by0 + r;
		if (y >= out.height)
			break;
		if (x >= out.width)
			continue;
		const uint4 v = *(const uint4 *)(otile + r * MMA_OS + 16 * (i & 7));
		uint8_t *row = gf_row_out<uint8_t>(out, y);
		if (x + 16 <= out.width)
			*(uint4 *)(row + x) = v;
		else
			gf_store_bytes(row + x, v, out.width - x);
	}
}

/*
 * Whether a block of bw x bh threads runs the tensor-core kernels: 8
 * across (128 columns), groups of 4 warps (one per 32 columns), at most
 * 256 threads.
 */
static __host__ __device__ __forceinline__ bool
mma_shape(int bw, int bh)
{
	return bw == 8 && (bh == 16 || bh == 32);
}

#endif
