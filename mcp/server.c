/*
 * mcp/server.c: one MCP session over JSON-RPC 2.0. It classifies each
 * received line (parse error -32700, invalid request -32600, unknown method
 * -32601, bad params -32602), never answers a notification, runs the
 * initialize handshake (the client's protocol version is echoed when it is
 * one we speak, else ours is sent), answers ping, pages tools/list with an
 * opaque cursor, hands tools/call to tools.c, and queues
 * notifications/tools/list_changed when the registry's toolset generation
 * moves. The I/O loop at the end polls stdin with a timeout so that changes
 * made by another process are noticed while the client is idle.
 */
#include "mcp/mcp.h"
#include "mcp/resources.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <string.h>

#define TG_MCP_OUT_MAX ((size_t)64 << 20)
#define TG_MCP_CURSOR_PREFIX "tg1."

/* ---- output ------------------------------------------------------------------ */

int tg_mcp_queue(tg_mcp_server *s, json_t *msg /* stolen */)
{
	_cleanup_free_ char *text = NULL;
	int r;

	if (!msg)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	text = tg_json_dump(msg);
	json_decref(msg);
	if (!text)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	r = tg_buf_puts(&s->out, text);
	if (r == 0)
		r = tg_buf_append(&s->out, "\n", 1);
	return r;
}

int tg_mcp_reply(tg_mcp_server *s, const json_t *id, json_t *result)
{
	json_t *msg;

	if (!result)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (tg_mcp_reply_dropped(s, id)) {
		json_decref(result); /* cancelled: no response (cancel.c) */
		return 0;
	}
	/* 2026-07-28: every result says what it is */
	if (s->modern && json_is_object(result) && !json_object_get(result, "resultType") &&
	    json_object_set_new(result, "resultType", json_string("complete")) < 0) {
		json_decref(result);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	msg = json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(),
			"result", result);
	return tg_mcp_queue(s, msg);
}

void tg_mcp_sanitize(char *msg)
{
	size_t i, k, n = strlen(msg);
	int valid = tg_utf8_valid(msg, n) == 0;

	/* A message cut by a fixed buffer may end inside a character. */
	for (k = 1; !valid && k <= 3 && k <= n; k++) {
		if (tg_utf8_valid(msg, n - k) == 0) {
			msg[n - k] = '\0';
			n -= k;
			valid = 1;
		}
	}

	/* Messages may quote what the peer sent (a cut name, a parser's
	 * excerpt): keep them valid UTF-8 without control characters. */
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)msg[i];
		if (c < 0x20 || c == 0x7f || (!valid && c >= 0x80))
			msg[i] = '?';
	}
}

int tg_mcp_reply_error(tg_mcp_server *s, const json_t *id, int code, const char *fmt, ...)
{
	char message[1024];
	va_list ap;

	if (tg_mcp_reply_dropped(s, id))
		return 0; /* cancelled: no response (cancel.c) */
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	tg_mcp_sanitize(message);
	return tg_mcp_queue(s, json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id",
				  id ? id : json_null(), "error", "code", code, "message", message));
}

tg_buf *tg_mcp_server_output(tg_mcp_server *s)
{
	return &s->out;
}

/* ---- session ----------------------------------------------------------------- */

int tg_mcp_server_new(tg_mcp_server **out, const tg_mcp_backend *be, const tg_mcp_options *opt)
{
	tg_mcp_server *s;
	int r;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	s->be = *be;
	if (opt)
		s->opt = *opt;
	if (!s->opt.page_size)
		s->opt.page_size = TG_MCP_PAGE_SIZE;
	if (!s->opt.max_message)
		s->opt.max_message = TG_MCP_MAX_MESSAGE;
	if (!s->opt.poll_ms)
		s->opt.poll_ms = TG_MCP_POLL_MS;
	if (!s->opt.version)
		s->opt.version = "0";
	if (s->opt.session) {
		snprintf(s->session, sizeof(s->session), "%s", s->opt.session);
	} else {
		r = tg_random_hex(s->session, 16);
		if (r < 0) {
			free(s);
			return r;
		}
	}
	s->opt.session = NULL;
	s->actor.kind = "mcp";
	s->actor.session = s->session;
	if (s->opt.principal) {
		/* the principal leads: the audit actor reads mcp:<principal>:<session> */
		snprintf(s->actor_session, sizeof(s->actor_session), "%.64s:%s",
			 s->opt.principal, s->session);
		s->actor.session = s->actor_session;
	}
	tg_buf_init(&s->out, TG_MCP_OUT_MAX);
	pthread_mutex_init(&s->io_mu, NULL);
	/* The baseline: changes before the handshake are not news. */
	if (s->be.generation && s->be.generation(s->be.ctx, &s->generation) == 0)
		s->have_generation = 1;
	*out = s;
	return 0;
}

