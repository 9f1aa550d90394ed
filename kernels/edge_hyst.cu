/*
 * edge_hyst.cu - edge's hysteresis on the GPU, as connected-component
 * labelling in three launches (below); its output equals the CPU
 * reference's flood fill (lib/ops/edge/edge_cpu.c) bit for bit.
 */
#include "edge.h"
#include "stencil.cuh"

/*
 * Hysteresis is connected-component labelling: the edges are the
 * candidates (weak or strong pixels) whose 8-connected component holds
 * a strong pixel.  The image is cut into 32 x 32 tiles, one warp each;
 * lane r holds row r of its tile as two bit masks (bit c: column c), its
 * candidates and its strong pixels.  Three launches, no host round trip;
 * only the floods inside a tile iterate:
 *
 *   local  floods the tile's candidates from its strong pixels, whole
 *          runs (maximal horizontal spans) at a time on the row masks,
 *          a row up and down a turn: what it reaches is edges, written at
 *          once.  Of the rest, what a flood from the tile's outer ring
 *          reaches is pending; the others are not edges.  Only pending
 *          pixels are labelled, by connecting their runs (at most 16 a
 *          row) in shared memory, the runs dealt round the lanes.  Runs
 *          of adjacent rows touch when their spans widened by one column
 *          overlap; for each pair of rows, every lower run is linked to
 *          the leftmost upper run it touches, and an upper run to the
 *          leftmost lower run it touches unless an upper run further
 *          left touches that one too (that pair is then the lower run's
 *          own): together these links join every touching pair, with at
 *          most two a run.  The lanes then lower the runs' parents in
 *          step until they settle (join_runs).  Each pending component
 *          gets a rank r < EDGE_HYST_CAP and the global node
 *          1 + tile * CAP + r.
 *          Each ring pixel's label (none, strong, or its component's
 *          rank) goes to the tile's ring words; for a tile with pending
 *          components, each row's masks of edges and of pending pixels,
 *          and the ranks of its pending runs, go to the scratch for final.
 *   merge  one thread per ring pixel on the right and bottom side of a
 *          tile: union of its node with the nodes of its 8-neighbours in
 *          the next tile (global union-find, Playne and Hawick's).  Node
 *          0 stands for every strong ring pixel: the root of a set is
 *          its smallest node, so a set is joined to a strong pixel
 *          exactly when its root is 0.
 *   final  in a tile with a pending component whose root is 0, the rows
 *          holding one are written again, with its runs as edges.
 *
 * The union of the components holding a strong pixel is what the CPU's
 * flood fill gives, so the output is the same whatever the order of
 * work.  The floods cost a few instructions a row a turn, and on a
 * noisy class map most candidates are settled by them: the union-find,
 * whose finds diverge, sees only the pending ones.  The class map is
 * only read.
 */
#define HT EDGE_HYST_TILE       /* tile side, the warp's width */
#define HCAP EDGE_HYST_CAP
#define HWARPS 4                /* tiles (warps) per block */
#define HRUNS (HT * HT / 2)     /* runs in a tile, at most */
#define HNONE 0xffu             /* label: no candidate, or not an edge */
#define HSTRONG 0xfeu           /* label: an edge */
#define FULL 0xffffffffu

static_assert(HT == 32, "a tile row is a lane's 32-bit mask");
/* Pending components each hold a ring pixel, two of them never adjacent. */
static_assert(HCAP >= 2 * HT - 2 && HCAP < HSTRONG, "ranks fit the labels");

/* The scratch of one image of ntiles tiles, carved from one buffer. */
struct hyst_mem {
	uint2 *rows;            /* [ntiles][HT]: a row's edges and pending pixels */
	uint32_t *ring;         /* [ntiles][HT]: word k, the labels of top pixel k,
	                           bottom pixel k, left pixel k, right pixel k (bytes 0-3) */
	uint32_t *node;         /* [1 + ntiles * HCAP]: union-find parents; 0 is strong */
	uint8_t *rank;          /* [ntiles][HRUNS]: ranks of the pending runs, row by row */
	uint8_t *npend;         /* [ntiles]: pending components */
};

