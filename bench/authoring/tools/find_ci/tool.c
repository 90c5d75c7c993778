#include <strings.h>
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *t = tg_arg_str(a, "text", "");
	const char *w = tg_arg_str(a, "word", "");
	size_t wl = strlen(w);
	long long count = 0, first = -1;

	for (const char *p = t; *p; p++)
		if (strncasecmp(p, w, wl) == 0) {
			if (first < 0)
				first = p - t;
			count++;
		}
	tg_out_object_begin();
	tg_out_key_int("count", count);
	tg_out_key_int("first", first);
	tg_out_end();
	return 0;
}
