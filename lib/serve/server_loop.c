/*
 * server_loop.c - the server's listening socket (server.h's server_run):
 * a thread for each connection, which reads its messages
 * (server_conn_step) until it ends; too many at once are refused; the
 * server ends when idle, when a client asks it to stop, or when stop_fd
 * says (a signal), and ends its connections first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server_int.h"
#include "sockpath.h"

static void *
conn_main(void *arg)
{
	struct server_conn *c = arg;
	struct server *s = c->srv;
	struct gf_err e = {0};
	struct ucred who = {0};
	socklen_t n = sizeof(who);
	int sock = c->sock, slot = c->slot;

	getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &who, &n);
	c->pid = who.pid;
	if (sockpath_peer_ok(sock, &e) < 0)
		server_log(s, "refused: %s", e.msg);
	else
		while (server_conn_step(c) == 0)
			;
	if (c->ctx != NULL && c->lane)
		server_log(s, "pid %d: %s lane, %d images", (int)who.pid, c->tool.name,
		    c->images);
	else if (c->ctx != NULL)
		server_log(s, "pid %d: %s run ends, %d buffers borrowed at the end",
		    (int)who.pid, c->tool.name, c->nlent);
	server_conn_free(c);
	pthread_mutex_lock(&s->mu);
	close(sock);
	s->socks[slot] = -1;
	s->clients--;
	s->last = gf_now_ms();
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* A new connection: its thread, or closed at once when there are too many. */
static void
conn_start(struct server *s, int sock)
{
	struct server_conn *c = server_conn_new(s, sock);
	pthread_attr_t at;
	pthread_t th;
	int slot = -1;

	pthread_mutex_lock(&s->mu);
	if (c != NULL && s->clients < s->o.max_clients)
		for (slot = 0; s->socks[slot] >= 0; slot++)
			;
	if (slot >= 0) {
		s->socks[slot] = sock;
		s->clients++;
	}
	pthread_mutex_unlock(&s->mu);
	if (slot < 0)
		goto refuse;
	c->slot = slot;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &at, conn_main, c) == 0) {
		pthread_attr_destroy(&at);
		return;
	}
	pthread_attr_destroy(&at);
refuse:
	server_log(s, "a client was refused: %s", c == NULL ? "out of memory" :
	    slot < 0 ? "too many clients" : "out of threads");
	pthread_mutex_lock(&s->mu);
	if (slot >= 0) {
		s->socks[slot] = -1;
		s->clients--;
	}
	pthread_mutex_unlock(&s->mu);
	close(sock);
	server_conn_free(c);
}

/* Ends every connection (their reads return) and waits for their threads. */
static void
conns_end(struct server *s)
{
	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; i < sizeof(s->socks) / sizeof(s->socks[0]); i++)
		if (s->socks[i] >= 0)
			shutdown(s->socks[i], SHUT_RDWR);
	while (s->clients > 0)
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
}

int
server_run(struct server *s, int listen_fd, int stop_fd, struct gf_err *e)
{
	int rc = 0;

	for (;;) {
		struct pollfd p[2] = {{listen_fd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
		int timeout = 200, idle, stop;
		double now = gf_now_ms();

		pthread_mutex_lock(&s->mu);
		idle = s->clients == 0 && s->o.idle_ms > 0 &&
		    now - s->last >= s->o.idle_ms;
		stop = s->stop;
		pthread_mutex_unlock(&s->mu);
		if (idle || stop) {
			server_log(s, idle ? "idle for %d s: ending" : "asked to stop: ending",
			    s->o.idle_ms / 1000);
			break;
		}
		if (poll(p, 2, timeout) < 0) {
			if (errno == EINTR)
				continue;
			rc = gf_fail(e, "poll: %s", strerror(errno));
			break;
		}
		if (p[1].revents != 0) {
			server_log(s, "signalled: ending");
			break;
		}
		if (p[0].revents & (POLLERR | POLLNVAL)) {
			rc = gf_fail(e, "the listening socket failed");
			break;
		}
		if (p[0].revents & POLLIN) {
			int c = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
			if (c >= 0)
				conn_start(s, c);
			else if (errno == EMFILE || errno == ENFILE)
				usleep(10000);  /* out of descriptors: let some close */
		}
	}
	conns_end(s);
	return rc;
}
