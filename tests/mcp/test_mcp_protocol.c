/*
 * tests/mcp/test_mcp_protocol.c: unit tests of the MCP layer of `toolgate
 * serve` against the in-memory fake registry: line framing with the size cap,
 * JSON-RPC error codes, the initialize handshake and version negotiation,
 * tools/list pagination and cursors, tools/call of registered and meta-tools,
 * the session budgets and their audit events, list_changed, the I/O loop
 * on real pipes, and JSON-RPC batches of the 2025-03-26 era (their limits:
 * length, the answers' bytes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "fake_backend.h"

typedef struct fixture {
	fake_registry fake;
	tg_mcp_backend be;
	tg_mcp_server *s;
} fixture;

static fixture *fx_new(const tg_mcp_options *opt)
{
	fixture *f = calloc(1, sizeof(*f));
	tg_mcp_options o = { 0 };

	assert_non_null(f);
	fake_init(&f->fake, &f->be);
	if (opt)
		o = *opt;
	o.version = "9.9.9";
	o.session = "0123abcd";
	assert_int_equal(tg_mcp_server_new(&f->s, &f->be, &o), 0);
	return f;
}

static void fx_free(fixture *f)
{
	tg_mcp_server_free(f->s);
	fake_free(&f->fake);
	free(f);
}

/* Send one line; return the answers as an array of parsed messages. */
static json_t *send_line(fixture *f, const char *line)
{
	tg_buf *out;
	json_t *msgs = json_array();
	char *p, *nl;

	assert_int_equal(tg_mcp_server_handle(f->s, line, strlen(line)), 0);
	out = tg_mcp_server_output(f->s);
	p = out->ptr;
	while (p && (nl = strchr(p, '\n'))) {
		json_t *m = NULL;
		assert_int_equal(tg_json_parse(&m, p, (size_t)(nl - p), NULL), 0);
		json_array_append_new(msgs, m);
		p = nl + 1;
	}
	if (p)
		assert_int_equal(*p, '\0'); /* every message ends with "\n" */
	tg_buf_clear(out);
	return msgs;
}

/* Send a request expecting exactly one answer; return it. */
static json_t *request(fixture *f, const char *line)
{
	json_t *msgs = send_line(f, line);
	json_t *m;

	assert_int_equal(json_array_size(msgs), 1);
	m = json_incref(json_array_get(msgs, 0));
	json_decref(msgs);
	return m;
}

static void assert_error(fixture *f, const char *line, int code, const char *id_or_null)
{
	json_t *m = request(f, line);
	json_t *id = json_object_get(m, "id");

	assert_string_equal(json_string_value(json_object_get(m, "jsonrpc")), "2.0");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(m, "error"), "code")),
			 code);
	assert_non_null(json_string_value(json_object_get(json_object_get(m, "error"), "message")));
	assert_null(json_object_get(m, "result"));
	if (!id_or_null)
		assert_true(json_is_null(id));
	else if (json_is_integer(id))
		assert_int_equal(json_integer_value(id), atoi(id_or_null));
	else
		assert_string_equal(json_string_value(id), id_or_null);
	json_decref(m);
}

static void assert_silent(fixture *f, const char *line)
{
	json_t *msgs = send_line(f, line);
	assert_int_equal(json_array_size(msgs), 0);
	json_decref(msgs);
}

static void initialize(fixture *f)
{
	json_t *m = request(f, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
			       "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
			       "\"clientInfo\":{\"name\":\"unit\",\"version\":\"1\"}}}");
	assert_non_null(json_object_get(m, "result"));
	json_decref(m);
	assert_silent(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

/* tools/call name with args; returns the result object (caller decrefs). */
static json_t *call_tool(fixture *f, const char *name, const char *args_json)
{
	char line[4096];
	json_t *m, *res;

	snprintf(line, sizeof(line),
		 "{\"jsonrpc\":\"2.0\",\"id\":\"c\",\"method\":\"tools/call\",\"params\":{\"name\":"
		 "\"%s\",\"arguments\":%s}}",
		 name, args_json);
	m = request(f, line);
	res = json_incref(json_object_get(m, "result"));
	assert_non_null(res);
	json_decref(m);
	return res;
}

static const char *result_text(const json_t *res)
{
	json_t *c = json_array_get(json_object_get(res, "content"), 0);
	assert_string_equal(json_string_value(json_object_get(c, "type")), "text");
	return json_string_value(json_object_get(c, "text"));
}

/* ---- the line reader --------------------------------------------------------------- */

static int pipe_with(const char *data, size_t len)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], data, len), (ssize_t)len);
	close(p[1]);
	return p[0];
}

