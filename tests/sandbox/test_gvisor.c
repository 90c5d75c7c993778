/*
 * tests/sandbox/test_gvisor.c: the gVisor backend (sandbox/gvisor.c)
 * against the native contract: a result comes back with stdin passed
 * through, no socket, a root of /tool, /tmp and gVisor's /dev only, the
 * timeout, the output cap and the memory limit with their reasons, gVisor's
 * uname, a fork refused, what runsc cannot hold refused, the bridge (fd 3)
 * through the shim with no other socket to be had, and runs from
 * four threads at once each with its own exact result. Exits 77
 * (ctest SKIP_RETURN_CODE) with the reason when runsc is absent or cannot
 * run here (tg_sandbox_gvisor_available).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <pthread.h>
#include <errno.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/sandbox.h"

#define ATTACK(n) SBX_ATTACK_DIR "/attack_" n

static tg_run_result *gv_run(tg_sandbox_opts *o, const char *name, const char *arg)
{
	const char *argv[3] = { name, arg, NULL };
	tg_run_result *r = NULL;
	char path[512];

	snprintf(path, sizeof(path), "%s/attack_%s", SBX_ATTACK_DIR, name);
	o->program = path;
	o->argv = argv;
	o->backend = TG_SANDBOX_GVISOR;
	if (tg_sandbox_run(&r, o) < 0)
		fail_msg("gvisor run failed: %s", tg_error_last()->message);
	assert_non_null(r);
	return r;
}

static void gv_result_and_stdin(void **st)
{
	tg_sandbox_opts o = { .stdin_data = "{\"a\":1}", .stdin_len = 7 };
	tg_run_result *r = gv_run(&o, "echo_stdin", NULL);
	(void)st;
	assert_int_equal(r->reason, TG_REASON_EXITED);
	assert_int_equal(r->exit_code, 0);
	assert_non_null(strstr(r->out, "{\"a\":1}"));
	assert_int_equal(r->cgroups, 1);
	tg_run_result_free(r);
}

static void gv_no_network(void **st)
{
	tg_sandbox_opts o = { 0 };
	tg_run_result *r = gv_run(&o, "gvisor_probe", "socket");
	(void)st;
	assert_int_equal(r->reason, TG_REASON_EXITED);
	/* the OCI seccomp rule (gvisor_spec.c): socket and socketpair refused */
	assert_non_null(strstr(r->out, "inet: EPERM\n") ? strstr(r->out, "inet: EPERM\n")
							 : strstr(r->out, "inet: EACCES\n"));
	assert_null(strstr(r->out, ": ok\n"));
	assert_non_null(strstr(r->out, "connect: EBADF\n"));
	tg_run_result_free(r);
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void gv_root_listing(void **st)
{
	static const char *const want =
		"/dev\n/dev/fd\n/dev/full\n/dev/fuse\n/dev/net\n/dev/null\n/dev/ptmx\n"
		"/dev/pts\n/dev/random\n/dev/shm\n/dev/stderr\n/dev/stdin\n/dev/stdout\n"
		"/dev/tty\n/dev/urandom\n/dev/zero\n/proc\n/sys\n/tmp\n/tool\n";
	tg_sandbox_opts o = { 0 };
	tg_run_result *r = gv_run(&o, "gvisor_probe", "ls");
	char *lines[64], *save = NULL, *l, got[2048] = "";
	size_t n = 0, i;
	(void)st;
	assert_int_equal(r->reason, TG_REASON_EXITED);
	for (l = strtok_r(r->out, "\n", &save); l && n < 64; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	qsort(lines, n, sizeof(lines[0]), cmp);
	for (i = 0; i < n; i++) {
		strncat(got, lines[i], sizeof(got) - strlen(got) - 2);
		strcat(got, "\n");
	}
	/* /tmp, /proc and /sys are empty; /dev is gVisor's own (no host node) */
	assert_string_equal(got, want);
	tg_run_result_free(r);
}

static void gv_uname(void **st)
{
	tg_sandbox_opts o = { 0 };
	tg_run_result *r = gv_run(&o, "gvisor_probe", "uname");
	(void)st;
	assert_int_equal(r->reason, TG_REASON_EXITED);
	/* gVisor's answer (runsc 20221219): release 4.4.0, hostname from the spec */
	assert_non_null(strstr(r->out, "Linux|toolgate|4.4.0|#1 SMP Sun Jan 10 15:06:54 PST 2016|x86_64\n"));
	tg_run_result_free(r);
}

static void gv_timeout(void **st)
{
	tg_sandbox_opts o = { .timeout_ms = 1500 };
	tg_run_result *r = gv_run(&o, "sleep_forever", NULL);
	(void)st;
	assert_int_equal(r->reason, TG_REASON_TIMEOUT);
	assert_true(r->wall_ms >= 1500 && r->wall_ms < 5000);
	tg_run_result_free(r);
}

static void gv_output_cap(void **st)
{
	tg_sandbox_opts o = { .output_kb = 64, .timeout_ms = 10000 };
	tg_run_result *r = gv_run(&o, "stdout_flood", NULL);
	(void)st;
	assert_int_equal(r->reason, TG_REASON_OUTPUT_LIMIT);
	assert_int_equal(r->out_len, 64 * 1024);
	tg_run_result_free(r);
}

static void gv_memory(void **st)
{
	tg_sandbox_opts o = { .memory_mb = 64, .timeout_ms = 10000 };
	tg_run_result *r = gv_run(&o, "memory_bomb", NULL);
	(void)st;
	/* the cgroup (64 MB + gVisor's 20 MB) is reached before RLIMIT_AS (384 MB) */
	assert_int_equal(r->reason, TG_REASON_MEMORY);
	tg_run_result_free(r);
}

/* How far a tool gets under a 64 MB limit: the cgroup holds gVisor's
 * processes too (64 + 20 MB), so the tool reaches a little past 64 MB (68 here), and
 * well past what a tool needs below its limit. */
static void gv_memory_reach(void **st)
{
	tg_sandbox_opts o = { .memory_mb = 64, .timeout_ms = 10000, .output_kb = 64 };
	tg_run_result *r = gv_run(&o, "gvisor_probe", "alloc");
	const char *last = r->out, *p;
	int mb = 0;
	(void)st;
	while ((p = strstr(last, "mb=")))
		last = p + 3;
	if (last != r->out)
		mb = atoi(last);
	print_message("gvisor: the tool touched %d MB under memory_mb 64\n", mb);
	assert_int_equal(r->reason, TG_REASON_MEMORY);
	assert_true(mb >= 56 && mb <= 72);
	tg_run_result_free(r);
}

static void gv_fork_refused(void **st)
{
	tg_sandbox_opts o = { 0 };
	tg_run_result *r = gv_run(&o, "fork_bomb", NULL);
	(void)st;
	/* RLIMIT_NPROC = 1, applied by gVisor's kernel: EAGAIN, nothing forked */
	assert_int_equal(r->reason, TG_REASON_EXITED);
	assert_non_null(strstr(r->out, "fork: EAGAIN\n"));
	assert_non_null(strstr(r->out, "forked=0\n"));
	tg_run_result_free(r);
}

/* Attack programs (attacks/) and their outcome under gVisor. */
static void gv_attacks(void **st)
{
	static const char *const killed[] = { "ptrace", "process_vm", "io_uring" };
	tg_sandbox_opts o = { 0 };
	tg_run_result *r;
	size_t i;
	(void)st;
	/* killed by the OCI seccomp rules (SIGSYS, reason seccomp, call unnamed) */
	for (i = 0; i < 3; i++) {
		memset(&o, 0, sizeof(o));
		r = gv_run(&o, killed[i], NULL);
		if (r->reason != TG_REASON_SECCOMP)
			fail_msg("%s: reason %s, out [%s]", killed[i], tg_reason_name(r->reason), r->out);
		assert_null(strstr(r->out, "survived"));
		tg_run_result_free(r);
	}
	/* no host file: /etc, /proc/self, /sys/kernel, /home do not exist */
	memset(&o, 0, sizeof(o));
	r = gv_run(&o, "read_files", NULL);
	assert_string_equal(r->out, "/etc/passwd: ENOENT\n/etc/shadow: ENOENT\n"
				    "/proc/self/status: ENOENT\n/sys/kernel: ENOENT\n/home: ENOENT\n");
	tg_run_result_free(r);
	/* uid 65534, the root read-only, /tmp writable but not executable */
	memset(&o, 0, sizeof(o));
	r = gv_run(&o, "identity", NULL);
	assert_non_null(strstr(r->out, "uid=65534 euid=65534 gid=65534 groups=0\n"));
	assert_non_null(strstr(r->out, "create /x: EACCES\n"));
	assert_non_null(strstr(r->out, "create /tmp/copy: ok\nexec /tmp/copy: EACCES\n"));
	tg_run_result_free(r);
	/* alone in its pid namespace: pid 1, nothing to signal */
	memset(&o, 0, sizeof(o));
	r = gv_run(&o, "kill_all", NULL);
	assert_non_null(strstr(r->out, "kill(-1): ESRCH\n"));
	assert_non_null(strstr(r->out, "pid=1 ppid=0\n"));
	tg_run_result_free(r);
	/* an empty environment */
	memset(&o, 0, sizeof(o));
	r = gv_run(&o, "env_secret", NULL);
	assert_non_null(strstr(r->out, "leak=0"));
	tg_run_result_free(r);
}

/* Runs from threads of one process at once: each gets its own output,
 * exactly (stdin echoed, argv[1] on stderr, argv[2] as the exit code). */
#define GV_PAR 4
struct gv_par {
	int i, rc;
	char in[32], tag[16], code[8], why[1100];
	tg_run_result *r;
};

static void *gv_par_one(void *arg)
{
	struct gv_par *p = arg;
	const char *argv[4] = { "echo_stdin", p->tag, p->code, NULL };
	tg_sandbox_opts o = { .program = ATTACK("echo_stdin"), .argv = argv,
			      .backend = TG_SANDBOX_GVISOR, .timeout_ms = 60000,
			      .stdin_data = p->in, .stdin_len = strlen(p->in) };

	p->rc = tg_sandbox_run(&p->r, &o);
	if (p->rc < 0) /* the error is the thread's own */
		snprintf(p->why, sizeof(p->why), "%s", tg_error_last()->message);
	return NULL;
}

static void gv_concurrent(void **st)
{
	struct gv_par p[GV_PAR];
	pthread_t th[GV_PAR];
	int i;
	(void)st;
	for (i = 0; i < GV_PAR; i++) {
		memset(&p[i], 0, sizeof(p[i]));
		p[i].i = i;
		snprintf(p[i].in, sizeof(p[i].in), "{\"run\":%d}", i);
		snprintf(p[i].tag, sizeof(p[i].tag), "err%d", i);
		snprintf(p[i].code, sizeof(p[i].code), "%d", 10 + i);
		assert_int_equal(pthread_create(&th[i], NULL, gv_par_one, &p[i]), 0);
	}
	for (i = 0; i < GV_PAR; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	for (i = 0; i < GV_PAR; i++) {
		char want_err[24];
		if (p[i].rc < 0)
			fail_msg("run %d: %s", i, p[i].why);
		snprintf(want_err, sizeof(want_err), "err%d\n", i);
		if (p[i].r->reason != TG_REASON_EXITED || strcmp(p[i].r->out, p[i].in) != 0 ||
		    strcmp(p[i].r->err, want_err) != 0 || p[i].r->exit_code != 10 + i)
			fail_msg("run %d: reason %s code %d out [%s] err [%s] wall %llu ms", i,
				 tg_reason_name(p[i].r->reason), p[i].r->exit_code, p[i].r->out,
				 p[i].r->err, (unsigned long long)p[i].r->wall_ms);
		tg_run_result_free(p[i].r);
	}
}

static void gv_refusals(void **st)
{
	tg_sandbox_opts o = { .program = ATTACK("echo_stdin"), .backend = TG_SANDBOX_GVISOR };
	tg_run_result *r = NULL;
	(void)st;
	o.max_procs = 4;
	assert_int_equal(tg_sandbox_run(&r, &o), TG_ERR_UNAVAILABLE);
	o.max_procs = 0;
	o.workspace = "/tmp";
	assert_int_equal(tg_sandbox_run(&r, &o), TG_ERR_UNAVAILABLE);
	assert_null(r);
}

/* The bridge (fd 3) under gVisor as natively: the shim's socket relayed to
 * fd 3, its ready byte not passed on; the tool can open no other socket
 * (EACCES, the shim's own filter), has nothing at fd 4, and connect or
 * sendmsg kill it (reason seccomp). Each case runs on both backends. */
static tg_run_result *gv_bridged(tg_sandbox_backend be, const char *arg, char *got, size_t n)
{
	const char *argv[3] = { "bridge_socket", arg, NULL };
	tg_sandbox_opts o = { .timeout_ms = 20000, .program = ATTACK("bridge_socket"),
			      .argv = argv, .backend = be };
	tg_run_result *r = NULL;
	int sp[2];
	ssize_t k;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	assert_int_equal(write(sp[0], "pong\n", 5), 5);
	o.fd3 = sp[1];
	if (tg_sandbox_run(&r, &o) < 0)
		fail_msg("bridged run failed: %s", tg_error_last()->message);
	close(sp[1]);
	k = read(sp[0], got, n - 1);
	got[k > 0 ? k : 0] = '\0';
	close(sp[0]);
	return r;
}

static void gv_bridge(void **st)
{
	static const char *const args[] = { NULL, "connect", "sendmsg" };
	static const tg_reason want[] = { TG_REASON_EXITED, TG_REASON_SECCOMP, TG_REASON_SECCOMP };
	const char *out = "ping: ok\ngot=pong\nunix: EACCES\ninet: EACCES\n"
			  "socketpair: EACCES\nfd4: EBADF\n";
	size_t i, b;
	(void)st;
	for (i = 0; i < 3; i++)
		for (b = 0; b < 2; b++) {
			char got[64];
			tg_run_result *r = gv_bridged(b ? TG_SANDBOX_GVISOR : TG_SANDBOX_NATIVE,
						      args[i], got, sizeof(got));
			if (r->reason != want[i] || strcmp(r->out, out) != 0 ||
			    strcmp(got, "ping\n") != 0)
				fail_msg("%s %s: reason %s out [%s] err [%s] fd 3 got [%s]",
					 b ? "gvisor" : "native", args[i] ? args[i] : "-",
					 tg_reason_name(r->reason), r->out, r->err, got);
			tg_run_result_free(r);
		}
}

/* The bridge's end shut before the run: bridge_protocol, as natively. */
static void gv_bridge_hangup(void **st)
{
	int sp[2];
	tg_sandbox_opts o = { .timeout_ms = 20000 };
	tg_run_result *r;
	(void)st;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	close(sp[0]);
	o.fd3 = sp[1];
	r = gv_run(&o, "sleep_forever", NULL);
	close(sp[1]);
	assert_int_equal(r->reason, TG_REASON_BRIDGE_PROTOCOL);
	tg_run_result_free(r);
}

/* The bridge's socket path must fit a unix address: refused, not cut. */
static void gv_bridge_long_path(void **st)
{
	char dir[160], *old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	int sp[2];
	tg_sandbox_opts o = { .program = ATTACK("echo_stdin"), .backend = TG_SANDBOX_GVISOR };
	tg_run_result *r = NULL;
	(void)st;
	snprintf(dir, sizeof(dir), "/tmp/tg-gv-%0100d", 0);
	assert_true(mkdir(dir, 0700) == 0 || errno == EEXIST);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	o.fd3 = sp[1];
	setenv("TMPDIR", dir, 1);
	assert_int_equal(tg_sandbox_run(&r, &o), TG_ERR_UNAVAILABLE);
	if (old)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	free(old);
	assert_null(r);
	assert_non_null(strstr(tg_error_last()->message, "gvisor: the bridge's socket path is too long"));
	close(sp[0]);
	close(sp[1]);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gv_result_and_stdin), cmocka_unit_test(gv_no_network),
		cmocka_unit_test(gv_root_listing),     cmocka_unit_test(gv_uname),
		cmocka_unit_test(gv_timeout),          cmocka_unit_test(gv_output_cap),
		cmocka_unit_test(gv_memory),           cmocka_unit_test(gv_memory_reach),
		cmocka_unit_test(gv_fork_refused),
		cmocka_unit_test(gv_attacks),          cmocka_unit_test(gv_refusals),
		cmocka_unit_test(gv_concurrent),
		cmocka_unit_test(gv_bridge),           cmocka_unit_test(gv_bridge_hangup),
		cmocka_unit_test(gv_bridge_long_path),
	};
	uint64_t ms = 0;
	char plat[8];

	if (tg_sandbox_gvisor_available(&ms, plat, sizeof(plat)) < 0) {
		printf("SKIP: gVisor cannot run here: %s\n", tg_error_last()->message);
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