void tg_mcp_server_free(tg_mcp_server *s)
{
	if (!s)
		return;
	char *line;
	size_t len;

	tg_buf_free(&s->out);
	json_decref(s->subs);
	json_decref(s->grants);
	json_decref(s->question);
	json_decref(s->replay);
	json_decref(s->journal);
	while (tg_mcp_deferred_pop(s, &line, &len))
		free(line);
	tg_cancel_free(s->cancel);
	pthread_mutex_destroy(&s->io_mu);
	free(s);
}

const char *tg_mcp_server_session(const tg_mcp_server *s)
{
	return s->session;
}

void tg_mcp_server_counts(const tg_mcp_server *s, uint64_t *calls, uint64_t *creates,
			  uint64_t *denied)
{
	if (calls)
		*calls = s->calls;
	if (creates)
		*creates = s->creates;
	if (denied)
		*denied = s->denied;
}

int tg_mcp_server_close(tg_mcp_server *s)
{
	_cleanup_json_ json_t *d = NULL;

	if ((!s->initialized && !s->modern_started) || !s->be.audit)
		return 0;
	d = json_pack("{s:I, s:I, s:I}", "calls", (json_int_t)s->calls, "creates",
		      (json_int_t)s->creates, "denied", (json_int_t)s->denied);
	if (!d)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return s->be.audit(s->be.ctx, &s->actor, "mcp_session_end", NULL, d);
}

int tg_mcp_server_check_toolset(tg_mcp_server *s)
{
	uint64_t g;
	int r;

	if (!s->be.generation)
		return 0;
	r = s->be.generation(s->be.ctx, &g);
	if (r < 0) {
		if (!s->generation_failed)
			tg_mcp_log_error("toolset generation", NULL);
		s->generation_failed = 1;
		return 0;
	}
	s->generation_failed = 0;
	if (s->have_generation && g == s->generation)
		return 0;
	s->generation = g;
	s->have_generation = 1;
	r = tg_mcp_modern_list_changed(s);
	if (r < 0 || !s->initialized)
		return r;
	return tg_mcp_queue(s, json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method",
				  "notifications/tools/list_changed"));
}

/* ---- initialize ---------------------------------------------------------------- */

void tg_mcp_log_error(const char *what, const char *event)
{
	const char *m = tg_error_last()->message;
	_cleanup_free_ char *safe = tg_term_scrub(m, strlen(m), TG_TERM_LINE);

	fprintf(stderr, "toolgate: serve: %s%s%s: %s\n", what, event ? " " : "", event ? event : "",
		safe ? safe : "?");
}

static void copy_info(char *dst, size_t size, const json_t *info, const char *key)
{
	const char *v = NULL;
	size_t i;

	dst[0] = '\0';
	if (!json_is_object(info) || tg_json_get_string(&v, info, key, 0) < 0 || !v)
		return;
	snprintf(dst, size, "%s", v);
	/* Printable ASCII only: it goes to logs and the audit trail. */
	for (i = 0; dst[i]; i++) {
		if ((unsigned char)dst[i] < 0x20 || (unsigned char)dst[i] >= 0x7f)
			dst[i] = '?';
	}
}

static const char server_instructions[] =
	"toolgate gates the tools you write for yourself. Submit a C11 tool with create_tool "
	"(name, description, input_schema, source, tests, limits, capabilities): it is vetted "
	"statically, versioned, built and tested in a no-network sandbox, and registered only "
	"if everything passes. A rejection comes back as an error result with the reasons; "
	"fix the code and submit again. A tool reads its arguments as one JSON object on stdin "
	"and writes one JSON value on stdout; exit status 0 means success. Registered tools "
	"appear in tools/list. Use tool_history, list_tool_versions and rollback_tool to "
	"review and undo changes.";

