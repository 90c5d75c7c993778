/*
 * tests/sandbox/test_cgroups.c: the cgroups of runs, with real runs: no
 * folder of its own left by a process, v1 slots reused (empty between runs,
 * limits raised and lowered, an earlier OOM not counted again, the pids
 * limit of a reused folder), slots that outlive their process, belong to
 * one process at a time and are free again after it exits or is killed;
 * v1 cpu folders kept for the next run (quota written again) unless a task
 * is still in them. On v1 the process first moves into a memory and a pids
 * folder of its own: slots are made beside a process's cgroup, so the 16
 * there are its own and not taken by other toolgate processes of the host
 * (a benchmark's pools held all 16 once and these tests failed).
 */
#include "sandbox/internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "sbx_test.h"

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

/* Our own folder in a v1 hierarchy ("memory" or "pids"), from /proc/self/cgroup. */
static int own_v1(const char *ctrl, char *out, size_t n)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[1024];
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		c2[strcspn(c2 + 1, "\n") + 1] = '\0';
		if (strcmp(c1 + 1, ctrl) == 0) {
			snprintf(out, n, "/sys/fs/cgroup/%s%s", ctrl, strcmp(c2 + 1, "/") == 0 ? "" : c2 + 1);
			found = 1;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

/* The pids hierarchy can be shared by processes whose memory cgroups
 * differ (two sessions): a slot's pids folder is locked on its own. With
 * pids/tg-slot-<n> held, as by a process of another memory cgroup, while
 * the memory folder of slot n is free, a run takes another slot, never n.
 * (n is the first slot whose pids folder we can lock and whose memory
 * folder is free: toolgate processes of other sessions may hold lower ones.) */
static void sandbox_cgroup_pids_slot_locked(void **state)
{
	char why[200], pids[600], mem[600], held[700], memslot[700], a[512], tail[32];
	int fd = -1, n;

	(void)state;
	if (!tg_sandbox_cgroups(why, sizeof(why)) || !strstr(why, "v1") ||
	    own_v1("pids", pids, sizeof(pids)) < 0 || own_v1("memory", mem, sizeof(mem)) < 0) {
		skip();
		return;
	}
	sbx_cgroup_pool_drain();
	for (n = 0; n < 16 && fd < 0; n++) {
		int mfd;

		snprintf(held, sizeof(held), "%s/tg-slot-%d", pids, n);
		snprintf(memslot, sizeof(memslot), "%s/tg-slot-%d", mem, n);
		if (mkdir(held, 0755) < 0 && errno != EEXIST)
			continue;
		fd = open(held, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
			close(fd);
			fd = -1;
			continue;
		}
		mfd = open(memslot, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (mfd >= 0 && flock(mfd, LOCK_EX | LOCK_NB) < 0) {
			close(fd); /* its memory folder is in use: not a test of ours */
			fd = -1;
		}
		if (mfd >= 0)
			close(mfd); /* free again for the run */
	}
	if (fd < 0) {
		skip();
		return;
	}
	snprintf(tail, sizeof(tail), "/tg-slot-%d", n - 1);
	slot_of_child(a, sizeof(a), 0);
	assert_non_null(strstr(a, "/tg-slot-"));
	assert_false(strlen(a) >= strlen(tail) && strcmp(a + strlen(a) - strlen(tail), tail) == 0);
	close(fd);
}

static int write_str(const char *dir, const char *file, const char *v)
{
	char path[1200];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = write(fd, v, strlen(v)) == (ssize_t)strlen(v);
	close(fd);
	return ok ? 0 : -1;
}

/* One run in a new process; its exit status: 0 when the run ended as
 * expected and kept the slot named want. */
static int run_in_child(const char *prog, uint32_t memory_mb, tg_reason reason, const char *want)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		char mem[4][512], pids[4][512];
		tg_run_result *r = NULL;
		tg_sandbox_opts o;
		memset(&o, 0, sizeof(o));
		o.program = prog;
		o.memory_mb = memory_mb;
		o.timeout_ms = 10000;
		if (sbx_run_with(&r, &o, 0) < 0)
			_exit(10);
		if (r->reason != reason)
			_exit(11);
		if (reason == TG_REASON_MEMORY && r->max_rss_kb >= 32 * 1024)
			_exit(12);
		if (sbx_cgroup_pool_list(mem, pids, 4) != 1)
			_exit(13);
		if (strcmp(mem[0], want) != 0)
			_exit(14);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* The scenario of sandbox_cgroup_slot_limits_other_process, in a fresh
 * process (exec'd: the cgroup paths are looked up once per process, and a
 * fork would keep the test process's). Returns 0 when it went as expected. */
static int slot_limits_scenario(void)
{
	char mem[600], pids[600], tm[700], tp[700], slot[760], path[800], lim[64];
	int rc, fd;
	ssize_t k = -1;

	if (own_v1("memory", mem, sizeof(mem)) < 0 || own_v1("pids", pids, sizeof(pids)) < 0)
		return 19;
	snprintf(tm, sizeof(tm), "%s/tg-test-%d", mem, (int)getpid());
	snprintf(tp, sizeof(tp), "%s/tg-test-%d", pids, (int)getpid());
	if (mkdir(tm, 0755) < 0 || mkdir(tp, 0755) < 0 || write_str(tm, "cgroup.procs", "0") < 0 ||
	    write_str(tp, "cgroup.procs", "0") < 0)
		return 20;
	snprintf(slot, sizeof(slot), "%s/tg-slot-0", tm);
	rc = run_in_child(ATTACK("echo_stdin"), 300, TG_REASON_EXITED, slot);
	if (rc == 0) { /* the slot kept the first process's limit */
		snprintf(path, sizeof(path), "%s/memory.limit_in_bytes", slot);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			k = read(fd, lim, sizeof(lim) - 1);
			close(fd);
		}
		lim[k > 0 ? k : 0] = '\0';
		if (strcmp(lim, "314572800\n") != 0)
			rc = 30;
	}
	if (rc == 0)
		rc = run_in_child(ATTACK("memory_bomb"), 16, TG_REASON_MEMORY, slot);
	/* clean up: the slots, back to our own folders, the test folders */
	rmdir(slot);
	snprintf(slot, sizeof(slot), "%s/tg-slot-0", tp);
	rmdir(slot);
	write_str(mem, "cgroup.procs", "0");
	write_str(pids, "cgroup.procs", "0");
	rmdir(tm);
	rmdir(tp);
	return rc;
}

/* A slot another process left at 300 MB: the next process reads its
 * limits and lowers them in the right order, so a 16 MB run is held at
 * 16 MB. Done under a private parent cgroup, so that no other process of
 * the test run can take the slot in between. */
static void sandbox_cgroup_slot_limits_other_process(void **state)
{
	char why[200];
	pid_t pid;
	int st;

	(void)state;
	if (!tg_sandbox_cgroups(why, sizeof(why)) || !strstr(why, "v1")) {
		skip();
		return;
	}
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", "test_cgroups", "--slot-limits", (char *)NULL);
		_exit(127);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* ---- v1 cpu folders kept for the next run ------------------------------ */

static void sandbox_cgroup_cpu_reuse(void **state)
{
	struct sbx_cgroup cg;
	struct sbx_cpu c;
	char why[200], first[700], buf[64], pid_s[32];
	pid_t pid;
	int st;

	(void)state;
	if (!tg_sandbox_cpu_limit(why, sizeof(why), 100) || !strstr(why, "v1")) {
		skip();
		return;
	}
	memset(&cg, 0, sizeof(cg));
	cg.version = 1; /* any but a v2 folder: the v1 cpu hierarchy */
	assert_int_equal(sbx_cpu_create(&c, &cg, 50), 0);
	assert_int_equal(c.version, 1);
	snprintf(first, sizeof(first), "%s", c.dir);
	read_cg(c.dir, "cpu.cfs_quota_us", buf, sizeof(buf));
	assert_string_equal(buf, "50000\n");
	sbx_cpu_release(&c);
	/* empty: the same folder again, its quota written anew */
	assert_int_equal(sbx_cpu_create(&c, &cg, 30), 0);
	assert_string_equal(c.dir, first);
	read_cg(c.dir, "cpu.cfs_quota_us", buf, sizeof(buf));
	assert_string_equal(buf, "30000\n");
	read_cg(c.dir, "cpu.cfs_period_us", buf, sizeof(buf));
	assert_string_equal(buf, "100000\n");
	/* a task still in it: not kept, the next run gets another folder */
	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	assert_true(pid > 0);
	snprintf(pid_s, sizeof(pid_s), "%d", (int)pid);
	assert_int_equal(tg_file_write_str(c.tasks, pid_s), 0);
	sbx_cpu_release(&c);
	assert_int_equal(sbx_cpu_create(&c, &cg, 30), 0);
	assert_string_not_equal(c.dir, first);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	sbx_cpu_release(&c);
	/* the busy folder was left as before (an exiting task); gone now */
	for (st = 0; st < 100 && rmdir(first) != 0 && errno == EBUSY; st++)
		usleep(2000);
	assert_int_equal(access(first, F_OK), -1);
}

/* ---- a cgroup of this test's own (v1) ------------------------------- */

static const char *const v1_ctrl[] = { "memory", "pids" };
static char v1_home[2][600], v1_own[2][700]; /* paths of cgroup folders */

/* The folder of controller c in /proc/self/cgroup, under /sys/fs/cgroup/c. */
static int v1_current(const char *c, char *out, size_t n)
{
	char line[700], want[40];
	FILE *f = fopen("/proc/self/cgroup", "r");
	int found = 0;
	if (!f)
		return -1;
	snprintf(want, sizeof(want), ":%s:", c);
	while (!found && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, want);
		if (!p)
			continue;
		p += strlen(want);
		p[strcspn(p, "\n")] = '\0';
		snprintf(out, n, "/sys/fs/cgroup/%s%s", c, strcmp(p, "/") == 0 ? "" : p);
		found = 1;
	}
	fclose(f);
	return found ? 0 : -1;
}

/* Move into <current>/tg-test-<pid> for memory and pids (v1 only: on v2
 * runs do not use slots). Nothing happens when it cannot: the tests then
 * share the host's slots as before. */
static void v1_enter_own(void)
{
	char pid[32];
	size_t i;
	struct stat st;
	if (stat("/sys/fs/cgroup/memory", &st) != 0 || stat("/sys/fs/cgroup/pids", &st) != 0)
		return;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	for (i = 0; i < 2; i++) {
		if (v1_current(v1_ctrl[i], v1_home[i], sizeof(v1_home[i])) < 0)
			return;
		snprintf(v1_own[i], sizeof(v1_own[i]), "%s/tg-test-%s", v1_home[i], pid);
		if ((mkdir(v1_own[i], 0755) < 0 && errno != EEXIST) ||
		    write_str(v1_own[i], "cgroup.procs", pid) < 0) {
			v1_own[i][0] = '\0';
			return;
		}
	}
}

/* Back to where it was, and its folder and the slots in it removed. */
static void v1_leave_own(void)
{
	char pid[32];
	size_t i;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	for (i = 0; i < 2; i++) {
		DIR *d;
		struct dirent *e;
		if (!v1_own[i][0])
			continue;
		write_str(v1_home[i], "cgroup.procs", pid);
		d = opendir(v1_own[i]);
		while (d && (e = readdir(d)) != NULL) {
			char sub[1800];
			if (strncmp(e->d_name, "tg-", 3) != 0)
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", v1_own[i], e->d_name);
			rmdir(sub);
		}
		if (d)
			closedir(d);
		rmdir(v1_own[i]);
	}
}

int main(int argc, char **argv)
{
	int failed;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sandbox_cgroup_pool),
		cmocka_unit_test(sandbox_cgroup_pool_exit),
		cmocka_unit_test(sandbox_cgroup_slots),
		cmocka_unit_test(sandbox_cgroup_pids_slot_locked),
		cmocka_unit_test(sandbox_cgroup_slot_limits_other_process),
		cmocka_unit_test(sandbox_cgroup_cpu_reuse),
		cmocka_unit_test(sandbox_cgroups_cleaned),
	};
	if (argc == 2 && strcmp(argv[1], "--slot-limits") == 0)
		return slot_limits_scenario(); /* a child: in its parent's folder */
	v1_enter_own();
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	tg_sandbox_pool_stop();
	sbx_cgroup_pool_drain();
	v1_leave_own();
	return failed;
}
