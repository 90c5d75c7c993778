/*
 * mcp/resources.c: what an agent sees of toolgate's rules before it
 * writes a tool. The create_tool description carries them in a compact form
 * (the contract, the SDK with a ten-line example, the allowed library, what
 * is refused and what to use instead); the full texts are MCP resources:
 * toolgate://sdk/tool.h (the header the analyzer and the build use),
 * toolgate://docs/SDK.md (its reference) and toolgate://policy (the
 * effective policy as JSON, the same document as `toolgate policy --json`).
 * The header and the reference are the binary's own copies (cli/embed.cmake),
 * so they are served wherever toolgate is installed. In the 2026-07-28 era
 * (modern.c) the lists and reads carry a public cache hint
 * (tg_mcp_cache_hint), a resource not found is -32602 with data.uri
 * (SEP-2164; -32002 in the initialize eras), and resources/templates/list
 * answers the empty list (no templates). Also here: a result's
 * structuredContent and a tool's outputSchema, wrapped as the MCP spec wants
 * when they are not objects.
 */

#include "mcp/internal.h"

#include <string.h>

extern const char tg_embed_sdk_header[];
extern const unsigned long tg_embed_sdk_header_len;
extern const char tg_embed_sdk_doc[];
extern const unsigned long tg_embed_sdk_doc_len;

const char tg_mcp_create_tool_text[] =
	"Submit a tool written in C11, or a new version of one. It is vetted statically, "
	"versioned, built and run against its tests in a no-network sandbox, and registered "
	"(or its new version activated) only if everything passes. A rejection is an error "
	"result listing every finding at once, each with a hint naming what to use instead: "
	"fix the code and submit again. A version asking for a capability waits for a "
	"person's approval of that very version.\n"
	"\n"
	"CONTRACT: one C11 source file. Arguments: one JSON object on stdin. Result: one JSON "
	"value on stdout. Exit 0 = success; anything else is a tool error whose message is "
	"stderr. tests: [{name, args, expect}] or [{name, args, expect_error: true}], at "
	"least one with expect (compared as JSON). input_schema and the optional output_schema "
	"(any top-level type) are JSON Schema 2020-12 without remote $ref, $dynamicRef or "
	"custom vocabularies (format is asserted only when the home's config says so); "
	"output_schema is checked on every test and call; the "
	"result then also comes as structuredContent.\n"
	"\n"
	"SDK: #include <toolgate/tool.h> does the JSON on both sides; do not write a parser:\n"
	"#include <toolgate/tool.h>\n"
	"int main(void)\n"
	"{\n"
	"\ttg_tool_args *a = tg_tool_read_args();          /* the JSON object on stdin */\n"
	"\tconst char *text = tg_arg_str(a, \"text\", \"\");    /* default \"\" */\n"
	"\tlong long times = tg_arg_int(a, \"times\", 1);\n"
	"\ttg_out_object_begin();                           /* writes {\"chars\":N} */\n"
	"\ttg_out_key_int(\"chars\", (long long)strlen(text) * times);\n"
	"\ttg_out_end();                                    /* close, newline, flush */\n"
	"\treturn 0;\n"
	"}\n"
	"More: tg_arg_num/bool/array/object/has, tg_arg_array_len, tg_item(arr,i), "
	"tg_item_str/int/num, tg_value_get(obj,key), tg_out_array_begin/end, "
	"tg_out_key_str/num/bool/null/value, tg_out_str/int/num, tg_tool_fail(fmt, ...) "
	"(message on stderr, exit 1), tg_call_tool(name, args_json, &result) to call a tool "
	"named in the manifest's \"calls\".\n"
	"\n"
	"ALLOWED: stdio on stdin/stdout/stderr (printf, fgets, fread, getline, ...), string.h, "
	"strings.h, stdlib.h (malloc, qsort, bsearch, strtol, strtod, rand_r), ctype.h, "
	"math.h, complex.h, fenv.h, stdint.h, inttypes.h, stdbool.h, stdarg.h (your own "
	"variadic functions), time.h in UTC (time, gmtime_r, timegm, strftime, strptime), "
	"regex.h (regcomp, regexec, regerror, regfree), wchar.h, uchar.h, tmpfile, "
	"fmemopen, open_memstream, fopen of a constant path under /tmp/ (under /workspace/ "
	"with the workspace:read or workspace:write capability; a computed name there with "
	"tg_workspace_open(name, \"r\")), read(0, ...) and "
	"write(1 or 2, ...), calls through a static const table of your own functions. "
	"The complete list: resource toolgate://policy; the SDK: toolgate://docs/SDK.md and "
	"toolgate://sdk/tool.h.\n"
	"\n"
	"REFUSED -> USE INSTEAD: system, popen, fork, exec*, threads -> compute it in the "
	"tool. socket, DNS, HTTP -> no network; call a registered tool with tg_call_tool. "
	"getenv, environ -> take settings from the arguments. open, stat, opendir, paths "
	"outside /tmp/ -> read stdin, or ask for the workspace capability (tg_workspace_open "
	"for a computed name). Calls through a "
	"function pointer variable -> call directly, use a switch or a static const table. "
	"setjmp/longjmp -> return error codes. mmap, signals, asm, #pragma, #line, ({ ... }) "
	"statement expressions, names starting with __ or _ and a capital, headers not "
	"listed above -> not available.";

