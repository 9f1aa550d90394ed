/*
 * jpegdec - the GPU's JPEG engines alone, through lib/io/jpeg_gpu.c: the
 * decode-only ceiling that make bench-io compares whole runs with, and a
 * check of their luma against libjpeg-turbo's JCS_GRAYSCALE decode.
 *
 *   jpegdec [-b BATCH] [-r ROUNDS] FILE...   files in memory, decoded in
 *           batches of BATCH (default 32) ROUNDS times (default 3) after a
 *           warm-up round; prints the best round's images/s
 *           (-b 0: the engines' best call, as the benches quote them:
 *           calls of one to four whole rounds of the engines, an image
 *           for each core of each, and of 32, each timed so; the last
 *           line is the fastest)
 *           (-t THREADS: that many threads, each with its own decode
 *           state and stream, on a share of the files at once;
 *           -q CALLERS: that many threads, 64 at most, posting one JPEG
 *           at a time to one jpeg_gpu_queue, as gpufiltd's do: the
 *           queue's own ceiling; BATCH unused)
 *   -x      what jpeg_gpu_queue.c's choices cost, on one state and
 *           stream: calls of 32 back to back, each waited for, with each
 *           header parsed first, of other sizes, padded with copies of a
 *           photograph or with a 16 x 16 JPEG, and in whole rounds of the
 *           engines (one image for each) and an image under or over;
 *           the best of ROUNDS each
 *   -d DEVICE   the engines of GPU number DEVICE (default 0), for a host
 *           of several GPUs: each has engines of its own
 *   jpegdec -c FILE...   each file the engines take, decoded by them and by
 *           libjpeg; prints "same", "DIFF" (with the differing pixels) or
 *           "refused" per file, then the counts; exit 1 on any DIFF
 *
 * Exit 3 when there are no engines to use (the reason on stderr).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <jpeglib.h>

#include "jpeg_gpu.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "jpegdec: %s:%d: %s: %s\n", __FILE__, __LINE__, #x, \
	    cudaGetErrorString(e_)); exit(1); } } while (0)

struct file {
	const char *path;
	unsigned char *p;
	size_t len;
	int w, h;               /* from libjpeg's header */
	unsigned char *dev;     /* its luma on the device, pitch w */
};

static int
usage(void)
{
	fprintf(stderr, "usage: jpegdec [-b BATCH] [-d DEVICE] [-r ROUNDS] "
	    "[-t THREADS | -q CALLERS | -x] [-c] FILE...\n");
	return 2;
}

static double
now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static int
slurp(struct file *f)
{
	FILE *fp = fopen(f->path, "rb");
	long n;

	if (fp == NULL || fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0 ||
	    fseek(fp, 0, SEEK_SET) != 0 || (f->p = malloc((size_t)n + 1)) == NULL ||
	    fread(f->p, 1, (size_t)n, fp) != (size_t)n) {
		perror(f->path);
		if (fp != NULL)
			fclose(fp);
		return -1;
	}
	fclose(fp);
	f->len = (size_t)n;
	return 0;
}

/* libjpeg's errors and warnings, counted instead of printed. */
struct cpu_err {
	struct jpeg_error_mgr mgr;
	jmp_buf jb;
	int warnings;
};

static void
cpu_on_error(j_common_ptr ci)
{
	longjmp(((struct cpu_err *)ci->err)->jb, 1);
}

static void
cpu_on_message(j_common_ptr ci, int level)
{
	if (level < 0)
		((struct cpu_err *)ci->err)->warnings++;
}

/*
 * libjpeg's gray decode of f (JCS_GRAYSCALE), w * h bytes; NULL when it
 * fails.  *warned: it warned (corrupt data decoded around).
 */
