/*
 * mcp/http.c: the Streamable HTTP transport of `toolgate serve --http` on
 * libmicrohttpd (a thread per connection, capped). One endpoint, /mcp:
 *  - every request passes, in order: the Origin check (403: DNS-rebinding
 *    defence; absent is fine, else it must be this server's own loopback
 *    origin or one allowed with --allow-origin), the bearer token (401 with
 *    WWW-Authenticate naming the RFC 9728 metadata at
 *    /.well-known/oauth-protected-resource), then the body cap (413);
 *  - POST carries one JSON-RPC message, or in a 2025-03-26 session a
 *    batch (an array: answered with an array, 202 when it holds no
 *    request; mcp/batch.c). A 2026-07-28 request (params._meta
 *    protocol version, or server/discover) is served statelessly for its
 *    principal; MCP-Protocol-Version, Mcp-Method and Mcp-Name must match the
 *    body (http_headers.c; 400 with -32020 otherwise), an unsupported version is 400 with -32022, an
 *    unknown method 404. subscriptions/listen answers with an SSE stream
 *    that carries list_changed. initialize opens an initialize-era session
 *    (Mcp-Session-Id); its later requests name it (404 for an unknown one,
 *    400 when missing), GET opens its SSE stream of list_changed, DELETE
 *    ends it. A notification is 202. A tool the principal may not use is 403.
 * Request and header sizes, idle and whole-request timeouts, the number
 * of connections (in all and per peer address) and the body bytes in
 * flight are capped; the token is checked as soon as the headers arrive
 * (http_guard.c holds the deadlines, the eviction of unauthenticated
 * connections and the budget; http_pool.c the watcher). SSE streams are
 * http_stream.c's; a tools/call whose notifications go out live while it
 * runs is http_live.c's. The registry work runs in worker processes
 * (http_worker.c).
 * GET /metrics (same Origin and token checks; a token that may approve)
 * answers the home's figures in Prometheus text (http_metrics.c).
 */
#include "http_internal.h"
#include "mhd_dl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#define MCP_PATH "/mcp"
#define PRM_PATH "/.well-known/oauth-protected-resource"
#define METRICS_PATH "/metrics"

typedef struct http_req {
	tg_buf body;
	int too_big;
	int over_budget;     /* past the server's body budget: dropped, 503 */
	int auth;            /* authenticate(): 0 ok, 1 missing, 2 bad */
	size_t reserved;     /* body bytes reserved in the budget (http_guard.c) */
	json_t *principal;   /* the token's row */
	conn_slot *slot;
} http_req;

int tg_mcp_addr_loopback(const char *addr)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (strcmp(addr, "localhost") == 0)
		return 1;
	if (inet_pton(AF_INET, addr, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, addr, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6);
	return 0;
}

/* ---- responses ------------------------------------------------------------- */

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *ctype,
				 const char *body, const char *hname, const char *hval,
				 const char *h2name, const char *h2val)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(strlen(body), (void *)body,
					       MHD_RESPMEM_MUST_COPY);
	if (!resp)
		return MHD_NO;
	if (ctype)
		MHD_add_response_header(resp, "Content-Type", ctype);
	if (hname)
		MHD_add_response_header(resp, hname, hval);
	if (h2name)
		MHD_add_response_header(resp, h2name, h2val);
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* A JSON-RPC error with no id (or the given one) as the body of a status. */
static enum MHD_Result send_rpc_error(struct MHD_Connection *c, unsigned status,
				      const json_t *id, int code, const char *msg,
				      const char *hname, const char *hval)
{
	_cleanup_json_ json_t *e = json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id",
					     id ? id : json_null(), "error", "code", code,
					     "message", msg);
	_cleanup_free_ char *text = e ? tg_json_dump(e) : NULL;

	return send_text(c, status, "application/json", text ? text : "{}", hname, hval, NULL,
			 NULL);
}

static enum MHD_Result unauthorized(tg_http *h, struct MHD_Connection *c, int bad)
{
	char www[512];

