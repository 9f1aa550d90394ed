/*
 * engine_int.h - what the engine's stages share, and nothing else.  The
 * engine (engine.h) is one run of a tool over its jobs; each stage is a
 * file with its own state, a member of struct engine:
 *
 *   engine_slot.c    slots and host buffers (en->pool): what carries an
 *                    image from reader to writer, the pinned budget, and
 *                    the queues between the stages
 *   engine_read.c    readers (en->read): open an input, decode its
 *                    images into slots, queue them as work
 *   engine_split.c   a stream's decode pool (en->split): its reader
 *                    keeps each JPEG frame as its bytes, and threads of
 *                    the pool decode them side by side into slots
 *   engine_gpu.c     the GPUs (en->gpus): opened while the first input
 *                    is read, then shared by their lanes
 *   engine_small.c   the small-run rule (en->small): one modest image
 *                    of one input runs on the CPU, no GPU opened
 *   engine_jdec.c    the GPUs' JPEG engines (en->jdec): a decoder per
 *                    GPU that decodes the JPEGs readers kept as their
 *                    bytes, in batches, into device memory for its lanes
 *   engine_lane.c    filter lanes (en->filter): take work, run the tool
 *                    on the GPU (strips, staging) or the CPU
 *   engine_write.c   the ordered writer and its encoders (private state)
 *   engine_trace.c   GPUFILT_TRACE: each slot's steps, timed (bench/trace.py)
 *   engine.c         the run: sizes the stages, starts and joins them
 *
 * Threads and what they share (all under en->mu):
 *
 *   readers  take the next job once they hold a free slot and marker,
 *            then for each of its images a slot from their own small
 *            set, read the image into the slot's host buffer and queue
 *            it as work; a job ends with a marker slot.  A stream's
 *            reader hands its JPEG frames, as their bytes, to:
 *   decoders (engine_split.c) decode them, several at once, and queue
 *            each as work (or, failed, for the writer).
 *   lanes    take work in arrival order, filter it (GPU or CPU) into the
 *            slot's output buffer, and hand it to the writer.  On the
 *            GPU each device has LANES of them, and a lane sets its
 *            device on its own thread: the work queue is one, so a
 *            free lane of any GPU takes the next image.
 *   writer   (the caller) takes slots in input order - job by job, image
 *            by image - writes them (in a batch, hands them to a pool of
 *            encoders and tells of them in the same order), and gives
 *            each slot back to its reader.
 *   opener   opens the GPUs (one thread each, at once) while the first
 *            input is read; the lanes start once it has decided.  Under
 *            the small-run rule it first waits for the reader to size
 *            the input's first image, and its second or its end.
 *
 * A slot carries one image from reader to writer and goes back only to
 * the reader it came from.  Each reader owns a fixed number of slots, so
 * memory stays bounded, and the earliest image the writer waits for
 * always has a slot of its own: nothing waits in a circle.  Only while
 * the GPUs open may readers take more (slot_ahead), up to a byte budget,
 * each freed when it comes back.
 *
 * One image goes to one GPU.  Its strips (a tall image) stay on the
 * lane's two streams: they are written in order as their downloads end,
 * and a tool with no halo (Otsu, hysteresis) needs the whole image on
 * one device anyway.  A device that breaks (an error that sticks to its
 * context) stops the whole run, with an error that names it.
 *
 * The GPUs' JPEG engines (engine_jdec.c) are the decode stage on the
 * device: a reader keeps a JPEG they decode exactly as its bytes and
 * queues the slot for the decoders (jdec_post, engine_read.c); the
 * decoder thread of each GPU with engines takes the queue in batches,
 * decodes them into device buffers of its own and hands each slot to
 * that GPU's lanes; a lane filters the luma where it lies
 * (jdec_luma, engine_lane.c) instead of uploading pixels, and gives the
 * buffer back once its stream is done (jdec_buf_release).  A JPEG the
 * engines refuse or fail on goes to the common queue as bytes, and the
 * lane that takes it decodes it on the CPU (jdec_cpu_decode).
 */
