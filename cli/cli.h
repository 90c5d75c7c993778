/*
 * cli/cli.h: what the command files of the `toolgate` executable share: the
 * parsed global options, the command table entry, and helpers that print
 * errors as "toolgate: <what>: <why>" and map error codes to exit statuses
 * (0 success, 1 negative verdict, 2 bad usage or input, 3 environment).
 */
#ifndef TG_CLI_H
#define TG_CLI_H

#include "common/common.h"

enum { TG_EXIT_OK = 0, TG_EXIT_VERDICT = 1, TG_EXIT_USAGE = 2, TG_EXIT_ENV = 3 };

struct tg_cli_command;

typedef struct tg_cli {
	const char *home_flag;   /* --home DIR, or NULL */
	int json;                /* --json */
	const struct tg_cli_command *cmd;
} tg_cli;

/* A command gets argv[0] = its name and the arguments after it, with the
 * global options (--home, --json, --help) already removed. It returns the
 * process exit status. */
typedef int (*tg_cli_fn)(tg_cli *cli, int argc, char **argv);

typedef struct tg_cli_command {
	const char *name;
	tg_cli_fn fn;
	const char *usage;    /* arguments after the command name */
	const char *summary;  /* one line */
	const char *help;     /* further lines for --help, or NULL */
} tg_cli_command;

/* cli/util.c: the helpers every command shares.
 * Print "toolgate: <what>: <tg_error_last message>" and return the exit
 * status for code (tg_error_exit_status). */
int cli_fail(int code, const char *what);
/* Print "toolgate: <cmd>: <message>" plus a hint, return 2. */
int cli_usage(const tg_cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Resolve the home (flag, TOOLGATE_HOME, XDG_DATA_HOME, HOME). */
int cli_home(const tg_cli *cli, char **out);
/* Print one JSON document (pretty) on stdout. Returns an exit status. */
int cli_print_json(const json_t *v);
/* Parse a decimal uint32 option value; -1 on junk or overflow. */
int cli_parse_u32(const char *s, uint32_t *out);
/* At most one operand in argv[from..argc) into *out (NULL when none); an
 * option or a second operand is bad usage (the cli_usage status). */
int cli_one_arg(tg_cli *cli, int argc, char **argv, int from, const char **out);
/* v bytes as "12.3 MiB" into buf. */
void cli_mib(char *buf, size_t n, json_int_t v);

/* Before tools run (create, call, serve): 0 when runs get cgroup limits or
 * fall back to rlimits (said once on stderr), TG_EXIT_ENV when config.json
 * has require_cgroups and there are none (said). r may be NULL. */
struct tg_registry;
int cli_limits_gate(const struct tg_registry *r, const char *what);

/* Text of agent or tool origin (names, descriptions, test names, findings,
 * source, a tool's stderr, audit details, MCP client strings) made safe for a
 * terminal by tg_term_scrub: cli_line for a one-line field (newline and tab
 * become markers), cli_block for multi-line text. Never NULL; the result
 * stays valid for the next 15 calls on this thread (cli/text.c). cli_jline
 * takes a JSON string ("?" when it is not one). */
const char *cli_line(const char *s);
const char *cli_block(const char *s);
const char *cli_jline(const json_t *v);
/* Other hosts' signed decisions not followed here, one line each:
 * "INDENTclaimed by KEY (PRINCIPAL): approve, not followed: WHY" (or
 * "refused: WHY"); every field through cli_line. */
void cli_print_claims(const json_t *claims, const char *indent);

/* The analysis policy: --policy FILE (flag), else <home>/policy.json when it
 * exists, else the built-in default (cli/policy_load.c). */
struct tg_policy;
int cli_load_policy(const tg_cli *cli, struct tg_policy **out, const char *flag);

/* The commands; each lives in cli/cmd_<name>.c. */
int cmd_init(tg_cli *cli, int argc, char **argv);
int cmd_check(tg_cli *cli, int argc, char **argv);
int cmd_policy(tg_cli *cli, int argc, char **argv);
int cmd_create(tg_cli *cli, int argc, char **argv);
int cmd_list(tg_cli *cli, int argc, char **argv);
int cmd_show(tg_cli *cli, int argc, char **argv);
int cmd_history(tg_cli *cli, int argc, char **argv);
int cmd_diff(tg_cli *cli, int argc, char **argv);
int cmd_rollback(tg_cli *cli, int argc, char **argv);
int cmd_approve(tg_cli *cli, int argc, char **argv);
int cmd_deny(tg_cli *cli, int argc, char **argv);
int cmd_remove(tg_cli *cli, int argc, char **argv);
int cmd_call(tg_cli *cli, int argc, char **argv);
int cmd_log(tg_cli *cli, int argc, char **argv);
int cmd_verify(tg_cli *cli, int argc, char **argv);
int cmd_status(tg_cli *cli, int argc, char **argv);
int cmd_gc(tg_cli *cli, int argc, char **argv);
int cmd_sandbox(tg_cli *cli, int argc, char **argv);
int cmd_serve(tg_cli *cli, int argc, char **argv);
int cmd_doctor(tg_cli *cli, int argc, char **argv);
int cmd_run(tg_cli *cli, int argc, char **argv);
int cmd_remote(tg_cli *cli, int argc, char **argv);
int cmd_backend(tg_cli *cli, int argc, char **argv);
int cmd_push(tg_cli *cli, int argc, char **argv);
int cmd_pull(tg_cli *cli, int argc, char **argv);
int cmd_key(tg_cli *cli, int argc, char **argv);
int cmd_show_run(tg_cli *cli, int argc, char **argv);
int cmd_approvals(tg_cli *cli, int argc, char **argv);
int cmd_approve_call(tg_cli *cli, int argc, char **argv);
int cmd_deny_call(tg_cli *cli, int argc, char **argv);
int cmd_token(tg_cli *cli, int argc, char **argv);
int cmd_samples(tg_cli *cli, int argc, char **argv);
int cmd_promote(tg_cli *cli, int argc, char **argv);
int cmd_tests(tg_cli *cli, int argc, char **argv);
/* cli/call_decide.c: approve (1) or deny (0) the queued call argv[1]
 * (approve-call, deny-call); returns the exit status. */
int cli_decide_call(tg_cli *cli, int argc, char **argv, int approve);
/* cli/run_text.c: a run's audit entries as a call tree (show-run, log
 * --run); cli_one_line turns a tool's trailing blanks, line breaks and
 * tabs into one line in place (run, show-run). */
void cli_print_run_entries(const json_t *entries);
void cli_one_line(char *msg);

#endif
