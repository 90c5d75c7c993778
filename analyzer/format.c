/*
 * analyzer/format.c: printf-family format strings (parse child). A %n
 * conversion makes printf store the count of characters written so far
 * through a pointer argument: a write primitive, which _FORTIFY_SOURCE lets
 * through for a format in read-only memory, i.e. for every literal. And a
 * format that is not a literal may hold one at run time. So the format of
 * a printf-family call must be a string literal (narrow or wide,
 * concatenated, produced by macros: clang shows the one literal it built)
 * with no %n. One exception keeps logging wrappers possible: a variadic
 * function of the tool may pass its last named parameter on as the format
 * when it uses that parameter for nothing else (va_start aside); its own
 * callers are then checked like printf's. A printf-family function (or such
 * a wrapper) may only be called directly, so that every format is seen.
 */
#include "clangwalk.h"

#include <string.h>

static const struct {
	const char *name;
	int fmt;
} format_fns[] = {
	{ "printf", 0 }, { "vprintf", 0 }, { "wprintf", 0 }, { "vwprintf", 0 },
	{ "warn", 0 }, { "vwarn", 0 }, { "warnx", 0 }, { "vwarnx", 0 },
	{ "fprintf", 1 }, { "vfprintf", 1 }, { "fwprintf", 1 }, { "vfwprintf", 1 },
	{ "sprintf", 1 }, { "vsprintf", 1 }, { "dprintf", 1 }, { "vdprintf", 1 },
	{ "asprintf", 1 }, { "vasprintf", 1 }, { "obstack_printf", 1 },
	{ "obstack_vprintf", 1 }, { "syslog", 1 }, { "vsyslog", 1 }, { "err", 1 },
	{ "verr", 1 }, { "errx", 1 }, { "verrx", 1 },
	{ "snprintf", 2 }, { "vsnprintf", 2 }, { "swprintf", 2 }, { "vswprintf", 2 },
	{ "error", 2 }, { "error_at_line", 4 },
	/* glibc's fortified forms (the build's -D_FORTIFY_SOURCE=2 macros name
	 * them directly): a flag, and for buffers the object size, come first */
	{ "__printf_chk", 1 }, { "__vprintf_chk", 1 }, { "__wprintf_chk", 1 },
	{ "__vwprintf_chk", 1 }, { "__fprintf_chk", 2 }, { "__vfprintf_chk", 2 },
	{ "__fwprintf_chk", 2 }, { "__vfwprintf_chk", 2 }, { "__dprintf_chk", 2 },
	{ "__vdprintf_chk", 2 }, { "__asprintf_chk", 2 }, { "__vasprintf_chk", 2 },
	{ "__obstack_printf_chk", 2 }, { "__obstack_vprintf_chk", 2 },
	{ "__syslog_chk", 2 }, { "__vsyslog_chk", 2 }, { "__sprintf_chk", 3 },
	{ "__vsprintf_chk", 3 }, { "__snprintf_chk", 4 }, { "__vsnprintf_chk", 4 },
	{ "__swprintf_chk", 4 }, { "__vswprintf_chk", 4 },
};

int tg_format_function(const char *name)
{
	size_t i;
	if (!name)
		return -1;
	/* __builtin_printf, __builtin___sprintf_chk: the same arguments */
	if (strncmp(name, "__builtin_", 10) == 0)
		name += 10;
	for (i = 0; i < TG_ARRAY_SIZE(format_fns); i++)
		if (strcmp(format_fns[i].name, name) == 0)
			return format_fns[i].fmt;
	return -1;
}

const char *tg_format_find_n(const char *spelled, size_t *len)
{
	/* flags, width, precision, argument numbers and length modifiers:
	 * glibc's, and then some (a wider set only finds more) */
	static const char spec[] = "-+ #'I0123456789$*.hlLqjztZ";
	const char *p = strchr(spelled, '"'), *q;

	for (p = p ? p : spelled; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == '%') {
			p++;
			continue;
		}
		for (q = p + 1; *q && strchr(spec, *q); q++)
			;
		if (*q == 'n') {
			*len = (size_t)(q - p) + 1;
			return p;
		}
	}
	return NULL;
}

static enum CXChildVisitResult last_child(CXCursor cur, CXCursor parent, CXClientData data)
{
	(void)parent;
	*(CXCursor *)data = cur;
	return CXChildVisit_Continue;
}

/* e through implicit conversions, parentheses and casts */
static CXCursor strip_casts(CXCursor e)
{
	for (int i = 0; i < 16; i++) {
		CXCursor n = clang_getNullCursor();
		e = tg_cx_strip(e);
		if (clang_getCursorKind(e) != CXCursor_CStyleCastExpr)
			break;
		clang_visitChildren(e, last_child, &n); /* a TypeRef may come first */
		if (clang_Cursor_isNull(n))
			break;
		e = n;
	}
	return e;
}

/* 1 when argument i of call is (through conversions) a reference to parm */
static int arg_is(CXCursor call, int i, CXCursor parm)
{
	CXCursor a;
	if (i < 0 || clang_Cursor_getNumArguments(call) <= i)
		return 0;
	a = strip_casts(clang_Cursor_getArgument(call, (unsigned)i));
	return clang_getCursorKind(a) == CXCursor_DeclRefExpr &&
	       clang_equalCursors(clang_getCursorReferenced(a), parm);
}

typedef struct uses {
	CXCursor parm;
	unsigned all, fmt, start;
} uses;