#ifndef GF_ENGINE_INT_H
#define GF_ENGINE_INT_H

#include <pthread.h>

#include "engine.h"
#include "img.h"
#include "jpeg_gpu.h"
#include "remote.h"

enum { GPU_PENDING, GPU_READY, GPU_UNUSED, GPU_FATAL };

/*
 * Slots per reader: a stream needs read, filter and write in flight at
 * once, and each GPU past the first adds LANES more (lanes_start).
 */
#define SLOTS_STREAM 4
#define SLOTS_BATCH 2
/*
 * Markers per reader, beside its slots for images: a job's end marker
 * never holds pixels, so it does not take an image's place (with one
 * image per file, it would halve the images a reader has in flight).
 */
#define MARKERS 2
/*
 * While the GPUs open (a few hundred milliseconds, in which a stream's
 * reader would fill its slots and wait), readers may take slots beyond
 * their own for up to this many bytes of images (and an eighth of the
 * machine's memory at most); each is freed when it comes back.
 */
#define AHEAD_BYTES ((size_t)512 << 20)
#define AHEAD_SLOTS 256         /* and this many slots (tiny images) */
#define LANES 2                 /* per GPU, unless GPUFILT_LANES says */
/*
 * A batch's lanes in all, shared among its GPUs (LANES each at least):
 * its images come from plain memory through the lanes' staging, and it
 * takes about four lanes copying at once to reach what the host's
 * copies allow (bench/hostbw and make bench-io measure it: two lanes
 * fall short, eight do no better than four).  Served, the server does
 * the copies and each lane waits on its round trip: each GPU takes
 * LANES_BATCH of its own (shared, a second GPU made a batch slower than
 * one: make bench-serve's gpus row).
 */
#define LANES_BATCH 4
/*
 * A served batch's lanes on each GPU when the server's engines decode
 * its JPEGs: a lane waits there for its JPEG's turn most of the time,
 * and the engines decode the JPEGs of the lanes waiting as one batch
 * while the batch before it is decoded (one image a call runs at a
 * small part of their rate, larger batches near all of it): as many
 * lanes as the server has workers on a GPU (server_int.h's WORKERS).
 * The readers get slots and end markers more for them (lanes_start).
 */
#define LANES_JPEG 32
/*
 * Slots and markers more per reader of a batch once the GPUs' JPEG
 * engines take its first JPEG (a slot then holds a JPEG's bytes until
 * its batch is decoded, and a one-image job its marker too): enough for
 * a batch in decoding, the next one filling, and the lanes'.  Only then:
 * every slot more is an output buffer more to touch first.
 */
#define SLOTS_JPEG 4
#define LANES_MAX 8
/*
 * Slots more of a stream's reader for each thread of its decode pool,
 * once its first JPEG frame is split off: one being decoded, one
 * waiting for it.
 */
#define SLOTS_SPLIT 2
#define SPLIT_MAX 64            /* decode threads at most */
/*
 * The frames a stream's decode pool has in flight at once, whatever its
 * threads: from the reader's split until the writer gives the slot back,
 * each counts its compressed bytes and twice its decoded pixels (the
 * image, and the tool's output of it), and the reader splits no frame
 * more past this many bytes in all, unless none is in flight (a frame
 * larger than this goes alone).  A slot keeps its buffers, but only as
 * many slots are ever taken as are in flight at once (the free list is
 * a stack), so this bounds what the pool holds, too.
 */
#define SPLIT_BYTES ((size_t)256 << 20)

/*
 * Host memory of one image, pinned when a GPU is in use, or shared with
 * the server when it filters the run; grows, then is reused.
 */
struct hbuf {
	void *p;
	size_t cap;
	int pinned;
	int uses;
	int shared;             /* p is shm's, which the server maps */
	struct remote_mem shm;
};

