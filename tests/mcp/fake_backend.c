/*
 * tests/mcp/fake_backend.c: the in-memory registry of fake_backend.h. Its
 * tools behave like this: "fail" exits with an error, "echo" (and any other)
 * returns {"echo": args}. create_tool rejects a source containing "BAD",
 * answers TG_ERR_INVALID for a manifest without a description, and else
 * registers the next version and bumps the generation.
 */
#include "fake_backend.h"

#include <string.h>

static json_t *find(fake_registry *f, const char *name)
{
	size_t i;
	json_t *t;

	json_array_foreach(f->tools, i, t) {
		if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0)
			return t;
	}
	return NULL;
}

void fake_add_tool(fake_registry *f, const char *name, const char *cap)
{
	json_t *t = find(f, name);
	json_t *caps = cap ? json_pack("[s]", cap) : json_array();

	if (t) {
		json_object_set_new(t, "capabilities", caps);
		json_object_set_new(t, "version",
				    json_integer(json_integer_value(json_object_get(t, "version")) + 1));
	} else {
		json_array_append_new(
			f->tools,
			json_pack("{s:s, s:i, s:s, s:{s:s, s:{s:{s:s}}}, s:o}", "name", name,
				  "version", 1, "description", "a fake tool", "input_schema",
				  "type", "object", "properties", "text", "type", "string",
				  "capabilities", caps));
	}
	f->generation++;
}

size_t fake_count_audit(const fake_registry *f, const char *event)
{
	size_t i, n = 0;
	json_t *a;

	json_array_foreach(f->audits, i, a) {
		if (strcmp(json_string_value(json_object_get(a, "event")), event) == 0)
			n++;
	}
	return n;
}

static int f_list(void *ctx, json_t **out)
{
	fake_registry *f = ctx;
	*out = json_deep_copy(f->tools);
	return 0;
}

static int f_create(void *ctx, json_t **out, const tg_submission *sub, const tg_actor *who,
		    const tg_call_hooks *hooks)
{
	fake_registry *f = ctx;
	const char *name = json_string_value(json_object_get(sub->manifest, "name"));
	json_t *t;

	(void)who;
	(void)hooks;
	f->creates_run++;
	if (!json_is_string(json_object_get(sub->manifest, "description")))
		return tg_error_set(TG_ERR_INVALID, "manifest: description: is required");
	if (strstr(sub->source, "BAD")) {
		*out = json_pack("{s:s, s:i, s:s, s:s, s:[{s:s, s:s}], s:[], s:s}", "name", name,
				 "version", 9, "status", "rejected", "verdict", "reject",
				 "findings", "rule", "banned-call", "message", "system() is banned",
				 "tests", "reason", "analysis rejected the source");
		return 0;
	}
	fake_add_tool(f, name, NULL);
	t = find(f, name);
	*out = json_pack("{s:s, s:O, s:s, s:s, s:[], s:[]}", "name", name, "version",
			 json_object_get(t, "version"), "status", "active", "verdict", "pass",
			 "findings", "tests");
	return 0;
}

static int f_call(void *ctx, json_t **out, const char *name, const json_t *args,
		  const tg_actor *who)
{
	fake_registry *f = ctx;
	json_t *t = find(f, name);

	(void)who;
	if (!t)
		return tg_error_set(TG_ERR_NOTFOUND, "no active tool %s", name);
	f->calls_run++;
	if (strcmp(name, "fail") == 0)
		*out = json_pack("{s:s, s:O, s:b, s:s, s:i}", "name", name, "version",
				 json_object_get(t, "version"), "ok", 0, "error", "boom on stderr",
				 "wall_ms", 1);
	else
		*out = json_pack("{s:s, s:O, s:b, s:{s:O}, s:i}", "name", name, "version",
				 json_object_get(t, "version"), "ok", 1, "result", "echo", args,
				 "wall_ms", 1);
	return 0;
}

/* As the registry's call path: the one decision (tg_authorize) with the
 * tool's capabilities known, a hidden tool being absent. */
static int f_call_hooked(void *ctx, json_t **out, const char *name, const json_t *args,
			 const tg_actor *who, const tg_call_hooks *hooks)
{
	json_t *t = find(ctx, name);
	int hidden = 0;

	if (t && tg_authorize(hooks ? hooks->principal : NULL, TG_ACTION_CALL, name,
			      json_object_get(t, "capabilities"), &hidden) < 0)
		return hidden ? tg_error_set(TG_ERR_NOTFOUND, "no active tool %s", name)
			      : TG_ERR_DENIED;
	return f_call(ctx, out, name, args, who);
}

static int f_rollback(void *ctx, json_t **out, const char *name, unsigned to,
		      unsigned flags, const tg_actor *who)
{
	fake_registry *f = ctx;
	json_t *t = find(f, name);
	json_int_t v;

	(void)who;
	(void)flags;
	if (!t)
		return tg_error_set(TG_ERR_NOTFOUND, "no tool %s", name);
	v = json_integer_value(json_object_get(t, "version"));
	if (v < 2 || (to && (json_int_t)to >= v))
		return tg_error_set(TG_ERR_INVALID, "no earlier passing version of %s", name);
	json_object_set_new(t, "version", json_integer(to ? (json_int_t)to : v - 1));
	f->generation++;
	*out = json_pack("{s:s, s:O}", "name", name, "active", json_object_get(t, "version"));
	return 0;
}

static int f_history(void *ctx, json_t **out, const char *name)
{
	fake_registry *f = ctx;
	json_t *t = find(f, name);

	if (!t)
		return tg_error_set(TG_ERR_NOTFOUND, "no tool %s", name);
	*out = json_pack("{s:s, s:O, s:[{s:i, s:s, s:[{s:s}]}, {s:i, s:s, s:[]}], s:[]}",
			 "name", name, "active", json_object_get(t, "version"), "versions",
			 "version", 1, "status", "passed", "findings", "rule", "x", "version",
			 2, "status", "active", "findings", "events");
	return 0;
}

static int f_audit(void *ctx, const tg_actor *who, const char *event, const char *tool,
		   const json_t *details)
{
	fake_registry *f = ctx;
	json_array_append_new(f->audits,
			      json_pack("{s:s, s:s?, s:s, s:s?, s:O?}", "kind", who->kind,
					"session", who->session, "event", event, "tool", tool,
					"details", details));
	/* Like a library call that succeeds: the thread's error is reset. */
	tg_error_clear();
	return 0;
}

static int f_generation(void *ctx, uint64_t *out)
{
	fake_registry *f = ctx;
	*out = f->generation;
	return 0;
}

void fake_init(fake_registry *f, tg_mcp_backend *be)
{
	memset(f, 0, sizeof(*f));
	f->tools = json_array();
	f->audits = json_array();
	f->generation = 1;
	memset(be, 0, sizeof(*be));
	be->ctx = f;
	be->list = f_list;
	be->create = f_create;
	be->call = f_call;
	be->call_hooked = f_call_hooked;
	be->rollback = f_rollback;
	be->history = f_history;
	be->audit = f_audit;
	be->generation = f_generation;
}

void fake_free(fake_registry *f)
{
	json_decref(f->tools);
	json_decref(f->audits);
}