	snprintf(www, sizeof(www), "Bearer realm=\"toolgate\", resource_metadata=\"%s%s\"%s",
		 h->base_url, PRM_PATH, bad ? ", error=\"invalid_token\"" : "");
	return send_rpc_error(c, MHD_HTTP_UNAUTHORIZED, NULL, TG_RPC_INVALID_REQUEST,
			      bad ? "Unauthorized: the bearer token is not valid"
				  : "Unauthorized: a bearer token is required",
			      "WWW-Authenticate", www);
}

/* ---- checks ---------------------------------------------------------------- */

static int origin_ok(tg_http *h, const char *origin)
{
	char own[96];
	const char *hosts[] = { "127.0.0.1", "localhost", "[::1]" };
	size_t i;

	if (!origin)
		return 1; /* not a browser */
	for (i = 0; i < TG_ARRAY_SIZE(hosts); i++) {
		snprintf(own, sizeof(own), "http://%s:%s", hosts[i], h->port_s);
		if (strcmp(origin, own) == 0)
			return 1;
	}
	for (i = 0; h->opt.origins && h->opt.origins[i]; i++) {
		if (strcmp(origin, h->opt.origins[i]) == 0)
			return 1;
	}
	return 0;
}

/* The principal of the request: 0 and *out (the token row) and *secret
 * (the token; "" without auth), 1 = missing, 2 = bad. */
static int authenticate(tg_http *h, struct MHD_Connection *c, json_t **out, const char **secret)
{
	const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	int r;

	*out = NULL;
	*secret = "";
	if (h->opt.no_auth) {
		*out = json_pack("{s:s, s:I, s:I, s:n, s:b}", "name", "anonymous", "max_calls",
				 (json_int_t)h->opt.session.max_calls, "max_creates",
				 (json_int_t)h->opt.session.max_creates, "tools", "may_approve", 0);
		return *out ? 0 : 2;
	}
	if (!auth)
		return 1;
	if (strncasecmp(auth, "Bearer ", 7) != 0)
		return 2;
	auth += 7;
	while (*auth == ' ')
		auth++;
	if (strlen(auth) != TG_TOKEN_LEN)
		return 2;
	r = http_worker_call(h, json_pack("{s:s, s:s}", "op", "token", "secret", auth), out);
	*secret = auth;
	return r < 0 || !*out ? 2 : 0;
}

/* ---- sessions -------------------------------------------------------------- */

static void principal_options(tg_http *h, tg_mcp_options *o, const json_t *p)
{
	const json_t *tools = json_object_get(p, "tools");

	*o = h->opt.session;
	o->principal = json_string_value(json_object_get(p, "name"));
	o->max_calls = (uint32_t)json_integer_value(json_object_get(p, "max_calls"));
	o->max_creates = (uint32_t)json_integer_value(json_object_get(p, "max_creates"));
	o->tool_patterns = json_is_array(tools) ? tools : NULL;
	o->quota = http_quota_get(h, o->principal);
	o->may_approve = json_is_true(json_object_get(p, "may_approve"));
}

/* ---- POST -------------------------------------------------------------------- */

/* Where the last line of the output begins (the answer; lines before it
 * are notifications queued while the request ran, notify.c). */
static size_t last_line(const tg_buf *out)
{
	size_t i = out->len;

	while (i && out->ptr[i - 1] == '\n')
		i--;
	while (i && out->ptr[i - 1] != '\n')
		i--;
	return i;
}

/* The notifications and then the answer as one SSE response (Streamable
 * HTTP lets a POST's answer be a text/event-stream): one "message" event a
 * line. The client must accept it; else it gets the answer alone. */
static enum MHD_Result send_events(struct MHD_Connection *c, tg_buf *out, const char *session_hdr)
{
	tg_buf sse = TG_BUF_INIT(0);
	enum MHD_Result ret;
	size_t i = 0;

	while (i < out->len) {
		const char *nl = memchr(out->ptr + i, '\n', out->len - i);
		size_t end = nl ? (size_t)(nl - out->ptr) : out->len;
		if (end > i && (tg_buf_puts(&sse, "event: message\ndata: ") < 0 ||
				tg_buf_append(&sse, out->ptr + i, end - i) < 0 ||
				tg_buf_puts(&sse, "\n\n") < 0)) {
			tg_buf_free(&sse);
			tg_buf_clear(out);
			return send_rpc_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
					      TG_RPC_INTERNAL_ERROR, "internal error", NULL, NULL);
		}
		i = end + 1;
	}
	tg_buf_clear(out);
	ret = send_text(c, MHD_HTTP_OK, "text/event-stream", sse.ptr ? sse.ptr : "",
			session_hdr ? "Mcp-Session-Id" : NULL, session_hdr, "Cache-Control",
			"no-cache");
	tg_buf_free(&sse);
	return ret;
}

