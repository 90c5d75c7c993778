#include <toolgate/tool.h>

/* Record a refund in the operator's ledger through the host tool
 * ledger_append (examples/ledger): amounts of 100 or more wait for a
 * person (the host tool's "match" policy). */
int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	tg_args x = TG_ARGS_INIT;
	tg_value *res;

	tg_args_str(&x, "account", tg_arg_str(a, "account", ""));
	tg_args_str(&x, "amount", tg_arg_str(a, "amount", ""));
	if (tg_call_tool("host:ledger_append", tg_args_json(&x), &res) != 0)
		tg_tool_fail("ledger_append: %s", res ? tg_arg_str(res, "message", "?") : "bridge");
	tg_out_object_begin();
	tg_out_key_int("entry", tg_arg_int(res, "entry", 0));
	tg_out_end();
	tg_value_free(res);
	tg_args_free(&x);
	tg_tool_args_free(a);
	return 0;
}
