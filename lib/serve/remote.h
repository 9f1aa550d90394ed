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
 * A lane: a connection of its own (the first lane takes r's).  -1 with e
 * when it cannot connect or is refused.
 */
int remote_lane_open(struct remote *r, struct remote_lane **l,
    struct gf_err *e);
void remote_lane_close(struct remote_lane *l);

/*
 * in filtered by the server into out (its size, channels and maxval
 * set and out->px allocated by the caller), on the server's GPU gpu (an
 * index of remote_gpus'; -1: its CPU); the server's times into t.  0;
 * -1 with e when the image failed there; -2 with e when the lane is
 * broken (the server ended, or its GPU broke): the run must stop.
 */
int remote_filter(struct remote_lane *l, int gpu, const struct image *in,
    struct image *out, struct gf_times *t, struct gf_err *e);

#endif
