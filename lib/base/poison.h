/*
 * poison.h - the tests' way to lose a GPU's context: a kernel that
 * writes where no memory is, an error that sticks to the context until
 * it is made anew (kernels/poison.cu).  For the server's fault
 * injection (gpufiltd's GPUFILTD_FAULT), never a run's.
 */
#ifndef GF_POISON_H
#define GF_POISON_H

#include "gf.h"
#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loses g's context; returns -1 with e saying so (the CUDA error). */
int gpu_poison(const struct gpu *g, struct gf_err *e);

#ifdef __cplusplus
}
#endif

#endif