static void drain(tg_mcp_reader *r, json_t *got)
{
	for (;;) {
		const char *line;
		size_t len;
		int k = tg_mcp_reader_next(r, &line, &len);
		if (k == TG_MCP_READ_LINE)
			json_array_append_new(got, json_stringn(line, len));
		else if (k == TG_MCP_READ_OVERSIZE)
			json_array_append_new(got, json_string("<oversize>"));
		else if (k == TG_MCP_READ_EOF)
			break;
		else
			assert_true(tg_mcp_reader_fill(r) >= 0);
	}
}

static void test_reader_lines(void **state)
{
	const char in[] = "one\ntwo\r\n\nthree-is-far-too-long-for-the-cap\nfour\nlast";
	int fd = pipe_with(in, sizeof(in) - 1);
	tg_mcp_reader r;
	json_t *got = json_array();
	char *dump;

	(void)state;
	tg_mcp_reader_init(&r, fd, 10);
	drain(&r, got);
	dump = tg_json_dump(got);
	assert_string_equal(dump, "[\"one\",\"two\",\"\",\"<oversize>\",\"four\",\"last\"]");
	free(dump);
	json_decref(got);
	tg_mcp_reader_free(&r);
	close(fd);
}

/* An over-long line arriving in many reads is reported once, its rest is
 * dropped as it comes, and the buffer never grows past the cap plus a chunk. */
static void test_reader_oversize_stream(void **state)
{
	size_t big = (size_t)1 << 20, i;
	int p[2];
	tg_mcp_reader r;
	json_t *got = json_array();
	char *chunk = malloc(4096);
	char *dump;

	(void)state;
	memset(chunk, 'x', 4096);
	assert_int_equal(pipe(p), 0);
	tg_mcp_reader_init(&r, p[0], 1000);
	assert_int_equal(write(p[1], "ok\n", 3), 3);
	for (i = 0; i < big / 4096; i++) {
		assert_int_equal(write(p[1], chunk, 4096), 4096);
		/* read as we go, like the server does */
		for (;;) {
			const char *line;
			size_t len;
			int k = tg_mcp_reader_next(&r, &line, &len);
			if (k == TG_MCP_READ_LINE)
				json_array_append_new(got, json_stringn(line, len));
			else if (k == TG_MCP_READ_OVERSIZE)
				json_array_append_new(got, json_string("<oversize>"));
			else
				break;
		}
		assert_int_equal(tg_mcp_reader_fill(&r), 1);
		assert_true(r.cap <= 1000 + 1 + (64 << 10));
	}
	assert_int_equal(write(p[1], "\nafter\n", 7), 7);
	close(p[1]);
	drain(&r, got);
	dump = tg_json_dump(got);
	assert_string_equal(dump, "[\"ok\",\"<oversize>\",\"after\"]");
	free(dump);
	free(chunk);
	json_decref(got);
	tg_mcp_reader_free(&r);
	close(p[0]);
}

/* ---- JSON-RPC errors ------------------------------------------------------------------ */

static void test_rpc_errors(void **state)
{
	fixture *f = fx_new(NULL);

	(void)state;
	assert_error(f, "{not json", TG_RPC_PARSE_ERROR, NULL);
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} trailing", TG_RPC_PARSE_ERROR, NULL);
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}", TG_RPC_PARSE_ERROR, NULL);
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xff\"}", TG_RPC_PARSE_ERROR, NULL);
	assert_error(f, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", TG_RPC_INVALID_REQUEST, NULL);
	assert_error(f, "42", TG_RPC_INVALID_REQUEST, NULL);
	assert_error(f, "{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"ping\"}", TG_RPC_INVALID_REQUEST, "7");
	assert_error(f, "{\"id\":7,\"method\":\"ping\"}", TG_RPC_INVALID_REQUEST, "7");
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", TG_RPC_INVALID_REQUEST, NULL);
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", TG_RPC_INVALID_REQUEST, NULL);
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}", TG_RPC_INVALID_REQUEST, NULL);
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":\"a\"}", TG_RPC_INVALID_REQUEST, "a");
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":5}", TG_RPC_INVALID_REQUEST, "a");
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":[1]}", TG_RPC_INVALID_PARAMS, "3");
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":\"x\"}", TG_RPC_INVALID_REQUEST, "3");
	/* Not a request at all, id or not: answered with id null (JSON-RPC 2.0 §5.1). */
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":\"s\"}", TG_RPC_INVALID_REQUEST, NULL);
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"method\":1}", TG_RPC_INVALID_REQUEST, NULL);
	assert_error(f, "{\"method\":\"notifications/initialized\"}", TG_RPC_INVALID_REQUEST, NULL);
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"completion/complete\"}", TG_RPC_METHOD_NOT_FOUND, "4");
	/* Before initialize only initialize and ping are served. */
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\"}", TG_RPC_INVALID_REQUEST, "5");
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}", TG_RPC_INVALID_REQUEST, "5");
	/* Over-long messages. */
	assert_int_equal(tg_mcp_server_oversize(f->s), 0);
	assert_int_equal(strncmp(tg_mcp_server_output(f->s)->ptr,
				 "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,", 49), 0);
	tg_buf_clear(tg_mcp_server_output(f->s));
	fx_free(f);
}