static int handle_initialize(tg_mcp_server *s, const json_t *id, const json_t *params)
{
	const char *want = NULL;
	const char *proto;
	json_t *info = NULL;
	json_t *result;
	int r;

	if (s->initialized)
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_REQUEST,
					  "initialize: the session is already initialized");
	if (!params)
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS,
					  "initialize: params are required");
	if (tg_json_get_string(&want, params, "protocolVersion", 1) < 0)
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS, "initialize: %s",
					  tg_error_last()->message);
	if (tg_json_get_object(&info, params, "clientInfo", 0) < 0)
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS, "initialize: %s",
					  tg_error_last()->message);
	if (strcmp(want, TG_MCP_PROTOCOL_LATEST) == 0)
		proto = TG_MCP_PROTOCOL_LATEST;
	else if (strcmp(want, TG_MCP_PROTOCOL_FALLBACK) == 0)
		proto = TG_MCP_PROTOCOL_FALLBACK;
	else
		proto = TG_MCP_PROTOCOL_LATEST;
	snprintf(s->protocol, sizeof(s->protocol), "%s", proto);
	copy_info(s->client_name, sizeof(s->client_name), info, "name");
	copy_info(s->client_version, sizeof(s->client_version), info, "version");
	{
		/* elicitation: {} or {"form": {...}} (a client of URL mode only
		 * cannot show our form) */
		json_t *el = json_object_get(json_object_get(params, "capabilities"),
					     "elicitation");
		s->elicitation = json_is_object(el) &&
				 (json_object_size(el) == 0 || json_object_get(el, "form"));
	}

	result = json_pack("{s:s, s:{s:{s:b}, s:{}}, s:{s:s, s:s, s:s}, s:s}", "protocolVersion",
			   proto, "capabilities", "tools", "listChanged", 1, "resources",
			   "serverInfo", "name",
			   "toolgate", "title", "toolgate", "version", s->opt.version,
			   "instructions", server_instructions);
	r = tg_mcp_reply(s, id, result);
	if (r < 0)
		return r;
	s->initialized = 1;
	fprintf(stderr, "toolgate: serve: session %s: protocol %s, client %s %s\n", s->session,
		proto, s->client_name[0] ? s->client_name : "(unnamed)", s->client_version);
	if (s->be.audit) {
		_cleanup_json_ json_t *d = json_pack(
			"{s:s, s:s, s:s, s:I, s:I, s:b}", "protocol", proto, "client",
			s->client_name, "client_version", s->client_version, "max_calls",
			(json_int_t)s->opt.max_calls, "max_creates", (json_int_t)s->opt.max_creates,
			"hide_write_tools", s->opt.hide_write_tools ? 1 : 0);
		if (!d || s->be.audit(s->be.ctx, &s->actor, "mcp_session_start", NULL, d) < 0)
			tg_mcp_log_error("audit", NULL);
	}
	return 0;
}

/* ---- tools/list ---------------------------------------------------------------- */

static int tool_name_cmp(const void *a, const void *b)
{
	const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	return strcmp(json_string_value(json_object_get(x, "name")),
		      json_string_value(json_object_get(y, "name")));
}

