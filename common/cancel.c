/*
 * common/cancel.c: a cancellation signal one thread fires and others see,
 * by a flag (tg_cancel_fired) or by polling an eventfd that stays readable
 * once fired (tg_cancel_fd), until the owner resets it for the next piece
 * of work. The MCP session fires it on notifications/cancelled; the
 * sandbox's supervisor polls it and kills the run (reason "cancelled").
 * The eventfd may be shared with another process (made before a fork): a
 * fire there makes it readable here, which tg_cancel_fired also counts.
 */
#include "common/common.h"

#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct tg_cancel {
	atomic_int fired;
	int fd;
};

int tg_cancel_new(tg_cancel **out)
{
	tg_cancel *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (!c)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	c->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->fd < 0) {
		int e = errno;
		free(c);
		return tg_error_errno(TG_ERR_IO, e, "eventfd");
	}
	atomic_init(&c->fired, 0);
	*out = c;
	return 0;
}

void tg_cancel_free(tg_cancel *c)
{
	if (!c)
		return;
	close(c->fd);
	free(c);
}

void tg_cancel_fire(tg_cancel *c)
{
	uint64_t one = 1;

	if (!c || atomic_exchange(&c->fired, 1))
		return;
	(void)!write(c->fd, &one, sizeof(one));
}

int tg_cancel_fired(const tg_cancel *c)
{
	struct pollfd p;

	if (!c)
		return 0;
	if (atomic_load(&((tg_cancel *)c)->fired))
		return 1;
	/* fired by another process sharing the eventfd (an HTTP worker's,
	 * mcp/http_cancel.c): readable until the owner drains it */
	p.fd = c->fd;
	p.events = POLLIN;
	p.revents = 0;
	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

int tg_cancel_fd(const tg_cancel *c)
{
	return c ? c->fd : -1;
}

void tg_cancel_reset(tg_cancel *c)
{
	uint64_t v;

	if (!c)
		return;
	(void)!read(c->fd, &v, sizeof(v));
	atomic_store(&c->fired, 0);
}
