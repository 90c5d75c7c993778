/*
 * mcp/modern.c: the 2026-07-28 revision of MCP beside the initialize era.
 * A request whose params carry _meta["io.modelcontextprotocol/protocolVersion"]
 * is served statelessly: no handshake, the version checked per request
 * (-32022 with the supported list otherwise), the client's capabilities read
 * from the same _meta (a request without _meta, without its version or
 * without client capabilities is -32602, HTTP 400: SEP-2575; server/discover
 * too), resultType on every result, ttlMs/cacheScope on lists and
 * resources/read (SEP-2549, tg_mcp_cache_hint of session.c). Served: server/discover,
 * tools/list, tools/call, resources/list, resources/read,
 * resources/templates/list (resources.c), prompts/list, prompts/get
 * (prompts.c); anything else, the methods this era removed among them
 * (initialize, ping, logging/setLevel, resources/subscribe), is -32601 (HTTP
 * 404). Logging is the request's: notifications/message only when its _meta
 * names a logLevel, at or above it. subscriptions/listen opens a
 * long-lived subscription: on stdio it is acknowledged with
 * notifications/subscriptions/acknowledged and then receives
 * notifications/tools/list_changed tagged with its id, until the client
 * cancels it; no response is written while it is open, and the server never
 * writes a request to stdout in this era.
 */
#include "mcp/internal.h"

#include <string.h>

static const char instructions[] =
	"toolgate gates the tools you write for yourself. Submit a C11 tool with create_tool: "
	"it is vetted statically, versioned, built and tested in a no-network sandbox, and "
	"registered only if everything passes. Use tool_history, list_tool_versions and "
	"rollback_tool to review and undo changes.";

static const json_t *meta_of(const json_t *params)
{
	const json_t *m = params ? json_object_get(params, "_meta") : NULL;
	return json_is_object(m) ? m : NULL;
}

int tg_mcp_is_modern(const char *method, const json_t *params)
{
	const json_t *m = meta_of(params);

	if (m && json_object_get(m, TG_MCP_META_VERSION))
		return 1;
	return strcmp(method, "server/discover") == 0 ||
	       strcmp(method, "subscriptions/listen") == 0;
}

