/*
 * mcp/cancel.c: notifications/cancelled for the request in flight (stdio).
 * A session answers its requests one at a time, so while a tools/call
 * (a registered tool, create_tool, run_program) builds or runs, nobody reads
 * the session's input. tg_mcp_call_cancellable() runs the call with a
 * watcher thread that reads the input meanwhile: a notifications/cancelled
 * whose requestId is the request in flight fires the registry's
 * cancellation (tg_registry_set_cancel through the backend), which kills the
 * sandbox of the build or run (reason "cancelled", logged as the call's or
 * create's outcome); every other line is kept, in order, and served once the
 * call returns (the deferred lines of elicit.c). Per the MCP spec no
 * response is sent for a cancelled request (tg_mcp_reply_dropped). The
 * reader is shared with elicit.c, which runs on the bridge's thread during
 * the call: both take s->io_mu around their use of it, and an elicitation
 * that reads the cancellation fires it the same way (tg_mcp_cancel_line).
 * An over-long line read meanwhile is answered after the call, as before.
 */
#include "mcp/internal.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/eventfd.h>


struct watch {
	tg_mcp_server *s;
	int stop;  /* eventfd: the call returned */
};

/* One received line while the call runs: the cancellation, or kept. */
static int take(tg_mcp_server *s, const char *line, size_t len)
{
	_cleanup_json_ json_t *msg = NULL;
	tg_json_limits lim = { s->opt.max_message, 64 };

	if (tg_json_parse(&msg, line, len, &lim) == 0 && tg_mcp_cancel_line(s, msg))
		return 0;
	tg_error_clear();
	return tg_mcp_deferred_push(s, line, len);
}

static void *watch_main(void *arg)
{
	struct watch *w = arg;
	tg_mcp_server *s = w->s;

	for (;;) {
		struct pollfd p[2] = { { .fd = w->stop, .events = POLLIN },
				       { .fd = s->io_in, .events = POLLIN } };
		const char *line;
		size_t len;
		int got, r = 0;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents & POLLIN)
			break;
		if (!(p[1].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		pthread_mutex_lock(&s->io_mu);
		/* an elicitation may have read it meanwhile: read only what waits */
		if (poll(&p[1], 1, 0) == 1)
			r = tg_mcp_reader_fill(s->io_rd);
		while (r >= 0 && ((got = tg_mcp_reader_next(s->io_rd, &line, &len)) ==
					  TG_MCP_READ_LINE ||
				  got == TG_MCP_READ_OVERSIZE))
			r = got == TG_MCP_READ_LINE ? take(s, line, len)
						    : tg_mcp_deferred_push(s, TG_MCP_OVERSIZE_MARK,
									   TG_MCP_OVERSIZE_LEN);
		pthread_mutex_unlock(&s->io_mu);
		if (r < 0 || s->io_rd->eof)
			break; /* end of input: the serving loop sees it after the call */
	}
	return NULL;
}

int tg_mcp_call_cancellable(tg_mcp_server *s, const json_t *id, const json_t *params,
			    tg_mcp_handler call)
{
	struct watch w = { s, -1 };
	pthread_t th;
	uint64_t one = 1;
	int r;

	if (!s->io_rd || !s->be.set_cancel || !id)
		return call(s, id, params);
	if (!s->cancel && tg_cancel_new(&s->cancel) < 0)
		return -1;
	tg_cancel_reset(s->cancel);
	w.stop = eventfd(0, EFD_CLOEXEC);
	if (w.stop < 0)
		return tg_error_errno(TG_ERR_IO, errno, "eventfd");
	s->inflight_id = id;
	s->be.set_cancel(s->be.ctx, s->cancel);
	if (pthread_create(&th, NULL, watch_main, &w) != 0) {
		/* no watcher: the call runs as before, not cancellable */
		s->be.set_cancel(s->be.ctx, NULL);
		s->inflight_id = NULL;
		close(w.stop);
		return call(s, id, params);
	}
	r = call(s, id, params);
	(void)!write(w.stop, &one, sizeof(one));
	pthread_join(th, NULL);
	close(w.stop);
	s->be.set_cancel(s->be.ctx, NULL);
	if (tg_cancel_fired(s->cancel))
		s->cancelled++;
	s->inflight_id = NULL;
	tg_cancel_reset(s->cancel);
	return r;
}
