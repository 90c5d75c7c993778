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

/* Two runs at once of one attack program (argv[0] its name, argv[1] each
 * run's name: a and b), each from a thread of its own (the shared network
 * namespace, the prepared mount tree): both are run (rc 0), and they
 * overlapped (the last line of each one's stderr: its start and end,
 * CLOCK_REALTIME ms). The results go to *ra and *rb. */
void sbx_run_pair(const char *program, const char *name, const char *arg2, tg_run_result **ra,
		  tg_run_result **rb);

/* TG_TEST_SANDBOX_BACKEND=gvisor (the *_gvisor ctest entries): every run
 * of the program goes to the gVisor backend (sandbox/gvisor.c); the cases
 * gVisor answers differently say so (sbx_gvisor_on ? ... : ...). A run with
 * what gVisor refuses (sbx_gvisor_refused) is asserted refused, naming
 * gvisor, and the case is skipped there. sbx_test_pool_init sets it (and
 * exits 77 with the reason when runsc cannot run here). */
extern int sbx_gvisor_on;

/* What gvisor.c refuses (gv_refuse) rather than weakens; NULL: it runs. */
static inline const char *sbx_gvisor_refused(const tg_sandbox_opts *o)
{
	return o->fd3 > 0 ? "bridged calls (fd 3)"
	       : o->workspace ? "a workspace cannot be bound"
	       : o->dynamic ? "dynamic programs"
	       : o->max_procs > 1 ? "threads (max_procs > 1)"
	       : o->cpu_s ? "CPU-seconds limit (cpu_s)"
	       : NULL;
}

/* Under gVisor: a case that tests what the native sandbox alone has (the
 * pool, its tracer, its filter's named kills) says so and is skipped. */
#define SBX_NATIVE_ONLY(why)                                                  \
	do {                                                                  \
		if (sbx_gvisor_on) {                                          \
			print_message("native only: %s\n", why);              \
			skip();                                               \
		}                                                             \
	} while (0)

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
	const char *refused = sbx_gvisor_on ? sbx_gvisor_refused(o) : NULL;
	int e;

	if (sbx_gvisor_on)
		o->backend = TG_SANDBOX_GVISOR;
	e = sbx_run_with(&r, o, flags);
	if (refused) {
		assert_int_equal(e, TG_ERR_UNAVAILABLE);
		assert_null(r);
		if (!strstr(tg_error_last()->message, "gvisor: ") ||
		    !strstr(tg_error_last()->message, refused))
			fail_msg("refused for another reason: %s", tg_error_last()->message);
		print_message("refused under gVisor, as it must be: %s\n", tg_error_last()->message);
		skip();
	}
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

/* The calls gVisor's OCI seccomp rules kill (gvisor_spec.c: killed_calls
 * and, with PROT_EXEC, wx_rule): SIGSYS, reason seccomp, the call unnamed
 * (runsc does not say which). Any other call the native filter kills is
 * answered by gVisor's own kernel: the tool goes on, the host kernel never
 * sees the call. */
static inline int sbx_gvisor_kills(const char *syscall)
{
	static const char *const killed[] = {
		"", "ptrace", "process_vm_readv", "process_vm_writev", "io_uring_setup",
		"io_uring_enter", "io_uring_register", "unshare", "setns", "mount", "umount2",
		"pivot_root", "chroot", "bpf", "perf_event_open", "keyctl", "add_key",
		"request_key", "userfaultfd", "mmap", "mprotect", "pkey_mprotect",
	};
	size_t i;

	for (i = 0; i < sizeof(killed) / sizeof(killed[0]); i++)
		if (strcmp(killed[i], syscall) == 0)
			return 1;
	return 0;
}

static inline void expect_seccomp(tg_run_result *r, const char *syscall)
{
	if (sbx_gvisor_on && !sbx_gvisor_kills(syscall)) {
		if (r->reason != TG_REASON_EXITED)
			fail_msg("gVisor: %s: expected its kernel to answer, got %s (stdout %s)",
				 syscall, tg_reason_name(r->reason), r->out);
		print_message("gVisor's kernel answers %s: exit %d, stdout [%s]\n", syscall,
			      r->exit_code, r->out);
		tg_run_result_free(r);
		return;
	}
	if (sbx_gvisor_on) {
		if (r->reason != TG_REASON_SECCOMP)
			fail_msg("gVisor: expected a seccomp kill (%s), got %s exit %d (stdout %s)",
				 syscall, tg_reason_name(r->reason), r->exit_code, r->out);
		assert_int_equal(r->signal, SIGSYS);
		assert_string_equal(r->syscall, ""); /* not named */
		assert_null(strstr(r->out, "survived"));
		tg_run_result_free(r);
		return;
	}
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
