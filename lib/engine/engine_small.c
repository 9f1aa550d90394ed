/*
 * engine_small.c - the small-run rule: a run that the CPU finishes before
 * a GPU could have opened (its context alone takes about 0.3 s) stays on
 * the CPU.  With -m auto, no --device, one input that is not a batch,
 * and gf_opts.small_pixels set, the opener waits, before it touches
 * CUDA, until the reader has sized the input's first image and either
 * reached the input's end or sized its second image; an input of
 * exactly one image of at most small_pixels / the tool's cpu_weight
 * pixels is then run on the CPU lane.
 * Any other run opens the GPUs as before: a first image too large is
 * known from its header, and a stream waits only for the header of its
 * second image.  The bytes are the same either way; only the time differs.
 *
 * With a server (gpufiltd) the GPUs are open already, but an image still
 * crosses to it and back: the same rule holds, with served_small_pixels,
 * and a small run is the process's own, on its CPU.
 */
#include <stdio.h>

#include "engine_int.h"

/*
 * Whether the rule may decide the run: set before the readers start.
 * Not with a named strategy or GPU, a batch, or the GPU's JPEG engines
 * asked for (GPUFILT_GPU_DECODE: their readers wait for the GPUs).
 */
void
small_init(struct engine *en)
{
	const struct gf_opts *o = en->o;
	const struct tool *t = en->tool;
	double w = t->cpu_weight > 1 ? t->cpu_weight : 1;
	long long px = o->small_pixels;

	if (o->remote != NULL) {
		px = o->served_small_pixels;
		w *= t->served_weight > 1 ? t->served_weight : 1;
	}

	en->small.armed = px > 0 && o->strategy == GF_AUTO &&
	    o->ndevices == 0 && !o->all_devices && en->njobs == 1 &&
	    en->jobs[0].outdir == NULL && (!en->jdec.wanted || en->jdec.remote);
	en->small.budget = (double)px / w;
}

/* The first image's pixels; under en->mu. */
static double
small_weight(const struct engine *en)
{
	return (double)en->small.width * en->small.height;
}

/*
 * Whether the rule may yet give the run to the CPU: its first image is
 * small and no second one is known.  Under en->mu, while the GPUs are
 * pending; a reader then leaves that image's output buffer to the lane
 * (slot_prepare_out), as --cpu does.
 */
int
small_pending(const struct engine *en)
{
	const struct small_stage *sm = &en->small;

	return sm->armed && sm->images == 1 && small_weight(en) <= sm->budget;
}

/*
 * A reader knows the size of the next image of the input, w x h, from
 * its header, before its pixels.  Past the second, nothing: the rule
 * has what it needs, and a stream's frames take no lock here.  (The
 * reader alone writes images, so it may read it unlocked.)
 */
void
small_image(struct engine *en, int w, int h)
{
	struct small_stage *sm = &en->small;

	if (!sm->armed || sm->images >= 2)
		return;
	pthread_mutex_lock(&en->mu);
	if (sm->images++ == 0) {
		sm->width = w;
		sm->height = h;
	}
	pthread_cond_broadcast(&en->cv);
	pthread_mutex_unlock(&en->mu);
}

/*
 * A JPEG that a reader would keep as its bytes for the server, w x h
 * from its header: 1 when the rule may yet keep it on the CPU (the
 * reader reads it as pixels, and sizes it for the rule then); else 0,
 * and it is sized for the rule now.
 */
int
small_bits(struct engine *en, int w, int h)
{
	if (small_keeps(en, w, h))
		return 1;
	small_image(en, w, h);
	return 0;
}

int
small_keeps(const struct engine *en, int w, int h)
{
	return en->small.armed && (double)w * h <= en->small.budget;
}

/* The input has ended (or failed): no image more comes. */
void
small_end(struct engine *en)
{
	struct small_stage *sm = &en->small;

	if (!sm->armed)
		return;
	pthread_mutex_lock(&en->mu);
	sm->ended = 1;
	pthread_cond_broadcast(&en->cv);
	pthread_mutex_unlock(&en->mu);
}

/*
 * The opener's question, before it opens a GPU: 1 when the run is
 * small (the CPU lane runs it, and e says why, for -v's notice), 0 when
 * the GPUs open as usual.  Waits for the reader as the file's comment
 * says.
 */
int
small_decide(struct engine *en, struct gf_err *e)
{
	struct small_stage *sm = &en->small;
	int small;

	if (!sm->armed)
		return 0;
	pthread_mutex_lock(&en->mu);
	while (!sm->ended && sm->images < 2 &&
	    (sm->images == 0 || small_weight(en) <= sm->budget))
		pthread_cond_wait(&en->cv, &en->mu);
	small = small_pending(en);
	pthread_mutex_unlock(&en->mu);
	if (!small)
		return 0;
	if (en->o->remote != NULL)
		gf_fail(e, "one image of %dx%d, at most %.0f pixels: the CPU is done "
		    "before the server's round trip; --device or -m runs it on the "
		    "server's GPU", sm->width, sm->height, sm->budget);
	else
		gf_fail(e, "one image of %dx%d, at most %.0f pixels: the CPU is done "
		    "before a GPU could start; --device or -m runs it on the GPU",
		    sm->width, sm->height, sm->budget);
	return 1;
}
