/*
 * grad_max_test - the largest-gradient channel (sobel and edge --colour
 * max, grad_max.h): the pick's rule by hand (the larger norm, L2 or L1,
 * the first of equals); sobel_max_cpu on a pixel computed by hand; a
 * colour image of three equal channels, and a gray one, giving sobel's
 * and edge's gray results for every operator, mode, border and
 * threshold kind; alpha not counting; then on a GPU, every strategy and
 * launch shape of the gradients, and edge's whole device pipeline
 * (smoothing on each plane, thresholds of the histogram; default launch
 * shapes), against the CPU bit for bit (skipped without a GPU).  Prints
 * "pass NAME", "fail NAME: why" or "skip NAME: why".
 */
#include <stdio.h>
#include <string.h>

#include "edge_max.h"
#include "edge_tool.h"
#include "grad_max.h"
#include "sobel_tool.h"
#include "unit.h"

static int
same(const struct image *a, const struct image *b)
{
	return a->width == b->width && a->height == b->height &&
	    a->channels == b->channels && a->maxval == b->maxval &&
	    memcmp(a->px, b->px, img_bytes(a)) == 0;
}

/* The pick: the larger norm wins, the first of equals; L1 and L2 may differ. */
static void
test_pick(void)
{
	int gx[3] = {3, 5, -4}, gy[3] = {4, 0, 3};
	int ax[2] = {6, 4}, ay[2] = {0, 4};
	int bx[3] = {0, 1, -2}, by[3] = {0, -1, 0};

	result("max_pick_tie_first_l2", grad_max_pick(gx, gy, 3, 0) == 0,
	    "3,4 5,0 -4,3 (all 25) gave %d", grad_max_pick(gx, gy, 3, 0));
	result("max_pick_l1", grad_max_pick(gx, gy, 3, 1) == 0,
	    "7 5 7 gave %d", grad_max_pick(gx, gy, 3, 1));
	result("max_pick_norms_differ", grad_max_pick(ax, ay, 2, 0) == 0 &&
	    grad_max_pick(ax, ay, 2, 1) == 1, "6,0 4,4: l2 %d l1 %d",
	    grad_max_pick(ax, ay, 2, 0), grad_max_pick(ax, ay, 2, 1));
	result("max_pick_larger_later", grad_max_pick(bx, by, 3, 0) == 2 &&
	    grad_max_pick(bx, by, 3, 1) == 1, "0,0 1,-1 -2,0: l2 %d l1 %d",
	    grad_max_pick(bx, by, 3, 0), grad_max_pick(bx, by, 3, 1));
}

/*
 * A 3x3 RGB image: R a vertical step of 10 (gx 40), G a horizontal step
 * of 12 (gy 48), B flat; the centre's magnitude is G's, 48, its
 * direction G's (gy > 0: 90 degrees, bin 64); with G's step 10, the
 * gradients tie (both 1600) and R's, the first, gives bin 0.
 */
static void
test_hand(void)
{
	unsigned v[27], v2[27];
	struct sobel_params p = {SOBEL_MAG_L2, 255, 0, SOBEL_OP_SOBEL};
	struct image in, in2, out = {0};
	struct gf_err e;
	int ok;

	for (int y = 0; y < 3; y++)
		for (int x = 0; x < 3; x++) {
			unsigned *s = v + (y * 3 + x) * 3, *t = v2 + (y * 3 + x) * 3;
			s[0] = t[0] = x == 2 ? 60 : 50;
			s[1] = y == 2 ? 82 : 70;
			t[1] = y == 2 ? 80 : 70;
			s[2] = t[2] = 9;
		}
	in = image_of(3, 3, 3, 255, v);
	in2 = image_of(3, 3, 3, 255, v2);
	ok = sobel_max_cpu(&in, &out, &p, GF_BORDER_REPLICATE, 1, &e) == 0 &&
	    out.channels == 1 && img_get(&out, 4) == 48;
	result("max_hand_magnitude", ok, "centre %u, want 48",
	    out.px ? img_get(&out, 4) : 0);
	img_free(&out);
	p.mode = SOBEL_DIRECTION;
	ok = sobel_max_cpu(&in, &out, &p, GF_BORDER_REPLICATE, 1, &e) == 0 &&
	    img_get(&out, 4) == 64;
	result("max_hand_direction", ok, "centre bin %u, want 64",
	    out.px ? img_get(&out, 4) : 0);
	img_free(&out);
	ok = sobel_max_cpu(&in2, &out, &p, GF_BORDER_REPLICATE, 1, &e) == 0 &&
	    img_get(&out, 4) == 0;
	result("max_hand_tie_first", ok, "centre bin %u, want 0 (R's)",
	    out.px ? img_get(&out, 4) : 0);
	img_free(&out);
	img_free(&in);
	img_free(&in2);
}

/* gray's samples in each of ch channels (an alpha of noise if ch is 2 or 4). */
static struct image
spread(const struct image *gray, int ch)
{
	struct image c = image_noise(gray->width, gray->height, ch, gray->maxval,
	    gray->maxval, 99);
	size_t n = (size_t)gray->width * gray->height;

	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < img_colour_channels(&c); k++)
			img_set(&c, i * ch + k, img_get(gray, i));
	return c;
}