static enum CXChildVisitResult count_uses(CXCursor cur, CXCursor parent, CXClientData data)
{
	uses *u = data;
	enum CXCursorKind k = clang_getCursorKind(cur);
	(void)parent;
	if (k == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(cur), u->parm)) {
		u->all++;
	} else if (k == CXCursor_CallExpr) {
		CXCursor fn = clang_getCursorReferenced(cur);
		CXString sn;
		const char *name;
		if (clang_Cursor_isNull(fn) || clang_getCursorKind(fn) != CXCursor_FunctionDecl)
			return CXChildVisit_Recurse;
		sn = clang_getCursorSpelling(fn);
		name = clang_getCString(sn);
		if (name && strcmp(name, "__builtin_va_start") == 0 && arg_is(cur, 1, u->parm))
			u->start++;
		else if (name && arg_is(cur, tg_format_function(name), u->parm))
			u->fmt++;
		clang_disposeString(sn);
	}
	return CXChildVisit_Recurse;
}

/* The index of the parameter fn passes on as a printf format, when fn is a
 * variadic function of the tool that uses its last named parameter only as
 * printf-family formats (and in va_start); else -1. */
static int forwarded_param(tg_cx_ctx *c, CXCursor fn)
{
	CXCursor def = clang_getCursorDefinition(fn);
	uses u = { clang_getNullCursor(), 0, 0, 0 };
	tg_cx_where dw;
	int n;

	if (clang_Cursor_isNull(def) || clang_getCursorKind(def) != CXCursor_FunctionDecl ||
	    !clang_isFunctionTypeVariadic(clang_getCursorType(def)))
		return -1;
	dw = tg_cx_locate(c, def);
	n = clang_Cursor_getNumArguments(def);
	if ((!dw.in_main && !dw.in_sdk) || n < 1)
		return -1;
	u.parm = clang_Cursor_getArgument(def, (unsigned)n - 1);
	clang_visitChildren(def, count_uses, &u);
	return u.fmt > 0 && u.all == u.fmt + u.start ? n - 1 : -1;
}

/* a is the forwarded format parameter of the function it belongs to */
static int is_forwarded(tg_cx_ctx *c, CXCursor a)
{
	CXCursor parm = clang_getCursorReferenced(a), fn;
	int i;
	if (clang_getCursorKind(parm) != CXCursor_ParmDecl)
		return 0;
	fn = clang_getCursorSemanticParent(parm);
	if (clang_getCursorKind(fn) != CXCursor_FunctionDecl)
		return 0;
	i = forwarded_param(c, fn);
	return i >= 0 && clang_equalCursors(clang_Cursor_getArgument(fn, (unsigned)i), parm);
}

/* The name the tool wrote: printf for __printf_chk and __builtin_printf
 * (the fortify macros name the first; swprintf's names both). */
static const char *shown_name(char *buf, size_t size, const char *name)
{
	size_t n;
	if (strncmp(name, "__builtin_", 10) == 0)
		name += 10;
	n = strlen(name);
	if (n > 6 && n < size + 6 && strncmp(name, "__", 2) == 0 &&
	    strcmp(name + n - 4, "_chk") == 0) {
		memcpy(buf, name + 2, n - 6);
		buf[n - 6] = 0;
		return buf;
	}
	return name;
}

void tg_cx_check_format_call(tg_cx_ctx *c, CXCursor call, CXCursor fn, tg_cx_where w)
{
	CXString sn = clang_getCursorSpelling(fn);
	const char *name = clang_getCString(sn);
	int i = tg_format_function(name);
	char buf[TG_SYMBOL_MAX + 1];
	CXCursor a;

	if (i < 0)
		i = forwarded_param(c, fn);
	if (!name || i < 0 || clang_Cursor_getNumArguments(call) <= i)
		goto out; /* not a format function, or a compile error already */
	name = shown_name(buf, sizeof(buf), name);
	a = strip_casts(clang_Cursor_getArgument(call, (unsigned)i));
	if (clang_getCursorKind(a) == CXCursor_StringLiteral) {
		/* the literal as clang built it: prefix, quotes, escapes */
		CXString ss = clang_getCursorSpelling(a);
		const char *s = clang_getCString(ss), *n;
		size_t len = 0;
		if (s && (n = tg_format_find_n(s, &len)) != NULL)
			ADD(c, w, "format_n", name,
			    "%s: the format holds %.*s, which writes through a pointer argument",
			    name, (int)(len < 24 ? len : 24), n);
		clang_disposeString(ss);
	} else if (clang_getCursorKind(a) != CXCursor_DeclRefExpr || !is_forwarded(c, a)) {
		ADD(c, w, "format_string", name, "%s: the format must be a string literal", name);
	}
out:
	clang_disposeString(sn);
}

void tg_cx_check_format_ref(tg_cx_ctx *c, CXCursor fn, int callee, tg_cx_where w)
{
	CXString sn;
	const char *name;

	if (callee || clang_getCursorKind(fn) != CXCursor_FunctionDecl)
		return;
	sn = clang_getCursorSpelling(fn);
	name = clang_getCString(sn);
	if (name && (tg_format_function(name) >= 0 || forwarded_param(c, fn) >= 0))
		ADD(c, w, "format_string", name,
		    "%s is used other than by a direct call, so its format cannot be checked",
		    name);
	clang_disposeString(sn);
}
