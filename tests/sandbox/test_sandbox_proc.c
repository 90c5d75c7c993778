/*
 * tests/sandbox/test_sandbox_proc.c: the process cases of sandbox_attacks
 * (main() is in test_sandbox.c). kill(-1) from inside reaches no host
 * process; a supervisor killed with SIGKILL takes its sandboxed program
 * with it (with and without ptrace's EXITKILL) and its cgroups are swept;
 * runs from several threads at once each reap only their own child.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <dirent.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include <setjmp.h>
#include <cmocka.h>

#include "sbx_test.h"
#include "sbx_attacks.h"

void sandbox_kill_all(void **state)
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
/* ---- the supervisor's death takes the sandbox with it ------------------- */

/* /proc/PID/exe of pid into out (NUL-terminated); 0 when unreadable. */
static int exe_of(pid_t pid, char *out, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if ((n = readlink(path, out, len - 1)) <= 0)
		return 0;
	out[n] = '\0';
	return 1;
}

/* The child of sup (of any of its threads) that runs the program: its
 * executable is neither sup's own (a child still in its set-up) nor the
 * pool's waiter (an entry waiting for a run, or made for a later one: the
 * supervisor reaps those itself). By executable, not name: a program
 * exec'd from a descriptor is named after the file on recent kernels and
 * after the descriptor's number on older ones. */
static pid_t find_grandchild(pid_t sup)
{
	char path[512], buf[256], own[PATH_MAX] = "";
	DIR *d;
	struct dirent *e;
	pid_t found = 0;

	if (!exe_of(sup, own, sizeof(own)))
		return 0;
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
			char *p = buf, *end, exe[PATH_MAX];
			buf[k] = '\0';
			while (!found && *p) {
				pid_t c = (pid_t)strtol(p, &end, 10);
				if (end == p)
					break;
				p = end;
				if (!exe_of(c, exe, sizeof(exe)))
					continue;
				if (strcmp(exe, own) != 0 && strncmp(exe, "/memfd:tg-waiter", 16) != 0)
					found = c;
			}
		}
	}
	closedir(d);
	return found;
}

/* What /proc says of pid: its state, parent and executable (a failure's
 * explanation; "gone" when it no longer exists). */
static void proc_facts(pid_t pid, char *out, size_t len)
{
	char path[64], exe[256] = "?", line[256], state[64] = "?", ppid[64] = "?";
	FILE *f;

	(void)exe_of(pid, exe, sizeof(exe));
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f) {
		snprintf(out, len, "gone from /proc");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "State:", 6) == 0)
			snprintf(state, sizeof(state), "%.60s", line + 6);
		else if (strncmp(line, "PPid:", 5) == 0)
			snprintf(ppid, sizeof(ppid), "%.60s", line + 5);
	}
	fclose(f);
	snprintf(out, len, "state%.60s, parent%.60s (we are %d), exe %.200s", state, ppid,
		 (int)getpid(), exe);
}

static void supervisor_killed(unsigned flags)
{
	pid_t sup, child = 0;
	struct pollfd pe;
	int st, i, pfd;

	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	sup = fork();
	if (sup == 0) {
		tg_sandbox_opts o;
		tg_run_result *r = NULL;
		memset(&o, 0, sizeof(o));
		o.program = ATTACK("sleep_forever");
		o.timeout_ms = 60000;
		if (sbx_pool_on) /* the parent's entries are not this process's */
			tg_sandbox_pool_start(1, &sbx_pool_ceilings);
		sbx_run_with(&r, &o, flags);
		_exit(3);
	}
	assert_true(sup > 0);
	for (i = 0; i < 1000 && !child; i++) {
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		child = find_grandchild(sup);
	}
	if (!child) { /* never leave the supervisor (and its run) behind */
		kill(sup, SIGKILL);
		waitpid(sup, &st, 0);
		prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
		fail_msg("no process of the supervisor runs the program after 10 s");
	}
	nanosleep(&(struct timespec){ 0, 100000000 }, NULL); /* let it reach the program */
	/* a descriptor of the program's process: its end is seen whoever
	 * reaps it, and a recycled pid cannot pass for it */
	pfd = (int)syscall(SYS_pidfd_open, child, 0);
	if (pfd < 0) {
		kill(sup, SIGKILL);
		waitpid(sup, &st, 0);
		prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
		fail_msg("pidfd_open(%d): %s", (int)child, strerror(errno));
	}
	assert_int_equal(kill(sup, SIGKILL), 0);
	assert_int_equal(waitpid(sup, &st, 0), sup);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	/* it must end promptly (10 s: an ASan build on a loaded host took
	 * over 3) */
	pe.fd = pfd;
	pe.events = POLLIN;
	assert_int_equal(poll(&pe, 1, 10000), 1);
	close(pfd);
	/* Orphaned, it comes to us (subreaper), and then it must have died of
	 * SIGKILL. But a thread of the supervisor that was not dead yet can
	 * get it first (the kernel gives a dying thread's children to a live
	 * sibling), and a tracer thread's wait4(-1) reaps it: then only its
	 * end is known (the pidfd above; checked under load, 1 run in 25). */
	for (i = 0; i < 1000; i++) {
		pid_t w = waitpid(child, &st, WNOHANG);
		if (w == child) {
			assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
			break;
		}
		if (w < 0) {
			int e = errno;
			char why[512];
			proc_facts(child, why, sizeof(why));
			if (e != ECHILD || strcmp(why, "gone from /proc") != 0)
				fail_msg("the program's process %d is not ours to reap: %s (%s)",
					 (int)child, strerror(e), why);
			break; /* reaped by a thread of the dying supervisor */
		}
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	assert_true(i < 1000);
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

void sandbox_supervisor_killed(void **state)
{
	(void)state;
	supervisor_killed(0);
	/* the parent-death signal alone, without ptrace's EXITKILL */
	supervisor_killed(SBX_TEST_NO_PTRACE);
	/* and no seccomp name without ptrace, but still the reason */
	expect_seccomp(run_attack(SBX_TEST_NO_PTRACE, 0, "ptrace", NULL), "");
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

void sandbox_concurrent(void **state)
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
