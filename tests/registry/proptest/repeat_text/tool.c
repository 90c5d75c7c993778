/* repeat_text: text repeated count times. Bug: nothing bounds the output,
 * and the longest text at the largest count (10,000 x 1,000 code points)
 * passes the run's output limit (killed by the sandbox); the tests repeat
 * short text. */
#include <string.h>
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *text = tg_arg_str(a, "text", "");
	long long count = tg_arg_int(a, "count", 1);
	size_t len = strlen(text);
	char *out = malloc(len * (size_t)count + 1);

	if (!out)
		tg_tool_fail("out of memory");
	for (long long i = 0; i < count; i++)
		memcpy(out + len * (size_t)i, text, len);
	out[len * (size_t)count] = 0;
	tg_out_object_begin();
	tg_out_key_str("text", out);
	tg_out_end();
	free(out);
	tg_tool_args_free(a);
	return 0;
}
