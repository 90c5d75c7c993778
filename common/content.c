/*
 * common/content.c: the content blocks a tool may return besides JSON. A
 * tool's result that is an object with the member "$content" (written by the
 * SDK's tg_out_content_* functions) carries MCP content blocks: text, image,
 * audio (base64 with a MIME type) and embedded resources. tg_content_check is
 * the one decision on what may reach a client: at most TG_CONTENT_MAX_BLOCKS
 * blocks, only the members of each type, MIME types from an allowlist,
 * well-formed canonical base64 of a bounded decoded size, text without
 * control characters but newline and tab (tg_term_unsafe), resource URIs
 * bounded, printable ASCII, of the form scheme://... and of no scheme a
 * client would run or resolve on its own host. The registry's call path and
 * create's tests call it (registry/call, registry/create), the MCP server
 * turns a checked result into its content blocks (mcp/tools.c).
 * Reference: docs/SDK.md (the tool's side), docs/MCP.md (the client's).
 */
#include "common.h"

#include <string.h>

static const char *const image_mimes[] = { "image/png", "image/jpeg", "image/gif",
					   "image/webp", NULL };
static const char *const audio_mimes[] = { "audio/wav", "audio/mpeg", "audio/ogg",
					   "audio/webm", "audio/flac", NULL };
static const char *const text_mimes[] = { "text/plain", "text/markdown", "text/csv",
					  "application/json", NULL };
/* schemes a client would execute or resolve on its own host */
static const char *const refused_schemes[] = { "javascript", "vbscript", "data", "blob",
					       "file", "about", NULL };

static int in_list(const char *const *list, const char *s)
{
	size_t i;

	for (i = 0; list[i]; i++)
		if (strcmp(list[i], s) == 0)
			return 1;
	return 0;
}

static void join(char *out, size_t n, const char *const *list)
{
	size_t i, len = 0;

	out[0] = 0;
	for (i = 0; list[i] && len < n; i++)
		len += (size_t)snprintf(out + len, n - len, "%s%s", i ? ", " : "", list[i]);
}

#define WHY(...) (snprintf(why, n, __VA_ARGS__), -1)