/* The cursor names the last tool of the previous page: "tg1." + hex(name). */
static char *cursor_encode(const char *name)
{
	size_t n = strlen(name), i;
	char *c = malloc(sizeof(TG_MCP_CURSOR_PREFIX) + 2 * n);

	if (!c)
		return NULL;
	memcpy(c, TG_MCP_CURSOR_PREFIX, sizeof(TG_MCP_CURSOR_PREFIX) - 1);
	for (i = 0; i < n; i++)
		snprintf(c + sizeof(TG_MCP_CURSOR_PREFIX) - 1 + 2 * i, 3, "%02x",
			 (unsigned char)name[i]);
	c[sizeof(TG_MCP_CURSOR_PREFIX) - 1 + 2 * n] = '\0';
	return c;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* 0 and the name in out[65], or -1 for anything that is not our cursor. */
static int cursor_decode(char out[65], const char *cursor)
{
	size_t plen = sizeof(TG_MCP_CURSOR_PREFIX) - 1, n, i;
	const char *hex;

	if (strncmp(cursor, TG_MCP_CURSOR_PREFIX, plen) != 0)
		return -1;
	hex = cursor + plen;
	n = strlen(hex);
	if (n == 0 || n % 2 || n / 2 > 64)
		return -1;
	for (i = 0; i < n / 2; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (char)(hi << 4 | lo);
	}
	out[n / 2] = '\0';
	return tg_name_valid(out) ? 0 : -1;
}

/* A registered tool as a tools/list entry. */
static json_t *tool_entry(const json_t *t)
{
	json_t *schema = json_object_get(t, "input_schema");
	json_t *oschema = json_object_get(t, "output_schema");
	json_t *caps = json_object_get(t, "capabilities");
	const char *desc = json_string_value(json_object_get(t, "description"));
	int writes = 0;
	size_t i;
	json_t *c, *e;

	json_array_foreach(caps, i, c) {
		if (json_is_string(c) && strcmp(json_string_value(c), "workspace:write") == 0)
			writes = 1;
	}
	e = json_pack("{s:O, s:s, s:o}", "name", json_object_get(t, "name"), "description",
		      desc ? desc : "", "inputSchema",
		      json_is_object(schema) ? json_incref(schema)
					     : json_pack("{s:s}", "type", "object"));
	if (!e)
		return NULL;
	if (json_is_object(oschema) &&
	    json_object_set_new(e, "outputSchema", tg_mcp_output_schema(oschema)) < 0)
		goto fail;
	/* No network, a private /tmp: only workspace:write leaves a trace. */
	if (json_object_set_new(e, "annotations",
				json_pack("{s:b, s:b, s:b}", "readOnlyHint", !writes,
					  "destructiveHint", writes, "openWorldHint", 0)) < 0)
		goto fail;
	return e;
fail:
	json_decref(e);
	return NULL;
}

int tg_mcp_visible_tools(tg_mcp_server *s, json_t **out)
{
	_cleanup_json_ json_t *reg = NULL;
	_cleanup_json_ json_t *vis = NULL;
	size_t i;
	json_t *t;
	int r;

	*out = NULL;
	r = s->be.list(s->be.ctx, &reg);
	if (r < 0)
		return r;
	if (!json_is_array(reg))
		return tg_error_set(TG_ERR_INTERNAL, "registry list: not an array");
	vis = json_array();
	if (!vis)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	json_array_foreach(reg, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		json_t *caps = json_object_get(t, "capabilities");

		if (!name || !tg_name_valid(name) || tg_mcp_is_meta_tool(name))
			continue;
		if (tg_authorize(tg_mcp_principal(s), TG_ACTION_LIST, name, caps ? caps : json_null(),
				 NULL) < 0) {
			tg_error_clear();
			continue;
		}
		if (json_array_append(vis, t) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	*out = TG_TAKE_PTR(vis);
	return 0;
}

int tg_mcp_tools_list(tg_mcp_server *s, const json_t *id, const json_t *params)
{
	_cleanup_json_ json_t *reg = NULL;
	_cleanup_json_ json_t *all = NULL;
	_cleanup_free_ json_t **sorted = NULL;
	_cleanup_free_ char *next = NULL;
	const char *cursor = NULL;
	char after[65] = "";
	json_t *page, *result, *t;
	size_t n, i, first = 0, count;
	int r;

	if (params && tg_json_get_string(&cursor, params, "cursor", 0) < 0)
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS, "tools/list: %s",
					  tg_error_last()->message);
	if (cursor && cursor_decode(after, cursor) < 0)
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS,
					  "tools/list: invalid cursor");
	r = tg_mcp_visible_tools(s, &reg);
	if (r < 0)
		return tg_mcp_reply_error(s, id, TG_RPC_INTERNAL_ERROR, "tools/list: %s",
					  tg_error_last()->message);
	all = tg_mcp_meta_tools();
	if (!all)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (s->be.run && json_array_append_new(all, tg_mcp_program_tool()) < 0)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (i = json_array_size(all); i-- > 0;) {
		/* a principal limited to some tools may lack the meta-tools too */
		if (!tg_mcp_tool_allowed(s, TG_ACTION_LIST,
					 json_string_value(json_object_get(json_array_get(all, i),
									   "name")))) {
			tg_error_clear();
			json_array_remove(all, i);
		}
	}
	json_array_foreach(reg, i, t) {
		if (json_array_append_new(all, tool_entry(t)) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	n = json_array_size(all);
	sorted = calloc(n ? n : 1, sizeof(*sorted));
	if (!sorted)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (i = 0; i < n; i++)
		sorted[i] = json_array_get(all, i);
	qsort(sorted, n, sizeof(*sorted), tool_name_cmp);
	if (after[0]) {
		while (first < n &&
		       strcmp(json_string_value(json_object_get(sorted[first], "name")), after) <= 0)
			first++;
	}
	count = n - first;
	if (count > s->opt.page_size)
		count = s->opt.page_size;
	page = json_array();
	if (!page)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (i = first; i < first + count; i++) {
		if (json_array_append(page, sorted[i]) < 0) {
			json_decref(page);
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		}
	}
	result = json_pack("{s:o}", "tools", page);
	if (!result)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	/* 2026-07-28: a cache hint; the list depends on the principal */
	if (s->modern && json_object_update_new(result, json_pack("{s:i, s:s}", "ttlMs", 0,
								   "cacheScope", "private")) < 0) {
		json_decref(result);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if (first + count < n) {
		next = cursor_encode(
			json_string_value(json_object_get(sorted[first + count - 1], "name")));
		if (!next || json_object_set_new(result, "nextCursor", json_string(next)) < 0) {
			json_decref(result);
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		}
	}
	return tg_mcp_reply(s, id, result);
}

/* ---- dispatch ------------------------------------------------------------------ */

static void handle_notification(tg_mcp_server *s, const char *method, const json_t *params)
{
	if (strcmp(method, "notifications/initialized") == 0)
		s->client_ready = 1;
	else if (strcmp(method, "notifications/cancelled") == 0)
		tg_mcp_modern_cancel(s, params);
	/* notifications/cancelled of a tools/call in flight is read by the
	 * watcher of cancel.c while the call runs; one that arrives here came
	 * after its request was answered. Others: ignored. */
}

int tg_mcp_server_handle(tg_mcp_server *s, const char *line, size_t len)
{
	_cleanup_json_ json_t *msg = NULL;
	tg_json_limits lim = { s->opt.max_message, 64 };
	const json_t *id, *params, *jv;
	const char *method;
	size_t i;

	for (i = 0; i < len; i++) {
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			break;
	}
	if (i == len)
		return 0; /* a blank line is no message */
	if (tg_json_parse(&msg, line, len, &lim) < 0)
		return tg_mcp_reply_error(s, NULL, TG_RPC_PARSE_ERROR, "Parse error: %s",
					  tg_error_last()->message);
	if (json_is_array(msg))
		return tg_mcp_reply_error(s, NULL, TG_RPC_INVALID_REQUEST,
					  "Invalid Request: batches are not supported");
	if (!json_is_object(msg))
		return tg_mcp_reply_error(s, NULL, TG_RPC_INVALID_REQUEST,
					  "Invalid Request: a message must be a JSON object");
	tg_prof_mark(TG_PROF_PARSED);
	id = json_object_get(msg, "id");
	if (id && !json_is_string(id) && !json_is_integer(id))
		return tg_mcp_reply_error(s, NULL, TG_RPC_INVALID_REQUEST,
					  "Invalid Request: id must be a string or an integer");
	jv = json_object_get(msg, "jsonrpc");
	if (!json_is_string(jv) || strcmp(json_string_value(jv), "2.0") != 0)
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_REQUEST,
					  "Invalid Request: jsonrpc must be \"2.0\"");
	jv = json_object_get(msg, "method");
	if (!jv) {
		if (id && (json_object_get(msg, "result") || json_object_get(msg, "error")))
			return 0; /* a response: we send no requests, nothing to match */
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_REQUEST,
					  "Invalid Request: method is required");
	}
	if (!json_is_string(jv))
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_REQUEST,
					  "Invalid Request: method must be a string");
	method = json_string_value(jv);
	params = json_object_get(msg, "params");
	if (params && !json_is_object(params)) {
		/* JSON-RPC allows arrays (a valid notification stays unanswered);
		 * MCP's params are objects. Anything else is no request at all. */
		if (!json_is_array(params))
			return tg_mcp_reply_error(s, id, TG_RPC_INVALID_REQUEST,
						  "Invalid Request: params must be an object");
		if (!id)
			return 0;
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS,
					  "Invalid params: params must be an object");
	}
	if (!id) {
		handle_notification(s, method, params);
		return 0;
	}
	s->modern = 0;
	if (tg_mcp_is_modern(method, params))
		return tg_mcp_modern_handle(s, id, method, params);
	if (strcmp(method, "initialize") == 0)
		return handle_initialize(s, id, params);
	if (strcmp(method, "ping") == 0)
		return tg_mcp_reply(s, id, json_object());
	if (strcmp(method, "tools/list") == 0 || strcmp(method, "tools/call") == 0) {
		if (!s->initialized)
			return tg_mcp_reply_error(s, id, TG_RPC_INVALID_REQUEST,
						  "%s: the session is not initialized (send "
						  "initialize first)",
						  method);
		if (method[6] == 'l')
			return tg_mcp_tools_list(s, id, params);
		return tg_mcp_call_cancellable(s, id, params);
	}
	if (strcmp(method, "resources/list") == 0 || strcmp(method, "resources/read") == 0) {
		if (!s->initialized)
			return tg_mcp_reply_error(s, id, TG_RPC_INVALID_REQUEST,
						  "%s: the session is not initialized (send "
						  "initialize first)",
						  method);
		if (method[10] == 'l')
			return tg_mcp_resources_list(s, id, params);
		return tg_mcp_resources_read(s, id, params);
	}
	return tg_mcp_reply_error(s, id, TG_RPC_METHOD_NOT_FOUND, "Method not found: %.100s",
				  method);
}

