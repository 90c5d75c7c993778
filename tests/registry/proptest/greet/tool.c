/* greet: a greeting, "Dear <title> <name>". Bug: the optional title is
 * read with no default, and its length taken without a check, so a call
 * without it dereferences NULL. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *name = tg_arg_str(a, "name", "");
	const char *title = tg_arg_str(a, "title", NULL);
	size_t n = strlen(title) + strlen(name) + 16;
	char *s = malloc(n);

	if (!s)
		tg_tool_fail("out of memory");
	snprintf(s, n, "Dear %s %s", title, name);
	tg_out_object_begin();
	tg_out_key_str("greeting", s);
	tg_out_end();
	free(s);
	tg_tool_args_free(a);
	return 0;
}
