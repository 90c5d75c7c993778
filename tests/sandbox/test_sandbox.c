/*
 * tests/sandbox/test_sandbox.c: the attack corpus. Each case runs a real
 * attack program (tests/sandbox/attacks/) through tg_sandbox_run and
 * asserts the exact outcome: the reason and syscall name of a kill, or the
 * errno the program saw inside, and where it matters what the host saw
 * (a listener that receives nothing, a host process that survives, a
 * sandbox that dies with its supervisor). Some cases run a second time with
 * seccomp off (SBX_TEST_NO_SECCOMP) to show that namespaces and mounts
 * hold on their own, as if the filter missed the call.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

#include <setjmp.h>
#include <cmocka.h>

#define ATTACK(n) SBX_ATTACK_DIR "/attack_" n

static tg_run_result *run_opts(tg_sandbox_opts *o, unsigned flags)
{
	tg_run_result *r = NULL;
	int e = sbx_run_with(&r, o, flags);
	if (e < 0)
		fail_msg("sandbox failed: %s", tg_error_last()->message);
	assert_non_null(r);
	return r;
}

/* Run attack `name` with arguments (NULL-terminated). */
static tg_run_result *run_attack(unsigned flags, uint32_t max_procs, const char *name, ...)
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

static void expect_exit(tg_run_result *r, int code, const char *out)
{
	if (r->reason != TG_REASON_EXITED)
		fail_msg("expected exit, got %s %s (stdout %s, stderr %s)", tg_reason_name(r->reason),
			 r->syscall, r->out, r->err);
	assert_int_equal(r->exit_code, code);
	if (out)
		assert_string_equal(r->out, out);
	tg_run_result_free(r);
}

static void expect_seccomp(tg_run_result *r, const char *syscall)
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

/* ---- sanity: the sandbox runs programs and passes data ------------------ */

static void sandbox_stdio_and_exit(void **state)
{
	static const char *const argv[] = { "echo_stdin", "to stderr", "7", NULL };
	tg_sandbox_opts o;
	tg_run_result *r;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.program = ATTACK("echo_stdin");
	o.argv = argv;
	o.stdin_data = "hello\0world";
	o.stdin_len = 11;
	r = run_opts(&o, 0);
	assert_int_equal(r->reason, TG_REASON_EXITED);
	assert_int_equal(r->out_len, 11);
	assert_memory_equal(r->out, "hello\0world", 11);
	assert_string_equal(r->err, "to stderr\n");
	assert_int_equal(r->signal, 0);
	assert_true(r->max_rss_kb > 0);
	assert_int_equal(r->cgroups, tg_sandbox_cgroups(NULL, 0));
	expect_exit(r, 7, NULL);
}

static void sandbox_identity(void **state)
{
	(void)state;
	expect_exit(run_attack(0, 0, "identity", NULL), 0,
		    "uid=65534 euid=65534 gid=65534 groups=0\n"
		    "hostname=toolgate\n"
		    "root: dev tmp tool\n"
		    "create /x: EROFS\n"
		    "mkdir /dev/x: EROFS\n"
		    "create /tmp/copy: ok\n"
		    "exec /tmp/copy: EACCES\n"
		    "write /dev/null: ok\n"
		    "read /dev/urandom: ok\n");
}

/* ---- network ------------------------------------------------------------ */

static int listener(int type, struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int s = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	assert_true(s >= 0);
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(s, (struct sockaddr *)a, sizeof(*a)), 0);
	if (type == SOCK_STREAM)
		assert_int_equal(listen(s, 8), 0);
	assert_int_equal(getsockname(s, (struct sockaddr *)a, &len), 0);
	return s;
}

