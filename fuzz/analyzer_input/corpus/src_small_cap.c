/* word_count: count the words, lines and characters (code points) of a text. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *text = tg_arg_str(a, "text", "");
	long long words = 0, lines = 0, chars = 0;
	bool in_word = false;

	for (const char *p = text; *p; p++) {
		bool space = *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v';
		if (!space && !in_word)
			words++;
		in_word = !space;
		if (*p == '\n')
			lines++;
		if ((*p & 0xC0) != 0x80) /* not a UTF-8 continuation byte */
			chars++;
	}
	if (*text && text[strlen(text) - 1] != '\n')
		lines++; /* a last line without its newline */

	tg_out_object_begin();
	tg_out_key_int("words", words);
	tg_out_key_int("lines", lines);
	tg_out_key_int("chars", chars);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