struct engine;
struct reader;

/* One image (or a job's end marker) on its way from a reader to the writer. */
struct slot {
	struct slot *next;
	struct engine *en;
	struct reader *owner;
	int job, index;         /* index: 1, 2, ... in the job; the marker's is last */
	int end;                /* the job's end marker */
	int marker;             /* a marker slot: only ever an end marker */
	int is_ahead;           /* taken while the GPUs opened (slot_ahead) */
	struct slot *ahead;     /* the next such, on en->pool.ahead */
	size_t ahead_bytes;     /* what it counts for in en->pool.ahead_bytes */
	int committed;          /* the marker: its job's output was committed */
	int device;             /* the GPU that filtered it; -1: the CPU */
	int failed;             /* err says why (empty: the job had failed already) */
	struct gf_err err;
	struct image in, out;
	size_t in_bytes;        /* of in as the decoder gave it (before gray in place) */
	struct hbuf inbuf, outbuf;
	int out_malloced;       /* out.px is the CPU tool's (img_free it) */
	struct gf_times t;
	/*
	 * A tall image reaches the writer while its strips are still on the
	 * GPU: partial is set, rows_done counts the rows downloaded, and
	 * lane_done says the lane is finished with it (failed and t final).
	 */
	int partial, rows_done, lane_done;
	/*
	 * Its writing: done by an encoder (encoded), then told by the writer
	 * in input order: written, or wfailed with werr.
	 */
	int written, wfailed, encoded;
	struct gf_err werr;
	/*
	 * A JPEG for the GPU's engines (engine_jdec.c): bits.len > 0, bits.p
	 * in inbuf, and in holds only its size as displayed (px NULL) until
	 * it is decoded: into ybuf on the decoder's GPU, or, where the
	 * engines refuse or fail it, by the lane on the CPU into cpu_px.
	 */
	struct img_jpeg_bits bits;
	struct jdec_buf *ybuf;
	void *cpu_px;
	/*
	 * A stream's JPEG frame as its bytes, for the decode pool
	 * (engine_split.c); frame.p is the slot's, kept from image to image.
	 */
	struct img_frame frame;
	size_t split_bytes;     /* what it counts in en->split.held (SPLIT_BYTES) */
	/*
	 * The input image's ICC profile, beside it from reader to writer
	 * (img_write_icc embeds it where it fits the output); freed when
	 * the slot comes back.
	 */
	struct img_icc icc;
};

/* Slots in arrival order, linked through next; used under en->mu. */
struct fifo {
	struct slot *head, *tail;
	int n;
};

struct reader {
	struct engine *en;
	pthread_t th;
	struct slot *free;      /* its slots for images */
	struct slot *markers;   /* its slots for end markers */
	pthread_cond_t cv;      /* one of them came back */
	double busy_ms;
	size_t last_bytes;      /* of the last image it read, its ICC profile too */
};

/*
 * A GPU of the run: opened by its own thread while the first input is
 * read, then shared by its lanes, with what they did on it.
 */
struct device {
	struct engine *en;
	pthread_t th;
	int spawned;            /* th runs device_open_main */
	int number;             /* as asked; -1: the default device */
	int opened;             /* base is open; else err says why */
	struct gpu base;        /* its limits and shared state; lanes add streams */
	struct gf_err err;
	/* Under en->mu: */
	int taken, images;      /* images its lanes took, and filtered */
	int active;             /* lanes with an image on it now */
	double busy_since, busy_ms;     /* time with at least one */
	struct jpeg_gpu *jpeg;  /* its JPEG engines (opened by its decoder); NULL: none */
	struct gf_err jpeg_err; /* why none */
	pthread_t early_th;     /* opening its engines beside its context */
	int early;              /* early_th runs (jdec_early) */
	struct jpeg_gpu_batch *early_b; /* the decode state it made */
	struct jdec *jdec;      /* its decoder (engine_jdec.c), while the lanes run */
	struct fifo decoded;    /* JPEGs its engines decoded, for its lanes (en->mu) */
};

