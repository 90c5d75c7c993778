/*
 * cli/util.c: the helpers every command file calls: errors printed as
 * "toolgate: <what>: <why>" with the exit status of their code (cli_fail),
 * bad usage with a pointer to --help (cli_usage), the home (cli_home), one
 * JSON document on stdout (cli_print_json), and the small argument and
 * number parsers and formatters that several commands share. They sit apart
 * from cli/main.c, which holds only the command table and main().
 */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>

int cli_fail(int code, const char *what)
{
	const tg_error *e = tg_error_last();
	if (e->message[0])
		fprintf(stderr, "toolgate: %s: %s\n", cli_line(what), cli_line(e->message));
	else
		fprintf(stderr, "toolgate: %s: %s\n", what, tg_error_code_name(code));
	return tg_error_exit_status(code);
}

int cli_usage(const tg_cli *cli, const char *fmt, ...)
{
	char m[512];
	va_list ap;
	fprintf(stderr, "toolgate: %s: ", cli->cmd ? cli->cmd->name : "usage");
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	fputs(cli_line(m), stderr);
	fprintf(stderr, " (see 'toolgate %s --help')\n", cli->cmd ? cli->cmd->name : "");
	return TG_EXIT_USAGE;
}

int cli_home(const tg_cli *cli, char **out)
{
	return tg_home_resolve(out, cli->home_flag);
}

int cli_print_json(const json_t *v)
{
	if (tg_json_print(stdout, v, 1) < 0)
		return cli_fail(tg_error_last()->code, "output");
	return TG_EXIT_OK;
}

int cli_parse_u32(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int cli_one_arg(tg_cli *cli, int argc, char **argv, int from, const char **out)
{
	int i;

	*out = NULL;
	for (i = from; i < argc; i++) {
		if (argv[i][0] == '-')
			return cli_usage(cli, "unknown option %.64s", argv[i]);
		if (*out)
			return cli_usage(cli, "too many arguments");
		*out = argv[i];
	}
	return 0;
}

void cli_mib(char *buf, size_t n, json_int_t v)
{
	snprintf(buf, n, "%.1f MiB", (double)v / (1024.0 * 1024.0));
}