#define TG_POLICY_URI "toolgate://policy"
#define TG_HEADER_URI "toolgate://sdk/tool.h"
#define TG_SDKDOC_URI "toolgate://docs/SDK.md"

void tg_mcp_describe_create_tool(json_t *meta_tools)
{
	size_t i;
	json_t *t;

	json_array_foreach(meta_tools, i, t) {
		json_t *props;
		if (strcmp(json_string_value(json_object_get(t, "name")) ?: "", "create_tool") != 0)
			continue;
		json_object_set_new(t, "description", json_string(tg_mcp_create_tool_text));
		props = json_object_get(json_object_get(t, "inputSchema"), "properties");
		if (json_is_object(props))
			json_object_set_new(
				props, "output_schema",
				json_pack("{s:s,s:s}", "type", "object", "description",
					  "optional JSON Schema 2020-12 of the result (as "
					  "input_schema, any top-level type): every test and call "
					  "result is checked against it, and MCP results carry it as "
					  "structuredContent"));
	}
}

json_t *tg_mcp_structured(const json_t *result)
{
	if (json_is_object(result))
		return json_incref((json_t *)result);
	return json_pack("{s:O}", "result", result ? result : json_null());
}

json_t *tg_mcp_output_schema(const json_t *schema)
{
	if (!json_is_object(schema))
		return NULL;
	if (json_is_string(json_object_get(schema, "type")) &&
	    strcmp(json_string_value(json_object_get(schema, "type")), "object") == 0)
		return json_incref((json_t *)schema);
	return json_pack("{s:s,s:{s:O},s:[s]}", "type", "object", "properties", "result", schema,
			 "required", "result");
}

/* ---- resources ------------------------------------------------------------------ */

int tg_mcp_reply_public(tg_mcp_server *s, const json_t *id, json_t *result)
{
	if (result && tg_mcp_cache_hint(s, result, 0) < 0) {
		json_decref(result);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	return tg_mcp_reply(s, id, result);
}

int tg_mcp_resource_templates_list(tg_mcp_server *s, const json_t *id, const json_t *params)
{
	(void)params;
	return tg_mcp_reply_public(s, id, json_pack("{s:[]}", "resourceTemplates"));
}

int tg_mcp_resources_list(tg_mcp_server *s, const json_t *id, const json_t *params)
{
	(void)params; /* one page: three resources */
	return tg_mcp_reply_public(
		s, id,
		json_pack("{s:[{s:s,s:s,s:s,s:s,s:s},{s:s,s:s,s:s,s:s,s:s},{s:s,s:s,s:s,s:s,s:s}]}",
			  "resources", "uri", TG_HEADER_URI, "name", "tool.h", "title",
			  "The tool SDK header", "description",
			  "toolgate/tool.h: JSON arguments in, JSON result out, tool calls; "
			  "include it as <toolgate/tool.h>",
			  "mimeType", "text/x-c", "uri", TG_SDKDOC_URI, "name", "SDK.md", "title",
			  "The tool SDK reference", "description",
			  "How to write a tool with toolgate/tool.h: every call, failing, "
			  "examples",
			  "mimeType", "text/markdown", "uri", TG_POLICY_URI, "name", "policy",
			  "title", "The effective analysis policy", "description",
			  "Allowed headers and functions, the functions allowed under conditions, "
			  "every rule with its severity and hint (toolgate policy --json)",
			  "mimeType", "application/json"));
}

int tg_mcp_resources_read(tg_mcp_server *s, const json_t *id, const json_t *params)
{
	_cleanup_free_ char *dyn = NULL;
	const char *uri = json_string_value(json_object_get(params, "uri"));
	const char *mime, *text;

	if (!uri)
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS,
					  "Invalid params: resources/read needs a uri (a string)");
	if (strcmp(uri, TG_HEADER_URI) == 0) {
		mime = "text/x-c";
		text = tg_embed_sdk_header;
	} else if (strcmp(uri, TG_SDKDOC_URI) == 0) {
		mime = "text/markdown";
		text = tg_embed_sdk_doc;
	} else if (strcmp(uri, TG_POLICY_URI) == 0 && s->opt.policy) {
		/* set by `toolgate serve` from the policy the analysis uses */
		dyn = tg_json_dump(s->opt.policy);
		if (!dyn)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		mime = "application/json";
		text = dyn;
	} else if (s->modern) {
		/* SEP-2164: -32602 naming the uri in data */
		return tg_mcp_queue(s, json_pack("{s:s, s:O, s:{s:i, s:s, s:{s:s}}}", "jsonrpc",
						 "2.0", "id", id, "error", "code",
						 TG_RPC_INVALID_PARAMS, "message",
						 "Resource not found", "data", "uri", uri));
	} else {
		/* -32002: the spec's "Resource not found" */
		return tg_mcp_reply_error(s, id, -32002, "Resource not found: %.200s", uri);
	}
	return tg_mcp_reply_public(s, id,
				   json_pack("{s:[{s:s,s:s,s:s}]}", "contents", "uri", uri,
					     "mimeType", mime, "text", text));
}