/* A filter lane: on a GPU, two streams that strips alternate between. */
struct lane {
	struct engine *en;
	struct device *dev;     /* NULL: the CPU lane */
	pthread_t th;
	struct gpu sub[2];
	int nsub;
	cudaEvent_t *ev;        /* four per strip: upload, kernel, download, done */
	int nev;
	void *stage[2];         /* STAGE_BYTES each, pinned; NULL: none */
	cudaEvent_t stage_ev[2];        /* the last move of each */
	double busy_ms;
	int served;             /* JPEGs the server's engines decoded for it */
	struct remote_lane *rl; /* the server's lane (en->gpus.remote) */
	int solo;               /* a worker of the server's, outside a run */
	void (*rows)(void *arg, int n); /* the worker's: a tall image's rows done */
	void *rows_arg;
};

/* engine_slot.c's state: every slot, and the host memory they hold. */
struct slot_pool {
	struct slot *slots;     /* nslots in use, of slots_cap */
	int nslots, slots_cap;
	struct slot *ahead;     /* every slot taken ahead, linked by ahead */
	int nahead;             /* of them */
	size_t ahead_bytes, ahead_max;
	size_t pinned, pinned_max;
	/*
	 * The readers have ended and the idle slots' memory is going
	 * (slots_let_go_idle): a slot given back from now on lets go of its
	 * own (en->mu).
	 */
	int letting_go;
};

/* engine_read.c's state: the readers, and who makes colour gray. */
struct read_stage {
	struct reader *rd;
	int nreaders;
	int started;            /* of them, whose thread started (engine_start) */
	int go;                 /* all started: they may read (en->mu) */
	/*
	 * Who makes a gray tool's colour input gray: the JPEG decoder, whose
	 * luma is that gray (decode_gray); else the GPU (0), or the reader in
	 * place (1: always, 2: when the lanes are behind).
	 */
	int decode_gray, reader_gray;
};

/*
 * engine_split.c's state: a stream's decode pool, started with its first
 * JPEG frame and ended with the stream.
 */
struct split_stage {
	int threads;            /* decode threads; 0: the reader decodes all */
	pthread_t *th;
	int started;            /* threads running */
	int grown;              /* the reader got its SLOTS_SPLIT per thread */
	size_t held;            /* bytes of the frames in flight (SPLIT_BYTES; en->mu) */
	struct fifo queue;      /* frames to decode, in input order (en->mu) */
	int closing;            /* the stream ended: leave once queue is empty */
	pthread_cond_t cv;      /* queue has a frame, or closing */
	double busy_ms;         /* summed over the threads (en->mu) */
};

/* engine_gpu.c's state: the GPUs of the run, once decided. */
struct gpu_set {
	int state, fallback;    /* GPU_*; fallback: the CPU, as err says */
	struct gf_err err;
	struct device *dev;     /* ndev GPUs, once state is GPU_READY */
	int ndev;
	struct device *broken;  /* the device that stopped the run, with why */
	struct gf_err broken_err;
	int fail_gpu, fail_at;  /* GPUFILT_FAIL_GPU=D:K: GPU D breaks at its image K */
	/*
	 * The server's (o->remote): dev are its GPUs, opened there, and the
	 * lanes hand it their images; nothing here touches CUDA.  On its
	 * CPU (state GPU_UNUSED) too, one lane does.
	 */
	int remote;
	int remote_broken;      /* the server ended: the run stops (broken_err) */
};

/*
 * engine_small.c's state: whether the small-run rule decides the run,
 * and what the reader has seen of the input so far (en->mu).
 */
struct small_stage {
	int armed;              /* the rule applies (small_init) */
	double budget;          /* small_pixels / the tool's cpu_weight */
	int images;             /* images of the input sized so far */
	int ended;              /* the input ended */
	int width, height;      /* its first image */
};

