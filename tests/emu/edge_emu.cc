/*
 * edge_emu - edge's GPU stages (otsu.cu, edge_nms.cu, edge_hyst.cu) run
 * on the CPU through emu.h, against the CPU reference, bit for bit: a
 * check of the kernels' logic on a machine without a GPU.  Smoothing is
 * conv2d's (equal to the CPU's on every path, tests elsewhere), so it is
 * done on the CPU here.  Prints "pass NAME" or "fail NAME: why".
 *
 * Before the images, hysteresis alone (edge_launch_hyst) on made class
 * maps against a flood fill of its own: random ones of every density,
 * all weak, all strong, serpentines and a spiral across many tiles,
 * pixels at tile corners, sizes that are not multiples of the tile,
 * 1 x N and N x 1, with 8- and 16-bit outputs.
 *
 * Usage: edge_emu IMAGE...   (gray or colour, made gray)
 * EDGE_EMU_QUICK set in the environment: sigma 0 and sliding only;
 * EDGE_EMU_LOW, EDGE_EMU_HIGH: the fixed thresholds (else 40, 100 for
 * 8-bit images, scaled to maxval); EDGE_EMU_SHAPE=WxHxROWS: the launch
 * shape of the last option set (else 7x3x5).
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "emu.h"
#include "emu_img.h"
extern "C" {
#include "conv2d.h"
#include "edge_tool.h"
#include "otsu.h"
}

static int nfail;

static void
upload(const struct image *im, struct gpu_image *d)
{
	int b = gf_sample_bytes(im->maxval);
	for (int y = 0; y < im->height; y++)
		memcpy((char *)d->px + y * d->pitch, (char *)im->px + (size_t)y * im->width * b,
		    (size_t)im->width * b);
}

/* The GPU pipeline of edge_run_device on src (already smoothed). */
static void
pipeline(const struct gpu_image *src, const struct gpu_image *out,
    const struct edge_opts *o, enum gf_strategy s)
{
	struct gpu_image lab = dev_image(src->width, src->height, 255);
	struct edge_params ep = edge_params_for(o);
	struct grad_thresh p = edge_thresh_for(&ep);
	static struct otsu_device od;
	size_t hs = edge_hyst_scratch(src->width, src->height);
	void *scratch = aligned_alloc(256, (hs + 255) / 256 * 256);

	memset(scratch, 0x77, (hs + 255) / 256 * 256);
	if (o->auto_thresh) {
		memset(od.bins, 0, sizeof(od.bins));
		otsu_launch_hist(src, o->common.border, o->l1, od.bins, 4 * 132, 1, 0);
		otsu_launch_search(od.bins, (int)src->maxval + 1, o->l1, &od.t, &od.p, 0);
	}
	edge_launch_nms(s, src, &lab, &p, o->auto_thresh ? &od.p : NULL,
	    o->common.border, &o->common.launch, 0, 0);
	edge_launch_hyst(&lab, out, scratch, 0);
	free(lab.px);
	free(scratch);
}

static void
check(const char *name, const struct image *gray, struct edge_opts o)
{
	struct image want = {0}, sm = {0}, got = *gray;
	struct edge_params ep = edge_params_for(&o);
	struct edge_info info;
	struct gf_err e;
	const struct image *src = gray;
	char full[256];

	if (edge_cpu(gray, &want, &ep, &info, 0, &e) < 0) {
		printf("fail %s: cpu: %s\n", name, e.msg);
		nfail++;
		return;
	}
	if (o.sigma > 0) {
		struct conv2d_filter cp;
		if (edge_smooth_filter(&ep, &cp, &e) < 0 || conv2d_cpu(gray, &sm, &cp, 0, &e) < 0)
			abort();
		src = &sm;
	}
	struct gpu_image din = dev_image(gray->width, gray->height, gray->maxval);
	struct gpu_image dout = dev_image(gray->width, gray->height, gray->maxval);
	upload(src, &din);
	got.px = malloc(img_bytes(gray));
	for (int s = GF_GLOBAL; s <= GF_SLIDING; s++) {
		if (s == GF_TEXTURE || (getenv("EDGE_EMU_QUICK") && s != GF_SLIDING))
			continue;
		pipeline(&din, &dout, &o, (enum gf_strategy)s);
		int b = gf_sample_bytes(gray->maxval);
		for (int y = 0; y < gray->height; y++)
			memcpy((char *)got.px + (size_t)y * gray->width * b,
			    (char *)dout.px + y * dout.pitch, (size_t)gray->width * b);
		snprintf(full, sizeof(full), "%s/%s", name, gf_strategies[s].name);
		if (memcmp(got.px, want.px, img_bytes(gray)) == 0) {
			printf("pass %s\n", full);
		} else {
			size_t n = img_bytes(gray), i = 0, diff = 0;
			for (size_t k = 0; k < n; k++)
				if (((uint8_t *)got.px)[k] != ((uint8_t *)want.px)[k] && diff++ == 0)
					i = k;
			printf("fail %s: %zu bytes differ, first at byte %zu\n", full, diff, i);
			nfail++;
		}
	}
	free(got.px);
	free(din.px);
	free(dout.px);
	img_free(&want);
	img_free(&sm);
}

