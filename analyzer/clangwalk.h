/*
 * analyzer/clangwalk.h: what the files of the libclang side share (they all
 * run in the parse child): the walk's context, where a cursor stands, the
 * finding macro, the cursor helpers of clangutil.c and the checks that live
 * in their own files (format.c). clangcheck.c drives the walk; the helpers
 * call nothing back, so the files depend one way.
 */
#ifndef TG_ANALYZER_CLANGWALK_H
#define TG_ANALYZER_CLANGWALK_H

#include "internal.h"

#include "clang_dl.h"

#define TG_OK_CACHE 256
#define TG_FILE_CACHE 256

typedef struct tg_cx_ctx {
	const tg_clang_job *job;
	tg_flist *l;
	CXTranslationUnit tu;
	CXFile main;
	int depth_hit;
	int has_ws_read, has_ws_write;
	/* external declarations already found allowed (clang_Cursor_getMangling
	 * builds a name mangler per call) */
	unsigned ok[TG_OK_CACHE];
	CXCursor okc[TG_OK_CACHE];
	size_t nok;
	CXFile files[TG_FILE_CACHE];
	int file_cls[TG_FILE_CACHE];
	size_t nfiles;
} tg_cx_ctx;

typedef struct tg_cx_where {
	int in_main, in_sdk;
	unsigned line, col;
} tg_cx_where;

#define ADD(c, w, rule, sym, ...) \
	tg_flist_add((c)->l, (c)->job->policy, (rule), (w).line, (w).col, (sym), __VA_ARGS__)

/* ---- clangutil.c ------------------------------------------------------------ */

/* 1 main file, 2 SDK header, 0 anything else (memoized per CXFile). */
int tg_cx_file_class(tg_cx_ctx *c, CXFile f);
/* Where cur is expanded; line and column 0 outside the main file and SDK. */
tg_cx_where tg_cx_locate(tg_cx_ctx *c, CXCursor cur);
/* The first child of e in *out; returns how many children e has. */
int tg_cx_first_child(CXCursor e, CXCursor *out);
/* e through implicit conversions and parentheses (one child each). */
CXCursor tg_cx_strip(CXCursor e);
/* The value of a string constant expression (at most 4096 bytes; caller
 * frees), or NULL when arg is not one. */
char *tg_cx_eval_string(CXCursor arg);

/* ---- format.c --------------------------------------------------------------- */

/* A call of a printf-family function (or of a variadic function of the tool
 * that passes its last named parameter on as a format): the format argument
 * must be a string literal without a %n conversion, or that parameter. */
void tg_cx_check_format_call(tg_cx_ctx *c, CXCursor call, CXCursor fn, tg_cx_where w);
/* A reference to such a function that is not a direct call. */
void tg_cx_check_format_ref(tg_cx_ctx *c, CXCursor fn, int callee, tg_cx_where w);

/* ---- wsopen.c --------------------------------------------------------------- */

/* A call of the SDK's tg_workspace_open in the submitted file: the tool holds
 * a workspace capability, the mode is a string constant, and a mode that
 * writes (w, a, +) needs workspace:write. */
void tg_cx_check_ws_call(tg_cx_ctx *c, CXCursor call, CXCursor fn, tg_cx_where w);
/* A reference to tg_workspace_open that is not a direct call. */
void tg_cx_check_ws_ref(tg_cx_ctx *c, CXCursor fn, int callee, tg_cx_where w);

#endif
