/* reverse: a text backwards. Bug: it reverses bytes, not characters, and
 * writes its JSON by hand, so a multi-byte character comes out as invalid
 * UTF-8: not one JSON value. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *s = tg_arg_str(a, "text", "");
	size_t n = strlen(s);

	fputs("{\"reversed\":\"", stdout);
	while (n-- > 0) {
		unsigned char c = (unsigned char)s[n];
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	fputs("\"}\n", stdout);
	tg_tool_args_free(a);
	return 0;
}