/* ---- hysteresis alone on class maps */

/*
 * The edges of class map c (w x h, enum edge_class): the candidates
 * 8-connected to a strong one, by a flood fill that checks bounds (the
 * maps here have candidates on the image's frame too).
 */
static std::vector<uint8_t>
flood(const std::vector<uint8_t> &c, int w, int h)
{
	std::vector<uint8_t> e(c.size(), 0);
	std::vector<size_t> st;

	for (size_t i = 0; i < c.size(); i++)
		if (c[i] == EDGE_STRONG && !e[i]) {
			e[i] = 1;
			st.push_back(i);
		}
	while (!st.empty()) {
		size_t i = st.back();
		st.pop_back();
		int x = (int)(i % w), y = (int)(i / w);
		for (int dy = -1; dy <= 1; dy++)
			for (int dx = -1; dx <= 1; dx++) {
				int x2 = x + dx, y2 = y + dy;
				if (x2 < 0 || y2 < 0 || x2 >= w || y2 >= h)
					continue;
				size_t j = (size_t)y2 * w + x2;
				if (c[j] != EDGE_NONE && !e[j]) {
					e[j] = 1;
					st.push_back(j);
				}
			}
	}
	return e;
}

static uint32_t hrng = 2463534242u;

static uint32_t
xorshift(void)
{
	hrng ^= hrng << 13;
	hrng ^= hrng >> 17;
	hrng ^= hrng << 5;
	return hrng;
}

/* Runs edge_launch_hyst on c for an output of maxval and checks it. */
static void
check_hyst(const char *name, const std::vector<uint8_t> &c, int w, int h,
    unsigned maxval)
{
	struct gpu_image lab = dev_image(w, h, 255), out = dev_image(w, h, maxval);
	size_t hs = (edge_hyst_scratch(w, h) + 255) / 256 * 256;
	void *scratch = aligned_alloc(256, hs);
	std::vector<uint8_t> want = flood(c, w, h);
	size_t bad = 0, first = 0;
	char full[256];

	memset(scratch, 0x77, hs);
	for (int y = 0; y < h; y++)
		memcpy((char *)lab.px + y * lab.pitch, &c[(size_t)y * w], w);
	edge_launch_hyst(&lab, &out, scratch, 0);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			const char *row = (const char *)out.px + y * out.pitch;
			unsigned v = maxval > 255 ? ((const uint16_t *)row)[x] :
			    ((const uint8_t *)row)[x];
			if (v != (want[(size_t)y * w + x] ? maxval : 0) && bad++ == 0)
				first = (size_t)y * w + x;
		}
	snprintf(full, sizeof(full), "hyst/%s/%dx%d/%u", name, w, h, maxval);
	if (bad == 0) {
		printf("pass %s\n", full);
	} else {
		printf("fail %s: %zu pixels differ, first at (%zu, %zu)\n", full, bad,
		    first % w, first / w);
		nfail++;
	}
	free(lab.px);
	free(out.px);
	free(scratch);
}

/* Candidates with probability p, each strong with probability q. */
static std::vector<uint8_t>
random_map(int w, int h, double p, double q)
{
	std::vector<uint8_t> c((size_t)w * h);
	for (auto &v : c) {
		double u = xorshift() / 4294967296.0, s = xorshift() / 4294967296.0;
		v = u < p ? (s < q ? EDGE_STRONG : EDGE_WEAK) : EDGE_NONE;
	}
	return c;
}

