/*
 * sockpath.c - the server's socket: its path and directory checks,
 * listening and connecting, the peer's user, systemd's activation.  A
 * room of its own (lib/serve/) because the server and every tool that
 * is its client share it, and nothing of the engine is needed for it.
 */
#define _GNU_SOURCE             /* struct ucred, SO_PEERCRED */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "sockpath.h"

/* Sockets systemd passes start at descriptor 3 (sd_listen_fds(3)). */
#define SOCKPATH_SYSTEMD_FD 3
#define SOCKPATH_BACKLOG 128
/* How long sockpath_listen waits for another server's turn at the lock. */
#define SOCKPATH_LOCK_TRIES 500         /* of 10 ms: 5 s */

/* Fills sa with path; -1 with e when it does not fit sun_path. */
static int
sockpath_addr(const char *path, struct sockaddr_un *sa, struct gf_err *e)
{
	size_t len = strlen(path);

	if (len > SOCKPATH_MAX || len >= sizeof(sa->sun_path))
		return gf_fail(e, "the socket path %s is %zu bytes long; a Unix "
		    "socket's path holds at most %d: name a shorter one with "
		    "GPUFILT_SOCKET", path, len, SOCKPATH_MAX);
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, path, len + 1);
	return 0;
}

/* What kind of file mode is, for a message: "a regular file". */
static const char *
sockpath_kind(mode_t mode)
{
	return S_ISREG(mode) ? "a regular file" : S_ISDIR(mode) ? "a directory" :
	    S_ISLNK(mode) ? "a symbolic link" : S_ISFIFO(mode) ? "a FIFO" :
	    S_ISSOCK(mode) ? "a socket" : "a device";
}

/* The name of user uid into buf ("no name" when the system has none). */
static const char *
sockpath_user_name(uid_t uid, char *buf, size_t n)
{
	char pwbuf[1024];
	struct passwd pw, *found = NULL;

	if (getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &found) != 0 || found == NULL)
		snprintf(buf, n, "no name");
	else
		snprintf(buf, n, "%s", found->pw_name);
	return buf;
}

/*
 * The checks of the socket's directory dir: a directory, not a
 * symbolic link, owned by this process's user, with no group or other
 * permission bit.  Missing is 1 (no error); 0 passes; -1 refuses with e.
 */
static int
sockpath_check_dir(const char *dir, struct gf_err *e)
{
	struct stat st;
	char name[64];

	if (lstat(dir, &st) < 0) {
		if (errno == ENOENT)
			return 1;
		return gf_fail(e, "cannot check the server's directory %s: %s",
		    dir, strerror(errno));
	}
	if (S_ISLNK(st.st_mode))
		return gf_fail(e, "the server's directory %s is a symbolic link: "
		    "it must be a directory of its own; remove the link (the "
		    "directory is made again when a server starts)", dir);
	if (!S_ISDIR(st.st_mode))
		return gf_fail(e, "the server's directory %s is %s, not a "
		    "directory: remove it, or name another socket with "
		    "GPUFILT_SOCKET", dir, sockpath_kind(st.st_mode));
	if (st.st_uid != getuid())
		return gf_fail(e, "the server's directory %s belongs to uid %u "
		    "(%s), not to this user (uid %u): a socket there is not "
		    "yours to trust; remove it, or name another socket with "
		    "GPUFILT_SOCKET", dir, (unsigned)st.st_uid,
		    sockpath_user_name(st.st_uid, name, sizeof(name)),
		    (unsigned)getuid());
	if (st.st_mode & (S_IRWXG | S_IRWXO))
		return gf_fail(e, "the server's directory %s has mode %04o: its group "
		    "or others may enter it; make it yours alone (chmod 700 %s)", dir,
		    (unsigned)(st.st_mode & 07777), dir);
	return 0;
}

