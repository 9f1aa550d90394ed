/*
 * pnmcopy - the baseline of bench/stream.sh: reads a PNM stream and
 * writes it back, image by image, with libnetpbm alone (pnm_readpamrow and
 * pnm_writepamrow, as a netpbm filter does), or with -r through gpufilt's
 * own reader and writer (libnetpbm headers, raw rasters).
 */
#include <pam.h>
#include <stdio.h>
#include <string.h>

#include "img.h"

static int
copy_netpbm(void)
{
	struct pam in, out;
	tuple *row;
	int eof = 0;

	while (!eof) {
		pnm_readpaminit(stdin, &in, PAM_STRUCT_SIZE(tuple_type));
		out = in;
		out.file = stdout;
		pnm_writepaminit(&out);
		row = pnm_allocpamrow(&in);
		for (int y = 0; y < in.height; y++) {
			pnm_readpamrow(&in, row);
			pnm_writepamrow(&out, row);
		}
		pnm_freepamrow(row);
		pnm_nextimage(stdin, &eof);
	}
	return 0;
}

static int
copy_gpufilt(void)
{
	struct img_reader *r;
	struct image img;
	struct gf_err e;
	int got;

	if (img_reader_open(&r, stdin, "standard input", &e) < 0)
		return 1;
	while ((got = img_read_next(r, &img, &e)) > 0) {
		got = img_write(stdout, &img, IMG_FORMAT_PNM, 0, "standard output", &e);
		img_free(&img);
		if (got < 0)
			break;
	}
	img_reader_close(r);
	if (got < 0)
		fprintf(stderr, "pnmcopy: %s\n", e.msg);
	return got < 0;
}

int
main(int argc, char **argv)
{
	pm_init(argv[0], 0);
	if (argc > 1 && strcmp(argv[1], "-r") == 0)
		return copy_gpufilt();
	return copy_netpbm();
}
