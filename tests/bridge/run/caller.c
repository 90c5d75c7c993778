/* tests/bridge/run/caller.c: a one-off program for the bridge tests. Args
 * {"tool": NAME, "key": K, "vals": [S, ...], "n": N}: calls NAME n times
 * with {K: vals[i % len]} and prints the outcome of each call: "ok:" and
 * the result's "entry" or "words", or the error code the bridge replied. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *tool = tg_arg_str(a, "tool", "word_count");
	const char *key = tg_arg_str(a, "key", "text");
	const tg_value *vals = tg_arg_array(a, "vals");
	size_t nv = tg_arg_array_len(a, "vals");
	long long n = tg_arg_int(a, "n", 1), i;
	tg_out_array_begin();
	for (i = 0; i < n; i++) {
		tg_args x = TG_ARGS_INIT;
		tg_value *res = NULL;
		char line[160];
		tg_args_str(&x, key, nv ? tg_value_str(tg_value_at(vals, (size_t)i % nv)) : "a b");
		if (tg_call_tool(tool, tg_args_json(&x), &res) == 0) {
			snprintf(line, sizeof(line), "ok:%lld",
				 tg_arg_has(res, "entry") ? tg_arg_int(res, "entry", 0)
							  : tg_arg_int(res, "words", 0));
		} else {
			snprintf(line, sizeof(line), "%s", res ? tg_arg_str(res, "code", "?") : "bridge");
		}
		tg_out_str(line);
		tg_value_free(res);
		tg_args_free(&x);
	}
	tg_out_array_end();
	tg_tool_args_free(a);
	return 0;
}
