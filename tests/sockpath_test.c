/*
 * sockpath_test - lib/serve/sockpath.h, the server's socket: the path
 * from the three settings, the directory checks (a wide mode, a link,
 * someone else's directory), stale sockets removed and other files
 * never, connect to nothing, listen + connect + the peer's user, paths
 * too long, servers starting at once, and systemd's activation on a
 * real descriptor 3.  Prints "pass NAME", "fail NAME: why" or "skip
 * NAME: why".
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sockpath.h"
#include "unit.h"

static char top[64];            /* the test's own directory under /tmp */

/* s holds every one of the NULL-ended words. */
static int
has_all(const char *s, ...)
{
	va_list ap;
	const char *w;
	int ok = 1;

	va_start(ap, s);
	while ((w = va_arg(ap, const char *)) != NULL)
		ok &= strstr(s, w) != NULL;
	va_end(ap);
	return ok;
}

/* The three default paths, and an explicit one, absolute or relative. */
static void
test_resolve_paths(void)
{
	char path[256], want[512], cwd[256];
	struct gf_err e = {0};
	int r;

	r = sockpath_resolve(path, sizeof(path), "/x/y.sock", "/run/user/9", "/t", 0, &e);
	result("resolve_explicit", r == 0 && strcmp(path, "/x/y.sock") == 0,
	    "%d %s %s", r, path, e.msg);
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		abort();
	snprintf(want, sizeof(want), "%s/rel.sock", strcmp(cwd, "/") ? cwd : "");
	r = sockpath_resolve(path, sizeof(path), "rel.sock", NULL, NULL, 0, &e);
	result("resolve_explicit_relative", r == 0 && strcmp(path, want) == 0,
	    "%d %s, want %s: %s", r, path, want, e.msg);
	snprintf(want, sizeof(want), "%s/xdg/gpufilt/server", top);
	snprintf(cwd, sizeof(cwd), "%s/xdg/", top);
	r = sockpath_resolve(path, sizeof(path), "", cwd, "/nowhere", 0, &e);
	result("resolve_xdg", r == 0 && strcmp(path, want) == 0,
	    "%d %s, want %s: %s", r, path, want, e.msg);
	snprintf(want, sizeof(want), "%s/gpufilt-%u/server", top, (unsigned)getuid());
	r = sockpath_resolve(path, sizeof(path), NULL, "relative/xdg", top, 0, &e);
	result("resolve_tmpdir", r == 0 && strcmp(path, want) == 0,
	    "%d %s, want %s: %s", r, path, want, e.msg);
	snprintf(want, sizeof(want), "/tmp/gpufilt-%u/server", (unsigned)getuid());
	r = sockpath_resolve(path, sizeof(path), NULL, NULL, "", 0, &e);
	result("resolve_tmp", r == 0 && strcmp(path, want) == 0,
	    "%d %s, want %s: %s", r, path, want, e.msg);
}

/* make_dir makes the directory 0700 (whatever the umask); missing is no error without it. */
static void
test_resolve_make(void)
{
	char path[256], dir[256];
	struct gf_err e = {0};
	struct stat st;
	mode_t mask = umask(0);
	int r;

	r = sockpath_resolve(path, sizeof(path), NULL, NULL, top, 0, &e);
	snprintf(dir, sizeof(dir), "%s/gpufilt-%u", top, (unsigned)getuid());
	result("resolve_missing_no_make", r == 0 && lstat(dir, &st) < 0,
	    "%d: %s", r, e.msg);
	r = sockpath_resolve(path, sizeof(path), NULL, NULL, top, 1, &e);
	result("resolve_make_0700", r == 0 && lstat(dir, &st) == 0 &&
	    S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700,
	    "%d, mode %o: %s", r, (unsigned)st.st_mode, e.msg);
	r = sockpath_resolve(path, sizeof(path), NULL, NULL, top, 1, &e);
	result("resolve_make_again", r == 0, "%d: %s", r, e.msg);
	umask(mask);
}

