/*
 * driver.c - a main for the fuzz targets without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on each file named, or on standard input
 * when none is.  For AFL++ (afl-clang-fast ... driver.c fuzz_img.c, then
 * afl-fuzz -i seeds -o out -- ./fuzz_img_afl) and for replaying a crash
 * under a debugger; see tests/fuzz/README.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads all of f into a malloc'd buffer. */
static uint8_t *
slurp(FILE *f, size_t *len)
{
	size_t cap = 1 << 16, n = 0, got;
	uint8_t *b = malloc(cap), *nb;

	while (b != NULL && (got = fread(b + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			nb = realloc(b, cap *= 2);
			if (nb == NULL)
				free(b);
			b = nb;
		}
	}
	*len = n;
	return b;
}

int
main(int argc, char **argv)
{
	for (int i = argc > 1 ? 1 : 0; i < argc; i++) {
		FILE *f = i == 0 ? stdin : fopen(argv[i], "rb");
		size_t len;
		uint8_t *b;

		if (f == NULL) {
			perror(argv[i]);
			return 1;
		}
		b = slurp(f, &len);
		if (f != stdin)
			fclose(f);
		if (b == NULL)
			return 1;
		LLVMFuzzerTestOneInput(b, len);
		free(b);
	}
	return 0;
}
