/* title_case: capitalise the first letter of each word of a short title.
 * Bug: the buffer has no room for the NUL of a title of exactly
 * maxLength (32) bytes, so strcpy overflows it (a crash under
 * _FORTIFY_SOURCE); multi-byte text reaches it sooner. */
#include <ctype.h>
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *text = tg_arg_str(a, "text", "");
	char buf[32];
	bool start = true;

	strcpy(buf, text);
	for (char *p = buf; *p; p++) {
		if (start && islower((unsigned char)*p))
			*p = (char)toupper((unsigned char)*p);
		start = *p == ' ';
	}
	tg_out_object_begin();
	tg_out_key_str("title", buf);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