int http_respond(struct MHD_Connection *c, tg_buf *out, const http_outcome *oc,
		 const char *session_hdr)
{
	_cleanup_json_ json_t *reply = NULL;
	unsigned status = MHD_HTTP_OK;
	enum MHD_Result ret;
	int code = 0;

	if (oc->failed) {
		tg_buf_clear(out);
		return send_rpc_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
				      TG_RPC_INTERNAL_ERROR, "internal error", NULL, NULL);
	}
	if (out->len == 0) {
		ret = send_text(c, MHD_HTTP_ACCEPTED, NULL, "", session_hdr ? "Mcp-Session-Id" : NULL,
				session_hdr, NULL, NULL);
		return ret;
	}
	/* one message (or batch) per request: its answer is the last line */
	if (last_line(out) > 0) {
		const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
		size_t from = last_line(out);
		if (accept && strstr(accept, "text/event-stream"))
			return send_events(c, out, session_hdr);
		memmove(out->ptr, out->ptr + from, out->len - from);
		out->len -= from;
	}
	reply = json_loadb(out->ptr, out->len, 0, NULL);
	if (reply && json_is_object(json_object_get(reply, "error")))
		code = (int)json_integer_value(
			json_object_get(json_object_get(reply, "error"), "code"));
	if (json_is_array(reply))
		status = MHD_HTTP_OK; /* a batch: each element carries its own error */
	else if (oc->forbidden)
		status = MHD_HTTP_FORBIDDEN;
	else if (code == TG_RPC_UNSUPPORTED_VERSION || code == TG_RPC_HEADER_MISMATCH ||
		 (code == TG_RPC_INVALID_PARAMS && oc->bad_meta) ||
		 code == TG_RPC_PARSE_ERROR ||
		 (code == TG_RPC_INVALID_REQUEST && json_is_null(json_object_get(reply, "id"))))
		status = MHD_HTTP_BAD_REQUEST; /* not a request at all */
	else if (oc->modern && code == TG_RPC_METHOD_NOT_FOUND)
		status = MHD_HTTP_NOT_FOUND;
	/* strip the stdio framing newline */
	while (out->len && (out->ptr[out->len - 1] == '\n'))
		out->len--;
	tg_buf_append(out, "", 1);
	ret = send_text(c, status, "application/json", out->ptr,
			session_hdr ? "Mcp-Session-Id" : NULL, session_hdr, NULL, NULL);
	tg_buf_clear(out);
	return ret;
}

/* Run one message (or batch) through a session; answer with its output. */
static enum MHD_Result answer(struct MHD_Connection *c, tg_mcp_server *srv, const char *body,
			      size_t len, int modern, const char *session_hdr)
{
	http_outcome oc = { 0 };

	srv->forbidden = 0;
	srv->bad_meta = 0;
	oc.failed = tg_mcp_server_handle(srv, body, len) < 0;
	oc.forbidden = srv->forbidden;
	oc.bad_meta = srv->bad_meta;
	oc.modern = modern;
	return http_respond(c, tg_mcp_server_output(srv), &oc, session_hdr);
}

static int header_mismatch(struct MHD_Connection *c, const char *method, const json_t *params,
			   const json_t *id, enum MHD_Result *ret)
{
	char msg[256];

	if (!tg_http_headers_mismatch(
		    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Mcp-Method"),
		    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "MCP-Protocol-Version"),
		    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Mcp-Name"), method, params,
		    msg, sizeof(msg)))
		return 0;
	*ret = send_rpc_error(c, MHD_HTTP_BAD_REQUEST, id, TG_RPC_HEADER_MISMATCH, msg, NULL, NULL);
	return 1;
}

/* A tools/call whose notifications go out as they come (http_live.c): the
 * run goes to a thread of its own, which takes the session's lock. */
