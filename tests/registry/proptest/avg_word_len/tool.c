/* avg_word_len: the integer mean length of the words of a text. Bug: a
 * text with no word (empty, or spaces only) divides by zero (SIGFPE); the
 * tests all have words. */
#include <string.h>
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *t = tg_arg_str(a, "text", "");
	long long words = 0, letters = 0;
	int in = 0;

	for (; *t; t++) {
		int sp = *t == ' ' || *t == '\t' || *t == '\n';
		if (!sp) {
			letters++;
			words += !in;
		}
		in = !sp;
	}
	tg_out_object_begin();
	tg_out_key_int("mean", letters / words);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
