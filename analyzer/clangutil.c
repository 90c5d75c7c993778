/*
 * analyzer/clangutil.c: cursor helpers of the libclang side (parse child):
 * which file a cursor stands in (the submitted file, the SDK header or a
 * system header, memoized per file), its position, and a cursor's children
 * through the implicit conversions and parentheses clang wraps around
 * expressions, and the value of a string constant. They call nothing else
 * of the walk.
 */
#include "clangwalk.h"

#include <string.h>

/* 1 main file, 2 SDK header, 0 anything else; memoized per CXFile (the walk
 * asks for every top-level declaration of every header). */
int tg_cx_file_class(tg_cx_ctx *c, CXFile f)
{
	size_t i;
	CXString n;
	const char *s;
	int cls;

	for (i = 0; i < c->nfiles; i++)
		if (c->files[i] == f)
			return c->file_cls[i];
	if (clang_File_isEqual(f, c->main)) {
		cls = 1;
	} else {
		n = clang_getFileName(f);
		s = clang_getCString(n);
		cls = s && strncmp(s, "/vsys/sdk/", 10) == 0 ? 2 : 0;
		clang_disposeString(n);
	}
	if (c->nfiles < TG_FILE_CACHE) {
		c->files[c->nfiles] = f;
		c->file_cls[c->nfiles++] = cls;
	}
	return cls;
}

tg_cx_where tg_cx_locate(tg_cx_ctx *c, CXCursor cur)
{
	tg_cx_where w = { 0, 0, 0, 0 };
	CXFile f = NULL;
	int cls;
	clang_getExpansionLocation(clang_getCursorLocation(cur), &f, &w.line, &w.col, NULL);
	if (!f) {
		w.line = w.col = 0;
		return w;
	}
	cls = tg_cx_file_class(c, f);
	w.in_main = cls == 1;
	w.in_sdk = cls == 2;
	if (!cls)
		w.line = w.col = 0;
	return w;
}

typedef struct kids {
	CXCursor first;
	int n;
} kids;

static enum CXChildVisitResult count_child(CXCursor cur, CXCursor parent, CXClientData data)
{
	kids *k = data;
	(void)parent;
	if (k->n++ == 0)
		k->first = cur;
	return CXChildVisit_Continue;
}

/* The first child of e and how many there are. */
int tg_cx_first_child(CXCursor e, CXCursor *out)
{
	kids k;
	k.first = clang_getNullCursor();
	k.n = 0;
	clang_visitChildren(e, count_child, &k);
	*out = k.first;
	return k.n;
}

/* Through implicit conversions and parentheses (one child each). */
CXCursor tg_cx_strip(CXCursor e)
{
	for (int i = 0; i < 16; i++) {
		enum CXCursorKind k = clang_getCursorKind(e);
		CXCursor n;
		if ((k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr) ||
		    tg_cx_first_child(e, &n) != 1)
			break;
		e = n;
	}
	return e;
}


char *tg_cx_eval_string(CXCursor arg)
{
	CXEvalResult r = clang_Cursor_Evaluate(arg);
	char *s = NULL;
	if (!r)
		return NULL;
	if (clang_EvalResult_getKind(r) == CXEval_StrLiteral) {
		const char *v = clang_EvalResult_getAsStr(r);
		if (v)
			s = strndup(v, 4096);
	}
	clang_EvalResult_dispose(r);
	return s;
}