/*
 * engine_jdec.c's state: whether JPEGs go to the GPUs' engines, the
 * ones waiting for a decoder, and what was decoded where.
 */
struct jdec_stage {
	int wanted;             /* GPUFILT_GPU_DECODE=1 or 2, and a GPU strategy */
	int on;                 /* a GPU's engines are open and decoding (en->mu) */
	int batch;              /* images per batch (GPUFILT_JPEG_BATCH) */
	struct fifo queue;      /* kept as bytes, for a decoder (en->mu) */
	int busy;               /* slots a decoder holds (en->mu) */
	pthread_cond_t cv;      /* queue has slots, or the readers ended */
	int engines, cpu;       /* images decoded by the engines, and by lanes on the CPU */
	int unsure;             /* JPEGs whose check kept them from the engines (en->mu) */
	int fail_at, taken;     /* GPUFILT_JPEG_FAIL=K: the engines fail the K-th they take (en->mu) */
	int wait;               /* GPUFILT_GPU_DECODE=2: readers wait for the engines to open */
	int possible;           /* the GPUs are in use: their decoders look for engines */
	int seen;               /* a reader saw a JPEG, enough inputs left: open the engines */
	int early;              /* a GPU's engines began opening early (en->mu) */
	int share;              /* readers decode while the engines are behind */
	int pending;            /* decoders that have not yet tried (en->mu, en->cv) */
	int grown;              /* the readers got SLOTS_JPEG more (en->mu) */
	/*
	 * The server's engines decode them (gpufiltd said so at the hello):
	 * readers keep a batch's JPEGs as their bytes and check them as for
	 * the GPU's own, and each goes to the lanes, which send it as such
	 * (no decoder here), but for the readers' share (engine_read.c).
	 */
	int remote;
	int unsent;             /* remote: JPEGs in en->work, waiting for a lane (en->mu) */
	int sent;               /* remote: JPEGs lanes took (en->mu) */
};

/* engine_lane.c's state: the lanes and how they cut and move images. */
struct filter_stage {
	struct lane *ln;
	int nlanes;
	int idle;               /* lanes waiting for work (en->mu) */
	/*
	 * Lanes that take work, the first of nlanes (en->mu): all, but for a
	 * served stream, whose lanes past its first LANES a GPU wait for its
	 * first JPEG frame to go to the server's engines (lanes_widen).
	 */
	int active;
	/*
	 * What the waiting ones wait on: not work_cv, whose single signals
	 * for work one of them would take in an active lane's stead.
	 */
	pthread_cond_t widen_cv;
	int per_gpu;            /* GPUFILT_LANES; 0: by rule (lanes_start) */
	int strip_rows;         /* GPUFILT_STRIP_ROWS, 0: by size */
	int staging;            /* lanes stage plain memory (a batch, unless
	                           GPUFILT_STAGING=0) */
};

struct trace;

struct engine {
	const struct tool *tool;
	const struct gf_opts *o;
	const struct engine_job *jobs;
	int njobs;
	char *job_failed;
	/*
	 * One lock, and a condition for each kind of waiter, so that a slot
	 * passed on wakes the one thread that waits for it, not all of them
	 * (a batch on 32 cores has some 70 threads): readers wait on their
	 * own (struct reader), lanes on work_cv, the writer on writer_cv,
	 * encoders on theirs; cv is for the rest, rarer (the GPU decided,
	 * a strip's rows downloaded), and engine_wake wakes every kind.
	 */
	pthread_mutex_t mu;
	pthread_cond_t cv, work_cv, writer_cv;
	int next_job;           /* the next job a reader takes */
	int readers_left;
	int stop;               /* a fatal error: start nothing more */
	struct fifo work;       /* read, for the lanes */
	struct slot *done;      /* finished, in no order */
	struct slot_pool pool;
	struct jdec_stage jdec;
	struct read_stage read;
	struct split_stage split;
	struct gpu_set gpus;
	struct small_stage small;
	struct filter_stage filter;
	struct trace *trace;    /* GPUFILT_TRACE's; NULL: not asked */
	int exiting;            /* engine_hooks' */
};

