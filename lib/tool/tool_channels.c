/*
 * tool_channels.c - a gray tool's work on each colour channel alone, on
 * the CPU: what sobel --colour channels and edge --colour channels do
 * there, as the engine does on the GPU when a tool's gray is 0 (each
 * colour plane through the tool's gpu, alpha carried through).
 */
#include "tool.h"

int
tool_channels_cpu(const struct image *in, struct image *out,
    int (*plane_cpu)(void *ctx, const struct image *in, struct image *out,
    struct gf_times *t, struct gf_err *e), void *ctx, struct gf_times *t,
    struct gf_err *e)
{
	const size_t n = (size_t)in->width * in->height, ch = in->channels;
	struct image plane = {in->width, in->height, 1, in->maxval, NULL, 0}, po;
	int ret = 0;

	if (img_alloc_like(out, in, in->channels, e) < 0)
		return -1;
	if (img_alloc(&plane, e) < 0) {
		img_free(out);
		return -1;
	}
	for (int c = 0; c < img_colour_channels(in) && ret == 0; c++) {
		for (size_t i = 0; i < n; i++)
			img_set(&plane, i, img_get(in, i * ch + c));
		if ((ret = plane_cpu(ctx, &plane, &po, t, e)) < 0)
			break;
		for (size_t i = 0; i < n; i++)
			img_set(out, i * ch + c, img_get(&po, i));
		img_free(&po);
	}
	for (size_t i = 0; ret == 0 && img_has_alpha(in) && i < n; i++)
		img_set(out, i * ch + ch - 1, img_get(in, i * ch + ch - 1));
	img_free(&plane);
	if (ret < 0)
		img_free(out);
	return ret;
}
