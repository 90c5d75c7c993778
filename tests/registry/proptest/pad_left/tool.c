/* pad_left: text padded on the left with spaces to width. Bug: the buffer
 * was sized when width was at most 32; the schema now allows 64, and a
 * width past 32 overruns it (the fortified copy aborts, SIGABRT). */
#include <string.h>
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *text = tg_arg_str(a, "text", "");
	long long width = tg_arg_int(a, "width", 0);
	size_t len = strlen(text);
	char buf[33];

	if (len > (size_t)width)
		tg_tool_fail("text: longer than width");
	memset(buf, ' ', (size_t)width - len);
	memcpy(buf + ((size_t)width - len), text, len);
	buf[width] = 0;
	tg_out_object_begin();
	tg_out_key_str("text", buf);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
