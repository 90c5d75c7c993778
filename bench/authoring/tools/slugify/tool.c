#include <ctype.h>
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *t = tg_arg_str(a, "title", "");
	size_t n = strlen(t), o = 0;
	char *out = malloc(n + 1);
	int dash = 0;

	if (!out)
		tg_tool_fail("out of memory");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)t[i];
		if (isalnum(c)) {
			if (dash && o)
				out[o++] = '-';
			out[o++] = (char)tolower(c);
			dash = 0;
		} else {
			dash = 1;
		}
	}
	out[o] = '\0';
	tg_out_object_begin();
	tg_out_key_str("slug", out);
	tg_out_end();
	free(out);
	return 0;
}