static enum MHD_Result live(tg_http *h, struct MHD_Connection *c, http_req *rq, http_session *s,
			    const json_t *msg)
{
	http_outcome oc = { 0 };
	tg_buf out = TG_BUF_INIT(0);
	enum MHD_Result ret;
	int r;

	pthread_mutex_unlock(&s->lock);
	r = http_live_answer(h, c, rq->slot, s, &rq->body, msg, &out, &oc);
	if (r > 0) {
		ret = oc.queued ? MHD_YES : MHD_NO;
	} else {
		oc.failed |= r < 0;
		ret = http_respond(c, &out, &oc, s->id);
	}
	tg_buf_free(&out);
	http_session_unref(h, s);
	return ret;
}

static enum MHD_Result handle_post(tg_http *h, struct MHD_Connection *c, http_req *rq,
				   const json_t *principal)
{
	_cleanup_json_ json_t *msg = NULL;
	const char *sid = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Mcp-Session-Id");
	const json_t *params, *id, *meta;
	const char *method;
	tg_mcp_options o;
	enum MHD_Result ret;
	tg_mcp_server *srv = NULL;
	http_session *s;
	int r, ended;

	principal_options(h, &o, principal);
	msg = json_loadb(rq->body.ptr ? rq->body.ptr : "", rq->body.len, JSON_REJECT_DUPLICATES,
			 NULL);
	method = json_string_value(json_object_get(msg, "method"));
	params = json_object_get(msg, "params");
	id = json_object_get(msg, "id");
	meta = json_is_object(params) ? json_object_get(params, "_meta") : NULL;
	if (method && (!params || json_is_object(params)) && tg_mcp_is_modern(method, params)) {
		if (header_mismatch(c, method, params, id, &ret))
			return ret;
		if (strcmp(method, "subscriptions/listen") == 0 && id &&
		    json_is_object(json_object_get(params, "notifications")) &&
		    json_is_string(json_object_get(meta, TG_MCP_META_VERSION)) &&
		    strcmp(json_string_value(json_object_get(meta, TG_MCP_META_VERSION)),
			   TG_MCP_PROTOCOL_MODERN) == 0)
			return http_open_stream(h, c, rq->slot, id, NULL);
		/* stateless: a fresh session object per request, the principal's
		 * quota; it parses the body itself, so this parse goes now (a
		 * 4 MiB body's second copy, issue 30) */
		json_decref(msg);
		msg = NULL;
		o.session = "modern";
		r = tg_mcp_server_new(&srv, &h->be, &o);
		if (r < 0)
			return send_rpc_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
					      TG_RPC_INTERNAL_ERROR, "internal error", NULL, NULL);
		srv->modern_started = 1; /* audited per call, not as a session */
		http_slot_exempt(h, rq->slot, 1);
		ret = answer(c, srv, rq->body.ptr, rq->body.len, 1, NULL);
		srv->modern_started = 0;
		tg_mcp_server_free(srv);
		return ret;
	}
	if (method && strcmp(method, "initialize") == 0 && !sid) {
		size_t i;
		s = calloc(1, sizeof(*s));
		if (!s || tg_mcp_server_new(&s->srv, &h->be, &o) < 0) {
			free(s);
			return send_rpc_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
					      TG_RPC_INTERNAL_ERROR, "internal error", NULL, NULL);
		}
		/* the option strings are the request's: keep copies in the session */
		snprintf(s->principal, sizeof(s->principal), "%s", o.principal);
		if (rq->slot)
			memcpy(s->secret, rq->slot->secret, sizeof(s->secret));
		snprintf(s->id, sizeof(s->id), "%s", tg_mcp_server_session(s->srv));
		s->srv->opt.principal = s->principal;
		s->patterns = o.tool_patterns ? json_deep_copy(o.tool_patterns) : NULL;
		s->srv->opt.tool_patterns = s->patterns;
		s->h = h;
		s->srv->exchange = http_exchange;
		s->srv->exchange_ctx = s;
		pthread_mutex_init(&s->lock, NULL);
		s->refs = 2; /* the table and this request */
		pthread_mutex_lock(&h->lock);
		for (i = 0; i < TG_HTTP_MAX_SESSIONS && h->sessions[i]; i++)
			;
		if (i < TG_HTTP_MAX_SESSIONS)
			h->sessions[i] = s;
		pthread_mutex_unlock(&h->lock);
		if (i == TG_HTTP_MAX_SESSIONS) {
			s->refs = 1;
			http_session_unref(h, s);
			return send_rpc_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, id,
					      TG_RPC_INTERNAL_ERROR, "too many sessions", NULL, NULL);
		}
	} else {
		if (!sid)
			return send_rpc_error(c, MHD_HTTP_BAD_REQUEST, id, TG_RPC_INVALID_REQUEST,
					      "Bad Request: Mcp-Session-Id is required (send "
					      "initialize first)", NULL, NULL);
		s = http_session_find(h, sid, o.principal);
		if (!s)
			return send_rpc_error(c, MHD_HTTP_NOT_FOUND, id, TG_RPC_INVALID_REQUEST,
					      "Not Found: no such session", NULL, NULL);
		if (!method && id && (json_object_get(msg, "result") || json_object_get(msg, "error"))) {
			/* the client's response to our elicitation: the request
			 * that waits for it holds the session's lock */
			http_elicit_answer(h, s, msg);
			http_session_unref(h, s);
			return send_text(c, MHD_HTTP_ACCEPTED, NULL, "", NULL, NULL, NULL, NULL);
		}
		if (method && !id && strcmp(method, "notifications/cancelled") == 0 &&
		    http_cancel_request(h, s, msg)) {
			/* the tools/call in flight, which holds the session's lock:
			 * its build or run is killed, its response not sent */
			http_session_unref(h, s);
			return send_text(c, MHD_HTTP_ACCEPTED, NULL, "", NULL, NULL, NULL, NULL);
		}
	}
	pthread_mutex_lock(&s->lock);
	{
		const char *hv = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							     "MCP-Protocol-Version");
		/* the client SHOULD send the negotiated version; one that is
		 * not an initialize-era version spoken here MUST be 400. The
		 * session keeps its negotiated era either way. */
		if (hv && s->srv->initialized && !tg_mcp_era(hv)) {
			pthread_mutex_unlock(&s->lock);
			http_session_unref(h, s);
			return send_rpc_error(c, MHD_HTTP_BAD_REQUEST, id, TG_RPC_INVALID_REQUEST,
					      "Bad Request: MCP-Protocol-Version is not a "
					      "version this server speaks in an initialize-era "
					      "session", NULL, NULL);
		}
	}
	http_slot_exempt(h, rq->slot, 1);
	if (http_live_wanted(c, s, msg))
		return live(h, c, rq, s, msg);
	r = http_cancel_begin(h, s, msg);
	if (r < 0) {
		pthread_mutex_unlock(&s->lock);
		http_session_unref(h, s);
		return send_rpc_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
				      TG_RPC_INTERNAL_ERROR, "internal error", NULL, NULL);
	}
	ret = answer(c, s->srv, rq->body.ptr ? rq->body.ptr : "", rq->body.len, 0, s->id);
	if (r > 0)
		http_cancel_end(h, s);
	ended = tg_mcp_server_ended(s->srv);
	pthread_mutex_unlock(&s->lock);
	/* refused on and on after a budget was spent (refusals.c): the
	 * session goes, its next request is 404 */
	if (ended)
		http_session_close(h, s);
	http_session_unref(h, s);
	return ret;
}

