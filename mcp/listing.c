/*
 * mcp/listing.c: what a session lists: the meta-tools' catalogue (their
 * names and tools/list entries; create_tool's description comes from
 * resources.c, run_program's from program.c) and tools/list itself, the
 * registered tools the session may see (the registry's one decision,
 * tg_authorize, per tool) after the meta-tools it may use, sorted by name,
 * a page at a time behind an opaque cursor.
 */
#include "mcp/internal.h"

#include <stdlib.h>
#include <string.h>

/* tools/list cursors: the prefix, then the last name listed in hex. */
#define TG_MCP_CURSOR_PREFIX "tg1."

/* ---- the meta-tools ----------------------------------------------------------- */

static const char *const meta_names[] = { "create_tool", "list_tool_versions", "rollback_tool",
					  "tool_history", NULL };

int tg_mcp_is_meta_tool(const char *name)
{
	size_t i;

	for (i = 0; meta_names[i]; i++) {
		if (strcmp(name, meta_names[i]) == 0)
			return 1;
	}
	return strcmp(name, "run_program") == 0; /* program.c */
}

/* a limit of the registry (registry.h) as text in the published schema */
#define STR_(x) #x
#define STR(x) STR_(x)

#define NAME_PROP                                                                        \
	"\"name\":{\"type\":\"string\",\"pattern\":\"^[a-z][a-z0-9_]{0,63}$\","          \
	"\"description\":\"the tool's name\"}"

static const char meta_json[] =
	"["
	"{\"name\":\"create_tool\",\"title\":\"Create or update a tool\","
	"\"description\":\"Submit a tool written in C11, or a new version of one. The source is "
	"vetted statically, versioned, built and run against its tests in a no-network sandbox; "
	"the tool is registered (or its new version activated) only if everything passes. The "
	"tool reads its arguments as one JSON object on stdin and writes one JSON value on "
	"stdout; exit status 0 is success, anything else is a tool error whose message is "
	"stderr. The result gives the verdict, the version, the analyzer's findings and each "
	"test's outcome; a rejection is an error result with the reasons: fix the code and "
	"submit again. A version asking for any capability waits for a person's approval of "
	"that very version; until then its tests see an empty /workspace.\","
	"\"inputSchema\":{\"type\":\"object\",\"properties\":{"
	NAME_PROP ","
	"\"description\":{\"type\":\"string\",\"description\":\"what the tool does, for the "
	"agent's tool list\"},"
	"\"input_schema\":{\"type\":\"object\",\"description\":\"JSON Schema of the arguments, "
	"top level {\\\"type\\\":\\\"object\\\"}; JSON Schema 2020-12: the applicator "
	"and validation keywords ($defs and $ref within the document, allOf, anyOf, oneOf, not, "
	"if/then/else, properties, patternProperties, additionalProperties, prefixItems, "
	"items, contains, unevaluated*, const, enum, pattern, ...); format is asserted only "
	"when the home's config says so; an unknown keyword is refused\"},"
	"\"source\":{\"type\":\"string\",\"description\":\"the complete C11 source file\"},"
	"\"tests\":{\"type\":\"array\",\"description\":\"test cases run in the sandbox before "
	"registration; each passes when the output equals expect (JSON comparison), or when "
	"the tool fails and expect_error is true\",\"items\":{\"type\":\"object\","
	"\"properties\":{\"name\":{\"type\":\"string\"},\"args\":{\"type\":\"object\"},"
	"\"expect\":{},\"expect_error\":{\"type\":\"boolean\"},"
	"\"host_results\":{\"type\":\"object\",\"description\":\"fixtures: the result "
	"of each host tool the test calls, by NAME (host tools never run in tests)\"},"
	"\"tool_results\":{\"type\":\"object\",\"description\":\"fixtures: the result of "
	"each registered callee holding a capability, by name (such callees never run in "
	"tests)\"},"
	"\"files\":{\"type\":\"object\",\"maxProperties\":" STR(TG_TEST_MAX_FILES) ","
	"\"description\":\"files of the scratch /workspace this test runs on (a tool with "
	"workspace:read or workspace:write): plain names, no '/', no '..', no leading dot; "
	"the text of each file, at most " STR(TG_TEST_FILES_KB) " KiB in all\","
	"\"additionalProperties\":{\"type\":\"string\"}}},"
	"\"required\":[\"name\",\"args\"],\"additionalProperties\":false}},"
	"\"limits\":{\"type\":\"object\",\"description\":\"per-call limits, each at most "
	"the home's ceiling\",\"properties\":{"
	"\"timeout_ms\":{\"type\":\"integer\",\"minimum\":1},\"memory_mb\":{\"type\":"
	"\"integer\",\"minimum\":1},\"output_kb\":{\"type\":\"integer\",\"minimum\":1},"
	"\"max_tool_calls\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"bridged "
	"call attempts of one run\"}},\"additionalProperties\":false},"
	"\"capabilities\":{\"type\":\"array\",\"uniqueItems\":true,\"description\":\"none by "
	"default; each needs a person's approval of the version: workspace:read, "
	"workspace:write (the home's workspace at /workspace), tools:NAME (a registered tool "
	"in calls that holds capabilities), host:NAME (a host tool of the home's config, in "
	"calls)\",\"items\":{\"type\":\"string\",\"pattern\":"
	"\"^(workspace:read|workspace:write|tools:[a-z][a-z0-9_]{0,63}|"
	"host:[a-z][a-z0-9_]{0,63})$\"}},"
	"\"calls\":{\"type\":\"array\",\"uniqueItems\":true,\"description\":\"the tools this tool may call through "
	"tg_call_tool: registered tool names and host:NAME for the home's host tools\","
	"\"items\":{\"type\":\"string\",\"pattern\":\"^(host:)?[a-z][a-z0-9_]{0,63}$\"}}},"
	"\"required\":[\"name\",\"description\",\"input_schema\",\"source\",\"tests\"],"
	"\"additionalProperties\":false},"
	"\"annotations\":{\"readOnlyHint\":false,\"destructiveHint\":false,"
	"\"idempotentHint\":false,\"openWorldHint\":false}},"

	"{\"name\":\"list_tool_versions\",\"title\":\"List a tool's versions\","
	"\"description\":\"Every version of a tool with its status (active, passed, rejected, "
	"pending approval, ...) and verdict, and which one is active; 50 versions a page, "
	"oldest first, with nextCursor while more remain.\","
	"\"inputSchema\":{\"type\":\"object\",\"properties\":{" NAME_PROP ","
	"\"cursor\":{\"type\":\"string\",\"description\":\"the nextCursor of the previous "
	"page; none for the first\"},\"details\":{\"type\":\"boolean\",\"description\":"
	"\"rejected versions in full rather than one line each\"}""},"
	"\"required\":[\"name\"],\"additionalProperties\":false},"
	"\"annotations\":{\"readOnlyHint\":true,\"openWorldHint\":false}},"

	"{\"name\":\"rollback_tool\",\"title\":\"Roll a tool back\","
	"\"description\":\"Re-activate an earlier version of a tool that passed. Without "
	"version: the version that was active before the current one.\","
	"\"inputSchema\":{\"type\":\"object\",\"properties\":{" NAME_PROP ","
	"\"version\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"the version to "
	"re-activate\"}},\"required\":[\"name\"],\"additionalProperties\":false},"
	"\"annotations\":{\"readOnlyHint\":false,\"destructiveHint\":true,"
	"\"idempotentHint\":true,\"openWorldHint\":false}},"

	"{\"name\":\"tool_history\",\"title\":\"A tool's history\","
	"\"description\":\"The full history of a tool: every version with its time, verdict, "
	"commit and status, and every activation and rollback; 50 versions a page, oldest "
	"first, with nextCursor while more remain (the events naming them with each page).\","
	"\"inputSchema\":{\"type\":\"object\",\"properties\":{" NAME_PROP ","
	"\"cursor\":{\"type\":\"string\",\"description\":\"the nextCursor of the previous "
	"page; none for the first\"},\"details\":{\"type\":\"boolean\",\"description\":"
	"\"rejected versions in full rather than one line each\"}""},"
	"\"required\":[\"name\"],\"additionalProperties\":false},"
	"\"annotations\":{\"readOnlyHint\":true,\"openWorldHint\":false}}"
	"]";

