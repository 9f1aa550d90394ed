/*
 * edge_hyst.cu - edge's hysteresis on the GPU, as connected-component
 * labelling in a fixed number of launches (below); its output equals the
 * CPU reference's flood fill (lib/edge_cpu.c) bit for bit.
 */
#include "edge.h"
#include "stencil.cuh"

/*
 * Hysteresis is connected-component labelling: the edges are the
 * non-NONE pixels whose 8-connected component holds a strong pixel.  A
 * fixed number of launches, no host round trip, no iteration to a fixed
 * point:
 *
 *   local   per 32x32 tile: union-find of the tile's pixels in shared
 *           memory (atomicMin on the root, which is then the smallest
 *           index of the component whatever the order); a component with
 *           a strong pixel is written as edges, one without that does not
 *           touch the tile's outer ring is not; each component that
 *           touches the ring gets a rank r (< EDGE_HYST_CAP) and a global
 *           node tile * CAP + r, its pixels' ranks go to the tile's ring
 *           arrays, and the pixels of such a component without a strong
 *           pixel get the code 3 + r in the class map ("pending")
 *   merge   one thread per ring pixel on the right and bottom side of a
 *           tile: union of its node with the nodes of its 8-neighbours in
 *           the next tile (global union-find, Playne and Hawick's)
 *   strong  each strong node marks its root strong
 *   final   in tiles with pending components whose root is strong, their
 *           pixels become edges
 *
 * The union of the components holding a strong pixel is what the CPU's
 * flood fill gives, so the output is the same whatever the order of work.
 */
#define HW EDGE_HYST_TILE
#define HH EDGE_HYST_TILE
#define HCAP EDGE_HYST_CAP
#define HTHREADS (HW * HH / 4)  /* each thread owns 4 pixels of a row */
/*
 * Row stride of the local stage's per-pixel arrays: one word more than a
 * row, so that the four rows a warp covers fall in different banks (with
 * HW they would all hit the same 8 banks, four ways each).  Indices stay
 * in pixel order, which is all the union-find and the ranks rely on.
 */
#define HS (HW + 1)
#define HNONE 0xff              /* ring arrays: no component */
#define HCODE 3                 /* class map: pending component r is HCODE + r */

/* The scratch of one image of ntiles tiles, carved from one buffer. */
struct hyst_mem {
	uint32_t *node;         /* [ntiles * HCAP] union-find parents */
	uint8_t *strong;        /* [ntiles * HCAP] node holds a strong pixel (then: root is an edge) */
	unsigned long long *pend; /* [ntiles] bit r: node r is pending */
	uint8_t *ring;          /* [ntiles][4][HW]: top, bottom, left, right ranks, HNONE */
	uint8_t *nnodes;        /* [ntiles] */
};

static struct hyst_mem
hyst_carve(void *scratch, size_t ntiles)
{
	struct hyst_mem m;
	char *p = (char *)scratch;

	m.node = (uint32_t *)p;
	p += ntiles * HCAP * sizeof(uint32_t);
	m.strong = (uint8_t *)p;
	p += ntiles * HCAP;
	m.pend = (unsigned long long *)p;
	p += ntiles * sizeof(unsigned long long);
	m.ring = (uint8_t *)p;
	p += ntiles * 4 * HW;
	m.nnodes = (uint8_t *)p;
	return m;
}

extern "C" size_t
edge_hyst_scratch(int width, int height)
{
	size_t ntiles = (size_t)((width + HW - 1) / HW) * ((height + HH - 1) / HH);

	return ntiles * (HCAP * sizeof(uint32_t) + HCAP +
	    sizeof(unsigned long long) + 4 * HW + 1);
}

/*
 * Shared-memory union-find of the local stage.  While unions run, every
 * access to par is atomic (reads as atomicOr with 0), so no thread reads
 * a plain value that another writes.  par[x] <= x always, so the loops
 * end; the root of a set is its smallest index.
 */
__device__ __forceinline__ int
uf_parent(int *par, int x)
{
	return atomicOr(par + x, 0);
}

/* The merge stage's global union-find reads its parents past L1. */
__device__ __forceinline__ uint32_t
uf_parent(uint32_t *node, uint32_t x)
{
	return __ldcg(node + x);
}

/*
 * Union of the sets of a and b, for both union-finds (Playne and
 * Hawick's; the two differ only in how uf_parent reads): parents only
 * ever decrease (atomicMin), a link succeeds only on a node that was
 * still a root, and a failed one retries with the node it found.
 */
template <typename T>
__device__ __forceinline__ T
uf_find(T *par, T x)
{
	T p;

	while ((p = uf_parent(par, x)) != x)
		x = p;
	return x;
}