static struct hyst_mem
hyst_carve(void *scratch, size_t ntiles)
{
	struct hyst_mem m;
	char *p = (char *)scratch;

	m.rows = (uint2 *)p;
	p += ntiles * HT * sizeof(uint2);
	m.ring = (uint32_t *)p;
	p += ntiles * HT * sizeof(uint32_t);
	m.node = (uint32_t *)p;
	p += (1 + ntiles * HCAP) * sizeof(uint32_t);
	m.rank = (uint8_t *)p;
	p += ntiles * HRUNS;
	m.npend = (uint8_t *)p;
	return m;
}

extern "C" size_t
edge_hyst_scratch(int width, int height)
{
	size_t ntiles = (size_t)((width + HT - 1) / HT) * ((height + HT - 1) / HT);

	return ntiles * (HT * sizeof(uint2) + HT * sizeof(uint32_t) +
	    HCAP * sizeof(uint32_t) + HRUNS + 1) + sizeof(uint32_t);
}

/*
 * The local stage keeps each run's parent as the shared-memory address
 * of the parent's entry in par (its slot), so that a parent's parent is
 * one load away, with no index arithmetic; slots are in the runs' order.
 * While the runs are joined, every access to par is atomic: reads are
 * relaxed atomic loads (plain shared loads in speed; atomicOr with 0, as
 * they were, cost a shared atomic each), so no thread reads a plain
 * value that another writes.  tests/emu, with no shared window, keeps
 * indices.
 */
#ifdef __CUDA_ARCH__
#define SLOT_SIZE 4u

__device__ __forceinline__ unsigned
slot0(const int *par)
{
	return (unsigned)__cvta_generic_to_shared(par);
}

__device__ __forceinline__ unsigned
slot_load(const int *, unsigned s)
{
	unsigned v;

	asm volatile("ld.relaxed.cta.shared.b32 %0, [%1];" : "=r"(v) : "r"(s) :
	    "memory");
	return v;
}

/* Lowers the parent in slot s to v (a minimum: v no lower changes nothing). */
__device__ __forceinline__ void
slot_lower(int *, unsigned s, unsigned v)
{
	asm volatile("red.relaxed.cta.shared.min.u32 [%0], %1;" : : "r"(s),
	    "r"(v) : "memory");
}
#else
#define SLOT_SIZE 1u

__device__ __forceinline__ unsigned
slot0(const int *)
{
	return 0;
}

__device__ __forceinline__ unsigned
slot_load(const int *par, unsigned s)
{
	return (unsigned)__atomic_load_n(par + s, __ATOMIC_RELAXED);
}

__device__ __forceinline__ void
slot_lower(int *par, unsigned s, unsigned v)
{
	atomicMin(par + s, (int)v);
}
#endif

/*
 * The merge stage's global union-find (Playne and Hawick's), whose
 * parents are read past L1: parents only ever decrease (atomicMin), a
 * link succeeds only on a node that was still a root, and a failed one
 * retries with the node it found.  par[x] <= x always, so the loops end;
 * the root of a set is its smallest node.  The finds halve the paths
 * they walk: a node they pass gets its grandparent, through atomicMin,
 * which only ever gives a node an ancestor in its own set, and never
 * touches a root; concurrent unions otherwise grow long chains.
 */
__device__ __forceinline__ uint32_t
uf_find(uint32_t *par, uint32_t x)
{
	for (;;) {
		const uint32_t p = __ldcg(par + x);
		if (p == x)
			return x;
		const uint32_t g = __ldcg(par + p);
		if (g == p)
			return p;
		atomicMin(par + x, g);
		x = g;
	}
}

__device__ void
uf_unite(uint32_t *par, uint32_t a, uint32_t b)
{
	for (;;) {
		a = uf_find(par, a);
		b = uf_find(par, b);
		if (a == b)
			return;
		if (a > b) {
			const uint32_t t = a;
			a = b;
			b = t;
		}
		const uint32_t old = atomicMin(par + b, a);
		if (old == b)
			return;
		b = old;
	}
}

/* Inclusive sum of v over the lanes up to this one. */
__device__ __forceinline__ int
warp_scan(int v, int lane)
{
#pragma unroll
	for (int o = 1; o < 32; o <<= 1) {
		int t = __shfl_up_sync(FULL, v, o);
		if (lane >= o)
			v += t;
	}
	return v;
}

