/* A one-off program (toolgate run): counts the words of each line of
 * {"text": "..."} through the registered word_count tool, one bridged call
 * a line, and says which line has the most words. Never registered. */
#include <toolgate/tool.h>

#include <string.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *text = tg_arg_str(a, "text", "");
	long long best = -1, line = 0, best_line = 0;
	char buf[4096];

	while (*text && line < 8) {
		size_t n = strcspn(text, "\n");
		tg_args x = TG_ARGS_INIT;
		tg_value *res;

		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		memcpy(buf, text, n);
		buf[n] = '\0';
		tg_args_str(&x, "text", buf);
		if (tg_call_tool("word_count", tg_args_json(&x), &res) != 0)
			tg_tool_fail("word_count failed: %s",
				     res ? tg_arg_str(res, "message", "?") : "bridge");
		if (tg_arg_int(res, "words", 0) > best) {
			best = tg_arg_int(res, "words", 0);
			best_line = line + 1;
		}
		tg_value_free(res);
		tg_args_free(&x);
		line++;
		text += n;
		if (*text == '\n')
			text++;
	}
	tg_out_object_begin();
	tg_out_key_int("lines", line);
	tg_out_key_int("busiest_line", best_line);
	tg_out_key_int("words", best < 0 ? 0 : best);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
