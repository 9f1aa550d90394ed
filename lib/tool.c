/*
 * tool.c - the filter loop shared by every tool: open the input, read each
 * image of the stream, filter it on the GPU or the CPU, write it, and
 * commit the output only when all went well.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "outfile.h"
#include "tool.h"

int
tool_open_engine(struct gpu *g, const struct gf_opts *o, int *fallback,
    struct gf_err *e)
{
	*fallback = 0;
	if (o->strategy == GF_CPU)
		return 0;
	if (gpu_open(g, o->device, e) == 0)
		return 1;
	if (o->strategy == GF_AUTO && o->device < 0) {
		*fallback = 1;
		return 0;
	}
	if (o->strategy == GF_AUTO)
		return -1;
	size_t n = strlen(e->msg);
	snprintf(e->msg + n, sizeof(e->msg) - n, "; strategy '%s' needs a GPU "
	    "(use --cpu for the CPU reference)", gf_strategies[o->strategy].name);
	return -1;
}

/* Opens the input: a path, or standard input for NULL or "-". */
static FILE *
open_input(const char *input, const char **name, struct gf_err *e)
{
	struct stat st;
	FILE *f;

	if (input == NULL || strcmp(input, "-") == 0) {
		*name = "standard input";
		return stdin;
	}
	*name = input;
	f = fopen(input, "rb");
	if (f == NULL) {
		gf_fail(e, "cannot open %s: %s", input, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		gf_fail(e, "cannot read %s: it is a directory", input);
		return NULL;
	}
	return f;
}

static int
batch_path(const char *dir, const char *input, const char *ext, char *buf,
    size_t size, struct gf_err *e)
{
	const char *base = strrchr(input, '/'), *dot;
	int blen;

	base = base == NULL ? input : base + 1;
	dot = strrchr(base, '.');
	blen = dot == NULL || dot == base ? (int)strlen(base) : (int)(dot - base);
	if (snprintf(buf, size, "%s/%.*s.%s", dir, blen, base, ext) >= (int)size)
		return gf_fail(e, "output path for %s in %s is too long", input, dir);
	return 0;
}

/* Where the output goes, decided once the first filtered image is known. */
struct sink {
	struct outfile file;
	FILE *f;                /* stdout or file.f */
	const char *name;
	enum img_format fmt;
	char path[PATH_MAX];
	int nwritten;
};

static int
sink_open(struct sink *s, const struct tool *t, const char *input,
    const char *output, const char *outdir, const struct image *first,
    struct gf_err *e)
{
	if (outdir != NULL) {
		s->fmt = t->format == IMG_FORMAT_AUTO ? IMG_FORMAT_PNM : t->format;
		if (input == NULL || strcmp(input, "-") == 0)
			return gf_fail(e, "-o DIR needs named input files, not "
			    "standard input");
		if (batch_path(outdir, input, img_format_ext(s->fmt, first),
		    s->path, sizeof(s->path), e) < 0)
			return -1;
		output = s->path;
	}
	s->fmt = img_format_for(output, t->format);
	if (output == NULL || strcmp(output, "-") == 0) {
		s->f = stdout;
		s->name = "standard output";
		return 0;
	}
	if (outfile_open(&s->file, output, e) < 0)
		return -1;
	s->f = s->file.f;
	s->name = s->file.path;
	return 0;
}

static int
sink_write(struct sink *s, const struct image *img, struct gf_err *e)
{
	if (s->fmt == IMG_FORMAT_PNG && s->nwritten > 0)
		return gf_fail(e, "cannot write image %d to %s: a PNG file holds "
		    "one image; write PNM for a stream", s->nwritten + 1, s->name);
	if (img_write(s->f, img, s->fmt, s->name, e) < 0)
		return -1;
	if (s->f == stdout && fflush(stdout) != 0)
		return gf_fail(e, "cannot write standard output: %s", strerror(errno));
	s->nwritten++;
	return 0;
}

/* One image: filter, open the sink on the first, write, report. */
static int
run_one(const struct tool *t, struct sink *s, const char *in_name,
    const char *input, const char *output, const char *outdir,
    struct image *img, struct gf_times *tm, struct gf_err *e)
{
	struct image out = {0};
	double t0;
	int ret = -1;

	if (t->filter(t->ctx, t->gpu, img, &out, tm, e) < 0)
		return -1;
	if (s->f == NULL && sink_open(s, t, input, output, outdir, &out, e) < 0)
		goto done;
	t0 = gf_now_ms();
	if (sink_write(s, &out, e) < 0)
		goto done;
	tm->write = gf_now_ms() - t0;
	if (t->report != NULL)
		t->report(in_name, s->nwritten, &out, tm, t->report_arg);
	ret = 0;
done:
	img_free(&out);
	return ret;
}

int
tool_run(const struct tool *t, const char *input, const char *output,
    const char *outdir, struct gf_err *e)
{
	struct sink s;
	struct img_reader *r;
	struct image img;
	const char *name;
	FILE *f = open_input(input, &name, e);
	int ret = -1, got;

	memset(&s, 0, sizeof(s));
	if (f == NULL)
		return -1;
	if (img_reader_open(&r, f, name, e) < 0)
		goto close;
	img_reader_set_max_pixels(r, t->max_pixels);
	for (;;) {
		struct gf_times tm = {0};
		double t0 = gf_now_ms();
		got = img_read_next(r, &img, e);
		tm.read = gf_now_ms() - t0;
		if (got <= 0)
			break;
		got = run_one(t, &s, name, input, output, outdir, &img, &tm, e);
		img_free(&img);
		if (got < 0)
			break;
	}
	if (got == 0)
		ret = s.f == NULL || s.f == stdout ? 0 : outfile_commit(&s.file, e);
	else if (s.f != NULL && s.f != stdout)
		outfile_abort(&s.file);
	img_reader_close(r);
close:
	if (f != stdin)
		fclose(f);
	return ret;
}
