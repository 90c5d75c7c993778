/*
 * analyzer/wsopen.c: the SDK's tg_workspace_open (toolgate/workspace.h) in a
 * tool's own code, on the libclang side (parse child). The function opens a
 * path the tool computed, checked by the SDK one component at a time under
 * /workspace, so its path needs no constant; what the analyzer decides is
 * who may call it: a tool holding a workspace capability, with a constant
 * mode, and workspace:write for a mode that writes (w, a or +, as for
 * fopen). Only a direct call is allowed, so the mode can be read. Called
 * from clangcheck.c's walk; uses the string evaluation of clangutil.c.
 */
#include "clangwalk.h"

#include <string.h>

#define WS_OPEN "tg_workspace_open"

/* 1 when fn is the SDK's tg_workspace_open (defined in the SDK header, not
 * a function of the tool's own by that name: that is a compile error). */
static int is_ws_open(tg_cx_ctx *c, CXCursor fn)
{
	CXString sn;
	CXCursor def;
	int is;

	if (clang_getCursorKind(fn) != CXCursor_FunctionDecl)
		return 0;
	sn = clang_getCursorSpelling(fn);
	is = clang_getCString(sn) && strcmp(clang_getCString(sn), WS_OPEN) == 0;
	clang_disposeString(sn);
	if (!is)
		return 0;
	def = clang_getCursorDefinition(fn);
	return !clang_Cursor_isNull(def) && tg_cx_locate(c, def).in_sdk;
}

void tg_cx_check_ws_call(tg_cx_ctx *c, CXCursor call, CXCursor fn, tg_cx_where w)
{
	char *mode, shown[16];
	size_t k;

	if (!w.in_main || !is_ws_open(c, fn) || clang_Cursor_getNumArguments(call) < 2)
		return;
	if (!c->has_ws_read && !c->has_ws_write) {
		ADD(c, w, "file_access", WS_OPEN,
		    "%s: the tool has no workspace capability (workspace:read to read, workspace:write to write)",
		    WS_OPEN);
		return;
	}
	mode = tg_cx_eval_string(clang_Cursor_getArgument(call, 1));
	if (!mode) {
		ADD(c, w, "file_access", WS_OPEN, "%s: the mode must be a string constant", WS_OPEN);
		return;
	}
	if (strpbrk(mode, "wa+") && !c->has_ws_write) {
		for (k = 0; mode[k] && k < sizeof(shown) - 1; k++)
			shown[k] = (mode[k] >= 0x20 && mode[k] < 0x7f && mode[k] != '"') ? mode[k] : '?';
		shown[k] = 0;
		ADD(c, w, "file_access", WS_OPEN,
		    "%s: mode \"%s\" writes, which needs the workspace:write capability", WS_OPEN,
		    shown);
	}
	free(mode);
}

void tg_cx_check_ws_ref(tg_cx_ctx *c, CXCursor fn, int callee, tg_cx_where w)
{
	if (w.in_main && !callee && is_ws_open(c, fn))
		ADD(c, w, "file_access", WS_OPEN,
		    "%s is used other than by a direct call, so its mode cannot be checked", WS_OPEN);
}