/* Columns lo..hi of a row mask, 0 <= lo <= hi < 32. */
__device__ __forceinline__ uint32_t
span(int lo, int hi)
{
	return (FULL >> (31 - hi)) & (FULL << lo);
}

/*
 * Four class bytes (enum edge_class) to bits: 0-3 the candidates, 4-7
 * the strong pixels.  Byte k's bit 0 (weak or strong) and bit 1 (strong,
 * moved to bit 4) land in bits 21 + k and 25 + k of the product, every
 * partial product on a bit of its own, so no carries.
 */
__device__ __forceinline__ uint32_t
class_bits(uint32_t w)
{
	uint32_t v = ((w | w >> 1) & 0x01010101u) | ((w << 3) & 0x10101010u);

	return (v * 0x00204081u) >> 21 & 0xff;
}

/* Bits 0-3 of n to bit 0 of bytes 0-3 (the inverse product). */
__device__ __forceinline__ uint32_t
bytes_of(uint32_t n)
{
	return ((n & 0xf) * 0x00204081u) & 0x01010101u;
}

/* The 32 bytes of a tile row; zeros outside the image. */
__device__ __forceinline__ void
load_row(const gpu_image &im, int x0, int y, uint32_t v[HT / 4])
{
#pragma unroll
	for (int i = 0; i < HT / 4; i++)
		v[i] = 0;
	if (y >= im.height)
		return;
	const uint8_t *p = gf_row<uint8_t>(im, y) + x0;
	if (x0 + HT <= im.width) {
		uint4 a = *(const uint4 *)p, b = *(const uint4 *)(p + 16);
		v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w;
		v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
		return;
	}
	for (int c = 0; c < HT && x0 + c < im.width; c++)
		v[c >> 2] |= (uint32_t)p[c] << 8 * (c & 3);
}

/* Writes a tile row of the output: maxval where bits has a 1, else 0. */
template <typename T>
__device__ __forceinline__ void
put_row(const gpu_image &out, int x0, int y, uint32_t bits)
{
	if (y >= out.height)
		return;
	T *p = gf_row_out<T>(out, y) + x0;
	if (x0 + HT <= out.width && sizeof(T) == 1) {
		uint32_t v[8];
#pragma unroll
		for (int i = 0; i < 8; i++)
			v[i] = bytes_of(bits >> 4 * i) * out.maxval;
		*(uint4 *)p = make_uint4(v[0], v[1], v[2], v[3]);
		*(uint4 *)(p + 16) = make_uint4(v[4], v[5], v[6], v[7]);
	} else if (x0 + HT <= out.width) {
		uint32_t v[16];
#pragma unroll
		for (int i = 0; i < 16; i++)
			v[i] = ((bits >> 2 * i & 3) * 0x8001u & 0x10001u) * out.maxval;
#pragma unroll
		for (int i = 0; i < 4; i++)
			((uint4 *)p)[i] = make_uint4(v[4 * i], v[4 * i + 1],
			    v[4 * i + 2], v[4 * i + 3]);
	} else {
		for (int c = 0; c < HT && x0 + c < out.width; c++)
			p[c] = (T)(bits >> c & 1 ? out.maxval : 0);
	}
}

/* The index of the run of row s (mask m) that holds column c. */
__device__ __forceinline__ int
run_at(const int *base, int s, uint32_t m, int c)
{
	return base[s] + __popc(m & ~(m << 1) & (FULL >> (31 - c))) - 1;
}

/* A tile's shared memory in the local stage, for its pending pixels. */
struct hyst_tile {
	uint32_t cand[HT];              /* row masks of the pending pixels */
	int base[HT];                   /* index of each row's first run */
	/*
	 * Runs in row order: bits 0-4 first column, 5-9 last column, 10-14
	 * row; then their links (run_links); then their roots.
	 */
	uint32_t run[HRUNS];
	union {
		int par[HRUNS];         /* union-find parents of the runs */
		uint8_t label[HRUNS];   /* then: each run's rank (its component's) */
	} u;
	uint32_t root[HRUNS / 32];      /* bit i: run i is a root */
	int rbase[HRUNS / 32];          /* roots before word w: the ranks */
};

