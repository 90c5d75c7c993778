/*
 * analyzer/clangcheck.c: the libclang side, run only inside the forked,
 * rlimited parse child. It parses the source from memory inside the virtual
 * sysroot (vfs.c), turns compile errors into findings without their text,
 * rejects #if-skipped ranges, and walks the AST of the submitted file (and of
 * the SDK header) with a depth-limited visitor: every referenced external
 * function or variable (its spelling and its linker name) against the
 * allowlist, builtins, fopen-style paths, attributes, asm, statement
 * expressions, casts to function pointers, calls through non-functions,
 * calls without a prototype and K&R definitions, main's envp, and
 * definitions that would replace library symbols. Printf-family formats are
 * format.c's, the SDK's tg_workspace_open wsopen.c's; the cursor helpers are
 * clangutil.c's.
 */
#include "clangwalk.h"

#include <string.h>

#define TG_MAX_DEPTH 600

typedef tg_cx_ctx ctx;
typedef tg_cx_where where;

typedef struct frame {
	const struct frame *up;
	enum CXCursorKind kind;
	int callee;       /* this node is (part of) a call's callee expression */
	unsigned nchild;
	ctx *c;
	int depth;
} frame;

static int reserved_or_library(const tg_policy *p, const char *name)
{
	if (name[0] == '_')
		return 1;
	return tg_policy_allows(p, name) || tg_symbol_category(name) != NULL;
}

static int is_fptr(CXType t)
{
	t = clang_getCanonicalType(t);
	if (t.kind != CXType_Pointer)
		return 0;
	t = clang_getCanonicalType(clang_getPointeeType(t));
	return t.kind == CXType_FunctionProto || t.kind == CXType_FunctionNoProto;
}

static int is_fn_or_fptr(CXType t)
{
	CXType k = clang_getCanonicalType(t);
	return is_fptr(t) || k.kind == CXType_FunctionProto || k.kind == CXType_FunctionNoProto;
}

static int refers_to_function(CXCursor e)
{
	return clang_getCursorKind(e) == CXCursor_DeclRefExpr &&
	       clang_getCursorKind(clang_getCursorReferenced(e)) == CXCursor_FunctionDecl;
}

static enum CXChildVisitResult last_child(CXCursor cur, CXCursor parent, CXClientData data);

/* A null pointer constant: 0, or (void *)0, through parentheses and casts. */
static int is_null_constant(CXCursor e)
{
	int i;
	for (i = 0; i < 16; i++) {
		enum CXCursorKind k = clang_getCursorKind(e);
		CXType t = clang_getCanonicalType(clang_getCursorType(e));
		if (t.kind == CXType_Pointer &&
		    clang_getCanonicalType(clang_getPointeeType(t)).kind != CXType_Void &&
		    !is_fptr(t))
			return 0;
		if (k == CXCursor_ParenExpr || k == CXCursor_CStyleCastExpr ||
		    k == CXCursor_UnexposedExpr) {
			CXCursor next = clang_getNullCursor();
			clang_visitChildren(e, last_child, &next);
			if (clang_Cursor_isNull(next))
				return 0;
			e = next;
			continue;
		}
		{
			CXEvalResult r = clang_Cursor_Evaluate(e);
			int ok = 0;
			if (r) {
				ok = clang_EvalResult_getKind(r) == CXEval_Int &&
				     clang_EvalResult_getAsLongLong(r) == 0;
				clang_EvalResult_dispose(r);
			}
			return ok;
		}
	}
	return 0;
}

/* ---- paths of fopen, freopen, remove, rename ------------------------------ */

static int path_ok(ctx *c, const char *path, int write)
{
	const char *rest;
	if (strncmp(path, "/tmp/", 5) == 0)
		rest = path + 5;
	else if (strncmp(path, "/workspace/", 11) == 0 &&
		 (write ? c->has_ws_write : (c->has_ws_read || c->has_ws_write)))
		rest = path + 11;
	else
		return 0;
	if (!*rest)
		return 0;
	/* no ".." component anywhere */
	for (const char *s = path; *s; s++)
		if (s[0] == '.' && s[1] == '.' && s[-1] == '/' && (s[2] == '/' || s[2] == 0))
			return 0;
	return 1;
}