static void assert_nothing_received(int s, int stream)
{
	char buf[16];
	if (stream)
		assert_int_equal(accept(s, NULL, NULL), -1);
	else
		assert_int_equal(recv(s, buf, sizeof(buf), MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
	close(s);
}

static void sandbox_net_tcp(void **state)
{
	struct sockaddr_in a;
	char port[16];
	int s = listener(SOCK_STREAM, &a);

	(void)state;
	snprintf(port, sizeof(port), "%d", ntohs(a.sin_port));
	expect_exit(run_attack(0, 0, "net_tcp", port, NULL), 0, "socket: EACCES\n");
	/* as if seccomp missed socket(): the empty net namespace has no route */
	expect_exit(run_attack(SBX_TEST_NO_SECCOMP, 0, "net_tcp", port, NULL), 0,
		    "socket: ok\nconnect: ENETUNREACH\n");
	assert_nothing_received(s, 1);
}

static void sandbox_net_udp(void **state)
{
	struct sockaddr_in a;
	char port[16];
	int s = listener(SOCK_DGRAM, &a);

	(void)state;
	snprintf(port, sizeof(port), "%d", ntohs(a.sin_port));
	expect_exit(run_attack(0, 0, "net_udp", port, NULL), 0, "socket: EACCES\n");
	expect_exit(run_attack(SBX_TEST_NO_SECCOMP, 0, "net_udp", port, NULL), 0,
		    "socket: ok\nsendto: ENETUNREACH\n");
	assert_nothing_received(s, 0);
}

static int unix_listener(const char *name, int abstract)
{
	struct sockaddr_un a;
	socklen_t len;
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	assert_true(s >= 0);
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	strncpy(a.sun_path + abstract, name, sizeof(a.sun_path) - 2);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + abstract + strlen(name) + !abstract);
	if (!abstract)
		unlink(name);
	assert_int_equal(bind(s, (struct sockaddr *)&a, len), 0);
	chmod(name, 0777);
	assert_int_equal(listen(s, 8), 0);
	return s;
}

static void sandbox_net_unix(void **state)
{
	char path[128];
	int s;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/tg-sbx-test-%d.sock", (int)getpid());
	s = unix_listener(path, 0);
	expect_exit(run_attack(0, 0, "net_unix", path, NULL), 0, "socket: EACCES\n");
	expect_exit(run_attack(SBX_TEST_NO_SECCOMP, 0, "net_unix", path, NULL), 0,
		    "socket: ok\nconnect: ENOENT\n");
	assert_nothing_received(s, 1);
	unlink(path);
}

static void sandbox_net_abstract(void **state)
{
	char name[64];
	int s;

	(void)state;
	snprintf(name, sizeof(name), "tg-sbx-test-%d", (int)getpid());
	s = unix_listener(name, 1);
	expect_exit(run_attack(0, 0, "net_unix", name, "abstract", NULL), 0, "socket: EACCES\n");
	/* abstract sockets belong to the net namespace: the host's is not reachable */
	expect_exit(run_attack(SBX_TEST_NO_SECCOMP, 0, "net_unix", name, "abstract", NULL), 0,
		    "socket: ok\nconnect: ECONNREFUSED\n");
	assert_nothing_received(s, 1);
}

/* Wait (up to 3 s) for the spare net namespace; its inode, 0 if none. */
static unsigned long wait_spare(void)
{
	int i;

	for (i = 0; i < 300; i++) {
		unsigned long ino = sbx_net_spare_ino();
		if (ino)
			return ino;
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	return 0;
}

/* tg_sandbox_prepare (the MCP server): each run takes the spare made
 * ahead, a different one each time, and the network is as closed as with
 * one made on the spot (the same attacks, seccomp off). */
static void sandbox_net_prepared(void **state)
{
	struct sockaddr_in a;
	char port[16], name[64];
	unsigned long n1, n2;
	int s, u;

	(void)state;
	if (geteuid() != 0) {
		skip(); /* spares need CAP_SYS_ADMIN */
		return;
	}
	s = listener(SOCK_STREAM, &a);
	snprintf(port, sizeof(port), "%d", ntohs(a.sin_port));
	snprintf(name, sizeof(name), "tg-sbx-prep-%d", (int)getpid());
	u = unix_listener(name, 1);
	tg_sandbox_prepare(1);
	n1 = wait_spare();
	assert_true(n1 != 0);
	expect_exit(run_attack(SBX_TEST_NO_SECCOMP, 0, "net_tcp", port, NULL), 0,
		    "socket: ok\nconnect: ENETUNREACH\n");
	assert_true(sbx_net_last_ino() == n1);
	n2 = wait_spare();
	assert_true(n2 != 0 && n2 != n1);
	expect_exit(run_attack(SBX_TEST_NO_SECCOMP, 0, "net_unix", name, "abstract", NULL), 0,
		    "socket: ok\nconnect: ECONNREFUSED\n");
	assert_true(sbx_net_last_ino() == n2);
	assert_nothing_received(s, 1);
	assert_nothing_received(u, 1);
	tg_sandbox_prepare(0);
	assert_true(sbx_net_spare_ino() == 0);
	/* without a spare, runs make their own again */
	expect_exit(run_attack(0, 0, "net_tcp", port, NULL), 0, "socket: EACCES\n");
	assert_true(sbx_net_spare_ino() == 0);
}

static void sandbox_net_other_families(void **state)
{
	(void)state;
	expect_exit(run_attack(0, 0, "socketpair", NULL), 0,
		    "socketpair: EACCES\nnetlink: EACCES\npacket: EACCES\nvsock: EACCES\n");
}

/* ---- host files and environment ---------------------------------------- */

static void sandbox_host_files(void **state)
{
	static const char *expect = "/etc/passwd: ENOENT\n/etc/shadow: ENOENT\n"
				    "/proc/self/status: ENOENT\n/sys/kernel: ENOENT\n"
				    "/home: ENOENT\nproject: ENOENT\n";
	(void)state;
	expect_exit(run_attack(0, 0, "read_files", SBX_SOURCE_FILE, NULL), 0, expect);
	expect_exit(run_attack(SBX_TEST_NO_SECCOMP, 0, "read_files", SBX_SOURCE_FILE, NULL), 0,
		    expect);
}

static void sandbox_env_secret(void **state)
{
	(void)state;
	setenv("TG_SECRET", "hunter2-sandbox-test", 1);
	expect_exit(run_attack(0, 0, "env_secret", NULL), 0, "env=0 leak=0\n");
	unsetenv("TG_SECRET");
}

/* ---- resources ---------------------------------------------------------- */

static void sandbox_fork_bomb(void **state)
{
	(void)state;
	expect_exit(run_attack(0, 8, "fork_bomb", NULL), 0,
		    "fork: EPERM\nvfork: EPERM\nclone: EPERM\nforked=0\n");
	/* even without the filter, the pids limit stops it */
	{
		tg_run_result *r = run_attack(SBX_TEST_NO_SECCOMP, 4, "fork_bomb", NULL);
		assert_int_equal(r->reason, TG_REASON_EXITED);
		assert_non_null(strstr(r->out, "fork: EAGAIN\n"));
		assert_non_null(strstr(r->out, "forked=3\n"));
		tg_run_result_free(r);
	}
}

static void sandbox_thread_bomb(void **state)
{
	(void)state;
	expect_exit(run_attack(0, 4, "thread_bomb", NULL), 0, "threads=3 error=EAGAIN\n");
	expect_exit(run_attack(0, 0, "thread_bomb", NULL), 0, "threads=0 error=EAGAIN\n");
}

static void sandbox_memory_bomb(void **state)
{
	tg_sandbox_opts o;
	tg_run_result *r;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.program = ATTACK("memory_bomb");
	o.memory_mb = 32;
	o.timeout_ms = 10000;
	r = run_opts(&o, 0);
	if (tg_sandbox_cgroups(NULL, 0)) {
		assert_int_equal(r->reason, TG_REASON_MEMORY);
		assert_int_equal(r->signal, SIGKILL);
	} else { /* rlimits only: RLIMIT_AS makes malloc fail */
		assert_int_equal(r->reason, TG_REASON_EXITED);
	}
	assert_true(r->max_rss_kb < 64 * 1024);
	tg_run_result_free(r);
}

static void sandbox_busy_loop(void **state)
{
	tg_sandbox_opts o;
	tg_run_result *r;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.program = ATTACK("busy_loop");
	o.timeout_ms = 400;
	r = run_opts(&o, 0);
	assert_int_equal(r->reason, TG_REASON_TIMEOUT);
	assert_int_equal(r->signal, SIGKILL);
	assert_true(r->wall_ms >= 400 && r->wall_ms < 3000);
	assert_true(r->cpu_ms > 10); /* it did spin (the machine may be busy) */
	tg_run_result_free(r);
}

/* Threads spinning on both cores reach RLIMIT_CPU (timeout + 1 s = 7 s)
 * at about 3.5 s, before the 6 s wall-clock timeout: reason "cpu". */
static void sandbox_cpu_limit(void **state)
{
	tg_sandbox_opts o;
	tg_run_result *r;

	(void)state;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		skip(); /* one core cannot burn CPU faster than wall time */
		return;
	}
	memset(&o, 0, sizeof(o));
	o.program = ATTACK("cpu_threads");
	o.timeout_ms = 6000;
	o.max_procs = 4;
	r = run_opts(&o, 0);
	assert_int_equal(r->reason, TG_REASON_CPU);
	assert_true(r->cpu_ms >= 6900);
	assert_true(r->wall_ms < 6000);
	tg_run_result_free(r);
}

static void sandbox_sleep_forever(void **state)
{
	tg_sandbox_opts o;
	tg_run_result *r;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.program = ATTACK("sleep_forever");
	o.timeout_ms = 200;
	r = run_opts(&o, 0);
	assert_int_equal(r->reason, TG_REASON_TIMEOUT);
	assert_true(r->wall_ms >= 200 && r->wall_ms < 3000);
	assert_true(r->cpu_ms < 100);
	tg_run_result_free(r);
}

static void sandbox_stdout_flood(void **state)
{
	tg_sandbox_opts o;
	tg_run_result *r;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.program = ATTACK("stdout_flood");
	o.output_kb = 64;
	r = run_opts(&o, 0);
	assert_int_equal(r->reason, TG_REASON_OUTPUT_LIMIT);
	assert_int_equal(r->out_len + r->err_len, 64 * 1024);
	assert_true(r->wall_ms < 2000);
	tg_run_result_free(r);
}

static void sandbox_disk_fill(void **state)
{
	tg_sandbox_opts o;
	tg_run_result *r;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.program = ATTACK("disk_fill");
	o.tmp_mb = 4;
	o.memory_mb = 64;
	r = run_opts(&o, 0);
	expect_exit(r, 0, "write: ENOSPC\nfiles=4\n");
}

static void sandbox_fd_exhaustion(void **state)
{
	(void)state;
	/* 32 descriptors: 0-2 are stdio, the other 29 can be opened */
	expect_exit(run_attack(0, 0, "fd_exhaustion", NULL), 0, "open: EMFILE\nopened=29\n");
}

static void sandbox_inherited_fds(void **state)
{
	int fd = open("/", O_RDONLY | O_DIRECTORY); /* no O_CLOEXEC, on purpose */
	int fd100 = dup2(fd, 100);

	(void)state;
	assert_true(fd >= 0 && fd100 == 100);
	expect_exit(run_attack(0, 0, "inherited_fds", NULL), 0,
		    "fchdir(100): EBADF\nopen_fds=0 escapes=0\n");
	expect_exit(run_attack(SBX_TEST_NO_SECCOMP, 0, "inherited_fds", NULL), 0,
		    "fchdir(100): EBADF\nopen_fds=0 escapes=0\n");
	close(fd);
	close(fd100);
}

static void sandbox_kill_all(void **state)
{
	pid_t sleeper = fork();
	int st;

	(void)state;
	if (sleeper == 0) {
		for (;;)
			pause();
	}
	assert_true(sleeper > 0);
	expect_exit(run_attack(0, 0, "kill_all", NULL), 0,
		    "kill(-1): ESRCH\nkill(2): ESRCH\npid=1 ppid=0\n");
	expect_exit(run_attack(SBX_TEST_NO_SECCOMP, 0, "kill_all", NULL), 0,
		    "kill(-1): ESRCH\nkill(2): ESRCH\npid=1 ppid=0\n");
	/* the host process is untouched */
	assert_int_equal(waitpid(sleeper, &st, WNOHANG), 0);
	assert_int_equal(kill(sleeper, 0), 0);
	kill(sleeper, SIGKILL);
	waitpid(sleeper, &st, 0);
}

/* ---- denied syscalls ---------------------------------------------------- */

static void sandbox_ptrace(void **state)
{
	(void)state;
	expect_seccomp(run_attack(0, 0, "ptrace", NULL), "ptrace");
}

static void sandbox_process_vm_readv(void **state)
{
	(void)state;
	expect_seccomp(run_attack(0, 0, "process_vm", NULL), "process_vm_readv");
}

static void sandbox_x32(void **state)
{
	(void)state;
	expect_seccomp(run_attack(0, 0, "x32", NULL), "x32:getpid");
}

static void sandbox_int80(void **state)
{
	(void)state;
	expect_seccomp(run_attack(0, 0, "int80", NULL), "i386:getpid");
}

static void sandbox_tiocsti(void **state)
{
	(void)state;
	expect_seccomp(run_attack(0, 0, "tiocsti", NULL), "ioctl");
	expect_seccomp(run_attack(0, 0, "tiocsti", "plain", NULL), "ioctl");
}

static void sandbox_io_uring(void **state)
{
	(void)state;
	expect_exit(run_attack(0, 0, "io_uring", NULL), 0, "io_uring_setup: ENOSYS\n");
}

static void sandbox_clean_errnos(void **state)
{
	(void)state;
	expect_exit(run_attack(0, 0, "errnos", NULL), 0,
		    "clone3: ENOSYS\nclone(CLONE_NEWUSER): EPERM\nflock: EPERM\n"
		    "arch_prctl(CET): EINVAL\n");
}

static void sandbox_self_write(void **state)
{
	(void)state;
	expect_exit(run_attack(0, 0, "self_write", NULL), 0,
		    "open /proc/self/exe: ENOENT\nopen /tool: EACCES\nopen /tool O_RDWR: EACCES\n"
		    "unlink /tool: EROFS\nrename /tool: EXDEV\n");
}

static void sandbox_thread_seccomp(void **state)
{
	(void)state;
	expect_seccomp(run_attack(0, 2, "thread_seccomp", NULL), "getpriority");
}

#define DENIED(fn, arg, name)                                              \
	static void fn(void **state)                                       \
	{                                                                  \
		(void)state;                                               \
		expect_seccomp(run_attack(0, 0, "denied", arg, NULL), name); \
	}
DENIED(sandbox_userfaultfd, "userfaultfd", "userfaultfd")
DENIED(sandbox_bpf, "bpf", "bpf")
DENIED(sandbox_perf_event_open, "perf_event_open", "perf_event_open")
DENIED(sandbox_keyctl, "keyctl", "keyctl")
DENIED(sandbox_add_key, "add_key", "add_key")
DENIED(sandbox_unshare, "unshare", "unshare")
DENIED(sandbox_setns, "setns", "setns")
DENIED(sandbox_mount, "mount", "mount")
DENIED(sandbox_umount2, "umount2", "umount2")
DENIED(sandbox_pivot_root, "pivot_root", "pivot_root")
DENIED(sandbox_fsopen, "fsopen", "fsopen")
DENIED(sandbox_open_tree, "open_tree", "open_tree")
DENIED(sandbox_move_mount, "move_mount", "move_mount")
DENIED(sandbox_personality, "personality", "personality")
DENIED(sandbox_prctl, "prctl", "prctl")
DENIED(sandbox_chroot, "chroot", "chroot")
DENIED(sandbox_memfd_create, "memfd_create", "memfd_create")
DENIED(sandbox_execveat, "execveat", "execveat")
DENIED(sandbox_pkey_alloc, "pkey_alloc", "pkey_alloc")
DENIED(sandbox_capget, "capget", "capget")
DENIED(sandbox_setuid, "setuid", "setuid")
DENIED(sandbox_mmap_rwx, "mmap_rwx", "mmap")
DENIED(sandbox_mprotect_rwx, "mprotect_rwx", "mprotect")
DENIED(sandbox_fcntl_lock, "fcntl_lock", "fcntl")
DENIED(sandbox_getrusage_children, "getrusage_children", "getrusage")
DENIED(sandbox_prlimit_set, "prlimit_set", "prlimit64")

/* ---- the supervisor's death takes the sandbox with it ------------------- */

static pid_t find_grandchild(pid_t sup)
{
	char path[512], buf[256];
	DIR *d;
	struct dirent *e;
	pid_t found = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)sup);
	d = opendir(path);
	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		int fd;
		ssize_t k;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/children", (int)sup, e->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		k = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (k > 0) {
			buf[k] = '\0';
			found = (pid_t)atoi(buf);
		}
	}
	closedir(d);
	return found;
}

