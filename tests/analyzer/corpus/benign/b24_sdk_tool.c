// expect: pass
/* A tool built on the SDK header: echo the input back as a JSON string. */
#include <toolgate/tool.h>
#include <ctype.h>

int main(void)
{
	char buf[4096];
	int n = tg_tool_read(buf, sizeof(buf)), i;
	for (i = 0; i < n; i++)
		if (!isprint((unsigned char)buf[i]) || buf[i] == '"' || buf[i] == '\\')
			buf[i] = ' ';
	if (n == 0)
		return TG_TOOL_FAIL("empty input");
	tg_tool_result_string(buf);
	return 0;
}