/* ---- the access handler ------------------------------------------------------ */

static enum MHD_Result protected_resource(tg_http *h, struct MHD_Connection *c)
{
	char body[512];

	snprintf(body, sizeof(body),
		 "{\"resource\":\"%s" MCP_PATH "\",\"bearer_methods_supported\":[\"header\"],"
		 "\"resource_name\":\"toolgate\",\"authorization_servers\":[],"
		 "\"resource_documentation\":\"toolgate token add NAME prints a static bearer "
		 "token\"}",
		 h->base_url);
	return send_text(c, MHD_HTTP_OK, "application/json", body, NULL, NULL, NULL, NULL);
}

/* GET /metrics (http_metrics.c): for a token that may approve (docs/MCP.md,
 * "Metrics"): the figures of the whole home are an operator's. */
static enum MHD_Result metrics(tg_http *h, struct MHD_Connection *c, const char *method,
			       const json_t *principal)
{
	_cleanup_json_ json_t *m = NULL;
	_cleanup_free_ char *text = NULL;

	if (strcmp(method, "GET") != 0)
		return send_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
				 "method not allowed\n", "Allow", "GET", NULL, NULL);
	if (!json_is_true(json_object_get(principal, "may_approve")))
		return send_text(c, MHD_HTTP_FORBIDDEN, "text/plain",
				 "Forbidden: /metrics needs a token that may approve (toolgate token "
				 "add NAME --may-approve)\n", NULL, NULL, NULL, NULL);
	if (http_worker_call(h, json_pack("{s:s}", "op", "metrics"), &m) < 0 || !m ||
	    !(text = http_metrics_text(m))) {
		tg_mcp_log_error("metrics", NULL);
		return send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain",
				 "the metrics could not be read\n", NULL, NULL, NULL, NULL);
	}
	return send_text(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", text,
			 NULL, NULL, NULL, NULL);
}

