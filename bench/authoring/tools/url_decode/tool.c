#include <ctype.h>
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *s = tg_arg_str(a, "s", "");
	size_t n = strlen(s), o = 0;
	char *out = malloc(n + 1);

	if (!out)
		tg_tool_fail("out of memory");
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n + 0 + 1 && isxdigit((unsigned char)s[i + 1]) &&
		    isxdigit((unsigned char)s[i + 2])) {
			char hex[3] = { s[i + 1], s[i + 2], 0 };
			out[o++] = (char)strtol(hex, NULL, 16);
			i += 2;
		} else {
			out[o++] = s[i] == '+' ? ' ' : s[i];
		}
	}
	tg_out_object_begin();
	tg_out_key_strn("decoded", out, o);
	tg_out_end();
	free(out);
	return 0;
}
