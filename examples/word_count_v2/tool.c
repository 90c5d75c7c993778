/* word_count v2: words, lines, characters (code points), and the longest
 * word (the first one when several are as long). */
#include <toolgate/tool.h>

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *text = tg_arg_str(a, "text", "");
	long long words = 0, lines = 0, chars = 0, best_len = 0, cur_len = 0;
	const char *best = text, *cur = text;

	for (const char *p = text;; p++) {
		if (*p == '\0' || is_space(*p)) {
			if (cur_len > best_len) { /* a word ended at p */
				best = cur;
				best_len = cur_len;
			}
			cur_len = 0;
			if (*p == '\0')
				break;
		} else if (cur_len++ == 0) {
			cur = p;
			words++;
		} else if ((*p & 0xC0) == 0x80) {
			cur_len--; /* a continuation byte is no new character */
		}
		if (*p == '\n')
			lines++;
		if ((*p & 0xC0) != 0x80)
			chars++;
	}
	if (*text && text[strlen(text) - 1] != '\n')
		lines++;

	size_t best_bytes = 0;
	while (best[best_bytes] && !is_space(best[best_bytes]))
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
