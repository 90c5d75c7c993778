/*
 * analyzer/guards.c: the one kind of #if-skipped text the skipped_code rule
 * lets through, the portable guard of an optional library macro:
 *
 *   #ifndef M_PI                  (or #if !defined(M_PI), #if !defined M_PI)
 *   #define M_PI 3.14159265358979323846
 *   #endif
 *
 * A skipped range (the text clang skipped, from its #if to its #endif) is
 * such a guard when its first line opens it on one macro, its last line is
 * the #endif (no #else or #elif part), every line between is blank or a
 * one-line #define (no continuation), and one of them defines the guarded
 * macro: definitions only, never code. Plain text, no libclang: clangcheck.c
 * asks it about each skipped range of the submitted file.
 */
#include "internal.h"

#include <string.h>

typedef struct line {
	const char *p, *end;
} line;

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static int is_ident(char c, int first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (!first && c >= '0' && c <= '9');
}

static void skip_space(line *l)
{
	while (l->p < l->end && is_space(*l->p))
		l->p++;
}

/* The word at l (an identifier), advanced past it; its length, 0 if none. */
static size_t word(line *l, const char **start)
{
	*start = l->p;
	while (l->p < l->end && is_ident(*l->p, l->p == *start))
		l->p++;
	return (size_t)(l->p - *start);
}

static int word_is(line *l, const char *w)
{
	const char *s;
	size_t n = word(l, &s);
	return n == strlen(w) && memcmp(s, w, n) == 0;
}

/* "#" and the directive name w at the start of l, spaces allowed around "#". */
static int directive(line *l, const char *w)
{
	skip_space(l);
	if (l->p >= l->end || *l->p != '#')
		return 0;
	l->p++;
	skip_space(l);
	return word_is(l, w);
}

/* The rest of a directive line: blanks, or a comment closed on the line. */
static int rest_empty(line *l)
{
	skip_space(l);
	if (l->end - l->p >= 2 && l->p[0] == '/' && l->p[1] == '/')
		return 1;
	if (l->end - l->p >= 2 && l->p[0] == '/' && l->p[1] == '*') {
		const char *c = l->p + 2;
		for (; c + 1 < l->end; c++)
			if (c[0] == '*' && c[1] == '/') {
				l->p = c + 2;
				return rest_empty(l);
			}
		return 0;
	}
	return l->p == l->end;
}

/* The guarded macro of the opening line: #ifndef NAME, #if !defined(NAME)
 * or #if !defined NAME. */
static int opening(line l, const char **name, size_t *len)
{
	line t = l;
	if (directive(&t, "ifndef")) {
		if (t.p >= t.end || !is_space(*t.p))
			return 0;
		skip_space(&t);
		*len = word(&t, name);
		return *len > 0 && rest_empty(&t);
	}
	if (!directive(&l, "if"))
		return 0;
	skip_space(&l);
	if (l.p >= l.end || *l.p != '!')
		return 0;
	l.p++;
	skip_space(&l);
	if (!word_is(&l, "defined"))
		return 0;
	skip_space(&l);
	if (l.p < l.end && *l.p == '(') {
		l.p++;
		skip_space(&l);
		*len = word(&l, name);
		skip_space(&l);
		if (l.p >= l.end || *l.p != ')')
			return 0;
		l.p++;
	} else {
		*len = word(&l, name);
	}
	return *len > 0 && rest_empty(&l);
}

int tg_guard_defines_only(const char *text, size_t len)
{
	const char *end = text + len, *name = NULL, *p = text;
	size_t nlen = 0, nlines = 0;
	int defines_it = 0, closed = 0;

	if (len == 0 || len > 64 * 1024 || memchr(text, 0, len))
		return 0;
	while (p <= end && !closed) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		line l = { p, nl ? nl : end }, t = l;
		const char *m;
		size_t mlen;

		if (l.end > l.p && l.end[-1] == '\\')
			return 0; /* a continued line: the next one is part of it */
		if (nlines++ == 0) {
			if (!opening(l, &name, &nlen))
				return 0;
		} else if (directive(&t, "endif")) {
			/* clang's range ends at the #endif: nothing may follow */
			if (!rest_empty(&t) || nl)
				return 0;
			closed = 1;
		} else if (t = l, directive(&t, "define")) {
			if (t.p >= t.end || !is_space(*t.p))
				return 0;
			skip_space(&t);
			mlen = word(&t, &m);
			if (!mlen)
				return 0;
			defines_it |= mlen == nlen && memcmp(m, name, nlen) == 0;
		} else {
			t = l;
			skip_space(&t);
			if (t.p != t.end)
				return 0; /* code, or another directive */
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return closed && defines_it;
}