/* Directory dir, made as asked, is refused with a message holding words. */
static void
refused_dir(const char *name, const char *base, const char *dir, const char *w1,
    const char *w2)
{
	char path[256];
	struct gf_err e = {0};
	int r0 = sockpath_resolve(path, sizeof(path), NULL, NULL, base, 0, &e);
	int ok0 = r0 < 0 && has_all(e.msg, dir, w1, w2, (char *)NULL);
	char msg0[sizeof(e.msg)];

	memcpy(msg0, e.msg, sizeof(msg0));
	e.msg[0] = '\0';
	int r1 = sockpath_resolve(path, sizeof(path), NULL, NULL, base, 1, &e);

	result(name, ok0 && r1 < 0 && has_all(e.msg, dir, w1, w2, (char *)NULL),
	    "%d %d: %s / %s", r0, r1, msg0, e.msg);
}

/* A mode of 0755 or 0710, a symbolic link, a file: refused. */
static void
test_resolve_refused(void)
{
	char base[128], dir[256], real[256];

	snprintf(base, sizeof(base), "%s/wide", top);
	snprintf(dir, sizeof(dir), "%s/gpufilt-%u", base, (unsigned)getuid());
	mkdir(base, 0700);
	mkdir(dir, 0700);
	chmod(dir, 0755);
	refused_dir("dir_mode_0755_refused", base, dir, "0755", "chmod 700");
	chmod(dir, 0710);
	refused_dir("dir_mode_0710_refused", base, dir, "0710", "chmod 700");

	snprintf(base, sizeof(base), "%s/link", top);
	snprintf(dir, sizeof(dir), "%s/gpufilt-%u", base, (unsigned)getuid());
	snprintf(real, sizeof(real), "%s/real", base);
	mkdir(base, 0700);
	mkdir(real, 0700);
	if (symlink(real, dir) < 0)
		abort();
	refused_dir("dir_symlink_refused", base, dir, "symbolic link", "remove");

	snprintf(base, sizeof(base), "%s/file", top);
	snprintf(dir, sizeof(dir), "%s/gpufilt-%u", base, (unsigned)getuid());
	mkdir(base, 0700);
	close(open(dir, O_WRONLY | O_CREAT, 0600));
	refused_dir("dir_regular_file_refused", base, dir, "a regular file, not a directory", "remove");
}

/* Someone else's directory (as root: chowned to nobody): refused. */
static void
test_resolve_other_owner(void)
{
	char base[128], dir[256];
	struct passwd *pw;
	uid_t nobody;

	if (getuid() != 0) {
		printf("skip dir_other_owner_refused: not root, cannot chown\n");
		return;
	}
	pw = getpwnam("nobody");
	nobody = pw ? pw->pw_uid : 65534;
	snprintf(base, sizeof(base), "%s/other", top);
	snprintf(dir, sizeof(dir), "%s/gpufilt-%u", base, (unsigned)getuid());
	mkdir(base, 0700);
	mkdir(dir, 0700);
	if (chown(dir, nobody, (gid_t)-1) < 0) {
		printf("skip dir_other_owner_refused: chown: %s\n", strerror(errno));
		return;
	}
	char uid_text[32];

	snprintf(uid_text, sizeof(uid_text), "uid %u", (unsigned)nobody);
	refused_dir("dir_other_owner_refused", base, dir, uid_text, "not to this user");
}

/* Paths over sun_path's 107 bytes: refused with the length and the limit. */
static void
test_too_long(void)
{
	char path[512], longdir[256], fifty[51];
	struct gf_err e = {0};
	int fd, r;

	memset(fifty, 'a', 50);
	fifty[50] = '\0';
	snprintf(longdir, sizeof(longdir), "/%s/%s", fifty, fifty);
	r = sockpath_resolve(path, sizeof(path), NULL, longdir, NULL, 0, &e);
	result("too_long_default", r < 0 && has_all(e.msg, "117 bytes", "107",
	    (char *)NULL), "%d: %s", r, e.msg);
	snprintf(longdir, sizeof(longdir), "/%s/%s/sock", fifty, fifty);
	r = sockpath_resolve(path, sizeof(path), longdir, NULL, NULL, 0, &e);
	result("explicit_107_taken", r == 0 && strcmp(path, longdir) == 0,
	    "%d: %s", r, e.msg);
	snprintf(longdir, sizeof(longdir), "/%s/%s/socks", fifty, fifty);
	r = sockpath_resolve(path, sizeof(path), longdir, NULL, NULL, 0, &e);
	result("too_long_explicit", r < 0 && has_all(e.msg, "108 bytes", "107",
	    (char *)NULL), "%d: %s", r, e.msg);
	r = sockpath_connect(longdir, &fd, &e);
	result("too_long_connect", r < 0 && has_all(e.msg, "108 bytes", (char *)NULL),
	    "%d: %s", r, e.msg);
	r = sockpath_listen(longdir, &fd, &e);
	result("too_long_listen", r < 0 && has_all(e.msg, "108 bytes", (char *)NULL),
	    "%d: %s", r, e.msg);
}

