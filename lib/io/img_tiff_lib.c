/*
 * img_tiff_lib.c - libtiff loaded at the first TIFF (img_tiff_lib.h).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define TIFF_LIB_TABLE
#include "img_tiff_lib.h"

#ifndef GF_TIFF_SONAME
#define GF_TIFF_SONAME "libtiff.so.6"
#endif

struct tiff_lib tiff_lib;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failed[256];        /* why it cannot be loaded; "" loaded */

static void
tiff_lib_open(void)
{
	void *h = dlopen(GF_TIFF_SONAME, RTLD_NOW | RTLD_LOCAL);
	const char *name = NULL;

	if (h == NULL) {
		snprintf(failed, sizeof(failed), "%s cannot be loaded: %s",
		    GF_TIFF_SONAME, dlerror());
		return;
	}
#define TIFF_LIB_SYM(n) \
	if (name == NULL && (*(void **)&tiff_lib.n = dlsym(h, "TIFF" #n)) == NULL) \
		name = "TIFF" #n;
	TIFF_LIB_FUNCS(TIFF_LIB_SYM)
#undef TIFF_LIB_SYM
	if (name != NULL)
		snprintf(failed, sizeof(failed), "%s has no %s: it is older than "
		    "the one this build was made for", GF_TIFF_SONAME, name);
	/* Loaded for the process's life: the table points into it. */
}

int
tiff_lib_load(char *why, size_t n)
{
	pthread_once(&once, tiff_lib_open);
	if (failed[0] == '\0')
		return 0;
	snprintf(why, n, "%s", failed);
	return -1;
}