/* 2026-07-28, then the initialize eras (era.c), newest first. */
static json_t *supported_list(void)
{
	json_t *a = json_pack("[s]", TG_MCP_PROTOCOL_MODERN);
	size_t i;

	for (i = 0; a && tg_mcp_era_versions[i]; i++) {
		if (json_array_append_new(a, json_string(tg_mcp_era_versions[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *tg_mcp_discover_result(const tg_mcp_server *s)
{
	return json_pack("{s:o, s:{s:{s:b}, s:{}, s:{}}, s:{s:{s:s, s:s, s:s}}, s:s, s:i, s:s}",
			 "supportedVersions", supported_list(), "capabilities", "tools",
			 "listChanged", 1, "resources", "prompts", "_meta",
			 "io.modelcontextprotocol/serverInfo", "name",
			 "toolgate", "title", "toolgate", "version", s->opt.version, "instructions",
			 instructions, "ttlMs", 0, "cacheScope", "public");
}

static int unsupported(tg_mcp_server *s, const json_t *id, const char *requested)
{
	json_t *data = json_pack("{s:o, s:s}", "supported", supported_list(), "requested",
				 requested);

	if (!data)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	s->modern = 0;
	return tg_mcp_queue(s, json_pack("{s:s, s:O, s:{s:i, s:s, s:o}}", "jsonrpc", "2.0", "id",
					 id, "error", "code", TG_RPC_UNSUPPORTED_VERSION,
					 "message", "Unsupported protocol version", "data", data));
}

static void audit_start(tg_mcp_server *s, const json_t *meta)
{
	const json_t *info = meta ? json_object_get(meta, TG_MCP_META_CLIENT) : NULL;
	const char *name = json_string_value(json_object_get(info, "name"));
	_cleanup_json_ json_t *d = NULL;
	size_t i;

	if (s->modern_started)
		return;
	s->modern_started = 1;
	snprintf(s->protocol, sizeof(s->protocol), "%s", TG_MCP_PROTOCOL_MODERN);
	snprintf(s->client_name, sizeof(s->client_name), "%s", name ? name : "");
	for (i = 0; s->client_name[i]; i++) {
		if ((unsigned char)s->client_name[i] < 0x20 ||
		    (unsigned char)s->client_name[i] >= 0x7f)
			s->client_name[i] = '?';
	}
	if (!s->be.audit)
		return;
	d = json_pack("{s:s, s:s, s:I, s:I, s:b}", "protocol", TG_MCP_PROTOCOL_MODERN, "client",
		      s->client_name, "max_calls", (json_int_t)s->opt.max_calls, "max_creates",
		      (json_int_t)s->opt.max_creates, "hide_write_tools",
		      s->opt.hide_write_tools ? 1 : 0);
	if (!d || s->be.audit(s->be.ctx, &s->actor, "mcp_session_start", NULL, d) < 0)
		tg_mcp_log_error("audit", NULL);
}

static int sub_listen(tg_mcp_server *s, const json_t *id, const json_t *params)
{
	const json_t *want = params ? json_object_get(params, "notifications") : NULL;
	int tools;

	if (!json_is_object(want))
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS,
					  "Invalid params: subscriptions/listen needs notifications "
					  "(an object)");
	tools = json_is_true(json_object_get(want, "toolsListChanged"));
	if (tools) {
		if (!s->subs && !(s->subs = json_array()))
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		if (json_array_append(s->subs, (json_t *)id) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	/* only what we honour is acknowledged; the request stays open */
	return tg_mcp_queue(s, json_pack("{s:s, s:s, s:{s:{s:O}, s:o}}", "jsonrpc", "2.0", "method",
					 "notifications/subscriptions/acknowledged", "params",
					 "_meta", TG_MCP_META_SUB, id, "notifications",
					 tools ? json_pack("{s:b}", "toolsListChanged", 1)
					       : json_object()));
}

/* The era's requests besides server/discover and tools/call. */
static const struct {
	const char *method;
	int (*fn)(tg_mcp_server *s, const json_t *id, const json_t *params);
} handlers[] = {
	{ "tools/list", tg_mcp_tools_list },
	{ "subscriptions/listen", sub_listen },
	{ "resources/list", tg_mcp_resources_list },
	{ "resources/read", tg_mcp_resources_read },
	{ "resources/templates/list", tg_mcp_resource_templates_list },
	{ "prompts/list", tg_mcp_prompts_list },
	{ "prompts/get", tg_mcp_prompts_get },
};

/* A request whose _meta passed: served, or -32601 (HTTP 404). */
static int serve(tg_mcp_server *s, const json_t *id, const char *method, const json_t *params)
{
	size_t i;

	if (strcmp(method, "tools/call") == 0)
		return tg_mcp_call_cancellable(s, id, params, tg_mcp_tools_call);
	for (i = 0; i < TG_ARRAY_SIZE(handlers); i++) {
		if (strcmp(method, handlers[i].method) == 0)
			return handlers[i].fn(s, id, params);
	}
	/* no ping in this era: a request is its own liveness check */
	return tg_mcp_reply_error(s, id, TG_RPC_METHOD_NOT_FOUND, "Method not found: %.100s",
				  method);
}

int tg_mcp_modern_handle(tg_mcp_server *s, const json_t *id, const char *method,
			 const json_t *params)
{
	const json_t *meta = meta_of(params);
	const json_t *v = meta ? json_object_get(meta, TG_MCP_META_VERSION) : NULL;
	const json_t *caps = meta ? json_object_get(meta, TG_MCP_META_CAPS) : NULL;
	const json_t *lv = meta ? json_object_get(meta, TG_MCP_META_LOGLEVEL) : NULL;
	int level = lv ? tg_mcp_log_level_of(json_string_value(lv)) : 0;
	int saved, r;

	s->modern = 1;
	s->client_caps = NULL;
	s->bad_meta = 0;
	if (v && !json_is_string(v)) {
		s->modern = 0;
		s->bad_meta = 1;
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS,
					  "Invalid params: _meta %s must be a string",
					  TG_MCP_META_VERSION);
	}
	if (v && strcmp(json_string_value(v), TG_MCP_PROTOCOL_MODERN) != 0)
		return unsupported(s, id, json_string_value(v));
	if (!v) {
		s->modern = 0;
		s->bad_meta = 1;
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS,
					  "Invalid params: %s needs _meta %s", method,
					  TG_MCP_META_VERSION);
	}
	if (caps && !json_is_object(caps)) {
		s->bad_meta = 1;
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS,
					  "Invalid params: _meta %s must be an object",
					  TG_MCP_META_CAPS);
	}
	if (!caps) {
		/* every request of the era says what its client can do */
		s->bad_meta = 1;
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS,
					  "Invalid params: %s needs _meta %s", method,
					  TG_MCP_META_CAPS);
	}
	if (lv && !level) {
		s->bad_meta = 1;
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS,
					  "Invalid params: _meta %s must be one of debug, info, "
					  "notice, warning, error, critical, alert, emergency",
					  TG_MCP_META_LOGLEVEL);
	}
	s->client_caps = caps;
	if (strcmp(method, "server/discover") == 0)
		return tg_mcp_reply(s, id, tg_mcp_discover_result(s));
	audit_start(s, meta);
	/* no logging/setLevel in this era: the request's own level, for it
	 * alone (a stdio process may serve an initialize-era session too) */
	saved = s->log_level;
	s->log_level = level;
	r = serve(s, id, method, params);
	s->log_level = saved;
	return r;
}

void tg_mcp_modern_cancel(tg_mcp_server *s, const json_t *params)
{
	const json_t *rid = params ? json_object_get(params, "requestId") : NULL;
	const json_t *x;
	size_t i;

	if (!rid || !s->subs)
		return;
	json_array_foreach(s->subs, i, x) {
		if (json_equal(x, rid)) {
			json_array_remove(s->subs, i);
			return;
		}
	}
}

int tg_mcp_modern_list_changed(tg_mcp_server *s)
{
	const json_t *x;
	size_t i;
	int r;

	if (!s->subs)
		return 0;
	json_array_foreach(s->subs, i, x) {
		r = tg_mcp_queue(s, json_pack("{s:s, s:s, s:{s:{s:O}}}", "jsonrpc", "2.0",
					      "method", "notifications/tools/list_changed",
					      "params", "_meta", TG_MCP_META_SUB, x));
		if (r < 0)
			return r;
	}
	return 0;
}
