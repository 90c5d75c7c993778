/* tests/bridge/authz/writer.c: a workspace:write tool for the authority
 * tests. Appends one line to /workspace/log.txt and answers {"entry": the
 * number of lines the file now has}, or {"entry": 0} when there is no
 * workspace to write (a test's /workspace of a version awaiting approval is
 * empty and read-only). */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *text = tg_arg_str(a, "text", "");
	long long lines = 0;
	FILE *f = fopen("/workspace/log.txt", "a");
	int c;

	if (!f) {
		tg_out_object_begin();
		tg_out_key_int("entry", 0);
		tg_out_end();
		tg_tool_args_free(a);
		return 0;
	}
	fprintf(f, "%s\n", text);
	fclose(f);
	f = fopen("/workspace/log.txt", "r");
	if (!f)
		tg_tool_fail("cannot read log.txt");
	while ((c = getc(f)) != EOF)
		lines += c == '\n';
	fclose(f);
	tg_out_object_begin();
	tg_out_key_int("entry", lines);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
