/*
 * max_emu - the kernels of the largest-gradient channel (sobel and edge
 * --colour max: kernels/grad_max.cu, edge_max.cu) run on the CPU through
 * emu.h, against the CPU reference, bit for bit: every strategy (texture
 * through emu.h's registered textures), every operator, border and
 * output mode of sobel, the gradients and histogram that edge takes,
 * and edge's suppression on them; the default launch shape and odd
 * ones.  Besides the images given, two made here: a 16-bit RGB image
 * and an 8-bit one whose channels tie (R and G mirror each other, so
 * their magnitudes are equal and their gradients are not).  Prints
 * "pass NAME" or "fail NAME: why".
 *
 * Usage: max_emu [IMAGE...]   (colour or gray, 8 or 16 bit)
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "emu.h"
#include "emu_img.h"
extern "C" {
#include "edge_max.h"
#include "grad_max.h"
}

static int nfail;
static const char *strategy[] = {"auto", "cpu", "global", "texture", "shared",
    "sliding"};

static void
result(const char *name, const char *why)
{
	if (why == NULL) {
		printf("pass %s\n", name);
		return;
	}
	printf("fail %s: %s\n", name, why);
	nfail++;
}

/* The colour planes of im stacked (grad_max.h's layout) on the "device". */
struct stack {
	struct gpu_image d;
	int n;
	cudaTextureObject_t tex;
};

static struct stack
stack_of(const struct image *im)
{
	struct stack s;
	const int w = im->width, h = im->height, ch = im->channels;

	s.n = img_colour_channels(im);
	s.d = dev_image(w, s.n * h, im->maxval);
	for (int c = 0; c < s.n; c++)
		for (int y = 0; y < h; y++)
			for (int x = 0; x < w; x++) {
				unsigned v = img_get(im, ((size_t)y * w + x) * ch + c);
				char *row = (char *)s.d.px + (size_t)(c * h + y) * s.d.pitch;
				if (im->maxval > 255)
					((uint16_t *)row)[x] = (uint16_t)v;
				else
					((uint8_t *)row)[x] = (uint8_t)v;
			}
	s.tex = emu_tex_make(s.d.px, s.d.pitch, w, s.n * h);
	return s;
}

/* sobel --colour max under p, border bo, strategy st, shape l. */
static void
check_sobel(const char *base, const struct image *im, const struct stack *s,
    const struct sobel_params *p, int bo, enum gf_strategy st,
    struct gf_launch l)
{
	static const char *modes[] = {"l2", "l1", "thresh_l2", "thresh_l1",
	    "direction"};
	struct image ref = {0};
	struct gf_err e;
	struct grad_max_dest d;
	char name[300];
	const int b = gf_sample_bytes(im->maxval);

	snprintf(name, sizeof(name), "%s/sobel/op%d/border%d/%s/%s/%dx%dx%d",
	    base, p->op, bo, modes[p->mode], strategy[st], l.block_w, l.block_h,
	    l.rows);
	if (sobel_max_cpu(im, &ref, p, bo, 1, &e) < 0)
		return result(name, e.msg);
	memset(&d, 0, sizeof(d));
	d.kind = GRAD_MAX_SOBEL;
	d.l1 = grad_max_l1_of(p);
	d.p = *p;
	d.out = dev_image(im->width, im->height, im->maxval);
	const char *why = NULL;
	if (grad_max_launch(st, &s->d, s->n, p->op, bo, &d, &l, s->tex, 0) !=
	    cudaSuccess)
		why = "the launch was refused";
	for (int y = 0; y < im->height && why == NULL; y++)
		if (memcmp((char *)d.out.px + y * d.out.pitch,
		    (char *)ref.px + (size_t)y * im->width * b,
		    (size_t)im->width * b) != 0)
			why = "a row differs from the CPU";
	result(name, why);
	free(d.out.px);
	img_free(&ref);
}

/* edge's gradients, histogram and suppression, border bo, norm l1. */
static void
check_edge(const char *base, const struct image *im, const struct stack *s,
    int bo, int l1, enum gf_strategy st, struct gf_launch l)
{
	const size_t n = (size_t)im->width * im->height;
	const int nb = (int)im->maxval + 1;
	std::vector<int> ref(2 * n), got(2 * n, 0x5a5a5a5a);
	std::vector<uint32_t> href(nb), hgot(nb, 0);
	struct grad_max_dest d;
	struct gf_err e;
	char name[300];
	const char *why = NULL;

	snprintf(name, sizeof(name), "%s/edge/border%d/l1=%d/%s/%dx%dx%d", base,
	    bo, l1, strategy[st], l.block_w, l.block_h, l.rows);
	if (grad_max_field_cpu(im, SOBEL_OP_SOBEL, bo, l1, ref.data(), 1, &e) < 0)
		return result(name, e.msg);
	grad_max_hist(ref.data(), n, l1, im->maxval, href.data());
	memset(&d, 0, sizeof(d));
	d.kind = GRAD_MAX_FIELD;
	d.l1 = l1;
	d.field = got.data();
	if (grad_max_launch(st, &s->d, s->n, SOBEL_OP_SOBEL, bo, &d, &l, s->tex,
	    0) != cudaSuccess)
		why = "the field's launch was refused";
	else if (got != ref)
		why = "the gradients differ from the CPU";
	d.kind = GRAD_MAX_HIST;
	d.bins = hgot.data();
	if (why == NULL && grad_max_launch(st, &s->d, s->n, SOBEL_OP_SOBEL, bo, &d,
	    &l, s->tex, 0) != cudaSuccess)
		why = "the histogram's launch was refused";
	else if (why == NULL && hgot != href)
		why = "the histogram differs from the CPU";
	if (why == NULL && st == GF_GLOBAL) {
		/* Suppression on the field, at thresholds near the median. */
		uint64_t cum = 0;
		int med = 0;
		for (; med < nb && cum < n / 2; med++)
			cum += href[med];
		struct grad_thresh p = edge_thresh_of(med / 2.0, med, l1);
		std::vector<uint8_t> lref(n);
		edge_max_classify_cpu(ref.data(), im->width, im->height, &p,
		    lref.data());
		struct gpu_image lab = dev_image(im->width, im->height, 255);
		if (edge_max_launch_nms(ref.data(), &lab, &p, 0) != cudaSuccess)
			why = "the suppression's launch was refused";
		for (int y = 0; y < im->height && why == NULL; y++)
			if (memcmp((char *)lab.px + y * lab.pitch,
			    lref.data() + (size_t)y * im->width, im->width) != 0)
				why = "the classes differ from the CPU";
		free(lab.px);
	}
	result(name, why);
}