/* The first call of a request, its headers arrived: the checks that need
 * no body, the token (the connection counts as authenticated from here,
 * http_guard.c) and the body's share of the server's budget. */
static enum MHD_Result request_start(tg_http *h, struct MHD_Connection *c, const char *url,
				     http_req *rq)
{
	const char *origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
	const char *cl, *secret = NULL;
	uint64_t len;

	if (!origin_ok(h, origin))
		return send_rpc_error(c, MHD_HTTP_FORBIDDEN, NULL, TG_RPC_INVALID_REQUEST,
				      "Forbidden: Origin not allowed", NULL, NULL);
	if (strcmp(url, PRM_PATH) == 0 || strcmp(url, PRM_PATH MCP_PATH) == 0)
		return protected_resource(h, c);
	if (strcmp(url, MCP_PATH) != 0 && strcmp(url, METRICS_PATH) != 0)
		return send_text(c, MHD_HTTP_NOT_FOUND, "text/plain", "not found\n", NULL, NULL,
				 NULL, NULL);
	cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
	len = cl ? strtoull(cl, NULL, 10) : 0;
	if (len > h->opt.max_body)
		return send_rpc_error(c, MHD_HTTP_CONTENT_TOO_LARGE, NULL, TG_RPC_INVALID_REQUEST,
				      "Payload Too Large: the body is over the cap", NULL, NULL);
	http_slot_headers(h, rq->slot, 1, NULL);
	rq->auth = authenticate(h, c, &rq->principal, &secret);
	http_slot_headers(h, rq->slot, 0, rq->auth ? NULL : secret);
	/* a body without a token is read and dropped, never kept */
	if (!rq->auth && len) {
		if (http_body_reserve(h, (size_t)len) < 0)
			rq->over_budget = 1;
		else
			rq->reserved = (size_t)len;
	}
	return MHD_YES;
}