json_t *tg_mcp_meta_tools(void)
{
	json_t *v = NULL;

	if (tg_json_parse(&v, meta_json, sizeof(meta_json) - 1, NULL) < 0)
		return NULL;
	tg_mcp_describe_create_tool(v); /* the rules, in mcp_resources.c */
	return v;
}

/* The home's workspace, told to the agent in create_tool's description: a
 * capability only a person can make usable must not look like the agent's
 * to fix (issue 29). */
static const char ws_yes[] =
	"\n\nWORKSPACE: this home has a workspace: workspace:read (read-only) and "
	"workspace:write may be asked for; a person approves each such version. Tests run "
	"on a scratch /workspace, never the real one: it is empty but for the files a test "
	"declares in \"files\" ({\"notes.txt\": \"text\"}).";
static const char ws_no[] =
	"\n\nWORKSPACE: this home has no workspace configured, so workspace:read and "
	"workspace:write are refused. Only a person (the operator) can configure one "
	"(\"workspace\": \"/absolute/folder\" in the home's config.json, then restart "
	"toolgate serve): ask them, or write the tool without it.";

static int describe_workspace(json_t *all, int configured)
{
	json_t *t;
	size_t i;

	json_array_foreach(all, i, t) {
		const char *d = json_string_value(json_object_get(t, "description"));
		_cleanup_free_ char *full = NULL;
		if (strcmp(json_string_value(json_object_get(t, "name")) ?: "", "create_tool") != 0 ||
		    !d)
			continue;
		if (asprintf(&full, "%s%s", d, configured ? ws_yes : ws_no) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		if (json_object_set_new(t, "description", json_string(full)) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
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
	if (!all || describe_workspace(all, s->opt.workspace) < 0)
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
	/* the list depends on the principal */
	if (tg_mcp_cache_hint(s, result, 1) < 0) {
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

