/* word_count v2 (buggy): adds the longest word, but counts words as "number
 * of spaces + 1" — wrong for an empty text and for runs of spaces. Its own
 * tests catch it, so toolgate records this version as failed and keeps the
 * previous one active. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *text = tg_arg_str(a, "text", "");
	long long words = 1, lines = 0, chars = 0, best_len = 0, cur_len = 0;
	const char *best = text, *cur = text;

	for (const char *p = text; *p; p++) {
		if (*p == ' ' || *p == '\n') {
			words++; /* BUG: every separator starts a word */
			if (cur_len > best_len) {
				best = cur;
				best_len = cur_len;
			}
			cur_len = 0;
			cur = p + 1;
		} else if ((*p & 0xC0) != 0x80) {
			cur_len++;
		}
		if (*p == '\n')
			lines++;
		if ((*p & 0xC0) != 0x80)
			chars++;
	}
	if (cur_len > best_len) {
		best = cur;
		best_len = cur_len;
	}
	if (*text && text[strlen(text) - 1] != '\n')
		lines++;

	size_t best_bytes = 0;
	while (best[best_bytes] && best[best_bytes] != ' ' && best[best_bytes] != '\n')
		best_bytes++;
	tg_out_object_begin();
	tg_out_key_int("words", words);
	tg_out_key_int("lines", lines);
	tg_out_key_int("chars", chars);
	tg_out_key_strn("longest", best, best_len ? best_bytes : 0);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