static void test_rpc_silence(void **state)
{
	fixture *f = fx_new(NULL);
	json_t *m;

	(void)state;
	assert_silent(f, "");
	assert_silent(f, "   \r");
	assert_silent(f, "{\"jsonrpc\":\"2.0\",\"method\":\"no/such/notification\"}");
	assert_silent(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}");
	assert_silent(f, "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}");
	assert_silent(f, "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":[1]}");
	/* A response to a request we never sent. */
	assert_silent(f, "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}");
	assert_silent(f, "{\"jsonrpc\":\"2.0\",\"id\":9,\"error\":{\"code\":1,\"message\":\"m\"}}");
	/* ping works before initialize and answers {} with the same id. */
	m = request(f, "{\"jsonrpc\":\"2.0\",\"id\":\"p-1\",\"method\":\"ping\"}");
	assert_string_equal(json_string_value(json_object_get(m, "id")), "p-1");
	assert_int_equal(json_object_size(json_object_get(m, "result")), 0);
	assert_true(json_is_object(json_object_get(m, "result")));
	json_decref(m);
	fx_free(f);
}

/* ---- initialize -------------------------------------------------------------------------- */

/* initialize asking for version; the answer (the caller decrefs). */
static json_t *initialize_as(fixture *f, const char *version)
{
	char line[512];

	snprintf(line, sizeof(line),
		 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
		 "\"protocolVersion\":\"%s\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\","
		 "\"version\":\"0\"}}}",
		 version);
	return request(f, line);
}

static const char *negotiate(const char *asked)
{
	static char got[32];
	fixture *f = fx_new(NULL);
	json_t *m, *res;

	m = initialize_as(f, asked);
	res = json_object_get(m, "result");
	snprintf(got, sizeof(got), "%s", json_string_value(json_object_get(res, "protocolVersion")));
	assert_true(json_is_true(json_object_get(
		json_object_get(json_object_get(res, "capabilities"), "tools"), "listChanged")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(res, "serverInfo"),
							      "name")),
			    "toolgate");
	assert_string_equal(json_string_value(json_object_get(json_object_get(res, "serverInfo"),
							      "version")),
			    "9.9.9");
	json_decref(m);
	assert_int_equal(fake_count_audit(&f->fake, "mcp_session_start"), 1);
	fx_free(f);
	return got;
}

static void test_initialize(void **state)
{
	fixture *f;

	(void)state;
	assert_string_equal(negotiate("2025-11-25"), "2025-11-25");
	assert_string_equal(negotiate("2025-06-18"), "2025-06-18");
	assert_string_equal(negotiate("2025-03-26"), "2025-03-26");
	assert_string_equal(negotiate("2024-11-05"), "2024-11-05");
	assert_string_equal(negotiate("2024-10-07"), "2025-11-25");
	assert_string_equal(negotiate("banana"), "2025-11-25");

	f = fx_new(NULL);
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}", TG_RPC_INVALID_PARAMS, "1");
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}", TG_RPC_INVALID_PARAMS, "1");
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":20251125}}", TG_RPC_INVALID_PARAMS, "1");
	initialize(f);
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}", TG_RPC_INVALID_REQUEST, "2");
	fx_free(f);
}

/* ---- tools/list ---------------------------------------------------------------------------- */