template <typename T>
__device__ void
uf_unite(T *par, T a, T b)
{
	for (;;) {
		a = uf_find(par, a);
		b = uf_find(par, b);
		if (a == b)
			return;
		if (a > b) {
			T t = a;
			a = b;
			b = t;
		}
		T old = atomicMin(par + b, a);
		if (old == b)
			return;
		b = old;
	}
}

/* Root of x once no union runs any more (plain reads). */
__device__ __forceinline__ int
sroot(const int *par, int x)
{
	int p;

	while ((p = par[x]) != x)
		x = p;
	return x;
}

/* Class byte of tile pixel (r, c) from the packed rows. */
__device__ __forceinline__ unsigned
scls(const uint32_t (*cls)[HW / 4], int r, int c)
{
	return (cls[r][c >> 2] >> (8 * (c & 3))) & 0xff;
}

template <typename T>
__global__ void
__launch_bounds__(HTHREADS)
edge_hyst_local(gpu_image lab, gpu_image out, struct hyst_mem m)
{
	__shared__ int par[HH * HS];
	__shared__ unsigned flg[HH * HS];       /* roots: bit 0 strong, bit 1 ring */
	__shared__ uint8_t rk[HH * HS];         /* ring roots: their rank */
	__shared__ uint32_t cls[HH][HW / 4];
	__shared__ int wsum[HTHREADS / 32];
	__shared__ unsigned long long spend;
	const int t = threadIdx.x, ly = t / (HW / 4), lx0 = (t % (HW / 4)) * 4;
	const int x = blockIdx.x * HW + lx0, y = blockIdx.y * HH + ly;
	const int i0 = ly * HS + lx0;
	const size_t tile = (size_t)blockIdx.y * gridDim.x + blockIdx.x;

	/* The 4 classes; 0 (none) outside the image. */
	uint32_t c4 = 0;
	if (y < lab.height) {
		const uint8_t *row = gf_row<uint8_t>(lab, y);
		if (x + 4 <= lab.width) {
			c4 = *(const uint32_t *)(row + x);
		} else {
#pragma unroll
			for (int k = 0; k < 4; k++)
				if (x + k < lab.width)
					c4 |= (uint32_t)row[x + k] << (8 * k);
		}
	}
	cls[ly][lx0 / 4] = c4;
	/* Start with the runs inside the 4 pixels already joined. */
	int run = i0;
#pragma unroll
	for (int k = 0; k < 4; k++) {
		bool fg = (c4 >> (8 * k)) & 0xff;
		bool prev = k > 0 && ((c4 >> (8 * (k - 1))) & 0xff);
		if (!(fg && prev))
			run = i0 + k;
		par[i0 + k] = run;
		flg[i0 + k] = 0;
	}
	if (t == 0)
		spend = 0;
	__syncthreads();

	/*
	 * Unions with the left neighbour (first pixel of the 4 only) and the
	 * row above.  The diagonals are needed only when the pixel above is
	 * not set: else both are joined through it.
	 */
#pragma unroll
	for (int k = 0; k < 4; k++) {
		const int lx = lx0 + k, i = i0 + k;
		if (((c4 >> (8 * k)) & 0xff) == 0)
			continue;
		if (k == 0 && lx > 0 && scls(cls, ly, lx - 1))
			uf_unite(par, i, i - 1);
		if (ly == 0)
			continue;
		if (scls(cls, ly - 1, lx)) {
			uf_unite(par, i, i - HS);
		} else {
			if (lx > 0 && scls(cls, ly - 1, lx - 1))
				uf_unite(par, i, i - HS - 1);
			if (lx < HW - 1 && scls(cls, ly - 1, lx + 1))
				uf_unite(par, i, i - HS + 1);
		}
	}
	__syncthreads();

	/* Each component's flags on its root. */
	int root[4];
#pragma unroll
	for (int k = 0; k < 4; k++) {
		const int lx = lx0 + k, i = i0 + k;
		unsigned c = (c4 >> (8 * k)) & 0xff;
		root[k] = i;
		if (c == 0)
			continue;
		root[k] = sroot(par, i);
		unsigned bits = (c == EDGE_STRONG ? 1u : 0u) |
		    (ly == 0 || ly == HH - 1 || lx == 0 || lx == HW - 1 ? 2u : 0u);
		if (bits)
			atomicOr(&flg[root[k]], bits);
	}
	__syncthreads();

	/*
	 * Ranks of the roots of components touching the ring, in index
	 * order (a block scan).  The ring of a tile has at most 4 HW - 4
	 * pixels and two ring neighbours that are both set are joined, so
	 * there are at most 2 HW - 2 < HCAP such components.
	 */
	unsigned mine = 0;
	int n = 0;
#pragma unroll
	for (int k = 0; k < 4; k++)
		if (((c4 >> (8 * k)) & 0xff) && root[k] == i0 + k &&
		    (flg[i0 + k] & 2)) {
			mine |= 1u << k;
			n++;
		}
	const int lane = t & 31, wid = t >> 5;
	int inc = n;
#pragma unroll
	for (int o = 1; o < 32; o <<= 1) {
		int v = __shfl_up_sync(0xffffffffu, inc, o);
		if (lane >= o)
			inc += v;
	}
	if (lane == 31)
		wsum[wid] = inc;
	__syncthreads();
	int r = inc - n, total = 0;
#pragma unroll
	for (int w = 0; w < HTHREADS / 32; w++) {
		int s = wsum[w];
		if (w < wid)
			r += s;
		total += s;
	}
#pragma unroll
	for (int k = 0; k < 4; k++) {
		if (!((mine >> k) & 1))
			continue;
		const int i = i0 + k;
		const uint32_t g = (uint32_t)(tile * HCAP + r);
		rk[i] = (uint8_t)r;
		m.node[g] = g;
		m.strong[g] = flg[i] & 1;
		if (!(flg[i] & 1))
			atomicOr(&spend, 1ull << r);
		r++;
	}
	__syncthreads();

	/* Outputs: edges, pending codes, ring ranks. */
	unsigned ov[4], rb[4];
#pragma unroll
	for (int k = 0; k < 4; k++) {
		unsigned c = (c4 >> (8 * k)) & 0xff;
		unsigned f = c ? flg[root[k]] : 0;
		ov[k] = f & 1 ? out.maxval : 0;
		rb[k] = f & 2 ? rk[root[k]] : HNONE;
		if ((f & 3) == 2)
			gf_row_out<uint8_t>(lab, y)[x + k] = (uint8_t)(HCODE + rb[k]);
	}
	if (y < out.height) {
		T *orow = gf_row_out<T>(out, y);
		if (x + 4 <= out.width) {
			if (sizeof(T) == 1)
				*(uint32_t *)(orow + x) = ov[0] | ov[1] << 8 |
				    ov[2] << 16 | ov[3] << 24;
			else
				*(uint2 *)(orow + x) = make_uint2(ov[0] | ov[1] << 16,
				    ov[2] | ov[3] << 16);
		} else {
#pragma unroll
			for (int k = 0; k < 4; k++)
				if (x + k < out.width)
					orow[x + k] = (T)ov[k];
		}
	}
	uint8_t *ring = m.ring + tile * 4 * HW;
	uint32_t rw = rb[0] | rb[1] << 8 | rb[2] << 16 | rb[3] << 24;
	if (ly == 0)
		*(uint32_t *)(ring + lx0) = rw;
	if (ly == HH - 1)
		*(uint32_t *)(ring + HW + lx0) = rw;
	if (lx0 == 0)
		ring[2 * HW + ly] = (uint8_t)rb[0];
	if (lx0 == HW - 4)
		ring[3 * HW + ly] = (uint8_t)rb[3];
	if (t == 0) {
		m.nnodes[tile] = (uint8_t)total;
		m.pend[tile] = spend;
	}
}

