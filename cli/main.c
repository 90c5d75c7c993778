/*
 * cli/main.c: the `toolgate` entry point. Global options are taken out of
 * argv (before the command, and after it up to a "--"), the command is looked
 * up in the table below and run; unknown commands and bad flags exit 2 with
 * one line on stderr. It holds only the table and main(); the helpers the
 * command files share are in cli/util.c.
 */
#include "cli.h"
#include "analyzer/analyzer.h"
#include "sandbox/sandbox.h"

#include <string.h>

static const tg_cli_command commands[] = {
	{ "init", cmd_init, "", "create the home (store.git, registry.db, cache/)", NULL },
	{ "check", cmd_check, "FILE.c [--format text|json|sarif] [--policy FILE] [--capability CAP]",
	  "vet a C source file (exit 0 pass, 1 reject, 2 bad input)",
	  "--capability workspace:read|workspace:write vets as for a tool granted it\n"
	  "(file access under /workspace). The policy is --policy FILE, else\n"
	  "<home>/policy.json when it exists, else the built-in default (docs/POLICY.md)." },
	{ "policy", cmd_policy, "[--json] [--policy FILE]",
	  "print the effective analysis policy: headers, symbols, rules and hints",
	  "What a tool may include and call, the functions allowed with conditions\n"
	  "(paths, descriptors, function tables) and every rule with its severity and\n"
	  "hint. The policy is --policy FILE, else <home>/policy.json, else the default.\n"
	  "MCP clients read the same document as the resource toolgate://policy." },
	{ "create", cmd_create, "PATH", "submit a tool: a manifest file or a folder holding tool.json",
	  NULL },
	{ "list", cmd_list, "[--pending]", "list the active tools and the versions awaiting approval",
	  "--pending lists only the versions that wait for a person (approve or deny)." },
	{ "show", cmd_show, "NAME[@V]", "show one version of a tool", NULL },
	{ "history", cmd_history, "NAME", "every version of a tool, with activations and rollbacks",
	  NULL },
	{ "diff", cmd_diff, "NAME V1 V2 [--behaviour]", "unified diff between two versions",
	  "The source first, then the manifest, the test results (timing left out)\n"
	  "and the analysis report. --behaviour: what V2 did on the recorded calls\n"
	  "against V1 (its shadow report): per call same, differs (where, and both\n"
	  "results when short), regression or fixed, and the noise fields ignored." },
	{ "rollback", cmd_rollback, "NAME [--to V]", "re-activate an earlier passing version", NULL },
	{ "approve", cmd_approve, "NAME@V [--activate]",
	  "grant the capabilities one pending version asks for",
	  "The approval binds that version's code and capability set. When a newer\n"
	  "version is active, the approved one is not activated unless --activate." },
	{ "promote", cmd_promote, "NAME@V",
	  "activate a version that shadow runs held (a person's decision, audited)",
	  "A held version passed its tests but did worse than the active one on the\n"
	  "recorded calls (toolgate history shows why). Its approval must stand." },
	{ "samples", cmd_samples, "NAME | purge [NAME]",
	  "list a tool's recorded calls, or delete them (audited)",
	  "The last calls of each tool (config.json record_calls), which a new version\n"
	  "is run on before it replaces the active one. Only in registry.db." },
	{ "tests", cmd_tests, "add NAME --from-sample ID | list NAME | remove NAME TEST",
	  "make a recorded call a test that every later create of the tool runs",
	  "add: recorded call ID (toolgate samples NAME) becomes a test: its arguments,\n"
	  "its result as expect (a failed call: expect_error), its bridged calls'\n"
	  "results as fixtures. Every later create of NAME runs the stored tests with\n"
	  "its manifest's and commits them in its tool.json. Audited." },
	{ "backend", cmd_backend, "NAME [native|gvisor] [--weaken]",
	  "show or set the sandbox backend of a tool's runs (audited)",
	  "gvisor runs the tool's calls and tests under gVisor's runsc whatever\n"
	  "config.json's sandbox_backend says. native makes the tool follow the home's\n"
	  "default; under a gvisor home that weakens it and needs --weaken (the tool\n"
	  "then runs natively). Without a backend: the current one and its source." },
	{ "deny", cmd_deny, "NAME@V [--reason TEXT]", "refuse a version for good (audited)", NULL },
	{ "remove", cmd_remove, "NAME", "disable a tool: no version active, history kept (audited)",
	  "Every version, report and event stays; calls and tools/list no longer see\n"
	  "the tool. 'toolgate rollback NAME --to V' makes a version active again\n"
	  "(approving a pending version does too)." },
	{ "call", cmd_call, "NAME [ARGS_JSON|-]", "run the active version of a tool", NULL },
	{ "run", cmd_run,
	  "FILE.c [ARGS_JSON|-] [--calls NAME,...] [--max-tool-calls N] [--timeout-ms N]",
	  "vet, build and run one program once with the tool bridge (never registered)",
	  "--calls names registered tools holding no capabilities, or host:NAME (each\n"
	  "host call then waits for a person: toolgate approvals). The run is recorded:\n"
	  "toolgate show-run ID shows its source, report and calls." },
	{ "show-run", cmd_show_run, "ID", "what a one-off run ran: source, report, calls", NULL },
	{ "approvals", cmd_approvals, "", "list the bridged calls waiting for a person", NULL },
	{ "approve-call", cmd_approve_call, "ID", "let one queued call run", NULL },
	{ "deny-call", cmd_deny_call, "ID", "refuse one queued call", NULL },
	{ "log", cmd_log,
	  "[--limit N] [--tool NAME] [--actor TEXT] [--since YYYY-MM-DD|SEQ] [--event NAME] "
	  "[--run ID] [--archive BEFORE]",
	  "show the audit log (--run: one run's calls)",
	  "The filters combine with AND: --tool and --event name exactly, --actor\n"
	  "matches actors containing TEXT, --since keeps entries from a UTC date or an\n"
	  "entry number on; --limit then keeps the last N of them.\n"
	  "--archive BEFORE (an entry number or a UTC date YYYY-MM-DD) moves the older\n"
	  "entries to <home>/audit-archive/audit-F-L.jsonl, a file that still verifies,\n"
	  "and appends a checkpoint entry that keeps the chain whole." },
	{ "remote", cmd_remote, "add NAME URL | list | remove NAME",
	  "the remotes push and pull use (kept in <home>/remotes.json)",
	  "URL: a path, file://, git://, ssh:// or https://." },
	{ "push", cmd_push, "[REMOTE]", "send the tool histories (fast-forward only; exit 1: pull first)",
	  NULL },
	{ "pull", cmd_pull, "[REMOTE] [--trust-signed] [--watch SECONDS]",
	  "take a remote's versions, each re-vetted, re-built and re-tested here",
	  "A remote's verdicts and active pointers are claims: a version is active here\n"
	  "only when it passed here and its capabilities were approved here, by a person\n"
	  "or by a signed decision of a key of <home>/trusted_approvers bound to the same\n"
	  "content hash and capabilities (others are shown as claims). This host's\n"
	  "unpushed versions are renumbered on top of the remote's. Exit 1 when a claim\n"
	  "disagreed, a ref or decision was refused or an active pointer was not followed.\n"
	  "--trust-signed: a version signed by a key of <home>/trusted_signers as passed\n"
	  "is still vetted, hashed and built here, but its tests are not run again.\n"
	  "--watch SECONDS: pull again every SECONDS (1..86400) until SIGINT/SIGTERM." },
	{ "key", cmd_key,
	  "init | show | trust PRINCIPAL PUBKEY_FILE | trust-approver PRINCIPAL PUBKEY_FILE | "
	  "revoke-approver PRINCIPAL",
	  "this host's signing key; the signers and approvers it trusts",
	  "init: an ed25519 key in <home>/keys/ (never overwritten); every commit this\n"
	  "host writes is then signed (ssh-keygen -Y sign -n git, git's gpgsig header),\n"
	  "and so are its approvals, denials, removals and promotions (review notes).\n"
	  "trust: add a public key to <home>/trusted_signers (allowed-signers format).\n"
	  "trust-approver: add one to <home>/trusted_approvers: pull follows its signed\n"
	  "decisions. revoke-approver: remove it; decisions it signs later are refused.\n"
	  "pull reports each new version's signature; a signature never replaces re-vetting." },
	{ "verify", cmd_verify, "[--acknowledge-rebuild]",
	  "check that store, registry and audit chain agree",
	  "Also runs SQLite's integrity check on registry.db. A registry.db rebuilt from\n"
	  "the store (its audit and call history lost) is a problem until a person runs\n"
	  "toolgate verify --acknowledge-rebuild (audited)." },
	{ "status", cmd_status, "", "one screen: tools, approvals, rejections, budgets, quotas",
	  "Tools and active versions, versions awaiting approval (the first few),\n"
	  "rejections and calls of the last 24 hours, the MCP session budget\n"
	  "defaults; then the home's use against each quota (config.json):\n"
	  "store and cache bytes (quota_home_mb), the largest cached binary\n"
	  "(max_binary_mb), rejected submissions of one tool in the last hour\n"
	  "(max_rejected_per_tool_hour), the cache (cache_budget_mb) and the store's\n"
	  "loose objects (pack_loose_objects)." },
	{ "gc", cmd_gc, "", "pack the store's loose objects (history untouched)", NULL },
	{ "doctor", cmd_doctor, "", "check this machine and the home; print a fix for each problem",
	  "Items: userns, seccomp, sandbox probe, cgroups, compiler, libclang, sdk, home,\n"
	  "registry, workspace; each ok, warn or fail. Exit 1 when an item fails." },
	{ "sandbox", cmd_sandbox,
	  "exec [--timeout-ms N] [--memory-mb N] [--output-kb N] [--max-procs N] [--cpu-s N] -- PROG [ARG...]",
	  "run any program in the tool sandbox", NULL },
	{ "serve", cmd_serve,
	  "[--max-calls N] [--max-creates N] [--hide-write-tools] [--http ADDR:PORT "
	  "[--allow-remote] [--insecure-no-auth]]",
	  "MCP server on stdio, or Streamable HTTP with bearer tokens",
	  "--http serves many sessions on one endpoint, http://ADDR:PORT/mcp; the\n"
	  "address must be loopback unless --allow-remote. Every request needs a token\n"
	  "(toolgate token add) unless --insecure-no-auth, which only loopback allows.\n"
	  "Tuning: --max-connections N, --workers N, --idle-timeout-s N,\n"
	  "--request-timeout-ms N, --max-body N, --allow-origin ORIGIN (docs/MCP.md)." },
	{ "token", cmd_token,
	  "add NAME [--max-calls N] [--max-creates N] [--tools PATTERN...] [--may-approve] | "
	  "list | revoke NAME",
	  "principals (bearer tokens) of the MCP HTTP transport",
	  "add prints the token once; the registry keeps only its SHA-256." },
};