/* Page through tools/list; return every name in order. */
static json_t *list_all(fixture *f, size_t *pages)
{
	json_t *names = json_array();
	char *cursor = NULL;

	*pages = 0;
	do {
		char line[512];
		json_t *m, *res, *t;
		size_t i;

		if (cursor)
			snprintf(line, sizeof(line),
				 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":\"%s\"}}",
				 cursor);
		else
			snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
		free(cursor);
		cursor = NULL;
		m = request(f, line);
		res = json_object_get(m, "result");
		assert_non_null(res);
		json_array_foreach(json_object_get(res, "tools"), i, t) {
			assert_true(json_is_object(json_object_get(t, "inputSchema")));
			assert_string_equal(json_string_value(json_object_get(json_object_get(t, "inputSchema"), "type")), "object");
			assert_non_null(json_string_value(json_object_get(t, "description")));
			json_array_append(names, json_object_get(t, "name"));
		}
		if (json_object_get(res, "nextCursor"))
			cursor = strdup(json_string_value(json_object_get(res, "nextCursor")));
		(*pages)++;
		json_decref(m);
	} while (cursor);
	return names;
}

static void test_tools_list_pages(void **state)
{
	tg_mcp_options o = { .page_size = 100 };
	fixture *f = fx_new(&o);
	json_t *names, *n;
	size_t pages, i;
	char name[32];

	(void)state;
	for (i = 0; i < 250; i++) {
		snprintf(name, sizeof(name), "tool_%03zu", (i * 7) % 250); /* not in order */
		fake_add_tool(&f->fake, name, NULL);
	}
	fake_add_tool(&f->fake, "create_tool", NULL); /* clashes with a meta-tool */
	initialize(f);
	names = list_all(f, &pages);
	assert_int_equal(pages, 3);
	assert_int_equal(json_array_size(names), 254);
	json_array_foreach(names, i, n) {
		if (i > 0)
			assert_true(strcmp(json_string_value(json_array_get(names, i - 1)),
					   json_string_value(n)) < 0);
	}
	assert_string_equal(json_string_value(json_array_get(names, 0)), "create_tool");
	assert_string_equal(json_string_value(json_array_get(names, 1)), "list_tool_versions");
	assert_string_equal(json_string_value(json_array_get(names, 253)), "tool_history");
	json_decref(names);

	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":\"garbage\"}}", TG_RPC_INVALID_PARAMS, "1");
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":\"tg1.zz\"}}", TG_RPC_INVALID_PARAMS, "1");
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":\"tg1.616\"}}", TG_RPC_INVALID_PARAMS, "1");
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":\"tg1.\"}}", TG_RPC_INVALID_PARAMS, "1");
	/* hex of "A": well formed hex, but no tool name */
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":\"tg1.41\"}}", TG_RPC_INVALID_PARAMS, "1");
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":7}}", TG_RPC_INVALID_PARAMS, "1");
	fx_free(f);
}

static void test_tools_list_small(void **state)
{
	tg_mcp_options o = { .hide_write_tools = 1 };
	fixture *f = fx_new(NULL), *h = fx_new(&o);
	json_t *m, *tools, *t, *names;
	size_t pages, i;

	(void)state;
	fake_add_tool(&f->fake, "reader", "workspace:read");
	fake_add_tool(&f->fake, "writer", "workspace:write");
	initialize(f);
	m = request(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}");
	tools = json_object_get(json_object_get(m, "result"), "tools");
	assert_int_equal(json_array_size(tools), 6);
	assert_null(json_object_get(json_object_get(m, "result"), "nextCursor"));
	json_array_foreach(tools, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		json_t *ann = json_object_get(t, "annotations");
		if (strcmp(name, "writer") == 0)
			assert_true(json_is_false(json_object_get(ann, "readOnlyHint")));
		if (strcmp(name, "reader") == 0) {
			assert_true(json_is_true(json_object_get(ann, "readOnlyHint")));
			assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(json_object_get(t, "inputSchema"), "properties"), "text"), "type")), "string");
		}
	}
	json_decref(m);

	/* --hide-write-tools: the writer is neither listed nor callable. */
	fake_add_tool(&h->fake, "reader", "workspace:read");
	fake_add_tool(&h->fake, "writer", "workspace:write");
	initialize(h);
	names = list_all(h, &pages);
	assert_int_equal(json_array_size(names), 5);
	json_array_foreach(names, i, t)
		assert_string_not_equal(json_string_value(t), "writer");
	json_decref(names);
	assert_error(h, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"writer\",\"arguments\":{}}}", TG_RPC_INVALID_PARAMS, "2");
	assert_int_equal(h->fake.calls_run, 0);
	t = call_tool(h, "reader", "{}");
	assert_null(json_object_get(t, "isError"));
	json_decref(t);
	fx_free(f);
	fx_free(h);
}

