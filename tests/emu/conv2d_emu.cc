/*
 * conv2d_emu - conv2d's 8-bit fast 2D kernels (shared and sliding, in
 * kernels/conv2d_fast8.cu) run on the CPU through emu.h, against the CPU
 * reference, bit for bit: a check of the kernels' logic on a machine
 * without a GPU.  Integer kernels whose taps fit a signed byte take the
 * dp4a path, the others (and every kernel with GPUFILT_DP4A=0) the
 * float one; each case says which.  Prints "pass NAME" or "fail NAME:
 * why".
 *
 * Usage: conv2d_emu IMAGE...   (gray or colour, made gray; 8-bit)
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "emu.h"
#include "emu_img.h"
extern "C" {
#include "conv2d.h"
}

static int nfail;

/* One kernel on one image with strategy s and shape l, against the CPU. */
static void
check(const char *name, const struct image *im, const struct conv2d_filter *f,
    enum gf_strategy s, struct gf_launch l)
{
	struct conv2d_plan pl;
	struct gf_err e;
	struct image ref = {0};
	char full[300];

	if (conv2d_plan_make(f, im->maxval, &pl, &e) < 0 ||
	    conv2d_cpu(im, &ref, f, 1, &e) < 0) {
		printf("fail %s: %s\n", name, e.msg);
		nfail++;
		return;
	}
	if (l.block_w == 0)
		conv2d_shape(&pl.coef, s, &l);
	snprintf(full, sizeof(full), "%s/%s/%dx%dx%d/%s", name,
	    s == GF_SHARED ? "shared" : "sliding", l.block_w, l.block_h, l.rows,
	    pl.coef.dp4a ? "dp4a" : pl.coef.mode == CONV2D_F32 ? "float" : "int-as-float");
	if (conv2d_tile_w(&pl.coef, s, &l) != 16 * l.block_w) {
		printf("fail %s: the fast kernel does not run\n", full);
		nfail++;
		img_free(&ref);
		return;
	}
	struct gpu_image din = dev_image(im->width, im->height, im->maxval);
	struct gpu_image dout = dev_image(im->width, im->height, im->maxval);
	for (int y = 0; y < im->height; y++)
		memcpy((char *)din.px + y * din.pitch, (char *)im->px + (size_t)y * im->width,
		    im->width);
	conv2d_set_taps(&pl.taps, 0);
	conv2d_launch_2d(s, &din, &dout, 0, &pl.coef, &l, 0);
	int bad = -1;
	for (int y = 0; y < im->height && bad < 0; y++)
		for (int x = 0; x < im->width; x++)
			if (((uint8_t *)dout.px)[y * dout.pitch + x] !=
			    ((uint8_t *)ref.px)[(size_t)y * im->width + x]) {
				bad = y * im->width + x;
				break;
			}
	if (bad < 0) {
		printf("pass %s\n", full);
	} else {
		int x = bad % im->width, y = bad / im->width;
		printf("fail %s: (%d, %d) is %d, the CPU says %d\n", full, x, y,
		    ((uint8_t *)dout.px)[y * dout.pitch + x],
		    ((uint8_t *)ref.px)[(size_t)y * im->width + x]);
		nfail++;
	}
	free(din.px);
	free(dout.px);
	img_free(&ref);
}

/*
 * The fused 8-bit separable kernel (kernels/conv2d_sep.cu) at its default
 * shape on one image, against the CPU: integer kernels (box, the
 * fixed-point gauss) run it in int-as-float, real ones in float.
 */
static void
check_sep(const char *name, const struct image *im, const struct conv2d_filter *f)
{
	struct conv2d_plan pl;
	struct gf_err e;
	struct image ref = {0};
	struct gf_launch l = {0, 0, 0};
	char full[300];

	if (conv2d_plan_make(f, im->maxval, &pl, &e) < 0 ||
	    conv2d_cpu(im, &ref, f, 1, &e) < 0) {
		printf("fail %s: %s\n", name, e.msg);
		nfail++;
		return;
	}
	conv2d_shape(&pl.coef, GF_AUTO, &l);
	snprintf(full, sizeof(full), "%s/separable/%dx%dx%d/%s", name, l.block_w,
	    l.block_h, l.rows, pl.coef.mode == CONV2D_F32 ? "float" : "int-as-float");
	if (!pl.separable || conv2d_smem_sep(&pl.coef, &l) == 0) {
		printf("fail %s: the fused separable kernel does not run\n", full);
		nfail++;
		img_free(&ref);
		return;
	}
	struct gpu_image din = dev_image(im->width, im->height, im->maxval);
	struct gpu_image dout = dev_image(im->width, im->height, im->maxval);
	for (int y = 0; y < im->height; y++)
		memcpy((char *)din.px + y * din.pitch, (char *)im->px + (size_t)y * im->width,
		    im->width);
	conv2d_set_taps(&pl.taps, 0);
	conv2d_launch_sep(&din, &dout, &pl.coef, &l, 0);
	long bad = -1;
	for (int y = 0; y < im->height && bad < 0; y++)
		for (int x = 0; x < im->width; x++)
			if (((uint8_t *)dout.px)[y * dout.pitch + x] !=
			    ((uint8_t *)ref.px)[(size_t)y * im->width + x]) {
				bad = (long)y * im->width + x;
				break;
			}
	if (bad < 0) {
		printf("pass %s\n", full);
	} else {
		printf("fail %s: (%ld, %ld) differs from the CPU\n", full,
		    bad % im->width, bad / im->width);
		nfail++;
	}
	free(din.px);
	free(dout.px);
	img_free(&ref);
}

