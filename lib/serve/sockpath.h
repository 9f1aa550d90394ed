/*
 * sockpath.h - the server's Unix socket (issue 42): where it lives, the
 * checks that make it one user's, and the calls that open it from either
 * end, so that the server (gpufiltd) and the tools agree on all of it.
 *
 * The socket is AF_UNIX, SOCK_SEQPACKET.  Its path is GPUFILT_SOCKET when
 * set; else XDG_RUNTIME_DIR/gpufilt/server; else TMPDIR/gpufilt-UID/server
 * (TMPDIR /tmp when unset).  The directory of the last two is the
 * server's alone: a directory, not a link, owned by the user, with no
 * group or other permission bits (tmux checks /tmp/tmux-UID so).
 *
 * Whatever the path, each end checks the other's user with SO_PEERCRED
 * (sockpath_peer_ok), so a socket that someone else placed there is
 * refused by a client, and a client of someone else by the server.
 *
 * Library code: errors come back in a gf_err; nothing prints, and only
 * sockpath_systemd reads the environment (the systemd protocol is the
 * environment); cmd/ passes getenv's values to sockpath_resolve.
 */
#ifndef GF_SOCKPATH_H
#define GF_SOCKPATH_H

#include <stddef.h>

#include "gf.h"

/* The longest socket path: sun_path's size less its terminating NUL. */
#define SOCKPATH_MAX 107

/*
 * Writes the socket path into path (n bytes) from the values of
 * GPUFILT_SOCKET (explicit_path), XDG_RUNTIME_DIR and TMPDIR, each NULL
 * or "" when unset (a relative XDG_RUNTIME_DIR or TMPDIR is ignored, as
 * the XDG specification asks; a relative explicit path is taken from the
 * working directory, so that a server that detaches keeps it).  With
 * make_dir, a missing directory of the default paths is made, mode 0700;
 * without it, a missing directory is no error (no server can be there).
 * An existing one must pass the checks above.  -1 with e for a refused
 * directory, a path longer than SOCKPATH_MAX or n, or a directory that
 * cannot be made.
 */
int sockpath_resolve(char *path, size_t n, const char *explicit_path,
    const char *xdg_runtime_dir, const char *tmpdir, int make_dir,
    struct gf_err *e);

/*
 * Connects to the server at path: 0 with *fd the connected socket
 * (close-on-exec, blocking); 1 when no server answers there (no file,
 * or a socket that nobody listens on), *fd -1 and e untouched; -1 with e
 * for any other failure (no permission, a socket of another type).
 * Call sockpath_peer_ok on *fd before trusting the other end.
 */
int sockpath_connect(const char *path, int *fd, struct gf_err *e);

/*
 * The server's listening socket at path: refused when a server already
 * answers there; a stale socket file (nobody listening) is removed, any
 * other file never is.  The socket file is made mode 0600 and listens
 * with a backlog of 128.  Servers that start at once (many clients with
 * GPUFILT_SERVER=start) take turns on the lock file path.lock, which
 * stays beside the socket: one of them listens, the others are refused.
 * The umask is changed for the bind and put back: call it before the
 * process has other threads that make files.  0 with *fd, or -1 with e.
 */
int sockpath_listen(const char *path, int *fd, struct gf_err *e);

/*
 * Ends what sockpath_listen began: removes the socket file at path and
 * closes fd, under the same lock, so that a server starting meanwhile
 * never has its new socket removed by one that is leaving.  Not for a
 * socket systemd passed: that file is systemd's.
 */
void sockpath_unlisten(const char *path, int fd);

/*
 * 0 when the process at the other end of the connected socket fd runs
 * as this process's user (SO_PEERCRED); -1 with e naming its uid and
 * pid otherwise.  The server calls it on each client, a client on the
 * server it reached.
 */
int sockpath_peer_ok(int fd, struct gf_err *e);

/*
 * systemd's socket activation, without libsystemd: when LISTEN_PID is
 * this process and LISTEN_FDS is 1, descriptor 3 is the listening socket
 * systemd made: 1 with *fd 3 (made close-on-exec), once it is checked to
 * be an AF_UNIX SOCK_SEQPACKET socket that listens.  LISTEN_PID,
 * LISTEN_FDS and LISTEN_FDNAMES are then removed from the environment.
 * 0 when the process was not activated so (no LISTEN_PID, or another
 * process's); -1 with e for another count of sockets or a wrong socket.
 */
int sockpath_systemd(int *fd, struct gf_err *e);

#endif
