/*
 * toolgate/json_out.h: writing the tool's result on stdout: a checked
 * streaming writer of one JSON value (tg_out_object_begin, tg_out_key_int,
 * tg_out_value, ..., tg_out_end) that tracks commas, keys and nesting and
 * fails the tool on a misuse. Part of the SDK, included by
 * <toolgate/tool.h>.
 */
#ifndef TOOLGATE_JSON_OUT_H
#define TOOLGATE_JSON_OUT_H

#include "json_get.h"
#include "value.h"

/* ---- writing the result ------------------------------------------------- *
 * A checked streaming writer: commas, keys and nesting are tracked, and a
 * misuse (value without key in an object, two top-level values, unbalanced
 * ends, non-finite numbers, invalid UTF-8) fails the tool. tg_out_end()
 * closes whatever is open and flushes. */

typedef struct tg__out_state {
	int depth;
	bool object[TG_TOOL_MAX_DEPTH + 1]; /* per level: object (else array) */
	size_t count[TG_TOOL_MAX_DEPTH + 1];
	bool have_key, done, ended;
	int content_depth; /* depth of the open $content array, 0 when none */
} tg__out_state;

static inline tg__out_state *tg__out(void)
{
	static tg__out_state state;
	return &state;
}

static inline void tg__out_value_start(const char *fn)
{
	tg__out_state *o = tg__out();
	if (o->done)
		tg_tool_fail("%s: the result is already complete (one JSON value only)", fn);
	if (o->depth > 0 && o->object[o->depth] && !o->have_key)
		tg_tool_fail("%s: a value inside an object needs tg_out_key first", fn);
	if (o->depth > 0 && !o->object[o->depth] && o->count[o->depth] > 0)
		putchar(',');
	o->count[o->depth]++;
	o->have_key = false;
}

/* Write text as one complete value (a scalar). */
static inline void tg__out_scalar(const char *text, const char *fn)
{
	tg__out_value_start(fn);
	fputs(text, stdout);
	tg__out()->done = tg__out()->depth == 0;
}

static inline void tg__out_string(const char *s, size_t n, const char *fn)
{
	static const char hex[] = "0123456789abcdef";
	size_t k, l;
	putchar('"');
	for (k = 0; k < n; k += l) {
		unsigned char c = (unsigned char)s[k];
		l = 1;
		if (c >= 0x80 && !(l = tg__utf8_len((const unsigned char *)s + k, n - k)))
			tg_tool_fail("%s: invalid UTF-8 in string", fn);
		if (c >= 0x80)
			fwrite(s + k, 1, l, stdout);
		else if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c == '\n' || c == '\r' || c == '\t')
			printf("\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
		else if (c < 0x20 || c == 0x7f)
			printf("\\u00%c%c", hex[c >> 4], hex[c & 15]);
		else
			putchar(c);
	}
	putchar('"');
}

static inline void tg__out_open(bool object, const char *fn)
{
	tg__out_state *o = tg__out();
	tg__out_value_start(fn);
	if (o->depth >= TG_TOOL_MAX_DEPTH)
		tg_tool_fail("%s: result nested deeper than 64 levels", fn);
	o->depth++;
	o->object[o->depth] = object;
	o->count[o->depth] = 0;
	putchar(object ? '{' : '[');
}

static inline void tg__out_close(bool object, const char *fn)
{
	tg__out_state *o = tg__out();
	if (o->depth == 0 || o->object[o->depth] != object)
		tg_tool_fail("%s: no open %s to end", fn, object ? "object" : "array");
	if (o->have_key)
		tg_tool_fail("%s: the last key has no value", fn);
	putchar(object ? '}' : ']');
	o->done = --o->depth == 0;
}

static inline void tg_out_object_begin(void) { tg__out_open(true, "tg_out_object_begin"); }
static inline void tg_out_object_end(void) { tg__out_close(true, "tg_out_object_end"); }
static inline void tg_out_array_begin(void) { tg__out_open(false, "tg_out_array_begin"); }
static inline void tg_out_array_end(void) { tg__out_close(false, "tg_out_array_end"); }

/* A key of keylen bytes (NULs allowed). */
static inline void tg_out_keyn(const char *key, size_t keylen)
{
	tg__out_state *o = tg__out();
	if (o->depth == 0 || !o->object[o->depth] || o->have_key)
		tg_tool_fail("tg_out_key: a key is only allowed directly inside an object, before its value");
	if (o->count[o->depth] > 0)
		putchar(',');
	tg__out_string(key, keylen, "tg_out_key");
	putchar(':');
	o->have_key = true;
}
static inline void tg_out_key(const char *key) { tg_out_keyn(key, strlen(key)); }

