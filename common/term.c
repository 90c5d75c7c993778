/*
 * common/term.c: the one place that makes text of agent or tool origin safe
 * to show on a terminal. Tool names, descriptions, test names, findings,
 * source shown by show/diff, a tool's stderr, audit details and MCP session
 * strings all pass through tg_term_scrub() before cli/ prints them. Every
 * character a terminal could act on instead of showing is replaced by a
 * visible marker: C0 controls and DEL in caret notation ("^[" for ESC, "^?"
 * for DEL), C1 controls (U+0080..U+009F, where 0x9b is a one-byte CSI) and
 * the bidirectional controls of "Trojan Source" (CVE-2021-42574) as
 * "<U+XXXX>", and bytes that are not UTF-8 as "\xNN". Multi-line text keeps
 * newline and tab; a single-line field shows them as markers too, so an agent
 * cannot start a line that looks like toolgate's own.
 */
#include "common/common.h"

#include <string.h>

int tg_term_unsafe(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || tg_term_bidi(cp);
}

int tg_term_bidi(uint32_t cp)
{
	return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e ||
	       cp == 0x200f || cp == 0x061c;
}

/* Length of the valid UTF-8 sequence at s (0 when invalid) and its code point. */
static size_t decode(const unsigned char *s, size_t left, uint32_t *cp)
{
	size_t n, i;
	uint32_t c = s[0];

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		c &= 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		c &= 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		c &= 0x07;
	} else {
		return 0;
	}
	if (n > left)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

int tg_term_scrub_buf(tg_buf *out, const char *s, size_t len, unsigned flags)
{
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	size_t i = 0, n;
	uint32_t cp;
	int rc = 0;

	while (i < len && rc == 0) {
		n = decode(u + i, len - i, &cp);
		if (n == 0) {
			rc = tg_buf_printf(out, "\\x%02X", u[i]);
			n = 1;
		} else if ((flags & TG_TERM_BLOCK) && (cp == '\n' || cp == '\t')) {
			rc = tg_buf_append(out, u + i, 1);
		} else if (cp < 0x20 || cp == 0x7f) {
			char m[2] = { '^', (char)(cp == 0x7f ? '?' : cp + 0x40) };
			rc = tg_buf_append(out, m, 2);
		} else if (tg_term_unsafe(cp)) {
			rc = tg_buf_printf(out, "<U+%04X>", (unsigned)cp);
		} else {
			rc = tg_buf_append(out, u + i, n);
		}
		i += n;
	}
	return rc;
}

char *tg_term_scrub(const char *s, size_t len, unsigned flags)
{
	tg_buf b = TG_BUF_INIT(0);

	if (tg_term_scrub_buf(&b, s, len, flags) < 0) {
		tg_buf_free(&b);
		return NULL;
	}
	return tg_buf_detach(&b, NULL);
}

char *tg_term_json_escape(const char *json)
{
	const unsigned char *u = (const unsigned char *)(json ? json : "");
	size_t len = strlen((const char *)u), i = 0, n;
	tg_buf b = TG_BUF_INIT(0);
	uint32_t cp;
	int rc = 0;

	/* outside strings a JSON text holds only ASCII punctuation, digits and
	 * letters, so every such character is inside a string, where \uXXXX is
	 * the same value */
	while (i < len && rc == 0) {
		n = decode(u + i, len - i, &cp);
		if (n == 0) {
			rc = tg_buf_append(&b, u + i, 1);
			n = 1;
		} else if (cp >= 0x7f && tg_term_unsafe(cp)) {
			rc = tg_buf_printf(&b, "\\u%04X", (unsigned)cp);
		} else {
			rc = tg_buf_append(&b, u + i, n);
		}
		i += n;
	}
	if (rc < 0) {
		tg_buf_free(&b);
		return NULL;
	}
	return tg_buf_detach(&b, NULL);
}