int tg_mcp_server_oversize(tg_mcp_server *s)
{
	return tg_mcp_reply_error(s, NULL, TG_RPC_INVALID_REQUEST,
				  "Invalid Request: message longer than %zu bytes",
				  s->opt.max_message);
}

/* ---- the I/O loop ----------------------------------------------------------------- */

static int flush_out(tg_mcp_server *s, int fd)
{
	size_t off = 0;

	if (s->out.len)
		tg_prof_mark(TG_PROF_REPLY);

	while (off < s->out.len) {
		ssize_t n = write(fd, s->out.ptr + off, s->out.len - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			tg_buf_clear(&s->out);
			return tg_error_errno(TG_ERR_IO, errno, "write");
		}
		off += (size_t)n;
	}
	tg_buf_clear(&s->out);
	tg_prof_mark(TG_PROF_WRITTEN);
	tg_prof_flush();
	return 0;
}

int tg_mcp_serve(tg_mcp_server *s, int in_fd, int out_fd)
{
	tg_mcp_reader rd;
	uint64_t next_check = tg_now_ms() + s->opt.poll_ms;
	int r = 0;

	tg_mcp_reader_init(&rd, in_fd, s->opt.max_message);
	s->io_rd = &rd;
	s->io_in = in_fd;
	s->io_out = out_fd;
	for (;;) {
		const char *line;
		size_t len;
		int got;
		char *kept;

		/* Lines that arrived while a client was asked for an approval
		 * (elicit.c) came first: serve them before the buffered ones. */
		while (tg_mcp_deferred_pop(s, &kept, &len)) {
			r = tg_mcp_deferred_is_oversize(kept, len) ? tg_mcp_server_oversize(s)
								    : tg_mcp_server_handle(s, kept, len);
			free(kept);
			if (r == 0)
				r = flush_out(s, out_fd);
			if (r < 0)
				goto out;
		}

		/* Answer everything already buffered; lines read while a request
		 * ran (deferred: they came first) are served before the rest. */
		got = TG_MCP_READ_NONE;
		while (!s->ndeferred &&
		       ((got = tg_mcp_reader_next(&rd, &line, &len)) == TG_MCP_READ_LINE ||
			got == TG_MCP_READ_OVERSIZE)) {
			r = got == TG_MCP_READ_LINE ? tg_mcp_server_handle(s, line, len)
						    : tg_mcp_server_oversize(s);
			if (r < 0)
				goto out;
			/* Own changes (create, rollback) are news at once. */
			if (s->toolset_dirty || tg_now_ms() >= next_check) {
				s->toolset_dirty = 0;
				r = tg_mcp_server_check_toolset(s);
				if (r < 0)
					goto out;
				next_check = tg_now_ms() + s->opt.poll_ms;
			}
			r = flush_out(s, out_fd);
			if (r < 0)
				goto out;
		}
		if (s->ndeferred)
			continue;
		if (got == TG_MCP_READ_EOF)
			break;

		uint64_t now = tg_now_ms();
		if (now >= next_check) {
			r = tg_mcp_server_check_toolset(s);
			if (r == 0)
				r = flush_out(s, out_fd);
			if (r < 0)
				goto out;
			next_check = now + s->opt.poll_ms;
			continue;
		}
		struct pollfd pfd = { .fd = in_fd, .events = POLLIN };
		int pr = poll(&pfd, 1, (int)(next_check - now));
		if (pr < 0) {
			if (errno == EINTR)
				continue;
			r = tg_error_errno(TG_ERR_IO, errno, "poll");
			goto out;
		}
		if (pr == 0)
			continue;
		tg_prof_mark(TG_PROF_READ);
		r = tg_mcp_reader_fill(&rd);
		if (r < 0)
			goto out;
		r = 0;
	}
out:
	s->io_rd = NULL;
	tg_mcp_reader_free(&rd);
	return r;
}
