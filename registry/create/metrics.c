/*
 * registry/create/metrics.c: the figures `serve --http` publishes on
 * /metrics (mcp/http_metrics.c renders them; docs/MCP.md, "Metrics"). One
 * place decides each: every counter is a count of the audit log's entries
 * in registry.db (calls and their failures by reason from `call_result`,
 * the sandbox's kills among them, creates by outcome from `create`,
 * `create_refused` and `create_cancelled`, queued calls from
 * `call_queued`), so the metrics equal what `toolgate log` shows and hold
 * across restarts and every process of the home, CLI included. The latency
 * histogram reads the calls table's wall_ms of finished calls; the gauges
 * are the run and build slots held now (exec/slots.c) and the quota use of
 * `toolgate status` (quota.c). Entries moved to an archive file
 * (`toolgate log --archive`) leave the counts: a counter reset to
 * Prometheus. Calls: reg_prepare/reg_step (db), reg_slots_busy (exec),
 * tg_registry_status (quota.c).
 */
#include "registry/create/create.h"

#include <string.h>

/* The sandbox's reasons that are a kill of the run (sandbox/result.c's
 * names; exited, setup and bridge_protocol are not kills). */
static const char *const kill_reasons[] = { "signaled", "timeout", "cpu", "memory",
					    "output_limit", "file_size", "seccomp",
					    "cancelled" };

/* Upper bounds of the latency histogram's buckets, in milliseconds. */
static const int latency_ms[] = { 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000 };

/* Rows (label, count) of sql into arr as {"label": label, "count": n}. */
static int group_rows(tg_registry *r, const char *sql, const char *label, json_t *arr)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, sql);

	if (rc < 0)
		return rc;
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);
		json_t *o = json_pack("{s:s, s:I}", label, v ? v : "",
				      "count", (json_int_t)sqlite3_column_int64(st, 1));
		if (!o || json_array_append_new(arr, o) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "metrics");
	return 0;
}

static int count_rows(tg_registry *r, const char *sql, json_int_t *out)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, sql);

	*out = 0;
	if (rc < 0)
		return rc;
	if ((rc = reg_step(st)) != SQLITE_ROW)
		return reg_sqlerr(r, rc, "metrics");
	*out = sqlite3_column_int64(st, 0);
	return 0;
}

static int is_kill(const char *reason)
{
	size_t i;

	for (i = 0; i < TG_ARRAY_SIZE(kill_reasons); i++)
		if (strcmp(reason, kill_reasons[i]) == 0)
			return 1;
	return 0;
}

/* {"le_ms": [...], "counts": [cumulative...], "count", "sum_ms"} of the
 * finished calls' wall_ms. */
static int latency(tg_registry *r, json_t **out)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	json_t *le = json_array(), *counts = json_array();
	json_int_t n = 0, sum = 0;
	size_t i;
	int rc;

	*out = json_pack("{s:o, s:o}", "le_ms", le, "counts", counts);
	if (!*out)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (i = 0; i < TG_ARRAY_SIZE(latency_ms); i++)
		json_array_append_new(le, json_integer(latency_ms[i]));
	rc = reg_prepare(r, &st, "SELECT wall_ms FROM calls WHERE finished = 1");
	if (rc < 0)
		return rc;
	for (i = 0; i < TG_ARRAY_SIZE(latency_ms); i++)
		json_array_append_new(counts, json_integer(0));
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		int64_t ms = sqlite3_column_int64(st, 0);
		n++;
		sum += ms;
		for (i = 0; i < TG_ARRAY_SIZE(latency_ms); i++) {
			json_t *c = json_array_get(counts, i);
			if (ms <= latency_ms[i])
				json_integer_set(c, json_integer_value(c) + 1);
		}
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "metrics");
	json_object_set_new(*out, "count", json_integer(n));
	json_object_set_new(*out, "sum_ms", json_integer(sum));
	return 0;
}

static int counters(tg_registry *r, json_t *m)
{
	json_t *calls = json_array(), *fail = json_array(), *kills = json_array(),
	       *creates = json_array(), *e;
	json_int_t queued = 0, entries = 0;
	size_t i;
	int rc;

	if (json_object_set_new(m, "calls", calls) < 0 ||
	    json_object_set_new(m, "call_failures", fail) < 0 ||
	    json_object_set_new(m, "sandbox_kills", kills) < 0 ||
	    json_object_set_new(m, "creates", creates) < 0)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = group_rows(r, "SELECT coalesce(tool, '') || '/' || CASE WHEN "
				"json_extract(details, '$.ok') THEN 'ok' ELSE 'failed' END AS k, "
				"count(*) FROM audit WHERE event = 'call_result' GROUP BY k ORDER BY k",
			     "key", calls)) < 0 ||
	    (rc = group_rows(r, "SELECT coalesce(json_extract(details, '$.reason'), 'unknown') AS "
				"k, count(*) FROM audit WHERE event = 'call_result' AND NOT "
				"coalesce(json_extract(details, '$.ok'), 0) GROUP BY k ORDER BY k",
			     "reason", fail)) < 0 ||
	    (rc = group_rows(r, "SELECT CASE event WHEN 'create' THEN coalesce(json_extract("
				"details, '$.status'), 'unknown') WHEN 'create_refused' THEN "
				"'refused' ELSE 'cancelled' END AS k, count(*) FROM audit WHERE "
				"event IN ('create', 'create_refused', 'create_cancelled') "
				"GROUP BY k ORDER BY k", "outcome", creates)) < 0 ||
	    (rc = count_rows(r, "SELECT count(*) FROM audit WHERE event = 'call_queued'",
			     &queued)) < 0 ||
	    (rc = count_rows(r, "SELECT coalesce(max(seq), 0) FROM audit", &entries)) < 0)
		return rc;
	/* "tool/outcome" into its two labels (a tool name holds no '/') */
	json_array_foreach(calls, i, e) {
		const char *k = json_string_value(json_object_get(e, "key"));
		const char *slash = strrchr(k, '/');
		json_object_set_new(e, "tool", json_stringn(k, (size_t)(slash - k)));
		json_object_set_new(e, "outcome", json_string(slash + 1));
		json_object_del(e, "key");
	}
	json_array_foreach(fail, i, e) {
		if (is_kill(json_string_value(json_object_get(e, "reason"))) &&
		    json_array_append(kills, e) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	json_object_set_new(m, "calls_queued", json_integer(queued));
	json_object_set_new(m, "audit_entries", json_integer(entries));
	return 0;
}

int tg_registry_metrics(json_t **out, tg_registry *r)
{
	_cleanup_json_ json_t *m = json_object();
	json_t *lat = NULL, *status = NULL;
	int rc;

	*out = NULL;
	if (!m)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = counters(r, m)) < 0)
		return rc;
	rc = latency(r, &lat);
	if (lat)
		json_object_set_new(m, "latency", lat);
	if (rc < 0)
		return rc;
	json_object_set_new(m, "run_slots",
			    json_pack("{s:I, s:I}", "busy", (json_int_t)reg_slots_busy(r, 0), "max",
				      (json_int_t)r->cfg.max_concurrent_runs));
	json_object_set_new(m, "build_slots",
			    json_pack("{s:I, s:I}", "busy", (json_int_t)reg_slots_busy(r, 1), "max",
				      (json_int_t)r->cfg.max_concurrent_builds));
	if ((rc = tg_registry_status(&status, r)) < 0)
		return rc;
	json_object_set_new(m, "status", status);
	*out = json_incref(m);
	return 0;
}