/* A socket file at path that nobody listens on (bound, then closed). */
static int
make_stale(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int s = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -1;
	close(s);
	return 0;
}

/* Nothing at the path, and a stale socket: 1, "no server", no message. */
static void
test_connect_nothing(const char *dir)
{
	char path[256];
	struct gf_err e = {0};
	int fd = 7, r;

	snprintf(path, sizeof(path), "%s/none", dir);
	r = sockpath_connect(path, &fd, &e);
	result("connect_nothing", r == 1 && fd == -1 && e.msg[0] == '\0',
	    "%d fd %d: %s", r, fd, e.msg);
	snprintf(path, sizeof(path), "%s/stale", dir);
	if (make_stale(path) < 0)
		abort();
	r = sockpath_connect(path, &fd, &e);
	result("connect_stale", r == 1 && fd == -1 && e.msg[0] == '\0',
	    "%d fd %d: %s", r, fd, e.msg);
}

/*
 * Listens where a stale socket was (removed), connects, accepts: the
 * socket file is 0600, each end's peer is this user, the umask is kept;
 * a second server is refused while the first answers; unlisten removes
 * the file.
 */
static void
test_listen_connect(const char *dir)
{
	char path[256];
	struct gf_err e = {0};
	struct stat st;
	mode_t mask = umask(022), after;
	int lfd = -1, cfd = -1, afd, fd2 = -1, r;

	snprintf(path, sizeof(path), "%s/server", dir);
	if (make_stale(path) < 0)
		abort();
	r = sockpath_listen(path, &lfd, &e);
	after = umask(mask);
	if (stat(path, &st) < 0)
		st.st_mode = 0;
	result("listen_over_stale", r == 0 && lfd >= 0 && S_ISSOCK(st.st_mode) &&
	    (st.st_mode & 0777) == 0600 && after == 022,
	    "%d, mode %o, umask %o: %s", r, (unsigned)st.st_mode, (unsigned)after, e.msg);
	if (r != 0)
		return;
	r = sockpath_connect(path, &cfd, &e);
	afd = accept(lfd, NULL, NULL);
	result("listen_connect", r == 0 && cfd >= 0 && afd >= 0 &&
	    (fcntl(cfd, F_GETFD) & FD_CLOEXEC), "%d %d %d: %s", r, cfd, afd, e.msg);
	result("peer_ok_both_ends", sockpath_peer_ok(afd, &e) == 0 &&
	    sockpath_peer_ok(cfd, &e) == 0, "%s", e.msg);
	r = sockpath_listen(path, &fd2, &e);
	result("listen_refused_while_answering", r < 0 && fd2 == -1 &&
	    has_all(e.msg, "already answers", path, (char *)NULL), "%d: %s", r, e.msg);
	close(afd);
	close(cfd);
	sockpath_unlisten(path, lfd);
	r = sockpath_connect(path, &cfd, &e);
	result("unlisten_removes", r == 1 && lstat(path, &st) < 0, "%d", r);
}