static void print_usage(FILE *f)
{
	size_t i;
	fprintf(f, "usage: toolgate [--home DIR] [--json] COMMAND [ARGS]\n\n"
		   "toolgate gates the tools an AI agent writes for itself: it vets the C\n"
		   "source, versions it in git, builds and tests it in a no-network sandbox,\n"
		   "and registers only what passed.\n\ncommands:\n");
	for (i = 0; i < TG_ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nglobal options: --home DIR (else $TOOLGATE_HOME, else "
		   "$XDG_DATA_HOME/toolgate), --json, --help, --version\n"
		   "exit status: 0 success, 1 negative verdict, 2 bad usage or input, "
		   "3 environment or internal error\n");
}

static void print_command_help(const tg_cli_command *c)
{
	printf("usage: toolgate %s%s%s\n\n%s\n", c->name, c->usage[0] ? " " : "", c->usage, c->summary);
	if (c->help)
		printf("\n%s\n", c->help);
	printf("\noptions: --home DIR, --json (one JSON document on stdout), --help\n");
}

/* Take --home DIR / --home=DIR / --json / --help out of argv[from..], up to
 * a "--". Returns the new argc, or -1 on a missing --home value. */
static int strip_globals(int argc, char **argv, int from, tg_cli *cli, int *help)
{
	int i, o = from;

	for (i = from; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			while (i < argc)
				argv[o++] = argv[i++];
			break;
		}
		if (strcmp(a, "--json") == 0) {
			cli->json = 1;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			*help = 1;
		} else if (strcmp(a, "--home") == 0) {
			if (i + 1 >= argc || !argv[i + 1][0])
				return -1;
			cli->home_flag = argv[++i];
		} else if (strncmp(a, "--home=", 7) == 0) {
			if (!a[7])
				return -1;
			cli->home_flag = a + 7;
		} else {
			argv[o++] = argv[i];
		}
	}
	argv[o] = NULL;
	return o;
}

