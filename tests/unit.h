/*
 * unit.h - what the C unit tests share: one line per case on standard
 * output, "pass NAME" or "fail NAME: why", read by tests/run.sh, and the
 * count of failures that decides the exit status.
 */
#ifndef GF_UNIT_H
#define GF_UNIT_H

#include <stdarg.h>
#include <stdio.h>

static int nfail;

/* Prints case name as passed, or as failed with a printf-style reason. */
static void __attribute__((format(printf, 3, 4)))
result(const char *name, int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s", ok ? "pass" : "fail", name);
	if (!ok) {
		nfail++;
		printf(": ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	printf("\n");
}

#endif