/* A regular file, and a FIFO, where the socket would be: refused, left whole. */
static void
test_listen_not_socket(const char *dir)
{
	char path[256], buf[16] = "";
	struct gf_err e = {0};
	int fd = -1, r, f;

	snprintf(path, sizeof(path), "%s/regular", dir);
	f = open(path, O_WRONLY | O_CREAT, 0600);
	if (f < 0 || write(f, "keep me", 7) != 7)
		abort();
	close(f);
	r = sockpath_listen(path, &fd, &e);
	f = open(path, O_RDONLY);
	if (f >= 0 && read(f, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(f);
	result("listen_regular_file_kept", r < 0 && fd == -1 &&
	    strcmp(buf, "keep me") == 0 && has_all(e.msg, path, "a regular file, not a socket",
	    (char *)NULL), "%d, file holds '%s': %s", r, buf, e.msg);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	if (mkfifo(path, 0600) < 0)
		abort();
	struct stat st;

	r = sockpath_listen(path, &fd, &e);
	result("listen_fifo_kept", r < 0 && lstat(path, &st) == 0 &&
	    S_ISFIFO(st.st_mode), "%d: %s", r, e.msg);
}

/*
 * A stream socket listening at the path (another program's): connect
 * and listen refuse it with a message, neither removes it.
 */
static void
test_other_kind(const char *dir)
{
	char path[256];

	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct gf_err e = {0};
	int s = socket(AF_UNIX, SOCK_STREAM, 0), fd = -1, r1, r2;
	struct stat st;

	snprintf(path, sizeof(path), "%s/stream", dir);
	if (strlen(path) >= sizeof(sa.sun_path))
		abort();
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s, 1) < 0)
		abort();
	r1 = sockpath_connect(sa.sun_path, &fd, &e);
	result("connect_other_kind", r1 < 0 && has_all(e.msg, "another kind",
	    (char *)NULL), "%d: %s", r1, e.msg);
	r2 = sockpath_listen(sa.sun_path, &fd, &e);
	result("listen_other_kind_kept", r2 < 0 && lstat(sa.sun_path, &st) == 0,
	    "%d: %s", r2, e.msg);
	close(s);
}

/*
 * Eight servers start at once on one path: exactly one listens, the
 * others are refused (without the lock, two could each remove the
 * other's socket as stale).
 */
static void
test_listen_race(const char *dir)
{
	enum { N = 8 };
	char path[256];
	int go[2], done[2], listened = 0, st;
	pid_t pid[N];

	snprintf(path, sizeof(path), "%s/race", dir);
	if (pipe(go) < 0 || pipe(done) < 0)
		abort();
	fflush(stdout);
	for (int i = 0; i < N; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			struct gf_err e = {0};
			char c;
			int fd, r;

			close(go[1]);
			close(done[1]);
			if (read(go[0], &c, 1) < 0)
				_exit(3);
			r = sockpath_listen(path, &fd, &e);
			if (r == 0 && read(done[0], &c, 1) < 0)  /* hold it till all tried */
				_exit(3);
			_exit(r == 0 ? 0 : strstr(e.msg, "already answers") ? 1 : 2);
		}
	}
	close(go[0]);
	close(go[1]);
	/* The refused ones exit; the one that listens waits for done (10 s at most). */
	int refused = 0, other = 0, exited = 0;

	for (int t = 0; t < 1000 && exited < N - 1; t++) {
		pid_t w = waitpid(-1, &st, WNOHANG);

		if (w <= 0) {
			usleep(10000);
			continue;
		}
		exited++;
		refused += WIFEXITED(st) && WEXITSTATUS(st) == 1;
		other += !(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	}
	close(done[1]);
	close(done[0]);
	while (wait(&st) > 0)
		listened += WIFEXITED(st) && WEXITSTATUS(st) == 0;
	result("listen_race_one_wins", listened == 1 && refused == N - 1 && other == 0,
	    "%d listened, %d refused, %d otherwise", listened, refused, other);
}

/* Descriptor 3 becomes s (closed after); LISTEN_* set for pid, fds. */
static void
fake_systemd(int s, long pid, const char *fds)
{
	char text[32];

	if (s >= 0 && s != 3) {
		if (dup2(s, 3) < 0)
			abort();
		close(s);
	}
	snprintf(text, sizeof(text), "%ld", pid);
	setenv("LISTEN_PID", text, 1);
	if (fds)
		setenv("LISTEN_FDS", fds, 1);
	else
		unsetenv("LISTEN_FDS");
	setenv("LISTEN_FDNAMES", "gpufiltd.socket", 1);
}

