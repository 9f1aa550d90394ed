/*
 * edge_nms.cu - edge's gradients, non-maximum suppression and double
 * threshold on the GPU ("nms").  Every kernel hands pixels to the cores
 * of lib/ops/edge/edge_core.h, so every path equals the CPU reference
 * (lib/ops/edge/edge_cpu.c) bit for bit.
 *
 * One stencil of radius 2 (a magnitude needs a 3x3 neighbourhood, the
 * suppression the magnitudes around a pixel), four ways:
 *
 *   global   one thread per pixel, reads through the border rule; the two
 *            neighbour magnitudes are computed only when the pixel passes
 *            the low threshold
 *   texture  the same, reads through the texture cache
 *   shared   a block copies its tile and two-pixel apron into shared
 *            memory with 16-byte loads, then each thread slides down a
 *            16-byte-wide strip of it
 *   sliding  each thread owns a 16-byte-wide column strip and slides a
 *            window of input rows and of magnitude rows down it in
 *            registers, loading each input row once per strip (8-bit
 *            rows through a ring of copies four rows ahead, rows_ring8)
 *
 * Both strip walks fuse the gradient, the suppression and the double
 * threshold into one pass that writes a one-byte class per pixel.  For
 * 8-bit images (strip8) they run in float (edge_core.h's *f cores,
 * exact there), keep input rows packed four samples to a
 * register and one magnitude row live, and choose without branches;
 * 16-bit images (strip) keep unpacked rows, three magnitude rows and the
 * 64-bit cores.
 *
 * The thresholds come from the host, or (--auto) from device memory
 * written by Otsu's search (otsu.cu) on the same stream.
 */

#include "edge.h"
#include "gradient.cuh"
#include "stencil.cuh"

__device__ __forceinline__ struct grad_thresh
thresholds(const struct grad_thresh &p, const struct grad_thresh *dp)
{
	return dp != NULL ? *dp : p;
}

template <typename P>
__global__ void
edge_nms_pixel(P src, gpu_image lab, struct grad_thresh p0,
    const struct grad_thresh *dp)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= lab.width || y >= lab.height)
		return;
	uint8_t *out = gf_row_out<uint8_t>(lab, y) + x;
	if (edge_in_frame(x, y, lab.width, lab.height)) {
		*out = EDGE_NONE;
		return;
	}
	struct grad_thresh p = thresholds(p0, dp);
	int gx, gy, dx, dy;
	grad_at(src, x, y, &gx, &gy);
	uint64_t m = grad_mag(gx, gy, p.l1);
	if (m <= p.low) {
		*out = EDGE_NONE;
		return;
	}
	int s = edge_sector(gx, gy);
	edge_sector_offset(s, &dx, &dy);
	uint64_t before = mag_at(src, x + dx, y + dy, p.l1);
	uint64_t after = mag_at(src, x - dx, y - dy, p.l1);
	*out = (uint8_t)edge_classify(m, before, after, s, &p);
}

/* ---- a strip of VEC(T) columns: shared and sliding ---- */

/*
 * The registers of one thread's strip: input rows r-2, r-1, r (columns
 * x0-2 .. x0+N+1), magnitude rows (columns x0-1 .. x0+N) and the sectors
 * of two gradient rows, two bits per column.
 */
template <typename T>
struct strip {
	enum { N = VEC(T) };
	typedef uint64_t M;
	int in0[N + 4], in1[N + 4], in2[N + 4];
	M m0[N + 2], m1[N + 2], m2[N + 2];
	uint32_t sec_prev, sec_cur;

	/* After loading input row r into in2: gradient row r-1 into m2, sec_cur. */
	__device__ __forceinline__ void grad_row(int l1)
	{
		sec_prev = sec_cur;
		sec_cur = 0;
#pragma unroll
		for (int k = 0; k < N + 2; k++) {
			int gx = sobel_gx(in0[k], in0[k + 2], in1[k], in1[k + 2],
			    in2[k], in2[k + 2]);
			int gy = sobel_gy(in0[k], in0[k + 1], in0[k + 2], in2[k],
			    in2[k + 1], in2[k + 2]);
			m0[k] = m1[k];
			m1[k] = m2[k];
			m2[k] = grad_mag(gx, gy, l1);
			if (k >= 1 && k <= N)
				sec_cur |= (uint32_t)edge_sector(gx, gy) << (2 * (k - 1));
		}
	}

