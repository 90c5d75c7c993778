/*
 * tests/sandbox/test_sandbox_pool.c: the sandbox pool (sandbox/pool.c) and
 * the seccomp filter's build, as cases of sandbox_attacks (main() is in
 * test_sandbox.c). A pool never holds more than its size, serves each run
 * from its own child and leaves none behind at its stop; a fork while its
 * lock is held gives a child that can pool; a ready entry is
 * the waiter exec'd from its memfd, with nothing of this process mapped,
 * and reports an exec failure as the unpooled path does; the filter built
 * into the binary is what libseccomp compiles today.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "sbx_test.h"
#include "sbx_attacks.h"

/* Child processes of this process now (all its threads). */
static int count_children(void)
{
	char path[300], buf[4096];
	struct dirent *e;
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		FILE *f;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/children", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f))
			for (char *p = strtok(buf, " \n"); p; p = strtok(NULL, " \n"))
				n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

/* Descriptors of process pid ("self" or a number) that hold a mount
 * namespace: the pool holds each entry's until its release (run.c,
 * hold_mntns). */
static int count_mntns_fds(const char *pid)
{
	char path[300], link[64];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	d = opendir(path);
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		ssize_t k;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, e->d_name);
		k = readlink(path, link, sizeof(link) - 1);
		if (k > 0) {
			link[k] = '\0';
			n += strncmp(link, "mnt:[", 5) == 0;
		}
	}
	closedir(d);
	return n;
}

/* The identity attack through tg_sandbox_run as a pool serves it: it exits,
 * and its root has no /tool (the program is a descriptor). */
static void pooled_identity(void)
{
	tg_sandbox_opts o;
	tg_run_result *r = NULL;

	memset(&o, 0, sizeof(o));
	o.program = ATTACK("identity");
	assert_int_equal(tg_sandbox_run(&r, &o), 0);
	assert_int_equal(r->reason, TG_REASON_EXITED);
	assert_non_null(strstr(r->out, "root: dev tmp\n"));
	tg_run_result_free(r);
}

/* The pool: each run is served by its own child (never reused), the pool
 * never holds more than its size, and a stop leaves no child behind. */
void sandbox_pool_bounds(void **state)
{
	unsigned long before;
	int i, k, base;

	(void)state;
	tg_sandbox_pool_stop();
	base = count_children(); /* what earlier tests left (host sleepers) */
	assert_int_equal(tg_sandbox_pool_start(2, &sbx_pool_ceilings), 0);
	before = sbx_pool_served();
	for (i = 0; i < 4; i++) {
		pooled_identity();
		k = tg_sandbox_pool_ready(NULL, 0);
		assert_true(k >= 0 && k <= 2);
		assert_true(count_children() <= base + 2);
		/* the mount namespaces held: the ready entries', the one being
		 * made and the served ones not yet released, and the prepared
		 * mount trees (mnt_template.c); never one a run */
		assert_true(count_mntns_fds("self") <= 2 + 1 + 1 + sbx_mnt_template_count());
	}
	/* a ready entry's child holds no other sandbox's namespace (its
	 * descriptors are closed before it waits) */
	{
		char pidname[16];
		int pid = 0;
		for (k = 0; k < 1000 && sbx_pool_test_pids(&pid, 1) != 1; k++)
			usleep(10000);
		assert_true(pid > 0);
		snprintf(pidname, sizeof(pidname), "%d", pid);
		assert_int_equal(count_mntns_fds(pidname), 0);
	}
	assert_int_equal(sbx_pool_served(), before + 4);
	/* a run that does not fit (dynamic) takes the ordinary path */
	{
		static const char *const argv[] = { "true", NULL };
		tg_sandbox_opts o;
		tg_run_result *r = NULL;
		memset(&o, 0, sizeof(o));
		o.program = "/bin/true";
		o.argv = argv;
		o.dynamic = 1;
		assert_int_equal(tg_sandbox_run(&r, &o), 0);
		assert_int_equal(r->reason, TG_REASON_EXITED);
		tg_run_result_free(r);
		assert_int_equal(sbx_pool_served(), before + 4);
	}
	tg_sandbox_pool_stop();
	assert_int_equal(tg_sandbox_pool_ready(NULL, 0), 0);
	assert_int_equal(count_children(), base);
	/* every held namespace is let go at the release: none is left but
	 * the prepared trees, kept for the process's life */
	assert_int_equal(count_mntns_fds("self"), sbx_mnt_template_count());
	if (sbx_pool_on)
		assert_int_equal(tg_sandbox_pool_start(2, &sbx_pool_ceilings), 0);
}

