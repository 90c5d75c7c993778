/*
 * mcp/http_headers.c: the standard MCP request headers of a 2026-07-28
 * request over Streamable HTTP, checked against its body (SEP-2243): Mcp-Method
 * must equal the body's method, MCP-Protocol-Version the _meta protocol
 * version, and Mcp-Name the body's params.name (tools/call, prompts/get) or
 * params.uri (resources/read) whenever the body carries one. Values are
 * compared after the optional whitespace around them (RFC 9110 section 5.5)
 * and are case-sensitive; an Mcp-Name of the form =?base64?...?= is compared
 * decoded. A pure function of the header values: http.c looks them up and
 * answers a mismatch with HTTP 400 and -32020. Calls only common/'s base64.
 */
#include "http_internal.h"

#include <string.h>

/* The longest Mcp-Name compared (a tool name, a resource uri). */
#define NAME_MAX_BYTES 2048

/* v without the spaces and tabs around it: *len bytes from the result. */
static const char *trim(const char *v, size_t *len)
{
	size_t n = strlen(v);

	while (n && (*v == ' ' || *v == '\t')) {
		v++;
		n--;
	}
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	*len = n;
	return v;
}

/* 1 when the header value hv (NULL: absent) carries exactly want. */
static int same_value(const char *hv, const char *want, int may_encode)
{
	unsigned char dec[NAME_MAX_BYTES];
	size_t n, wn = strlen(want);
	const char *v;
	int k;

	if (!hv)
		return 0;
	v = trim(hv, &n);
	if (may_encode && n >= 11 && strncmp(v, "=?base64?", 9) == 0 &&
	    strncmp(v + n - 2, "?=", 2) == 0) {
		n -= 11;
		if (n % 4 != 0 || n / 4 * 3 > sizeof(dec))
			return 0;
		k = tg_base64_decode(dec, v + 9, n);
		if (k < 0) {
			tg_error_clear();
			return 0;
		}
		/* padding decodes as zero bytes: the value is the bytes before */
		while (n && v[9 + n - 1] == '=') {
			n--;
			k--;
		}
		return (size_t)k == wn && memcmp(dec, want, wn) == 0;
	}
	return n == wn && memcmp(v, want, n) == 0;
}

/* The body's value Mcp-Name must carry, NULL when it names nothing. */
static const char *body_name(const char *method, const json_t *params)
{
	const char *key = NULL;

	if (strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0)
		key = "name";
	else if (strcmp(method, "resources/read") == 0)
		key = "uri";
	return key && json_is_object(params) ? json_string_value(json_object_get(params, key))
					     : NULL;
}

int tg_http_headers_mismatch(const char *h_method, const char *h_version, const char *h_name,
			     const char *method, const json_t *params, char *msg, size_t size)
{
	const json_t *meta = json_is_object(params) ? json_object_get(params, "_meta") : NULL;
	const char *bv = json_string_value(json_object_get(meta, TG_MCP_META_VERSION));
	const char *bn = body_name(method, params);

	if (!same_value(h_method, method, 0)) {
		snprintf(msg, size, "Header mismatch: Mcp-Method %s the body's method",
			 h_method ? "does not match" : "is missing; it must equal");
		return 1;
	}
	if (bv && !same_value(h_version, bv, 0)) {
		snprintf(msg, size, "Header mismatch: MCP-Protocol-Version %s",
			 h_version ? "does not match _meta's protocol version" : "is missing");
		return 1;
	}
	if (bn && !same_value(h_name, bn, 1)) {
		snprintf(msg, size, "Header mismatch: Mcp-Name %s the body's %s",
			 h_name ? "does not match" : "is missing; it must equal",
			 strcmp(method, "resources/read") == 0 ? "params.uri" : "params.name");
		return 1;
	}
	return 0;
}
