/*
 * conv2d_fast8.cu - conv2d's 8-bit 2D kernels with the kernel size fixed
 * at compile time: sliding and shared on float or dp4a accumulators, and
 * shared on the tensor cores where the taps fit a byte (conv8.cuh says
 * why they equal the reference).
 */
#include "conv8.cuh"

extern __shared__ __align__(16) unsigned char conv2d_smem[];

/*
 * sliding, 8 bit: thread (tx, ty) of block (bx, by) owns the chunk at
 * column 16 * (bx * bw + tx) and output rows (by * bh + ty) * rows, ...,
 * reading the image through L1.
 */
template <int K, int M>
__global__ void __launch_bounds__(FAST_THREADS, FAST_MINB(K))
conv8_sliding(gpu_image in, gpu_image out, conv2d_coef c, int rows)
{
	const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
	const int ybeg = (blockIdx.y * blockDim.y + threadIdx.y) * rows;

	if (x0 >= in.width || ybeg >= in.height)
		return;
	const conv8_rows_global<K> g = {in, x0, c.border};
	walk8<K, M>(g, ybeg, min(ybeg + rows, in.height), out, x0, c);
}

/*
 * shared, 8 bit: a block of bw x bh threads makes a tile of 16 * bw
 * columns and bh * rows rows.  It copies the tile's input rows (bh * rows
 * + K - 1, from K/2 above) into shared memory, each row as bw + 2 aligned
 * 16-byte chunks (one more either side, for the horizontal apron;
 * stride 16 * bw + 32 bytes), synchronizes, and then each thread walks its
 * chunk down its rows (ty * rows, ...) from the tile.
 */
template <int K, int M>
__global__ void __launch_bounds__(FAST_THREADS, FAST_MINB(K))
conv8_shared(gpu_image in, gpu_image out, conv2d_coef c, int rows)
{
	uint8_t *tile = (uint8_t *)conv2d_smem;
	const int bw = blockDim.x, bh = blockDim.y;
	const int th = bh * rows, stride = 16 * bw + 32, nrows = th + K - 1;
	const int bx0 = blockIdx.x * 16 * bw, by0 = blockIdx.y * th;
	const int nchunks = bw + 2, nt = bw * bh;
	const int tid = threadIdx.y * bw + threadIdx.x;

	for (int i = tid; i < nrows * nchunks; i += nt) {
		const int r = i / nchunks, cx = i % nchunks;
		const int yi = gf_border_index(by0 - K / 2 + r, in.height, c.border);
		const int x = bx0 - 16 + 16 * cx;
		uint4 v = make_uint4(0, 0, 0, 0);
		if (yi >= 0) {
			const uint8_t *row = gf_row<uint8_t>(in, yi);
			if (x >= 0 && x + 16 <= in.width) {
				v = __ldg((const uint4 *)(row + x));
			} else {
				uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
				for (int b = 0; b < 16; b++) {
					int xi = gf_border_index(x + b, in.width, c.border);
					uint32_t s = xi < 0 ? 0u : (uint32_t)__ldg(row + xi);
					w[b / 4] |= s << (8 * (b % 4));
				}
				v = make_uint4(w[0], w[1], w[2], w[3]);
			}
		}
		*(uint4 *)(tile + r * stride + 16 * cx) = v;
	}
	__syncthreads();
	const int x0 = bx0 + 16 * threadIdx.x, ybeg = by0 + threadIdx.y * rows;
	if (x0 >= in.width || ybeg >= in.height)
		return;
	const conv8_rows_smem sr = {tile + 16 + 16 * threadIdx.x, stride, by0 - K / 2};
	walk8<K, M>(sr, ybeg, min(ybeg + rows, in.height), out, x0, c);
}

/*
 * shared, 8 bit, taps in dp4a's range: the tensor cores (kernels/mma.cuh).
 * A block of 8 x bh threads (bh 16 or 32: groups of 4 warps, mma_shape)
 * makes a tile of 128 columns and th = bh * rows rows.  It copies the
 * tile's th + K - 1 input rows into shared memory, then each warp makes
 * 16 x 32 output pieces (four 16 x 8 products side by side, K rows each)
 * into the output tile, whose lines the block stores as 16-byte vectors.
 * The int32 sums are the dp4a kernels'.  PLAIN says the plan neither
 * divides nor takes |v|: the bias then starts the sums and the finish is
 * a clamp; otherwise it is conv2d_finish_i32.
 */