static void check_paths(ctx *c, CXCursor call, const char *fn, unsigned mask, where w)
{
	int nargs = clang_Cursor_getNumArguments(call);
	int write = strcmp(fn, "remove") == 0 || strcmp(fn, "rename") == 0;
	char shown[80];

	if ((strcmp(fn, "fopen") == 0 || strcmp(fn, "freopen") == 0) && nargs >= 2) {
		char *mode = tg_cx_eval_string(clang_Cursor_getArgument(call, 1));
		if (!mode) {
			ADD(c, w, "file_access", fn, "%s: the mode must be a string constant", fn);
			return;
		}
		write = strpbrk(mode, "wa+") != NULL;
		free(mode);
	}
	for (int i = 0; i < nargs && i < 8; i++) {
		char *path;
		size_t k;
		if (!(mask & (1u << i)))
			continue;
		path = tg_cx_eval_string(clang_Cursor_getArgument(call, (unsigned)i));
		if (!path) {
			ADD(c, w, "file_access", fn, "%s: the path must be a string constant", fn);
			continue;
		}
		if (!path_ok(c, path, write)) {
			for (k = 0; path[k] && k < sizeof(shown) - 1; k++)
				shown[k] = (path[k] >= 0x20 && path[k] < 0x7f && path[k] != '"') ? path[k] : '?';
			shown[k] = 0;
			ADD(c, w, "file_access", fn,
			    "%s: path \"%s\" is outside /tmp/%s (or %s)", fn, shown,
			    c->has_ws_read || c->has_ws_write ? " and /workspace/" : "",
			    write ? "opened for writing" : "opened for reading");
		}
		free(path);
	}
}

/* ---- read and write (unistd.h) on the standard descriptors only ----------- */

static void check_fd(ctx *c, CXCursor call, const char *fn, int write, where w)
{
	CXEvalResult r;
	long long fd = -1;
	int known = 0;

	if (clang_Cursor_getNumArguments(call) < 1)
		return; /* a compile error already */
	r = clang_Cursor_Evaluate(clang_Cursor_getArgument(call, 0));
	if (r) {
		if (clang_EvalResult_getKind(r) == CXEval_Int) {
			fd = clang_EvalResult_getAsLongLong(r);
			known = 1;
		}
		clang_EvalResult_dispose(r);
	}
	if (!known)
		ADD(c, w, "file_access", fn,
		    "%s: the descriptor must be a constant (%s)", fn,
		    write ? "1 for stdout or 2 for stderr" : "0 for stdin");
	else if (write ? (fd != 1 && fd != 2) : fd != 0)
		ADD(c, w, "file_access", fn, "%s: descriptor %lld is not %s", fn, fd,
		    write ? "1 (stdout) or 2 (stderr)" : "0 (stdin)");
}

/* ---- calls through a static const table of functions ---------------------- */

/* Every function pointer in a table's initializer names a function. */
static enum CXChildVisitResult init_check(CXCursor cur, CXCursor parent, CXClientData data)
{
	int *ok = data;
	enum CXCursorKind k = clang_getCursorKind(cur);
	(void)parent;
	if (!clang_isExpression(k) || !is_fn_or_fptr(clang_getCursorType(cur)))
		return CXChildVisit_Recurse;
	if (refers_to_function(cur))
		return CXChildVisit_Continue;
	if (k == CXCursor_UnexposedExpr || k == CXCursor_ParenExpr)
		return CXChildVisit_Recurse;
	if (k != CXCursor_CStyleCastExpr && is_null_constant(cur))
		return CXChildVisit_Continue;
	*ok = 0;
	return CXChildVisit_Break;
}

/* 1 when the callee of call is an element of a const table of the tool's
 * own: tbl[i](...), tbl[i].fn(...) or tbl.fn(...) where tbl is a variable
 * defined in the submitted file with a const element type (read-only
 * memory) whose initializer names only functions. Every function named
 * there is checked like a direct reference where the table stands. */
