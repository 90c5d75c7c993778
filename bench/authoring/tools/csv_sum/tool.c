#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *csv = tg_arg_str(a, "csv", "");
	long long col = tg_arg_int(a, "column", 0);
	char *copy = strdup(csv), *save = NULL, *line;
	double sum = 0;
	long long rows = 0;

	if (!copy)
		tg_tool_fail("out of memory");
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *cell = line, *end;
		for (long long i = 0; i < col && cell; i++) {
			cell = strchr(cell, ',');
			if (cell)
				cell++;
		}
		if (!cell)
			continue;
		double v = strtod(cell, &end);
		if (end == cell)
			continue; /* header or empty cell */
		sum += v;
		rows++;
	}
	free(copy);
	tg_out_object_begin();
	tg_out_key_num("sum", sum);
	tg_out_key_int("rows", rows);
	tg_out_end();
	return 0;
}
