/* sort_lines: sort the lines of a text (byte order), optionally reversed and
 * without duplicates. It spools the text through a scratch file in /tmp (the
 * sandbox gives each run a private, size-limited /tmp) and reads it back line
 * by line, as a tool handling more data than it wants to hold twice would. */
#include <toolgate/tool.h>

static bool reverse;

static int cmp_line(const void *a, const void *b)
{
	int c = strcmp(*(char *const *)a, *(char *const *)b);
	return reverse ? -c : c;
}

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *text = tg_arg_str(a, "text", "");
	bool unique = tg_arg_bool(a, "unique", false);
	char **lines = NULL, *line = NULL;
	size_t n = 0, cap = 0, linecap = 0, i, written = 0;
	ssize_t got;
	FILE *f;

	reverse = tg_arg_bool(a, "reverse", false);
	f = fopen("/tmp/sort_lines.scratch", "w+");
	if (!f)
		tg_tool_fail("cannot create the scratch file in /tmp");
	if (fputs(text, f) < 0 || fflush(f) != 0)
		tg_tool_fail("cannot write the scratch file (is /tmp full?)");
	rewind(f);
	while ((got = getline(&line, &linecap, f)) >= 0) {
		if (got > 0 && line[got - 1] == '\n')
			line[got - 1] = '\0';
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			lines = realloc(lines, cap * sizeof(*lines));
			if (!lines)
				tg_tool_fail("out of memory");
		}
		lines[n] = strdup(line);
		if (!lines[n++])
			tg_tool_fail("out of memory");
	}
	if (ferror(f))
		tg_tool_fail("cannot read the scratch file back");
	fclose(f);
	remove("/tmp/sort_lines.scratch");
	free(line);

	qsort(lines, n, sizeof(*lines), cmp_line);
	tg_out_object_begin();
	tg_out_key("lines");
	tg_out_array_begin();
	for (i = 0; i < n; i++) {
		if (unique && i > 0 && !strcmp(lines[i], lines[i - 1]))
			continue;
		tg_out_str(lines[i]);
		written++;
	}
	tg_out_array_end();
	tg_out_key_int("count", (long long)written);
	tg_out_end();
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	tg_tool_args_free(a);
	return 0;
}
