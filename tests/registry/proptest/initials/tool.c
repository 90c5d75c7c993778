/* initials: the initials of a first, an optional middle and a last name.
 * Bug: the middle name is read as if always present; without it strlen
 * gets NULL (SIGSEGV). Every test gives one. */
#include <string.h>
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *first = tg_arg_str(a, "first", "");
	const char *middle = tg_arg_str(a, "middle", NULL);
	const char *last = tg_arg_str(a, "last", "");
	char out[4] = { 0 };
	size_t n = 0;

	if (first[0])
		out[n++] = first[0];
	if (strlen(middle) > 0)
		out[n++] = middle[0];
	if (last[0])
		out[n++] = last[0];
	tg_out_object_begin();
	tg_out_key_str("initials", out);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