/* Body bytes: kept within the cap and the budget, else dropped. */
static void request_data(tg_http *h, http_req *rq, const char *data, size_t n)
{
	if (rq->auth || rq->too_big || rq->over_budget)
		return;
	if (rq->body.len + n > rq->reserved) {
		size_t more = rq->body.len + n - rq->reserved;
		if (rq->body.len + n > h->opt.max_body) {
			rq->too_big = 1;
		} else if (http_body_reserve(h, more) < 0) {
			rq->over_budget = 1;
		} else {
			rq->reserved += more;
		}
		if (rq->too_big || rq->over_budget) {
			tg_buf_free(&rq->body);
			return;
		}
	}
	if (tg_buf_append(&rq->body, data, n) < 0) {
		rq->too_big = 1;
		tg_buf_free(&rq->body);
	}
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *data,
				  size_t *data_size, void **req_cls)
{
	tg_http *h = cls;
	http_req *rq = *req_cls;

	(void)version;
	if (!rq) {
		const union MHD_ConnectionInfo *ci;
		rq = calloc(1, sizeof(*rq));
		if (!rq)
			return MHD_NO;
		tg_buf_init(&rq->body, h->opt.max_body);
		ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
		rq->slot = ci ? ci->socket_context : NULL;
		*req_cls = rq;
		return request_start(h, c, url, rq);
	}
	if (*data_size) {
		request_data(h, rq, data, *data_size);
		*data_size = 0;
		return MHD_YES;
	}
	if (rq->auth)
		return unauthorized(h, c, rq->auth == 2);
	if (rq->too_big)
		return send_rpc_error(c, MHD_HTTP_CONTENT_TOO_LARGE, NULL, TG_RPC_INVALID_REQUEST,
				      "Payload Too Large: the body is over the cap", NULL, NULL);
	if (rq->over_budget)
		return send_rpc_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, NULL, TG_RPC_INTERNAL_ERROR,
				      "Service Unavailable: the server's budget of request bodies "
				      "in flight is spent; retry",
				      "Retry-After", "1");
	if (strcmp(url, METRICS_PATH) == 0)
		return metrics(h, c, method, rq->principal);
	if (strcmp(method, "POST") == 0)
		return handle_post(h, c, rq, rq->principal);
	if (strcmp(method, "GET") == 0 || strcmp(method, "DELETE") == 0) {
		const char *sid = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Mcp-Session-Id");
		const char *pname = json_string_value(json_object_get(rq->principal, "name"));
		http_session *s = sid ? http_session_find(h, sid, pname) : NULL;
		enum MHD_Result ret;
		if (!sid)
			return send_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
					 "GET and DELETE need an Mcp-Session-Id (2026-07-28 "
					 "clients: POST subscriptions/listen)\n",
					 "Allow", "POST", NULL, NULL);
		if (!s)
			return send_rpc_error(c, MHD_HTTP_NOT_FOUND, NULL, TG_RPC_INVALID_REQUEST,
					      "Not Found: no such session", NULL, NULL);
		if (method[0] == 'D') {
			http_session_close(h, s);
			http_session_unref(h, s);
			return send_text(c, MHD_HTTP_NO_CONTENT, NULL, "", NULL, NULL, NULL, NULL);
		}
		ret = http_open_stream(h, c, rq->slot, NULL, s);
		http_session_unref(h, s);
		return ret;
	}
	return send_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", "method not allowed\n",
			 "Allow", "GET, POST, DELETE", NULL, NULL);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
			 enum MHD_RequestTerminationCode toe)
{
	tg_http *h = cls;
	http_req *rq = *req_cls;

	(void)c;
	(void)toe;
	if (!rq)
		return;
	http_slot_exempt(h, rq->slot, 0); /* the next request's clock starts */
	http_body_release(h, rq->reserved);
	json_decref(rq->principal);
	tg_buf_free(&rq->body);
	free(rq);
	*req_cls = NULL;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_ctx,
			  enum MHD_ConnectionNotificationCode toe)
{
	tg_http *h = cls;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		const union MHD_ConnectionInfo *pa =
			MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		*socket_ctx = ci ? http_slot_add(h, ci->connect_fd, pa ? pa->client_addr : NULL)
				 : NULL;
	} else {
		http_slot_free(h, *socket_ctx);
		*socket_ctx = NULL;
	}
}

/* ---- start and stop ------------------------------------------------------------ */

