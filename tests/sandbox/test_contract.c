/*
 * tests/sandbox/test_contract.c: the seccomp filter as the contract of a
 * tool run (issue 12). A tool can reach any allowed syscall from a ROP
 * chain, so each case runs a real program through the real sandbox and
 * compares what it sees with the host's value: uname and sysinfo answer
 * with the sandbox's own values, the clocks start near 0, the CPU set and
 * times() fail with ENOSYS, device nodes refuse writes (EACCES), /tool
 * is a file of the run's own (not the host's device, inode or times),
 * every rlimit has its documented value, nothing
 * becomes executable after exec (killed at mmap/mprotect/pkey_mprotect), a
 * crash ends at once as "signaled" with its signal, and a program given
 * through a symlink runs.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "sbx_test.h"

/* The value after "key=" in out (up to a space or newline), or "". */
static const char *field(const char *out, const char *key, char *buf, size_t n)
{
	char pat[64];
	const char *p;
	size_t k = 0;

	snprintf(pat, sizeof(pat), "%s=", key);
	p = strstr(out, pat);
	buf[0] = '\0';
	if (!p)
		return buf;
	p += strlen(pat);
	while (p[k] && p[k] != ' ' && p[k] != '\n' && k + 1 < n) {
		buf[k] = p[k];
		k++;
	}
	buf[k] = '\0';
	return buf;
}

/* 1 when out holds this whole line. */
static int has_line(const char *out, const char *line)
{
	char pat[160];
	snprintf(pat, sizeof(pat), "%s\n", line);
	if (strncmp(out, pat, strlen(pat)) == 0)
		return 1;
	snprintf(pat, sizeof(pat), "\n%s\n", line);
	return strstr(out, pat) != NULL;
}

/* ---- host facts ---------------------------------------------------------- */

static void contract_host_facts(void **state)
{
	struct utsname host;
	struct sysinfo hsi;
	struct timespec mono, boot;
	char b[128];
	tg_run_result *r;

	(void)state;
	assert_int_equal(uname(&host), 0);
	assert_int_equal(sysinfo(&hsi), 0);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	r = run_attack(0, 0, "host_facts", NULL);
	assert_int_equal(r->reason, TG_REASON_EXITED);
	if (sbx_gvisor_on) {
		/* gVisor's kernel answers them all itself (no tracer): its own
		 * uname and clocks from 0, its CPU set and times(); but sysinfo's
		 * totalram is the host's RAM (a fact the native run hides), and its
		 * /dev nodes (its own, not the host's) take writes */
		unsigned long long host_ram = (unsigned long long)hsi.totalram * hsi.mem_unit;
		assert_true(has_line(r->out, "uname: ok"));
		assert_string_equal(field(r->out, "release", b, sizeof(b)), "4.4.0");
		assert_string_equal(field(r->out, "nodename", b, sizeof(b)), "toolgate");
		assert_string_equal(field(r->out, "hostname", b, sizeof(b)), "toolgate");
		assert_true(has_line(r->out, "sysinfo: ok"));
		assert_true(atol(field(r->out, "uptime", b, sizeof(b))) <= 5);
		assert_string_equal(field(r->out, "procs", b, sizeof(b)), "1");
		assert_int_equal(strtoull(field(r->out, "totalram", b, sizeof(b)), NULL, 10), host_ram);
		assert_true(atol(field(r->out, "monotonic", b, sizeof(b))) <= 5);
		assert_true(atol(field(r->out, "boottime", b, sizeof(b))) <= 5);
		assert_true(has_line(r->out, "sched_getaffinity: ok"));
		assert_true(has_line(r->out, "times: ok"));
		assert_true(has_line(r->out, "open /proc/self/stat: ENOENT"));
		assert_true(has_line(r->out, "write /dev/null: ok"));
		assert_true(has_line(r->out, "write /dev/zero: ok"));
		assert_true(has_line(r->out, "read /dev/urandom: ok"));
		assert_true(has_line(r->out, "create /tmp/x: ok"));
		tg_run_result_free(r);
		return;
	}
	/* uname: the sandbox's own answer, not the host's release or name */
	assert_true(has_line(r->out, "uname: ok"));
	assert_string_equal(field(r->out, "release", b, sizeof(b)), "0.0.0-toolgate");
	assert_string_not_equal(b, host.release);
	assert_string_equal(field(r->out, "nodename", b, sizeof(b)), "toolgate");
	assert_string_equal(field(r->out, "hostname", b, sizeof(b)), "toolgate");
	/* sysinfo: the run's own uptime, one process, the memory limit */
	assert_true(has_line(r->out, "sysinfo: ok"));
	assert_true(atol(field(r->out, "uptime", b, sizeof(b))) <= 5);
	assert_string_equal(field(r->out, "procs", b, sizeof(b)), "1");
	assert_string_equal(field(r->out, "totalram", b, sizeof(b)), "67108864"); /* 64 MiB */
	assert_true(strtoul(b, NULL, 10) != hsi.totalram * hsi.mem_unit);
	assert_string_equal(field(r->out, "loads", b, sizeof(b)), "0");
	/* clocks: near 0 in the run's time namespace, whatever the host's uptime */
	assert_int_equal(r->timens, sbx_timens_available());
	if (r->timens) {
		assert_true(atol(field(r->out, "monotonic", b, sizeof(b))) <= 5);
		assert_true(atol(field(r->out, "boottime", b, sizeof(b))) <= 5);
		if (boot.tv_sec > 60) /* the host's boot clock is far from it */
			assert_true(atol(b) < boot.tv_sec - 30);
	}
	/* the CPU set and clock ticks since the host's boot: a clean ENOSYS */
	assert_true(has_line(r->out, "sched_getaffinity: ENOSYS"));
	assert_true(has_line(r->out, "times: ENOSYS"));
	assert_true(has_line(r->out, "nprocs=ok")); /* glibc's fallback still answers */
	assert_true(has_line(r->out, "open /proc/self/stat: ENOENT"));
	/* device nodes: readable, never writable (Landlock) */
	assert_int_equal(r->landlock, sbx_landlock_abi() > 0);
	if (r->landlock) {
		assert_true(has_line(r->out, "write /dev/null: EACCES"));
		assert_true(has_line(r->out, "write /dev/zero: EACCES"));
		assert_true(has_line(r->out, "write /dev/urandom: EACCES"));
	}
	assert_true(has_line(r->out, "read /dev/null: ok"));
	assert_true(has_line(r->out, "read /dev/urandom: ok"));
	assert_true(has_line(r->out, "create /tmp/x: ok"));
	tg_run_result_free(r);
}

