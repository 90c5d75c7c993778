/* ok_pattern: a clean tool whose "code" has a pattern and no examples (the
 * property tests leave it out and say so) and whose "lang" has a pattern
 * with examples (they use those). */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *code = tg_arg_str(a, "code", "none");
	const char *lang = tg_arg_str(a, "lang", "en");

	tg_out_object_begin();
	tg_out_key_str("code", code);
	tg_out_key_str("lang", lang);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