/*
 * A weak serpentine of lines gap apart, horizontal (vertical when
 * vertical), strong at its one end only: the fill must follow it
 * through every tile it crosses, turns and diagonal steps included.
 */
static std::vector<uint8_t>
serpentine_map(int w, int h, int gap, int vertical)
{
	int lw = vertical ? h : w, lh = vertical ? w : h;
	std::vector<uint8_t> c((size_t)w * h, EDGE_NONE);
	auto set = [&](int x, int y, int v) {
		if (vertical)
			std::swap(x, y);
		c[(size_t)y * w + x] = (uint8_t)v;
	};
	for (int y = 0, band = 0; y < lh; y += gap, band++) {
		for (int x = 1; x < lw - 1; x++)
			set(x, y, EDGE_WEAK);
		/* Join to the next line at alternate ends, with a diagonal step. */
		int x = band % 2 ? 1 : lw - 2;
		for (int y2 = y + 1; y2 < y + gap && y2 < lh; y2++)
			set(x + ((y2 - y) % 2 ? (band % 2 ? -1 : 1) : 0), y2, EDGE_WEAK);
	}
	set(1, 0, EDGE_STRONG);
	return c;
}

/* A weak square spiral, strong at its centre. */
static std::vector<uint8_t>
spiral_map(int w, int h)
{
	std::vector<uint8_t> c((size_t)w * h, EDGE_NONE);
	int x0 = 0, y0 = 0, x1 = w - 1, y1 = h - 1, x = 0, y = 0;
	while (x0 <= x1 && y0 <= y1) {
		for (x = x0; x <= x1; x++)
			c[(size_t)y0 * w + x] = EDGE_WEAK;
		for (y = y0; y <= y1; y++)
			c[(size_t)y * w + x1] = EDGE_WEAK;
		for (x = x1; x >= x0; x--)
			c[(size_t)y1 * w + x] = EDGE_WEAK;
		for (y = y1; y >= y0 + 2; y--)
			c[(size_t)y * w + x0] = EDGE_WEAK;
		if (y0 + 2 <= y1)
			c[(size_t)(y0 + 2) * w + x0 + 1] = EDGE_WEAK;
		x0 += 2, y0 += 2, x1 -= 2, y1 -= 2;
	}
	c[(size_t)(h / 2) * w + w / 2] = EDGE_STRONG;
	return c;
}

