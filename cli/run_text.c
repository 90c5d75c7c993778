/*
 * cli/run_text.c: what `toolgate run`, `show-run` and `log --run` share to
 * print a one-off run: a tool's message on one line (cli_one_line) and the
 * run's audit entries as a call tree, one line per entry indented by its
 * depth (cli_print_run_entries). Event names and details come from agents
 * and tools: printed through cli_line (cli/text.c).
 */
#include "cli.h"

#include <string.h>

/* The tool's own line breaks become spaces (cli_line would mark them). */
void cli_one_line(char *msg)
{
	size_t k = strlen(msg);
	while (k > 0 && (msg[k - 1] == '\n' || msg[k - 1] == ' ' || msg[k - 1] == '\t'))
		msg[--k] = '\0';
	for (char *p = msg; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
}

/* The run's call tree: one line per audit entry, indented by depth. */
void cli_print_run_entries(const json_t *entries)
{
	json_t *e;
	size_t i;

	json_array_foreach(entries, i, e) {
		json_t *d = json_object_get(e, "details");
		_cleanup_free_ char *det = tg_json_dump(d);
		json_int_t depth = json_integer_value(json_object_get(d, "depth"));
		printf("%6lld %*s%-14s %s\n", (long long)json_integer_value(json_object_get(e, "seq")),
		       2 * (int)(depth < 0 ? 0 : depth < 8 ? depth : 8), "",
		       cli_jline(json_object_get(e, "event")), det ? cli_line(det) : "");
	}
}
