/*
 * fuzz_kspec - libFuzzer target for conv2d's kernel-spec parser: the bytes,
 * NUL-terminated, go to kspec_parse as -k would give them.  Specs naming a
 * file (@path) are skipped: the fuzzer must not read the machine's files.
 * Built by `make fuzz`; with tests/fuzz/driver.c it runs files (AFL++).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kspec k;
	struct gf_err e;
	char *text;

	if (size > 65536 || (size > 0 && data[0] == '@'))
		return 0;
	text = malloc(size + 1);
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	(void)kspec_parse(text, &k, &e);
	(void)kspec_parse_divisor(text, &k.taps[0], &e);
	free(text);
	return 0;
}