static void
hyst_cases(void)
{
	static const int sizes[][2] = {{1, 1}, {1, 700}, {700, 1}, {2, 3}, {31, 31},
	    {32, 32}, {33, 33}, {64, 64}, {65, 97}, {100, 37}, {257, 129}};
	static const unsigned maxvals[] = {255, 100, 65535, 1000};
	char name[64];

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int w = sizes[i][0], h = sizes[i][1];
		unsigned mv = maxvals[i % 4];
		std::vector<uint8_t> c;
		for (double p : {0.1, 0.3, 0.45, 0.6, 0.9})
			for (double q : {0.0, 0.003, 0.05}) {
				snprintf(name, sizeof(name), "random-%g-%g", p, q);
				check_hyst(name, random_map(w, h, p, q), w, h, mv);
			}
		check_hyst("all-weak", std::vector<uint8_t>((size_t)w * h, EDGE_WEAK), w, h, mv);
		check_hyst("all-strong", std::vector<uint8_t>((size_t)w * h, EDGE_STRONG), w, h, mv);
		c.assign((size_t)w * h, EDGE_WEAK);
		c.back() = EDGE_STRONG;
		check_hyst("weak-one-strong", c, w, h, mv);
		c.assign((size_t)w * h, EDGE_NONE);
		for (int y = 0; y < h; y++)
			for (int x = (y & 1); x < w; x += 2)
				c[(size_t)y * w + x] = EDGE_WEAK;
		c[0] = EDGE_STRONG;
		check_hyst("checkerboard", c, w, h, mv);
	}
	for (unsigned mv : {255u, 65535u}) {
		/* Tile corners: diagonal steps across the corner, both ways. */
		int w = 96, h = 96;
		std::vector<uint8_t> c((size_t)w * h, EDGE_NONE);
		c[31 * w + 31] = EDGE_STRONG;
		c[32 * w + 32] = EDGE_WEAK;
		c[33 * w + 33] = EDGE_WEAK;
		c[31 * w + 64] = EDGE_WEAK;
		c[32 * w + 63] = EDGE_WEAK;
		c[33 * w + 62] = EDGE_STRONG;
		c[63 * w + 63] = EDGE_WEAK;     /* alone at a corner: not an edge */
		c[64 * w + 31] = EDGE_WEAK;
		c[63 * w + 32] = EDGE_WEAK;
		c[0] = EDGE_WEAK;
		c[(size_t)w * h - 1] = EDGE_STRONG;
		c[95] = EDGE_STRONG;
		check_hyst("corners", c, w, h, mv);
		/* A weak ring along every tile border, one strong pixel. */
		c.assign((size_t)w * h, EDGE_NONE);
		for (int y = 0; y < h; y++)
			for (int x = 0; x < w; x++)
				if (x % 32 == 0 || x % 32 == 31 || y % 32 == 0 || y % 32 == 31)
					c[(size_t)y * w + x] = EDGE_WEAK;
		c[(size_t)50 * w + 31] = EDGE_STRONG;
		check_hyst("tile-borders", c, w, h, mv);
	}
	for (int gap : {2, 3, 6, 33})
		for (int v = 0; v < 2; v++) {
			snprintf(name, sizeof(name), "serpentine-%d-%s", gap, v ? "v" : "h");
			check_hyst(name, serpentine_map(1000, 700, gap, v), 1000, 700, 255);
		}
	check_hyst("spiral", spiral_map(301, 263), 301, 263, 255);
	check_hyst("spiral", spiral_map(64, 64), 64, 64, 65535);
	for (double p : {0.32, 0.42, 0.55}) {
		snprintf(name, sizeof(name), "random-%g-0.005", p);
		check_hyst(name, random_map(1000, 700, p, 0.005), 1000, 700, 255);
	}
}

int
main(int argc, char **argv)
{
	hyst_cases();
	for (int i = 1; i < argc; i++) {
		struct image im = {0};
		if (emu_load_gray("edge_emu", argv[i], &im) < 0)
			return 1;
		const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		struct edge_opts o;
		memset(&o, 0, sizeof(o));
		double k = im.maxval / 255.0;
		char name[200];
		o.low = getenv("EDGE_EMU_LOW") ? atof(getenv("EDGE_EMU_LOW")) : 40 * k;
		o.high = getenv("EDGE_EMU_HIGH") ? atof(getenv("EDGE_EMU_HIGH")) : 100 * k;
		snprintf(name, sizeof(name), "%s/s0", base);
		check(name, &im, o);
		if (getenv("EDGE_EMU_QUICK")) {
			img_free(&im);
			continue;
		}
		o.l1 = 1;
		o.common.border = GF_BORDER_REFLECT;
		snprintf(name, sizeof(name), "%s/s0-l1-reflect", base);
		check(name, &im, o);
		o.l1 = 0;
		o.auto_thresh = 1;
		o.common.border = GF_BORDER_ZERO;
		snprintf(name, sizeof(name), "%s/auto-zero", base);
		check(name, &im, o);
		o.sigma = 1.4;
		o.common.border = GF_BORDER_REPLICATE;
		snprintf(name, sizeof(name), "%s/s1.4-auto", base);
		check(name, &im, o);
		o.auto_thresh = 0;
		o.common.launch.block_w = 7;
		o.common.launch.block_h = 3;
		o.common.launch.rows = 5;
		if (getenv("EDGE_EMU_SHAPE"))
			sscanf(getenv("EDGE_EMU_SHAPE"), "%dx%dx%d", &o.common.launch.block_w,
			    &o.common.launch.block_h, &o.common.launch.rows);
		o.common.border = GF_BORDER_WRAP;
		snprintf(name, sizeof(name), "%s/s1.4-wrap-7x3x5", base);
		check(name, &im, o);
		img_free(&im);
	}
	printf("%s\n", nfail ? "FAILED" : "all passed");
	return nfail != 0;
}