static void
check_image(const char *base, const struct image *im)
{
	static const struct gf_launch shapes[] = {{0, 0, 0}, {3, 2, 5}, {1, 1, 1},
	    {5, 3, 2}};
	/* Every combination on a small image, fewer on a large one. */
	const int full = (long)im->width * im->height <= 4000;
	const double scale = im->maxval / 255.0;
	struct stack s = stack_of(im);

	for (int op = SOBEL_OP_SOBEL; op < SOBEL_NOPS; op++) {
		const double t = (op == SOBEL_OP_SOBEL7 ? 9000.5 :
		    op == SOBEL_OP_SOBEL5 ? 600 : 80.5) * scale;
		for (int bo = 0; bo < 4; bo++)
			for (int m = 0; m <= SOBEL_DIRECTION; m++) {
				if (!full && (bo != op % 4 || (m != op % 5 && m != 0)))
					continue;
				if (m == SOBEL_DIRECTION && im->maxval < 255)
					continue;
				struct sobel_params p;
				p.mode = m;
				p.maxval = im->maxval;
				p.op = op;
				p.thresh = (uint64_t)(m == SOBEL_THRESH_L2 ? t * t :
				    m == SOBEL_THRESH_L1 ? 2 * t : 0);
				for (int st = GF_GLOBAL; st <= GF_SLIDING; st++)
					for (int i = 0; i < 4; i++)
						if (i == 0 || full)
							check_sobel(base, im, &s, &p, bo,
							    (enum gf_strategy)st, shapes[i]);
			}
	}
	for (int bo = 0; bo < 4; bo++)
		for (int l1 = 0; l1 <= 1; l1++)
			for (int st = GF_GLOBAL; st <= GF_SLIDING; st++)
				for (int i = 0; i < 4; i++)
					if ((i == 0 || full) && (full || bo == l1))
						check_edge(base, im, &s, bo, l1,
						    (enum gf_strategy)st, shapes[i]);
	free(s.d.px);
}

/* A w x h image of ch channels, maxval m, sample (x, y, c) = f. */
template <typename F>
static struct image
made(int w, int h, int ch, unsigned m, F f)
{
	struct image im = {w, h, ch, m, NULL, 0};
	struct gf_err e;

	if (img_alloc(&im, &e) < 0)
		abort();
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			for (int c = 0; c < ch; c++)
				img_set(&im, ((size_t)y * w + x) * ch + c, f(x, y, c));
	return im;
}

int
main(int argc, char **argv)
{
	struct image rgb16 = made(37, 23, 3, 4000, [](int x, int y, int c) {
		return (unsigned)(c == 0 ? (x * 97 + y * 31) % 4001 : c == 1 ?
		    (x * y * 13) % 4001 : (x * 7 + y * 211) % 4001);
	});
	/* R's pattern, mirrored on the diagonal in G: equal magnitudes. */
	struct image ties = made(29, 29, 4, 255, [](int x, int y, int c) {
		int a = c == 1 ? y : x, b = c == 1 ? x : y;
		return (unsigned)(c == 3 ? (x * 37 + y) % 256 : c == 2 ?
		    (a / 7 + b / 5) % 2 * 90 : (a / 4 % 3) * 60 + (b / 9) * 20);
	});
	struct image rgba16 = made(21, 19, 4, 65535, [](int x, int y, int c) {
		return (unsigned)((x * 4099 + y * 7919 * (c + 1) + c * 30011) % 65536);
	});

	check_image("rgb16", &rgb16);
	check_image("ties-rgba8", &ties);
	check_image("rgba16", &rgba16);
	for (int a = 1; a < argc; a++) {
		struct image im = {0};
		struct gf_err e;
		if (img_load(argv[a], &im, &e) < 0) {
			fprintf(stderr, "max_emu: %s\n", e.msg);
			return 1;
		}
		const char *base = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 :
		    argv[a];
		check_image(base, &im);
		img_free(&im);
	}
	img_free(&rgb16);
	img_free(&ties);
	img_free(&rgba16);
	printf("%d failed\n", nfail);
	return nfail != 0;
}
