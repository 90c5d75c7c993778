/* file_stats: bytes, lines and words of one of a few known files of the
 * workspace. It needs the workspace:read capability (the workspace folder is
 * bound read-only at /workspace), so a new version stays pending until a
 * person runs `toolgate approve`. fopen takes only constant paths under
 * /workspace, so each known file has its own literal path and any other name
 * is refused by the tool itself (a tool taking any name under /workspace
 * opens it with tg_workspace_open, docs/SDK.md). With
 * "optional": true a missing file is a result ({"file", "found": false})
 * rather than an error: that is what its test checks, since the tests of a
 * version awaiting approval run against an empty /workspace. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *name = tg_arg_str(a, "file", "");
	bool optional = tg_arg_bool(a, "optional", false);
	long long bytes = 0, lines = 0, words = 0;
	bool in_word = false;
	FILE *f;
	int c;

	if (!strcmp(name, "README.md"))
		f = fopen("/workspace/README.md", "r");
	else if (!strcmp(name, "notes.txt"))
		f = fopen("/workspace/notes.txt", "r");
	else if (!strcmp(name, "data.csv"))
		f = fopen("/workspace/data.csv", "r");
	else
		tg_tool_fail("file: must be one of README.md, notes.txt, data.csv");
	if (!f && optional) {
		tg_out_object_begin();
		tg_out_key_str("file", name);
		tg_out_key_bool("found", false);
		tg_out_end();
		tg_tool_args_free(a);
		return 0;
	}
	if (!f)
		tg_tool_fail("%s: not found in the workspace", name);
	while ((c = getc(f)) != EOF) {
		bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
		bytes++;
		lines += c == '\n';
		words += !space && !in_word;
		in_word = !space;
	}
	fclose(f);

	tg_out_object_begin();
	tg_out_key_str("file", name);
	tg_out_key_int("bytes", bytes);
	tg_out_key_int("lines", lines);
	tg_out_key_int("words", words);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