/*
 * The runs that run j is linked to: the leftmost one above that it
 * touches, and the leftmost one below unless an upper run further left
 * touches that one too (that pair is then the lower run's own link).
 * These links join every pair of touching runs into one set, with at
 * most two a run.  Packed: the run above in bits 0-15, the one below in
 * bits 16-31, j itself where there is none.
 */
__device__ __forceinline__ uint32_t
run_links(const struct hyst_tile *w, int j)
{
	const uint32_t d = w->run[j];
	const int a = d & 31, b = d >> 5 & 31, row = d >> 10 & 31;
	const uint32_t wide = span(a > 0 ? a - 1 : 0, b < HT - 1 ? b + 1 : HT - 1);
	uint32_t up = j, dn = j;

	if (row > 0) {
		const uint32_t m = w->cand[row - 1];
		if (m & wide)
			up = run_at(w->base, row - 1, m, __ffs(m & wide) - 1);
	}
	if (row < HT - 1) {
		const uint32_t m = w->cand[row + 1];
		if (m & wide) {
			/*
			 * This run links to the lower run (first column la) only
			 * if an upper run left of it touches that one, in columns
			 * la - 1 .. a - 2: else this run is the lower run's
			 * leftmost, which links to it.
			 */
			const int c = __ffs(m & wide) - 1;
			const uint32_t gap = ~m & ((1u << c) - 1);
			const int la = gap ? 32 - __clz(gap) : 0, lo = la > 0 ? la - 1 : 0;
			if (lo <= a - 2 && (w->cand[row] & span(lo, a - 2)))
				dn = run_at(w->base, row + 1, m, c);
		}
	}
	return up | dn << 16;
}

/*
 * The sets of the tile's runs, from their links (w->run[j], run_links'),
 * the runs dealt round the lanes and every lane in step: no find walks a
 * path of its own.  (A union-find per link did, and its divergent finds
 * cost twice the instructions, at a quarter of the lanes.)  Each run
 * starts with the run above it as its parent, if any, which is always a
 * smaller run.  Each turn, for each run j and its two links u and d, the
 * smallest of their grandparents, m, becomes the parent of j and of the
 * parents of u and d (FastSV's hooking and shortcut, Zhang, Azad and Hu,
 * 2020).  A parent only ever decreases, and stays in
 * its run's set.  A turn that changes nothing ends it.  Then each run's
 * parent is at most m, its own grandparent at least m and at most its
 * parent: all three are equal, so every run's parent is its grandparent,
 * a root; and those of u and d are m too, so a link's two runs share
 * their root.  A set's root is then its smallest run.  On the bench's
 * noisy map, three to five turns.
 */
__device__ void
join_runs(struct hyst_tile *w, int nruns, int r)
{
	int *par = w->u.par;
	const unsigned s0 = slot0(par);
	bool changed;

	do {
		changed = false;
		for (int j = r; j < nruns; j += 32) {
			const uint32_t l = w->run[j];
			const unsigned sj = s0 + j * SLOT_SIZE;
			const unsigned pj = slot_load(par, sj);
			const unsigned pu = slot_load(par, s0 + (l & 0xffff) * SLOT_SIZE);
			const unsigned pd = slot_load(par, s0 + (l >> 16) * SLOT_SIZE);
			const unsigned gj = slot_load(par, pj), gu = slot_load(par, pu);
			const unsigned gd = slot_load(par, pd);
			const unsigned m = min(gj, min(gu, gd));
			/*
			 * A run that changes anything takes all three minimums,
			 * those that change nothing included, in one branch.
			 * Taken by every run every turn, the reductions cost
			 * six times the shared atomics, and a branch round
			 * each of them split the warp three times a run; one
			 * branch measured fastest of the three.
			 */
			if (max(pj, max(gu, gd)) > m) {
				slot_lower(par, sj, m);
				slot_lower(par, pu, m);
				slot_lower(par, pd, m);
				changed = true;
			}
		}
		__syncwarp();
	} while (__any_sync(FULL, changed));
}

/*
 * The runs of row mask c that hold a bit of s (s within c): from each
 * run's lowest bit of s up, through the carry of c + s, which clears c's
 * bits from there to the run's end, and from its highest bit of s down,
 * the same on the reversed row.
 */
