/*
 * jpeg_bits_test - img_jpeg_bits_read, which needs no GPU: over the
 * corpus of build/bench/jpeggen -c, every file that the GPU's engines
 * could decode exactly is taken, with the sizes and orientation of the
 * CPU reader, and every other (progressive, arithmetic, 4:1:1, 4:1:0) is
 * left to the CPU; so are two JPEGs in one file, trailing bytes, a
 * truncated file, an image above the pixel limit, and colour for a
 * caller that does not take it.  And img_jpeg_bits_sniff, the test
 * before it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "img.h"
#include "unit.h"

/* What jpeggen's corpus name says: 1 when the engines' class. */
static int
expect_taken(const char *path)
{
	return strstr(path, "_prog") == NULL && strstr(path, "_arith") == NULL &&
	    strstr(path, "/411_") == NULL && strstr(path, "/410_") == NULL;
}

static int
bits_of(const char *path, long long max_pixels, int colour,
    struct img_jpeg_bits *b)
{
	struct img_bits_opts o = {max_pixels, 1, colour, {NULL, NULL}, NULL};
	struct gf_err e = {0};
	FILE *f = fopen(path, "rb");
	int r;

	if (f == NULL)
		return -2;
	r = img_jpeg_bits_read(f, path, &o, b, &e);
	fclose(f);
	return r;
}

/* One corpus file: taken or not as its name says, with the reader's sizes. */
static void
check_file(const char *path)
{
	struct img_jpeg_bits b;
	struct image img = {0};
	struct gf_err e = {0};
	int r = bits_of(path, 0, 1, &b), want = expect_taken(path);
	int o, w, h;

	if (r != want) {
		result(path, 0, "img_jpeg_bits_read gave %d, not %d", r, want);
		return;
	}
	if (r == 1 && img_load(path, &img, &e) == 0) {
		o = b.orientation;
		w = o >= 5 ? b.height : b.width;
		h = o >= 5 ? b.width : b.height;
		result(path, w == img.width && h == img.height &&
		    (strstr(path, "_o0.") != NULL || o == atoi(strstr(path, "_o") + 2)),
		    "bits %dx%d orientation %d, reader %dx%d", b.width, b.height, o,
		    img.width, img.height);
		img_free(&img);
	} else {
		result(path, r != 1, "the CPU reader cannot read it: %s", e.msg);
	}
	free(b.p);
}

/* A file of the bytes of a and then of b (either may be NULL). */
static void
join(const char *out, const char *a, const char *b, const char *tail)
{
	char cmd[16384];

	snprintf(cmd, sizeof(cmd), "cat %s %s > %s; printf '%s' >> %s", a,
	    b != NULL ? b : "", out, tail, out);
	if (system(cmd) != 0)
		abort();
}

/*
 * A file with restart intervals cut short with EOI appended, or with a
 * restart marker inserted: the walk's count of markers refuses both.
 */
static void
check_restarts(const char *dir, const char *rst)
{
	struct img_jpeg_bits b;
	char path[4096], cmd[16384];

	snprintf(path, sizeof(path), "%s/cut.jpg", dir);
	snprintf(cmd, sizeof(cmd), "n=$(wc -c < %s); { head -c $((n / 2)) %s; "
	    "printf '\\377\\331'; } > %s", rst, rst, path);
	if (system(cmd) != 0)
		abort();
	result("cut short with EOI appended", bits_of(path, 0, 1, &b) == 0, "taken");
	snprintf(path, sizeof(path), "%s/rst.jpg", dir);
	snprintf(cmd, sizeof(cmd), "n=$(wc -c < %s); { head -c $((n / 2)) %s; "
	    "printf '\\377\\327'; tail -c $((n - n / 2)) %s; } > %s", rst, rst,
	    rst, path);
	if (system(cmd) != 0)
		abort();
	result("a restart marker inserted", bits_of(path, 0, 1, &b) == 0, "taken");
}

