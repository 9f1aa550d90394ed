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

/*
 * dst = the 8-bit image src (as stored) turned the way EXIF orientation
 * (2-8) says it is displayed, as img_orient does on the host: dst is
 * src's size, with width and height swapped for 5-8.
 */
cudaError_t planes_launch_orient(const struct gpu_image *src, int orientation,
    const struct gpu_image *dst, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
