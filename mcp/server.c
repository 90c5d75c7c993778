/*
 * mcp/server.c: one MCP session over JSON-RPC 2.0. It classifies each
 * received line (parse error -32700, invalid request -32600, unknown method
 * -32601, bad params -32602), never answers a notification, runs the
 * initialize handshake (the client's protocol version is echoed when it is
 * one we speak, else ours is sent: era.c), hands a JSON-RPC batch to
 * batch.c with the single-message handler, answers ping, pages tools/list with an
 * opaque cursor, hands tools/call to tools.c, and queues
 * notifications/tools/list_changed when the registry's toolset generation
 * moves. The I/O loop at the end polls stdin with a timeout so that changes
 * made by another process are noticed while the client is idle.
 */
#include "mcp/internal.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <string.h>

#define TG_MCP_OUT_MAX ((size_t)64 << 20)

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
	json_decref(s->tool_input);
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
	tg_mcp_refusals_flush(s);
	d = json_pack("{s:I, s:I, s:I}", "calls", (json_int_t)s->calls, "creates",
		      (json_int_t)s->creates, "denied", (json_int_t)s->denied);
	if (d && s->ended &&
	    json_object_set_new(d, "ended", json_string("refused requests went on after a budget "
							"was spent")) < 0)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
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
	"review and undo changes. The prompt write_tool hands you the rules, the SDK "
	"reference and a complete create_tool example.";

/* A method of a session that has not been initialized: -32600. */
static int not_initialized(tg_mcp_server *s, const json_t *id, const char *method)
{
	return tg_mcp_reply_error(s, id, TG_RPC_INVALID_REQUEST,
				  "%s: the session is not initialized (send initialize first)",
				  method);
}

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
	proto = tg_mcp_era_negotiate(want);
	snprintf(s->protocol, sizeof(s->protocol), "%s", proto);
	s->era = tg_mcp_era(proto);
	copy_info(s->client_name, sizeof(s->client_name), info, "name");
	copy_info(s->client_version, sizeof(s->client_version), info, "version");
	{
		/* elicitation: {} or {"form": {...}} (a client of URL mode only
		 * cannot show our form) */
		json_t *el = json_object_get(json_object_get(params, "capabilities"),
					     "elicitation");
		s->elicitation = s->era >= TG_MCP_ERA_2025_06 && json_is_object(el) &&
				 (json_object_size(el) == 0 || json_object_get(el, "form"));
	}

	result = json_pack("{s:s, s:{s:{s:b}, s:{}, s:{}, s:{}}, s:{s:s, s:s, s:s}, s:s}",
			   "protocolVersion", proto, "capabilities", "tools", "listChanged", 1,
			   "logging", "resources", "prompts",
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

static int dispatch(tg_mcp_server *s, const json_t *id, const char *method,
		    const json_t *params);

/* One message (alone, or an element of a batch): checked, then dispatched. */
static int handle_message(tg_mcp_server *s, const json_t *msg)
{
	const json_t *id, *params, *jv;
	const char *method;
	int r;

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
	s->req_method = method;
	r = dispatch(s, id, method, params);
	s->req_method = NULL;
	return r;
}

int tg_mcp_server_handle(tg_mcp_server *s, const char *line, size_t len)
{
	_cleanup_json_ json_t *msg = NULL;
	tg_json_limits lim = { s->opt.max_message, 64 };
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
		return tg_mcp_batch(s, msg, handle_message);
	return handle_message(s, msg);
}

static int dispatch(tg_mcp_server *s, const json_t *id, const char *method,
		    const json_t *params)
{
	if (tg_mcp_is_modern(method, params))
		return tg_mcp_modern_handle(s, id, method, params);
	if (strcmp(method, "initialize") == 0)
		return handle_initialize(s, id, params);
	if (strcmp(method, "ping") == 0)
		return tg_mcp_reply(s, id, json_object());
	if (strcmp(method, "tools/list") == 0 || strcmp(method, "tools/call") == 0) {
		if (!s->initialized)
			return not_initialized(s, id, method);
		if (method[6] == 'l')
			return tg_mcp_tools_list(s, id, params);
		return tg_mcp_call_cancellable(s, id, params, tg_mcp_tools_call);
	}
	if (strcmp(method, "logging/setLevel") == 0)
		return tg_mcp_set_level(s, id, params);
	if (strcmp(method, "resources/list") == 0 || strcmp(method, "resources/read") == 0) {
		if (!s->initialized)
			return not_initialized(s, id, method);
		if (method[10] == 'l')
			return tg_mcp_resources_list(s, id, params);
		return tg_mcp_resources_read(s, id, params);
	}
	if (strcmp(method, "prompts/list") == 0 || strcmp(method, "prompts/get") == 0) {
		if (!s->initialized)
			return not_initialized(s, id, method);
		if (method[8] == 'l')
			return tg_mcp_prompts_list(s, id, params);
		return tg_mcp_prompts_get(s, id, params);
	}
	return tg_mcp_reply_error(s, id, TG_RPC_METHOD_NOT_FOUND, "Method not found: %.100s",
				  method);
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
			if (r < 0 || s->ended)
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
			if (s->ended) {
				/* refused on and on after a budget was spent:
				 * the last answer goes, then the session ends */
				r = flush_out(s, out_fd);
				goto out;
			}
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