__device__ __forceinline__ uint32_t
row_fill(uint32_t c, uint32_t s)
{
	const uint32_t rc = __brev(c), rs = __brev(s);

	return (c & ~(c + s)) | __brev(rc & ~(rc + rs)) | s;
}

/*
 * The pixels of the tile's row masks c (lane r: row r) 8-connected in
 * the tile to the seeds s (within c): whole runs at a time, a row further
 * up and down each turn, until a turn adds none.
 */
__device__ __forceinline__ uint32_t
flood(uint32_t c, uint32_t s)
{
	uint32_t e = row_fill(c, s);

	for (;;) {
		/* Rows 0 and 31 get their own e back, which they hold already. */
		const uint32_t v = __shfl_up_sync(FULL, e, 1) |
		    __shfl_down_sync(FULL, e, 1);
		const uint32_t f = row_fill(c, c & (e | v | v << 1 | v >> 1));
		if (!__any_sync(FULL, f != e))
			return e;
		e = f;
	}
}

/* The label of column c of a tile row: an edge, pending (its rank), or neither. */
__device__ __forceinline__ uint32_t
ring_label(const struct hyst_tile *w, int row, uint32_t edge, uint32_t pend, int c)
{
	if (pend >> c & 1)
		return w->u.label[run_at(w->base, row, pend, c)];
	return edge >> c & 1 ? HSTRONG : HNONE;
}

template <typename T>
__global__ void
__launch_bounds__(HT * HWARPS)
edge_hyst_local(gpu_image lab, gpu_image out, struct hyst_mem m)
{
	__shared__ struct hyst_tile tiles[HWARPS];
	const int r = threadIdx.x, ntx = (lab.width + HT - 1) / HT;
	const int tx = blockIdx.x * HWARPS + threadIdx.y;

	if (tx >= ntx)
		return;
	struct hyst_tile *w = &tiles[threadIdx.y];
	const size_t tile = (size_t)blockIdx.y * ntx + tx;
	const int x0 = tx * HT, y = blockIdx.y * HT + r;
	uint32_t v[HT / 4], cand = 0, strong = 0;

	load_row(lab, x0, y, v);
#pragma unroll
	for (int i = 0; i < HT / 4; i++) {
		uint32_t b = class_bits(v[i]);
		cand |= (b & 0xf) << 4 * i;
		strong |= (b >> 4) << 4 * i;
	}
	if (tile == 0 && r == 0)
		m.node[0] = 0;

	/*
	 * The tile's edges: the candidates connected in it to a strong
	 * pixel.  Of the others, those connected in it to its ring are
	 * pending; the rest are not edges.
	 */
	const uint32_t edge = flood(cand, strong), other = cand & ~edge;
	const uint32_t pend = flood(other, other & (r == 0 || r == HT - 1 ?
	    FULL : 0x80000001u));
	const uint32_t e0 = __shfl_sync(FULL, edge, 0);
	const uint32_t e31 = __shfl_sync(FULL, edge, HT - 1);
	const uint32_t p0 = __shfl_sync(FULL, pend, 0);
	const uint32_t p31 = __shfl_sync(FULL, pend, HT - 1);
	put_row<T>(out, x0, y, edge);
	if (__any_sync(FULL, pend)) {
		/* The pending runs, numbered in row order over the tile. */
		const int nr = __popc(pend & ~(pend << 1)), end = warp_scan(nr, r);
		const int first = end - nr, nruns = __shfl_sync(FULL, end, HT - 1);
		w->cand[r] = pend;
		w->base[r] = first;
		if (r < HRUNS / 32)
			w->root[r] = 0;
		int k = first;
		for (uint32_t rest = pend, run; rest != 0; rest ^= run, k++) {
			run = rest & ~(rest + (rest & -rest));
			w->run[k] = (__ffs(run) - 1) | (31 - __clz(run)) << 5 | r << 10;
		}
		__syncwarp();

		/* The links of each run, in place of its columns and row. */
		const unsigned s0 = slot0(w->u.par);
		for (int j = r; j < nruns; j += 32) {
			const uint32_t l = run_links(w, j);
			w->run[j] = l;
			w->u.par[j] = (int)(s0 + (l & 0xffff) * SLOT_SIZE);
		}
		__syncwarp();
		join_runs(w, nruns, r);

		/*
		 * The roots.  Every set here is pending (it touches the ring and
		 * holds no strong pixel): its rank is its root's among the
		 * roots, in index order.
		 */
		for (int turn = 0; turn < nruns; turn += 32) {
			const int j = turn + r;
			const int root = j < nruns ? (int)((w->u.par[j] - s0) / SLOT_SIZE) : -1;
			if (j < nruns)
				w->run[j] = root;
			const uint32_t b = __ballot_sync(FULL, root == j);
			if (r == 0)
				w->root[turn / 32] = b;
		}
		__syncwarp();
		const uint32_t rw = r < HRUNS / 32 ? w->root[r] : 0;
		const int rend = warp_scan(__popc(rw), r);
		const int npend = __shfl_sync(FULL, rend, 31);
		if (r < HRUNS / 32)
			w->rbase[r] = rend - __popc(rw);
		for (int i = r; i < npend; i += 32) {
			uint32_t g = (uint32_t)(1 + tile * HCAP + i);
			m.node[g] = g;
		}
		if (r == 0)
			m.npend[tile] = (uint8_t)npend;
		__syncwarp();
		for (int j = r; j < nruns; j += 32) {
			const int root = w->run[j];
			w->u.label[j] = (uint8_t)(w->rbase[root >> 5] +
			    __popc(w->root[root >> 5] & ((1u << (root & 31)) - 1)));
		}
		__syncwarp();

		/* For final: the row masks, the pending runs' ranks in row order. */
		m.rows[tile * HT + r] = make_uint2(edge, pend);
		for (int i = r; i < (nruns + 3) / 4; i += 32)
			((uint32_t *)(m.rank + tile * HRUNS))[i] =
			    ((const uint32_t *)w->u.label)[i];
	} else if (r == 0) {
		m.npend[tile] = 0;
	}

	/* The labels of the ring pixels in column r, row r. */
	m.ring[tile * HT + r] = ring_label(w, 0, e0, p0, r) |
	    ring_label(w, HT - 1, e31, p31, r) << 8 |
	    ring_label(w, r, edge, pend, 0) << 16 |
	    ring_label(w, r, edge, pend, HT - 1) << 24;
}