/*
 * sobel --colour max of three equal channels, and of gray and alpha,
 * is sobel of the gray, for every operator, mode and border, -t auto
 * too, through the tool's CPU path.
 */
static void
test_sobel_equal(void)
{
	static const char *modes[] = {"mag", "l1", "thr", "l1thr", "dir", "auto"};
	int bad[6] = {0};
	char why[6][160] = {""};

	for (int bits = 8; bits <= 16; bits += 8) {
		unsigned mv = bits == 8 ? 255 : 65535;
		struct image g = image_noise(37, 21, 1, mv, mv, 5 + bits);
		for (int ch = 2; ch <= 4; ch++) {
			if (ch == 3)
				continue;
			struct image c = spread(&g, ch == 2 ? 2 : 4);
			struct image c3 = spread(&g, 3);
			for (int op = 0; op < SOBEL_NOPS; op++)
				for (int b = 0; b < 4; b++)
					for (int m = 0; m < 6; m++) {
						struct sobel_opts o;
						struct tool t;
						struct gf_times tm = {0};
						struct image a = {0}, x = {0}, y = {0};
						struct gf_err e;
						if (m == 5 && op != SOBEL_OP_SOBEL)
							continue;
						memset(&o, 0, sizeof(o));
						gf_opts_init(&o.common);
						o.common.border = b;
						o.common.threads = 2;
						o.op = op;
						o.l1 = m == 1 || m == 3;
						o.threshold = m == 2 || m == 3;
						o.t = mv * (op + 1) * 0.9;
						o.direction = m == 4;
						o.threshold_auto = m == 5;
						sobel_tool(&t, &o);
						if (t.cpu(t.ctx, &g, &a, &tm, &e) < 0)
							continue;
						o.max = 1;
						sobel_tool(&t, &o);
						if (t.cpu(t.ctx, &c, &x, &tm, &e) < 0 ||
						    t.cpu(t.ctx, &c3, &y, &tm, &e) < 0 ||
						    !same(&a, &x) || !same(&a, &y)) {
							bad[m]++;
							snprintf(why[m], sizeof(why[m]),
							    "%d-bit, %d channels, op %d, border %d",
							    bits, ch, op, b);
						}
						img_free(&a);
						img_free(&x);
						img_free(&y);
					}
			img_free(&c);
			img_free(&c3);
		}
		img_free(&g);
	}
	for (int m = 0; m < 6; m++) {
		char name[64];
		snprintf(name, sizeof(name), "max_sobel_equal_channels_%s", modes[m]);
		result(name, bad[m] == 0, "%d cases differ from gray, e.g. %s", bad[m],
		    why[m]);
	}
}

/* The edge options of case k: thresholds of every kind, sigma 0 and 1.4. */
static void
edge_case(struct edge_opts *o, int k, unsigned mv)
{
	memset(o, 0, sizeof(*o));
	gf_opts_init(&o->common);
	o->common.threads = 2;
	o->common.border = k % 3;
	o->sigma = k % 2 ? 1.4 : 0;
	o->l1 = k % 4 == 3;
	switch (k / 2 % 4) {
	case 0:
		o->auto_thresh = 1;
		break;
	case 1:
		o->low = mv * 0.1;
		o->high = mv * 0.3;
		break;
	case 2:
		o->high = 30;
		o->high_kind = EDGE_T_PERCENT;
		o->low_kind = EDGE_T_HALF;
		o->low = 15;
		break;
	default:
		o->high = 0.9;
		o->low = 0.6;
		o->high_kind = o->low_kind = EDGE_T_QUANTILE;
		break;
	}
}

#define EDGE_CASES 16

/* edge --colour max of three equal channels is edge of the gray. */
static void
test_edge_equal(void)
{
	int bad = 0, n = 0;
	char why[160] = "";

	for (int bits = 8; bits <= 16; bits += 8) {
		unsigned mv = bits == 8 ? 255 : 65535;
		struct image g = image_noise(41, 29, 1, mv, mv, 17 + bits);
		struct image c = spread(&g, 4);
		for (int k = 0; k < EDGE_CASES; k++) {
			struct edge_opts o;
			struct edge_params p;
			struct edge_info i1, i2;
			struct image a = {0}, x = {0};
			struct gf_err e;
			edge_case(&o, k, mv);
			p = edge_params_for(&o);
			n++;
			if (edge_cpu(&g, &a, &p, &i1, 2, &e) < 0 ||
			    edge_max_cpu(&c, &x, &p, &i2, 2, &e) < 0 || !same(&a, &x) ||
			    i1.low != i2.low || i1.high != i2.high) {
				bad++;
				snprintf(why, sizeof(why), "%d-bit, case %d", bits, k);
			}
			img_free(&a);
			img_free(&x);
		}
		img_free(&c);
		img_free(&g);
	}
	result("max_edge_equal_channels", bad == 0 && n > 0,
	    "%d of %d cases differ from gray, e.g. %s", bad, n, why);
}

