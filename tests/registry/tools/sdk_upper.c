/* A tool written with the SDK header: upper-cases "text", repeated "n"
 * times (1..8). Exercises the SDK include folder the registry passes to the
 * analyzer and the compiler. */
#include <ctype.h>
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *text = tg_arg_str(a, "text", "");
	long long n = tg_arg_int(a, "n", 1);
	static char out[4096];
	size_t len = strlen(text), i, k = 0;
	long long r;

	if (n < 1 || n > 8 || len * (size_t)n >= sizeof(out))
		tg_tool_fail("n out of range");
	for (r = 0; r < n; r++)
		for (i = 0; i < len; i++)
			out[k++] = (char)toupper((unsigned char)text[i]);
	out[k] = '\0';
	tg_out_object_begin();
	tg_out_key_str("upper", out);
	tg_out_end();
	return 0;
}