static int table_call_ok(ctx *c, CXCursor call)
{
	CXCursor e, base, var, def;
	CXType t;
	int ok = 1, members = 0, konst = 0;

	if (tg_cx_first_child(call, &e) < 1)
		return 0;
	e = tg_cx_strip(e);
	while (clang_getCursorKind(e) == CXCursor_MemberRefExpr && members < 8) {
		if (tg_cx_first_child(e, &base) != 1)
			return 0;
		base = tg_cx_strip(base);
		if (clang_getCanonicalType(clang_getCursorType(base)).kind == CXType_Pointer)
			return 0; /* p->fn: the struct may be writable */
		e = base;
		members++;
	}
	if (clang_getCursorKind(e) == CXCursor_ArraySubscriptExpr) {
		if (tg_cx_first_child(e, &base) != 2)
			return 0;
		e = tg_cx_strip(base);
	} else if (!members) {
		return 0;
	}
	if (clang_getCursorKind(e) != CXCursor_DeclRefExpr)
		return 0;
	var = clang_getCursorReferenced(e);
	if (clang_getCursorKind(var) != CXCursor_VarDecl)
		return 0;
	def = clang_getCursorDefinition(var);
	if (clang_Cursor_isNull(def) || !tg_cx_locate(c, def).in_main)
		return 0;
	if (clang_getCursorKind(clang_getCursorSemanticParent(def)) != CXCursor_TranslationUnit &&
	    clang_Cursor_getStorageClass(def) != CX_SC_Static)
		return 0; /* an automatic array lives on the writable stack */
	/* const on the elements (clang may keep it on the array type itself) */
	t = clang_getCursorType(def);
	for (int d = 0; d < 8; d++) {
		CXType k = clang_getCanonicalType(t);
		if (clang_isConstQualifiedType(t) || clang_isConstQualifiedType(k)) {
			konst = 1;
			break;
		}
		if (k.kind != CXType_ConstantArray && k.kind != CXType_IncompleteArray)
			break;
		t = clang_getArrayElementType(k);
	}
	if (!konst)
		return 0;
	clang_visitChildren(def, init_check, &ok);
	return ok;
}

/* ---- references ------------------------------------------------------------ */

static void check_ref(ctx *c, CXCursor ref, int callee, where w)
{
	enum CXCursorKind k = clang_getCursorKind(ref);
	const tg_policy *p = c->job->policy;
	CXString sn, sm;
	const char *name, *mangled;
	unsigned mask, hash;
	int wr;
	size_t i;

	if (k != CXCursor_FunctionDecl && k != CXCursor_VarDecl)
		return;
	if (k == CXCursor_VarDecl && clang_getCursorLinkage(ref) != CXLinkage_External)
		return;
	sn = clang_getCursorSpelling(ref);
	name = clang_getCString(sn);
	if (!name || !*name)
		goto out_name;
	if (w.in_sdk && tg_symbol_sdk_io(name))
		goto out_name; /* the SDK's bridge I/O on fd 3 (tool.h) */
	if (strncmp(name, "__builtin_", 10) == 0) {
		const char *cat = tg_symbol_category(name);
		if (cat)
			ADD(c, w, cat, name, "%s is not allowed (%s)", name, cat);
		else if (!tg_builtin_allowed(p, name))
			ADD(c, w, "builtin", name, "%s is not on the builtin allowlist", name);
		goto out_name;
	}
	{
		/* Defined in the submitted file or the SDK: its definition is checked
		 * where it stands. A static function of a system header is compiled
		 * here too. An external definition in a system header (gnu_inline,
		 * fortify wrappers, reachable by defining __OPTIMIZE__ or
		 * __USE_EXTERN_INLINES) still links to the library symbol: check it
		 * like a declaration. */
		CXCursor def = clang_getCursorDefinition(ref);
		if (!clang_Cursor_isNull(def)) {
			where dw = tg_cx_locate(c, def);
			if (dw.in_main || dw.in_sdk ||
			    clang_getCursorLinkage(def) != CXLinkage_External)
				goto out_name;
		}
	}
	hash = clang_hashCursor(ref);
	for (i = 0; i < c->nok; i++)
		if (c->ok[i] == hash && clang_equalCursors(c->okc[i], ref)) {
			if (!callee && (tg_path_function(name, &mask) || tg_fd_function(name, &wr)))
				break; /* the address of fopen: report it below */
			goto out_name;
		}
	sm = clang_Cursor_getMangling(ref); /* costly: once per declaration */
	mangled = clang_getCString(sm);
	if (!mangled || !*mangled)
		mangled = name;
	/* glibc's fortify macros (the analysis uses the build's -O2
	 * -D_FORTIFY_SOURCE=2) name __printf_chk and the like directly */
	if (!tg_policy_allows_linker(p, name)) {
		const char *cat = tg_symbol_category(name);
		if (!cat && strcmp(mangled, name) != 0)
			cat = tg_symbol_category(mangled);
		if (cat)
			ADD(c, w, cat, name, "%s is not allowed (%s)", name, cat);
		else
			ADD(c, w, "not_allowed", name, "%s is not on the allowlist", name);
	} else if (strcmp(mangled, name) != 0 && !tg_policy_allows_linker(p, mangled)) {
		const char *cat = tg_symbol_category(mangled);
		ADD(c, w, cat ? cat : "mangling", mangled, "%s links as %s, which is not allowed",
		    name, mangled);
	} else if (!callee && tg_path_function(name, &mask)) {
		ADD(c, w, "file_access", name,
		    "%s is used other than by a direct call, so its path cannot be checked", name);
	} else if (!callee && tg_fd_function(name, &wr)) {
		ADD(c, w, "file_access", name,
		    "%s is used other than by a direct call, so its descriptor cannot be checked",
		    name);
	} else if (c->nok < TG_OK_CACHE) {
		c->ok[c->nok] = hash;
		c->okc[c->nok++] = ref;
	}
	clang_disposeString(sm);
out_name:
	clang_disposeString(sn);
}

