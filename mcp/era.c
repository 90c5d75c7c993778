/*
 * mcp/era.c: the initialize-era protocol versions the server speaks and
 * what each lets a message carry. initialize echoes the client's version
 * when it is one of 2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05
 * (else the latest); JSON-RPC batches belong to 2025-03-26 only (added
 * there, removed in 2025-06-18; 2024-11-05's schema has none). Every
 * message queued in a session of an older era is cut to that era's shapes
 * here, in one place (session.c's tg_mcp_queue calls it): before
 * 2025-06-18 no title fields (a tool's title moves to annotations.title in
 * 2025-03-26), no outputSchema, no structuredContent, no icons; before
 * 2025-03-26 also no tool annotations, no audio content (a text block says
 * what was left out) and no message in notifications/progress. It calls nothing else of mcp/.
 */
#include "mcp/internal.h"

#include <string.h>

const char *const tg_mcp_era_versions[] = { TG_MCP_PROTOCOL_LATEST, TG_MCP_PROTOCOL_FALLBACK,
					    TG_MCP_PROTOCOL_2025_03, TG_MCP_PROTOCOL_2024_11, NULL };
#define NVERSIONS (TG_ARRAY_SIZE(tg_mcp_era_versions) - 1)
static const int eras[] = { TG_MCP_ERA_2025_11, TG_MCP_ERA_2025_06, TG_MCP_ERA_2025_03,
			    TG_MCP_ERA_2024_11 };

int tg_mcp_era(const char *version)
{
	size_t i;

	for (i = 0; version && i < NVERSIONS; i++) {
		if (strcmp(version, tg_mcp_era_versions[i]) == 0)
			return eras[i];
	}
	return 0;
}

const char *tg_mcp_era_negotiate(const char *want)
{
	size_t i;

	for (i = 0; want && i < NVERSIONS; i++) {
		if (strcmp(want, tg_mcp_era_versions[i]) == 0)
			return tg_mcp_era_versions[i];
	}
	return TG_MCP_PROTOCOL_LATEST;
}

/* Drop the keys an older era's objects do not have from each object of
 * list (an array of objects). */
static void drop_each(json_t *list, const char *const *keys, size_t n)
{
	json_t *o;
	size_t i, k;

	json_array_foreach(list, i, o) {
		for (k = 0; json_is_object(o) && k < n; k++)
			json_object_del(o, keys[k]);
	}
}

static const char *const titled[] = { "title", "icons" };

static void shape_tools(int era, json_t *tools)
{
	static const char *const later[] = { "outputSchema", "execution", "_meta" };
	json_t *t, *title, *ann;
	size_t i;

	json_array_foreach(tools, i, t) {
		if (!json_is_object(t))
			continue;
		title = json_object_get(t, "title");
		ann = json_object_get(t, "annotations");
		if (era == TG_MCP_ERA_2025_03 && json_is_string(title)) {
			/* 2025-03-26 has the display name in the annotations */
			if (!json_is_object(ann)) {
				ann = json_object();
				if (json_object_set_new(t, "annotations", ann) < 0)
					ann = NULL;
			}
			if (ann && !json_object_get(ann, "title"))
				json_object_set(ann, "title", title);
		}
		if (era < TG_MCP_ERA_2025_03)
			json_object_del(t, "annotations");
	}
	drop_each(tools, titled, TG_ARRAY_SIZE(titled));
	drop_each(tools, later, TG_ARRAY_SIZE(later));
}

/* 2024-11-05 has text, image and resource content only: an audio block
 * becomes a text block that says what was left out. */
static void no_audio(json_t *content)
{
	const char *type, *mime;
	char note[200];
	json_t *b;
	size_t i;

	json_array_foreach(content, i, b) {
		type = json_string_value(json_object_get(b, "type"));
		if (!type || strcmp(type, "audio") != 0)
			continue;
		mime = json_string_value(json_object_get(b, "mimeType"));
		snprintf(note, sizeof(note),
			 "[audio content (%.64s) left out: protocol version %s has no audio "
			 "content]",
			 mime ? mime : "?", TG_MCP_PROTOCOL_2024_11);
		json_array_set_new(content, i, json_pack("{s:s, s:s}", "type", "text", "text", note));
	}
}

static void shape_result(int era, const char *method, json_t *res)
{
	json_t *x, *p;
	size_t i;

	if (strcmp(method, "initialize") == 0) {
		static const char *const info[] = { "title", "icons", "websiteUrl", "description" };
		x = json_object_get(res, "serverInfo");
		for (i = 0; json_is_object(x) && i < TG_ARRAY_SIZE(info); i++)
			json_object_del(x, info[i]);
		if (era < TG_MCP_ERA_2025_03)
			json_object_del(json_object_get(res, "capabilities"), "completions");
	} else if (strcmp(method, "tools/list") == 0) {
		shape_tools(era, json_object_get(res, "tools"));
	} else if (strcmp(method, "tools/call") == 0) {
		/* the JSON value is in the text content as well (tools.c) */
		json_object_del(res, "structuredContent");
		if (era < TG_MCP_ERA_2025_03)
			no_audio(json_object_get(res, "content"));
	} else if (strcmp(method, "prompts/list") == 0) {
		x = json_object_get(res, "prompts");
		drop_each(x, titled, TG_ARRAY_SIZE(titled));
		json_array_foreach(x, i, p)
			drop_each(json_object_get(p, "arguments"), titled, 1);
	} else if (strcmp(method, "resources/list") == 0) {
		drop_each(json_object_get(res, "resources"), titled, TG_ARRAY_SIZE(titled));
	} else if (strcmp(method, "resources/templates/list") == 0) {
		drop_each(json_object_get(res, "resourceTemplates"), titled, TG_ARRAY_SIZE(titled));
	}
}

void tg_mcp_era_shape(int era, const char *method, json_t *msg)
{
	const char *note;
	json_t *res;

	if (!era || era >= TG_MCP_ERA_2025_06 || !json_is_object(msg))
		return;
	res = json_object_get(msg, "result");
	if (json_is_object(res) && method) {
		shape_result(era, method, res);
		return;
	}
	note = json_string_value(json_object_get(msg, "method"));
	if (note && era < TG_MCP_ERA_2025_03 && strcmp(note, "notifications/progress") == 0)
		json_object_del(json_object_get(msg, "params"), "message");
}
