/*
 * toolgate/bridge.h: calling other tools through the bridge
 * (docs/BRIDGE.md): building an arguments object (tg_args_*) and
 * tg_call_tool, one framed request on fd 3 and its reply, parsed with the
 * SDK's own parser. Only these functions touch fd 3. Part of the SDK,
 * included by <toolgate/tool.h>.
 */
#ifndef TOOLGATE_BRIDGE_H
#define TOOLGATE_BRIDGE_H

#include "json_get.h"
#include "json_parse.h"
#include "value.h"

/* ---- calling other tools (the bridge, docs/BRIDGE.md) ----------------------
 *
 *   tg_args a = TG_ARGS_INIT;
 *   tg_args_str(&a, "text", "one two");
 *   tg_value *res;
 *   if (tg_call_tool("word_count", tg_args_json(&a), &res) == 0)
 *       words = tg_arg_int(res, "words", 0);
 *   tg_value_free(res); tg_args_free(&a);
 *
 * A call is one frame on fd 3 (4-byte big-endian length, then
 * {"id","tool","args"}) and one reply; toolgate checks every call (declared
 * in the manifest's "calls", within limits.max_tool_calls, ...). Only these
 * functions touch fd 3: the analyzer refuses read, write, close and dup in a
 * tool's own code. */

#define TG_CALL_MAX_FRAME (1024 * 1024)

/* The two system calls the bridge needs, declared here (unistd.h is not an
 * allowed header); the analyzer allows them only in the SDK's headers. */
long read(int fd, void *buf, size_t n);
long write(int fd, const void *buf, size_t n);

static inline bool tg__bridge_put(const void *buf, size_t n)
{
	const char *b = (const char *)buf;
	while (n > 0) {
		long k = write(3, b, n);
		if (k <= 0)
			return false;
		b += k;
		n -= (size_t)k;
	}
	return true;
}

static inline bool tg__bridge_get(void *buf, size_t n)
{
	char *b = (char *)buf;
	while (n > 0) {
		long k = read(3, b, n);
		if (k <= 0)
			return false;
		b += k;
		n -= (size_t)k;
	}
	return true;
}

typedef struct tg_args {
	char *s;
	size_t len, cap;
	bool oom;
} tg_args;
#define TG_ARGS_INIT { NULL, 0, 0, false }

static inline void tg__args_put(tg_args *a, const char *s, size_t n)
{
	if (a->oom || !tg__reserve((void **)&a->s, &a->cap, a->len + n + 2, 1)) {
		a->oom = true;
		return;
	}
	memcpy(a->s + a->len, s, n);
	a->len += n;
	a->s[a->len] = '\0';
}

static inline void tg__args_string(tg_args *a, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	tg__args_put(a, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
		if (c == '"' || c == '\\') {
			e[1] = (char)c;
			tg__args_put(a, e, 2);
		} else if (c < 0x20) {
			tg__args_put(a, e, 6);
		} else {
			tg__args_put(a, (const char *)&c, 1);
		}
	}
	tg__args_put(a, "\"", 1);
}

static inline void tg__args_key(tg_args *a, const char *key)
{
	tg__args_put(a, a->len ? "," : "{", 1);
	tg__args_string(a, key);
	tg__args_put(a, ":", 1);
}

static inline void tg_args_str(tg_args *a, const char *key, const char *v) { tg__args_key(a, key); tg__args_string(a, v); }
static inline void tg_args_int(tg_args *a, const char *key, long long v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", v);
	tg__args_key(a, key);
	tg__args_put(a, buf, strlen(buf));
}
static inline void tg_args_bool(tg_args *a, const char *key, bool v) { tg__args_key(a, key); tg__args_put(a, v ? "true" : "false", v ? 4 : 5); }
/* json: one JSON value, written as is (toolgate checks the whole request) */
static inline void tg_args_raw(tg_args *a, const char *key, const char *json) { tg__args_key(a, key); tg__args_put(a, json, strlen(json)); }
/* The arguments object so far ("{}" when empty); NULL when out of memory. */
static inline const char *tg_args_json(tg_args *a)
{
	if (a->len == 0)
		tg__args_put(a, "{", 1);
	if (a->oom)
		return NULL;
	a->s[a->len] = '}';
	a->s[a->len + 1] = '\0';
	return a->s;
}
static inline void tg_args_free(tg_args *a) { free(a->s); a->s = NULL; a->len = a->cap = 0; a->oom = false; }

/* Call tool name ("word_count", "host:NAME") with args_json (one JSON
 * object; NULL means {}). 0: *result is the callee's result value. -1:
 * *result is the error object {"code","message"} (codes in docs/BRIDGE.md),
 * or NULL when the bridge itself failed (no fd 3: the tool declares no
 * calls; the run is ending). Free *result with tg_value_free. */
static inline int tg_call_tool(const char *name, const char *args_json, tg_value **result)
{
	static long long next_id = 0;
	tg_args req = TG_ARGS_INIT;
	unsigned char hdr[4];
	size_t n, k;
	char *buf;
	tg_value *reply, *out = NULL;
	const tg_value *id;
	int rc = -1;

	*result = NULL;
	tg_args_int(&req, "id", ++next_id);
	tg_args_str(&req, "tool", name);
	tg_args_raw(&req, "args", args_json ? args_json : "{}");
	if (!tg_args_json(&req) || req.len + 1 > TG_CALL_MAX_FRAME) {
		tg_args_free(&req);
		return -1;
	}
	n = req.len + 1;
	hdr[0] = (unsigned char)(n >> 24);
	hdr[1] = (unsigned char)(n >> 16);
	hdr[2] = (unsigned char)(n >> 8);
	hdr[3] = (unsigned char)n;
	if (!tg__bridge_put(hdr, 4) || !tg__bridge_put(req.s, n)) {
		tg_args_free(&req);
		return -1;
	}
	tg_args_free(&req);
	if (!tg__bridge_get(hdr, 4))
		return -1;
	n = (size_t)hdr[0] << 24 | (size_t)hdr[1] << 16 | (size_t)hdr[2] << 8 | hdr[3];
	if (n == 0 || n > TG_CALL_MAX_FRAME || !(buf = (char *)malloc(n)))
		return -1;
	if (!tg__bridge_get(buf, n)) {
		free(buf);
		return -1;
	}
	reply = tg_value_parse(buf, n, NULL, 0);
	free(buf);
	id = tg_value_get(reply, "id");
	if (reply && reply->type == TG_OBJECT && id && id->is_int && id->i == next_id) {
		for (k = 0; k < reply->len; k++) {
			tg_member *m = &reply->u.members[k];
			if (strcmp(m->key, "result") != 0 && strcmp(m->key, "error") != 0)
				continue;
			out = (tg_value *)malloc(sizeof(*out));
			if (out) {
				/* move the member's value out of the reply */
				*out = m->value;
				out->parent = NULL;
				m->value.type = TG_NULL;
				tg__link(out);
				rc = strcmp(m->key, "result") == 0 ? 0 : -1;
			}
			break;
		}
	}
	tg_value_free(reply);
	*result = out;
	return out ? rc : -1;
}

#endif