static unsigned char *
cpu_gray(struct file *f, int *warned)
{
	struct jpeg_decompress_struct ci;
	struct cpu_err err;
	unsigned char *volatile px = NULL;

	ci.err = jpeg_std_error(&err.mgr);
	err.mgr.error_exit = cpu_on_error;
	err.mgr.emit_message = cpu_on_message;
	err.warnings = 0;
	if (setjmp(err.jb) != 0) {
		jpeg_destroy_decompress(&ci);
		free(px);
		return NULL;
	}
	jpeg_create_decompress(&ci);
	jpeg_mem_src(&ci, f->p, (unsigned long)f->len);
	jpeg_read_header(&ci, TRUE);
	ci.out_color_space = JCS_GRAYSCALE;
	jpeg_start_decompress(&ci);
	f->w = (int)ci.output_width;
	f->h = (int)ci.output_height;
	px = malloc((size_t)f->w * f->h);
	while (px != NULL && ci.output_scanline < ci.output_height) {
		JSAMPROW r = px + (size_t)ci.output_scanline * f->w;
		jpeg_read_scanlines(&ci, &r, 1);
	}
	jpeg_finish_decompress(&ci);
	jpeg_destroy_decompress(&ci);
	*warned = err.warnings > 0;
	return px;
}

/* f's size from its header alone, where libjpeg can read that much. */
static void
header_size(struct file *f)
{
	struct jpeg_decompress_struct ci;
	struct cpu_err ce;

	ci.err = jpeg_std_error(&ce.mgr);
	ce.mgr.error_exit = cpu_on_error;
	ce.mgr.emit_message = cpu_on_message;
	if (setjmp(ce.jb) == 0) {
		jpeg_create_decompress(&ci);
		jpeg_mem_src(&ci, f->p, (unsigned long)f->len);
		jpeg_read_header(&ci, TRUE);
		f->w = (int)ci.image_width;
		f->h = (int)ci.image_height;
	}
	jpeg_destroy_decompress(&ci);
}

/* Decodes files fs[0..n-1] in batches of bs on st into their dev buffers. */
static int
decode_all(struct jpeg_gpu_batch *b, struct file *fs, int n, int bs,
    cudaStream_t st, int *failed)
{
	const unsigned char **p = malloc((size_t)bs * sizeof(*p));
	size_t *len = malloc((size_t)bs * sizeof(*len)), *pitch = malloc((size_t)bs *
	    sizeof(*pitch));
	unsigned char **dst = malloc((size_t)bs * sizeof(*dst));
	int *status = malloc((size_t)bs * sizeof(*status));
	struct gf_err e = {0};

	*failed = 0;
	for (int i = 0; i < n; i += bs) {
		int m = n - i < bs ? n - i : bs, r;
		for (int k = 0; k < m; k++) {
			p[k] = fs[i + k].p;
			len[k] = fs[i + k].len;
			dst[k] = fs[i + k].dev;
			pitch[k] = (size_t)fs[i + k].w;
		}
		if ((r = jpeg_gpu_decode(b, m, p, len, dst, pitch, st, status, &e)) < 0) {
			fprintf(stderr, "jpegdec: %s\n", e.msg);
			return -1;
		}
		for (int k = 0; k < m; k++)
			if (status[k] != 0)
				fprintf(stderr, "jpegdec: %s: %s\n", fs[i + k].path,
				    jpeg_gpu_status_text(status[k]));
		*failed += r;
	}
	CK(cudaStreamSynchronize(st));
	free(p);
	free(len);
	free(pitch);
	free(dst);
	free(status);
	return 0;
}

/*
 * -x: how the engines' rate depends on what the queue does, each way on
 * the same files, in batches of bs real images: calls of to images (0:
 * bs; the rest padded with copies of the last, pad 1, or with the
 * queue's 16 x 16 JPEG tiny, pad 2), the stream waited for after each
 * (sync), each header parsed twice first (parse).  The best of rounds
 * rounds: images/s.
 */