/*
 * Root of x when no union runs any more, halving the path on the way:
 * every node it writes gets an ancestor (smaller, same tree) through
 * atomicMin, so the trees stay the same sets, whatever runs beside.
 */
__device__ __forceinline__ uint32_t
gfind_halve(uint32_t *node, uint32_t x)
{
	for (;;) {
		uint32_t p = __ldcg(node + x);
		if (p == x)
			return x;
		uint32_t g = __ldcg(node + p);
		if (g == p)
			return p;
		atomicMin(node + x, g);
		x = g;
	}
}

/*
 * Thread (tile, k): k < HW, the right ring pixel of row k against its
 * neighbours in the tile column to the right; k >= HW, the bottom ring
 * pixel of column k - HW against its neighbours in the tile row below.
 * A tile with a neighbour to the right (below) is full width (height),
 * so the pixel and its neighbours are in the image.
 */
__global__ void
edge_hyst_merge(struct hyst_mem m, int ntx, int nty, int width, int height)
{
	const size_t id = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	const size_t ntiles = (size_t)ntx * nty;

	if (id >= ntiles * 2 * HW)
		return;
	/* ntiles * HCAP fits 32 bits (edge.h), so the tile's coordinates do too. */
	const size_t tile = id / (2 * HW);
	const int k = (int)(id % (2 * HW));
	const int tx = (int)((uint32_t)tile % (uint32_t)ntx);
	const int ty = (int)((uint32_t)tile / (uint32_t)ntx);
	const uint8_t *ring = m.ring + tile * 4 * HW;

	if (k < HW) {
		const int y = ty * HH + k;
		if (tx + 1 >= ntx || y >= height || ring[3 * HW + k] == HNONE)
			return;
		const uint32_t a = (uint32_t)(tile * HCAP + ring[3 * HW + k]);
		for (int y2 = max(y - 1, 0); y2 <= min(y + 1, height - 1); y2++) {
			const size_t t2 = (size_t)(y2 / HH) * ntx + tx + 1;
			unsigned b = m.ring[t2 * 4 * HW + 2 * HW + y2 % HH];
			if (b != HNONE)
				uf_unite(m.node, a, (uint32_t)(t2 * HCAP + b));
		}
	} else {
		const int lx = k - HW, x = tx * HW + lx;
		if (ty + 1 >= nty || x >= width || ring[HW + lx] == HNONE)
			return;
		const uint32_t a = (uint32_t)(tile * HCAP + ring[HW + lx]);
		for (int x2 = max(x - 1, 0); x2 <= min(x + 1, width - 1); x2++) {
			const size_t t2 = (size_t)(ty + 1) * ntx + x2 / HW;
			unsigned b = m.ring[t2 * 4 * HW + x2 % HW];
			if (b != HNONE)
				uf_unite(m.node, a, (uint32_t)(t2 * HCAP + b));
		}
	}
}

