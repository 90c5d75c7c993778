/*
 * sandbox/gvisor_relay.c: the bridge (fd 3) of a run under gVisor. runsc
 * passes a container no descriptor beyond 0-2, so the supervisor binds a
 * unix socket at rootfs/bridge.sock of the run's private bundle (owned by
 * the tool's uid 65534, mode 0700, inside the bundle's 0700 folder), runsc
 * (--host-uds=open) lets the shim (sandbox/shim/shim.c) connect to it, and
 * gvisor.c's poll loop calls this file to accept exactly that one
 * connection (the listener is closed at once after it) and to relay bytes
 * both ways between it and the run's opts.fd3, through two bounded
 * buffers (SBX_RELAY_BUF each: a side that does not read stalls the other,
 * it never grows memory). EOF on either side, once its buffer is
 * delivered, shuts the other side's write direction. The shim's first byte
 * (SBX_SHIM_READY) is taken here, never relayed: it says the shim's
 * set-up (fd 3, its seccomp filter) held; a run without it is a setup
 * failure. The bridge's own frame limits apply on the host side
 * (registry/exec/bridge.c); the relay knows nothing of what flows.
 */
#include "sandbox/gvisor.h"
#include "sandbox/shim/shim.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define SBX_RELAY_BUF 65536
#define SBX_RELAY_UID 65534

int sbx_relay_open(struct sbx_relay *r, const char *dir, int fd3)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int n = snprintf(a.sun_path, sizeof(a.sun_path), "%s/rootfs%s", dir, SBX_SHIM_SOCKET);

	memset(r, 0, sizeof(*r));
	r->lis = r->c = -1;
	r->fd3 = fd3;
	if (n < 0 || (size_t)n >= sizeof(a.sun_path))
		return tg_error_set(TG_ERR_UNAVAILABLE,
				    "gvisor: the bridge's socket path is too long (%s)", dir);
	r->up = malloc(SBX_RELAY_BUF);
	r->down = malloc(SBX_RELAY_BUF);
	if (!r->up || !r->down)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	r->lis = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (r->lis < 0 || bind(r->lis, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    chown(a.sun_path, SBX_RELAY_UID, SBX_RELAY_UID) < 0 || chmod(a.sun_path, 0700) < 0 ||
	    listen(r->lis, 1) < 0)
		return tg_error_errno(TG_ERR_IO, errno, "gvisor: the bridge's socket %s", a.sun_path);
	return 0;
}

void sbx_relay_close(struct sbx_relay *r)
{
	tg_closep(&r->lis);
	tg_closep(&r->c);
	free(r->up);
	free(r->down);
	r->up = r->down = NULL;
}

/* Add the relay's descriptors to p (at most 3); returns how many. */
int sbx_relay_poll(struct sbx_relay *r, struct pollfd *p)
{
	int n = 0;

	r->i_lis = r->i_c = r->i_fd3 = -1;
	if (r->lis >= 0) {
		r->i_lis = n;
		p[n].fd = r->lis;
		p[n++].events = POLLIN;
	}
	if (r->c >= 0 && !(r->c_eof && r->f_eof && !r->dlen)) {
		r->i_c = n;
		p[n].fd = r->c;
		p[n++].events =
			(short)((!r->c_eof && !r->ulen ? POLLIN : 0) | (r->dlen ? POLLOUT : 0));
	}
	/* fd 3 is always watched: its hangup (the bridge shut the channel)
	 * ends the run as natively */
	r->i_fd3 = n;
	p[n].fd = r->fd3;
	p[n++].events =
		(short)((r->c >= 0 && !r->f_eof && !r->dlen ? POLLIN : 0) | (r->ulen ? POLLOUT : 0));
	return n;
}

/* Move what can move without blocking; buf/len/off one direction's buffer. */
static void move_out(int to, char *buf, size_t *len, size_t *off, int *broken)
{
	while (*len) {
		ssize_t k = send(to, buf + *off, *len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (k <= 0) {
			*broken = 1; /* the reader is gone: drop the rest */
			*len = 0;
			return;
		}
		*off += (size_t)k;
		*len -= (size_t)k;
	}
	*off = 0;
}

static int fill(int from, char *buf, size_t *len, size_t *off, int *eof)
{
	ssize_t k;

	do
		k = recv(from, buf, SBX_RELAY_BUF, MSG_DONTWAIT);
	while (k < 0 && errno == EINTR);
	if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (k <= 0) {
		*eof = 1;
		return 0;
	}
	*len = (size_t)k;
	*off = 0;
	return 1;
}

void sbx_relay_finish(struct sbx_relay *r)
{
	char b = 0;

	if (r->c < 0 && r->lis >= 0)
		r->c = accept4(r->lis, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (r->c >= 0 && !r->ready && !r->c_eof && r->ulen == 0 && recv(r->c, &b, 1, MSG_DONTWAIT) == 1)
		r->ready = b == SBX_SHIM_READY;
}

int sbx_relay_step(struct sbx_relay *r, const struct pollfd *p)
{
	short rf = p[r->i_fd3].revents;

	if (r->i_lis >= 0 && (p[r->i_lis].revents & POLLIN)) {
		r->c = accept4(r->lis, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (r->c >= 0)
			tg_closep(&r->lis); /* exactly one connection */
	}
	if (rf & (POLLHUP | POLLERR | POLLNVAL))
		return -1;
	if (r->i_c >= 0 && (p[r->i_c].revents & (POLLIN | POLLHUP | POLLERR)) && !r->c_eof &&
	    !r->ulen && fill(r->c, r->up, &r->ulen, &r->uoff, &r->c_eof) && !r->ready) {
		/* the shim's byte, first on the connection: not the tool's */
		r->ready = r->up[0] == SBX_SHIM_READY;
		if (!r->ready)
			r->c_eof = 1, r->ulen = 0; /* not the shim: relay nothing */
		else
			r->uoff = 1, r->ulen--;
	}
	if (r->c >= 0 && !r->f_eof && !r->dlen && (rf & POLLIN))
		fill(r->fd3, r->down, &r->dlen, &r->doff, &r->f_eof);
	if (r->ulen)
		move_out(r->fd3, r->up, &r->ulen, &r->uoff, &r->c_eof);
	if (r->dlen && r->c >= 0)
		move_out(r->c, r->down, &r->dlen, &r->doff, &r->f_eof);
	if (r->c_eof && !r->ulen && !r->up_shut) {
		shutdown(r->fd3, SHUT_WR);
		r->up_shut = 1;
	}
	if (r->f_eof && !r->dlen && r->c >= 0 && !r->down_shut) {
		shutdown(r->c, SHUT_WR);
		r->down_shut = 1;
	}
	return 0;
}
