/*
 * registry/schema/schema_regex.c: `pattern` and patternProperties through
 * PCRE2, as close to ECMA-262 as PCRE2 goes: UTF mode, "$" only at the end
 * (PCRE2_DOLLAR_ENDONLY), \uXXXX and \u{...} escapes (PCRE2_ALT_BSUX and
 * its extra form), an unset back-reference matches the empty string, \d \w
 * \b are ASCII as in ECMA-262; \C is refused. A pattern is compiled once per
 * schema, with its length and parenthesis nesting bounded. Each match runs
 * under a match limit, a backtracking depth limit and a heap limit: a
 * pattern that hits one fails the validation with TG_ERR_LIMIT (never a
 * hang, and never a mere mismatch that `not` could turn into success).
 */
#include "registry/schema/schema_int.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

struct tg_regex {
	pcre2_code *code;
	pcre2_match_context *mctx;
	char *src;
};

void tg_sregex_free(tg_regex *re)
{
	if (!re)
		return;
	pcre2_code_free(re->code);
	pcre2_match_context_free(re->mctx);
	free(re->src);
	free(re);
}

/* ECMA-262 writes Unicode general categories by their long names too
 * (\p{Letter}); PCRE2 10.42 knows the short ones. */
static const char *const long_names[][2] = {
	{"Letter", "L"}, {"Cased_Letter", "L&"}, {"Uppercase_Letter", "Lu"},
	{"Lowercase_Letter", "Ll"}, {"Titlecase_Letter", "Lt"}, {"Modifier_Letter", "Lm"},
	{"Other_Letter", "Lo"}, {"Mark", "M"}, {"Number", "N"}, {"Decimal_Number", "Nd"},
	{"Letter_Number", "Nl"}, {"Other_Number", "No"}, {"Punctuation", "P"}, {"Symbol", "S"},
	{"Separator", "Z"}, {"Space_Separator", "Zs"}, {"Other", "C"}, {"Control", "Cc"},
};

/* pattern with \p{LongName} and \P{LongName} rewritten; NULL when out of memory. */
static char *translate(const char *pattern, size_t len, size_t *out_len)
{
	tg_buf b = TG_BUF_INIT(0);
	for (size_t i = 0; i < len; i++) {
		size_t k;
		if (pattern[i] == '\\' && i + 2 < len && (pattern[i + 1] == 'p' || pattern[i + 1] == 'P') &&
		    pattern[i + 2] == '{') {
			for (k = 0; k < TG_ARRAY_SIZE(long_names); k++) {
				size_t n = strlen(long_names[k][0]);
				if (i + 3 + n < len && !memcmp(pattern + i + 3, long_names[k][0], n) &&
				    pattern[i + 3 + n] == '}') {
					tg_buf_printf(&b, "\\%c{%s}", pattern[i + 1], long_names[k][1]);
					i += 3 + n;
					break;
				}
			}
			if (k < TG_ARRAY_SIZE(long_names))
				continue;
		}
		if (pattern[i] == '\\' && i + 1 < len) { /* keep an escaped character with its backslash */
			tg_buf_append(&b, pattern + i, 2);
			i++;
			continue;
		}
		tg_buf_append(&b, pattern + i, 1);
	}
	tg_buf_append(&b, "", 0);
	*out_len = b.len;
	return tg_buf_detach(&b, NULL);
}

tg_regex *tg_sregex_compile(const char *pattern, size_t len, const char *where)
{
	tg_regex *re;
	pcre2_compile_context *cc;
	int err = 0;
	PCRE2_SIZE off = 0;
	char *text;
	size_t tlen;
	if (len > TG_SCHEMA_MAX_PATTERN_LEN) {
		tg_error_set(TG_ERR_LIMIT, "%s: a pattern longer than %d bytes", where,
			     TG_SCHEMA_MAX_PATTERN_LEN);
		return NULL;
	}
	re = calloc(1, sizeof(*re));
	cc = pcre2_compile_context_create(NULL);
	if (!re || !cc || !(re->src = strndup(pattern, len)) ||
	    !(re->mctx = pcre2_match_context_create(NULL))) {
		pcre2_compile_context_free(cc);
		tg_sregex_free(re);
		tg_error_set(TG_ERR_NOMEM, "schema: out of memory");
		return NULL;
	}
	pcre2_set_parens_nest_limit(cc, 64);
	pcre2_set_compile_extra_options(cc, PCRE2_EXTRA_ALT_BSUX);
	if (!(text = translate(pattern, len, &tlen))) {
		pcre2_compile_context_free(cc);
		tg_sregex_free(re);
		tg_error_set(TG_ERR_NOMEM, "schema: out of memory");
		return NULL;
	}
	re->code = pcre2_compile((PCRE2_SPTR)text, tlen,
				 PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_ALT_BSUX |
					 PCRE2_MATCH_UNSET_BACKREF | PCRE2_NEVER_BACKSLASH_C,
				 &err, &off, cc);
	free(text);
	pcre2_compile_context_free(cc);
	if (!re->code) {
		PCRE2_UCHAR msg[160];
		pcre2_get_error_message(err, msg, sizeof(msg));
		tg_error_set(TG_ERR_INVALID, "%s: not a valid regular expression (%s at offset %zu)",
			     where, (const char *)msg, (size_t)off);
		tg_sregex_free(re);
		return NULL;
	}
	pcre2_set_match_limit(re->mctx, TG_SCHEMA_MATCH_LIMIT);
	pcre2_set_depth_limit(re->mctx, TG_SCHEMA_DEPTH_LIMIT);
	pcre2_set_heap_limit(re->mctx, TG_SCHEMA_HEAP_LIMIT_KB);
	return re;
}

int tg_sregex_match(const tg_regex *re, const char *s, size_t len)
{
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);
	int rc;
	if (!md)
		return tg_error_set(TG_ERR_NOMEM, "schema validation: out of memory");
	rc = pcre2_match(re->code, (PCRE2_SPTR)s, len, 0, 0, md, re->mctx);
	pcre2_match_data_free(md);
	if (rc >= 0)
		return 1;
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT)
		return tg_error_set(TG_ERR_LIMIT, "the pattern \"%.200s\" exceeds the match limits",
				    re->src);
	return tg_error_set(TG_ERR_INVALID, "the pattern \"%.200s\" cannot be matched (PCRE2 error %d)",
			    re->src, rc);
}

const char *tg_sregex_source(const tg_regex *re)
{
	return re->src;
}
