/*
 * cli/cmd_serve.c: `toolgate serve`, the MCP server on stdio. It opens the
 * home (creating it if needed), takes the session budgets from the home's
 * config.json (session_max_calls, session_max_creates,
 * session_hide_write_tools) with the command-line flags overriding them, and
 * serves one session until the client closes stdin. stdout carries only MCP
 * messages; the few log lines go to stderr. With --http ADDR:PORT it serves
 * Streamable HTTP instead, many sessions at once, each request authenticated
 * by a bearer token (toolgate token add), until SIGINT or SIGTERM. The
 * sandbox pool (config.json sandbox_pool) lives where the tools run: in
 * this process on stdio, in each worker process over HTTP (started after
 * its fork; see http_pool below). The protocol itself lives in mcp/
 * (docs/MCP.md).
 */
#include "cli.h"
#include "analyzer/analyzer.h"
#include "mcp/mcp.h"
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

/*
 * The sandbox pool of `serve --http`. The tools run in the worker processes,
 * so each worker starts its own pool after its fork (the server process
 * itself starts no thread before it forks them). config.json sandbox_pool
 * is the size of one process's pool, as for stdio, but the workers together
 * hold at most HTTP_POOL_TOTAL waiting sandboxes: each holds a forked child,
 * a tracer thread and, on cgroup v1, one of the 16 slots every toolgate
 * process on the host shares (sandbox/cgroup.c). A request goes to the free
 * worker of lowest number, so the share goes to the lowest first: worker i
 * gets min(sandbox_pool, total / workers, +1 for the first total % workers).
 * Set in the server before the fork, read by the workers.
 */
#define HTTP_POOL_TOTAL 8

static struct {
	unsigned size;  /* config.json sandbox_pool */
	unsigned workers;
	tg_sandbox_opts ceil;
} http_pool;

static volatile int http_stop;

static void on_stop(int sig)
{
	(void)sig;
	http_stop = 1;
}

static void on_ready(void *ctx, const char *url)
{
	const tg_mcp_http_options *o = ctx;

	fprintf(stderr, "toolgate: serve: listening on %s (%s; max %u connections, %u workers)\n",
		url, o->no_auth ? "NO AUTHENTICATION" : "bearer tokens", o->max_connections,
		o->workers);
}

/* --http ADDR:PORT ([v6]:PORT for IPv6); ADDR alone is not accepted */
static int parse_http(const char *v, char *addr, size_t n, uint16_t *port)
{
	const char *colon = strrchr(v, ':');
	uint32_t p;
	size_t len;

	if (!colon || cli_parse_u32(colon + 1, &p) < 0 || p > 65535)
		return -1;
	len = (size_t)(colon - v);
	if (len >= 2 && v[0] == '[' && v[len - 1] == ']') {
		v++;
		len -= 2;
	}
	if (len == 0 || len >= n)
		return -1;
	memcpy(addr, v, len);
	addr[len] = '\0';
	*port = (uint16_t)p;
	return 0;
}