static double
explore_way(struct jpeg_gpu *j, struct jpeg_gpu_batch **by, struct file *fs,
    int n, int bs, int to, int pad, int sync, int parse, int rounds,
    const unsigned char *tiny, size_t tlen, cudaStream_t st)
{
	const unsigned char *p[64];
	unsigned char *dst[64], *scratch = NULL, *tdst = NULL;
	size_t len[64], pitch[64], most = 0;
	int status[64];
	struct gf_err e = {0};
	double best = 1e30;

	for (int i = 0; i < n; i++)
		if ((size_t)fs[i].w * fs[i].h > most)
			most = (size_t)fs[i].w * fs[i].h;
	CK(cudaMalloc((void **)&scratch, most));
	CK(cudaMalloc((void **)&tdst, 256));
	for (int r = 0; r <= rounds; r++) {
		double t0 = now_s();
		for (int i = 0; i < n; i += bs) {
			int m = n - i < bs ? n - i : bs, c = to > m ? to : m;
			for (int k = 0; k < m; k++) {
				struct file *f = &fs[i + k];
				if (parse && (!jpeg_gpu_supported(by[0], f->p, f->len) ||
				    !jpeg_gpu_size_is(by[0], f->p, f->len, f->w, f->h)))
					fprintf(stderr, "jpegdec: parse said no\n");
				p[k] = f->p;
				len[k] = f->len;
				dst[k] = f->dev;
				pitch[k] = (size_t)f->w;
			}
			for (int k = m; k < c; k++) {
				p[k] = pad == 2 ? tiny : p[m - 1];
				len[k] = pad == 2 ? tlen : len[m - 1];
				dst[k] = pad == 2 ? tdst : scratch;
				pitch[k] = pad == 2 ? 16 : pitch[m - 1];
			}
			if ((by[c] == NULL && jpeg_gpu_batch_open(j, &by[c], &e) < 0) ||
			    jpeg_gpu_decode(by[c], c, p, len, dst, pitch, st, status,
			    &e) < 0) {
				fprintf(stderr, "jpegdec: %s\n", e.msg);
				exit(1);
			}
			if (sync)
				CK(cudaStreamSynchronize(st));
		}
		CK(cudaStreamSynchronize(st));
		if (r > 0 && now_s() - t0 < best)       /* round 0 sets states up */
			best = now_s() - t0;
	}
	cudaFree(scratch);
	cudaFree(tdst);
	return n / best;
}

static void
explore(struct jpeg_gpu *j, struct jpeg_gpu_batch *b, struct file *fs, int n,
    int rounds, cudaStream_t st)
{
	static const struct { int bs, to, pad, sync, parse; const char *what; } w[] = {
		{32, 0, 0, 0, 0, "32 a call, back to back"},
		{32, 0, 0, 1, 0, "32 a call, waited for"},
		{32, 0, 0, 1, 1, "32 a call, waited for, headers parsed first"},
		{25, 0, 0, 1, 0, "25 a call (a state of 25), waited for"},
		{25, 32, 1, 1, 0, "25 a call padded to 32 with copies, waited for"},
		{25, 32, 2, 1, 0, "25 a call padded to 32 with 16x16 JPEGs, waited for"},
		{17, 32, 2, 1, 0, "17 a call padded to 32 with 16x16 JPEGs, waited for"},
		{16, 0, 0, 1, 0, "16 a call, waited for"},
		{8, 0, 0, 1, 0, "8 a call, waited for"},
		{4, 0, 0, 1, 0, "4 a call, waited for"},
		{3, 4, 2, 1, 0, "3 a call padded to 4 with 16x16 JPEGs, waited for"},
		{1, 0, 0, 1, 0, "1 a call, waited for"},
		{1, 32, 2, 1, 0, "1 a call padded to 32 with 16x16 JPEGs, waited for"},
	};
	/*
	 * Calls in rounds of the engines (one image for each), as the
	 * queue makes them: k rounds, and k rounds less or more an image,
	 * padded to whole rounds with 16 x 16 JPEGs or not.
	 */
	static const struct { int rounds, less, padded; } rw[] = {
		{1, 0, 0}, {2, 0, 0}, {3, 0, 0}, {4, 0, 0},
		{2, 1, 0}, {2, -1, 0}, {2, 1, 1}, {2, -1, 1}, {1, 6, 1},
	};
	struct jpeg_gpu_batch *by[65] = {b};
	int e = (int)jpeg_gpu_engines(j);
	size_t tlen;
	unsigned char *tiny = jpeg_gpu_pad(&tlen);

	if (tiny == NULL) {
		fprintf(stderr, "jpegdec: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		double r = explore_way(j, by, fs, n, w[i].bs, w[i].to, w[i].pad,
		    w[i].sync, w[i].parse, rounds, tiny, tlen, st);
		printf("  %-58s %8.1f images/s\n", w[i].what, r);
		fflush(stdout);
	}
	for (size_t i = 0; i < sizeof(rw) / sizeof(rw[0]); i++) {
		int to = rw[i].rounds * e, bs = to - rw[i].less;
		char what[96];
		double r;
		if (to > 64 || bs < 1)
			continue;
		if (rw[i].padded)
			snprintf(what, sizeof(what), "%d a call padded to %d (%d round%s "
			    "of %d engines) with 16x16 JPEGs", bs, to, rw[i].rounds,
			    rw[i].rounds > 1 ? "s" : "", e);
		else
			snprintf(what, sizeof(what), "%d a call (%d engines: %s%d round%s)",
			    bs, e, bs == to ? "" : bs < to ? "under " : "over ",
			    rw[i].rounds, rw[i].rounds > 1 ? "s" : "");
		r = explore_way(j, by, fs, n, bs, rw[i].padded ? to : 0,
		    rw[i].padded ? 2 : 0, 1, 0, rounds, tiny, tlen, st);
		printf("  %-58s %8.1f images/s\n", what, r);
		fflush(stdout);
	}
	for (int i = 1; i < 65; i++)
		if (by[i] != b)
			jpeg_gpu_batch_close(by[i]);
	free(tiny);
}

