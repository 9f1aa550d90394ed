/*
 * jpeggen - writes test JPEGs with libjpeg-turbo: colour (or gray) content
 * with edges, gradients and noise, at a chosen chroma subsampling, quality,
 * restart interval, coding (baseline, progressive, arithmetic) and EXIF
 * orientation, so that tests and benches can make the files anywhere.
 *
 *   jpeggen [-s SS] [-q Q] [-r MCUS] [-p] [-a] [-o ORIENT] [-S SEED] W H >out.jpg
 *   jpeggen -c DIR      the test corpus: every subsampling, restart
 *                       intervals 0/1/7, sizes 1x1 to 4001x3001 (odd ones
 *                       too), qualities 30-100, orientations 1-8,
 *                       progressive and arithmetic ones, into DIR
 *                       (named by what they are), and their list on stdout
 *
 * SS: 444, 422, 420, 440, 411, 410 or gray (default 420).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jpeglib.h>

struct spec {
	int w, h, q, restart, progressive, arith, orient;
	const char *ss;
	unsigned seed;
};

/* Luma sampling factors of a subsampling name (chroma are 1x1); 0 for gray. */
static int
spec_factors(const char *ss, int *h, int *v)
{
	static const struct {
		const char *name;
		int h, v;
	} t[] = {{"444", 1, 1}, {"422", 2, 1}, {"420", 2, 2}, {"440", 1, 2},
	    {"411", 4, 1}, {"410", 4, 2}, {"gray", 0, 0}};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(ss, t[i].name) == 0) {
			*h = t[i].h;
			*v = t[i].v;
			return 0;
		}
	return -1;
}

/* Row y of the picture: blocks, a diagonal edge, gradients and noise. */
static void
make_row(const struct spec *s, int y, int nc, unsigned char *row, unsigned *rng)
{
	for (int x = 0; x < s->w; x++)
		for (int c = 0; c < nc; c++) {
			unsigned v = (unsigned)(x * (c + 1) * 255 / (s->w + 1) +
			    y * (3 - c) * 255 / (s->h + 1)) / 2;
			*rng = *rng * 1664525u + 1013904223u;
			if (((x / 16) ^ (y / 16) ^ c) & 1)
				v += 60;
			if (x * s->h > y * s->w)
				v = 255 - v / 2;
			v += *rng >> 27;
			row[x * nc + c] = (unsigned char)(v > 255 ? 255 : v);
		}
}

/* An EXIF APP1 block (big-endian TIFF) with one tag: Orientation = o. */
static void
write_orientation(j_compress_ptr ci, int o)
{
	unsigned char b[] = {'E', 'x', 'i', 'f', 0, 0, 'M', 'M', 0, 42, 0, 0, 0, 8,
	    0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, (unsigned char)o, 0, 0,
	    0, 0, 0, 0};

	jpeg_write_marker(ci, JPEG_APP0 + 1, b, sizeof(b));
}

static int
write_jpeg(FILE *f, const struct spec *s)
{
	struct jpeg_compress_struct ci;
	struct jpeg_error_mgr err;
	int hf, vf, nc;
	unsigned rng = s->seed;
	unsigned char *row;

	if (spec_factors(s->ss, &hf, &vf) < 0)
		return -1;
	nc = hf == 0 ? 1 : 3;
	if ((row = malloc((size_t)s->w * nc)) == NULL)
		return -1;
	ci.err = jpeg_std_error(&err);
	jpeg_create_compress(&ci);
	jpeg_stdio_dest(&ci, f);
	ci.image_width = (JDIMENSION)s->w;
	ci.image_height = (JDIMENSION)s->h;
	ci.input_components = nc;
	ci.in_color_space = nc == 1 ? JCS_GRAYSCALE : JCS_RGB;
	jpeg_set_defaults(&ci);
	jpeg_set_quality(&ci, s->q, TRUE);
	if (nc == 3) {
		ci.comp_info[0].h_samp_factor = hf;
		ci.comp_info[0].v_samp_factor = vf;
		for (int k = 1; k < 3; k++)
			ci.comp_info[k].h_samp_factor = ci.comp_info[k].v_samp_factor = 1;
	}
	ci.restart_interval = (unsigned)s->restart;
	ci.arith_code = s->arith ? TRUE : FALSE;
	if (s->progressive)
		jpeg_simple_progression(&ci);
	jpeg_start_compress(&ci, TRUE);
	if (s->orient > 0)
		write_orientation(&ci, s->orient);
	for (int y = 0; y < s->h; y++) {
		JSAMPROW r = row;
		make_row(s, y, nc, row, &rng);
		jpeg_write_scanlines(&ci, &r, 1);
	}
	jpeg_finish_compress(&ci);
	jpeg_destroy_compress(&ci);
	free(row);
	return ferror(f) ? -1 : 0;
}