static inline void tg_out_strn(const char *s, size_t len)
{
	tg__out_value_start("tg_out_str");
	tg__out_string(s, len, "tg_out_str");
	tg__out()->done = tg__out()->depth == 0;
}
static inline void tg_out_null(void) { tg__out_scalar("null", "tg_out_null"); }
static inline void tg_out_bool(bool b) { tg__out_scalar(b ? "true" : "false", "tg_out_bool"); }
/* NULL writes null. */
static inline void tg_out_str(const char *s) { s ? tg_out_strn(s, strlen(s)) : tg_out_null(); }
static inline void tg_out_int(long long n)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "%lld", n);
	tg__out_scalar(buf, "tg_out_int");
}
/* Shortest "%g" form that reads back as the same double, always with a
 * fraction or exponent ("2.0", not "2"): JSON comparison in toolgate tests
 * (jansson's json_equal) tells the integer 2 from the real 2.0, so integers
 * are written with tg_out_int and reals with tg_out_num. */
static inline void tg_out_num(double x)
{
	char buf[40];
	int prec;
	if (!tg__finite(x))
		tg_tool_fail("tg_out_num: not a finite number (JSON has no NaN or infinity)");
	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	if (!strpbrk(buf, ".e"))
		strcat(buf, ".0");
	tg__out_scalar(buf, "tg_out_num");
}
/* Write a parsed value (e.g. echo an argument). */
static inline void tg_out_value(const tg_value *v)
{
	size_t k;
	tg_type t = tg_value_type(v);
	if (t == TG_NULL)
		tg_out_null();
	else if (t == TG_BOOL)
		tg_out_bool(v->i != 0);
	else if (t == TG_NUMBER && v->is_int && v->int_form)
		tg_out_int(v->i);
	else if (t == TG_NUMBER)
		tg_out_num(v->num);
	else if (t == TG_STRING)
		tg_out_strn(v->u.str, v->len);
	else
		tg__out_open(t == TG_OBJECT, t == TG_OBJECT ? "tg_out_object_begin" : "tg_out_array_begin");
	for (k = 0; t >= TG_ARRAY && k < v->len; k++) {
		if (t == TG_OBJECT)
			tg_out_keyn(v->u.members[k].key, v->u.members[k].keylen);
		tg_out_value(tg_value_at(v, k));
	}
	if (t >= TG_ARRAY)
		tg__out_close(t == TG_OBJECT, t == TG_OBJECT ? "tg_out_object_end" : "tg_out_array_end");
}

static inline void tg_out_key_str(const char *key, const char *s) { tg_out_key(key); tg_out_str(s); }
static inline void tg_out_key_strn(const char *key, const char *s, size_t n) { tg_out_key(key); tg_out_strn(s, n); }
static inline void tg_out_key_int(const char *key, long long n) { tg_out_key(key); tg_out_int(n); }
static inline void tg_out_key_num(const char *key, double x) { tg_out_key(key); tg_out_num(x); }
static inline void tg_out_key_bool(const char *key, bool b) { tg_out_key(key); tg_out_bool(b); }
static inline void tg_out_key_null(const char *key) { tg_out_key(key); tg_out_null(); }
static inline void tg_out_key_value(const char *key, const tg_value *v) { tg_out_key(key); tg_out_value(v); }

/* ---- content blocks ----------------------------------------------------- *
 * A result may carry MCP content blocks besides JSON: an image or audio
 * (bytes written as base64 with their MIME type), text, an embedded
 * resource, several blocks in order. The blocks go in the member "$content"
 * of the result object:
 *
 *   tg_out_content_begin();                      // {"$content":[
 *   tg_out_content_text("a red pixel:");
 *   tg_out_content_image("image/png", png, png_len);
 *   tg_out_content_end();                        // ]
 *   tg_out_key_int("width", 1);                  // optional: structuredContent
 *   tg_out_end();                                // }
 *
 * toolgate checks the blocks before any client sees them (docs/SDK.md: MIME
 * types, at most 16 blocks, 512 KiB decoded per image, audio or blob, text
 * without control characters but newline and tab, resource URIs); a refused
 * block makes the call a tool error naming it. */

static inline void tg__out_content_block(const char *type, const char *fn)
{
	tg__out_state *o = tg__out();
	if (o->content_depth == 0 || o->depth != o->content_depth)
		tg_tool_fail("%s: call tg_out_content_begin first", fn);
	tg_out_object_begin();
	tg_out_key_str("type", type);
}

