/*
 * bench/sandbox/exec.c: `bench_sandbox_exec PROG [ARG...]`: what `toolgate
 * sandbox exec` does for a static program (defaults, no stdin), in an
 * executable that links only the sandbox and common modules. The benchmark
 * runs it next to `toolgate sandbox exec` to separate the sandbox's own cost
 * from the start-up of the full toolgate binary (all modules' libraries).
 */
#include "sandbox/sandbox.h"

#include <string.h>

int main(int argc, char **argv)
{
	tg_sandbox_opts o;
	tg_run_result *r = NULL;
	int code;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_sandbox_exec PROG [ARG...]\n");
		return 2;
	}
	memset(&o, 0, sizeof(o));
	o.program = argv[1];
	o.argv = (const char *const *)(argv + 1);
	if (tg_sandbox_run(&r, &o) < 0) {
		fprintf(stderr, "bench_sandbox_exec: %s\n", tg_error_last()->message);
		return 3;
	}
	fwrite(r->out, 1, r->out_len, stdout);
	fwrite(r->err, 1, r->err_len, stderr);
	code = r->reason == TG_REASON_EXITED ? r->exit_code : 1;
	tg_run_result_free(r);
	return code;
}
