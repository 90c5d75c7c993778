/*
 * cli/cmd_sandbox.c: `toolgate sandbox exec [--timeout-ms N] [--memory-mb N]
 * [--output-kb N] [--max-procs N] [--cpu-percent N] [--cpu-s N] [--json] --
 * PROG [ARG...]`: run any program under the tool sandbox profile
 * (--max-procs: the pids limit, threads included; 1, no fork and no thread,
 * by default; --cpu-percent: its CPU share through the cgroup cpu
 * controller, 100 = one core, none by default; --cpu-s: the CPU time limit,
 * RLIMIT_CPU, by default the timeout's whole seconds + 1). PROG without a
 * '/' is looked up in PATH; a dynamic ELF
 * gets the system library folders bound read-only. toolgate's stdin (unless
 * a terminal) is passed on, capped at 16 MiB.
 *
 * Exit status: the program's own exit status when it exited by itself;
 * 1 when it was killed (timeout, memory, output limit, seccomp, a signal...),
 * with "toolgate: sandbox: killed: <reason> [syscall | signal name]" on
 * stderr (e.g. "killed: signaled SIGSEGV"); 2 for bad
 * flags or a PROG that cannot be run (missing, not an ELF file, exec
 * refused); 3 when the sandbox itself cannot be set up. With --json the
 * docs/CONTRACTS.md document is printed and the same statuses apply.
 */
#include "cli.h"
#include "sandbox/sandbox.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#define STDIN_MAX (16u << 20)

static int find_in_path(char **out, const char *name)
{
	const char *path = getenv("PATH");
	const char *p;

	if (strchr(name, '/')) {
		*out = strdup(name);
		return *out ? 0 : -1;
	}
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p;) {
		size_t n = strcspn(p, ":");
		char *cand = NULL;
		if (n && asprintf(&cand, "%.*s/%s", (int)n, p, name) > 0) {
			struct stat st;
			if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
				*out = cand;
				return 0;
			}
		}
		free(cand);
		p += n;
		if (*p == ':')
			p++;
	}
	return -1;
}

static int opt_u32(tg_cli *cli, int argc, char **argv, int *i, const char *name, uint32_t *v)
{
	if (*i + 1 >= argc)
		return cli_usage(cli, "%s needs a value", name);
	if (cli_parse_u32(argv[*i + 1], v) < 0 || *v == 0)
		return cli_usage(cli, "%s: not a positive number: %.32s", name, argv[*i + 1]);
	(*i)++;
	return 0;
}

int cmd_sandbox(tg_cli *cli, int argc, char **argv)
{
	tg_sandbox_opts o;
	tg_run_result *res = NULL;
	_cleanup_free_ char *prog = NULL;
	_cleanup_free_ char *in = NULL;
	size_t in_len = 0;
	int i, r, dyn = 0, status;

	memset(&o, 0, sizeof(o));
	if (argc < 2 || strcmp(argv[1], "exec") != 0)
		return cli_usage(cli, "expected 'exec'");
	for (i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (strcmp(a, "--timeout-ms") == 0)
			r = opt_u32(cli, argc, argv, &i, a, &o.timeout_ms);
		else if (strcmp(a, "--memory-mb") == 0)
			r = opt_u32(cli, argc, argv, &i, a, &o.memory_mb);
		else if (strcmp(a, "--output-kb") == 0)
			r = opt_u32(cli, argc, argv, &i, a, &o.output_kb);
		else if (strcmp(a, "--max-procs") == 0)
			r = opt_u32(cli, argc, argv, &i, a, &o.max_procs);
		else if (strcmp(a, "--cpu-percent") == 0)
			r = opt_u32(cli, argc, argv, &i, a, &o.cpu_percent);
		else if (strcmp(a, "--cpu-s") == 0)
			r = opt_u32(cli, argc, argv, &i, a, &o.cpu_s);
		else if (a[0] == '-')
			return cli_usage(cli, "unknown option %.64s", a);
		else
			break; /* PROG without "--" */
		if (r)
			return r;
	}
	if (i >= argc)
		return cli_usage(cli, "no program given");
	if (o.timeout_ms > 600000 || o.memory_mb > 65536 || o.output_kb > 1048576 ||
	    o.max_procs > 1024 || o.cpu_percent > 6400 || o.cpu_s > 600)
		return cli_usage(cli, "limit too large (max 600000 ms, 65536 MB, 1048576 KB, "
				      "1024 processes, 6400 percent, 600 s of CPU)");
	if (find_in_path(&prog, argv[i]) < 0) {
		fprintf(stderr, "toolgate: sandbox: %.200s: not found\n", cli_line(argv[i]));
		return TG_EXIT_USAGE;
	}
	r = tg_sandbox_elf_dynamic(&dyn, prog);
	if (r < 0)
		return cli_fail(r == TG_ERR_NOTFOUND ? TG_ERR_INVALID : r, "sandbox");
	if (!isatty(0)) {
		r = tg_fd_read_all(&in, &in_len, 0, STDIN_MAX);
		if (r < 0)
			return cli_fail(r, "sandbox: stdin");
	}
	o.program = prog;
	o.argv = (const char *const *)(argv + i);
	o.stdin_data = in;
	o.stdin_len = in_len;
	o.dynamic = dyn;
	r = tg_sandbox_run(&res, &o);
	if (r < 0)
		return cli_fail(r, "sandbox");
	if (res->reason == TG_REASON_EXITED)
		status = res->exit_code;
	else if (res->reason == TG_REASON_SETUP)
		status = TG_EXIT_USAGE;
	else
		status = TG_EXIT_VERDICT;
	if (cli->json) {
		_cleanup_json_ json_t *j = NULL;
		r = tg_run_result_to_json(&j, res);
		if (r == 0 && cli_print_json(j) != TG_EXIT_OK)
			status = TG_EXIT_ENV;
		if (r < 0)
			status = cli_fail(r, "sandbox");
	} else {
		fflush(stdout);
		if (res->out_len)
			(void)!fwrite(res->out, 1, res->out_len, stdout);
		fflush(stdout);
		if (res->err_len)
			(void)!fwrite(res->err, 1, res->err_len, stderr);
	}
	if (!res->cgroups)
		fprintf(stderr, "toolgate: sandbox: note: no cgroups here (not root or no "
				"controllers): memory and process limits were rlimits only\n");
	if (o.cpu_percent && !res->cpu_limited)
		fprintf(stderr, "toolgate: sandbox: note: no cgroup cpu controller here: "
				"--cpu-percent was not applied\n");
	if (!res->landlock)
		fprintf(stderr, "toolgate: sandbox: note: no Landlock in this kernel: device nodes "
				"such as /dev/null were writable\n");
	if (!res->timens)
		fprintf(stderr, "toolgate: sandbox: note: no time namespaces in this kernel: the "
				"monotonic and boot clocks showed the host's uptime\n");
	if (res->reason != TG_REASON_EXITED && res->reason != TG_REASON_SETUP) {
		const char *detail = res->syscall[0] ? res->syscall : NULL;
		if (res->reason == TG_REASON_SIGNALED)
			detail = tg_signal_name(res->signal);
		fprintf(stderr, "toolgate: sandbox: killed: %s%s%s\n", tg_reason_name(res->reason),
			detail ? " " : "", detail ? detail : "");
	}
	tg_run_result_free(res);
	return status;
}