static inline void tg__out_base64(const void *bytes, size_t len, const char *fn)
{
	static const char abc[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *b = (const unsigned char *)bytes;
	size_t k;
	if (!b && len > 0)
		tg_tool_fail("%s: no bytes", fn);
	tg__out_value_start(fn);
	putchar('"');
	for (k = 0; k + 2 < len; k += 3) {
		putchar(abc[b[k] >> 2]);
		putchar(abc[(b[k] & 3) << 4 | b[k + 1] >> 4]);
		putchar(abc[(b[k + 1] & 15) << 2 | b[k + 2] >> 6]);
		putchar(abc[b[k + 2] & 63]);
	}
	if (len - k == 1) {
		putchar(abc[b[k] >> 2]);
		putchar(abc[(b[k] & 3) << 4]);
		fputs("==", stdout);
	} else if (len - k == 2) {
		putchar(abc[b[k] >> 2]);
		putchar(abc[(b[k] & 3) << 4 | b[k + 1] >> 4]);
		putchar(abc[(b[k + 1] & 15) << 2]);
		putchar('=');
	}
	putchar('"');
}

/* Open the result object and its "$content" array. */
static inline void tg_out_content_begin(void)
{
	tg__out_state *o = tg__out();
	if (o->depth != 0 || o->content_depth)
		tg_tool_fail("tg_out_content_begin: content blocks are the result itself "
			     "(call it first, once)");
	tg_out_object_begin();
	tg_out_key("$content");
	tg_out_array_begin();
	o->content_depth = o->depth;
}
/* Close the "$content" array; keys written after it, up to tg_out_end(),
 * become the call's structuredContent. */
static inline void tg_out_content_end(void)
{
	tg__out_state *o = tg__out();
	if (o->content_depth == 0 || o->depth != o->content_depth)
		tg_tool_fail("tg_out_content_end: no open content block list");
	tg_out_array_end();
	o->content_depth = 0;
}
static inline void tg_out_content_text(const char *text)
{
	tg__out_content_block("text", "tg_out_content_text");
	tg_out_key_str("text", text ? text : "");
	tg_out_object_end();
}
static inline void tg__out_content_binary(const char *type, const char *mime,
					  const void *bytes, size_t len, const char *fn)
{
	tg__out_content_block(type, fn);
	tg_out_key("data");
	tg__out_base64(bytes, len, fn);
	tg_out_key_str("mimeType", mime);
	tg_out_object_end();
}
/* An image (image/png, image/jpeg, image/gif, image/webp) of len bytes. */
static inline void tg_out_content_image(const char *mime, const void *bytes, size_t len)
{
	tg__out_content_binary("image", mime, bytes, len, "tg_out_content_image");
}
/* Audio (audio/wav, audio/mpeg, audio/ogg, audio/webm, audio/flac). */
static inline void tg_out_content_audio(const char *mime, const void *bytes, size_t len)
{
	tg__out_content_binary("audio", mime, bytes, len, "tg_out_content_audio");
}
/* An embedded text resource (text/plain, text/markdown, text/csv,
 * application/json) named by uri (scheme://...). */
static inline void tg_out_content_resource_text(const char *uri, const char *mime,
						const char *text)
{
	tg__out_content_block("resource", "tg_out_content_resource_text");
	tg_out_key("resource");
	tg_out_object_begin();
	tg_out_key_str("uri", uri);
	tg_out_key_str("mimeType", mime);
	tg_out_key_str("text", text ? text : "");
	tg_out_object_end();
	tg_out_object_end();
}
/* An embedded binary resource (an image or audio MIME type) of len bytes. */
static inline void tg_out_content_resource_blob(const char *uri, const char *mime,
						const void *bytes, size_t len)
{
	tg__out_content_block("resource", "tg_out_content_resource_blob");
	tg_out_key("resource");
	tg_out_object_begin();
	tg_out_key_str("uri", uri);
	tg_out_key_str("mimeType", mime);
	tg_out_key("blob");
	tg__out_base64(bytes, len, "tg_out_content_resource_blob");
	tg_out_object_end();
	tg_out_object_end();
}

/* Close every open array/object, end the line, flush; fails the tool when
 * nothing was written, a key lacks its value, or stdout cannot be written.
 * A second call does nothing. */
static inline void tg_out_end(void)
{
	tg__out_state *o = tg__out();
	if (o->ended)
		return;
	if (o->have_key)
		tg_tool_fail("tg_out_end: the last key has no value");
	while (o->depth > 0)
		tg__out_close(o->object[o->depth], "tg_out_end");
	if (!o->done)
		tg_tool_fail("tg_out_end: no result was written");
	putchar('\n');
	o->ended = true;
	if (fflush(stdout) != 0 || ferror(stdout))
		tg_tool_fail("toolgate tool: cannot write the result to stdout");
}

#endif