/* The node of ring label l of a tile: 0 for a strong pixel. */
__device__ __forceinline__ uint32_t
node_of(size_t tile, uint32_t l)
{
	return l == HSTRONG ? 0 : (uint32_t)(1 + tile * HCAP + l);
}

/* Joins ring label a of tile ta with ring label b of tile tb. */
__device__ __forceinline__ void
join(uint32_t *node, size_t ta, uint32_t a, size_t tb, uint32_t b)
{
	if (b == HNONE || (a == HSTRONG && b == HSTRONG))
		return;
	uf_unite(node, node_of(ta, a), node_of(tb, b));
}

/*
 * Thread (tile, k): k < HT, the right ring pixel of row k against its
 * neighbours in the tile column to the right; k >= HT, the bottom ring
 * pixel of column k - HT against its neighbours in the tile row below.
 * A tile with a neighbour to the right (below) is full width (height),
 * so the pixel and its neighbours are in the image.  A pixel whose
 * predecessor on the side has its label leaves the two neighbours they
 * share to that one's thread, and a neighbour with the label of the one
 * before it is not joined again: in a run along the border, most
 * pixels make one union, not three.
 */
__global__ void
edge_hyst_merge(struct hyst_mem m, int ntx, int nty, int width, int height)
{
	const size_t id = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	const size_t ntiles = (size_t)ntx * nty;

	if (id >= ntiles * 2 * HT)
		return;
	/* ntiles * HCAP fits 32 bits (edge.h), so the tile's coordinates do too. */
	const size_t tile = id / (2 * HT);
	const int k = (int)(id % (2 * HT));
	const int tx = (int)((uint32_t)tile % (uint32_t)ntx);
	const int ty = (int)((uint32_t)tile / (uint32_t)ntx);
	const uint32_t *ring = m.ring + tile * HT;
	size_t tp = 0;
	uint32_t bp = HNONE;

	if (k < HT) {
		const int y = ty * HT + k;
		const uint32_t a = ring[k] >> 24;
		if (tx + 1 >= ntx || y >= height || a == HNONE)
			return;
		int y2 = k > 0 && ring[k - 1] >> 24 == a ? y + 1 : max(y - 1, 0);
		for (; y2 <= min(y + 1, height - 1); y2++) {
			const size_t t2 = (size_t)(y2 / HT) * ntx + tx + 1;
			const uint32_t b = m.ring[t2 * HT + y2 % HT] >> 16 & 0xff;
			if (b != bp || t2 != tp)
				join(m.node, tile, a, t2, b);
			bp = b, tp = t2;
		}
	} else {
		const int lx = k - HT, x = tx * HT + lx;
		const uint32_t a = ring[lx] >> 8 & 0xff;
		if (ty + 1 >= nty || x >= width || a == HNONE)
			return;
		int x2 = lx > 0 && (ring[lx - 1] >> 8 & 0xff) == a ? x + 1 : max(x - 1, 0);
		for (; x2 <= min(x + 1, width - 1); x2++) {
			const size_t t2 = (size_t)(ty + 1) * ntx + x2 / HT;
			const uint32_t b = m.ring[t2 * HT + x2 % HT] & 0xff;
			if (b != bp || t2 != tp)
				join(m.node, tile, a, t2, b);
			bp = b, tp = t2;
		}
	}
}