/* Without a tracer the calls the supervisor answers fail with ENOSYS. */
static void contract_host_facts_untraced(void **state)
{
	tg_run_result *r;

	(void)state;
	SBX_NATIVE_ONLY("the calls its tracer answers (gVisor has its own kernel, no tracer)");
	r = run_attack(SBX_TEST_NO_PTRACE, 0, "host_facts", NULL);
	assert_int_equal(r->reason, TG_REASON_EXITED);
	assert_true(has_line(r->out, "uname: ENOSYS"));
	assert_true(has_line(r->out, "gethostname: ENOSYS"));
	assert_true(has_line(r->out, "sysinfo: ENOSYS"));
	tg_run_result_free(r);
}

/* /tool carries the run's values only: a file of the run's own tmpfs (not
 * the host file's device or inode), mode 0555, times 0 (not the build's).
 * A pooled run has no /tool (the program is a descriptor). */
static void contract_tool_stat(void **state)
{
	struct stat host;
	char b[64], want[64];
	tg_run_result *r;

	(void)state;
	assert_int_equal(stat(ATTACK("host_facts"), &host), 0);
	r = run_attack(0, 0, "host_facts", NULL);
	assert_int_equal(r->reason, TG_REASON_EXITED);
	if (sbx_pool_on) {
		assert_true(has_line(r->out, "stat /tool: ENOENT"));
		tg_run_result_free(r);
		return;
	}
	if (sbx_gvisor_on) {
		/* gVisor: /tool is the bundle's copy seen through its gofer: not
		 * the host file's inode, mode 0555, but the copy's own times */
		snprintf(want, sizeof(want), "%llu", (unsigned long long)host.st_ino);
		assert_string_not_equal(field(r->out, "tool_ino", b, sizeof(b)), want);
		assert_string_equal(field(r->out, "tool_mode", b, sizeof(b)), "100555");
		assert_true(atoll(field(r->out, "tool_mtime", b, sizeof(b))) >= (long long)host.st_mtime);
		tg_run_result_free(r);
		return;
	}
	snprintf(want, sizeof(want), "%u:%u", major(host.st_dev), minor(host.st_dev));
	assert_string_not_equal(field(r->out, "tool_dev", b, sizeof(b)), want);
	assert_int_equal(strncmp(b, "0:", 2), 0); /* an anonymous device: the tmpfs */
	snprintf(want, sizeof(want), "%llu", (unsigned long long)host.st_ino);
	assert_string_not_equal(field(r->out, "tool_ino", b, sizeof(b)), want);
	assert_string_equal(b, "2"); /* the first file of the run's root */
	assert_true(host.st_mtime != 0);
	assert_string_equal(field(r->out, "tool_mtime", b, sizeof(b)), "0");
	assert_string_equal(field(r->out, "tool_atime", b, sizeof(b)), "0");
	assert_string_equal(field(r->out, "tool_mode", b, sizeof(b)), "100555");
	tg_run_result_free(r);
}

