/*
 * mcp/refusals.c: a session's refused requests in the audit chain without
 * letting them grow it without bound. A refusal (a spent budget, a tool
 * the principal may not use, an unknown tool, arguments or a manifest that
 * do not parse) is audited in full the first time its kind is seen in a
 * minute; the next ones of that kind in the same minute are only counted,
 * and the count goes into the chain as one "mcp_refusals" entry (event,
 * count, the minute's start) when the kind is next refused after that
 * minute, or when the session ends. So one session writes at most two rows
 * per kind and minute however fast it sends. A session that goes on
 * sending refused requests after one of its budgets was spent is ended
 * after TG_MCP_REFUSED_END of them (stdio: the server stops reading;
 * HTTP: the session is deleted), audited in its mcp_session_end. It calls
 * only the session's audit backend.
 */
#include "mcp/internal.h"

#include <string.h>

#define WINDOW_MS 60000u

static void write_count(tg_mcp_server *s, struct tg_mcp_refusal_kind *k)
{
	json_t *d;

	if (!k->suppressed || !s->be.audit)
		return;
	d = json_pack("{s:s, s:I, s:I, s:I, s:b}", "event", k->event, "count",
		      (json_int_t)k->suppressed, "since_ms", (json_int_t)k->window_wall_ms,
		      "window_ms", (json_int_t)WINDOW_MS, "any_details", k->catch_all);
	if (!d || s->be.audit(s->be.ctx, &s->actor, "mcp_refusals", k->tool[0] ? k->tool : NULL,
			      d) < 0)
		tg_mcp_log_error("audit", "mcp_refusals");
	json_decref(d);
	k->suppressed = 0;
}

/* The kind's slot: its event, tool and details (by digest), or, once the
 * table is full, the event's catch-all slot; NULL when none is left. */
static struct tg_mcp_refusal_kind *slot_of(tg_mcp_server *s, const char *event,
					   const char *tool, const json_t *details)
{
	struct tg_mcp_refusal_kind *k;
	char digest[65];
	size_t i, n = TG_ARRAY_SIZE(s->refusals);

	if (strlen(event) >= sizeof(k->event))
		return NULL;
	tg_json_digest(digest, event, tool ? tool : "", details);
	tg_error_clear();
	for (i = 0; i < n && s->refusals[i].event[0]; i++) {
		k = &s->refusals[i];
		if (!k->catch_all && strcmp(k->digest, digest) == 0)
			return k;
	}
	/* the last four slots are the events' catch-alls */
	if (i < n - TG_MCP_REFUSAL_EVENTS) {
		k = &s->refusals[i];
		snprintf(k->event, sizeof(k->event), "%s", event);
		snprintf(k->tool, sizeof(k->tool), "%s", tool && tg_name_valid(tool) ? tool : "");
		memcpy(k->digest, digest, sizeof(k->digest));
		return k;
	}
	for (i = n - TG_MCP_REFUSAL_EVENTS; i < n; i++) {
		k = &s->refusals[i];
		if (!k->event[0]) {
			snprintf(k->event, sizeof(k->event), "%s", event);
			k->catch_all = 1;
		}
		if (strcmp(k->event, event) == 0)
			return k;
	}
	return NULL;
}

int tg_mcp_refusal_counted(tg_mcp_server *s, const char *event, const char *tool,
			   const json_t *details)
{
	struct tg_mcp_refusal_kind *k;
	uint64_t now = tg_now_ms();

	if (s->spent && ++s->refused_after_spent >= TG_MCP_REFUSED_END)
		s->ended = 1;
	if (!(k = slot_of(s, event, tool, details)))
		return 0; /* audited every time */
	if (k->window_ms && now - k->window_ms < WINDOW_MS) {
		k->suppressed++;
		return 1;
	}
	write_count(s, k);
	k->window_ms = now;
	k->window_wall_ms = (uint64_t)tg_wall_ms();
	return 0;
}

void tg_mcp_refusals_flush(tg_mcp_server *s)
{
	size_t i;

	for (i = 0; i < TG_ARRAY_SIZE(s->refusals); i++)
		if (s->refusals[i].event[0])
			write_count(s, &s->refusals[i]);
}

int tg_mcp_server_ended(const tg_mcp_server *s)
{
	return s->ended;
}
