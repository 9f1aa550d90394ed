/*
 * remote_lanes - lanes that greet the server after it has gone
 * (tests/t_server.sh).  A tool's lanes connect at their first image
 * (lib/engine/engine_lane.c), which may come after the run's server has
 * ended: then no server answers at its socket, or another has taken its
 * place, and the lane must say that the run's server ended, as a lane
 * that was connected says it.  Makes the run's hello and a first lane
 * (the hello's connection), prints "ready", then for each line of
 * standard input opens one more lane and prints "lane: ok" or
 * "lane: MESSAGE".
 *
 * usage: remote_lanes SOCKET VERSION
 */
#include <stdio.h>
#include <string.h>

#include "remote.h"

int
main(int argc, char **argv)
{
	char *targv[] = {"sobel", "-t", "60", NULL};
	struct remote_hello h = {0};
	struct remote *r;
	struct remote_lane *first, *l;
	struct gf_err e = {0};
	char line[64];

	if (argc != 3) {
		fprintf(stderr, "usage: remote_lanes SOCKET VERSION\n");
		return 2;
	}
	h.version = argv[2];
	h.tool = "sobel";
	h.argc = 3;
	h.argv = targv;
	if (remote_open(&r, argv[1], &h, &e) != 1) {
		printf("hello: %s\n", e.msg);
		return 1;
	}
	if (remote_lane_open(r, &first, &e) < 0) {
		printf("first lane: %s\n", e.msg);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		memset(&e, 0, sizeof(e));
		if (remote_lane_open(r, &l, &e) == 0) {
			printf("lane: ok\n");
			remote_lane_close(l);
		} else {
			printf("lane: %s\n", e.msg);
		}
		fflush(stdout);
	}
	remote_lane_close(first);
	remote_close(r);
	return 0;
}