static void supervisor_killed(unsigned flags)
{
	pid_t sup, child = 0;
	int st, i;

	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	sup = fork();
	if (sup == 0) {
		tg_sandbox_opts o;
		tg_run_result *r = NULL;
		memset(&o, 0, sizeof(o));
		o.program = ATTACK("sleep_forever");
		o.timeout_ms = 60000;
		sbx_run_with(&r, &o, flags);
		_exit(3);
	}
	assert_true(sup > 0);
	for (i = 0; i < 500 && !child; i++) {
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		child = find_grandchild(sup);
	}
	assert_true(child > 0);
	nanosleep(&(struct timespec){ 0, 100000000 }, NULL); /* let it reach the program */
	assert_int_equal(kill(sup, SIGKILL), 0);
	assert_int_equal(waitpid(sup, &st, 0), sup);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	/* the orphan comes to us (subreaper): it must die of SIGKILL promptly */
	for (i = 0; i < 300; i++) {
		pid_t w = waitpid(child, &st, WNOHANG);
		if (w == child)
			break;
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	assert_true(i < 300);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	assert_int_equal(kill(child, 0), -1);
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	/* the dead supervisor's cgroups are swept */
	if (tg_sandbox_cgroups(NULL, 0)) {
		char cmd[256];
		sbx_cgroup_sweep();
		snprintf(cmd, sizeof(cmd),
			 "find /sys/fs/cgroup/memory /sys/fs/cgroup/pids /sys/fs/cgroup/unified "
			 "-maxdepth 4 -name 'tg-%d-*' 2>/dev/null | grep -q .", (int)sup);
		assert_int_not_equal(system(cmd), 0);
	}
}

static void sandbox_supervisor_killed(void **state)
{
	(void)state;
	supervisor_killed(0);
	/* the parent-death signal alone, without ptrace's EXITKILL */
	supervisor_killed(SBX_TEST_NO_PTRACE);
	/* and no seccomp name without ptrace, but still the reason */
	expect_seccomp(run_attack(SBX_TEST_NO_PTRACE, 0, "ptrace", NULL), "");
}

/* ---- API behaviour ------------------------------------------------------ */

static void sandbox_workspace(void **state)
{
	char dir[] = "/tmp/tg-sbx-ws-XXXXXX", path[128];
	tg_sandbox_opts o;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	chmod(dir, 0777);
	snprintf(path, sizeof(path), "%s/in.txt", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("data", f);
	fclose(f);
	chmod(path, 0644);
	memset(&o, 0, sizeof(o));
	o.program = ATTACK("workspace");
	o.workspace = dir;
	expect_exit(run_opts(&o, 0), 0, "read: ok\nin=data\nwrite: EROFS\n");
	o.workspace_write = 1;
	expect_exit(run_opts(&o, 0), 0, "read: ok\nin=data\nwrite: ok\n");
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	assert_int_equal(access(path, F_OK), 0);
	unlink(path);
	snprintf(path, sizeof(path), "%s/in.txt", dir);
	unlink(path);
	rmdir(dir);
}

static void sandbox_dynamic_program(void **state)
{
	static const char *const argv[] = { "echo", "dynamic", NULL };
	tg_sandbox_opts o;
	tg_run_result *r;
	int dyn = 0;

	(void)state;
	assert_int_equal(tg_sandbox_elf_dynamic(&dyn, "/bin/echo"), 0);
	assert_int_equal(dyn, 1);
	assert_int_equal(tg_sandbox_elf_dynamic(&dyn, ATTACK("busy_loop")), 0);
	assert_int_equal(dyn, 0);
	memset(&o, 0, sizeof(o));
	o.program = "/bin/echo";
	o.argv = argv;
	o.dynamic = 1;
	expect_exit(run_opts(&o, 0), 0, "dynamic\n");
	/* without the library folders the interpreter is missing */
	o.dynamic = 0;
	r = run_opts(&o, 0);
	assert_int_equal(r->reason, TG_REASON_SETUP);
	assert_non_null(strstr(r->err, "No such file"));
	tg_run_result_free(r);
	assert_int_equal(tg_sandbox_available(), 0);
}

static void sandbox_bad_input(void **state)
{
	char path[] = "/tmp/tg-sbx-notelf-XXXXXX";
	tg_sandbox_opts o;
	tg_run_result *r = NULL;
	int fd, dyn;

	(void)state;
	memset(&o, 0, sizeof(o));
	assert_int_equal(tg_sandbox_run(&r, &o), TG_ERR_INVALID);
	o.program = "/nonexistent/program";
	assert_int_equal(tg_sandbox_run(&r, &o), TG_ERR_NOTFOUND);
	o.program = "/tmp";
	assert_int_equal(tg_sandbox_run(&r, &o), TG_ERR_INVALID);
	assert_null(r);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\necho hi\n", 18), 18);
	close(fd);
	chmod(path, 0755);
	assert_int_equal(tg_sandbox_elf_dynamic(&dyn, path), TG_ERR_INVALID);
	o.program = path;
	r = run_opts(&o, 0);
	assert_int_equal(r->reason, TG_REASON_SETUP);
	assert_non_null(strstr(r->err, "cannot execute"));
	tg_run_result_free(r);
	unlink(path);
}

/* Limits at their type's maximum: clamped where the kernel caps them, and
 * the run still happens (no overflow into a zero or negative timeout). */
static void sandbox_extreme_limits(void **state)
{
	tg_sandbox_opts o;
	tg_run_result *r;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.program = ATTACK("echo_stdin");
	o.timeout_ms = UINT32_MAX;
	o.memory_mb = 65536;
	o.output_kb = UINT32_MAX / 1024;
	o.tmp_mb = 100000;
	o.max_procs = UINT32_MAX;
	o.max_files = UINT32_MAX;
	o.stdin_data = "x";
	o.stdin_len = 1;
	r = run_opts(&o, 0);
	assert_int_equal(r->cgroups, tg_sandbox_cgroups(NULL, 0)); /* still limited */
	expect_exit(r, 0, "x");
}

static void sandbox_json_shape(void **state)
{
	tg_run_result r;
	json_t *j = NULL;
	char *s;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.reason = TG_REASON_SECCOMP;
	r.exit_code = -1;
	r.signal = SIGSYS;
	snprintf(r.syscall, sizeof(r.syscall), "ptrace");
	r.out = (char *)"a\xff" "b";
	r.out_len = 3;
	r.err = (char *)"";
	r.wall_ms = 5;
	r.cpu_ms = 1;
	r.max_rss_kb = 900;
	assert_int_equal(tg_run_result_to_json(&j, &r), 0);
	s = tg_json_dump(j);
	assert_string_equal(s, "{\"exit_code\":null,\"signal\":31,\"reason\":\"seccomp\","
			       "\"syscall\":\"ptrace\",\"stdout\":\"a\xef\xbf\xbd" "b\",\"stderr\":\"\","
			       "\"wall_ms\":5,\"cpu_ms\":1,\"max_rss_kb\":900}");
	free(s);
	json_decref(j);
	r.reason = TG_REASON_EXITED;
	r.exit_code = 0;
	r.signal = 0;
	r.syscall[0] = '\0';
	assert_int_equal(tg_run_result_to_json(&j, &r), 0);
	assert_true(json_is_integer(json_object_get(j, "exit_code")));
	assert_true(json_is_null(json_object_get(j, "signal")));
	assert_true(json_is_null(json_object_get(j, "syscall")));
	json_decref(j);
	assert_string_equal(tg_reason_name(TG_REASON_OUTPUT_LIMIT), "output_limit");
	assert_string_equal(tg_reason_name(TG_REASON_FILE_SIZE), "file_size");
	tg_run_result_free(NULL);
}

/* Runs from several threads at once: each supervisor reaps only its own
 * child (wait4 with __WNOTHREAD) and gets its own output back. */
static void *concurrent_runs(void *arg)
{
	long id = (long)arg;
	char in[32], code[8];
	const char *argv[] = { "echo_stdin", "err", code, NULL };
	int i, bad = 0;

	for (i = 0; i < 5; i++) {
		tg_sandbox_opts o;
		tg_run_result *r = NULL;
		snprintf(in, sizeof(in), "thread %ld run %d", id, i);
		snprintf(code, sizeof(code), "%ld", id + i);
		memset(&o, 0, sizeof(o));
		o.program = ATTACK("echo_stdin");
		o.argv = argv;
		o.stdin_data = in;
		o.stdin_len = strlen(in);
		if (tg_sandbox_run(&r, &o) < 0 || r->reason != TG_REASON_EXITED ||
		    r->exit_code != id + i || strcmp(r->out, in) != 0)
			bad++;
		tg_run_result_free(r);
	}
	return (void *)(long)bad;
}

static void sandbox_concurrent(void **state)
{
	pthread_t t[4];
	long i;

	(void)state;
	for (i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, concurrent_runs, (void *)i), 0);
	for (i = 0; i < 4; i++) {
		void *bad = NULL;
		pthread_join(t[i], &bad);
		assert_int_equal((long)bad, 0);
	}
}

/* The build-time BPF is what libseccomp compiles from filter.c today. */
static void sandbox_filter_fresh(void **state)
{
	int p;

	(void)state;
	for (p = 0; p < SBX_PROFILE_COUNT; p++) {
		const struct sock_fprog *built = NULL;
		struct sock_fprog fresh;
		assert_int_equal(sbx_filter_get(&built, p), 0);
		assert_int_equal(sbx_filter_compile(&fresh, p), 0);
		assert_int_equal(fresh.len, built->len);
		assert_memory_equal(fresh.filter, built->filter, fresh.len * sizeof(struct sock_filter));
		free(fresh.filter);
	}
}

static void sandbox_cgroups_cleaned(void **state)
{
	char why[200], prefix[32];
	const char *roots[] = { "/sys/fs/cgroup/memory", "/sys/fs/cgroup/pids" };
	size_t i;

	(void)state;
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

/* ---- the v1 cgroup pool ---------------------------------------------- */

static void read_cg(const char *dir, const char *name, char *buf, size_t n)
{
	char path[700];
	int fd;
	ssize_t k;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	k = read(fd, buf, n - 1);
	close(fd);
	assert_true(k >= 0);
	buf[k] = '\0';
}

static tg_run_result *run_mem(const char *prog, uint32_t memory_mb)
{
	tg_sandbox_opts o;

	memset(&o, 0, sizeof(o));
	o.program = prog;
	o.memory_mb = memory_mb;
	o.timeout_ms = 10000;
	return run_opts(&o, 0);
}

/* The pooled pair of folders is the same one run after run, empty between
 * runs, with each run's own limits (raised and lowered: the memory+swap
 * ordering), and an OOM kill of an earlier run is not counted again. */
static void sandbox_cgroup_pool(void **state)
{
	char mem[4][512], pids[4][512], first[512], why[200], buf[256];
	tg_run_result *r;
	int n;

	(void)state;
	if (!tg_sandbox_cgroups(why, sizeof(why)) || !strstr(why, "v1")) {
		skip();
		return;
	}
	sbx_cgroup_pool_drain();
	assert_int_equal(sbx_cgroup_pool_list(mem, pids, 4), 0);
	r = run_mem(ATTACK("memory_bomb"), 32);
	assert_int_equal(r->reason, TG_REASON_MEMORY);
	tg_run_result_free(r);
	n = sbx_cgroup_pool_list(mem, pids, 4);
	if (n == 0) { /* too much left charged after the bomb: removed, fine */
		expect_exit(run_mem(ATTACK("echo_stdin"), 32), 0, "");
		n = sbx_cgroup_pool_list(mem, pids, 4);
	}
	assert_int_equal(n, 1);
	snprintf(first, sizeof(first), "%s", mem[0]);
	read_cg(mem[0], "tasks", buf, sizeof(buf));
	assert_string_equal(buf, "");
	read_cg(pids[0], "tasks", buf, sizeof(buf));
	assert_string_equal(buf, "");
	read_cg(pids[0], "pids.current", buf, sizeof(buf));
	assert_string_equal(buf, "0\n");

	/* reused, and the earlier OOM does not make this run a memory kill */
	expect_exit(run_mem(ATTACK("echo_stdin"), 32), 0, "");
	assert_int_equal(sbx_cgroup_pool_list(mem, pids, 4), 1);
	assert_string_equal(mem[0], first);
	/* raised */
	expect_exit(run_mem(ATTACK("echo_stdin"), 300), 0, "");
	assert_int_equal(sbx_cgroup_pool_list(mem, pids, 4), 1);
	assert_string_equal(mem[0], first);
	read_cg(mem[0], "memory.limit_in_bytes", buf, sizeof(buf));
	assert_string_equal(buf, "314572800\n");
	read_cg(pids[0], "pids.max", buf, sizeof(buf));
	assert_string_equal(buf, "1\n");
	/* lowered: the limit holds again in the reused folder */
	r = run_mem(ATTACK("memory_bomb"), 16);
	assert_int_equal(r->reason, TG_REASON_MEMORY);
	assert_true(r->max_rss_kb < 32 * 1024);
	tg_run_result_free(r);
	/* the pids limit of a reused folder (1 -> 4), without the filter */
	r = run_attack(SBX_TEST_NO_SECCOMP, 4, "fork_bomb", NULL);
	assert_int_equal(r->reason, TG_REASON_EXITED);
	assert_non_null(strstr(r->out, "forked=3\n"));
	tg_run_result_free(r);
	assert_true(sbx_cgroup_pool_list(mem, pids, 4) >= 1);
	read_cg(pids[0], "pids.current", buf, sizeof(buf));
	assert_string_equal(buf, "0\n");
}

/* A process that ran sandboxes and exits normally leaves no folder of its
 * own (tg-<pid>-<n>); the slots stay, see sandbox_cgroup_slots. */
static void sandbox_cgroup_pool_exit(void **state)
{
	char why[200], cmd[300];
	pid_t pid;
	int st;

	(void)state;
	if (!tg_sandbox_cgroups(why, sizeof(why))) {
		skip();
		return;
	}
	pid = fork();
	if (pid == 0) {
		tg_run_result *r = NULL;
		tg_sandbox_opts o;
		memset(&o, 0, sizeof(o));
		o.program = ATTACK("echo_stdin");
		if (sbx_run_with(&r, &o, 0) < 0 || r->reason != TG_REASON_EXITED)
			_exit(3);
		tg_run_result_free(r);
		if (sbx_run_with(&r, &o, 0) < 0 || r->reason != TG_REASON_EXITED)
			_exit(3);
		tg_run_result_free(r);
		exit(0);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(cmd, sizeof(cmd),
		 "find /sys/fs/cgroup/memory /sys/fs/cgroup/pids /sys/fs/cgroup/unified "
		 "-maxdepth 4 -name 'tg-%d-*' 2>/dev/null | grep -q .", (int)pid);
	assert_int_not_equal(system(cmd), 0);
}

/* One run in a child process; returns the slot (memory folder) it kept, or
 * "" when it ran in a pair of its own. With hold_kill, the child runs
 * sleep_forever and is SIGKILLed mid-run instead. */
static void slot_of_child(char *slot, size_t n, int hold_kill)
{
	int p[2], st;
	pid_t pid;
	ssize_t k;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		char mem[4][512], pids[4][512];
		tg_run_result *r = NULL;
		tg_sandbox_opts o;
		close(p[0]);
		memset(&o, 0, sizeof(o));
		o.program = hold_kill ? ATTACK("sleep_forever") : ATTACK("echo_stdin");
		o.timeout_ms = 60000;
		if (hold_kill) {
			/* say "running" once the run's cgroup is set up */
			struct sbx_cgroup cg;
			if (sbx_cgroup_create(&cg, 64ull << 20, 1) < 0)
				_exit(3);
			(void)!write(p[1], cg.mem, strlen(cg.mem));
			close(p[1]);
			pause();
			_exit(0);
		}
		if (sbx_run_with(&r, &o, 0) < 0 || r->reason != TG_REASON_EXITED)
			_exit(3);
		tg_run_result_free(r);
		if (sbx_cgroup_pool_list(mem, pids, 4) == 1)
			(void)!write(p[1], mem[0], strlen(mem[0]));
		_exit(0);
	}
	assert_true(pid > 0);
	close(p[1]);
	k = read(p[0], slot, n - 1);
	assert_true(k >= 0);
	slot[k] = '\0';
	close(p[0]);
	if (hold_kill)
		assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (!hold_kill)
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* v1 slots outlive the process that used them, belong to one process at a
 * time (flock), and are free again when their process exits or is killed. */
static void sandbox_cgroup_slots(void **state)
{
	char why[200], a[512], b[512], c[512], buf[256];
	int fd;

	(void)state;
	if (!tg_sandbox_cgroups(why, sizeof(why)) || !strstr(why, "v1")) {
		skip();
		return;
	}
	sbx_cgroup_pool_drain();
	slot_of_child(a, sizeof(a), 0);
	assert_non_null(strstr(a, "/tg-slot-"));
	/* still there after the process exited, empty, and free */
	read_cg(a, "tasks", buf, sizeof(buf));
	assert_string_equal(buf, "");
	fd = open(a, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	/* while we hold it, another process gets another slot */
	slot_of_child(b, sizeof(b), 0);
	assert_non_null(strstr(b, "/tg-slot-"));
	assert_string_not_equal(a, b);
	close(fd);
	/* a process killed while it holds a slot leaves it free */
	slot_of_child(c, sizeof(c), 1);
	assert_non_null(strstr(c, "/tg-slot-"));
	fd = open(c, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sandbox_stdio_and_exit),
		cmocka_unit_test(sandbox_identity),
		cmocka_unit_test(sandbox_net_tcp),
		cmocka_unit_test(sandbox_net_udp),
		cmocka_unit_test(sandbox_net_unix),
		cmocka_unit_test(sandbox_net_abstract),
		cmocka_unit_test(sandbox_net_prepared),
		cmocka_unit_test(sandbox_net_other_families),
		cmocka_unit_test(sandbox_host_files),
		cmocka_unit_test(sandbox_env_secret),
		cmocka_unit_test(sandbox_fork_bomb),
		cmocka_unit_test(sandbox_thread_bomb),
		cmocka_unit_test(sandbox_memory_bomb),
		cmocka_unit_test(sandbox_busy_loop),
		cmocka_unit_test(sandbox_cpu_limit),
		cmocka_unit_test(sandbox_sleep_forever),
		cmocka_unit_test(sandbox_stdout_flood),
		cmocka_unit_test(sandbox_disk_fill),
		cmocka_unit_test(sandbox_fd_exhaustion),
		cmocka_unit_test(sandbox_inherited_fds),
		cmocka_unit_test(sandbox_kill_all),
		cmocka_unit_test(sandbox_ptrace),
		cmocka_unit_test(sandbox_process_vm_readv),
		cmocka_unit_test(sandbox_x32),
		cmocka_unit_test(sandbox_int80),
		cmocka_unit_test(sandbox_tiocsti),
		cmocka_unit_test(sandbox_io_uring),
		cmocka_unit_test(sandbox_clean_errnos),
		cmocka_unit_test(sandbox_self_write),
		cmocka_unit_test(sandbox_thread_seccomp),
		cmocka_unit_test(sandbox_userfaultfd),
		cmocka_unit_test(sandbox_bpf),
		cmocka_unit_test(sandbox_perf_event_open),
		cmocka_unit_test(sandbox_keyctl),
		cmocka_unit_test(sandbox_add_key),
		cmocka_unit_test(sandbox_unshare),
		cmocka_unit_test(sandbox_setns),
		cmocka_unit_test(sandbox_mount),
		cmocka_unit_test(sandbox_umount2),
		cmocka_unit_test(sandbox_pivot_root),
		cmocka_unit_test(sandbox_fsopen),
		cmocka_unit_test(sandbox_open_tree),
		cmocka_unit_test(sandbox_move_mount),
		cmocka_unit_test(sandbox_personality),
		cmocka_unit_test(sandbox_prctl),
		cmocka_unit_test(sandbox_chroot),
		cmocka_unit_test(sandbox_memfd_create),
		cmocka_unit_test(sandbox_execveat),
		cmocka_unit_test(sandbox_pkey_alloc),
		cmocka_unit_test(sandbox_capget),
		cmocka_unit_test(sandbox_setuid),
		cmocka_unit_test(sandbox_mmap_rwx),
		cmocka_unit_test(sandbox_mprotect_rwx),
		cmocka_unit_test(sandbox_fcntl_lock),
		cmocka_unit_test(sandbox_getrusage_children),
		cmocka_unit_test(sandbox_prlimit_set),
		cmocka_unit_test(sandbox_supervisor_killed),
		cmocka_unit_test(sandbox_workspace),
		cmocka_unit_test(sandbox_dynamic_program),
		cmocka_unit_test(sandbox_bad_input),
		cmocka_unit_test(sandbox_extreme_limits),
		cmocka_unit_test(sandbox_json_shape),
		cmocka_unit_test(sandbox_concurrent),
		cmocka_unit_test(sandbox_filter_fresh),
		cmocka_unit_test(sandbox_cgroup_pool),
		cmocka_unit_test(sandbox_cgroup_pool_exit),
		cmocka_unit_test(sandbox_cgroup_slots),
		cmocka_unit_test(sandbox_cgroups_cleaned),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