static void
check_refusals(const char *dir, const char *one)
{
	struct img_jpeg_bits b;
	char path[4096], cmd[8192];

	snprintf(path, sizeof(path), "%s/two.jpg", dir);
	join(path, one, one, "");
	result("two JPEGs in a file", bits_of(path, 0, 1, &b) == 0, "taken");
	snprintf(path, sizeof(path), "%s/tail.jpg", dir);
	join(path, one, NULL, "xyz");
	result("trailing bytes", bits_of(path, 0, 1, &b) == 0, "taken");
	snprintf(path, sizeof(path), "%s/trunc.jpg", dir);
	snprintf(cmd, sizeof(cmd), "head -c 300 %s > %s", one, path);
	if (system(cmd) != 0)
		abort();
	result("truncated", bits_of(path, 0, 1, &b) == 0, "taken");
	result("pixel limit", bits_of(one, 100, 1, &b) == 0, "taken");
	result("colour for a caller that takes gray only",
	    bits_of(one, 0, 0, &b) == 0, "taken");
	result("the same file taken", bits_of(one, 0, 1, &b) == 1, "not taken");
	free(b.p);
}

/* img_jpeg_bits_sniff of a file holding the n bytes b, read from offset 1. */
static int
sniff_bytes(const char *dir, const char *b, size_t n)
{
	char path[4096];
	FILE *f;
	int r;
	long pos;

	snprintf(path, sizeof(path), "%s/sniff", dir);
	if ((f = fopen(path, "w+")) == NULL || fwrite(b, 1, n, f) != n ||
	    fflush(f) != 0 || fseek(f, n > 0 ? 1 : 0, SEEK_SET) != 0)
		abort();
	pos = ftell(f);
	r = img_jpeg_bits_sniff(f);
	if (ftell(f) != pos)
		r = -1;
	fclose(f);
	return r;
}

/*
 * img_jpeg_bits_sniff: a JPEG's SOI and the next marker's 0xff from the
 * file's start whatever its position, which it leaves; nothing shorter.
 */
static void
check_sniff(const char *dir)
{
	result("sniff: ff d8 ff", sniff_bytes(dir, "\xff\xd8\xff", 3) == 1,
	    "not a JPEG");
	result("sniff: ff d8 ff e0", sniff_bytes(dir, "\xff\xd8\xff\xe0", 4) == 1,
	    "not a JPEG");
	result("sniff: ff d8", sniff_bytes(dir, "\xff\xd8", 2) == 0, "a JPEG");
	result("sniff: ff d8 fe", sniff_bytes(dir, "\xff\xd8\xfe", 3) == 0,
	    "a JPEG");
	result("sniff: PNG", sniff_bytes(dir, "\x89PNG\r\n\x1a\n", 8) == 0,
	    "a JPEG");
	result("sniff: empty", sniff_bytes(dir, "", 0) == 0, "a JPEG");
}

int
main(void)
{
	char dir[] = "/tmp/gf-jpeg-bits.XXXXXX", cmd[4096], line[4096], one[4096] = "";
	char rst[4096] = "";
	FILE *list;

	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(cmd, sizeof(cmd), "build/bench/jpeggen -c %s", dir);
	if ((list = popen(cmd, "r")) == NULL)
		return 1;
	while (fgets(line, sizeof(line), list) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		/* The 12-MP ones cost a second each to decode on the CPU. */
		if (strstr(line, "4001") != NULL)
			continue;
		check_file(line);
		if (strstr(line, "/420_333x257") != NULL)
			snprintf(one, sizeof(one), "%s", line);
		if (strstr(line, "/422_1001x999_q75_r1") != NULL)
			snprintf(rst, sizeof(rst), "%s", line);
	}
	if (pclose(list) != 0 || one[0] == '\0' || rst[0] == '\0') {
		result("jpeggen -c", 0, "failed");
		return 1;
	}
	check_refusals(dir, one);
	check_restarts(dir, rst);
	check_sniff(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	return nfail != 0;
}
