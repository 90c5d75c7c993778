// expect: pass
// capabilities: workspace:write
/* A computed name under /workspace through the SDK's tg_workspace_open, in a
 * mode that writes: allowed with workspace:write (and built: openat, fdopen
 * and close are the SDK's, so the object check passes too). */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *log = tg_arg_str(a, "log", "log.txt");
	FILE *out = tg_workspace_open(log, "a+");
	if (!out)
		tg_tool_fail("log: %s", tg_workspace_error());
	fputs(tg_arg_str(a, "line", ""), out);
	fputc('\n', out);
	tg_out_object_begin();
	tg_out_key_bool("written", fclose(out) == 0);
	tg_out_end();
	return 0;
}
