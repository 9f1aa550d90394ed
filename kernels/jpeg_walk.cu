/*
 * jpeg_walk.cu - the pieced walk of jpeg_walk.h on the GPU: libjpeg-
 * turbo's verdict on a JPEG's scan (img_jpeg_check.c's), a thread per
 * JW_PIECE bits of its coded data, for the engines that then decode it
 * (the server's, lib/engine/engine_worker.c).  On the CPU the walk costs
 * most of a decode and is serial; here a 12-megapixel photo's is a few
 * rounds of tens of thousands of threads.
 *
 * The kernels, on the walker's stream: walk_first guesses each piece's
 * state and walks it; walk_round sets each piece's start to where the
 * piece before ended, until no piece changes (the host reads the count
 * of changes after each round; JW_ROUNDS at most, else unsure); then
 * walk_scan numbers the pieces' first blocks and sums the DC predictions
 * before them (one block), and walk_check checks the blocks of each.
 */
#include <string.h>

#include <cub/block/block_scan.cuh>

#include "gpu.h"
#include "jpeg_gpu.h"

#define WALK_THREADS 128
#define SCAN_THREADS 256

/* Rounds launched between two looks at their counts of changes. */
#define WALK_GROUP 8

/* What the walk tells the host. */
struct walk_sum {
	unsigned changed[JW_ROUNDS];    /* pieces whose start each round changed */
	int unsure;
	int ends;               /* pieces that held the scan's last block */
	long long outside;
};

struct jpeg_walker {
	struct jw_plan *plan, *hplan;   /* on the GPU, and pinned */
	unsigned char *data, *hdata;    /* the coded data, and pinned */
	size_t cap, hcap;
	struct jw_piece *p;             /* np pieces' */
	struct jw_state *ex[2];         /* the ends of each, two rounds' */
	uint64_t *g;                    /* each piece's first block */
	int64_t *pred;                  /* JW_COMPS predictions a piece */
	uint64_t np_cap;
	struct walk_sum *sum, *hsum;
};

