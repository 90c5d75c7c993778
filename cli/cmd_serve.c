/*
 * cli/cmd_serve.c: `toolgate serve`, the MCP server on stdio. It opens the
 * home (creating it if needed), takes the session budgets from the home's
 * config.json (session_max_calls, session_max_creates,
 * session_hide_write_tools) with the command-line flags overriding them, and
 * serves one session until the client closes stdin. stdout carries only MCP
 * messages; the few log lines go to stderr. The protocol itself lives in
 * cli/mcp_*.c (docs/MCP.md).
 */
#include "cli.h"
#include "analyzer/analyzer.h"
#include "mcp_server.h"
#include "sandbox/sandbox.h"

#include <signal.h>
#include <string.h>

/* A handler, not SIG_IGN: a closed stdout turns into EPIPE from write() so the
 * session ends cleanly, and the tools the sandbox executes get the default
 * disposition back at exec (an ignored signal would stay ignored). */
static void on_sigpipe(int sig)
{
	(void)sig;
}

/* --name N or --name=N; 1 if argv[*i] is this option, -1 on a bad value. */
static int opt_u32(int argc, char **argv, int *i, const char *name, uint32_t *out)
{
	size_t n = strlen(name);
	const char *v;

	if (strncmp(argv[*i], name, n) != 0)
		return 0;
	if (argv[*i][n] == '=')
		v = argv[*i] + n + 1;
	else if (argv[*i][n] == '\0' && *i + 1 < argc)
		v = argv[++*i];
	else if (argv[*i][n] == '\0')
		return -1;
	else
		return 0;
	return cli_parse_u32(v, out) < 0 ? -1 : 1;
}

int cmd_serve(tg_cli *cli, int argc, char **argv)
{
	_cleanup_free_ char *home = NULL;
	_cleanup_json_ json_t *policy_doc = NULL;
	tg_registry *reg = NULL;
	tg_mcp_server *srv = NULL;
	tg_mcp_backend be;
	tg_mcp_options opt = { 0 };
	const tg_config *cfg;
	uint32_t max_calls = 0, max_creates = 0;
	int have_calls = 0, have_creates = 0, hide = 0;
	int i, r, status = TG_EXIT_OK;

	for (i = 1; i < argc; i++) {
		if ((r = opt_u32(argc, argv, &i, "--max-calls", &max_calls)) != 0) {
			if (r < 0)
				return cli_usage(cli, "--max-calls: needs a number (0 = unlimited)");
			have_calls = 1;
		} else if ((r = opt_u32(argc, argv, &i, "--max-creates", &max_creates)) != 0) {
			if (r < 0)
				return cli_usage(cli, "--max-creates: needs a number (0 = unlimited)");
			have_creates = 1;
		} else if (strcmp(argv[i], "--hide-write-tools") == 0) {
			hide = 1;
		} else {
			return cli_usage(cli, "unexpected argument '%.64s'", argv[i]);
		}
	}
	r = cli_home(cli, &home);
	if (r < 0)
		return cli_fail(r, "serve");
	r = tg_registry_open(&reg, home, 1);
	if (r < 0)
		return cli_fail(r, "serve");
	/* calls come one after another: make each run's net namespace ahead */
	tg_sandbox_prepare(1);
	status = cli_limits_gate(reg, "serve");
	if (status != 0)
		goto out;
	cfg = tg_registry_config(reg);
	opt.max_calls = have_calls ? max_calls : cfg ? cfg->session_max_calls : 0;
	opt.max_creates = have_creates ? max_creates : cfg ? cfg->session_max_creates : 0;
	opt.hide_write_tools = hide || (cfg && cfg->session_hide_write_tools);
	opt.version = TG_VERSION;
	{
		/* the resource toolgate://policy: the policy the analysis uses */
		tg_policy *pol = NULL;
		r = cli_load_policy(cli, &pol, NULL);
		if (r == 0)
			r = tg_policy_effective(&policy_doc, pol);
		tg_policy_free(pol);
		if (r < 0) {
			status = cli_fail(r == TG_ERR_NOMEM ? r : TG_ERR_INVALID, "serve: policy");
			goto out;
		}
		opt.policy = policy_doc;
	}
	tg_mcp_backend_registry(&be, reg);
	{
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_sigpipe;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGPIPE, &sa, NULL);
	}
	r = tg_mcp_server_new(&srv, &be, &opt);
	if (r < 0) {
		status = cli_fail(r, "serve");
		goto out;
	}
	fprintf(stderr,
		"toolgate: serve: session %s on %s (max calls %u, max creates %u%s; 0 = "
		"unlimited)\n",
		tg_mcp_server_session(srv), home, opt.max_calls, opt.max_creates,
		opt.hide_write_tools ? ", write tools hidden" : "");
	r = tg_mcp_serve(srv, STDIN_FILENO, STDOUT_FILENO);
	if (r < 0)
		status = cli_fail(r, "serve");
	if (tg_mcp_server_close(srv) < 0)
		fprintf(stderr, "toolgate: serve: audit: %s\n", cli_line(tg_error_last()->message));
out:
	tg_mcp_server_free(srv);
	tg_registry_free(reg);
	return status;
}