/* Every rlimit the tool can read has its documented value (docs/SANDBOX.md,
 * "Limits"), none the supervisor's: RLIMIT_SIGPENDING, for one, is derived
 * by the kernel from the host's RAM. run_attack: timeout 5 s, memory
 * 64 MB, /tmp 16 MB, 1 process, 32 files. */
static void contract_rlimits(void **state)
{
	const unsigned long long mb = 1ull << 20;
	unsigned long long as;
	struct rlimit host;
	char b[64], key[32], want[64], bad[1024] = "";
	tg_run_result *r;
	int i;

	(void)state;
	r = run_attack(0, 0, "host_facts", NULL);
	assert_int_equal(r->reason, TG_REASON_EXITED);
	as = r->cgroups ? (64 * 2 + 256) * mb : (64 + 32) * mb;
	{
		const unsigned long long v[RLIM_NLIMITS] = {
			[RLIMIT_CPU] = 6, [RLIMIT_FSIZE] = 16 * mb, [RLIMIT_DATA] = as,
			[RLIMIT_STACK] = 8 * mb, [RLIMIT_CORE] = 0, [RLIMIT_RSS] = 64 * mb,
			[RLIMIT_NPROC] = 1, [RLIMIT_NOFILE] = 32, [RLIMIT_MEMLOCK] = 0,
			[RLIMIT_AS] = as, [RLIMIT_LOCKS] = 0, [RLIMIT_SIGPENDING] = 128,
			[RLIMIT_MSGQUEUE] = 0, [RLIMIT_NICE] = 0, [RLIMIT_RTPRIO] = 0,
			[RLIMIT_RTTIME] = 1000000,
		};
		for (i = 0; i < RLIM_NLIMITS; i++) {
			snprintf(key, sizeof(key), "rlimit%d", i);
			snprintf(want, sizeof(want), "%llu/%llu", v[i], v[i]);
			field(r->out, key, b, sizeof(b));
			if (strcmp(b, want) != 0) {
				snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
					 " %s=%s (want %s)", key, b, want);
			}
		}
	}
	if (bad[0])
		fail_msg("rlimits:%s", bad);
	/* the host's own value differs (it is derived from its RAM) */
	assert_int_equal(getrlimit(RLIMIT_SIGPENDING, &host), 0);
	assert_true(host.rlim_cur != 128);
	assert_true(has_line(r->out, "sigqueue_max=128 child_max=1 open_max=32"));
	assert_true(has_line(r->out, "umask=022"));
	tg_run_result_free(r);
}

/* ---- W^X after exec ------------------------------------------------------ */

static void contract_wx(void **state)
{
	(void)state;
	expect_seccomp(run_attack(0, 0, "wx", "mmap_rx", NULL), "mmap");
	expect_seccomp(run_attack(0, 0, "wx", "mmap_x", NULL), "mmap");
	expect_seccomp(run_attack(0, 0, "wx", "mprotect_rx", NULL), "mprotect");
	expect_seccomp(run_attack(0, 0, "wx", "pkey_mprotect", NULL), "pkey_mprotect");
	/* a non-executable change still works */
	expect_exit(run_attack(0, 0, "wx", "mprotect_r", NULL), 0,
		    "mprotect(PROT_READ): ok\nsurvived\n");
}

/* ---- crashes end at once ------------------------------------------------- */

static void expect_crash(const char *how, int sig, const char *name)
{
	tg_sandbox_opts o;
	const char *argv[] = { "crash", how, NULL };
	tg_run_result *r;

	memset(&o, 0, sizeof(o));
	o.program = ATTACK("crash");
	o.argv = argv;
	o.timeout_ms = 10000;
	r = run_opts(&o, 0);
	if (r->reason != TG_REASON_SIGNALED || r->signal != sig)
		fail_msg("%s: expected signaled %s, got %s signal %d after %llu ms", how, name,
			 tg_reason_name(r->reason), r->signal, (unsigned long long)r->wall_ms);
	assert_int_equal(r->exit_code, -1);
	assert_string_equal(tg_signal_name(r->signal), name);
	assert_true(r->wall_ms < o.timeout_ms / 2);
	tg_run_result_free(r);
}