/*
 * An explicit path (GPUFILT_SOCKET, -S) into path, made absolute from
 * the working directory.  Its directory is not checked: the user chose
 * the place (as tmux's -S; it may be a shared project directory), and
 * what makes the socket safe does not rest on it: the socket file is
 * 0600, and each end refuses a peer of another user (sockpath_peer_ok),
 * so a socket someone else put there is refused, never used.
 */
static int
sockpath_explicit(char *path, size_t n, const char *given, struct gf_err *e)
{
	char cwd[PATH_MAX];
	int len;

	if (given[0] == '/')
		len = snprintf(path, n, "%s", given);
	else if (getcwd(cwd, sizeof(cwd)) == NULL)
		return gf_fail(e, "cannot make the socket path %s absolute: the "
		    "working directory is unknown (%s)", given, strerror(errno));
	else
		len = snprintf(path, n, "%s/%s", strcmp(cwd, "/") ? cwd : "", given);
	if (len < 0 || (size_t)len >= n || len > SOCKPATH_MAX)
		return gf_fail(e, "the socket path %s%s is %d bytes long; a Unix "
		    "socket's path holds at most %d: name a shorter one with "
		    "GPUFILT_SOCKET", given[0] == '/' ? "" : "made absolute ",
		    given, len, SOCKPATH_MAX);
	return 0;
}

/* s is set, absolute, and not empty (XDG_RUNTIME_DIR and TMPDIR). */
static int
sockpath_usable(const char *s)
{
	return s != NULL && s[0] == '/';
}

/* The default socket's directory into dir: XDG_RUNTIME_DIR's or TMPDIR's. */
static int
sockpath_default_dir(char *dir, size_t n, const char *xdg, const char *tmpdir)
{
	const char *base = sockpath_usable(xdg) ? xdg :
	    sockpath_usable(tmpdir) ? tmpdir : "/tmp";
	size_t len = strlen(base);
	int w;

	while (len > 1 && base[len - 1] == '/')
		len--;
	if (base == xdg)
		w = snprintf(dir, n, "%.*s/gpufilt", (int)len, base);
	else
		w = snprintf(dir, n, "%.*s/gpufilt-%u", (int)len, base,
		    (unsigned)getuid());
	return w < 0 || (size_t)w >= n ? -1 : w;
}

int
sockpath_resolve(char *path, size_t n, const char *explicit_path,
    const char *xdg_runtime_dir, const char *tmpdir, int make_dir,
    struct gf_err *e)
{
	char dir[PATH_MAX];
	int len;

	if (explicit_path != NULL && explicit_path[0] != '\0')
		return sockpath_explicit(path, n, explicit_path, e);
	if (sockpath_default_dir(dir, sizeof(dir), xdg_runtime_dir, tmpdir) < 0)
		return gf_fail(e, "the socket's directory under %s is too long "
		    "for a path", sockpath_usable(xdg_runtime_dir) ?
		    xdg_runtime_dir : tmpdir);
	len = snprintf(path, n, "%s/server", dir);
	if (len < 0 || (size_t)len >= n || len > SOCKPATH_MAX)
		return gf_fail(e, "the socket path %s/server is %d bytes long; a "
		    "Unix socket's path holds at most %d: name a shorter one "
		    "with GPUFILT_SOCKET", dir, len, SOCKPATH_MAX);
	if (make_dir && mkdir(dir, 0700) < 0 && errno != EEXIST)
		return gf_fail(e, "cannot make the server's directory %s: %s", dir,
		    strerror(errno));
	return sockpath_check_dir(dir, e) < 0 ? -1 : 0;
}

/*
 * Connects a new socket to path, non-blocking if asked: 0 with *fd; 1
 * when nobody answers (no file, or a socket no one listens on); -1 with
 * e.  A non-blocking connect to a server whose backlog is full fails
 * with EAGAIN: someone answers, so that is 0 as well (*fd -1).
 */
