/*
 * framegen - writes N frames of W x H 8-bit PGM to standard output, smooth
 * content plus noise, for measuring stream throughput (bench/stream.sh).
 * Usage: framegen N W H
 */
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	int n, w, h;
	unsigned char *px;
	unsigned s = 1;

	if (argc != 4 || (n = atoi(argv[1])) < 1 || (w = atoi(argv[2])) < 1 ||
	    (h = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: framegen N W H\n");
		return 2;
	}
	px = malloc((size_t)w * h);
	if (px == NULL)
		return 1;
	for (int f = 0; f < n; f++) {
		for (size_t i = 0; i < (size_t)w * h; i++) {
			s = s * 1664525u + 1013904223u;
			px[i] = (unsigned char)((i % w + i / w + f) / 8 + (s >> 28));
		}
		printf("P5\n%d %d\n255\n", w, h);
		if (fwrite(px, 1, (size_t)w * h, stdout) != (size_t)w * h)
			return 1;
	}
	free(px);
	return fclose(stdout) != 0;
}