static void contract_crash_segv(void **s) { (void)s; expect_crash("segv", SIGSEGV, "SIGSEGV"); }
static void contract_crash_bus(void **s) { (void)s; expect_crash("bus", SIGBUS, "SIGBUS"); }
static void contract_crash_ill(void **s) { (void)s; expect_crash("ill", SIGILL, "SIGILL"); }
static void contract_crash_fpe(void **s) { (void)s; expect_crash("fpe", SIGFPE, "SIGFPE"); }
static void contract_crash_abort(void **s) { (void)s; expect_crash("abort", SIGABRT, "SIGABRT"); }
static void contract_crash_assert(void **s) { (void)s; expect_crash("assert", SIGABRT, "SIGABRT"); }
static void contract_crash_stack(void **s) { (void)s; expect_crash("stack", SIGSEGV, "SIGSEGV"); }
static void contract_crash_term(void **s) { (void)s; expect_crash("term_self", SIGTERM, "SIGTERM"); }

/* A handled or ignored signal is the tool's business: it goes on. */
static void contract_crash_handled(void **state)
{
	(void)state;
	expect_exit(run_attack(0, 0, "crash", "segv_handled", NULL), 7, "");
	expect_exit(run_attack(0, 0, "crash", "usr1_ignored", NULL), 0, "survived\n");
}

static void contract_crash_json(void **state)
{
	tg_run_result *r;
	json_t *j = NULL;

	(void)state;
	r = run_attack(0, 0, "crash", "segv", NULL);
	assert_int_equal(tg_run_result_to_json(&j, r), 0);
	assert_string_equal(json_string_value(json_object_get(j, "reason")), "signaled");
	assert_int_equal(json_integer_value(json_object_get(j, "signal")), SIGSEGV);
	assert_string_equal(json_string_value(json_object_get(j, "signal_name")), "SIGSEGV");
	json_decref(j);
	tg_run_result_free(r);
	assert_null(tg_signal_name(0));
	assert_string_equal(tg_signal_name(34), "SIGRTMIN");
	assert_string_equal(tg_signal_name(64), "SIGRTMAX");
}

/* ---- a program given through a symlink (relative target) ----------------- */

static void contract_symlink(void **state)
{
	char dir[] = "/tmp/tg-contract-XXXXXX", link[600], target[600];
	tg_sandbox_opts o;
	tg_run_result *r;
	const char *argv[] = { "echo_stdin", "x", "0", NULL };

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(target, sizeof(target), "%s/prog", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	{
		char cmd[1400];
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", ATTACK("echo_stdin"), target);
		assert_int_equal(system(cmd), 0);
	}
	assert_int_equal(symlink("prog", link), 0); /* relative, like /bin/sh -> dash */
	memset(&o, 0, sizeof(o));
	o.program = link;
	o.argv = argv;
	o.stdin_data = "via link";
	o.stdin_len = 8;
	r = run_opts(&o, 0);
	unlink(link);
	unlink(target);
	rmdir(dir);
	expect_exit(r, 0, "via link");
}

/* ---- pooled entries: their clocks and their age -------------------------- */

static int pool_first_pid(int *pid)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if (sbx_pool_test_pids(pid, 1) == 1)
			return 1;
		usleep(10000);
	}
	return 0;
}

static int gone(int pid)
{
	int i;

	for (i = 0; i < 1000 && kill(pid, 0) == 0; i++)
		usleep(10000);
	return kill(pid, 0) < 0 && errno == ESRCH;
}

/* A pooled entry's clocks start when it is made (the waiter's exec
 * freezes its time namespace's offsets), so an entry older than the pool's
 * bound is not used: it is discarded and the run takes a fresh one, whose
 * tool sees its clocks near 0. The refill thread replaces an entry before
 * it gets that old. Bounds shortened by a test knob (defaults 5 s, 3 s). */