/* Thread (tile, r): a node holding a strong pixel makes its root strong. */
__global__ void
edge_hyst_strong(struct hyst_mem m, size_t ntiles)
{
	const size_t id = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (id >= ntiles * HCAP)
		return;
	const size_t tile = id / HCAP;
	const int r = (int)(id % HCAP);
	if (r >= m.nnodes[tile] || !m.strong[id])
		return;
	m.strong[gfind_halve(m.node, (uint32_t)id)] = 1;
}

/* Pending pixels of components whose root is strong become edges. */
template <typename T>
__global__ void
__launch_bounds__(HTHREADS)
edge_hyst_final(gpu_image lab, gpu_image out, struct hyst_mem m)
{
	__shared__ uint8_t fix[HCAP];
	const int t = threadIdx.x;
	const size_t tile = (size_t)blockIdx.y * gridDim.x + blockIdx.x;
	const unsigned long long pend = m.pend[tile];

	if (pend == 0)
		return;
	int f = 0;
	if (t < HCAP) {
		if ((pend >> t) & 1)
			f = m.strong[gfind_halve(m.node, (uint32_t)(tile * HCAP + t))];
		fix[t] = (uint8_t)f;
	}
	if (!__syncthreads_or(f))
		return;
	const int ly = t / (HW / 4), lx0 = (t % (HW / 4)) * 4;
	const int x = blockIdx.x * HW + lx0, y = blockIdx.y * HH + ly;
	if (y >= lab.height)
		return;
	const uint8_t *row = gf_row<uint8_t>(lab, y);
	T *orow = gf_row_out<T>(out, y);
#pragma unroll
	for (int k = 0; k < 4; k++) {
		if (x + k >= lab.width)
			break;
		unsigned v = row[x + k];
		if (v >= HCODE && v - HCODE < HCAP && fix[v - HCODE])
			orow[x + k] = (T)out.maxval;
	}
}

extern "C" cudaError_t
edge_launch_hyst(const struct gpu_image *lab, const struct gpu_image *out,
    void *scratch, cudaStream_t stream)
{
	const int ntx = (lab->width + HW - 1) / HW, nty = (lab->height + HH - 1) / HH;
	const size_t ntiles = (size_t)ntx * nty;
	struct hyst_mem m = hyst_carve(scratch, ntiles);
	dim3 grid(ntx, nty);
	cudaError_t err;

	if (out->maxval > 255)
		edge_hyst_local<uint16_t><<<grid, HTHREADS, 0, stream>>>(*lab, *out, m);
	else
		edge_hyst_local<uint8_t><<<grid, HTHREADS, 0, stream>>>(*lab, *out, m);
	if ((err = cudaGetLastError()) != cudaSuccess)
		return err;
	edge_hyst_merge<<<(unsigned)((ntiles * 2 * HW + 255) / 256), 256, 0,
	    stream>>>(m, ntx, nty, lab->width, lab->height);
	if ((err = cudaGetLastError()) != cudaSuccess)
		return err;
	edge_hyst_strong<<<(unsigned)((ntiles * HCAP + 255) / 256), 256, 0,
	    stream>>>(m, ntiles);
	if ((err = cudaGetLastError()) != cudaSuccess)
		return err;
	if (out->maxval > 255)
		edge_hyst_final<uint16_t><<<grid, HTHREADS, 0, stream>>>(*lab, *out, m);
	else
		edge_hyst_final<uint8_t><<<grid, HTHREADS, 0, stream>>>(*lab, *out, m);
	return cudaGetLastError();
}