/* ---- functions without a prototype ---------------------------------------- */

/* 1 when call names a function through a declaration without a prototype
 * (int f(); or a K&R definition: clang gives the callee reference the type
 * int (), even where the definition's own type lists the parameters). An
 * implicit declaration (the callee's declaration stands where it is
 * called) is implicit_decl's already. */
static int unchecked_call(CXCursor call)
{
	CXCursor e;
	if (tg_cx_first_child(call, &e) < 1)
		return 0;
	e = tg_cx_strip(e);
	if (clang_getCursorKind(e) != CXCursor_DeclRefExpr ||
	    clang_getCanonicalType(clang_getCursorType(e)).kind != CXType_FunctionNoProto)
		return 0;
	return !clang_equalLocations(clang_getCursorLocation(e),
				     clang_getCursorLocation(clang_getCursorReferenced(e)));
}

/* 1 when the definition cur declares its parameters K&R style: a ';'
 * between its last parameter's declaration and the body, as in
 * int f(a) int a; { ... }. (A prototype has only ')' and attributes
 * there.) */
static int kr_definition(ctx *c, CXCursor cur)
{
	int n = clang_Cursor_getNumArguments(cur), kr = 0;
	CXCursor body = clang_getNullCursor();
	CXToken *toks = NULL;
	unsigned nt = 0, i;

	if (n <= 0 || !clang_isCursorDefinition(cur))
		return 0;
	clang_visitChildren(cur, last_child, &body);
	if (clang_getCursorKind(body) != CXCursor_CompoundStmt)
		return 0;
	clang_tokenize(c->tu,
		       clang_getRange(clang_getRangeEnd(clang_getCursorExtent(
					      clang_Cursor_getArgument(cur, (unsigned)n - 1))),
				      clang_getRangeStart(clang_getCursorExtent(body))),
		       &toks, &nt);
	for (i = 0; i < nt && !kr; i++) {
		CXString t = clang_getTokenSpelling(c->tu, toks[i]);
		const char *v = clang_getCString(t);
		kr = v && strcmp(v, ";") == 0;
		clang_disposeString(t);
	}
	if (toks)
		clang_disposeTokens(c->tu, toks, nt);
	return kr;
}