/* ---- tools/call ------------------------------------------------------------------------------- */

static void test_tools_call(void **state)
{
	fixture *f = fx_new(NULL);
	json_t *res;

	(void)state;
	fake_add_tool(&f->fake, "echo", NULL);
	fake_add_tool(&f->fake, "fail", NULL);
	initialize(f);

	res = call_tool(f, "echo", "{\"text\":\"hi\"}");
	assert_null(json_object_get(res, "isError"));
	assert_string_equal(result_text(res), "{\"echo\":{\"text\":\"hi\"}}");
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(res, "structuredContent"), "echo"), "text")), "hi");
	json_decref(res);

	res = call_tool(f, "fail", "{}");
	assert_true(json_is_true(json_object_get(res, "isError")));
	assert_string_equal(result_text(res), "boom on stderr");
	json_decref(res);

	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\"}}", TG_RPC_INVALID_PARAMS, "2");
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"../../bin/sh\"}}", TG_RPC_INVALID_PARAMS, "2");
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{}}", TG_RPC_INVALID_PARAMS, "2");
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\"}", TG_RPC_INVALID_PARAMS, "2");
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":[1]}}", TG_RPC_INVALID_PARAMS, "2");
	{
		/* A long multi-byte name: the message is cut, yet stays UTF-8. */
		char line[1024];
		int n = snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"x");
		for (int k = 0; k < 150; k++)
			n += snprintf(line + n, sizeof(line) - (size_t)n, "\xc3\xa9");
		snprintf(line + n, sizeof(line) - (size_t)n, "\"}}");
		assert_error(f, line, TG_RPC_INVALID_PARAMS, "2");
	}
	assert_int_equal(f->fake.calls_run, 2);
	assert_int_equal(fake_count_audit(&f->fake, "mcp_unknown_tool"), 3);
	/* the two calls without a name are one kind in one minute: the
	 * second is counted into an mcp_refusals entry at the end (refusals.c) */
	assert_int_equal(fake_count_audit(&f->fake, "mcp_call_invalid"), 2);
	assert_int_equal(fake_count_audit(&f->fake, "mcp_refusals"), 0);
	assert_int_equal(tg_mcp_server_close(f->s), 0);
	assert_int_equal(fake_count_audit(&f->fake, "mcp_refusals"), 1);
	fx_free(f);
}