/* A thread holding the pool's lock (or the net namespace maker's) while
 * another forks, as the refill thread or the maker may at any moment: the
 * fork waits for the lock (sandbox/forksafe.c), and the child can start its
 * own pool and run from it. Without the guard the child inherits the lock
 * held by a thread it does not have and hangs (seen: a forked supervisor,
 * about one run in twenty on a loaded host). */
struct holder {
	void (*lock)(int);
	pthread_mutex_t m;
	pthread_cond_t cv;
	int held, forked;
};

static void *hold_lock(void *arg)
{
	struct holder *h = arg;

	h->lock(1);
	pthread_mutex_lock(&h->m);
	h->held = 1;
	pthread_cond_signal(&h->cv);
	pthread_mutex_unlock(&h->m);
	usleep(300000);
	h->lock(0);
	/* alive until the fork is over: a thread that exits meanwhile can
	 * hold a lock of the runtime's own (ASan's quarantine, seen) that the
	 * child would then inherit held */
	pthread_mutex_lock(&h->m);
	while (!h->forked)
		pthread_cond_wait(&h->cv, &h->m);
	pthread_mutex_unlock(&h->m);
	return NULL;
}

static void fork_while_held(void (*lock)(int))
{
	struct holder h = { lock, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };
	struct timespec t0, t1;
	pthread_t th;
	pid_t pid;
	int st = 0, i;

	assert_int_equal(pthread_create(&th, NULL, hold_lock, &h), 0);
	pthread_mutex_lock(&h.m);
	while (!h.held)
		pthread_cond_wait(&h.cv, &h.m);
	pthread_mutex_unlock(&h.m);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		tg_sandbox_opts o;
		tg_run_result *r = NULL;
		unsigned long before = sbx_pool_served(); /* the parent's count, copied */
		memset(&o, 0, sizeof(o));
		o.program = ATTACK("identity");
		if (tg_sandbox_pool_start(1, &sbx_pool_ceilings) != 0)
			_exit(2);
		if (tg_sandbox_run(&r, &o) != 0 || r->reason != TG_REASON_EXITED)
			_exit(3);
		_exit(sbx_pool_served() == before + 1 ? 0 : 4); /* from its pool */
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_mutex_lock(&h.m);
	h.forked = 1;
	pthread_cond_signal(&h.cv);
	pthread_mutex_unlock(&h.m);
	pthread_join(th, NULL);
	assert_true(pid > 0);
	for (i = 0; i < 2000 && waitpid(pid, &st, WNOHANG) == 0; i++)
		usleep(10000);
	if (i == 2000) { /* never leave it behind */
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		fail_msg("the forked child hung (a lock inherited held)");
	}
	/* the fork waited for the holder to let go */
	assert_true((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 >= 200);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

void sandbox_pool_fork_safe(void **state)
{
	(void)state;
	fork_while_held(sbx_pool_test_lock);
	fork_while_held(sbx_net_test_lock);
}

/* A ready pool entry's child is the waiter (sandbox/waiter), exec'd from
 * its memfd: none of this process's mappings is left in it. It serves its
 * run, and an exec failure of the program it runs is reported as the
 * unpooled path reports one (a script: no interpreter in the sandbox). */
void sandbox_pool_waiter(void **state)
{
	char path[] = "/tmp/tg-sbx-script-XXXXXX", exe[256], self[256], maps[8192];
	unsigned long before;
	tg_sandbox_opts o;
	tg_run_result *r = NULL;
	ssize_t k;
	int pid = 0, i, fd;

	(void)state;
	tg_sandbox_pool_stop();
	assert_int_equal(tg_sandbox_pool_start(1, &sbx_pool_ceilings), 0);
	for (i = 0; i < 1000 && sbx_pool_test_pids(&pid, 1) != 1; i++)
		usleep(10000);
	assert_true(pid > 0);
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	k = readlink(path, exe, sizeof(exe) - 1);
	assert_true(k > 0);
	exe[k] = '\0';
	assert_true(strncmp(exe, "/memfd:tg-waiter", 16) == 0);
	k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(k > 0);
	self[k] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	k = read(fd, maps, sizeof(maps) - 1);
	close(fd);
	assert_true(k > 0);
	maps[k] = '\0';
	assert_non_null(strstr(maps, "memfd:tg-waiter"));
	assert_null(strstr(maps, self));
	assert_null(strstr(maps, "[heap]"));
	assert_null(strstr(maps, "libc"));

	before = sbx_pool_served();
	pooled_identity();
	assert_int_equal(sbx_pool_served(), before + 1);
	assert_int_equal(kill(pid, 0) < 0 ? errno : 0, ESRCH); /* reaped with its run */

	snprintf(path, sizeof(path), "/tmp/tg-sbx-script-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\necho hi\n", 18), 18);
	close(fd);
	chmod(path, 0755);
	memset(&o, 0, sizeof(o));
	o.program = path;
	assert_int_equal(tg_sandbox_run(&r, &o), 0);
	unlink(path);
	assert_int_equal(r->reason, TG_REASON_SETUP);
	assert_int_equal(r->signal, 0);
	assert_non_null(strstr(r->err, "cannot execute"));
	assert_non_null(strstr(r->err, strerror(ENOENT)));
	tg_run_result_free(r);
	assert_int_equal(sbx_pool_served(), before + 2);
	tg_sandbox_pool_stop();
	if (sbx_pool_on)
		assert_int_equal(tg_sandbox_pool_start(2, &sbx_pool_ceilings), 0);
}

/* What the shared namespaces of a prepared process rest on (netns.c):
 * every profile's filter denies each call that could reach something in a
 * network or an ipc namespace, whatever its arguments. Evaluated on the
 * filters the runs load, with the x86-64 numbers and a few argument sets
 * (the socket families among them). */
void sandbox_filter_shared_ns(void **state)
{
	static const struct {
		const char *name;
		long nr;
	} calls[] = {
		{ "socket", SYS_socket },	  { "socketpair", SYS_socketpair },
		{ "bind", SYS_bind },		  { "connect", SYS_connect },
		{ "listen", SYS_listen },	  { "accept", SYS_accept },
		{ "accept4", SYS_accept4 },	  { "sendto", SYS_sendto },
		{ "sendmsg", SYS_sendmsg },	  { "sendmmsg", SYS_sendmmsg },
		{ "shmget", SYS_shmget },	  { "shmat", SYS_shmat },
		{ "shmctl", SYS_shmctl },	  { "shmdt", SYS_shmdt },
		{ "msgget", SYS_msgget },	  { "msgsnd", SYS_msgsnd },
		{ "msgrcv", SYS_msgrcv },	  { "msgctl", SYS_msgctl },
		{ "semget", SYS_semget },	  { "semop", SYS_semop },
		{ "semtimedop", SYS_semtimedop }, { "semctl", SYS_semctl },
		{ "mq_open", SYS_mq_open },	  { "mq_unlink", SYS_mq_unlink },
		{ "mq_timedsend", SYS_mq_timedsend }, { "mq_timedreceive", SYS_mq_timedreceive },
		{ "mq_notify", SYS_mq_notify },	  { "mq_getsetattr", SYS_mq_getsetattr },
		{ "mount", SYS_mount },		  { "fsopen", SYS_fsopen },
		{ "setns", SYS_setns },		  { "unshare", SYS_unshare },
	};
	static const uint64_t arg0[] = { 0, 1 /* AF_UNIX */, 2 /* AF_INET */, 3, 10 /* AF_INET6 */,
					 16 /* AF_NETLINK */, 17 /* AF_PACKET */, 40 /* AF_VSOCK */ };
	int p;
	size_t i, k;

	(void)state;
	for (p = 0; p < SBX_PROFILE_COUNT; p++) {
		const struct sock_fprog *f = NULL;
		assert_int_equal(sbx_filter_get(&f, p), 0);
		for (i = 0; i < TG_ARRAY_SIZE(calls); i++)
			for (k = 0; k < TG_ARRAY_SIZE(arg0); k++) {
				struct seccomp_data d;
				uint32_t act;
				memset(&d, 0, sizeof(d));
				d.nr = (int)calls[i].nr;
				d.arch = AUDIT_ARCH_X86_64;
				d.args[0] = arg0[k];
				d.args[1] = 1; /* SOCK_STREAM */
				d.args[2] = k % 2 ? 3 : 0;
				act = sbx_bpf_eval(f, &d) & SECCOMP_RET_ACTION_FULL;
				if (act == SECCOMP_RET_ALLOW || act == SECCOMP_RET_LOG)
					fail_msg("profile %d allows %s (arg0 %llu)", p, calls[i].name,
						 (unsigned long long)arg0[k]);
			}
	}
}

/* The build-time BPF is what libseccomp compiles from filter.c today. */
void sandbox_filter_fresh(void **state)
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