/*
 * One thread of a timed round, its share of the files: decoded on a state
 * and stream of its own, or (q) posted one at a time to queue q.
 */
struct worker {
	pthread_t th;
	struct jpeg_gpu *j;
	struct jpeg_gpu_queue *q;
	struct file *fs;
	int device, n, bs, failed, rc;
};

/* Worker w's files through its queue, one at a time: 0, or -1. */
static int
post_all(struct worker *w)
{
	struct gf_err e = {0};

	for (int i = 0, r; i < w->n; i++) {
		struct file *f = &w->fs[i];
		if ((r = jpeg_gpu_queue_decode(w->q, f->p, f->len, f->dev,
		    (size_t)f->w, f->w, f->h, NULL, NULL, &e)) < 0) {
			fprintf(stderr, "jpegdec: %s\n", e.msg);
			return -1;
		}
		w->failed += r;
	}
	return 0;
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct jpeg_gpu_batch *b;
	struct gf_err e = {0};
	cudaStream_t st;

	w->rc = -1;
	if (cudaSetDevice(w->device) != cudaSuccess)
		return NULL;
	if (w->q != NULL) {
		w->rc = post_all(w);
		return NULL;
	}
	if (jpeg_gpu_batch_open(w->j, &b, &e) < 0 ||
	    cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) != cudaSuccess)
		return NULL;
	w->rc = decode_all(b, w->fs, w->n, w->bs, st, &w->failed);
	cudaStreamDestroy(st);
	jpeg_gpu_batch_close(b);
	return NULL;
}

/*
 * One round on nt threads on GPU device, each its share of the n files,
 * on states of their own or (q) through queue q; the failures, or -1.
 */
static int
round_threads(struct jpeg_gpu *j, struct jpeg_gpu_queue *q, int device,
    struct file *fs, int n, int bs, int nt)
{
	struct worker w[64];
	int failed = 0, at = 0;

	for (int t = 0; t < nt; t++) {
		int share = n / nt + (t < n % nt);
		w[t] = (struct worker){0, j, q, fs + at, device, share, bs, 0, 0};
		at += share;
		pthread_create(&w[t].th, NULL, worker_main, &w[t]);
	}
	for (int t = 0; t < nt; t++) {
		pthread_join(w[t].th, NULL);
		if (w[t].rc < 0)
			failed = -1;
		else if (failed >= 0)
			failed += w[t].failed;
	}
	return failed;
}

/*
 * One warm-up round of the n files in calls of bs (the first call sets
 * the state up), printed, then rounds timed rounds on nt threads (or
 * through queue q): the best round's seconds in *best, its failures in
 * *failed.  0, or -1.
 */
