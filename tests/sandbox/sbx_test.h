/*
 * tests/sandbox/sbx_test.h: helpers shared by the sandbox test programs:
 * run an attack program (tests/sandbox/attacks/) through sbx_run_with and
 * check its outcome. Included after cmocka.h; every program that includes
 * it links sbx_test.c.
 */
#ifndef TG_SBX_TEST_H
#define TG_SBX_TEST_H

#define ATTACK(n) SBX_ATTACK_DIR "/attack_" n

/* TG_TEST_SANDBOX_POOL=N (the *_pooled ctest entries): the same tests run
 * against pooled sandboxes (sandbox/pool.c), N made ahead, with ceilings
 * above every limit the tests ask for, so every run that can be pooled is
 * (run_opts checks it was) and its limits are lowered at take-out.
 * sbx_pool_on is one variable per program (sbx_test.c), shared by the
 * program's files; sbx_test_pool_init sets it to N (0: no pool). */
extern int sbx_pool_on;
static const tg_sandbox_opts sbx_pool_ceilings = { .memory_mb = 512, .max_procs = 16,
						   .max_files = 64 };

void sbx_test_pool_init(void);

/* Would this run be served by the pool (when it is on)? */
static inline int sbx_poolable(const tg_sandbox_opts *o, unsigned flags)
{
	return sbx_pool_on && !o->dynamic && !o->workspace && !(flags & SBX_TEST_NO_PTRACE) &&
	       (o->tmp_mb == 0 || o->tmp_mb == 16) && o->memory_mb <= 512 &&
	       o->max_procs <= 16 && o->max_files <= 64;
}

static inline tg_run_result *run_opts(tg_sandbox_opts *o, unsigned flags)
{
	tg_run_result *r = NULL;
	unsigned long before = sbx_pool_served();
	int e = sbx_run_with(&r, o, flags);
	if (e < 0)
		fail_msg("sandbox failed: %s", tg_error_last()->message);
	assert_non_null(r);
	if (sbx_poolable(o, flags) && sbx_pool_served() != before + 1) {
		char why[256];
		tg_sandbox_pool_ready(why, sizeof(why));
		fail_msg("the run did not come from the pool (%s)", why);
	}
	return r;
}

/* Run attack `name` with arguments (NULL-terminated). */
static inline tg_run_result *run_attack(unsigned flags, uint32_t max_procs, const char *name, ...)
{
	const char *argv[8];
	char path[512];
	tg_sandbox_opts o;
	va_list ap;
	int n = 0;

	snprintf(path, sizeof(path), "%s/attack_%s", SBX_ATTACK_DIR, name);
	argv[n++] = name;
	va_start(ap, name);
	while (n < 7 && (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	memset(&o, 0, sizeof(o));
	o.program = path;
	o.argv = argv;
	o.max_procs = max_procs;
	o.timeout_ms = 5000;
	return run_opts(&o, flags);
}

static inline void expect_exit(tg_run_result *r, int code, const char *out)
{
	if (r->reason != TG_REASON_EXITED)
		fail_msg("expected exit, got %s %s (stdout %s, stderr %s)", tg_reason_name(r->reason),
			 r->syscall, r->out, r->err);
	assert_int_equal(r->exit_code, code);
	if (out)
		assert_string_equal(r->out, out);
	tg_run_result_free(r);
}

static inline void expect_seccomp(tg_run_result *r, const char *syscall)
{
	if (r->reason != TG_REASON_SECCOMP)
		fail_msg("expected a seccomp kill (%s), got %s exit %d (stdout %s)", syscall,
			 tg_reason_name(r->reason), r->exit_code, r->out);
	assert_int_equal(r->signal, SIGSYS);
	assert_int_equal(r->exit_code, -1);
	assert_string_equal(r->syscall, syscall);
	assert_null(strstr(r->out, "survived"));
	tg_run_result_free(r);
}

/* Last test of a program: no cgroup folder of this process is left. */
static inline void sandbox_cgroups_cleaned(void **state)
{
	char why[200], prefix[32];
	const char *roots[] = { "/sys/fs/cgroup/memory", "/sys/fs/cgroup/pids" };
	size_t i;

	(void)state;
	tg_sandbox_pool_stop(); /* its entries hold slots */
	if (!tg_sandbox_cgroups(why, sizeof(why))) {
		skip();
		return;
	}
	/* the folders this process keeps for reuse are empty (see
	 * sandbox_cgroup_pool) and go at exit; drop them now to look */
	sbx_cgroup_pool_drain();
	snprintf(prefix, sizeof(prefix), "tg-%d-", (int)getpid());
	for (i = 0; i < TG_ARRAY_SIZE(roots); i++) {
		char cmd[256];
		snprintf(cmd, sizeof(cmd), "find %s -maxdepth 4 -name '%s*' 2>/dev/null | grep -q .",
			 roots[i], prefix);
		assert_int_not_equal(system(cmd), 0);
	}
}

#endif
