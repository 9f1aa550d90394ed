/*
 * emu.cc - the threads, barriers and launches behind emu.h.  A block's
 * threads are fibers (ucontext) on one host thread, run round-robin:
 * each runs until it reaches a barrier (__syncthreads, a warp
 * exchange) or ends; a barrier opens once every live thread of its
 * block (warp) waits there.  Blocks run one after another.
 */
#include <ucontext.h>

#include "emu.h"

thread_local uint3 emu_threadIdx, emu_blockIdx;
dim3 emu_blockDim, emu_gridDim;
unsigned char emu_dyn_smem[256 * 1024] __attribute__((aligned(16)));

namespace {
enum fstate { RUN, AT_BLOCK, AT_WARP, DONE };
struct fiber {
	ucontext_t ctx;
	fstate st;
	char *stack;
};
const size_t STACK = 256 * 1024;
std::vector<fiber> fibers;
ucontext_t sched;
int cur_t;
int xchg[1024];
int or_acc;
const std::function<void()> *body;

void
yield(fstate s)
{
	fibers[cur_t].st = s;
	swapcontext(&fibers[cur_t].ctx, &sched);
}

void
entry(void)
{
	(*body)();
	fibers[cur_t].st = DONE;
	swapcontext(&fibers[cur_t].ctx, &sched);
}

/* Runs the block's fibers until all are done. */
void
run_block(int n)
{
	for (;;) {
		int progressed = 0;
		for (int t = 0; t < n; t++) {
			if (fibers[t].st != RUN)
				continue;
			cur_t = t;
			emu_threadIdx = make_uint3(t % emu_blockDim.x, t / emu_blockDim.x %
			    emu_blockDim.y, t / (emu_blockDim.x * emu_blockDim.y));
			swapcontext(&sched, &fibers[t].ctx);
			progressed = 1;
		}
		int live = 0, at_block = 0;
		for (int t = 0; t < n; t++) {
			live += fibers[t].st != DONE;
			at_block += fibers[t].st == AT_BLOCK;
		}
		if (live == 0)
			return;
		if (at_block == live) {
			for (int t = 0; t < n; t++)
				if (fibers[t].st == AT_BLOCK)
					fibers[t].st = RUN;
			continue;
		}
		int opened = 0;
		for (int w = 0; w < (n + 31) / 32; w++) {
			int wl = 0, ww = 0;
			for (int t = 32 * w; t < n && t < 32 * w + 32; t++) {
				wl += fibers[t].st != DONE;
				ww += fibers[t].st == AT_WARP;
			}
			if (ww > 0 && ww == wl) {
				for (int t = 32 * w; t < n && t < 32 * w + 32; t++)
					if (fibers[t].st == AT_WARP)
						fibers[t].st = RUN;
				opened = 1;
			}
		}
		if (!opened && !progressed) {
			fprintf(stderr, "emu: deadlock at a barrier\n");
			abort();
		}
	}
}
}

void
__syncthreads(void)
{
	yield(AT_BLOCK);
}

int
__syncthreads_or(int p)
{
	or_acc |= p != 0;
	yield(AT_BLOCK);
	int r = or_acc;
	yield(AT_BLOCK);
	or_acc = 0;
	return r;
}

int
emu_warp_exchange(int v, int src_lane)
{
	int t = cur_t, w = t / 32;
	xchg[t] = v;
	yield(AT_WARP);
	int r = xchg[w * 32 + src_lane];
	yield(AT_WARP);
	return r;
}

void
emu_warp_gather(int v, int *all)
{
	int t = cur_t, w = t / 32;
	xchg[t] = v;
	yield(AT_WARP);
	for (int l = 0; l < 32; l++)
		all[l] = xchg[w * 32 + l];
	yield(AT_WARP);
}

unsigned
emu_ballot(int p)
{
	int t = cur_t, w = t / 32;
	xchg[t] = p != 0;
	yield(AT_WARP);
	unsigned r = 0;
	for (int l = 0; l < 32 && w * 32 + l < (int)fibers.size(); l++)
		if (fibers[w * 32 + l].st != DONE && xchg[w * 32 + l])
			r |= 1u << l;
	yield(AT_WARP);
	return r;
}

void
emu_run(dim3 grid, dim3 block, size_t smem, const std::function<void()> &f)
{
	int n = (int)(block.x * block.y * block.z);
	if (smem > sizeof(emu_dyn_smem) || n > 1024) {
		fprintf(stderr, "emu: launch too large\n");
		abort();
	}
	emu_blockDim = block;
	emu_gridDim = grid;
	body = &f;
	if ((int)fibers.size() < n) {
		size_t old = fibers.size();
		fibers.resize(n);
		for (size_t t = old; t < (size_t)n; t++)
			fibers[t].stack = (char *)malloc(STACK);
	}
	for (unsigned bz = 0; bz < grid.z; bz++)
	for (unsigned by = 0; by < grid.y; by++)
	for (unsigned bx = 0; bx < grid.x; bx++) {
		emu_blockIdx = make_uint3(bx, by, bz);
		memset(emu_dyn_smem, 0xa5, smem);
		for (int t = 0; t < n; t++) {
			getcontext(&fibers[t].ctx);
			fibers[t].ctx.uc_stack.ss_sp = fibers[t].stack;
			fibers[t].ctx.uc_stack.ss_size = STACK;
			fibers[t].ctx.uc_link = &sched;
			makecontext(&fibers[t].ctx, entry, 0);
			fibers[t].st = RUN;
		}
		run_block(n);
	}
}
