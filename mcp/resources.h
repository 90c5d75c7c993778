/*
 * mcp/resources.h: what the agent sees of the rules (issue 14), kept
 * apart from the protocol files so it moves with them as one piece: the
 * create_tool description (the tool contract, the SDK's core calls with an
 * example, what is refused and what to use instead), the MCP resources
 * (the SDK header, docs/SDK.md, the effective policy), and the shapes of
 * structured results (outputSchema and structuredContent).
 */
#ifndef TG_MCP_RESOURCES_H
#define TG_MCP_RESOURCES_H

#include "mcp/mcp.h"

/* The create_tool description. */
extern const char tg_mcp_create_tool_text[];
/* In the meta-tools array: set create_tool's description to the text above
 * and add the output_schema property to its inputSchema. */
void tg_mcp_describe_create_tool(json_t *meta_tools);
/* A successful result as structuredContent: an object as is, any other
 * value wrapped as {"result": value} (a new reference; NULL on no memory). */
json_t *tg_mcp_structured(const json_t *result);
/* A tool's output_schema as MCP outputSchema (always type object): an
 * object schema as is, any other wrapped as the "result" property. */
json_t *tg_mcp_output_schema(const json_t *schema);
/* resources/list and resources/read (params already an object or NULL). */
int tg_mcp_resources_list(tg_mcp_server *s, const json_t *id, const json_t *params);
int tg_mcp_resources_read(tg_mcp_server *s, const json_t *id, const json_t *params);

#endif
