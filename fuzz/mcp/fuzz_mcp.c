/*
 * fuzz/mcp/fuzz_mcp.c: libFuzzer target for the MCP message handling of
 * `toolgate serve`: the line reader (tg_mcp_reader) and the session
 * (tg_mcp_server_handle), against the in-memory fake registry of tests/mcp
 * whose create goes through the real tg_manifest_validate first, as the
 * registry does. The input is a byte stream from the client; it goes through
 * a pipe into the reader (with a small line cap, so over-long lines are
 * exercised) and every line into the session, which by default has already
 * done the initialize handshake (an input starting with '#' starts from a
 * fresh session instead). Budgets and a page size of 2 are set so that
 * pagination and the governance paths are reachable. After each line:
 *  - every output line is one JSON object with "jsonrpc":"2.0" and either a
 *    method (a notification) or an id with exactly one of result/error, an
 *    error having an integer code and a string message;
 *  - a request (an object with a string or integer id and a method) gets
 *    exactly one answer, carrying its id (for a 2026-07-28
 *    subscriptions/listen: its acknowledgement, tagged with that id); any
 *    other line at most one answer.
 * tests/fuzz_replay replays fuzz/mcp/corpus through the same function.
 */
#include "mcp/mcp.h"
#include "fake_backend.h"
#include "registry/replica/replica.h"

#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LINE_CAP 4096

static tg_registry reg;
static int (*fake_create)(void *ctx, json_t **out, const tg_submission *sub,
			  const tg_actor *who, const tg_call_hooks *hooks);

static int create_validated(void *ctx, json_t **out, const tg_submission *sub,
			    const tg_actor *who, const tg_call_hooks *hooks)
{
	int rc = tg_manifest_validate(&reg, sub->manifest, sub->source, sub->source_len);

	if (rc < 0)
		return rc;
	return fake_create(ctx, out, sub, who, hooks);
}

static const char handshake[] =
	"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
	"\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
	"\"clientInfo\":{\"name\":\"fuzz\",\"version\":\"1\"}}}";
static const char initialized[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";

/* Check the output of one line; expect_id: the request's id, or NULL. */
static void check_output(tg_buf *b, const json_t *expect_id, int is_request)
{
	tg_json_limits lim = { 8u << 20, 256 };
	size_t pos = 0, answers = 0, matching = 0;
	const char *p = b->ptr;

	while (pos < b->len) {
		const char *nl = memchr(p + pos, '\n', b->len - pos);
		json_t *m = NULL, *id, *res, *err;
		size_t n;

		if (!nl)
			abort(); /* every message ends with "\n" */
		n = (size_t)(nl - (p + pos));
		if (tg_json_parse(&m, p + pos, n, &lim) < 0 || !json_is_object(m))
			abort();
		if (!json_is_string(json_object_get(m, "jsonrpc")) ||
		    strcmp(json_string_value(json_object_get(m, "jsonrpc")), "2.0") != 0)
			abort();
		id = json_object_get(m, "id");
		res = json_object_get(m, "result");
		err = json_object_get(m, "error");
		if (json_object_get(m, "method")) {
			const char *meth = json_string_value(json_object_get(m, "method"));
			if (id || res || err)
				abort();
			/* a 2026-07-28 subscriptions/listen stays open: its
			 * acknowledgement, tagged with its id, stands for the answer */
			if (expect_id && meth &&
			    strcmp(meth, "notifications/subscriptions/acknowledged") == 0 &&
			    json_equal(json_object_get(json_object_get(json_object_get(m, "params"),
									"_meta"),
							"io.modelcontextprotocol/subscriptionId"),
				       expect_id)) {
				answers++;
				matching++;
			}
		} else {
			if (!id || !!res == !!err)
				abort();
			if (err && (!json_is_integer(json_object_get(err, "code")) ||
				    !json_is_string(json_object_get(err, "message"))))
				abort();
			answers++;
			if (expect_id && json_equal(id, expect_id))
				matching++;
		}
		json_decref(m);
		pos += n + 1;
	}
	if (answers > 1 || (is_request && matching != 1))
		abort();
}

static void one_line(tg_mcp_server *s, const char *line, size_t len)
{
	tg_json_limits lim = { LINE_CAP + 1, 64 };
	json_t *m = NULL, *id = NULL;
	int is_request = 0;

	if (tg_json_parse(&m, line, len, &lim) == 0 && json_is_object(m)) {
		id = json_object_get(m, "id");
		is_request = (json_is_string(id) || json_is_integer(id)) &&
			     json_object_get(m, "method") != NULL;
	}
	tg_buf_clear(tg_mcp_server_output(s));
	if (tg_mcp_server_handle(s, line, len) < 0)
		abort();
	check_output(tg_mcp_server_output(s), is_request ? id : NULL, is_request);
	tg_buf_clear(tg_mcp_server_output(s));
	if (tg_mcp_server_check_toolset(s) < 0)
		abort();
	json_decref(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fake_registry fake;
	tg_mcp_backend be;
	tg_mcp_options opt = { 0 };
	tg_mcp_server *s = NULL;
	tg_mcp_reader rd;
	const char *line;
	size_t len;
	int fds[2], r;

	if (size > 60000)
		return 0; /* the whole input must fit in the pipe */
	if (!reg.cfg.max_timeout_ms && reg_config_load(&reg.cfg, "/nonexistent-toolgate-fuzz") < 0)
		abort();
	fake_init(&fake, &be);
	fake_add_tool(&fake, "echo", NULL);
	fake_add_tool(&fake, "fail", NULL);
	fake_add_tool(&fake, "writer", "workspace:write");
	fake_add_tool(&fake, "create_tool", NULL); /* clashes with a meta-tool */
	fake_create = be.create;
	be.create = create_validated;
	opt.max_calls = 6;
	opt.max_creates = 2;
	opt.page_size = 2;
	opt.session = "fuzz";
	opt.version = "0.1.0";
	opt.hide_write_tools = size > 0 && data[0] == '!';
	if (tg_mcp_server_new(&s, &be, &opt) < 0)
		abort();
	if (!(size > 0 && data[0] == '#')) {
		one_line(s, handshake, sizeof(handshake) - 1);
		one_line(s, initialized, sizeof(initialized) - 1);
	}
	if (pipe(fds) < 0)
		abort();
	if (size && write(fds[1], data, size) != (ssize_t)size)
		abort();
	close(fds[1]);
	tg_mcp_reader_init(&rd, fds[0], LINE_CAP);
	for (;;) {
		r = tg_mcp_reader_next(&rd, &line, &len);
		if (r == TG_MCP_READ_LINE) {
			if (len > LINE_CAP)
				abort();
			one_line(s, line, len);
		} else if (r == TG_MCP_READ_OVERSIZE) {
			tg_buf_clear(tg_mcp_server_output(s));
			if (tg_mcp_server_oversize(s) < 0)
				abort();
			check_output(tg_mcp_server_output(s), NULL, 0);
		} else if (r == TG_MCP_READ_EOF) {
			break;
		} else if (r == TG_MCP_READ_NONE) {
			if (tg_mcp_reader_fill(&rd) < 0)
				abort();
		} else {
			abort();
		}
	}
	tg_mcp_reader_free(&rd);
	close(fds[0]);
	tg_buf_clear(tg_mcp_server_output(s));
	if (tg_mcp_server_close(s) < 0)
		abort();
	tg_mcp_server_free(s);
	fake_free(&fake);
	return 0;
}