static void check_definition(ctx *c, CXCursor cur, where w)
{
	CXString sn = clang_getCursorSpelling(cur), sm = clang_Cursor_getMangling(cur);
	const char *name = clang_getCString(sn), *mangled = clang_getCString(sm);
	enum CXCursorKind k = clang_getCursorKind(cur);

	if (!name || !*name)
		goto out;
	if (mangled && *mangled && strcmp(name, mangled) != 0)
		ADD(c, w, "mangling", mangled, "%s links as %s", name, mangled);
	if (k == CXCursor_VarDecl && strcmp(name, "main") == 0)
		ADD(c, w, "redefinition", "main", "main must be a function");
	if (k == CXCursor_FunctionDecl && kr_definition(c, cur))
		ADD(c, w, "no_prototype", name,
		    "%s has an old-style (K&R) definition; declare the parameter types in the parentheses",
		    name);
	if (k == CXCursor_FunctionDecl && strcmp(name, "main") == 0 &&
	    clang_Cursor_getNumArguments(cur) >= 3)
		ADD(c, w, "main_envp", "main", "main must not take an environment parameter");
	if (clang_getCursorLinkage(cur) == CXLinkage_External && strcmp(name, "main") != 0 &&
	    reserved_or_library(c->job->policy, name))
		ADD(c, w, "redefinition", name,
		    "%s is a library or reserved name; make it static or rename it", name);
out:
	clang_disposeString(sn);
	clang_disposeString(sm);
}

/* First token of a cursor's extent (caller frees), or NULL. */
static char *first_token(ctx *c, CXCursor cur)
{
	CXToken *toks = NULL;
	unsigned n = 0;
	char *s = NULL;
	clang_tokenize(c->tu, clang_getCursorExtent(cur), &toks, &n);
	if (n > 0) {
		CXString t = clang_getTokenSpelling(c->tu, toks[0]);
		const char *v = clang_getCString(t);
		s = v ? strndup(v, 64) : NULL;
		clang_disposeString(t);
	}
	if (toks)
		clang_disposeTokens(c->tu, toks, n);
	return s;
}

/* 1 when cur was written in a macro of a system header (glibc's assert and
 * ctype macros use statement expressions, also inside the fortified printf
 * macro): clang_tokenize maps the extent to where it was spelled, so it
 * returns no tokens, or tokens of that header; a statement expression the
 * tool wrote, directly or through its own macros, has its first token in the
 * submitted file. */
static int from_system_macro(ctx *c, CXCursor cur)
{
	CXToken *toks = NULL;
	unsigned n = 0;
	int sys = 1;
	clang_tokenize(c->tu, clang_getCursorExtent(cur), &toks, &n);
	if (n > 0) {
		CXFile f = NULL;
		clang_getExpansionLocation(clang_getTokenLocation(c->tu, toks[0]), &f, NULL, NULL,
					   NULL);
		sys = !f || tg_cx_file_class(c, f) == 0;
	}
	if (toks)
		clang_disposeTokens(c->tu, toks, n);
	return sys;
}

/* The token of the submitted file where cur is expanded (the macro name when
 * it comes from a macro), or NULL; caller frees. */
static char *token_at(ctx *c, CXCursor cur)
{
	CXFile f = NULL;
	unsigned line = 0, col = 0;
	CXSourceLocation loc;
	CXToken *toks = NULL;
	unsigned n = 0;
	char *s = NULL;

	clang_getExpansionLocation(clang_getCursorLocation(cur), &f, &line, &col, NULL);
	if (!f || tg_cx_file_class(c, f) != 1)
		return NULL;
	loc = clang_getLocation(c->tu, f, line, col);
	clang_tokenize(c->tu, clang_getRange(loc, loc), &toks, &n);
	if (n > 0) {
		CXString t = clang_getTokenSpelling(c->tu, toks[0]);
		const char *v = clang_getCString(t);
		s = v ? strndup(v, 64) : NULL;
		clang_disposeString(t);
	}
	if (toks)
		clang_disposeTokens(c->tu, toks, n);
	return s;
}