template <int K, bool PLAIN>
__global__ void __launch_bounds__(FAST_THREADS)
conv8_mma(gpu_image in, gpu_image out, conv2d_coef c, int rows)
{
	uint8_t *tile = (uint8_t *)conv2d_smem;
	const int nt = 8 * blockDim.y, tid = threadIdx.y * 8 + threadIdx.x;
	const int th = blockDim.y * rows, nrows = th + K - 1;
	const int bx0 = blockIdx.x * MMA_TW, by0 = blockIdx.y * th;
	uint8_t *otile = tile + nrows * MMA_IS;

	mma_load_tile(tile, in, bx0, by0 - K / 2, nrows, c.border, tid, nt);
	const int lane = tid & 31, g = lane >> 2, t = lane & 3;
	uint32_t b[K];
#pragma unroll
	for (int i = 0; i < K; i++)
		b[i] = mma_bword<K>(lane, c_taps.qtaps + i * CONV_DP4A_W);
	const int32_t d0 = PLAIN ? (int32_t)c.bias : 0;
	const int maxval = (int)c.maxval;
	__pipeline_wait_prior(0);
	__syncthreads();

	/* Warp w: column group w % 4 (32 columns), bands w / 4, + nt / 128, ... */
	const int xg = 32 * ((tid >> 5) & 3);
	const uint8_t *src0 = tile + g * MMA_IS + 12 + xg + 4 * t;
	uint8_t *dst0 = otile + g * MMA_OS + xg + 2 * t;
	for (int y = 16 * (tid >> 7); y < th; y += nt / 8) {
		if (by0 + y >= in.height)
			break;
		const uint8_t *src = src0 + y * MMA_IS;
		uint8_t *dst = dst0 + y * MMA_OS;
#pragma unroll
		for (int n = 0; n < 4; n++) {
			uint32_t a[K + 8];
#pragma unroll
			for (int r = 0; r < K + 8; r++)
				if (r < K || r >= 8)
					a[r] = *(const uint32_t *)(src + r * MMA_IS + 8 * n);
			int32_t d[4] = {d0, d0, d0, d0};
#pragma unroll
			for (int i = 0; i + 1 < K; i += 2) {
				const uint32_t ai[4] = {a[i], a[i + 8], a[i + 1], a[i + 9]};
				mma_k32(d, ai, b[i], b[i + 1]);
			}
			if (K % 2 == 1)
				mma_k16(d, a[K - 1], a[K + 7], b[K - 1]);
			unsigned f[4];
#pragma unroll
			for (int k = 0; k < 4; k++)
				f[k] = PLAIN ? (unsigned)min(max(d[k], 0), maxval) :
				    conv2d_finish_i32(d[k], &c);
			*(uint16_t *)(dst + 8 * n) = (uint16_t)__byte_perm(f[0], f[1], 0x0040);
			*(uint16_t *)(dst + 8 * MMA_OS + 8 * n) =
			    (uint16_t)__byte_perm(f[2], f[3], 0x0040);
		}
	}
	__syncthreads();
	mma_store_tile(otile, out, bx0, by0, th, tid, nt);
}

/* What a launch of a fast 2D kernel is given. */
struct fast8_args {
	gpu_image in, out;
	conv2d_coef c;
	const gf_launch *l;
	dim3 grid, block;
	cudaStream_t st;
};

/* shared: on the tensor cores where they take the taps and shape. */
template <int K, int M>
static void
run8_shared(const fast8_args &a)
{
	const size_t smem = fast_smem(a.c, GF_SHARED, a.l);

	if (M == CONV8_DP4A && mma_takes(a.c, a.l)) {
		if (a.c.div == 1 && !a.c.abs)
			conv8_mma<K, true><<<a.grid, a.block, smem, a.st>>>(a.in, a.out,
			    a.c, a.l->rows);
		else
			conv8_mma<K, false><<<a.grid, a.block, smem, a.st>>>(a.in, a.out,
			    a.c, a.l->rows);
	} else {
		conv8_shared<K, M><<<a.grid, a.block, smem, a.st>>>(a.in, a.out, a.c,
		    a.l->rows);
	}
}

template <int K, int M>
static void
run8_sliding(const fast8_args &a)
{
	conv8_sliding<K, M><<<a.grid, a.block, 0, a.st>>>(a.in, a.out, a.c,
	    a.l->rows);
}

/*
 * The fast kernels' column of the strategy table, for size K and mode
 * M: shared and sliding have one (fast_k says for which plans).
 */
template <int K, int M>
struct fast8_kernels {
	static void (*const run[GF_NSTRATEGIES])(const fast8_args &a);
};

template <int K, int M>
void (*const fast8_kernels<K, M>::run[GF_NSTRATEGIES])(const fast8_args &a) = {
	NULL, NULL, NULL, NULL, /* auto, cpu, global, texture: none */
	run8_shared<K, M>, run8_sliding<K, M>,
};

/* The fast 2D kernel of strategy (shared or sliding) for size K and mode M. */
template <int K, int M>
static void
launch_fast2d_km(int strategy, const gpu_image &in, const gpu_image &out,
    const conv2d_coef &c, const gf_launch *l, cudaStream_t st)
{
	int th = l->block_h * l->rows, tw = 16 * l->block_w;
	fast8_args a = {in, out, c, l,
	    dim3((in.width + tw - 1) / tw, (in.height + th - 1) / th),
	    dim3(l->block_w, l->block_h), st};

	if (fast8_kernels<K, M>::run[strategy] != NULL)
		fast8_kernels<K, M>::run[strategy](a);
}

template <int M>
static void
launch_fast2d_m(int strategy, const gpu_image &in, const gpu_image &out,
    const conv2d_coef &c, const gf_launch *l, cudaStream_t st)
{
	switch (c.kw) {
	case 3: launch_fast2d_km<3, M>(strategy, in, out, c, l, st); break;
	case 5: launch_fast2d_km<5, M>(strategy, in, out, c, l, st); break;
	case 7: launch_fast2d_km<7, M>(strategy, in, out, c, l, st); break;
	default: launch_fast2d_km<9, M>(strategy, in, out, c, l, st); break;
	}
}

/* The fast 2D kernel of strategy for c's mode (conv2d_launch_2d's 8-bit path). */
cudaError_t
conv2d_launch_fast8(int strategy, const gpu_image &in, const gpu_image &out,
    const conv2d_coef &c, const gf_launch *l, cudaStream_t st)
{
	if (c.dp4a)
		launch_fast2d_m<CONV8_DP4A>(strategy, in, out, c, l, st);
	else if (c.mode == CONV2D_F32)
		launch_fast2d_m<CONV2D_F32>(strategy, in, out, c, l, st);
	else
		launch_fast2d_m<CONV2D_I32>(strategy, in, out, c, l, st);
	return cudaGetLastError();
}

cudaError_t
conv2d_fast8_set_taps(const struct conv2d_taps *t, cudaStream_t st)
{
	return cudaMemcpyToSymbolAsync(c_taps, t, sizeof(*t), 0,
	    cudaMemcpyHostToDevice, st);
}