	/* Classes of the middle magnitude row (columns x0 .. x0+N-1). */
	__device__ __forceinline__ void classify(const struct grad_thresh &p,
	    unsigned *res)
	{
#pragma unroll
		for (int j = 0; j < N; j++) {
			int s = (sec_prev >> (2 * j)) & 3;
			M b, a;
			if (s == EDGE_SECTOR_0) {
				b = m1[j]; a = m1[j + 2];
			} else if (s == EDGE_SECTOR_90) {
				b = m0[j + 1]; a = m2[j + 1];
			} else if (s == EDGE_SECTOR_45) {
				b = m0[j]; a = m2[j + 2];
			} else {
				b = m0[j + 2]; a = m2[j];
			}
			res[j] = edge_classify(m1[j + 1], b, a, s, &p);
		}
	}

	__device__ __forceinline__ void shift_input()
	{
#pragma unroll
		for (int k = 0; k < N + 4; k++) {
			in0[k] = in1[k];
			in1[k] = in2[k];
		}
	}
};

/*
 * Stores the 8 classes of row y from column x0 (a 16-bit strip's; the
 * 8-bit strips have store_classes8).
 */
__device__ __forceinline__ void
store_classes(const gpu_image &lab, int y, int x0, const unsigned *res)
{
	uint8_t *row = gf_row_out<uint8_t>(lab, y);

	if (x0 >= 1 && x0 + 8 <= lab.width - 1) {
		uint32_t w[2] = {0, 0};
#pragma unroll
		for (int k = 0; k < 8; k++)
			w[k / 4] |= (res[k] & 0xff) << (8 * (k % 4));
		*(uint2 *)(row + x0) = make_uint2(w[0], w[1]);
		return;
	}
#pragma unroll
	for (int k = 0; k < 8; k++)
		if (x0 + k < lab.width)
			row[x0 + k] = edge_in_frame(x0 + k, y, lab.width, lab.height) ?
			    EDGE_NONE : (uint8_t)res[k];
}

/*
 * Walks one strip: output rows ys .. ye-1 of columns x0 .. x0+N-1, with
 * load(r, v) giving input row r's samples x0-2 .. x0+N+1 in v.
 */
template <typename T, typename L>
__device__ __forceinline__ void
walk_strip(const L &load, const gpu_image &lab, int x0, int ys, int ye,
    const struct grad_thresh &p)
{
	strip<T> st;
	unsigned res[VEC(T)];

	st.sec_cur = 0;
	load(ys - 2, st.in1);
	load(ys - 1, st.in2);
	for (int r = ys; r <= ye + 1; r++) {
		st.shift_input();
		load(r, st.in2);
		st.grad_row(p.l1);
		if (r < ys + 2)
			continue;
		int y = r - 2;
		st.classify(p, res);
		if (y == 0 || y == lab.height - 1) {
#pragma unroll
			for (int k = 0; k < VEC(T); k++)
				res[k] = EDGE_NONE;
		}
		store_classes(lab, y, x0, res);
	}
}

template <typename T>
struct rows_global {
	gpu_image im;
	int x0, border;
	__device__ __forceinline__ void operator()(int r, int *v) const
	{
		int yi = gf_border_index(r, im.height, border);
		gf_load_window<T, 2>(im, yi, x0, border, v);
	}
};

/* Rows of a shared tile whose row 0 is image row y0 - 2; src is the strip's column. */
template <typename T>
struct rows_shared {
	const T *src;
	int stride, y0;
	__device__ __forceinline__ void operator()(int r, int *v) const
	{
		gf_smem_window<T, 2>(src + (r - y0 + 2) * stride, v);
	}
};

/* ---- 8-bit strips: packed rows, two magnitude rows, float cores ---- */

/* Rows of the shared tile (load_tile's layout); src is the strip's column. */
struct rows_shared8 {
	const uint8_t *src;
	int stride, y0;
	__device__ __forceinline__ void operator()(int r, uint32_t *w) const
	{
		const uint8_t *p = src + (r - y0 + 2) * stride;
		pack_row8(*(const uint16_t *)(p - 2), *(const uint4 *)p,
		    *(const uint16_t *)(p + 16), w);
	}
};

