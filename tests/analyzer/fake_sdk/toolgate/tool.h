/*
 * tests/analyzer/fake_sdk/toolgate/tool.h: a small stand-in for the tool SDK
 * header, used by the analyzer tests so they do not depend on the real one.
 * Its static inline helpers reference only allowlisted functions.
 */
#ifndef TOOLGATE_TOOL_H
#define TOOLGATE_TOOL_H
#include <stdio.h>
#include <string.h>

static inline int tg_tool_read(char *buf, size_t cap)
{
	size_t n = fread(buf, 1, cap - 1, stdin);
	buf[n] = 0;
	return (int)n;
}

static inline void tg_tool_result_string(const char *s)
{
	fputs("\"", stdout);
	fputs(s, stdout);
	fputs("\"\n", stdout);
}

#define TG_TOOL_FAIL(msg) (fputs((msg), stderr), 1)

#endif
