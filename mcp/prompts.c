/*
 * mcp/prompts.c: the MCP prompts of `toolgate serve`: one, write_tool, that
 * hands an agent what it needs to write a tool in one message: the task it
 * was given (the optional argument "task"), the rules (the create_tool
 * description of resources.c, the one text of them), a complete example as
 * the arguments of a create_tool call (examples/word_count, embedded at
 * build time by embed.cmake, its source put in the manifest's "source" as
 * MCP wants it), and the SDK reference (docs/SDK.md) as an embedded
 * resource. Serves prompts/list (with a public cache hint in the 2026-07-28
 * era: tg_mcp_reply_public of resources.c) and prompts/get; errors are
 * JSON-RPC -32602.
 */
#include "mcp/internal.h"

#include <string.h>

extern const char tg_embed_sdk_doc[];
extern const char tg_embed_example_source[];
extern const char tg_embed_example_manifest[];

#define TG_PROMPT_TASK_MAX 4096

static const char prompt_description[] =
	"Write a toolgate tool: the rules, the SDK reference and a complete create_tool "
	"example in one message";

int tg_mcp_prompts_list(tg_mcp_server *s, const json_t *id, const json_t *params)
{
	(void)params; /* one page: one prompt */
	return tg_mcp_reply_public(
		s, id,
		json_pack("{s:[{s:s, s:s, s:s, s:[{s:s, s:s, s:b}]}]}", "prompts", "name",
			  "write_tool", "title", "Write a toolgate tool", "description",
			  prompt_description, "arguments", "name", "task", "description",
			  "what the tool should do (optional)", "required", 0));
}

/* The example's manifest with its source inline: the arguments of a
 * create_tool call. NULL on no memory or a broken embedded file. */
static char *example_arguments(void)
{
	_cleanup_json_ json_t *m = json_loads(tg_embed_example_manifest, 0, NULL);

	if (!m || json_object_set_new(m, "source", json_string(tg_embed_example_source)) < 0)
		return NULL;
	return json_dumps(m, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
}

static int prompt_text(tg_buf *b, const char *task)
{
	_cleanup_free_ char *example = example_arguments();

	if (!example)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (tg_buf_printf(b, "Write a toolgate tool%s%s%s and register it with the create_tool "
			     "tool of this server.\n\n",
			  task ? " that does this: \"" : "", task ? task : "", task ? "\"" : "") < 0 ||
	    tg_buf_printf(b, "THE RULES (also create_tool's description):\n%s\n\n",
			  tg_mcp_create_tool_text) < 0 ||
	    tg_buf_printf(b, "A COMPLETE EXAMPLE: the arguments of a create_tool call that is "
			     "accepted (word_count; over MCP \"source\" holds the code itself):\n"
			     "```json\n%s\n```\n\nThe SDK reference (docs/SDK.md) follows.\n",
			  example) < 0)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return 0;
}

int tg_mcp_prompts_get(tg_mcp_server *s, const json_t *id, const json_t *params)
{
	const char *name = json_string_value(json_object_get(params, "name"));
	const json_t *args = json_object_get(params, "arguments");
	const json_t *task = json_object_get(args, "task");
	tg_buf text = TG_BUF_INIT(0);
	int r;

	if (!name)
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS,
					  "Invalid params: prompts/get needs a name (a string)");
	if (strcmp(name, "write_tool") != 0)
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS,
					  "Invalid params: unknown prompt (the prompts: write_tool)");
	if (args && !json_is_object(args))
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS,
					  "Invalid params: arguments must be an object");
	if (task && (!json_is_string(task) || json_string_length(task) > TG_PROMPT_TASK_MAX ||
		     tg_utf8_valid(json_string_value(task), json_string_length(task)) != 0))
		return tg_mcp_reply_error(s, id, TG_RPC_INVALID_PARAMS,
					  "Invalid params: task must be a string of at most %d "
					  "bytes",
					  TG_PROMPT_TASK_MAX);
	if ((r = prompt_text(&text, json_string_value(task))) < 0) {
		tg_buf_free(&text);
		return r;
	}
	r = tg_mcp_reply(
		s, id,
		json_pack("{s:s, s:[{s:s, s:{s:s, s:s}}, {s:s, s:{s:s, s:{s:s, s:s, s:s}}}]}",
			  "description", prompt_description, "messages", "role", "user",
			  "content", "type", "text", "text", text.ptr, "role", "user", "content",
			  "type", "resource", "resource", "uri", "toolgate://docs/SDK.md",
			  "mimeType", "text/markdown", "text", tg_embed_sdk_doc));
	tg_buf_free(&text);
	return r;
}