/* mask shifted up one, with the sign bit of d as its bit 0. */
__device__ __forceinline__ uint32_t
sign_in(uint32_t mask, float d)
{
	return __funnelshift_l(__float_as_uint(d), mask, 1);
}

/*
 * The registers of an 8-bit strip.  Suppression is split in two halves
 * so that only one magnitude row is live: when gradient row g is
 * computed, column by column, row g-1 gets its comparisons with the row
 * below and is finished, and row g gets those with the row above and
 * within itself.
 *
 * The arithmetic is float (edge_core.h's *f cores, exact here), which
 * issues on the FMA pipe; the integer pipe, at half its rate, was this
 * kernel's limit (ncu: 53 of 75 instructions a pixel were its, in
 * int32).  So every comparison is a subtraction, exact between integers
 * below 2^24 and never -0, whose sign bit says a > b: one funnel shift
 * appends it to a bit mask, column after column.  Each mask holds every
 * comparison a choice might need, and the choices by sector are made on
 * whole masks at the end of the row: no select, no branch per pixel.
 * The masks fill from the bottom, column j at bit 15 - j (at bit 16 - c
 * for gt_left, which has column 16 too); what leaves the row is turned
 * round.  The comparisons and their tie rules are edge_classify's.
 */
struct strip8 {
	uint32_t w0[5], w1[5];  /* input rows g-1, g (packed), then g+1 arrives */
	float m[18];            /* magnitudes of row g-1, columns x0-1 .. x0+16,
	                           replaced by row g's as the row goes */
	uint32_t h, v, ns, ok;  /* row g-1's masks (turned): edge_sector_signs';
	                           passed so far and above low */
	uint32_t st;            /* row g-1's pixels above high (bit j: column j) */

	/*
	 * Row g from input rows w0, w1, w2: returns the edge candidates of
	 * row g-1 (finished) and starts row g.  Sobel's gradients come from
	 * column sums (sobel_cols8) of each of the 20 columns: gx =
	 * s[k+2] - s[k] and gy = d[k] + 2 d[k+1] + d[k+2].  Column j is
	 * compared as soon as the magnitude to its right is known.
	 */
	template <int L1>
	__device__ __forceinline__ uint32_t row(const uint32_t *w2,
	    const struct edge_paramsf &p)
	{
		float s0 = 0, s1 = 0, d0 = 0, d1 = 0;  /* sums of columns k, k+1 */
		float g0 = 0, g1 = 0, g2 = 0;          /* row g's magnitudes k-2 .. k */
		uint32_t th = 0, tv = 0, tns = 0;      /* row g's sector tests */
		uint32_t gt_left = 0;                  /* g(c) > g(c-1) */
		uint32_t up = 0;                       /* g(j) > m(j) */
		uint32_t dn45 = 0, dn135 = 0;          /* m(j) > g(j+1), m(j) > g(j-1) */
		uint32_t up45 = 0, up135 = 0;          /* g(j) > m(j-1), g(j) > m(j+1) */
		uint32_t lo = 0, hi = 0;               /* g(j) > low, g(j) > high */
#pragma unroll
		for (int k = -2; k < 18; k++) {
			/* Column k + 2 of the window; gradient k is column x0 - 1 + k. */
			const int wi = (k + 2) >> 2, bi = (k + 2) & 3;
			float s2, d2;
			sobel_cols8(w0[wi], w1[wi], w2[wi], bi, &s2, &d2);
			if (k >= 0) {
				float gx = s2 - s0, gy = fmaf(2.0f, d1, d0) + d2;
				g0 = g1, g1 = g2;
				g2 = edge_magf(gx, gy, L1);
				if (k >= 1 && k <= 16) {
					float sh, sv, sns;
					edge_sector_signs(gx, gy, &sh, &sv, &sns);
					th = sign_in(th, sh);
					tv = sign_in(tv, sv);
					tns = sign_in(tns, sns);
				}
				if (k >= 1)     /* column c = k - 1: g2 > g1 */
					gt_left = sign_in(gt_left, g1 - g2);
			}
			s0 = s1, s1 = s2;
			d0 = d1, d1 = d2;
			if (k < 2)
				continue;
			/*
			 * Column j = k - 2: m[j], m[j + 1], m[j + 2] are row g-1's
			 * magnitudes at j - 1, j, j + 1, and g0, g1, g2 row g's.
			 */
			const int j = k - 2;
			up = sign_in(up, m[j + 1] - g1);
			dn45 = sign_in(dn45, g2 - m[j + 1]);
			dn135 = sign_in(dn135, g0 - m[j + 1]);
			up45 = sign_in(up45, m[j] - g1);
			up135 = sign_in(up135, m[j + 2] - g1);
			lo = sign_in(lo, p.low - g1);
			hi = sign_in(hi, p.high - g1);
			m[j] = g0;
		}
		m[16] = g1;
		m[17] = g2;
		/*
		 * Row g-1: sector 0 was finished within its row; 90 must not be
		 * smaller than the pixel below, 45 greater than the one below
		 * right, 135 than the one below left.
		 */
		const uint32_t diag = ~h & ~v;
		const uint32_t pass = ok & (h | (v & ~up) | (diag & ~ns & dn45) |
		    (diag & ns & dn135));
		/*
		 * Row g: sector 0 greater than its left neighbour and not
		 * smaller than its right; the others greater than the pixel
		 * above them (up, up left, up right).
		 */
		const uint32_t in_row = gt_left >> 1 & ~gt_left;
		const uint32_t tdiag = ~th & ~tv;
		const uint32_t keep = (th & in_row) | (tv & up) |
		    (tdiag & ~tns & up45) | (tdiag & tns & up135);
		h = th, v = tv, ns = tns, ok = keep & lo;
		st = __brev(hi) >> 16;
		return __brev(pass) >> 16;
	}
};

