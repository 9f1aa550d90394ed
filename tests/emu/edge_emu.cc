/*
 * edge_emu - edge's GPU stages (otsu.cu, edge_nms.cu, edge_hyst.cu) run
 * on the CPU through emu.h, against the CPU reference, bit for bit: a
 * check of the kernels' logic on a machine without a GPU.  Smoothing is
 * conv2d's (equal to the CPU's on every path, tests elsewhere), so it is
 * done on the CPU here.  Prints "pass NAME" or "fail NAME: why".
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

#include "emu.h"
extern "C" {
#include "conv2d.h"
#include "edge.h"
#include "otsu.h"
}

static int nfail;

/* A device image in host memory: rows pitched to 256 bytes. */
static struct gpu_image
dev_image(int w, int h, unsigned maxval)
{
	struct gpu_image d;
	d.pitch = ((size_t)w * gf_sample_bytes(maxval) + 255) / 256 * 256;
	d.width = w;
	d.height = h;
	d.maxval = maxval;
	d.px = aligned_alloc(256, d.pitch * h);
	memset(d.px, 0x5a, d.pitch * h);
	return d;
}

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
	struct edge_params p = edge_params_for(o);
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
	struct edge_info info;
	struct gf_err e;
	const struct image *src = gray;
	char full[256];

	if (edge_cpu(gray, &want, &o, &info, 0, &e) < 0) {
		printf("fail %s: cpu: %s\n", name, e.msg);
		nfail++;
		return;
	}
	if (o.sigma > 0) {
		struct conv2d_filter cp;
		if (edge_smooth_params(&o, &cp, &e) < 0 || conv2d_cpu(gray, &sm, &cp, 0, &e) < 0)
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

int
main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct image im = {0}, gray = {0};
		struct gf_err e;
		if (img_load(argv[i], &im, &e) < 0) {
			fprintf(stderr, "edge_emu: %s\n", e.msg);
			return 1;
		}
		if (im.channels != 1) {
			img_to_gray(&im, &gray, &e);
			img_free(&im);
			im = gray;
		}
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