static void contract_pool_age(void **state)
{
	struct timespec nap = { 1, 200000000 };
	unsigned long served, stale;
	tg_run_result *r;
	char b[64];
	int p1, p2 = 0, i;

	(void)state;
	SBX_NATIVE_ONLY("the pool of native sandboxes");
	tg_sandbox_pool_stop();
	sbx_pool_test_ages(300, UINT32_MAX); /* not used past 0.3 s; no refresh */
	assert_int_equal(tg_sandbox_pool_start(1, &sbx_pool_ceilings), 0);
	assert_true(pool_first_pid(&p1));
	nanosleep(&nap, NULL); /* p1 is 1.2 s old now */
	assert_int_equal(kill(p1, 0), 0);
	served = sbx_pool_served();
	stale = sbx_pool_stale();
	r = run_attack(0, 0, "host_facts", NULL);
	assert_int_equal(r->reason, TG_REASON_EXITED);
	assert_int_equal(sbx_pool_served(), served + 1);
	assert_int_equal(sbx_pool_stale(), stale + 1);
	if (r->timens) {
		assert_true(atol(field(r->out, "monotonic", b, sizeof(b))) <= 5);
		/* from an entry made after p1 aged, not from p1 */
		assert_true(atol(field(r->out, "monotonic_ms", b, sizeof(b))) < 1200);
	}
	tg_run_result_free(r);
	assert_true(gone(p1));

	/* refreshed at 0.3 s: another child takes its place, p1 goes */
	sbx_pool_test_ages(0, 300);
	assert_true(pool_first_pid(&p1));
	for (i = 0; i < 1000; i++) {
		if (sbx_pool_test_pids(&p2, 1) == 1 && p2 != p1)
			break;
		usleep(10000);
	}
	assert_int_not_equal(p2, p1);
	assert_true(gone(p1));
	assert_int_equal(sbx_pool_stale(), stale + 1); /* replaced, not found stale */
	tg_sandbox_pool_stop();
	sbx_pool_test_ages(0, 0);
	if (sbx_pool_on)
		assert_int_equal(tg_sandbox_pool_start(2, &sbx_pool_ceilings), 0);
}

/* An idle pool holds nothing: after the idle bound (shortened by a test
 * knob; 60 s by default) without a run the refill thread drops its ready
 * entries and makes none, also as they would age; the next run wakes it,
 * is served from the pool, and the pool fills again. */
static void contract_pool_idle(void **state)
{
	unsigned long served;
	tg_run_result *r;
	int p1, p2 = 0, i;

	(void)state;
	SBX_NATIVE_ONLY("the pool of native sandboxes");
	tg_sandbox_pool_stop();
	sbx_pool_test_ages(0, 200); /* replaced every 0.2 s while not idle */
	sbx_pool_test_idle(600);
	assert_int_equal(tg_sandbox_pool_start(2, &sbx_pool_ceilings), 0);
	assert_true(pool_first_pid(&p1));
	for (i = 0; i < 500 && tg_sandbox_pool_ready(NULL, 0) != 0; i++)
		usleep(10000);
	assert_int_equal(tg_sandbox_pool_ready(NULL, 0), 0);
	assert_true(gone(p1));
	usleep(800000); /* four refresh periods: nothing made while idle */
	assert_int_equal(tg_sandbox_pool_ready(NULL, 0), 0);
	assert_int_equal(sbx_pool_test_pids(&p2, 1), 0);
	/* the next run wakes it and is served from the pool */
	sbx_pool_test_idle(0);
	served = sbx_pool_served();
	r = run_attack(0, 0, "host_facts", NULL);
	assert_int_equal(r->reason, TG_REASON_EXITED);
	assert_int_equal(sbx_pool_served(), served + 1);
	tg_run_result_free(r);
	for (i = 0; i < 500 && tg_sandbox_pool_ready(NULL, 0) < 2; i++)
		usleep(10000);
	assert_int_equal(tg_sandbox_pool_ready(NULL, 0), 2);
	tg_sandbox_pool_stop();
	sbx_pool_test_ages(0, 0);
	if (sbx_pool_on)
		assert_int_equal(tg_sandbox_pool_start(2, &sbx_pool_ceilings), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(contract_host_facts),
		cmocka_unit_test(contract_host_facts_untraced),
		cmocka_unit_test(contract_tool_stat),
		cmocka_unit_test(contract_rlimits),
		cmocka_unit_test(contract_wx),
		cmocka_unit_test(contract_crash_segv),
		cmocka_unit_test(contract_crash_bus),
		cmocka_unit_test(contract_crash_ill),
		cmocka_unit_test(contract_crash_fpe),
		cmocka_unit_test(contract_crash_abort),
		cmocka_unit_test(contract_crash_assert),
		cmocka_unit_test(contract_crash_stack),
		cmocka_unit_test(contract_crash_term),
		cmocka_unit_test(contract_crash_handled),
		cmocka_unit_test(contract_crash_json),
		cmocka_unit_test(contract_symlink),
		cmocka_unit_test(contract_pool_age),
		cmocka_unit_test(contract_pool_idle),
		cmocka_unit_test(sandbox_cgroups_cleaned),
	};
	sbx_test_pool_init();
	if (getenv("TG_TEST_FILTER"))
		cmocka_set_test_filter(getenv("TG_TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
