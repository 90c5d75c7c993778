/* nth_word: word number index of a text (0 first). Bug: the index is
 * checked against the table's size, not against the number of words, so
 * an index past the last word reads an empty slot (NULL) and crashes
 * (SIGSEGV); the tests ask for words that exist. */
#include <string.h>
#include <toolgate/tool.h>

#define MAX_WORDS 101

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	char *text = strdup(tg_arg_str(a, "text", ""));
	long long index = tg_arg_int(a, "index", 0);
	const char *words[MAX_WORDS] = { 0 };
	char *save = NULL;
	int n = 0;

	for (char *w = strtok_r(text, " ", &save); w && n < MAX_WORDS; w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	if (index >= MAX_WORDS)
		tg_tool_fail("index: too large");
	tg_out_object_begin();
	tg_out_key_int("length", (long long)strlen(words[index]));
	tg_out_key_str("word", words[index]);
	tg_out_end();
	free(text);
	tg_tool_args_free(a);
	return 0;
}
