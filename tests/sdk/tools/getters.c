/* tests/sdk/tools/getters.c: every typed getter with its default, and the
 * failures they produce on wrong types. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *text = tg_arg_str(a, "text", "dflt");
	long long n = tg_arg_int(a, "n", -1);
	double x = tg_arg_num(a, "x", 0.5);
	bool b = tg_arg_bool(a, "b", false);
	const tg_value *xs = tg_arg_array(a, "xs");
	const tg_value *pt = tg_arg_object(a, "pt");
	size_t rawlen = 0, k;
	const char *raw = tg_arg_strn(a, "raw", &rawlen);
	double sum = 0, ptx, pty;

	for (k = 0; k < tg_arg_array_len(a, "xs"); k++)
		sum += tg_item_num(xs, k);
	if (tg_arg_has(a, "need"))
		(void)tg_value_str(tg_arg_need(a, tg_arg_str(a, "need", "")));
	if (tg_arg_has(a, "first_int"))
		(void)tg_item_int(tg_arg_array(a, "first_int"), 0);
	ptx = tg_arg_num(pt, "x", -1.5);
	pty = tg_arg_num(tg_arg_object(pt, "inner"), "y", 2.5);
	tg_out_object_begin();
	tg_out_key_str("text", text);
	tg_out_key_int("n", n);
	tg_out_key_num("x", x);
	tg_out_key_bool("b", b);
	tg_out_key_num("sum", sum);
	tg_out_key_int("count", (long long)tg_value_len(xs));
	tg_out_key_num("ptx", ptx);
	tg_out_key_num("pty", pty);
	tg_out_key("raw");
	if (raw)
		tg_out_strn(raw, rawlen);
	else
		tg_out_null();
	tg_out_key_int("rawlen", (long long)rawlen);
	tg_out_key("keys");
	tg_out_array_begin();
	for (k = 0; k < tg_value_len(a); k++)
		tg_out_str(tg_value_key(a, k));
	tg_out_array_end();
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