static void test_meta_tools(void **state)
{
	fixture *f = fx_new(NULL);
	json_t *msgs, *res, *m;

	(void)state;
	initialize(f);
	/* A registration answers, then announces the new toolset. */
	msgs = send_line(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
			    "\"create_tool\",\"arguments\":{\"name\":\"word_count\",\"description\":\"d\","
			    "\"input_schema\":{\"type\":\"object\"},\"source\":\"int main(void){}\",\"tests\":[]}}}");
	assert_int_equal(json_array_size(msgs), 1);
	res = json_object_get(json_array_get(msgs, 0), "result");
	assert_null(json_object_get(res, "isError"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(res, "structuredContent"), "status")), "active");
	assert_non_null(strstr(result_text(res), "word_count v1: active"));
	json_decref(msgs);
	assert_int_equal(tg_mcp_server_check_toolset(f->s), 0);
	msgs = send_line(f, "");
	assert_int_equal(json_array_size(msgs), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(msgs, 0), "method")),
			    "notifications/tools/list_changed");
	assert_null(json_object_get(json_array_get(msgs, 0), "id"));
	json_decref(msgs);
	/* Nothing moved: nothing sent. */
	assert_int_equal(tg_mcp_server_check_toolset(f->s), 0);
	assert_silent(f, "");

	/* A rejection is an error result that still carries the findings. */
	res = call_tool(f, "create_tool", "{\"name\":\"word_count\",\"description\":\"d\",\"input_schema\":{\"type\":\"object\"},\"source\":\"BAD\",\"tests\":[]}");
	assert_true(json_is_true(json_object_get(res, "isError")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(res, "structuredContent"), "verdict")), "reject");
	assert_non_null(strstr(result_text(res), "system() is banned"));
	json_decref(res);
	/* A bad manifest: the registry's message comes back. */
	res = call_tool(f, "create_tool", "{\"name\":\"x\",\"source\":\"s\"}");
	assert_true(json_is_true(json_object_get(res, "isError")));
	assert_non_null(strstr(result_text(res), "description: is required"));
	json_decref(res);
	/* No source; a meta-tool's name. */
	res = call_tool(f, "create_tool", "{\"name\":\"x\",\"description\":\"d\"}");
	assert_true(json_is_true(json_object_get(res, "isError")));
	assert_non_null(strstr(result_text(res), "source: is required"));
	json_decref(res);
	res = call_tool(f, "create_tool", "{\"name\":\"rollback_tool\",\"description\":\"d\",\"source\":\"s\"}");
	assert_true(json_is_true(json_object_get(res, "isError")));
	assert_non_null(strstr(result_text(res), "reserved"));
	json_decref(res);
	assert_int_equal(f->fake.creates_run, 3);

	/* A second version, then roll it back. */
	res = call_tool(f, "create_tool", "{\"name\":\"word_count\",\"description\":\"d\",\"input_schema\":{\"type\":\"object\"},\"source\":\"v2\",\"tests\":[]}");
	assert_null(json_object_get(res, "isError"));
	json_decref(res);
	res = call_tool(f, "tool_history", "{\"name\":\"word_count\"}");
	assert_null(json_object_get(res, "isError"));
	assert_int_equal(json_array_size(json_object_get(json_object_get(res, "structuredContent"), "versions")), 2);
	json_decref(res);
	res = call_tool(f, "list_tool_versions", "{\"name\":\"word_count\"}");
	assert_null(json_object_get(res, "isError"));
	m = json_object_get(res, "structuredContent");
	assert_int_equal(json_integer_value(json_object_get(m, "active")), 2);
	assert_null(json_object_get(json_array_get(json_object_get(m, "versions"), 0), "findings"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(m, "versions"), 0), "status")), "passed");
	json_decref(res);
	res = call_tool(f, "rollback_tool", "{\"name\":\"word_count\"}");
	assert_null(json_object_get(res, "isError"));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(res, "structuredContent"), "active")), 1);
	json_decref(res);
	res = call_tool(f, "rollback_tool", "{\"name\":\"word_count\"}");
	assert_true(json_is_true(json_object_get(res, "isError")));
	assert_non_null(strstr(result_text(res), "no earlier passing version"));
	json_decref(res);
	res = call_tool(f, "rollback_tool", "{\"name\":\"word_count\",\"version\":0}");
	assert_true(json_is_true(json_object_get(res, "isError")));
	json_decref(res);
	res = call_tool(f, "rollback_tool", "{\"name\":\"word_count\",\"to\":1}");
	assert_true(json_is_true(json_object_get(res, "isError")));
	assert_non_null(strstr(result_text(res), "unknown key"));
	json_decref(res);
	res = call_tool(f, "tool_history", "{\"name\":\"Bad-Name\"}");
	assert_true(json_is_true(json_object_get(res, "isError")));
	json_decref(res);
	res = call_tool(f, "tool_history", "{\"name\":\"missing\"}");
	assert_true(json_is_true(json_object_get(res, "isError")));
	assert_string_equal(result_text(res), "tool_history: no tool missing");
	json_decref(res);
	fx_free(f);
}

/* ---- governance --------------------------------------------------------------------------------- */

static void test_budgets(void **state)
{
	tg_mcp_options o = { .max_calls = 4, .max_creates = 1 };
	fixture *f = fx_new(&o);
	json_t *res, *a;
	uint64_t calls, creates, denied;
	size_t i;

	(void)state;
	fake_add_tool(&f->fake, "echo", NULL);
	initialize(f);
	res = call_tool(f, "create_tool", "{\"name\":\"one\",\"description\":\"d\",\"input_schema\":{\"type\":\"object\"},\"source\":\"s\",\"tests\":[]}");
	assert_null(json_object_get(res, "isError"));
	json_decref(res);
	res = call_tool(f, "create_tool", "{\"name\":\"two\",\"description\":\"d\",\"input_schema\":{\"type\":\"object\"},\"source\":\"s\",\"tests\":[]}");
	assert_true(json_is_true(json_object_get(res, "isError")));
	assert_non_null(strstr(result_text(res), "create budget exhausted"));
	json_decref(res);
	assert_int_equal(f->fake.creates_run, 1);
	/* A failed call counts too. */
	assert_error(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\"}}", TG_RPC_INVALID_PARAMS, "2");
	res = call_tool(f, "echo", "{}");
	assert_null(json_object_get(res, "isError"));
	json_decref(res);
	/* Fifth attempt: over. Meta-tools and unknown names are refused alike. */
	res = call_tool(f, "echo", "{}");
	assert_true(json_is_true(json_object_get(res, "isError")));
	assert_non_null(strstr(result_text(res), "call budget exhausted"));
	json_decref(res);
	res = call_tool(f, "tool_history", "{\"name\":\"echo\"}");
	assert_non_null(strstr(result_text(res), "call budget exhausted"));
	json_decref(res);
	res = call_tool(f, "nope", "{}");
	assert_non_null(strstr(result_text(res), "call budget exhausted"));
	json_decref(res);
	assert_int_equal(f->fake.calls_run, 1);
	tg_mcp_server_counts(f->s, &calls, &creates, &denied);
	assert_int_equal(calls, 7);
	assert_int_equal(creates, 2);
	assert_int_equal(denied, 4);
	assert_int_equal(fake_count_audit(&f->fake, "mcp_denied"), 4);
	json_array_foreach(f->fake.audits, i, a) {
		assert_string_equal(json_string_value(json_object_get(a, "kind")), "mcp");
		assert_string_equal(json_string_value(json_object_get(a, "session")), "0123abcd");
	}
	assert_int_equal(tg_mcp_server_close(f->s), 0);
	a = json_array_get(f->fake.audits, json_array_size(f->fake.audits) - 1);
	assert_string_equal(json_string_value(json_object_get(a, "event")), "mcp_session_end");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(a, "details"), "denied")), 4);
	fx_free(f);
}