/* Writes s as DIR/<name>.jpg and prints the path. */
static int
corpus_file(const char *dir, const struct spec *s)
{
	char path[4096];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/%s_%dx%d_q%d_r%d%s%s_o%d.jpg", dir, s->ss,
	    s->w, s->h, s->q, s->restart, s->progressive ? "_prog" : "",
	    s->arith ? "_arith" : "", s->orient);
	if ((f = fopen(path, "wb")) == NULL) {
		perror(path);
		return -1;
	}
	rc = write_jpeg(f, s);
	if (fclose(f) != 0 || rc < 0) {
		fprintf(stderr, "jpeggen: cannot write %s\n", path);
		return -1;
	}
	printf("%s\n", path);
	return 0;
}

/*
 * The corpus: each subsampling with each restart interval over a cycle of
 * sizes and qualities; every orientation on an odd size; progressive and
 * arithmetic-coded ones; one 12-MP photo size with odd sides.
 */
static int
corpus(const char *dir)
{
	static const char *const ss[] = {"444", "422", "420", "440", "411", "410",
	    "gray"};
	static const int sizes[][2] = {{1, 1}, {7, 5}, {17, 33}, {64, 64},
	    {333, 257}, {1001, 999}, {16, 15}, {2, 129}};
	static const int quals[] = {30, 75, 90, 100, 50, 95};
	static const int restarts[] = {0, 1, 7};
	int k = 0, rc = 0;

	for (size_t i = 0; i < sizeof(ss) / sizeof(ss[0]); i++)
		for (size_t r = 0; r < 3; r++)
			for (int n = 0; n < 3; n++, k++) {
				struct spec s = {sizes[k % 8][0], sizes[k % 8][1], quals[k % 6],
				    restarts[r], 0, 0, 0, ss[i], (unsigned)k};
				rc |= corpus_file(dir, &s);
			}
	for (int o = 1; o <= 8; o++) {
		struct spec s = {37, 21, 85, 0, 0, 0, o, o & 1 ? "420" : "422",
		    (unsigned)o};
		rc |= corpus_file(dir, &s);
	}
	for (int i = 0; i < 3; i++) {
		struct spec p = {123, 77, 80, 0, 1, 0, 0, ss[i], 100u + i};
		struct spec a = {99, 61, 80, i, 0, 1, 0, ss[i + 1], 200u + i};
		rc |= corpus_file(dir, &p);
		rc |= corpus_file(dir, &a);
	}
	{
		struct spec big = {4001, 3001, 90, 0, 0, 0, 6, "420", 7};
		struct spec big4 = {3001, 4001, 60, 7, 0, 0, 0, "444", 8};
		rc |= corpus_file(dir, &big);
		rc |= corpus_file(dir, &big4);
	}
	return rc < 0 ? 1 : 0;
}

static int
usage(void)
{
	fprintf(stderr, "usage: jpeggen [-s 444|422|420|440|411|410|gray] [-q Q] "
	    "[-r MCUS] [-p] [-a] [-o ORIENT] [-S SEED] W H\n"
	    "       jpeggen -c DIR\n");
	return 2;
}

int
main(int argc, char **argv)
{
	struct spec s = {0, 0, 90, 0, 0, 0, 0, "420", 1};
	int c, hf, vf;

	while ((c = getopt(argc, argv, "s:q:r:pao:S:c:")) != -1)
		switch (c) {
		case 's': s.ss = optarg; break;
		case 'q': s.q = atoi(optarg); break;
		case 'r': s.restart = atoi(optarg); break;
		case 'p': s.progressive = 1; break;
		case 'a': s.arith = 1; break;
		case 'o': s.orient = atoi(optarg); break;
		case 'S': s.seed = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'c': return corpus(optarg);
		default: return usage();
		}
	if (argc - optind != 2 || (s.w = atoi(argv[optind])) < 1 ||
	    (s.h = atoi(argv[optind + 1])) < 1 || s.q < 1 || s.q > 100 ||
	    s.restart < 0 || s.orient < 0 || s.orient > 8 ||
	    spec_factors(s.ss, &hf, &vf) < 0)
		return usage();
	if (isatty(STDOUT_FILENO)) {
		fprintf(stderr, "jpeggen: standard output is a terminal\n");
		return 2;
	}
	if (write_jpeg(stdout, &s) < 0)
		return 1;
	return fclose(stdout) != 0;
}
