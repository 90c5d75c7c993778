#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *t1 = tg_arg_str(a, "a", ""), *t2 = tg_arg_str(a, "b", "");
	long long total = 0;
	int i;
	for (i = 0; i < 2; i++) {
		tg_args x = TG_ARGS_INIT;
		tg_value *res;
		tg_args_str(&x, "text", i ? t2 : t1);
		if (tg_call_tool("word_count", tg_args_json(&x), &res) != 0)
			tg_tool_fail("word_count failed: %s", res ? tg_arg_str(res, "message", "?") : "bridge");
		total += tg_arg_int(res, "words", 0);
		tg_value_free(res);
		tg_args_free(&x);
	}
	tg_out_object_begin();
	tg_out_key_int("words", total);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
