/*
 * strategy.h - the ways a stencil can reach its pixels.  One table names
 * them and says how each is launched (one thread a pixel or rows a
 * thread, a texture object, a tile in shared memory); dispatch, --help,
 * the test matrix and the bench all read it.  Each tool's kernel file
 * (kernels/sobel.cu, conv2d.cu, edge_nms.cu) holds its column of it: a
 * row per strategy of its launcher (sobel_kernels, conv2d_kernels,
 * nms_kernels) and of its default shape (sobel_defaults,
 * conv2d_defaults, edge_defaults).  Adding a strategy touches this enum
 * and the table in strategy.c, then in each kernel file its kernel, a
 * launcher and the two rows.
 */
#ifndef GF_STRATEGY_H
#define GF_STRATEGY_H

#include "gf.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gf_strategy {
	GF_AUTO,        /* fastest GPU strategy, or the CPU without a GPU */
	GF_CPU,         /* the reference every GPU path must equal */
	GF_GLOBAL,
	GF_TEXTURE,
	GF_SHARED,
	GF_SLIDING,
	GF_NSTRATEGIES
};

struct gf_strategy_info {
	const char *name;
	const char *summary;    /* one line, shown by --help */
	int per_pixel;          /* one thread an output pixel: no rows a thread */
	int texture;            /* reads its input through a texture object */
	int tile;               /* a block's tile and apron in shared memory */
};

extern const struct gf_strategy_info gf_strategies[GF_NSTRATEGIES];

/* First and last GPU strategies, for loops over "every GPU path". */
#define GF_FIRST_GPU GF_GLOBAL
#define GF_LAST_GPU GF_SLIDING

/* Looks s up by name; -1 with a message listing the names if unknown. */
int gf_strategy_parse(const char *s, enum gf_strategy *out, struct gf_err *e);

/*
 * Launch shape asked for on the command line: threads per block in x and
 * y, and output rows per thread (shared and sliding).  0 means the
 * strategy's default.
 */
struct gf_launch {
	int block_w;
	int block_h;
	int rows;
};

/*
 * Completes l from d, the defaults of strategy s: the block when l gives
 * none, the rows when l gives none or s makes one row per thread (global,
 * texture).
 */
void gf_launch_default(enum gf_strategy s, const struct gf_launch *d,
    struct gf_launch *l);

/*
 * Completes l from the strategy's defaults (a table indexed by strategy)
 * and gives the pixels one block covers and its shared memory: one pixel
 * per thread for global and texture; for shared and sliding, 16-byte
 * chunks (16 / bytes-per-sample pixels) of l->rows rows per thread, and
 * for shared a tile of those rows plus apron rows above and below, rows
 * of (block_w + 2) chunks.
 */
void gf_launch_shape(enum gf_strategy s, const struct gf_launch *defaults,
    unsigned maxval, int apron, struct gf_launch *l, int *tile_w,
    int *tile_h, size_t *smem);

#ifdef __cplusplus
}
#endif

#endif
