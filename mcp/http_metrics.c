/*
 * mcp/http_metrics.c: GET /metrics of `serve --http` in the Prometheus text
 * format (version 0.0.4; docs/MCP.md, "Metrics"). The figures come from a
 * registry worker ({"op":"metrics"}: tg_registry_metrics, counts of the
 * audit log, the calls' latencies, slots, quota use); here they are only
 * written out, one family at a time with its HELP and TYPE. Label values
 * (tool names, reasons: of tool or agent origin) are escaped as the format
 * says (backslash, double quote, newline) and cut at 128 bytes. http.c
 * calls http_metrics_text after the token check and the right to read them.
 */
#include "http_internal.h"

#include <string.h>

#define LABEL_MAX 128

static void label_value(tg_buf *b, const char *v)
{
	size_t i;

	for (i = 0; v && v[i] && i < LABEL_MAX; i++) {
		char c = v[i];
		if (c == '\\' || c == '"')
			tg_buf_printf(b, "\\%c", c);
		else if (c == '\n')
			tg_buf_puts(b, "\\n");
		else
			tg_buf_append(b, &c, 1);
	}
}

static void head(tg_buf *b, const char *name, const char *type, const char *help)
{
	tg_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One family of counters from arr's objects: labels l1 (and l2) named as
 * their keys, the value "count". */
static void family(tg_buf *b, const char *name, const char *help, const json_t *arr,
		   const char *l1, const char *l2)
{
	const json_t *e;
	size_t i;

	head(b, name, "counter", help);
	json_array_foreach(arr, i, e) {
		tg_buf_printf(b, "%s{%s=\"", name, l1);
		label_value(b, json_string_value(json_object_get(e, l1)));
		if (l2) {
			tg_buf_printf(b, "\",%s=\"", l2);
			label_value(b, json_string_value(json_object_get(e, l2)));
		}
		tg_buf_printf(b, "\"} %lld\n", (long long)json_integer_value(json_object_get(e, "count")));
	}
}

static void gauge(tg_buf *b, const char *name, const char *help, json_int_t v)
{
	head(b, name, "gauge", help);
	tg_buf_printf(b, "%s %lld\n", name, (long long)v);
}

static json_int_t at(const json_t *m, const char *a, const char *k)
{
	return json_integer_value(json_object_get(json_object_get(m, a), k));
}

static void histogram(tg_buf *b, const json_t *lat)
{
	const char *name = "toolgate_call_duration_seconds";
	const json_t *le = json_object_get(lat, "le_ms");
	size_t i;

	head(b, name, "histogram", "wall-clock time of the finished calls (the calls table)");
	for (i = 0; i < json_array_size(le); i++)
		tg_buf_printf(b, "%s_bucket{le=\"%g\"} %lld\n", name,
			      (double)json_integer_value(json_array_get(le, i)) / 1000.0,
			      (long long)json_integer_value(
				      json_array_get(json_object_get(lat, "counts"), i)));
	tg_buf_printf(b, "%s_bucket{le=\"+Inf\"} %lld\n", name,
		      (long long)json_integer_value(json_object_get(lat, "count")));
	tg_buf_printf(b, "%s_sum %.3f\n", name,
		      (double)json_integer_value(json_object_get(lat, "sum_ms")) / 1000.0);
	tg_buf_printf(b, "%s_count %lld\n", name,
		      (long long)json_integer_value(json_object_get(lat, "count")));
}

char *http_metrics_text(const json_t *m)
{
	const json_t *st = json_object_get(m, "status");
	tg_buf b;

	/* a failed append leaves its error (TG_ERR_LIMIT, TG_ERR_NOMEM) */
	tg_error_clear();
	tg_buf_init(&b, 16u << 20);
	family(&b, "toolgate_calls_total", "calls by tool and outcome (call_result audit entries)",
	       json_object_get(m, "calls"), "tool", "outcome");
	family(&b, "toolgate_call_failures_total",
	       "failed calls by reason (call_result audit entries with ok false)",
	       json_object_get(m, "call_failures"), "reason", NULL);
	family(&b, "toolgate_sandbox_kills_total",
	       "calls whose run the sandbox killed, by reason (a subset of the failures)",
	       json_object_get(m, "sandbox_kills"), "reason", NULL);
	family(&b, "toolgate_creates_total",
	       "submissions by outcome (create, create_refused, create_cancelled entries)",
	       json_object_get(m, "creates"), "outcome", NULL);
	head(&b, "toolgate_calls_queued_total", "counter",
	     "calls that waited for a person (call_queued audit entries)");
	tg_buf_printf(&b, "toolgate_calls_queued_total %lld\n",
		      (long long)json_integer_value(json_object_get(m, "calls_queued")));
	head(&b, "toolgate_audit_entries_total", "counter", "entries of the audit chain (its head)");
	tg_buf_printf(&b, "toolgate_audit_entries_total %lld\n",
		      (long long)json_integer_value(json_object_get(m, "audit_entries")));
	histogram(&b, json_object_get(m, "latency"));
	gauge(&b, "toolgate_run_slots_busy", "host-wide run slots held now", at(m, "run_slots", "busy"));
	gauge(&b, "toolgate_run_slots", "max_concurrent_runs", at(m, "run_slots", "max"));
	gauge(&b, "toolgate_build_slots_busy", "host-wide build slots held now",
	      at(m, "build_slots", "busy"));
	gauge(&b, "toolgate_build_slots", "max_concurrent_builds", at(m, "build_slots", "max"));
	gauge(&b, "toolgate_home_used_bytes", "store, cache and registry.db of the home",
	      at(st, "home", "used_bytes"));
	gauge(&b, "toolgate_home_quota_bytes", "quota_home_mb in bytes (0: unlimited)",
	      at(st, "home", "quota_bytes"));
	gauge(&b, "toolgate_cache_bytes", "the build cache", at(st, "cache", "bytes"));
	gauge(&b, "toolgate_cache_budget_bytes", "cache_budget_mb in bytes",
	      at(st, "cache", "budget_bytes"));
	gauge(&b, "toolgate_tools", "tools in the home", at(st, "tools", "total"));
	gauge(&b, "toolgate_tools_active", "tools with an active version", at(st, "tools", "active"));
	gauge(&b, "toolgate_pending_versions", "versions waiting for a person",
	      at(st, "pending", "count"));
	if (tg_error_last()->code) {
		tg_buf_free(&b);
		return NULL;
	}
	return tg_buf_detach(&b, NULL);
}
