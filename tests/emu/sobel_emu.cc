/*
 * sobel_emu - the kernels of sobel's operators (kernels/sobel_op.cu:
 * prewitt, scharr, sobel5, sobel7, and the direction and the signed
 * gradients of every operator, the 3x3 Sobel's too) and of its wider
 * outputs (kernels/sobel_wide.cu: 16-bit outputs of 8-bit images, the
 * signed gradients and --depth 16's magnitude) run on the CPU through emu.h, against
 * the CPU reference, bit for bit: global, shared and sliding (texture
 * reads go through tex2D, which the emulator lacks; its kernel is
 * global's with another loader), every border, every output mode, the
 * default launch shape and odd ones.  Prints "pass NAME" or "fail NAME:
 * why".
 *
 * Usage: sobel_emu IMAGE...   (gray or colour, made gray; 8 or 16 bit)
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "emu.h"
#include "emu_img.h"
extern "C" {
#include "sobel.h"
}

static int nfail;

/* One operator, strategy and shape on one image, against the CPU. */
static void
check(const char *name, const struct image *im, const struct sobel_params *p,
    int border, enum gf_strategy s, struct gf_launch l)
{
	static const char *strategy[] = {"auto", "cpu", "global", "texture",
	    "shared", "sliding"};
	struct image ref = {0};
	struct gf_err e;
	const int b = gf_sample_bytes(im->maxval), ob = gf_sample_bytes(p->maxval);
	const int wide = sobel_wide_path(p, im->maxval);
	char full[300];

	snprintf(full, sizeof(full), "%s/%s/%dx%dx%d", name, strategy[s],
	    l.block_w, l.block_h, l.rows);
	if (sobel_cpu(im, &ref, p, border, 1, &e) < 0) {
		printf("fail %s: %s\n", full, e.msg);
		nfail++;
		return;
	}
	struct gpu_image din = dev_image(im->width, im->height, im->maxval);
	struct gpu_image dout = dev_image(im->width, im->height, p->maxval);
	for (int y = 0; y < im->height; y++)
		memcpy((char *)din.px + y * din.pitch,
		    (char *)im->px + (size_t)y * im->width * b, (size_t)im->width * b);
	if ((wide ? sobel_wide_launch(s, &din, &dout, p, border, &l, 0, 0) :
	    sobel_op_launch(s, &din, &dout, p, border, &l, 0, 0)) != cudaSuccess) {
		printf("fail %s: the launch was refused\n", full);
		nfail++;
	} else {
		long bad = -1;
		for (int y = 0; y < im->height && bad < 0; y++)
			if (memcmp((char *)dout.px + y * dout.pitch,
			    (char *)ref.px + (size_t)y * im->width * ob,
			    (size_t)im->width * ob) != 0)
				bad = y;
		if (bad < 0)
			printf("pass %s\n", full);
		else {
			printf("fail %s: row %ld differs from the CPU\n", full, bad);
			nfail++;
		}
	}
	free(din.px);
	free(dout.px);
	img_free(&ref);
}

int
main(int argc, char **argv)
{
	static const char *ops[] = {"sobel", "prewitt", "scharr", "sobel5", "sobel7"};
	static const char *borders[] = {"replicate", "zero", "reflect", "wrap"};
	static const char *modes[] = {"l2", "l1", "thresh_l2", "thresh_l1",
	    "direction", "x", "y"};
	static const struct gf_launch shapes[] = {{0, 0, 0}, {3, 2, 5}, {1, 1, 1},
	    {5, 3, 2}};

	for (int a = 1; a < argc; a++) {
		struct image im = {0};
		if (emu_load_gray("sobel_emu", argv[a], &im) < 0)
			return 1;
		const char *base = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
		/* Thresholds that split typical gradients of each operator. */
		const double scale = im.maxval / 255.0;
		for (int op = SOBEL_OP_SOBEL; op < SOBEL_NOPS; op++) {
			const double t = (op == SOBEL_OP_SOBEL7 ? 9000.5 :
			    op == SOBEL_OP_SOBEL5 ? 600 : 80.5) * scale;
			for (int bo = 0; bo < 4; bo++)
				for (int m = 0; m <= SOBEL_GRAD_Y + 2; m++) {
					/*
					 * Past the modes, --depth 16's magnitudes (l2, l1)
					 * of an 8-bit image.  The 3x3 Sobel comes here
					 * for its direction, signed gradients and wide
					 * outputs alone.
					 */
					int depth16 = m > SOBEL_GRAD_Y, mode = depth16 ?
					    m - SOBEL_GRAD_Y - 1 : m;
					if (depth16 && im.maxval > 255)
						continue;
					if (op == SOBEL_OP_SOBEL && mode < SOBEL_DIRECTION &&
					    !depth16)
						continue;
					struct sobel_params p;
					char name[200];
					p.mode = mode;
					p.maxval = depth16 || mode >= SOBEL_GRAD_X ? 65535 :
					    im.maxval;
					p.op = op;
					p.thresh = (uint64_t)(m == SOBEL_THRESH_L2 ? t * t :
					    m == SOBEL_THRESH_L1 ? 2 * t : 0);
					snprintf(name, sizeof(name), "%s/%s/%s/%s%s", base,
					    ops[op], borders[bo], modes[mode],
					    depth16 ? "/depth16" : "");
					for (auto s : {GF_GLOBAL, GF_SHARED, GF_SLIDING})
						for (int i = 0; i < 4; i++)
							if (i == 0 || ((m == 0 || m == SOBEL_GRAD_X) &&
							    s != GF_GLOBAL) || (m == 0 && i == 1))
								check(name, &im, &p, bo, s, shapes[i]);
				}
		}
		img_free(&im);
	}
	printf("%d failed\n", nfail);
	return nfail != 0;
}