int
main(int argc, char **argv)
{
	static const char *kernels[][2] = {
		{"sharpen", "sharpen"},
		{"5x5", "1 2 0 -1 3; 2 -4 1 0 1; 0 1 8 1 0; 1 0 1 -4 2; 3 -1 0 2 1"},
		{"7x7", "127 -128 3 0 0 1 -1; 0 5 0 0 0 0 0; 0 0 0 0 0 0 0; 9 0 0 -7 0 0 2;"
		    "0 0 0 0 0 0 0; 0 0 0 0 0 0 0; -1 0 0 0 0 100 -100"},
		{"9x9", "@tests/kernels/nonsep9x9.txt"},
		{"big-taps", "1 0 200; 0 -1 0; 3 0 -300"},
		{"laplace", "laplace"},
		/* fixed-point Gaussian (divisor 2^16) and box (25), both as 2D */
		{"gauss1.4", "gauss:1.4"},
		{"box5", "box:5"},
	};
	static const enum gf_border borders[] = {GF_BORDER_REPLICATE, GF_BORDER_ZERO,
	    GF_BORDER_REFLECT, GF_BORDER_WRAP};
	/* Shared's tensor-core kernel takes 8 x 16 or 8 x 32 threads: the defaults, {8, 16, 1}, {8, 32, 3}. */
	static const struct gf_launch shapes[] = {{0, 0, 0}, {3, 2, 5}, {1, 1, 1},
	    {8, 16, 1}, {8, 32, 3}};
	/* GPUFILT_DP4A=0: the float path, as the tools read it (cmd/cli_env.h). */
	const char *dp4a = getenv("GPUFILT_DP4A");
	const int no_dp4a = dp4a != NULL && strcmp(dp4a, "0") == 0;

	for (int a = 1; a < argc; a++) {
		struct image im = {0};
		if (emu_load_gray("conv2d_emu", argv[a], &im) < 0)
			return 1;
		if (im.maxval > 255) {
			img_free(&im);
			continue;
		}
		const char *base = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
		for (auto &k : kernels) {
			struct conv2d_filter f;
			struct gf_err e;
			memset(&f, 0, sizeof(f));
			f.no_dp4a = no_dp4a;
			if (kspec_parse(k[1], &f.k, &e) < 0) {
				printf("fail %s: %s\n", k[0], e.msg);
				nfail++;
				continue;
			}
			for (int v = 0; v < 4; v++) {
				char name[200];
				f.border = borders[v];
				/* Variants: a bias, --abs, a negative divisor (signs folded). */
				f.bias = v == 1 ? 40 : 0;
				f.abs = v == 2;
				f.divisor = v == 3 ? -3 : 0;
				snprintf(name, sizeof(name), "%s/%s/v%d", base, k[0], v);
				for (auto s : {GF_SHARED, GF_SLIDING})
					for (int i = 0; i < 5; i++)
						if (i == 0 || (v == 0 && (i < 3 || s == GF_SHARED)))
							check(name, &im, &f, s, shapes[i]);
			}
		}
		/* The fused separable kernel: the fixed-point Gaussians, box, a real one. */
		static const char *seps[] = {"gauss:1.4", "gauss:4", "box:5",
		    "0.01 0.02 0.04 0.02 0.01; 0.02 0.04 0.08 0.04 0.02; 0.04 0.08 0.16 0.08 0.04; 0.02 0.04 0.08 0.04 0.02; 0.01 0.02 0.04 0.02 0.01"};
		for (const char *k : seps)
			for (int v = 0; v < 4; v++) {
				struct conv2d_filter f;
				struct gf_err e;
				char name[200];
				memset(&f, 0, sizeof(f));
				f.no_dp4a = no_dp4a;
				if (kspec_parse(k, &f.k, &e) < 0) {
					printf("fail %s: %s\n", k, e.msg);
					nfail++;
					continue;
				}
				f.allow_separable = 1;
				f.border = borders[v];
				f.bias = v == 1 ? 40 : 0;
				snprintf(name, sizeof(name), "%s/%s/v%d", base, k, v);
				check_sep(name, &im, &f);
			}
		img_free(&im);
	}
	printf("%s\n", nfail ? "FAILED" : "all passed");
	return nfail != 0;
}
