/*
 * remote.h - the tool's side of the server (gpufiltd): a run whose
 * filter lanes are the server's.  The run stays the tool's own - it
 * reads, decodes, encodes and writes its files as in process - and each
 * lane hands its images to the server through a window of shared memory
 * (proto.h), so that they are filtered on GPUs the server keeps open.
 * No CUDA call is made here.
 */
#ifndef GF_REMOTE_H
#define GF_REMOTE_H

#include "gf.h"
#include "tool.h"

struct remote;
struct remote_lane;

/* What a run tells the server of itself. */
struct remote_hello {
	const char *version;    /* the tools' GF_VERSION: one build at both ends */
	const char *tool;       /* sobel, conv2d, edge */
	int argc;               /* its options, argv[0] the tool's name */
	char *const *argv;
	int strip_rows;         /* GPUFILT_STRIP_ROWS; 0: by size */
};

/*
 * Asks the server at path to serve the run h describes.  1: it will
 * (*r); 0: no server answers there; -2: the server refuses this run (e
 * says why); -3: the run asks for what this server has not (a GPU it
 * did not open: e says which), so it belongs in process; -1: e says
 * what failed.
 */
int remote_open(struct remote **r, const char *path,
    const struct remote_hello *h, struct gf_err *e);
void remote_close(struct remote *r);

/*
 * The server's GPUs for the run: their count (0: it filters on its
 * CPU, and why says why, as a run in process would say it), and GPU
 * i's number and name.
 */
int remote_gpus(const struct remote *r, const char **why);
int remote_gpu_number(const struct remote *r, int i);
const char *remote_gpu_name(const struct remote *r, int i);
int remote_pid(const struct remote *r);
/*
 * Whether the server decodes a gray run's JPEGs on its GPUs' engines
 * (remote_filter_jpeg); it may still decline any of them.
 */
int remote_jpeg(const struct remote *r);

/*
 * A lane: a connection of its own.  -1 with e
 * when the server refuses it, or says that the run's server ended when
 * no server answers, or another has taken its place.
 */
int remote_lane_open(struct remote *r, struct remote_lane **l,
    struct gf_err *e);
void remote_lane_close(struct remote_lane *l);

/*
 * Memory the server can map: a sealed memfd of size bytes at base, with
 * an id no other of this process's has had.  The engine's slots hold
 * their pixels in it when a server filters them, so that the server
 * reads and writes them where they lie.
 */
struct remote_mem {
	void *base;
	size_t size;
	int fd;
	unsigned long long id;
	struct remote *lender;  /* borrowed from its server's pool; NULL: made */
};

/* m of at least size bytes (its pages come as they are written): 0, or -1 e. */
int remote_mem_alloc(struct remote_mem *m, size_t size, struct gf_err *e);
/*
 * m of at least size bytes borrowed from the pool of r's server (r NULL:
 * none): mapped here, its pages made, pinned and zeroed there (they
 * come into this mapping as they are touched).  1; 0 when the pool has
 * none for it now (it may later), or the server is gone: the caller
 * makes its own (remote_mem_alloc).
 */
int remote_mem_lend(struct remote *r, struct remote_mem *m, size_t size);
/*
 * The n bytes at p, which lie in m, written to fd from m's file by the
 * kernel, so that their pages need not come into this process's mapping
 * (sendfile).  fd must be a regular file, whose pages the kernel fills
 * before the call returns: a pipe or a socket would hold m's pages
 * themselves, and show what the server writes into m next.  The count
 * written: n, or fewer when fd does not take them so (the caller writes
 * the rest, and meets fd's error itself).
 */
size_t remote_mem_send(const struct remote_mem *m, const void *p, size_t n,
    int fd);
/* Frees m; one borrowed goes back to its server's pool (remote_close'd after). */
void remote_mem_free(struct remote_mem *m);

/* What remote_filter tells of a tall image's rows as they come. */
struct remote_rows {
	/* The output's first rows rows are in out (called in order). */
	void (*done)(void *arg, int rows);
	void *arg;
};

/*
 * in filtered by the server into out (its size, channels and maxval
 * set and out->px allocated by the caller), on the server's GPU gpu (an
 * index of remote_gpus'; -1: its CPU); the server's times into t.
 * inm and outm: the remote_mem that in's and out's pixels lie in (the
 * server reads and writes them there), or NULL (they are copied through
 * a window of the lane's own).  rows, if not NULL, hears of the output's
 * rows as the server finishes them.  0; -1 with e when the image failed
 * there; -2 with e when the lane is broken (the server ended, or its
 * GPU broke): the run must stop.
 */
int remote_filter(struct remote_lane *l, int gpu, const struct image *in,
    const struct remote_mem *inm, struct image *out,
    const struct remote_mem *outm, const struct remote_rows *rows,
    struct gf_times *t, struct gf_err *e);

/*
 * The baseline JPEG b (its bytes in inm where they lie in it, else
 * copied; its header read by the caller) decoded on the server's GPU
 * gpu and filtered into out (its size turned by b's orientation).  1
 * when the server declined it (no engines, they do not take it, or its
 * walk on the GPU is not clean: libjpeg-turbo may read it otherwise):
 * nothing was written, and the caller decodes it and sends its pixels;
 * else as remote_filter.
 */
struct img_jpeg_bits;
int remote_filter_jpeg(struct remote_lane *l, int gpu,
    const struct img_jpeg_bits *b, const struct remote_mem *inm,
    struct image *out, const struct remote_mem *outm, struct gf_times *t,
    struct gf_err *e);

#endif
