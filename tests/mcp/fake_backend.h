/*
 * tests/mcp/fake_backend.h: an in-memory registry behind the tg_mcp_backend
 * table, so the protocol layer of `toolgate serve` is unit-tested without a
 * home on disk, a compiler or a sandbox. It keeps tools (name, version,
 * description, schema, capabilities), a toolset generation, and every audit
 * event it was handed.
 */
#ifndef TG_TEST_MCP_FAKE_BACKEND_H
#define TG_TEST_MCP_FAKE_BACKEND_H

#include "mcp/mcp.h"

typedef struct fake_registry {
	json_t *tools;   /* array of list entries, plus "versions" (int) */
	json_t *audits;  /* [{"kind","session","event","tool","details"}] */
	uint64_t generation;
	unsigned calls_run;   /* calls that reached the "registry" */
	unsigned creates_run;
} fake_registry;

void fake_init(fake_registry *f, tg_mcp_backend *be);
void fake_free(fake_registry *f);
/* Add (or replace) a tool; caps may be NULL. Bumps the generation. */
void fake_add_tool(fake_registry *f, const char *name, const char *cap);
/* How many audit events named event. */
size_t fake_count_audit(const fake_registry *f, const char *event);

#endif
