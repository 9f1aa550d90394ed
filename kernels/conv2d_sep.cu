/*
 * conv2d_sep.cu - conv2d's fused 8-bit separable kernel: the row and the
 * column pass of a tile in one kernel, the kernel size fixed at compile
 * time (conv8.cuh says why it equals the reference).
 */
#include "conv8.cuh"

extern __shared__ __align__(16) unsigned char conv2d_smem[];

/*
 * The separable path, 8 bit, both passes in one kernel.  A block of
 * bw x bh threads makes a tile of 16 * bw columns and th = bh * rows rows.
 * Row pass: for the tile's th' + K - 1 input rows (th' = th rounded up to
 * SEP_R; row r is image row by0 - K/2 + r, border applied, 0.0f where
 * the border gives zeros, as the reference reads them) and each chunk, a
 * thread sums the row factors over its 16 + K - 1 window into 16 floats,
 * kept in shared memory (stride 16 * bw floats).  Synchronize.  Column
 * pass: an item is 4 columns and SEP_R output rows; it streams the
 * SEP_R + K - 1 tile rows it needs through registers (16-byte reads) and
 * adds column factor i = t - r of tile row ty + t to output row ty + r.
 */
template <int K, int M>
__global__ void __launch_bounds__(FAST_THREADS)
conv8_sep(gpu_image in, gpu_image out, conv2d_coef c, int rows)
{
	float *tmp = (float *)conv2d_smem;
	const int bw = blockDim.x, bh = blockDim.y, nt = bw * bh;
	const int tid = threadIdx.y * bw + threadIdx.x;
	const int tw = 16 * bw, th = bh * rows;
	const int thp = (th + SEP_R - 1) / SEP_R * SEP_R, nrows = thp + K - 1;
	const int bx0 = blockIdx.x * tw, by0 = blockIdx.y * th;

	for (int i = tid; i < nrows * bw; i += nt) {
		const int r = i / bw, cx = i % bw;
		const int yi = gf_border_index(by0 - K / 2 + r, in.height, c.border);
		float h[16];
#pragma unroll
		for (int k = 0; k < 16; k++)
			h[k] = 0.0f;
		if (yi >= 0) {
			float f[16 + K - 1];
			conv8_unpack<K>(fetch8<K>(in, yi, bx0 + 16 * cx, c.border), f);
#pragma unroll
			for (int k = 0; k < 16; k++) {
				float a = 0.0f;
#pragma unroll
				for (int j = 0; j < K; j++)
					a = fmaf(c_taps.frow[j], f[k + j], a);
				h[k] = a;
			}
		}
		float4 *dst = (float4 *)(tmp + r * tw + 16 * cx);
#pragma unroll
		for (int q = 0; q < 4; q++)
			dst[q] = make_float4(h[4 * q], h[4 * q + 1], h[4 * q + 2],
			    h[4 * q + 3]);
	}
	__syncthreads();
	const int ncg = tw / 4, nitems = ncg * (thp / SEP_R);
	for (int it = tid; it < nitems; it += nt) {
		const int cg = it % ncg, ty = it / ncg * SEP_R;
		const int x = bx0 + 4 * cg;
		if (x >= out.width || by0 + ty >= out.height)
			continue;
		float a[SEP_R][4];
#pragma unroll
		for (int r = 0; r < SEP_R; r++)
#pragma unroll
			for (int q = 0; q < 4; q++)
				a[r][q] = 0.0f;
#pragma unroll
		for (int t = 0; t < SEP_R + K - 1; t++) {
			const float4 v4 = *(const float4 *)(tmp + (ty + t) * tw + 4 * cg);
			const float v[4] = {v4.x, v4.y, v4.z, v4.w};
#pragma unroll
			for (int r = 0; r < SEP_R; r++) {
				const int i = t - r;
				if (i < 0 || i >= K)
					continue;
#pragma unroll
				for (int q = 0; q < 4; q++)
					a[r][q] = fmaf(c_taps.fcol[i], v[q],
					    i == 0 ? 0.0f : a[r][q]);
			}
		}
#pragma unroll
		for (int r = 0; r < SEP_R; r++) {
			const int y = by0 + ty + r;
			if (ty + r >= th || y >= out.height)
				break;
			unsigned res[4];
#pragma unroll
			for (int q = 0; q < 4; q++)
				res[q] = finish8<M>(a[r][q], c);
			uint8_t *row = gf_row_out<uint8_t>(out, y);
			if (x + 4 <= out.width) {
				*(uint32_t *)(row + x) = pack4(res[0], res[1], res[2], res[3]);
			} else {
#pragma unroll
				for (int q = 0; q < 4; q++)
					if (x + q < out.width)
						row[x + q] = (uint8_t)res[q];
			}
		}
	}
}

template <int K, int M>
static void
launch_sep_km(const gpu_image &in, const gpu_image &out, const conv2d_coef &c,
    const gf_launch *l, cudaStream_t st)
{
	int th = l->block_h * l->rows, tw = 16 * l->block_w;
	dim3 grid((in.width + tw - 1) / tw, (in.height + th - 1) / th);

	conv8_sep<K, M><<<grid, dim3(l->block_w, l->block_h),
	    fast_smem(c, GF_AUTO, l), st>>>(in, out, c, l->rows);
}

template <int M>
static void
launch_sep_m(const gpu_image &in, const gpu_image &out, const conv2d_coef &c,
    const gf_launch *l, cudaStream_t st)
{
	switch (c.kw) {
	case 3: launch_sep_km<3, M>(in, out, c, l, st); break;
	case 5: launch_sep_km<5, M>(in, out, c, l, st); break;
	case 7: launch_sep_km<7, M>(in, out, c, l, st); break;
	case 9: launch_sep_km<9, M>(in, out, c, l, st); break;
	case 11: launch_sep_km<11, M>(in, out, c, l, st); break;
	case 13: launch_sep_km<13, M>(in, out, c, l, st); break;
	case 15: launch_sep_km<15, M>(in, out, c, l, st); break;
	case 17: launch_sep_km<17, M>(in, out, c, l, st); break;
	case 19: launch_sep_km<19, M>(in, out, c, l, st); break;
	case 21: launch_sep_km<21, M>(in, out, c, l, st); break;
	case 23: launch_sep_km<23, M>(in, out, c, l, st); break;
	default: launch_sep_km<25, M>(in, out, c, l, st); break;
	}
}

extern "C" cudaError_t
conv2d_launch_sep(const struct gpu_image *in, const struct gpu_image *out,
    const struct conv2d_coef *c, const struct gf_launch *l, cudaStream_t st)
{
	if (in->maxval > 255 || !fast_runs(*c, GF_AUTO, l))
		return cudaErrorInvalidValue;
	if (c->mode == CONV2D_F32)
		launch_sep_m<CONV2D_F32>(*in, *out, *c, l, st);
	else
		launch_sep_m<CONV2D_I32>(*in, *out, *c, l, st);
	return cudaGetLastError();
}

cudaError_t
conv2d_sep_set_taps(const struct conv2d_taps *t, cudaStream_t st)
{
	return cudaMemcpyToSymbolAsync(c_taps, t, sizeof(*t), 0,
	    cudaMemcpyHostToDevice, st);
}