static __device__ uint64_t
walk_piece(void)
{
	return (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
}

/*
 * The plan into the block's shared memory (each code's tables are read
 * there, not from global memory, a dependent load per code), a share of
 * its 8-byte words a thread; every thread of the block must call it.
 */
static __device__ const struct jw_plan *
walk_plan(const struct jw_plan *pl, struct jw_plan *sh)
{
	const uint2 *from = (const uint2 *)pl;
	uint2 *to = (uint2 *)sh;

	for (unsigned i = threadIdx.x; i < sizeof(*pl) / sizeof(uint2); i += blockDim.x)
		to[i] = __ldg(&from[i]);
	__syncthreads();
	return sh;
}

__global__ void __launch_bounds__(WALK_THREADS)
walk_first(const struct jw_plan *gpl, const unsigned char *d, uint64_t n,
    uint64_t np, struct jw_piece *p, struct jw_state *ex)
{
	__shared__ struct jw_plan sh;
	const struct jw_plan *pl = walk_plan(gpl, &sh);
	uint64_t j = walk_piece();
	struct jw_piece pc;

	if (j >= np)
		return;
	pc.start = j == 0 ? jw_mcu_at(0) : jw_guess(pl, d, n, j * JW_PIECE);
	ex[j] = jw_piece_round(pl, d, n, (j + 1) * JW_PIECE, &pc);
	p[j] = pc;
}

__global__ void __launch_bounds__(WALK_THREADS)
walk_round(const struct jw_plan *gpl, const unsigned char *d, uint64_t n,
    uint64_t np, struct jw_piece *p, const struct jw_state *prev,
    struct jw_state *ex, unsigned *changed)
{
	__shared__ struct jw_plan sh;
	const struct jw_plan *pl;
	uint64_t j = walk_piece();
	int redo = j > 0 && j < np && !jw_same(p[j].start, prev[j - 1]);
	struct jw_piece pc;

	if (j < np && !redo)
		ex[j] = prev[j];
	if (!__syncthreads_or(redo))
		return;         /* the block's pieces are settled: no plan needed */
	pl = walk_plan(gpl, &sh);
	if (!redo)
		return;
	pc.start = prev[j - 1];
	ex[j] = jw_piece_round(pl, d, n, (j + 1) * JW_PIECE, &pc);
	p[j] = pc;
	atomicAdd(changed, 1u);
}

/* A piece's counts, which the scan sums over the pieces before it. */
struct walk_count {
	uint64_t g;
	int64_t pred[JW_COMPS];
};

struct walk_count_add {
	__device__ struct walk_count
	operator()(const struct walk_count &a, const struct walk_count &b) const
	{
		struct walk_count s;

		s.g = a.g + b.g;
		for (int c = 0; c < JW_COMPS; c++)
			s.pred[c] = a.pred[c] + b.pred[c];
		return s;
	}
};

/*
 * Each piece's first block number (g) and the DC predictions before it
 * (pred): sums over the pieces before, in one block (CUB's), a chunk of
 * pieces a thread and the chunks' totals scanned by the block.
 */
__global__ void __launch_bounds__(SCAN_THREADS)
walk_scan(const struct jw_piece *p, uint64_t np, uint64_t *g, int64_t *pred)
{
	typedef cub::BlockScan<struct walk_count, SCAN_THREADS> scan;
	__shared__ typename scan::TempStorage tmp;
	uint64_t chunk = (np + SCAN_THREADS - 1) / SCAN_THREADS;
	uint64_t lo = threadIdx.x * chunk, hi = lo + chunk < np ? lo + chunk : np;
	struct walk_count t = {0, {0}}, zero = {0, {0}};

	for (uint64_t j = lo; j < hi; j++) {
		t.g += p[j].dcs;
		for (int c = 0; c < JW_COMPS; c++)
			t.pred[c] += p[j].dcsum[c];
	}
	scan(tmp).ExclusiveScan(t, t, zero, walk_count_add());
	for (uint64_t j = lo; j < hi; j++) {
		g[j] = t.g;
		t.g += p[j].dcs;
		for (int c = 0; c < JW_COMPS; c++) {
			pred[j * JW_COMPS + c] = t.pred[c];
			t.pred[c] += p[j].dcsum[c];
		}
	}
}

__global__ void __launch_bounds__(WALK_THREADS)
walk_check(const struct jw_plan *gpl, const unsigned char *d, uint64_t n,
    uint64_t np, const struct jw_piece *p, const uint64_t *g,
    const int64_t *pred, struct walk_sum *sum)
{
	__shared__ struct jw_plan sh;
	const struct jw_plan *pl = walk_plan(gpl, &sh);
	uint64_t j = walk_piece();
	long o;
	int ends;

	if (j >= np)
		return;
	o = jw_piece_check(pl, d, n, j, &p[j], g[j], &pred[j * JW_COMPS], &ends);
	if (o < 0)
		atomicExch(&sum->unsure, 1);
	else if (o > 0)
		atomicAdd((unsigned long long *)&sum->outside, (unsigned long long)o);
	if (ends)
		atomicAdd(&sum->ends, 1);
}

/* The walker's buffers of fixed size. */
static int
walker_alloc(struct jpeg_walker *w, struct gf_err *e)
{
	GPU_TRY(e, cudaMalloc((void **)&w->plan, sizeof(*w->plan)));
	GPU_TRY(e, cudaMallocHost((void **)&w->hplan, sizeof(*w->hplan)));
	GPU_TRY(e, cudaMalloc((void **)&w->sum, sizeof(*w->sum)));
	GPU_TRY(e, cudaMallocHost((void **)&w->hsum, sizeof(*w->hsum)));
	return 0;
}

int
jpeg_walker_open(struct jpeg_walker **wp, struct gf_err *e)
{
	struct jpeg_walker *w = (struct jpeg_walker *)calloc(1, sizeof(*w));

	*wp = NULL;
	if (w == NULL)
		return gf_nomem(e, "out of memory");
	if (walker_alloc(w, e) < 0) {
		jpeg_walker_close(w);
		return -1;
	}
	*wp = w;
	return 0;
}

unsigned char *
jpeg_walker_buffer(struct jpeg_walker *w, size_t n, struct gf_err *e)
{
	cudaError_t ce;

	if (n <= w->hcap)
		return w->hdata;
	if (w->hdata != NULL)
		(void)cudaFreeHost(w->hdata);
	w->hdata = NULL;
	w->hcap = 0;
	if ((ce = cudaMallocHost((void **)&w->hdata, gpu_room(n))) !=
	    cudaSuccess) {
		w->hdata = NULL;
		gf_fail(e, "cannot pin %zu bytes for a JPEG's walk: %s",
		    gpu_room(n), cudaGetErrorString(ce));
		return NULL;
	}
	w->hcap = gpu_room(n);
	return w->hdata;
}

/*
 * The device buffers for n bytes of data and np pieces, with room to
 * spare (gpu_room): a worker's JPEGs differ in size.
 */
static int
walker_grow(struct jpeg_walker *w, size_t n, uint64_t np, struct gf_err *e)
{
	if (gpu_grow((void **)&w->data, &w->cap, n, e) < 0)
		return -1;
	if (np > w->np_cap) {
		np = gpu_room(np * sizeof(*w->p)) / sizeof(*w->p);
		void *old[] = {w->p, w->ex[0], w->ex[1], w->g, w->pred};
		for (int i = 0; i < 5; i++)
			if (old[i] != NULL)
				GPU_TRY(e, cudaFree(old[i]));
		w->p = NULL;
		w->ex[0] = w->ex[1] = NULL;
		w->g = NULL;
		w->pred = NULL;
		w->np_cap = 0;
		GPU_TRY(e, cudaMalloc((void **)&w->p, np * sizeof(*w->p)));
		GPU_TRY(e, cudaMalloc((void **)&w->ex[0], np * sizeof(*w->ex[0])));
		GPU_TRY(e, cudaMalloc((void **)&w->ex[1], np * sizeof(*w->ex[1])));
		GPU_TRY(e, cudaMalloc((void **)&w->g, np * sizeof(*w->g)));
		GPU_TRY(e, cudaMalloc((void **)&w->pred, np * JW_COMPS * sizeof(*w->pred)));
		w->np_cap = np;
	}
	return 0;
}

int
jpeg_walker_run(struct jpeg_walker *w, const struct jw_plan *pl, size_t n,
    cudaStream_t st, long *outside, struct gf_err *e)
{
	uint64_t np = pl->bits / JW_PIECE + 1;
	unsigned blocks = (unsigned)((np + WALK_THREADS - 1) / WALK_THREADS);
	int r = 0, settled = 0;

	*outside = -1;
	if (n > w->hcap || pl->bits > (uint64_t)n * 8)
		return gf_fail(e, "a JPEG's walk of %zu bytes, %zu in its buffer", n,
		    w->hcap);
	if (walker_grow(w, n + JW_PAD, np, e) < 0)
		return -1;
	memcpy(w->hplan, pl, sizeof(*pl));
	GPU_TRY(e, cudaMemcpyAsync(w->plan, w->hplan, sizeof(*pl),
	    cudaMemcpyHostToDevice, st));
	GPU_TRY(e, cudaMemcpyAsync(w->data, w->hdata, n, cudaMemcpyHostToDevice, st));
	GPU_TRY(e, cudaMemsetAsync(w->data + n, 0, JW_PAD, st));
	GPU_TRY(e, cudaMemsetAsync(w->sum, 0, sizeof(*w->sum), st));
	walk_first<<<blocks, WALK_THREADS, 0, st>>>(w->plan, w->data, n, np, w->p,
	    w->ex[0]);
	GPU_TRY(e, cudaGetLastError());
	while (!settled && r < JW_ROUNDS) {
		int from = r;
		for (; r < from + WALK_GROUP && r < JW_ROUNDS; r++) {
			walk_round<<<blocks, WALK_THREADS, 0, st>>>(w->plan, w->data, n,
			    np, w->p, w->ex[r & 1], w->ex[(r + 1) & 1],
			    &w->sum->changed[r]);
			GPU_TRY(e, cudaGetLastError());
		}
		GPU_TRY(e, cudaMemcpyAsync(&w->hsum->changed[from],
		    &w->sum->changed[from], (size_t)(r - from) * sizeof(unsigned),
		    cudaMemcpyDeviceToHost, st));
		GPU_TRY(e, cudaStreamSynchronize(st));
		for (int i = from; i < r && !settled; i++)
			settled = w->hsum->changed[i] == 0;
	}
	if (!settled)
		return 0;               /* unsure: the CPU decodes it */
	walk_scan<<<1, SCAN_THREADS, 0, st>>>(w->p, np, w->g, w->pred);
	GPU_TRY(e, cudaGetLastError());
	walk_check<<<blocks, WALK_THREADS, 0, st>>>(w->plan, w->data, n, np, w->p,
	    w->g, w->pred, w->sum);
	GPU_TRY(e, cudaGetLastError());
	GPU_TRY(e, cudaMemcpyAsync(w->hsum, w->sum, sizeof(*w->sum),
	    cudaMemcpyDeviceToHost, st));
	GPU_TRY(e, cudaStreamSynchronize(st));
	if (!w->hsum->unsure && w->hsum->ends == 1)
		*outside = (long)w->hsum->outside;
	return 0;
}

void
jpeg_walker_close(struct jpeg_walker *w)
{
	if (w == NULL)
		return;
	(void)cudaFree(w->plan);
	(void)cudaFreeHost(w->hplan);
	(void)cudaFreeHost(w->hdata);
	(void)cudaFree(w->data);
	(void)cudaFree(w->p);
	(void)cudaFree(w->ex[0]);
	(void)cudaFree(w->ex[1]);
	(void)cudaFree(w->g);
	(void)cudaFree(w->pred);
	(void)cudaFree(w->sum);
	(void)cudaFreeHost(w->hsum);
	free(w);
}