static void check_attr(ctx *c, CXCursor cur, where w)
{
	enum CXCursorKind k = clang_getCursorKind(cur);
	char *name;

	if (k == CXCursor_AsmLabelAttr) {
		ADD(c, w, "asm_label", NULL, "asm labels (__asm__(\"name\") on a declaration) are not allowed");
		return;
	}
	name = first_token(c, cur);
	if (!name) /* from a header's macro (stdnoreturn's noreturn): its name */
		name = token_at(c, cur);
	if (!name || !tg_attribute_allowed(name)) {
		char shown[40];
		size_t i;
		for (i = 0; name && name[i] && i < sizeof(shown) - 1; i++)
			shown[i] = (name[i] > 0x20 && name[i] < 0x7f) ? name[i] : '?';
		shown[name ? i : 0] = 0;
		ADD(c, w, "attribute", name, "attribute %s is not allowed", name ? shown : "?");
	}
	free(name);
}

static enum CXChildVisitResult visit(CXCursor cur, CXCursor parent, CXClientData data);

static enum CXChildVisitResult last_child(CXCursor cur, CXCursor parent, CXClientData data)
{
	(void)parent;
	*(CXCursor *)data = cur;
	return CXChildVisit_Continue;
}

static void walk(ctx *c, CXCursor cur, const frame *up, int callee, int depth)
{
	frame f = { up, clang_getCursorKind(cur), callee, 0, c, depth };
	enum CXCursorKind k = f.kind;
	where w;

	if (depth > TG_MAX_DEPTH) {
		if (!c->depth_hit) {
			w = tg_cx_locate(c, cur);
			ADD(c, w, "limits", NULL, "the code nests more than %d levels deep",
			    TG_MAX_DEPTH);
		}
		c->depth_hit = 1;
		return;
	}
	/* the preprocessing record (kept for the skipped ranges) is not walked */
	if (k == CXCursor_MacroDefinition || k == CXCursor_MacroExpansion ||
	    k == CXCursor_InclusionDirective)
		return;
	w = tg_cx_locate(c, cur);
	if (!w.in_main && !w.in_sdk)
		return; /* system headers: trusted, not walked */

	if (clang_isAttribute(k)) {
		if (w.in_main)
			check_attr(c, cur, w);
		return;
	}
	switch (k) {
	case CXCursor_FunctionDecl:
	case CXCursor_VarDecl:
		if (clang_isCursorDefinition(cur) &&
		    (k == CXCursor_FunctionDecl ||
		     clang_getCursorKind(clang_getCursorSemanticParent(cur)) ==
			     CXCursor_TranslationUnit))
			check_definition(c, cur, w);
		break;
	case CXCursor_UnexposedDecl: {
		char *t = first_token(c, cur);
		if (t && (!strcmp(t, "asm") || !strcmp(t, "__asm") || !strcmp(t, "__asm__")))
			ADD(c, w, "inline_asm", NULL, "file-scope asm is not allowed");
		free(t);
		break;
	}
	case CXCursor_GCCAsmStmt:
	case CXCursor_MSAsmStmt:
		ADD(c, w, "inline_asm", NULL, "inline asm is not allowed");
		return;
	case CXCursor_IndirectGotoStmt:
	case CXCursor_AddrLabelExpr:
		ADD(c, w, "computed_goto", NULL, "label addresses and computed goto are not allowed");
		break;
	case CXCursor_StmtExpr:
		if (w.in_main && !from_system_macro(c, cur))
			ADD(c, w, "stmt_expr", NULL, "GNU statement expressions are not allowed");
		break;
	case CXCursor_DeclRefExpr:
		tg_cx_check_format_ref(c, clang_getCursorReferenced(cur), callee, w);
		tg_cx_check_ws_ref(c, clang_getCursorReferenced(cur), callee, w);
		check_ref(c, clang_getCursorReferenced(cur), callee, w);
		break;
	case CXCursor_CallExpr: {
		CXCursor ref = clang_getCursorReferenced(cur);
		if (clang_Cursor_isNull(ref) || clang_getCursorKind(ref) != CXCursor_FunctionDecl) {
			if (!w.in_main || !table_call_ok(c, cur))
				ADD(c, w, "indirect_call", NULL,
				    "call through a function pointer or other non-function callee");
		} else {
			CXString sn = clang_getCursorSpelling(ref);
			const char *fn = clang_getCString(sn);
			unsigned mask;
			int wr;
			if (fn && tg_path_function(fn, &mask) &&
			    tg_policy_allows(c->job->policy, fn))
				check_paths(c, cur, fn, mask, w);
			if (fn && w.in_main && tg_fd_function(fn, &wr) &&
			    tg_policy_allows(c->job->policy, fn))
				check_fd(c, cur, fn, wr, w);
			if (fn && unchecked_call(cur))
				ADD(c, w, "no_prototype", fn,
				    "%s is called through a declaration without a prototype, so its arguments are not checked",
				    fn);
			tg_cx_check_format_call(c, cur, ref, w);
			tg_cx_check_ws_call(c, cur, ref, w);
			clang_disposeString(sn);
		}
		break;
	}
	case CXCursor_CStyleCastExpr:
	case CXCursor_UnexposedExpr: {
		/* explicit or implicit conversion to a function pointer */
		if (is_fptr(clang_getCursorType(cur))) {
			CXCursor op = clang_getNullCursor();
			clang_visitChildren(cur, last_child, &op);
			if (!clang_Cursor_isNull(op) && !is_fn_or_fptr(clang_getCursorType(op)) &&
			    !refers_to_function(op) && !is_null_constant(op))
				ADD(c, w, "fptr_cast", NULL,
				    "a value that is not a function is converted to a function pointer");
		}
		break;
	}
	default:
		break;
	}
	clang_visitChildren(cur, visit, &f);
}