int tg_mcp_http_serve(const tg_mcp_http_options *opt, volatile int *stop)
{
	tg_http *h;
	struct sockaddr_storage ss;
	struct MHD_Daemon *d = NULL;
	const union MHD_DaemonInfo *di;
	const char *addr = opt->addr && opt->addr[0] ? opt->addr : "127.0.0.1";
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION;
	unsigned i;
	uint16_t port;
	int r = 0, v6 = 0;

	if (strcmp(addr, "localhost") == 0)
		addr = "127.0.0.1";
	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, addr, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		((struct sockaddr_in *)&ss)->sin_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_port = htons(opt->port);
	} else if (inet_pton(AF_INET6, addr, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)&ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(opt->port);
		v6 = 1;
		flags |= MHD_USE_IPv6;
	} else {
		return tg_error_set(TG_ERR_INVALID, "--http: '%.64s' is not a numeric IPv4 or IPv6 "
						    "address", addr);
	}
	if (!tg_mcp_addr_loopback(addr) && !opt->allow_remote)
		return tg_error_set(TG_ERR_INVALID, "--http: %s is not a loopback address: "
						    "serving other machines needs --allow-remote",
				    addr);
	if (opt->no_auth && !tg_mcp_addr_loopback(addr))
		return tg_error_set(TG_ERR_INVALID, "--insecure-no-auth is allowed on a loopback "
						    "address only");
	h = calloc(1, sizeof(*h));
	if (!h)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	h->opt = *opt;
	h->stop = stop;
	if (!h->opt.max_connections)
		h->opt.max_connections = 64;
	if (!h->opt.workers)
		h->opt.workers = 4;
	if (!h->opt.idle_timeout_s)
		h->opt.idle_timeout_s = 30;
	if (!h->opt.request_timeout_ms)
		h->opt.request_timeout_ms = 10000;
	if (!h->opt.max_body)
		h->opt.max_body = TG_MCP_MAX_MESSAGE;
	if (!h->opt.max_header)
		h->opt.max_header = 16 << 10;
	if (!h->opt.header_timeout_ms)
		h->opt.header_timeout_ms = 2000;
	if (!h->opt.body_budget)
		h->opt.body_budget = (size_t)8 << 20;
	if (h->opt.body_budget < h->opt.max_body)
		h->opt.body_budget = h->opt.max_body; /* a body at the cap can be served */
	if (h->opt.auth_reserve_pct > 90)
		h->opt.auth_reserve_pct = 90;
	/* request bodies are large and short-lived: mmap()ed, so that their
	 * memory goes back to the system when they are freed, not kept in the
	 * heaps of the connection threads (issue 30: RSS under 96 MB) */
	mallopt(M_MMAP_THRESHOLD, 256 << 10);
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->changed, NULL);
	pthread_mutex_init(&h->wlock, NULL);
	h->nslots = h->opt.max_connections + 8;
	h->slots = calloc(h->nslots, sizeof(*h->slots));
	if (!h->slots) {
		r = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < h->nslots; i++)
		h->slots[i].fd = -1;
	r = http_workers_start(h); /* before any thread, and small: before the library */
	if (r < 0)
		goto out;
	r = tg_mhd_load();
	if (r < 0)
		goto out;
	http_backend(h, &h->be);
	r = http_watcher_start(h);
	if (r < 0)
		goto out;
	d = MHD_start_daemon(flags, opt->port, NULL, NULL, on_request, h,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)h->opt.max_connections,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)h->opt.idle_timeout_s,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)h->opt.max_header,
			     MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
			     MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
			     MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned)1, MHD_OPTION_END);
	if (!d) {
		r = tg_error_errno(TG_ERR_UNAVAILABLE, errno, "cannot listen on %s port %u", addr,
				   (unsigned)opt->port);
		goto out;
	}
	/* the bound port (0 asks for any free one) */
	di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	port = di ? di->port : opt->port;
	snprintf(h->port_s, sizeof(h->port_s), "%u", (unsigned)port);
	snprintf(h->base_url, sizeof(h->base_url), "http://%s%s%s:%s", v6 ? "[" : "", addr,
		 v6 ? "]" : "", h->port_s);
	if (opt->on_ready) {
		char url[160];
		snprintf(url, sizeof(url), "%s" MCP_PATH, h->base_url);
		opt->on_ready(opt->ctx, url);
	}
	while (!*stop) {
		struct timespec ts = { 0, 100 * 1000000L };
		nanosleep(&ts, NULL);
	}
out:
	if (d) {
		pthread_mutex_lock(&h->lock);
		pthread_cond_broadcast(&h->changed);
		pthread_mutex_unlock(&h->lock);
		MHD_stop_daemon(d);
	}
	http_watcher_stop(h);
	for (i = 0; i < TG_HTTP_MAX_SESSIONS; i++) {
		if (h->sessions[i])
			http_session_close(h, h->sessions[i]);
	}
	for (i = 0; i < TG_HTTP_MAX_PRINCIPALS && h->quotas[i]; i++)
		free(h->quotas[i]);
	http_workers_stop(h);
	free(h->slots);
	free(h);
	return r;
}
