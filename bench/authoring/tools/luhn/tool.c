#include <ctype.h>
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *s = tg_arg_str(a, "number", "");
	int sum = 0, alt = 0, digits = 0;

	for (int i = (int)strlen(s) - 1; i >= 0; i--) {
		unsigned char c = (unsigned char)s[i];
		if (c == ' ' || c == '-')
			continue;
		if (!isdigit(c))
			tg_tool_fail("not a digit: %c", c);
		int d = c - '0';
		if (alt && (d *= 2) > 9)
			d -= 9;
		sum += d;
		alt = !alt;
		digits++;
	}
	tg_out_object_begin();
	tg_out_key_bool("valid", digits > 1 && sum % 10 == 0);
	tg_out_end();
	return 0;
}