static int
sockpath_reach(const char *path, int nonblock, int *fd, struct gf_err *e)
{
	struct sockaddr_un sa;
	int s;

	*fd = -1;
	if (sockpath_addr(path, &sa, e) < 0)
		return -1;
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC |
	    (nonblock ? SOCK_NONBLOCK : 0), 0);
	if (s < 0)
		return gf_fail(e, "cannot make a socket to reach the server: %s",
		    strerror(errno));
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		*fd = s;
		return 0;
	}
	int err = errno;

	close(s);
	if (err == ENOENT || err == ECONNREFUSED)
		return 1;
	if (err == EAGAIN && nonblock)
		return 0;
	if (err == EPROTOTYPE)
		return gf_fail(e, "cannot reach the server at %s: a socket of "
		    "another kind listens there (not SOCK_SEQPACKET): another "
		    "program's; name another socket with GPUFILT_SOCKET", path);
	return gf_fail(e, "cannot reach the server at %s: %s", path,
	    strerror(err));
}

int
sockpath_connect(const char *path, int *fd, struct gf_err *e)
{
	return sockpath_reach(path, 0, fd, e);
}

/*
 * Opens path.lock and takes it, waiting up to SOCKPATH_LOCK_TRIES turns
 * for a server that is starting or leaving: the descriptor (its close
 * releases the lock), or -1 with e.
 */
static int
sockpath_lock(const char *path, struct gf_err *e)
{
	char lock[PATH_MAX];
	struct timespec turn = {0, 10 * 1000 * 1000};
	int fd, tries = 0;

	snprintf(lock, sizeof(lock), "%s.lock", path);
	fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return gf_fail(e, "cannot open the server's lock file %s: %s", lock,
		    strerror(errno));
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if ((errno != EWOULDBLOCK && errno != EINTR) ||
		    ++tries >= SOCKPATH_LOCK_TRIES) {
			int err = errno;

			close(fd);
			return gf_fail(e, "cannot take the server's lock file %s: %s",
			    lock, err == EWOULDBLOCK ? "another process has held it "
			    "for 5 seconds" : strerror(err));
		}
		nanosleep(&turn, NULL);
	}
	return fd;
}

/*
 * Makes path free for a new socket: refused when a server answers there
 * or when it is not a socket; a stale socket is removed.  0 or -1 with e.
 */
static int
sockpath_clear(const char *path, struct gf_err *e)
{
	struct stat st;
	int fd, r;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : gf_fail(e, "cannot check %s: %s",
		    path, strerror(errno));
	if (!S_ISSOCK(st.st_mode))
		return gf_fail(e, "%s is %s, not a socket: it is left as it is; "
		    "remove it, or name another socket", path,
		    sockpath_kind(st.st_mode));
	r = sockpath_reach(path, 1, &fd, e);
	if (fd >= 0)
		close(fd);
	if (r == 0)
		return gf_fail(e, "a server already answers at %s (gpufiltd -k "
		    "stops it)", path);
	if (r < 0)
		return -1;
	if (unlink(path) < 0 && errno != ENOENT)
		return gf_fail(e, "cannot remove the stale socket %s: %s", path,
		    strerror(errno));
	return 0;
}

/* A socket bound at path, mode 0600, listening: 0 with *fd, or -1 with e. */
static int
sockpath_bind(const char *path, int *fd, struct gf_err *e)
{
	struct sockaddr_un sa;
	mode_t mask;
	int s, r;

	if (sockpath_addr(path, &sa, e) < 0)
		return -1;
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return gf_fail(e, "cannot make the server's socket: %s",
		    strerror(errno));
	/* The umask is the process's: the file is born 0600, never wider. */
	mask = umask(0177);
	r = bind(s, (struct sockaddr *)&sa, sizeof(sa));
	umask(mask);
	if (r < 0 || listen(s, SOCKPATH_BACKLOG) < 0) {
		int err = errno;

		close(s);
		if (r == 0)
			unlink(path);
		return gf_fail(e, "cannot listen at %s: %s", path, strerror(err));
	}
	*fd = s;
	return 0;
}