static int
timed(struct jpeg_gpu *j, struct jpeg_gpu_queue *q, struct jpeg_gpu_batch *b,
    int device, struct file *fs, int n, int bs, int nt, int rounds,
    cudaStream_t st, double *best, int *failed)
{
	double t0 = now_s();

	if (decode_all(b, fs, n, bs, st, failed) < 0)
		return -1;
	printf("warm-up round of calls of %d (the first call sets the state up): "
	    "%.3f s\n", bs, now_s() - t0);
	*best = 1e30;
	for (int r = 0; r < rounds; r++) {
		t0 = now_s();
		if (q != NULL || nt > 1 ? (*failed = round_threads(j, q, device, fs,
		    n, bs, nt)) < 0 : decode_all(b, fs, n, bs, st, failed) < 0)
			return -1;
		if (now_s() - t0 < *best)
			*best = now_s() - t0;
	}
	return 0;
}

/*
 * The call sizes -b 0 tries, into size: one to four whole rounds of j's
 * engines (an image for each core of each), as many as fit 64, and 32.
 * Their count.
 */
static int
calls_to_try(const struct jpeg_gpu *j, int *size)
{
	int round = (int)(jpeg_gpu_engines(j) * (jpeg_gpu_cores(j) > 0 ?
	    jpeg_gpu_cores(j) : 1)), k = 0, has32 = 0;

	for (int m = 1; m <= 4 && m * round <= 64; m++) {
		size[k++] = m * round;
		has32 |= m * round == 32;
	}
	if (!has32)
		size[k++] = 32;
	return k;
}

/*
 * The fastest of the k call sizes of size (each timed as timed does, on
 * one thread): that size, its best round's seconds in *best; -1 on error.
 */
static int
best_call(struct jpeg_gpu_batch *b, struct file *fs, int n, int rounds,
    int k, const int *size, cudaStream_t st, double *best, int *failed)
{
	int at = -1;

	*best = 1e30;
	for (int i = 0; i < k; i++) {
		double t;
		int f;
		if (timed(NULL, NULL, b, 0, fs, n, size[i], 1, rounds, st, &t, &f) < 0)
			return -1;
		printf("  calls of %d: %.1f images/s\n", size[i], n / t);
		if (t < *best) {
			*best = t;
			*failed = f;
			at = size[i];
		}
	}
	return at;
}