/* ---- engine_slot.c: slots, host buffers, the queues between stages */

void engine_wake(struct engine *en);
int engine_job_failed(struct engine *en, int job);
const char *engine_job_name(const struct engine *en, int j);
void engine_widen_pipe(int fd);
void fifo_push(struct fifo *q, struct slot *s);
struct slot *fifo_pop(struct fifo *q);

int slot_pool_init(struct engine *en, int per);
void slot_pool_add(struct engine *en, struct reader *rd, int more, int marker);
void slot_pool_free(struct engine *en);
void *hbuf_get(struct engine *en, struct hbuf *b, size_t n);
void slot_prepare_out(struct engine *en, struct slot *s);
int slot_ahead_allowed(const struct engine *en);
struct slot *slot_take(struct reader *rd, int marker);
void slot_give_back(struct engine *en, struct slot *s);
void slot_let_go(struct engine *en, struct slot *s);
void slots_let_go_idle(struct engine *en);
void slot_post_work(struct engine *en, struct slot *s);
void slot_post_done(struct engine *en, struct slot *s);
struct slot *slot_take_work(struct engine *en, struct device *d);
int slot_rows_after(struct engine *en, struct slot *s, int y);

/* ---- engine_trace.c: GPUFILT_TRACE=FILE, the steps of each slot */

/*
 * The steps (trace_mark's step): a reader began a job (r), asked for a
 * slot (a), got it (A), has the image in it (R), queued it for the JPEG
 * engines (q); a decoder began a batch of job images (b), took each (d),
 * had them ready (p), called the engines (c), had them back (y), handed
 * each on (D); a lane
 * took it (l), was done (L); the writer had it in order (o); an encoder
 * began (e) and ended (E) writing it; the writer told of it and gave it
 * back (g); the GPUs were decided (G), a GPU's engines opened (J); its
 * early opening had a decode state (H) and set it up (M); the process
 * began (P, before the run's 0), the run's teardown began (Z) and ended
 * (X).  trace_open opens GPUFILT_TRACE's file, -1 with e when it cannot;
 * trace_close writes the steps there, -1 with e when they could not be.
 * who: 'r' reader, 'd' decoder, 'l' lane, 'e' encoder, 'w' the writer,
 * 'o' the opener; n its number.
 */
int trace_open(struct engine *en, struct gf_err *e);
void trace_mark(struct engine *en, const struct slot *s, int step, int who, int n);
void trace_job(struct engine *en, int job, int step, int who, int n);
int trace_close(struct engine *en, struct gf_err *e);

/* ---- engine_read.c */

void *reader_main(void *arg);
int reader_open(struct engine *en, struct img_reader **r, FILE *f, int j,
    struct gf_err *e);
void read_image_done(struct engine *en, struct slot *s);
int served_ready(struct engine *en);
/*
 * Slot s holds JPEG bytes b (in its inbuf) for the engines, with their
 * profile icc (the slot's now): in sized as displayed, no pixels yet,
 * and its output buffer ready; a batch's file's (read_bits) or a
 * stream's frame's (engine_split.c).
 */
void slot_hold_bits(struct engine *en, struct slot *s,
    const struct img_jpeg_bits *b, struct img_icc *icc);
/*
 * A JPEG of job's that was to go to the engines (its header said
 * header's size), decoded on this process's CPU instead, to got: counted
 * (-v's decoders), or -1 with e when the sizes differ.  jdec_cpu_decode's
 * and split_cpu_decode's.
 */
int jdec_cpu_done(struct engine *en, int job, const struct image *got,
    const struct image *header, struct gf_err *e);

/* ---- engine_split.c */

void split_init(struct engine *en);
int split_frame(struct reader *rd, struct img_reader *r, int job, int index,
    struct img_frame *scratch, struct gf_err *e);