/*
 * Stores row y's classes of columns x0 .. x0+15, given as masks of the
 * edge candidates and of the strong ones among them: byte j of the
 * class words is bit j of each, added (EDGE_WEAK 1, EDGE_STRONG 2).
 * Columns 0 and width - 1 are the frame, never edges (the caller clears
 * the frame's rows).
 */
__device__ __forceinline__ void
store_classes8(const gpu_image &lab, int y, int x0, uint32_t cand, uint32_t strong)
{
	const int last = lab.width - 1 - x0;   /* bit of column width - 1 */
	if (x0 == 0 || last < 16) {
		uint32_t frame = (x0 == 0 ? 1u : 0u) | (last < 16 ? 1u << last : 0u);
		cand &= ~frame;
		strong &= ~frame;
	}
	uint32_t c[4];
#pragma unroll
	for (int i = 0; i < 4; i++)
		c[i] = (((cand >> 4 * i & 0xf) * 0x00204081u) & 0x01010101u) +
		    (((strong >> 4 * i & 0xf) * 0x00204081u) & 0x01010101u);
	uint8_t *row = gf_row_out<uint8_t>(lab, y) + x0;
	if (x0 + 16 <= lab.width)
		*(uint4 *)row = make_uint4(c[0], c[1], c[2], c[3]);
	else
		gf_store_bytes(row, make_uint4(c[0], c[1], c[2], c[3]), lab.width - x0);
}

/*
 * walk_strip for 8-bit images: output rows ys .. ye-1 of columns x0 ..
 * x0+15, with load(r, w) giving input row r packed (pack_row8).  The
 * norm is a template parameter: as a run-time choice, the magnitudes of
 * both were issued, one of them predicated off (a slot a pixel).
 */
template <int L1, typename L>
__device__ __forceinline__ void
walk_strip8(L &load, const gpu_image &lab, int x0, int ys, int ye,
    const struct grad_thresh &p0)
{
	const struct edge_paramsf p = edge_params_f(&p0);
	strip8 st;

	load(ys - 2, st.w0);
	load(ys - 1, st.w1);
	st.h = st.v = st.ns = st.ok = st.st = 0;
#pragma unroll
	for (int k = 0; k < 18; k++)
		st.m[k] = 0;    /* row ys - 2's magnitudes: row ys - 1, started
		                   against them, is never stored */
	for (int r = ys; r <= ye + 1; r++) {
		uint32_t w2[5];
		load(r, w2);
		const uint32_t strong = st.st;
		const uint32_t cand = st.template row<L1>(w2, p);
		const int y = r - 2;    /* the row finished now */
		if (y >= ys) {
			const uint32_t c = y == 0 || y == lab.height - 1 ? 0 : cand;
			store_classes8(lab, y, x0, c, c & strong);
		}
#pragma unroll
		for (int k = 0; k < 5; k++) {
			st.w0[k] = st.w1[k];
			st.w1[k] = w2[k];
		}
	}
}