static int serve_http(tg_cli *cli, const char *home, tg_mcp_http_options *o)
{
	struct sigaction sa;
	int r;

	(void)cli;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	o->home = home;
	if (!o->max_connections)
		o->max_connections = 64;
	if (!o->workers)
		o->workers = 4;
	http_pool.workers = o->workers; /* before the fork: each worker's share */
	o->on_ready = on_ready;
	o->ctx = o;
	if (o->no_auth)
		fprintf(stderr, "toolgate: serve: WARNING: --insecure-no-auth: any local process "
				"may use this server as principal 'anonymous'\n");
	r = tg_mcp_http_serve(o, &http_stop);
	if (r < 0)
		return cli_fail(r, "serve");
	fprintf(stderr, "toolgate: serve: stopped\n");
	return TG_EXIT_OK;
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

static unsigned http_pool_share(unsigned size, unsigned workers, unsigned i)
{
	unsigned share;

	if (!workers || i >= workers)
		return 0;
	share = HTTP_POOL_TOTAL / workers + (i < HTTP_POOL_TOTAL % workers);
	return share < size ? share : size;
}

/* In each HTTP worker process, right after its fork (tg_mcp_http_options):
 * what stdio serve does for itself (the call profile, the net namespace
 * made ahead, the pool), threads of this worker only. */
static void worker_init(void *ctx, unsigned index)
{
	unsigned n = http_pool_share(http_pool.size, http_pool.workers, index);

	(void)ctx;
	tg_prof_init(); /* $TG_CALL_PROFILE: one line per call, every worker */
	tg_sandbox_prepare(1);
	if (n && tg_sandbox_pool_start(n, &http_pool.ceil) < 0)
		tg_error_clear(); /* runs take the ordinary path */
}

static void worker_exit(void *ctx)
{
	(void)ctx;
	tg_sandbox_pool_stop();
}

/* The command line of serve: the session budgets and, for --http, the
 * transport's address and limits. */
typedef struct serve_args {
	uint32_t max_calls, max_creates;
	int have_calls, have_creates, hide, use_http;
	tg_mcp_http_options http;
	char http_addr[64];
	const char *origins[16];
	size_t norigins;
} serve_args;

/* Fill *a from argv; 0, or the cli_usage status of the first bad option. */
static int parse_args(tg_cli *cli, int argc, char **argv, serve_args *a)
{
	uint32_t u = 0;
	int i, r;

	for (i = 1; i < argc; i++) {
		if ((r = opt_u32(argc, argv, &i, "--max-calls", &a->max_calls)) != 0) {
			if (r < 0)
				return cli_usage(cli, "--max-calls: needs a number (0 = unlimited)");
			a->have_calls = 1;
		} else if ((r = opt_u32(argc, argv, &i, "--max-creates", &a->max_creates)) != 0) {
			if (r < 0)
				return cli_usage(cli, "--max-creates: needs a number (0 = unlimited)");
			a->have_creates = 1;
		} else if (strcmp(argv[i], "--hide-write-tools") == 0) {
			a->hide = 1;
		} else if (strcmp(argv[i], "--http") == 0) {
			if (i + 1 >= argc || parse_http(argv[++i], a->http_addr, sizeof(a->http_addr),
							&a->http.port) < 0)
				return cli_usage(cli, "--http needs ADDR:PORT (e.g. 127.0.0.1:8808)");
			a->use_http = 1;
		} else if (strcmp(argv[i], "--allow-remote") == 0) {
			a->http.allow_remote = 1;
		} else if (strcmp(argv[i], "--insecure-no-auth") == 0) {
			a->http.no_auth = 1;
		} else if (strcmp(argv[i], "--allow-origin") == 0) {
			if (i + 1 >= argc || a->norigins + 1 >= TG_ARRAY_SIZE(a->origins))
				return cli_usage(cli, "--allow-origin needs an ORIGIN (at most 15)");
			a->origins[a->norigins++] = argv[++i];
		} else if ((r = opt_u32(argc, argv, &i, "--max-connections", &u)) != 0) {
			if (r < 0 || u == 0 || u > 10000)
				return cli_usage(cli, "--max-connections: needs a number 1..10000");
			a->http.max_connections = u;
		} else if ((r = opt_u32(argc, argv, &i, "--workers", &u)) != 0) {
			if (r < 0 || u == 0 || u > 256)
				return cli_usage(cli, "--workers: needs a number 1..256");
			a->http.workers = u;
		} else if ((r = opt_u32(argc, argv, &i, "--idle-timeout-s", &u)) != 0) {
			if (r < 0 || u == 0)
				return cli_usage(cli, "--idle-timeout-s: needs a number of seconds");
			a->http.idle_timeout_s = u;
		} else if ((r = opt_u32(argc, argv, &i, "--request-timeout-ms", &u)) != 0) {
			if (r < 0 || u == 0)
				return cli_usage(cli, "--request-timeout-ms: needs a number");
			a->http.request_timeout_ms = u;
		} else if ((r = opt_u32(argc, argv, &i, "--max-body", &u)) != 0) {
			if (r < 0 || u < 1024)
				return cli_usage(cli, "--max-body: needs a number of bytes (>= 1024)");
			a->http.max_body = u;
		} else {
			return cli_usage(cli, "unexpected argument '%.64s'", argv[i]);
		}
	}
	return 0;
}

/* The resource toolgate://policy: the policy the analysis uses, as a JSON
 * document into *doc. 0, or the cli_fail status. */
static int load_policy_doc(tg_cli *cli, json_t **doc)
{
	tg_policy *pol = NULL;
	int r = cli_load_policy(cli, &pol, NULL);

	if (r == 0)
		r = tg_policy_effective(doc, pol);
	tg_policy_free(pol);
	if (r < 0)
		return cli_fail(r == TG_ERR_NOMEM ? r : TG_ERR_INVALID, "serve: policy");
	return 0;
}

/* One MCP session on stdin and stdout until the client closes stdin. The
 * server is left in *srv for the caller to free (after the pool stops). */
static int serve_stdio(tg_registry *reg, const char *home, const tg_mcp_options *opt,
		       tg_mcp_server **srv)
{
	tg_mcp_backend be;
	int r, status = TG_EXIT_OK;

	tg_mcp_backend_registry(&be, reg);
	r = tg_mcp_server_new(srv, &be, opt);
	if (r < 0)
		return cli_fail(r, "serve");
	fprintf(stderr,
		"toolgate: serve: session %s on %s (max calls %u, max creates %u%s; 0 = "
		"unlimited)\n",
		tg_mcp_server_session(*srv), home, opt->max_calls, opt->max_creates,
		opt->hide_write_tools ? ", write tools hidden" : "");
	r = tg_mcp_serve(*srv, STDIN_FILENO, STDOUT_FILENO);
	if (r < 0)
		status = cli_fail(r, "serve");
	else if (tg_mcp_server_ended(*srv))
		fprintf(stderr, "toolgate: serve: session ended: %d refused requests after its "
				"budget was spent\n", TG_MCP_SESSION_REFUSED_END);
	if (tg_mcp_server_close(*srv) < 0)
		fprintf(stderr, "toolgate: serve: audit: %s\n", cli_line(tg_error_last()->message));
	return status;
}

int cmd_serve(tg_cli *cli, int argc, char **argv)
{
	_cleanup_free_ char *home = NULL;
	_cleanup_json_ json_t *policy_doc = NULL;
	tg_registry *reg = NULL;
	tg_mcp_server *srv = NULL;
	tg_mcp_options opt = { 0 };
	const tg_config *cfg;
	serve_args a = { 0 };
	tg_mcp_http_options *http = &a.http;
	int r, status = TG_EXIT_OK;

	if ((r = parse_args(cli, argc, argv, &a)) != 0)
		return r;
	r = cli_home(cli, &home);
	if (r < 0)
		return cli_fail(r, "serve");
	r = tg_registry_open(&reg, home, 1);
	if (r < 0)
		return cli_fail(r, "serve");
	/* calls come one after another: make each run's net namespace ahead.
	 * Over HTTP the workers run the tools and each does this for itself
	 * (worker_init): the server process starts no thread before it forks
	 * them (a maker thread holding its lock at the fork deadlocked a
	 * worker's first run) */
	if (!a.use_http) {
		tg_prof_init(); /* $TG_CALL_PROFILE: off unless set (common/prof.c) */
		tg_sandbox_prepare(1);
	}
	status = cli_limits_gate(reg, "serve");
	if (status != 0)
		goto out;
	cfg = tg_registry_config(reg);
	/* the pool lives in the process that runs the tools: here for stdio,
	 * over HTTP in each worker, started after its fork (worker_init;
	 * docs/SANDBOX.md, "The pool") */
	if (cfg && cfg->sandbox_pool) {
		tg_sandbox_opts ceil = { .memory_mb = cfg->max_memory_mb,
					 .cpu_percent = cfg->cpu_percent };
		if (a.use_http) {
			http_pool.size = cfg->sandbox_pool;
			http_pool.ceil = ceil;
		} else if (tg_sandbox_pool_start(cfg->sandbox_pool, &ceil) < 0) {
			tg_error_clear(); /* runs take the ordinary path */
		}
	}
	opt.max_calls = a.have_calls ? a.max_calls : cfg ? cfg->session_max_calls : 0;
	opt.max_creates = a.have_creates ? a.max_creates : cfg ? cfg->session_max_creates : 0;
	opt.hide_write_tools = a.hide || (cfg && cfg->session_hide_write_tools);
	opt.workspace = cfg && cfg->workspace;
	opt.version = TG_VERSION;
	if (!a.use_http && (http->allow_remote || http->no_auth || a.norigins || http->workers ||
			    http->max_connections || http->idle_timeout_s ||
			    http->request_timeout_ms || http->max_body)) {
		status = cli_usage(cli, "--allow-remote, --insecure-no-auth and the HTTP limits "
					"go with --http ADDR:PORT");
		goto out;
	}
	status = load_policy_doc(cli, &policy_doc);
	if (status != 0)
		goto out;
	opt.policy = policy_doc;
	{
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_sigpipe;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGPIPE, &sa, NULL);
	}
	if (a.use_http) {
		http->addr = a.http_addr;
		http->origins = a.origins;
		http->worker_init = worker_init;
		http->worker_exit = worker_exit;
		http->session = opt;
		if (cfg) {
			http->header_timeout_ms = cfg->http_header_timeout_ms;
			http->unauth_per_ip = cfg->http_unauth_connections_per_ip;
			http->auth_reserve_pct = cfg->http_auth_reserve_percent;
			http->body_budget = (size_t)cfg->http_body_budget_mb << 20;
		}
		/* each worker opens its own handle */
		tg_registry_free(reg);
		reg = NULL;
		status = serve_http(cli, home, http);
		goto out;
	}
	status = serve_stdio(reg, home, &opt, &srv);
out:
	tg_sandbox_pool_stop();
	tg_mcp_server_free(srv);
	tg_registry_free(reg);
	return status;
}