/*
 * In a tile with pending components whose root is 0, the rows holding
 * one are written again: the row's edges, and its pending runs whose
 * rank is one of those.
 */
template <typename T>
__global__ void
__launch_bounds__(HT * HWARPS)
edge_hyst_final(gpu_image out, struct hyst_mem m)
{
	const int r = threadIdx.x, ntx = (out.width + HT - 1) / HT;
	const int tx = blockIdx.x * HWARPS + threadIdx.y;

	if (tx >= ntx)
		return;
	const size_t tile = (size_t)blockIdx.y * ntx + tx;
	const int n = m.npend[tile];
	if (n == 0)
		return;
	/* fix: bit r, pending component r is an edge. */
	const uint32_t g = (uint32_t)(1 + tile * HCAP);
	const uint64_t fix = __ballot_sync(FULL, r < n &&
	    uf_find(m.node, g + r) == 0) | (uint64_t)__ballot_sync(FULL,
	    r + 32 < n && uf_find(m.node, g + r + 32) == 0) << 32;
	if (fix == 0)
		return;
	const uint2 row = m.rows[tile * HT + r];
	const int np = __popc(row.y & ~(row.y << 1)), end = warp_scan(np, r);
	const uint8_t *rank = m.rank + tile * HRUNS + end - np;
	uint32_t edge = 0;
	for (uint32_t rest = row.y, run; rest != 0; rest ^= run, rank++) {
		run = rest & ~(rest + (rest & -rest));
		if (fix >> *rank & 1)
			edge |= run;
	}
	if (edge != 0)
		put_row<T>(out, tx * HT, blockIdx.y * HT + r, row.x | edge);
}

extern "C" cudaError_t
edge_launch_hyst(const struct gpu_image *lab, const struct gpu_image *out,
    void *scratch, cudaStream_t stream)
{
	const int ntx = (lab->width + HT - 1) / HT, nty = (lab->height + HT - 1) / HT;
	const size_t ntiles = (size_t)ntx * nty;
	struct hyst_mem m = hyst_carve(scratch, ntiles);
	dim3 grid((ntx + HWARPS - 1) / HWARPS, nty), block(HT, HWARPS);
	cudaError_t err;

	if (out->maxval > 255)
		edge_hyst_local<uint16_t><<<grid, block, 0, stream>>>(*lab, *out, m);
	else
		edge_hyst_local<uint8_t><<<grid, block, 0, stream>>>(*lab, *out, m);
	if ((err = cudaGetLastError()) != cudaSuccess)
		return err;
	edge_hyst_merge<<<(unsigned)((ntiles * 2 * HT + 255) / 256), 256, 0,
	    stream>>>(m, ntx, nty, lab->width, lab->height);
	if ((err = cudaGetLastError()) != cudaSuccess)
		return err;
	if (out->maxval > 255)
		edge_hyst_final<uint16_t><<<grid, block, 0, stream>>>(*out, m);
	else
		edge_hyst_final<uint8_t><<<grid, block, 0, stream>>>(*out, m);
	return cudaGetLastError();
}