/* The colour planes of in stacked in slot GPU_SLOT_IN of g. */
static int
upload_stack(struct gpu *g, const struct image *in, struct gpu_image *d,
    struct gf_err *e)
{
	const int n = img_colour_channels(in);

	if (gpu_image_get(g, GPU_SLOT_IN, in->width, n * in->height, in->maxval,
	    d, e) < 0)
		return -1;
	for (int c = 0; c < n; c++) {
		struct gpu_image p = *d;
		p.px = (char *)d->px + (size_t)c * in->height * d->pitch;
		p.height = in->height;
		if (gpu_upload(g, in, c, &p, e) < 0)
			return -1;
	}
	return 0;
}

/*
 * GPU: sobel --colour max through every strategy and shape, and edge's
 * device pipeline, equal the CPU on random 8- and 16-bit RGB(A) images
 * of odd sizes.
 */
static void
test_gpu(void)
{
	static const int sizes[][2] = {{1, 1}, {2, 3}, {1, 70}, {70, 1}, {33, 17},
	    {257, 131}};
	static const struct gf_launch shapes[] = {{0, 0, 0}, {3, 2, 5}, {1, 1, 1},
	    {16, 4, 3}};
	struct gpu g;
	struct gf_err e = {0};
	int have = gpu_open(&g, -1, &e) == 0;
	char name[96];

	for (int s = GF_FIRST_GPU; s <= GF_LAST_GPU; s++) {
		int bad = 0, total = 0;
		char why[600] = "";
		for (size_t z = 0; have && z < sizeof(sizes) / sizeof(sizes[0]); z++)
			for (int bits = 8; bits <= 16; bits += 8) {
				unsigned mv = bits == 8 ? 255 : 65535;
				struct image in = image_noise(sizes[z][0], sizes[z][1],
				    3 + bits / 16, mv, mv / (1 + z % 3), 7 + (uint32_t)z);
				struct gpu_image din, dout;
				if (upload_stack(&g, &in, &din, &e) < 0 ||
				    gpu_image_get(&g, GPU_SLOT_OUT, in.width, in.height,
				    mv, &dout, &e) < 0) {
					bad++;
					snprintf(why, sizeof(why), "%s", e.msg);
					img_free(&in);
					continue;
				}
				for (int op = 0; op < SOBEL_NOPS; op++)
					for (int m = 0; m <= SOBEL_DIRECTION; m++)
						for (size_t l = 0; l < 4; l++) {
							struct sobel_params p = {m, mv,
							    (uint64_t)mv * mv / 2, op};
							struct grad_max_dest d;
							struct image want = {0}, got = {0};
							int b = (op + m + (int)l) % 4;
							memset(&d, 0, sizeof(d));
							d.kind = GRAD_MAX_SOBEL;
							d.p = p;
							d.l1 = grad_max_l1_of(&p);
							d.out = dout;
							total++;
							if (sobel_max_cpu(&in, &want, &p, b, 1, &e) < 0 ||
							    grad_max_device(&g, &din, 3, op, b, &d, s,
							    &shapes[l], &e) < 0 ||
							    img_alloc_like(&got, &in, 1, &e) < 0 ||
							    gpu_download(&g, &dout, &got, 0, &e) < 0 ||
							    !same(&want, &got)) {
								bad++;
								snprintf(why, sizeof(why), "%dx%d %d-bit "
								    "op %d mode %d border %d shape %zu: %s",
								    in.width, in.height, bits, op, m, b, l,
								    e.msg);
							}
							img_free(&want);
							img_free(&got);
						}
				for (int k = 0; k < EDGE_CASES; k++) {
					struct edge_opts o;
					struct edge_params p;
					struct edge_info i1, i2;
					struct image want = {0}, got = {0};
					edge_case(&o, k, mv);
					o.common.strategy = s;
					p = edge_params_for(&o);
					total++;
					if (edge_max_cpu(&in, &want, &p, &i1, 1, &e) < 0 ||
					    edge_max_device(&g, &din, 3, &dout, &o, &i2, &e) < 0 ||
					    img_alloc_like(&got, &in, 1, &e) < 0 ||
					    gpu_download(&g, &dout, &got, 0, &e) < 0 ||
					    !same(&want, &got) || i1.low != i2.low ||
					    i1.high != i2.high) {
						bad++;
						snprintf(why, sizeof(why), "edge %dx%d %d-bit case "
						    "%d: %s", in.width, in.height, bits, k, e.msg);
					}
					img_free(&want);
					img_free(&got);
				}
				img_free(&in);
			}
		snprintf(name, sizeof(name), "max_gpu_%s", gf_strategies[s].name);
		if (!have)
			printf("skip %s: no GPU (%s)\n", name, e.msg);
		else
			result(name, bad == 0 && total > 0, "%d of %d cases differ "
			    "from the CPU or failed, e.g. %s", bad, total, why);
	}
	if (have)
		gpu_close(&g);
}

int
main(void)
{
	test_pick();
	test_hand();
	test_sobel_equal();
	test_edge_equal();
	test_gpu();
	return nfail ? 1 : 0;
}