/* walk_strip8 in the image's norm. */
template <typename L>
__device__ __forceinline__ void
walk_strip8(L &load, const gpu_image &lab, int x0, int ys, int ye,
    const struct grad_thresh &p)
{
	if (p.l1)
		walk_strip8<1>(load, lab, x0, ys, ye, p);
	else
		walk_strip8<0>(load, lab, x0, ys, ye, p);
}

/* Rows in flight per 8-bit sliding strip, and their shared memory. */
#define NMS_DEPTH 4
#define NMS_RING_BYTES(n) GF_RING8_BYTES(NMS_DEPTH, n)

/*
 * The words either side of a suppression strip's chunk (columns x0 - 4 ..
 * x0 - 1 and x0 + 16 .. x0 + 19), which every strip copies but one at the
 * image's left or right edge: that one reads each row through the border
 * rule instead, when the walk asks for it.
 */
struct nms_sides {
	bool edge;

	__device__ __forceinline__ bool off() const { return edge; }

	__device__ __forceinline__ void copy(const uint8_t *row, int x0,
	    uint32_t *l, uint32_t *r, int yi) const
	{
		__pipeline_memcpy_async(l, row + x0 - 4, 4, yi < 0 ? 4 : 0);
		__pipeline_memcpy_async(r, row + x0 + 16, 4, yi < 0 ? 4 : 0);
	}
};

/*
 * Input rows of an 8-bit sliding strip from global memory, copied
 * NMS_DEPTH rows ahead of the walk into a ring of shared memory
 * (gf_ring8).  Loaded straight into registers, a row's latency stood
 * between it and its arithmetic at every row.  Rows come in order, from
 * the first one begin names.
 */
struct rows_ring8 {
	gf_ring8<NMS_DEPTH, nms_sides> ring;

	__device__ __forceinline__ void begin(int first, int last_row)
	{
		ring.sides.edge = ring.x0 < 4 || ring.x0 + 20 > ring.in.width;
		ring.begin(first, last_row);
	}

	/* Row r, which is the next one. */
	__device__ __forceinline__ void operator()(int r, uint32_t *w)
	{
		if (ring.sides.edge) {
			const rows_global8 g = {ring.in, ring.x0, ring.border};
			g(r, w);
		} else {
			const int o = ring.wait();
			pack_row8(ring.l[o] >> 16, ring.q[o], ring.r[o] & 0xffff, w);
		}
		ring.next();
	}

	__device__ __forceinline__ void end()
	{
		ring.end();
	}
};

/* The strip walk of each sample type. */
__device__ __forceinline__ void
walk_global(const gpu_image &in, const gpu_image &lab, int x0, int ys, int ye,
    const struct grad_thresh &p, int border, uint8_t)
{
	extern __shared__ uint4 ring[];
	rows_ring8 load;

	load.ring.init(in, x0, border, ring);
	load.begin(ys - 2, ye + 1);
	walk_strip8(load, lab, x0, ys, ye, p);
	load.end();
}

__device__ __forceinline__ void
walk_global(const gpu_image &in, const gpu_image &lab, int x0, int ys, int ye,
    const struct grad_thresh &p, int border, uint16_t)
{
	rows_global<uint16_t> load = {in, x0, border};
	walk_strip<uint16_t>(load, lab, x0, ys, ye, p);
}

__device__ __forceinline__ void
walk_shared(const uint8_t *src, int stride, int y0, const gpu_image &lab,
    int x0, int ys, int ye, const struct grad_thresh &p)
{
	rows_shared8 load = {src, stride, y0};
	walk_strip8(load, lab, x0, ys, ye, p);
}

__device__ __forceinline__ void
walk_shared(const uint16_t *src, int stride, int y0, const gpu_image &lab,
    int x0, int ys, int ye, const struct grad_thresh &p)
{
	rows_shared<uint16_t> load = {src, stride, y0};
	walk_strip<uint16_t>(load, lab, x0, ys, ye, p);
}