void split_end(struct engine *en);
/*
 * A frame that went to the server as its bytes (split_served) and was
 * declined there: decoded on this process's CPU as the pool decodes
 * one, into the slot's buffer.  0, or -1 with e (the frame's error, as
 * the stream's reader would give it).
 */
int split_cpu_decode(struct engine *en, struct slot *s, struct gf_err *e);

/* ---- engine_gpu.c */

int devices_start(struct engine *en, pthread_t *opener, struct gf_err *e);
int devices_decision(struct engine *en);
void devices_close(struct engine *en);
int device_begin(struct engine *en, struct device *d);
void device_end(struct engine *en, struct device *d, int filtered);
void device_fail(struct engine *en, struct device *d, struct slot *s);

/* ---- engine_small.c */

void small_init(struct engine *en);
void small_image(struct engine *en, int w, int h);
int small_bits(struct engine *en, int w, int h);
/*
 * Whether the rule may yet keep an image of w x h on the CPU (it is
 * armed, and the image within its budget): one already sized for it
 * (small_image), kept as its bytes only when not.
 */
int small_keeps(const struct engine *en, int w, int h);
void small_end(struct engine *en);
int small_pending(const struct engine *en);
int small_decide(struct engine *en, struct gf_err *e);

/* ---- engine_jdec.c */

struct jdec_buf;
void jdec_init(struct engine *en);
void jdec_early(struct device *d);
void jdec_decide(struct engine *en, int gpu_ready);
int jdec_ready(struct engine *en);
void jdec_post(struct engine *en, struct slot *s);
void jdec_start(struct engine *en);
void jdec_join(struct engine *en, struct engine_stats *st);
void jdec_close_device(struct device *d);
void jdec_buf_release(struct engine *en, struct device *d, struct slot *s);
const struct gpu_image *jdec_luma(const struct slot *s, struct gpu_image *y);
int jdec_cpu_decode(struct engine *en, struct slot *s, struct gf_err *e);
/*
 * Whether the JPEG file of bytes b (job's) may go to the engines: the
 * walk over its coded data (img_reader_set_check, lib/io/img_jpeg_check.c)
 * finds that libjpeg-turbo reads it without an error or a warning and
 * that the engines decode every luma block as libjpeg does.  0: the file
 * is read on the CPU, whose verdict and bytes it then gets; counted in
 * en->jdec.unsure.
 */
int jdec_check(struct engine *en, const struct img_jpeg_bits *b, int job);

/* ---- engine_lane.c */

void *lane_main(void *arg);
/*
 * A served stream's first JPEG frame goes to the server's engines as its
 * bytes: the lanes waiting past filter.active join in (LANES_JPEG a GPU,
 * so that the engines get batches), and the stream's reader gets a slot
 * more for each.  Once; any thread.
 */
void lanes_widen(struct engine *en);
/*
 * A lane's parts that the server's workers (engine_worker.c) share: its
 * streams (lane_open, lane_close), an image of slot s on its GPU
 * (lane_gpu), or of its JPEG's luma decoded there (lane_gpu_luma), and
 * the tool on the CPU (cpu_filter).
 */
int lane_open(struct lane *ln, struct gf_err *e);
void lane_close(struct lane *ln);
int lane_gpu(struct lane *ln, struct slot *s, struct gf_err *e);
int lane_gpu_luma(struct lane *ln, struct slot *s, const struct gpu_image *y,
    struct gf_err *e);
int cpu_filter(const struct tool *tl, const struct image *in,
    struct image *out, struct gf_times *t, struct gf_err *e);

/* ---- engine_write.c: the ordered writer, opaque to the run */

struct writer;
struct writer *writer_open(struct engine *en, const struct engine_hooks *h,
    struct engine_stats *st, double t0, struct gf_err *e);
int writer_run(struct writer *w);
int writer_close(struct writer *w);

#endif