/* ---- list_changed ----------------------------------------------------------------------------------- */

static void test_list_changed(void **state)
{
	fixture *f = fx_new(NULL);
	json_t *msgs;

	(void)state;
	/* Changes before the handshake are not announced. */
	fake_add_tool(&f->fake, "early", NULL);
	assert_int_equal(tg_mcp_server_check_toolset(f->s), 0);
	assert_silent(f, "");
	initialize(f);
	assert_int_equal(tg_mcp_server_check_toolset(f->s), 0);
	assert_silent(f, "");
	/* Another process changed the toolset. */
	f->fake.generation += 5;
	assert_int_equal(tg_mcp_server_check_toolset(f->s), 0);
	msgs = send_line(f, "");
	assert_int_equal(json_array_size(msgs), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(msgs, 0), "method")),
			    "notifications/tools/list_changed");
	json_decref(msgs);
	fx_free(f);
}

/* ---- the I/O loop on pipes ------------------------------------------------------------------------------ */

static void test_serve_loop(void **state)
{
	tg_mcp_options o = { .max_message = 1024 };
	fixture *f = fx_new(&o);
	tg_buf in = TG_BUF_INIT(0);
	char tmpl[] = "/tmp/tg_mcp_out_XXXXXX";
	int infd, outfd, i;
	_cleanup_free_ char *out = NULL;
	size_t len;
	json_t *msgs;
	char *p, *nl;

	(void)state;
	fake_add_tool(&f->fake, "echo", NULL);
	tg_buf_puts(&in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}\n");
	tg_buf_puts(&in, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
	tg_buf_puts(&in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"pad\":\"");
	for (i = 0; i < 3000; i++)
		tg_buf_puts(&in, "x");
	tg_buf_puts(&in, "\"}}\n");
	tg_buf_puts(&in, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"a\":1}}}\r\n");
	tg_buf_puts(&in, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}");  /* no final newline */
	infd = pipe_with(in.ptr, in.len);
	tg_buf_free(&in);
	outfd = mkstemp(tmpl);
	assert_true(outfd >= 0);
	unlink(tmpl);
	assert_int_equal(tg_mcp_serve(f->s, infd, outfd), 0);
	assert_int_equal(lseek(outfd, 0, SEEK_SET), 0);
	assert_int_equal(tg_fd_read_all(&out, &len, outfd, 1 << 20), 0);
	close(infd);
	close(outfd);
	msgs = json_array();
	for (p = out; (nl = strchr(p, '\n')); p = nl + 1) {
		json_t *m = NULL;
		assert_int_equal(tg_json_parse(&m, p, (size_t)(nl - p), NULL), 0);
		json_array_append_new(msgs, m);
	}
	assert_int_equal(*p, '\0');
	assert_int_equal(json_array_size(msgs), 4);
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_array_get(msgs, 0), "result"), "protocolVersion")), "2025-06-18");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_array_get(msgs, 1), "error"), "code")), TG_RPC_INVALID_REQUEST);
	assert_true(json_is_null(json_object_get(json_array_get(msgs, 1), "id")));
	assert_int_equal(json_integer_value(json_object_get(json_array_get(msgs, 2), "id")), 3);
	assert_null(json_object_get(json_object_get(json_array_get(msgs, 2), "result"), "isError"));
	assert_int_equal(json_integer_value(json_object_get(json_array_get(msgs, 3), "id")), 4);
	json_decref(msgs);
	fx_free(f);
}

