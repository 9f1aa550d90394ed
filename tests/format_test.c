/*
 * format_test.c - the table of image formats (lib/io/img_format.c) against
 * itself and the code it names: every -f word and output extension
 * chooses its row; each sniffer takes its own format's first bytes and
 * no other's; what each writer writes is read back by the reader its
 * sniffer picks, at the depth its row says; and the formats of 8 bits
 * refuse a 16-bit image naming those of 16.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "img.h"
#include "img_int.h"
#include "unit.h"

/*
 * The first 18 bytes of a file of each format read, by its row's name
 * (a TGA header's length: the longest a sniffer here looks at).
 */
static const struct {
	const char *name;
	unsigned char b[18];
} heads[] = {
	{"PNM", "P5\n4 4\n255\n"},
	{"PNG", "\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR"},
	{"JPEG", "\xff\xd8\xff\xe0\0\x10JFIF"},
	{"TIFF", "II*\0\x08\0\0\0"},
	{"WebP", "RIFF\x24\0\0\0WEBPVP8L"},
	{"BMP", "BM\x46\0\0\0"},
	{"TGA", {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 4, 0, 24, 0}},
	{"GIF", "GIF89a\x04\0\x04\0"},
};
#define NHEADS (sizeof(heads) / sizeof(heads[0]))

static void
check_sniffers(void)
{
	char name[64];

	for (size_t i = 0; i < img_nformats; i++) {
		const struct img_format_row *f = &img_formats[i];
		int own = 0, others = 0;
		if (f->read == NULL)
			continue;
		for (size_t k = 0; k < NHEADS; k++) {
			int took = f->sniff != NULL && f->sniff(heads[k].b,
			    sizeof(heads[k].b));
			if (strcmp(heads[k].name, f->name) == 0)
				own += took;
			else
				others += took;
		}
		snprintf(name, sizeof(name), "format/sniff/%s", f->name);
		result(name, own == 1 && others == 0, "took its own first bytes "
		    "%d times and others' %d times", own, others);
	}
}

static void
check_names(void)
{
	char name[64], path[64], words[256];
	struct gf_err e;
	enum img_format got;

	for (size_t i = 0; i < img_nformats; i++) {
		const struct img_format_row *f = &img_formats[i];
		for (int k = 0; f->words[k] != NULL; k++) {
			snprintf(name, sizeof(name), "format/word/%s", f->words[k]);
			result(name, img_format_parse(f->words[k], &got, &e) == 0 &&
			    got == f->id && f->write != NULL, "-f %s gave %d, not %d",
			    f->words[k], (int)got, (int)f->id);
		}
		for (int k = 0; f->exts[k] != NULL; k++) {
			snprintf(path, sizeof(path), "dir/out.%s", f->exts[k]);
			snprintf(name, sizeof(name), "format/ext/%s", f->exts[k]);
			result(name, img_format_for(path, IMG_FORMAT_AUTO) == f->id &&
			    img_format_check(path, IMG_FORMAT_AUTO, &e) == 0 &&
			    f->write != NULL, "%s chose %d, not %d", path,
			    (int)img_format_for(path, IMG_FORMAT_AUTO), (int)f->id);
		}
	}
	img_format_words(words, sizeof(words));
	result("format/words", img_format_parse("gif", &got, &e) < 0 &&
	    strstr(e.msg, "choose pnm, ") != NULL &&
	    strcmp(words, "pnm webp png jpeg tiff") == 0, "%s; %s", e.msg, words);
}

/*
 * img written as format f into memory, then read back: 0 with the image
 * in back and the row its first bytes chose in *as, or -1.
 */
static int
round_trip(const struct img_format_row *f, const struct image *img,
    struct image *back, const struct img_format_row **as, struct gf_err *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len), *in;
	struct img_reader *r;
	int ret = -1;

	if (out == NULL || img_write(out, img, f->id, 0, "memory", e) < 0) {
		if (out != NULL)
			fclose(out);
		free(buf);
		return -1;
	}
	fclose(out);
	*as = img_format_sniff((unsigned char *)buf, len, 0);
	if (*as == NULL)
		*as = img_format_sniff((unsigned char *)buf, len > 0, 1);
	if ((in = fmemopen(buf, len, "rb")) != NULL &&
	    img_reader_open(&r, in, "memory", e) == 0) {
		img_reader_set_autorotate(r, 0);
		ret = img_read_next(r, back, e) > 0 ? 0 : -1;
		img_reader_close(r);
	}
	if (in != NULL)
		fclose(in);
	free(buf);
	return ret;
}

static void
check_writers(void)
{
	unsigned v[12] = {0, 100, 255, 40, 7, 255, 0, 0, 9, 200, 33, 1};
	struct image rgb = image_of(2, 2, 3, 255, v), deep = image_of(2, 2, 1,
	    65535, (unsigned[]){0, 1000, 65535, 30000}), back;
	const struct img_format_row *as;
	char name[64], list[IMG_FORMAT_LIST_MAX];
	struct gf_err e;
	int ok;

	img_formats_deep(list, sizeof(list));
	for (size_t i = 0; i < img_nformats; i++) {
		const struct img_format_row *f = &img_formats[i];
		if (f->write == NULL)
			continue;
		snprintf(name, sizeof(name), "format/write/%s-%s", f->name,
		    f->exts[0]);
		ok = round_trip(f, &rgb, &back, &as, &e) == 0;
		result(name, ok && strcmp(as->name, f->name) == 0 &&
		    back.width == 2 && back.height == 2, "%s", ok ? "read back as "
		    "another format or size" : e.msg);
		if (ok)
			img_free(&back);
		snprintf(name, sizeof(name), "format/16bit/%s-%s", f->name,
		    f->exts[0]);
		ok = round_trip(f, &deep, &back, &as, &e) == 0;
		if (f->bits == 16)
			result(name, ok && back.maxval == 65535 &&
			    strstr(list, f->name) != NULL, "%s", ok ? "read back "
			    "at another depth, or not named" : e.msg);
		else
			result(name, !ok && strstr(e.msg, list) != NULL &&
			    strstr(list, f->name) == NULL, "%s", ok ? "written" : e.msg);
		if (ok)
			img_free(&back);
	}
	img_free(&rgb);
	img_free(&deep);
}

int
main(void)
{
	check_sniffers();
	check_names();
	check_writers();
	return nfail > 0;
}