/*
 * 8-bit strips fit 96 registers without spilling: five blocks of the
 * default 128 threads per SM.  Loaded straight into registers, their
 * rows fit 80 (six blocks; 96 and 72 measured the same); the ring's
 * state spills 44 bytes there, 16 at 88, which measured the same as 96.
 * 16-bit strips fit 170, which keeps three such blocks per SM (left
 * free, the compiler takes 176 and two fit).
 */
template <typename T>
__global__ void
__maxnreg__(sizeof(T) == 1 ? 96 : 170)
edge_nms_sliding(gpu_image in, gpu_image lab, struct grad_thresh p0,
    const struct grad_thresh *dp, int border, int rows)
{
	const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * VEC(T);
	const int ys = (blockIdx.y * blockDim.y + threadIdx.y) * rows;
	if (x0 >= in.width || ys >= in.height)
		return;
	struct grad_thresh p = thresholds(p0, dp);
	walk_global(in, lab, x0, ys, min(ys + rows, in.height), p, border, T());
}

/*
 * Shared tile layout: (tile rows + 4) rows of stride (block_w + 2) * VEC
 * samples; row r holds image row y0 - 2 + r, column VEC + j image column
 * x0 + j, so the two left apron samples sit at VEC - 2, VEC - 1 and the
 * right ones at VEC + tile width and one more.
 */
template <typename T>
__device__ __forceinline__ void
load_tile(const gpu_image &in, int border, T *tile, int x0, int y0, int tw,
    int th)
{
	const int N = VEC(T), stride = tw + 2 * N;
	const int tid = threadIdx.y * blockDim.x + threadIdx.x;
	const int nthreads = blockDim.x * blockDim.y;

	for (int i = tid; i < (th + 4) * (int)blockDim.x; i += nthreads) {
		int r = i / blockDim.x, cx = i % blockDim.x;
		int yi = gf_border_index(y0 - 2 + r, in.height, border);
		gf_load_chunk<T>(in, yi, x0 + cx * N, border, tile + r * stride + N + cx * N);
	}
	for (int i = tid; i < (th + 4) * 4; i += nthreads) {
		int r = i >> 2, k = i & 3;
		int x = k < 2 ? x0 - 2 + k : x0 + tw + k - 2;
		int yi = gf_border_index(y0 - 2 + r, in.height, border);
		int xi = gf_border_index(x, in.width, border);
		tile[r * stride + N + x - x0] = yi < 0 || xi < 0 ? 0 : gf_row<T>(in, yi)[xi];
	}
}

template <typename T>
__global__ void
edge_nms_shared(gpu_image in, gpu_image lab, struct grad_thresh p0,
    const struct grad_thresh *dp, int border, int rows)
{
	extern __shared__ uint4 smem[];
	T *tile = (T *)smem;
	const int N = VEC(T), tw = blockDim.x * N, th = blockDim.y * rows;
	const int x0 = blockIdx.x * tw, y0 = blockIdx.y * th;

	load_tile<T>(in, border, tile, x0, y0, tw, th);
	__syncthreads();

	const int x = x0 + threadIdx.x * N, ys = y0 + threadIdx.y * rows;
	if (x >= in.width || ys >= in.height)
		return;
	struct grad_thresh p = thresholds(p0, dp);
	walk_shared(tile + N + threadIdx.x * N, tw + 2 * N, y0, lab, x, ys,
	    min(ys + rows, in.height), p);
}

/*
 * Default launch shapes (bench -s edge tunes them).  Sliding's 16 rows:
 * a 12288x12288 image then makes 4608 blocks, 6.98 times the 660 an
 * H100 holds at once, where 32 rows made 3.49 times, and the last half
 * wave left SMs idle; 12 rows measured no better than 16.
 */
static const struct gf_launch edge_defaults[GF_NSTRATEGIES] = {
	{0, 0, 0}, {0, 0, 0},
	{32, 8, 1},     /* global */
	{32, 8, 1},     /* texture */
	{32, 8, 4},     /* shared */
	{32, 4, 16},    /* sliding */
};

/*
 * Grids of sliding strips should have at least this many blocks: five
 * of the default 128-thread blocks fit an SM, so a 132-SM H100 holds 660
 * at once.  Fewer, and whole SMs idle while each thread walks its rows.
 */
#define EDGE_SLIDING_MIN_BLOCKS 1024