/* ---- JSON-RPC batches (2025-03-26) ------------------------------------------------------ */

static void initialize_era(fixture *f, const char *version)
{
	json_t *m = initialize_as(f, version);

	assert_string_equal(json_string_value(json_object_get(json_object_get(m, "result"),
							      "protocolVersion")),
			    version);
	json_decref(m);
}

static const char *error_message(const json_t *m)
{
	return json_string_value(json_object_get(json_object_get(m, "error"), "message"));
}

static void test_batches(void **state)
{
	tg_mcp_options o = { .max_message = 4096 };
	fixture *f = fx_new(&o);
	const char *list = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}";
	tg_buf b = TG_BUF_INIT(0);
	char line[1024], *text;
	json_t *m, *e;
	size_t one, served, i;

	(void)state;
	/* before initialize, and in 2025-06-18: one -32600 for the whole */
	assert_error(f, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", TG_RPC_INVALID_REQUEST, NULL);
	fx_free(f);
	f = fx_new(&o);
	initialize_era(f, "2025-06-18");
	m = request(f, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
	assert_string_equal(error_message(m), "Invalid Request: JSON-RPC batches are part of protocol "
					      "version 2025-03-26 only (this session: 2025-06-18)");
	json_decref(m);
	fx_free(f);

	f = fx_new(&o);
	initialize_era(f, "2025-03-26");
	m = request(f, list);
	e = json_object_get(json_object_get(m, "result"), "tools");
	assert_true(json_array_size(e) > 0);
	assert_null(json_object_get(json_array_get(e, 0), "title")); /* the era's shape */
	text = tg_json_dump(m);
	one = strlen(text);
	free(text);
	json_decref(m);
	/* the answers' cap is 4 x 4096 bytes: the tools/list answers (all of
	 * one size: the same id) up to the first past it are served, the later
	 * requests refused unserved; a notification is still taken */
	snprintf(line, sizeof(line), "[%s,%s,%s,%s,%s,{\"jsonrpc\":\"2.0\",\"method\":\"n\"}]", list,
		 list, list, list, list);
	m = request(f, line);
	assert_true(json_is_array(m));
	assert_int_equal(json_array_size(m), 5);
	served = (4 * 4096 + one - 1) / one;
	assert_true(served >= 1 && served < 5);
	json_array_foreach(m, i, e) {
		if (i < served) {
			assert_non_null(json_object_get(e, "result"));
			continue;
		}
		assert_int_equal(json_integer_value(json_object_get(json_object_get(e, "error"), "code")),
				 TG_RPC_INVALID_REQUEST);
		assert_string_equal(error_message(e),
				    "Invalid Request: the batch's answers passed 16384 bytes: this "
				    "request was not served (send it alone or in a smaller batch)");
	}
	json_decref(m);
	/* empty; over-long; notifications only */
	m = request(f, "[]");
	assert_string_equal(error_message(m), "Invalid Request: an empty batch");
	json_decref(m);
	assert_int_equal(tg_buf_puts(&b, "[1"), 0);
	for (i = 1; i < TG_MCP_BATCH_MAX + 1; i++)
		assert_int_equal(tg_buf_puts(&b, ",1"), 0);
	assert_int_equal(tg_buf_append(&b, "]", 2), 0);
	m = request(f, b.ptr);
	assert_string_equal(error_message(m),
			    "Invalid Request: a batch holds at most 64 messages (65 sent)");
	json_decref(m);
	tg_buf_free(&b);
	assert_silent(f, "[{\"jsonrpc\":\"2.0\",\"method\":\"a\"},{\"jsonrpc\":\"2.0\",\"method\":\"b\"}]");
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_lines),
		cmocka_unit_test(test_reader_oversize_stream),
		cmocka_unit_test(test_rpc_errors),
		cmocka_unit_test(test_rpc_silence),
		cmocka_unit_test(test_initialize),
		cmocka_unit_test(test_tools_list_pages),
		cmocka_unit_test(test_tools_list_small),
		cmocka_unit_test(test_tools_call),
		cmocka_unit_test(test_meta_tools),
		cmocka_unit_test(test_budgets),
		cmocka_unit_test(test_list_changed),
		cmocka_unit_test(test_serve_loop),
		cmocka_unit_test(test_batches),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
