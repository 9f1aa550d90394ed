/*
 * outfile_test - lib/io/outfile.h beyond the round trip that io_test covers:
 * the registry of live temporary files that a signal handler empties,
 * kept modes, and names at the file system's length limit.  Prints
 * "pass NAME" or "fail NAME: why".
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "unit.h"

/* Entries of dir whose names start with a dot, besides . and .. */
static int
hidden_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)) != NULL)
		n += de->d_name[0] == '.' && strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0;
	if (d)
		closedir(d);
	return n;
}

/*
 * Opens three times more outputs than a chunk of the registry has slots
 * (more than 64 in flight left temporaries behind: issue 31), commits
 * one, and calls outfile_remove_temps: every temporary goes, the
 * committed output stays, and the others still abort cleanly.
 */
static void
test_remove_temps(const char *dir)
{
	enum { N = 200 };
	static struct outfile o[N];
	char path[PATH_MAX];
	struct gf_err e = {0};
	struct stat st;
	int opened = 0, left;

	for (int i = 0; i < N; i++) {
		snprintf(path, sizeof(path), "%s/out%d.pgm", dir, i);
		opened += outfile_open(&o[i], path, &e) == 0;
	}
	fputs("kept\n", o[0].f);
	result("registry_open_many", opened == N && hidden_entries(dir) == N,
	    "%d of %d opened, %d temporaries: %s", opened, N,
	    hidden_entries(dir), e.msg);
	if (opened != N)
		return;
	outfile_commit(&o[0], &e);
	outfile_remove_temps();
	left = hidden_entries(dir);
	snprintf(path, sizeof(path), "%s/out0.pgm", dir);
	result("registry_remove_temps", left == 0 &&
	    stat(path, &st) == 0 && st.st_size == 5,
	    "%d temporaries left (want 0), committed output %s", left,
	    stat(path, &st) == 0 ? "kept" : "lost");
	for (int i = 1; i < N; i++)
		outfile_abort(&o[i]);
	result("registry_abort_after_remove", hidden_entries(dir) == 0,
	    "%d temporaries left", hidden_entries(dir));
}

/* A replaced file keeps its mode; a name of 255 bytes can be written. */
static void
test_mode_and_long_name(const char *dir)
{
	char path[PATH_MAX];
	struct outfile o;
	struct gf_err e = {0};
	struct stat st;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/mode.pgm", dir);
	if ((f = fopen(path, "w")) != NULL)
		fclose(f);
	chmod(path, 0604);
	ok = outfile_open(&o, path, &e) == 0 && outfile_commit(&o, &e) == 0;
	result("keep_mode", ok && stat(path, &st) == 0 && (st.st_mode & 07777) == 0604,
	    "mode %o: %s", (unsigned)(st.st_mode & 07777), e.msg);
	snprintf(path, sizeof(path), "%s/%0251d.pgm", dir, 0);
	ok = outfile_open(&o, path, &e) == 0 && outfile_commit(&o, &e) == 0;
	result("name_255_bytes", ok && stat(path, &st) == 0, "%s", e.msg);
}

int
main(void)
{
	char dir[] = "/tmp/outfile_test.XXXXXX", cmd[64];

	if (mkdtemp(dir) == NULL) {
		result("outfile_tmpdir", 0, "cannot make a temporary directory");
		return 1;
	}
	test_remove_temps(dir);
	test_mode_and_long_name(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		result("outfile_cleanup", 0, "cannot remove %s", dir);
	return nfail ? 1 : 0;
}
