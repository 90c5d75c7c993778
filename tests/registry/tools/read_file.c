/* read_file: the size of a workspace file the input names, opened with the
 * SDK's tg_workspace_open (a computed path under /workspace). */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *name = tg_arg_str(a, "file", "");
	long long bytes = 0;
	FILE *f = tg_workspace_open(name, "r");
	if (!f)
		tg_tool_fail("%s: %s", name, tg_workspace_error());
	while (getc(f) != EOF)
		bytes++;
	fclose(f);
	tg_out_object_begin();
	tg_out_key_str("file", name);
	tg_out_key_int("bytes", bytes);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