/* A listening socket of type type bound at path, or -1. */
static int
listener(const char *path, int type)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int s = socket(AF_UNIX, type, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s, 4) < 0)
		return -1;
	return s;
}

static int
env_cleared(void)
{
	return !getenv("LISTEN_PID") && !getenv("LISTEN_FDS") && !getenv("LISTEN_FDNAMES");
}

/* systemd's activation with a real descriptor 3 and fake variables: taken, or not ours. */
static void
test_systemd(const char *dir)
{
	char path[256];
	struct gf_err e = {0};
	int fd = -1, r;

	unsetenv("LISTEN_PID");
	r = sockpath_systemd(&fd, &e);
	result("systemd_not_activated", r == 0 && fd == -1, "%d", r);
	fake_systemd(-1, (long)getpid() + 1, "1");
	r = sockpath_systemd(&fd, &e);
	result("systemd_other_pid", r == 0 && fd == -1 && getenv("LISTEN_PID"),
	    "%d", r);

	snprintf(path, sizeof(path), "%s/sd", dir);
	fake_systemd(listener(path, SOCK_SEQPACKET), getpid(), "1");
	r = sockpath_systemd(&fd, &e);
	result("systemd_listening_fd3", r == 1 && fd == 3 && env_cleared() &&
	    (fcntl(3, F_GETFD) & FD_CLOEXEC), "%d fd %d: %s", r, fd, e.msg);
	int c = -1;

	result("systemd_fd3_answers", sockpath_connect(path, &c, &e) == 0 &&
	    accept(3, NULL, NULL) >= 0, "%s", e.msg);
	close(c);
}

/* LISTEN_FDS other than 1, and a descriptor 3 that is not a listening packet socket. */
static void
test_systemd_refused(const char *dir)
{
	char path[256];
	struct gf_err e = {0};
	int fd = -1, pair[2], r;

	snprintf(path, sizeof(path), "%s/sd", dir);
	fake_systemd(-1, getpid(), "2");
	r = sockpath_systemd(&fd, &e);
	result("systemd_two_fds_refused", r < 0 && env_cleared() &&
	    has_all(e.msg, "LISTEN_FDS=2", (char *)NULL), "%d: %s", r, e.msg);
	fake_systemd(-1, getpid(), NULL);
	r = sockpath_systemd(&fd, &e);
	result("systemd_no_fds_refused", r < 0, "%d: %s", r, e.msg);

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair) < 0)
		abort();
	fake_systemd(pair[0], getpid(), "1");
	r = sockpath_systemd(&fd, &e);
	result("systemd_socketpair_refused", r < 0 && has_all(e.msg,
	    "does not listen", (char *)NULL), "%d: %s", r, e.msg);
	close(pair[1]);

	fake_systemd(listener(path, SOCK_STREAM), getpid(), "1");
	r = sockpath_systemd(&fd, &e);
	result("systemd_stream_refused", r < 0 && has_all(e.msg,
	    "not of sequential packets", (char *)NULL), "%d: %s", r, e.msg);

	fake_systemd(open("/dev/null", O_RDONLY), getpid(), "1");
	r = sockpath_systemd(&fd, &e);
	result("systemd_not_socket_refused", r < 0 && has_all(e.msg,
	    "not a socket", (char *)NULL), "%d: %s", r, e.msg);
	close(3);
}

int
main(void)
{
	char dir[128];

	snprintf(top, sizeof(top), "/tmp/sockpath.XXXXXX");
	if (mkdtemp(top) == NULL) {
		printf("fail mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s/s", top);
	mkdir(dir, 0700);
	test_resolve_paths();
	test_resolve_make();
	test_resolve_refused();
	test_resolve_other_owner();
	test_too_long();
	test_connect_nothing(dir);
	test_listen_connect(dir);
	test_listen_not_socket(dir);
	test_other_kind(dir);
	test_listen_race(dir);
	test_systemd(dir);
	test_systemd_refused(dir);
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s 2>/dev/null; rm -rf %s", top, top);
	if (system(cmd) != 0)
		printf("fail cleanup: cannot remove %s\n", top);
	return nfail != 0;
}
