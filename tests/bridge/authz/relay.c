/* tests/bridge/authz/relay.c: the relay of the authority tests (a tool
 * whose manifest "calls" its callees, or a one-off program). Args {"tool":
 * T, "via": V, "n": N}: calls T with {"text": "a b"} n times (1 by
 * default), or, with via, calls V with {"tool": T} (one more hop). Prints
 * {"calls": ["ok" or the bridge error code of each call], "message": the
 * last bridge error message ("" when none), "result": the last result
 * (null when none)}. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *tool = tg_arg_str(a, "tool", "vault");
	const char *via = tg_arg_str(a, "via", "");
	long long n = tg_arg_int(a, "n", 1), i;
	char message[512] = "";
	tg_value *last = NULL;

	tg_out_object_begin();
	tg_out_key("calls");
	tg_out_array_begin();
	for (i = 0; i < n; i++) {
		tg_args x = TG_ARGS_INIT;
		tg_value *res = NULL;
		if (via[0])
			tg_args_str(&x, "tool", tool);
		else
			tg_args_str(&x, "text", "a b");
		if (tg_call_tool(via[0] ? via : tool, tg_args_json(&x), &res) == 0) {
			tg_out_str("ok");
			tg_value_free(last);
			last = res;
		} else {
			tg_out_str(res ? tg_arg_str(res, "code", "?") : "bridge");
			snprintf(message, sizeof(message), "%s",
				 res ? tg_arg_str(res, "message", "?") : "bridge");
			tg_value_free(res);
		}
		tg_args_free(&x);
	}
	tg_out_array_end();
	tg_out_key_str("message", message);
	if (last)
		tg_out_key_value("result", last);
	else
		tg_out_key_null("result");
	tg_out_end();
	tg_value_free(last);
	tg_tool_args_free(a);
	return 0;
}
