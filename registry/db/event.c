/*
 * registry/db/event.c: the events of an operation in progress (the phases
 * of a submission, diagnostics, a tool's stderr, a call's start and end)
 * handed to the MCP session through its hooks (tg_call_hooks.event), which
 * turns them into notifications/message and notifications/progress. The
 * hook is a function pointer the session hands down: nothing here calls
 * up. When no hook takes events, nothing is formatted.
 */
#include "registry/db/db.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int reg_events_on(const tg_registry *r)
{
	return r && r->hooks && r->hooks->event;
}

static void emit(tg_registry *r, const char *level, const char *logger, unsigned step,
		 unsigned total, const char *message)
{
	tg_op_event ev = { level, logger, message, step, total };

	r->hooks->event(r->hooks->ctx, &ev);
}

void reg_event(tg_registry *r, const char *level, const char *logger, unsigned step, unsigned total,
	       const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!reg_events_on(r))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit(r, level, logger, step, total, msg);
}

void reg_event_lines(tg_registry *r, const char *level, const char *logger, const char *text,
		     size_t len, unsigned max)
{
	char line[1024];
	size_t i = 0, n = 0;
	unsigned made = 0;

	if (!reg_events_on(r) || !text)
		return;
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len;
		if (end > i && made == max) {
			emit(r, level, logger, 0, 0, "(further lines not shown)");
			return;
		}
		if (end > i) {
			n = end - i < sizeof(line) - 1 ? end - i : sizeof(line) - 1;
			memcpy(line, text + i, n);
			line[n] = '\0';
			emit(r, level, logger, 0, 0, line);
			made++;
		}
		i = end + 1;
	}
}
