/*
 * planes.h - launchers of kernels/planes.cu: packed host-layout images
 * (rows of interleaved samples, no padding) to and from the pitched
 * one-channel device images of gpu.h, one thread per pixel.
 */
#ifndef GF_PLANES_H
#define GF_PLANES_H

#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * dst = the gray of packed (channels 2, 3 or 4 interleaved, dst's size):
 * img_to_gray's formula (img.h) of the first three, or with 2 channels
 * (gray+alpha) the first; alpha is dropped.
 */
cudaError_t planes_launch_gray(const void *packed, int channels,
    const struct gpu_image *dst, cudaStream_t stream);

/*
 * Copies channel c of packed (channels interleaved, plane's size and
 * maxval) into plane, or with to_packed plane into channel c of packed.
 */
cudaError_t planes_launch_copy(void *packed, int channels, int c,
    const struct gpu_image *plane, int to_packed, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
