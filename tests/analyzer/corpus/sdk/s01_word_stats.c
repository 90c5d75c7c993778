// expect: pass
/* Word statistics on the "text" argument, written with the real SDK. */
#include <toolgate/tool.h>
#include <ctype.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *text = tg_arg_str(a, "text", "");
	long long words = 0, upper = 0;
	bool in_word = false;
	const char *p;

	for (p = text; *p; p++) {
		if (isupper((unsigned char)*p))
			upper++;
		if (isspace((unsigned char)*p)) {
			in_word = false;
		} else if (!in_word) {
			in_word = true;
			words++;
		}
	}
	tg_out_object_begin();
	tg_out_key_int("words", words);
	tg_out_key_int("upper", upper);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