int main(int argc, char **argv)
{
	tg_cli cli = { 0 };
	int help = 0, i;
	const char *name;

	/* the analyzer's parse child is this program too (before any thread),
	 * confined by the sandbox's parse filter */
	tg_analyze_main(argc, argv, tg_sandbox_confine_parse);
	argc = strip_globals(argc, argv, 1, &cli, &help);
	if (argc < 0) {
		fprintf(stderr, "toolgate: --home: needs a folder\n");
		return TG_EXIT_USAGE;
	}
	if (argc < 2) {
		if (help) {
			print_usage(stdout);
			return TG_EXIT_OK;
		}
		print_usage(stderr);
		return TG_EXIT_USAGE;
	}
	name = argv[1];
	if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
		printf("toolgate %s\n", TG_VERSION);
		return TG_EXIT_OK;
	}
	if (strcmp(name, "help") == 0) {
		if (argc > 2) {
			name = argv[2];
			help = 1;
		} else {
			print_usage(stdout);
			return TG_EXIT_OK;
		}
	}
	for (i = 0; i < (int)TG_ARRAY_SIZE(commands); i++) {
		if (strcmp(commands[i].name, name) == 0)
			break;
	}
	if (i == (int)TG_ARRAY_SIZE(commands)) {
		fprintf(stderr, "toolgate: %.64s: unknown command (see 'toolgate --help')\n", name);
		return TG_EXIT_USAGE;
	}
	cli.cmd = &commands[i];
	if (help) {
		print_command_help(cli.cmd);
		return TG_EXIT_OK;
	}
	if (name == argv[1])
		return cli.cmd->fn(&cli, argc - 1, argv + 1);
	return cli.cmd->fn(&cli, argc - 2, argv + 2);
}
