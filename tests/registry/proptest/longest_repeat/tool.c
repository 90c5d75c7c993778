/* longest_repeat: the length of the longest substring that occurs twice in
 * a text. Bug: the naive search is cubic, fine on the short texts of the
 * tests, far past the timeout on a long repetitive one. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *s = tg_arg_str(a, "text", "");
	size_t n = strlen(s), best = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			size_t k = 0;
			while (j + k < n && s[i + k] == s[j + k])
				k++;
			if (k > best)
				best = k;
		}
	tg_out_object_begin();
	tg_out_key_int("longest", (long long)best);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