int
main(int argc, char **argv)
{
	struct jpeg_gpu *j;
	struct jpeg_gpu_batch *b;
	struct gf_err e = {0};
	struct file *fs;
	cudaStream_t st;
	struct jpeg_gpu_queue *q = NULL;
	int c, bs = 32, rounds = 3, threads = 1, callers = 0, check = 0, n = 0;
	int sizes[6], tried = 0;
	int refused = 0, diff = 0, failed, x = 0;
	int device = 0;
	double best = 1e30, px = 0;

	while ((c = getopt(argc, argv, "b:d:r:t:q:cx")) != -1)
		switch (c) {
		case 'b': bs = atoi(optarg); break;
		case 'd': device = atoi(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		case 't': threads = atoi(optarg); break;
		case 'q': callers = atoi(optarg); break;
		case 'c': check = 1; break;
		case 'x': x = 1; break;
		default:
			return usage();
		}
	if (bs < 0 || (bs == 0 && (threads > 1 || callers > 0)) || device < 0 ||
	    rounds < 1 || threads < 1 || threads > 64 || callers < 0 ||
	    callers > 64 || optind >= argc) {
		return usage();
	}
	CK(cudaSetDevice(device));
	CK(cudaFree(NULL));
	best = now_s();
	if (jpeg_gpu_open(&j, device, &e) < 0 || jpeg_gpu_batch_open(j, &b, &e) < 0) {
		fprintf(stderr, "jpegdec: %s\n", e.msg);
		return 3;
	}
	{
		double load, handle;
		jpeg_gpu_open_times(j, &load, &handle);
		printf("JPEG engines on GPU %d: %u (%u core%s each), opened in %.0f ms "
		    "(the CUDA context made before; loading libnvjpeg %.0f ms, the "
		    "hardware handle %.0f ms)\n", device, jpeg_gpu_engines(j),
		    jpeg_gpu_cores(j), jpeg_gpu_cores(j) == 1 ? "" : "s",
		    (now_s() - best) * 1e3, load, handle);
	}
	best = 1e30;
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	fs = calloc((size_t)(argc - optind), sizeof(*fs));
	for (int i = optind; i < argc; i++) {
		struct file *f = &fs[n];
		unsigned char *ref;
		int warned = 0;
		f->path = argv[i];
		if (slurp(f) < 0)
			return 1;
		if (!jpeg_gpu_supported(b, f->p, f->len)) {
			if (check)
				printf("refused %s\n", f->path);
			refused++;
			free(f->p);
			continue;
		}
		if ((ref = cpu_gray(f, &warned)) == NULL || warned) {
			/* The engines' verdict on a file libjpeg refuses or warns about. */
			if (ref == NULL)
				header_size(f);
			if (!check || f->w < 1 || f->h < 1) {
				printf("libjpeg-fails %s\n", f->path);
				free(ref);
				free(f->p);
				continue;
			}
		}
		CK(cudaMalloc((void **)&f->dev, (size_t)f->w * f->h));
		px += (double)f->w * f->h;
		if (check) {
			unsigned char *got = malloc((size_t)f->w * f->h);
			long nd = 0;
			if (decode_all(b, f, 1, 1, st, &failed) < 0)
				return 1;
			CK(cudaMemcpy(got, f->dev, (size_t)f->w * f->h,
			    cudaMemcpyDeviceToHost));
			for (size_t k = 0; ref != NULL && k < (size_t)f->w * f->h; k++)
				nd += got[k] != ref[k];
			if (ref == NULL || warned)
				printf("%s %s: engines %s\n", ref == NULL ? "libjpeg-fails" :
				    "libjpeg-warns", f->path, failed ? "fail" : nd ? "differ" :
				    "same");
			else if (failed)
				printf("FAILED %s\n", f->path);
			else if (nd)
				printf("DIFF %s: %ld of %d x %d pixels\n", f->path, nd, f->w, f->h);
			else
				printf("same %s\n", f->path);
			diff += ref != NULL && !warned && (nd != 0 || failed);
			free(got);
		}
		free(ref);
		n++;
	}
	if (check) {
		printf("%d same, %d differ, %d refused\n", n - diff, diff, refused);
		return diff != 0;
	}
	if (callers > 0 && jpeg_gpu_queue_open(j, device, &q, &e) < 0) {
		fprintf(stderr, "jpegdec: %s\n", e.msg);
		return 1;
	}
	if (x) {
		explore(j, b, fs, n, rounds, st);
		return 0;
	}
	if ((tried = bs == 0)) {
		bs = best_call(b, fs, n, rounds, calls_to_try(j, sizes), sizes, st,
		    &best, &failed);
		if (bs < 0)
			return 1;
	} else if (timed(j, q, b, device, fs, n, bs, q != NULL ? callers : threads,
	    rounds, st, &best, &failed) < 0) {
		return 1;
	}
	if (q != NULL) {
		struct jpeg_gpu_queue_counts k = {0};
		jpeg_gpu_queue_counts(q, &k);
		printf("decode only, through the queue, %d callers: %d images (%d refused, "
		    "%d failed) in %.3f s: %.1f images/s, %.2f Gpixel/s; %.1f a batch; "
		    "ms an image: %.2f reading headers, %.2f in nvJPEG's calls, %.2f "
		    "waiting\n", callers, n, refused, failed, best, n / best,
		    px / best / 1e9, (double)k.images / (double)k.batches,
		    k.parse_ms / (double)k.images, k.call_ms / (double)k.images,
		    k.wait_ms / (double)k.images);
		jpeg_gpu_queue_close(q);
	} else {
		printf("decode only, batch %d%s, %d thread%s: %d images (%d refused, "
		    "%d failed) in %.3f s: %.1f images/s, %.2f Gpixel/s\n", bs,
		    tried ? " (the best call)" : "", threads, threads > 1 ? "s" : "", n,
		    refused, failed, best, n / best, px / best / 1e9);
	}
	jpeg_gpu_batch_close(b);
	jpeg_gpu_close(j);
	return 0;
}