int
sockpath_listen(const char *path, int *fd, struct gf_err *e)
{
	struct sockaddr_un sa;
	int lock, r;

	*fd = -1;
	if (sockpath_addr(path, &sa, e) < 0)
		return -1;
	lock = sockpath_lock(path, e);
	if (lock < 0)
		return -1;
	r = sockpath_clear(path, e);
	if (r == 0)
		r = sockpath_bind(path, fd, e);
	close(lock);
	return r;
}

void
sockpath_unlisten(const char *path, int fd)
{
	int lock = sockpath_lock(path, NULL);

	unlink(path);
	close(fd);
	if (lock >= 0)
		close(lock);
}

int
sockpath_peer_ok(int fd, struct gf_err *e)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return gf_fail(e, "cannot learn who is at the other end of the "
		    "socket: %s", strerror(errno));
	if (cred.uid != getuid())
		return gf_fail(e, "the process at the other end of the socket "
		    "(pid %ld) runs as uid %u, not as this user (uid %u): refused",
		    (long)cred.pid, (unsigned)cred.uid, (unsigned)getuid());
	return 0;
}

/* The decimal number s, whole, into *v: 0, or -1 when it is not one. */
static int
sockpath_number(const char *s, long *v)
{
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtol(s, &end, 10);
	return errno != 0 || *end != '\0' ? -1 : 0;
}

/* Descriptor fd is an AF_UNIX SOCK_SEQPACKET socket that listens: 0, or -1 with e. */
static int
sockpath_check_listener(int fd, struct gf_err *e)
{
	int domain = 0, type = 0, listening = 0;
	socklen_t len = sizeof(int);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0)
		return gf_fail(e, "descriptor %d, which systemd passes, is not a "
		    "socket: %s", fd, strerror(errno));
	len = sizeof(int);
	getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len);
	len = sizeof(int);
	getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len);
	if (domain != AF_UNIX || type != SOCK_SEQPACKET || !listening)
		return gf_fail(e, "the socket systemd passes (descriptor %d) is "
		    "%s, %s and %s; the server takes a Unix socket of sequential "
		    "packets that listens (ListenSequentialPacket= in its .socket "
		    "unit)", fd, domain == AF_UNIX ? "a Unix socket" :
		    "not a Unix socket", type == SOCK_SEQPACKET ? "of packets" :
		    "not of sequential packets", listening ? "listens" :
		    "does not listen");
	return 0;
}

/*
 * Reads systemd's environment, which is how its protocol passes the
 * sockets (sd_listen_fds(3)), and removes it once it is this process's,
 * so that nothing the server starts takes the variables for its own.
 */
int
sockpath_systemd(int *fd, struct gf_err *e)
{
	const char *fds_text = getenv("LISTEN_FDS");
	long pid, nfds;
	int r;

	if (sockpath_number(getenv("LISTEN_PID"), &pid) < 0 || pid != getpid())
		return 0;
	if (fds_text == NULL)
		r = gf_fail(e, "LISTEN_PID names this process but LISTEN_FDS is "
		    "not set: systemd passes no socket");
	else if (sockpath_number(fds_text, &nfds) < 0 || nfds != 1)
		r = gf_fail(e, "systemd passes %s sockets (LISTEN_FDS=%s); the "
		    "server takes one: its .socket unit must have one Listen "
		    "line", fds_text, fds_text);
	else if (sockpath_check_listener(SOCKPATH_SYSTEMD_FD, e) < 0)
		r = -1;
	else {
		fcntl(SOCKPATH_SYSTEMD_FD, F_SETFD, FD_CLOEXEC);
		*fd = SOCKPATH_SYSTEMD_FD;
		r = 1;
	}
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	return r;
}
