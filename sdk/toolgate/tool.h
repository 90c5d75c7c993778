/*
 * toolgate/tool.h: the header-only SDK for toolgate tools.
 *
 * A tool reads its arguments as one JSON object on stdin and writes its
 * result as one JSON value on stdout; exit status 0 is success, anything else
 * is an error whose message is stderr. This header does the JSON on both
 * sides so a tool is a few lines:
 *
 *   tg_tool_args *a = tg_tool_read_args();       // strict parse of stdin
 *   const char *text = tg_arg_str(a, "text", ""); // typed getters, defaults
 *   tg_out_object_begin(); tg_out_key_int("n", 3); tg_out_end();
 *
 * Every failure (bad JSON, wrong argument type, misuse of the writer) ends
 * the tool through tg_tool_fail(): one line on stderr, exit status 1.
 * The parser is strict RFC 8259: UTF-8 validated, \u escapes with surrogate
 * pairs decoded to UTF-8, duplicate keys refused, input capped at 1 MiB and
 * nesting at 64. All functions are static inline and use only the headers
 * and functions that toolgate's analyzer allows (no stdarg.h, no builtins,
 * no attributes, no function pointers but a qsort comparator).
 * Reference: docs/SDK.md.
 *
 * The SDK is split by what each part does; this header includes them all:
 *   toolgate/value.h       the value type, the input limits, tg_tool_fail
 *   toolgate/json_parse.h  the strict parser, tg_tool_read_args
 *   toolgate/json_get.h    reading values and arguments (tg_arg_*, tg_value_*)
 *   toolgate/json_out.h    writing the result (tg_out_*)
 *   toolgate/bridge.h      calling other tools (tg_args_*, tg_call_tool)
 *   toolgate/workspace.h   opening a computed path under /workspace (tg_workspace_open)
 *   toolgate/input.h       asking the MCP client for input (tg_out_input_*, tg_input_response)
 * A tool includes <toolgate/tool.h> only: the analyzer allows no other
 * toolgate/ header in a tool's source.
 */
#ifndef TOOLGATE_TOOL_H
#define TOOLGATE_TOOL_H

#include "value.h"
#include "json_parse.h"
#include "json_get.h"
#include "json_out.h"
#include "bridge.h"
#include "workspace.h"
#include "input.h"

#endif