static enum CXChildVisitResult visit(CXCursor cur, CXCursor parent, CXClientData data)
{
	frame *f = data;
	int callee = 0;
	(void)parent;
	if (f->kind == CXCursor_CallExpr)
		callee = f->nchild == 0;
	else if (f->callee && (f->kind == CXCursor_UnexposedExpr || f->kind == CXCursor_ParenExpr))
		callee = 1;
	f->nchild++;
	walk(f->c, cur, f, callee, f->depth + 1);
	return f->c->depth_hit ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* ---- the parse ------------------------------------------------------------- */

static void diagnostics(ctx *c)
{
	unsigned i, n = clang_getNumDiagnostics(c->tu), reported = 0;

	for (i = 0; i < n && reported < 10; i++) {
		CXDiagnostic d = clang_getDiagnostic(c->tu, i);
		enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
		if (sev >= CXDiagnostic_Error) {
			CXString opt = clang_getDiagnosticOption(d, NULL);
			CXString cat = clang_getDiagnosticCategoryText(d);
			const char *o = clang_getCString(opt), *ct = clang_getCString(cat);
			CXFile f = NULL;
			where w = { 0, 0, 0, 0 };
			clang_getExpansionLocation(clang_getDiagnosticLocation(d), &f, &w.line, &w.col,
						   NULL);
			if (!f || !clang_File_isEqual(f, c->main))
				w.line = w.col = 0;
			CXString sp = clang_getDiagnosticSpelling(d);
			const char *text = clang_getCString(sp);
			/* the text is read to classify, never shown */
			int deep = text && (strstr(text, "nesting level exceeded") ||
					    strstr(text, "nested too deeply") ||
					    strstr(text, "too many nested"));
			clang_disposeString(sp);
			if (deep)
				ADD(c, w, "limits", NULL, "the code nests too deeply for the analysis");
			else if (o && (strstr(o, "unknown-attributes") || strstr(o, "ignored-attributes")))
				/* clang drops them without a cursor; gcc may honour them */
				ADD(c, w, "attribute", NULL,
				    "unknown or ignored attribute (%s): only the allowed attributes may be written",
				    o);
			else if (o && (strstr(o, "pragma")))
				ADD(c, w, "pragma", NULL, "unknown or ignored pragma (%s)", o);
			else if (o && (strstr(o, "implicit-function-declaration") || strstr(o, "implicit-int")))
				ADD(c, w, "implicit_decl", NULL,
				    "implicit declaration (a function or type used without a declaration)");
			else
				/* the diagnostic text is never shown: it can quote host files */
				ADD(c, w, "parse", NULL, "compile error (%s%s%s)",
				    ct && *ct ? ct : "error", o && *o ? ", " : "", o && *o ? o : "");
			clang_disposeString(opt);
			clang_disposeString(cat);
			reported++;
		}
		clang_disposeDiagnostic(d);
	}
}

static void skipped(ctx *c)
{
	CXSourceRangeList *rl = clang_getAllSkippedRanges(c->tu);
	unsigned i;
	if (!rl)
		return;
	for (i = 0; i < rl->count; i++) {
		CXFile f = NULL, fe = NULL;
		where w = { 0, 0, 0, 0 };
		unsigned a = 0, b = 0;
		clang_getExpansionLocation(clang_getRangeStart(rl->ranges[i]), &f, &w.line, &w.col,
					   &a);
		clang_getExpansionLocation(clang_getRangeEnd(rl->ranges[i]), &fe, NULL, NULL, &b);
		if (!f || !clang_File_isEqual(f, c->main))
			continue;
		/* #ifndef M_PI / #define M_PI ... / #endif: definitions only */
		if (fe && clang_File_isEqual(fe, c->main) && a < b && b <= c->job->len &&
		    tg_guard_defines_only(c->job->source + a, b - a))
			continue;
		ADD(c, w, "skipped_code", NULL,
		    "this #if block is skipped; dead conditional code is not allowed");
	}
	clang_disposeSourceRangeList(rl);
}

static enum CXChildVisitResult top(CXCursor cur, CXCursor parent, CXClientData data)
{
	ctx *c = data;
	(void)parent;
	walk(c, cur, NULL, 0, 1);
	return c->depth_hit ? CXChildVisit_Break : CXChildVisit_Continue;
}

int tg_clang_check(tg_flist *l, const tg_clang_job *job)
{
	const char *args[64];
	size_t nargs = tg_cfront_args(args, TG_ARRAY_SIZE(args), job->overlay_path);
	struct CXUnsavedFile uf = { TG_VFS_MAIN, job->source, (unsigned long)job->len };
	ctx c = { 0 };
	CXIndex idx;
	enum CXErrorCode e;
	size_t i;
	int r = 0;

	c.job = job;
	c.l = l;
	for (i = 0; i < job->ncapabilities; i++) {
		if (!strcmp(job->capabilities[i], "workspace:read"))
			c.has_ws_read = 1;
		else if (!strcmp(job->capabilities[i], "workspace:write"))
			c.has_ws_write = 1;
	}
	if (tg_clang_load() < 0) {
		tg_flist_add(l, job->policy, "limits", 0, 0, NULL, "the parser could not start");
		return TG_ERR_UNAVAILABLE;
	}
	{
		/* the build runs the clang driver of this release: refuse a
		 * libclang of any other, whose reading of the source could differ */
		CXString v = clang_getClangVersion();
		int same = tg_cfront_version_matches(clang_getCString(v));
		clang_disposeString(v);
		if (!same) {
			tg_flist_add(l, job->policy, "limits", 0, 0, NULL,
				     "the loaded libclang is not clang %s, the build's compiler",
				     tg_cfront_clang_version());
			return TG_ERR_UNAVAILABLE;
		}
	}
	idx = clang_createIndex(0, 0);
	if (!idx) {
		tg_flist_add(l, job->policy, "limits", 0, 0, NULL, "the parser could not start");
		return TG_ERR_INTERNAL;
	}
	e = clang_parseTranslationUnit2(idx, TG_VFS_MAIN, args, (int)nargs, &uf, 1,
					CXTranslationUnit_DetailedPreprocessingRecord, &c.tu);
	if (e != CXError_Success || !c.tu) {
		if (e == CXError_Crashed)
			tg_flist_add(l, job->policy, "limits", 0, 0, NULL,
				     "the parser crashed or ran out of resources on this source");
		else
			tg_flist_add(l, job->policy, "parse", 0, 0, NULL, "the source could not be parsed");
		r = TG_ERR_INVALID;
		goto out;
	}
	c.main = clang_getFile(c.tu, TG_VFS_MAIN);
	diagnostics(&c);
	skipped(&c);
	clang_visitChildren(clang_getTranslationUnitCursor(c.tu), top, &c);
	clang_disposeTranslationUnit(c.tu);
out:
	clang_disposeIndex(idx);
	return r;
}
