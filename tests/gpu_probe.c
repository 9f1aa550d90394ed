/*
 * gpu_probe - exits 0 when a usable CUDA GPU is present, 1 otherwise.
 * The test harness asks it once, and skips (counts as skipped) every GPU
 * case when it says no.  It opens the device the way the tools do.
 */
#include <stdio.h>

#include "gpu.h"

int
main(void)
{
	struct gpu g;
	struct gf_err e;

	if (gpu_open(&g, -1, &e) < 0) {
		printf("%s\n", e.msg);
		return 1;
	}
	printf("%s\n", g.name);
	gpu_close(&g);
	return 0;
}