extern "C" void
edge_nms_shape(enum gf_strategy s, unsigned maxval, int width, int height,
    struct gf_launch *l, int *tile_w, int *tile_h, size_t *smem)
{
	int rows_given = l->rows;

	gf_launch_shape(s, edge_defaults, maxval, 2, l, tile_w, tile_h, smem);
	if (s == GF_SLIDING && maxval <= 255)
		*smem = NMS_RING_BYTES(l->block_w * l->block_h);
	if (s != GF_SLIDING || rows_given != 0)
		return;
	/*
	 * Sliding's default rows (16) suit a large image; a frame the size of
	 * 3840x2160 would get 272 blocks.  Shorter strips, down to 4 rows
	 * (where the two apron rows above and below cost as much as the rows),
	 * until the grid has EDGE_SLIDING_MIN_BLOCKS blocks.
	 */
	long gx = (width + *tile_w - 1) / *tile_w;
	long want_gy = (EDGE_SLIDING_MIN_BLOCKS + gx - 1) / gx;
	long rows = height / (want_gy * l->block_h);
	l->rows = rows < 4 ? 4 : rows > l->rows ? l->rows : (int)rows;
	*tile_h = l->block_h * l->rows;
}

/* What a launch of any strategy is given. */
struct nms_args : stencil_launch {
	gpu_image lab;
	struct grad_thresh p;
	const struct grad_thresh *dp;
};

template <typename T>
static void
run_global(const nms_args &a)
{
	px_global<T> src = {a.in, a.border};
	edge_nms_pixel<<<a.grid, a.block, 0, a.st>>>(src, a.lab, a.p, a.dp);
}

template <typename T>
static void
run_texture(const nms_args &a)
{
	px_texture<T> src = {a.tex, a.in.width, a.in.height, a.border};
	edge_nms_pixel<<<a.grid, a.block, 0, a.st>>>(src, a.lab, a.p, a.dp);
}

template <typename T>
static void
run_shared(const nms_args &a)
{
	edge_nms_shared<T><<<a.grid, a.block, a.smem, a.st>>>(a.in, a.lab, a.p,
	    a.dp, a.border, a.rows);
}

template <typename T>
static void
run_sliding(const nms_args &a)
{
	edge_nms_sliding<T><<<a.grid, a.block, a.smem, a.st>>>(a.in, a.lab, a.p,
	    a.dp, a.border, a.rows);
}

/*
 * edge's column of the strategy table, for sample type T: each GPU
 * strategy's launch of the suppression; the default shapes are
 * edge_defaults.
 */
template <typename T>
struct nms_kernels {
	static void (*const run[GF_NSTRATEGIES])(const nms_args &a);
};

template <typename T>
void (*const nms_kernels<T>::run[GF_NSTRATEGIES])(const nms_args &a) = {
	NULL,                   /* auto: resolved before launch */
	NULL,                   /* cpu */
	run_global<T>, run_texture<T>, run_shared<T>, run_sliding<T>,
};

template <typename T>
static cudaError_t
launch_nms(enum gf_strategy s, const gpu_image &in, const gpu_image &lab,
    const struct grad_thresh &p, const struct grad_thresh *dp, int border,
    const struct gf_launch *l, cudaTextureObject_t tex, cudaStream_t st)
{
	struct gf_launch sh = *l;
	nms_args a;
	int tw, th;

	if (s < 0 || s >= GF_NSTRATEGIES || nms_kernels<T>::run[s] == NULL)
		return cudaErrorInvalidValue;
	edge_nms_shape(s, in.maxval, in.width, in.height, &sh, &tw, &th, &a.smem);
	stencil_launch_set(a, in, border, sh, tw, th, tex, st);
	a.lab = lab;
	a.p = p;
	a.dp = dp;
	nms_kernels<T>::run[s](a);
	return cudaGetLastError();
}

extern "C" cudaError_t
edge_launch_nms(enum gf_strategy s, const struct gpu_image *in,
    const struct gpu_image *lab, const struct grad_thresh *p,
    const struct grad_thresh *dp, int border, const struct gf_launch *l,
    cudaTextureObject_t tex, cudaStream_t stream)
{
	if (in->maxval > 255)
		return launch_nms<uint16_t>(s, *in, *lab, *p, dp, border, l, tex,
		    stream);
	return launch_nms<uint8_t>(s, *in, *lab, *p, dp, border, l, tex, stream);
}
