/*
 * mcp/paging.c: pages of a tool's history for tool_history and
 * list_tool_versions (issue 15). A tool with thousands of versions must not
 * answer in one megabyte-sized result: versions come TG_MCP_HISTORY_PAGE at a
 * time, oldest first, with a nextCursor while more remain. The cursor is
 * "h1.<tool>.<last version shown>": bound to its tool, stable while versions
 * are appended (it names a version, not an offset), and anything else is
 * invalid params (-32602) with a message saying what to pass. A rejected
 * version is summarised (version, status, verdict, time and its reason as
 * one line) unless the caller asks for details. tool_history's events are
 * those naming a version of the page (as target or origin), so a rollback
 * across pages shows on both.
 */
#include "mcp/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The version after which the page starts (0: the first page). */
static int parse_cursor(const char *cursor, const char *name, json_int_t *after)
{
	size_t n = strlen(name);
	const char *p;
	char *end;
	long long v;

	*after = 0;
	if (!cursor)
		return 0;
	if (strncmp(cursor, "h1.", 3) != 0 || strncmp(cursor + 3, name, n) != 0 ||
	    cursor[3 + n] != '.')
		goto bad;
	p = cursor + 4 + n;
	if (*p < '1' || *p > '9')
		goto bad;
	v = strtoll(p, &end, 10);
	if (*end || v < 1 || v > (long long)UINT32_MAX)
		goto bad;
	*after = (json_int_t)v;
	return 0;
bad:
	return tg_error_set(TG_ERR_INVALID,
			    "cursor: not a cursor of %s's history (pass the nextCursor of the "
			    "previous page, or no cursor for the first page)",
			    name);
}

/* One rejected version as one line: no commit, hash, capabilities. */
static json_t *summarise_rejected(const json_t *v)
{
	const char *reason = json_string_value(json_object_get(v, "reason"));

	return json_pack("{s:O?, s:O?, s:O?, s:O?, s:s}", "version", json_object_get(v, "version"),
			 "status", json_object_get(v, "status"), "verdict",
			 json_object_get(v, "verdict"), "time", json_object_get(v, "time"),
			 "summary", reason && reason[0] ? reason : "rejected");
}

/* Scalars only (list_tool_versions rows). */
static json_t *scalars(const json_t *v)
{
	json_t *row = json_object(), *m;
	const char *key;

	if (!row)
		return NULL;
	json_object_foreach((json_t *)v, key, m) {
		if (!json_is_object(m) && !json_is_array(m) && json_object_set(row, key, m) < 0) {
			json_decref(row);
			return NULL;
		}
	}
	return row;
}

static int names_range(const json_t *e, json_int_t lo, json_int_t hi)
{
	json_int_t a = json_integer_value(json_object_get(e, "version"));
	json_int_t b = json_integer_value(json_object_get(e, "from_version"));

	return (a > lo && a <= hi) || (b > lo && b <= hi);
}

int tg_mcp_history_page(json_t **out, const json_t *history, const char *cursor, int details,
			int versions_only)
{
	const char *name = json_string_value(json_object_get(history, "name"));
	json_t *vers = json_object_get(history, "versions");
	json_t *page = NULL, *list = NULL, *v, *e;
	json_int_t after, last = 0, total = 0;
	size_t i, shown = 0;
	int more = 0;

	*out = NULL;
	if (!name)
		return tg_error_set(TG_ERR_INTERNAL, "history without a name");
	if (parse_cursor(cursor, name, &after) < 0)
		return TG_ERR_INVALID;
	page = json_pack("{s:s, s:O?}", "name", name, "active", json_object_get(history, "active"));
	/* the tests every later create runs (at most 16: on every page) */
	if (page && !versions_only && json_object_get(history, "regression_tests") &&
	    json_object_set(page, "regression_tests", json_object_get(history,
								      "regression_tests")) < 0)
		goto nomem;
	list = json_array();
	if (!page || !list)
		goto nomem;
	json_array_foreach(vers, i, v) {
		json_int_t n = json_integer_value(json_object_get(v, "version"));
		const char *st = json_string_value(json_object_get(v, "status"));
		json_t *row;

		total++;
		if (n <= after)
			continue;
		if (shown == TG_MCP_HISTORY_PAGE) {
			more = 1;
			continue;
		}
		if (!details && st && strcmp(st, "rejected") == 0)
			row = summarise_rejected(v);
		else
			row = versions_only ? scalars(v) : json_deep_copy(v);
		if (!row || json_array_append_new(list, row) < 0)
			goto nomem;
		shown++;
		last = n;
	}
	if (cursor && shown == 0) {
		json_decref(list);
		json_decref(page);
		return tg_error_set(TG_ERR_INVALID, "cursor: %s has no versions after %lld", name,
				    (long long)after);
	}
	if (json_object_set_new(page, "versions", list) < 0) {
		list = NULL;
		goto nomem;
	}
	list = NULL;
	if (json_object_set_new(page, "total_versions", json_integer(total)) < 0)
		goto nomem;
	if (!versions_only) {
		json_t *evs = json_array();
		json_int_t hi = more ? last : (json_int_t)UINT32_MAX;
		if (!evs || json_object_set_new(page, "events", evs) < 0)
			goto nomem;
		json_array_foreach(json_object_get(history, "events"), i, e) {
			if (names_range(e, after, hi) && json_array_append(evs, e) < 0)
				goto nomem;
		}
	}
	if (more) {
		char next[128];
		snprintf(next, sizeof(next), "h1.%s.%lld", name, (long long)last);
		if (json_object_set_new(page, "nextCursor", json_string(next)) < 0)
			goto nomem;
	}
	*out = page;
	return 0;
nomem:
	json_decref(list);
	json_decref(page);
	return tg_error_set(TG_ERR_NOMEM, "out of memory");
}