int tg_base64_value(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Strict RFC 4648 base64: the standard alphabet, padded to a multiple of 4,
 * '=' only at the end, the unused bits of the last group zero. */
static int check_base64(const char *where, const json_t *v, char *why, size_t n)
{
	const char *s = json_string_value(v);
	size_t len = json_string_length(v), i, pad = 0, bytes;

	if (!s)
		return WHY("%s must be a base64 string", where);
	if (len == 0 || len % 4 != 0)
		return WHY("%s is not well-formed base64: its length %zu is not a positive "
			   "multiple of 4", where, len);
	if (s[len - 1] == '=')
		pad = s[len - 2] == '=' ? 2 : 1;
	for (i = 0; i < len - pad; i++)
		if (tg_base64_value((unsigned char)s[i]) < 0)
			return WHY("%s is not well-formed base64: byte %zu is not in its "
				   "alphabet", where, i);
	if ((pad == 1 && (tg_base64_value((unsigned char)s[len - 2]) & 3)) ||
	    (pad == 2 && (tg_base64_value((unsigned char)s[len - 3]) & 15)))
		return WHY("%s is not well-formed base64: the padding bits are not zero",
			   where);
	bytes = len / 4 * 3 - pad;
	if (bytes > TG_CONTENT_MAX_BINARY)
		return WHY("%s decodes to %zu bytes (at most %d)", where, bytes,
			   TG_CONTENT_MAX_BINARY);
	return 0;
}

/* The next code point of valid UTF-8 (jansson's strings are), its length. */
static uint32_t next_cp(const unsigned char *s, size_t *l)
{
	if (s[0] < 0x80)
		return *l = 1, s[0];
	if (s[0] < 0xe0)
		return *l = 2, (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
	if (s[0] < 0xf0)
		return *l = 3, (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 |
				       (s[2] & 0x3f);
	return *l = 4, (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 |
			       (uint32_t)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
}

int tg_content_text_check(const char *where, const json_t *v, char *why, size_t n)
{
	const unsigned char *s = (const unsigned char *)json_string_value(v);
	size_t len = json_string_length(v), i, l;

	if (!s)
		return WHY("%s must be a string", where);
	if (len > TG_CONTENT_MAX_TEXT)
		return WHY("%s has %zu bytes (at most %d)", where, len, TG_CONTENT_MAX_TEXT);
	for (i = 0; i < len; i += l) {
		uint32_t cp = next_cp(s + i, &l);
		if (l > len - i)
			return WHY("%s is not valid UTF-8", where);
		if (cp != '\n' && cp != '\t' && tg_term_unsafe(cp))
			return WHY("%s has the control character U+%04X at byte %zu (only "
				   "newline and tab are allowed)", where, (unsigned)cp, i);
	}
	return 0;
}

static int check_mime(const char *where, const json_t *v, const char *const *allowed,
		      char *why, size_t n)
{
	char list[256];
	const char *m = json_string_value(v);

	if (m && in_list(allowed, m))
		return 0;
	join(list, sizeof(list), allowed);
	if (!m)
		return WHY("%s must be a string (one of %s)", where, list);
	return WHY("%s \"%.64s\" is not allowed (allowed: %s)", where,
		   tg_utf8_valid(m, strlen(m)) == 0 && !strpbrk(m, "\"\\") ? m : "?", list);
}

static int check_uri(const char *where, const json_t *v, char *why, size_t n)
{
	const char *u = json_string_value(v);
	size_t len = json_string_length(v), i;
	char scheme[32];

	if (!u)
		return WHY("%s must be a string", where);
	if (len == 0 || len > TG_CONTENT_MAX_URI)
		return WHY("%s has %zu bytes (1 to %d)", where, len, TG_CONTENT_MAX_URI);
	for (i = 0; i < len; i++)
		if (u[i] <= 0x20 || u[i] >= 0x7f)
			return WHY("%s has a byte that is not printable ASCII at %zu", where, i);
	for (i = 0; i < len && i < sizeof(scheme) - 1; i++) {
		char c = u[i];
		if (!((c >= 'a' && c <= 'z') || (i > 0 && ((c >= '0' && c <= '9') || c == '+' ||
							     c == '-' || c == '.'))))
			break;
		scheme[i] = c;
	}
	scheme[i] = 0;
	if (i == 0 || strncmp(u + i, "://", 3) != 0)
		return WHY("%s must be scheme://... with a lower-case scheme", where);
	if (in_list(refused_schemes, scheme))
		return WHY("%s has the scheme %s, which is refused (%s://, the same for "
			   "javascript, vbscript, data, blob, file and about)", where, scheme,
			   scheme);
	return 0;
}

/* Every member of o is one of the names (NULL-terminated). */
static int only_members(const char *where, const json_t *o, const char *const *names,
			char *why, size_t n)
{
	const char *k;
	const json_t *v;

	json_object_foreach((json_t *)o, k, v) {
		if (!in_list(names, k))
			return WHY("%s has the unknown member \"%.32s\"", where,
				   tg_utf8_valid(k, strlen(k)) == 0 && !strpbrk(k, "\"\\") ? k
											  : "?");
	}
	return 0;
}

static int check_resource(const char *at, const json_t *res, char *why, size_t n)
{
	static const char *const members[] = { "uri", "mimeType", "text", "blob", NULL };
	char w[64];
	const json_t *text = json_object_get(res, "text"), *blob = json_object_get(res, "blob");

	if (!json_is_object(res))
		return WHY("%s: resource must be an object", at);
	snprintf(w, sizeof(w), "%s: resource", at);
	if (only_members(w, res, members, why, n) < 0)
		return -1;
	snprintf(w, sizeof(w), "%s: resource.uri", at);
	if (check_uri(w, json_object_get(res, "uri"), why, n) < 0)
		return -1;
	if (!text == !blob)
		return WHY("%s: resource needs exactly one of text and blob", at);
	snprintf(w, sizeof(w), "%s: resource.mimeType", at);
	if (text) {
		if (check_mime(w, json_object_get(res, "mimeType"), text_mimes, why, n) < 0)
			return -1;
		snprintf(w, sizeof(w), "%s: resource.text", at);
		return tg_content_text_check(w, text, why, n);
	}
	{
		const char *const *bin = image_mimes;
		const char *m = json_string_value(json_object_get(res, "mimeType"));
		if (m && strncmp(m, "audio/", 6) == 0)
			bin = audio_mimes;
		if (check_mime(w, json_object_get(res, "mimeType"), bin, why, n) < 0)
			return -1;
	}
	snprintf(w, sizeof(w), "%s: resource.blob", at);
	return check_base64(w, blob, why, n);
}

static int check_block(size_t i, const json_t *b, char *why, size_t n)
{
	static const char *const text_members[] = { "type", "text", NULL };
	static const char *const binary_members[] = { "type", "data", "mimeType", NULL };
	static const char *const resource_members[] = { "type", "resource", NULL };
	char at[32], w[64];
	const char *type = json_string_value(json_object_get(b, "type"));
	int image;

	snprintf(at, sizeof(at), "$content[%zu]", i);
	if (!json_is_object(b))
		return WHY("%s must be an object", at);
	if (!type || (strcmp(type, "text") && strcmp(type, "image") && strcmp(type, "audio") &&
		      strcmp(type, "resource")))
		return WHY("%s: type must be one of text, image, audio, resource", at);
	if (strcmp(type, "text") == 0) {
		snprintf(w, sizeof(w), "%s: text", at);
		return only_members(at, b, text_members, why, n) < 0
			       ? -1
			       : tg_content_text_check(w, json_object_get(b, "text"), why, n);
	}
	if (strcmp(type, "resource") == 0)
		return only_members(at, b, resource_members, why, n) < 0
			       ? -1
			       : check_resource(at, json_object_get(b, "resource"), why, n);
	image = strcmp(type, "image") == 0;
	if (only_members(at, b, binary_members, why, n) < 0)
		return -1;
	snprintf(w, sizeof(w), "%s: mimeType", at);
	if (check_mime(w, json_object_get(b, "mimeType"), image ? image_mimes : audio_mimes,
		       why, n) < 0)
		return -1;
	snprintf(w, sizeof(w), "%s: data", at);
	return check_base64(w, json_object_get(b, "data"), why, n);
}

int tg_content_has(const json_t *result)
{
	return json_is_object(result) && json_object_get(result, TG_CONTENT_KEY) != NULL;
}

int tg_content_check(const json_t *result, char *why, size_t n)
{
	const json_t *c, *b;
	size_t i;

	if (!tg_content_has(result))
		return 0;
	c = json_object_get(result, TG_CONTENT_KEY);
	if (!json_is_array(c) || json_array_size(c) == 0)
		return WHY("$content must be a non-empty array of content blocks");
	if (json_array_size(c) > TG_CONTENT_MAX_BLOCKS)
		return WHY("$content has %zu blocks (at most %d)", json_array_size(c),
			   TG_CONTENT_MAX_BLOCKS);
	json_array_foreach(c, i, b) {
		if (check_block(i, b, why, n) < 0)
			return -1;
	}
	return 0;
}

json_t *tg_content_blocks(const json_t *result)
{
	return json_deep_copy(json_object_get(result, TG_CONTENT_KEY));
}

json_t *tg_content_rest(const json_t *result)
{
	json_t *rest;

	if (!json_is_object(result) || json_object_size(result) < 2)
		return NULL;
	rest = json_copy((json_t *)result);
	if (rest)
		json_object_del(rest, TG_CONTENT_KEY);
	return rest;
}
