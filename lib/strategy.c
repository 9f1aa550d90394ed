/*
 * strategy.c - the table of kernel strategies shared by every tool.
 */
#include <string.h>

#include "strategy.h"

const struct gf_strategy_info gf_strategies[GF_NSTRATEGIES] = {
	[GF_AUTO] = {"auto", "the fastest strategy for the device; the CPU without a GPU"},
	[GF_CPU] = {"cpu", "the CPU reference that every GPU path matches bit for bit"},
	[GF_GLOBAL] = {"global", "one thread per pixel, every read from global memory"},
	[GF_TEXTURE] = {"texture", "one thread per pixel, reads through the texture cache"},
	[GF_SHARED] = {"shared", "a block loads its tile and apron into shared memory"},
	[GF_SLIDING] = {"sliding", "each thread slides a register window down a column strip"},
};

int
gf_strategy_parse(const char *s, enum gf_strategy *out, struct gf_err *e)
{
	for (int i = 0; i < GF_NSTRATEGIES; i++) {
		if (strcmp(s, gf_strategies[i].name) == 0) {
			*out = (enum gf_strategy)i;
			return 0;
		}
	}
	return gf_fail(e, "'%s' is not a strategy; choose auto, cpu, global, "
	    "texture, shared or sliding", s);
}
