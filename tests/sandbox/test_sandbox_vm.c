/*
 * tests/sandbox/test_sandbox_vm.c: the child that shares the supervisor's
 * memory until its execve (CLONE_VM, sandbox/run.c), as cases of
 * sandbox_attacks (main() is in test_sandbox.c). Where it is on, a run
 * leaves this process's pages writable (no copy-on-write fault for each
 * page written after it) and, as root, this process not dumpable; where it is
 * off (TG_SANDBOX_FORK_CHILD=1, the *_fork ctest entry), the same writes
 * fault, which shows the measure can see a copy. A signal sent to the
 * child before its execve runs none of this process's handlers there (it
 * would run them in our memory): as the init of its pid namespace, with
 * no handler, it drops it, and its run goes on; its program starts with
 * the signal mask of the thread that ran it and our ignored signals, as a
 * copy's would.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "sbx_test.h"
#include "sbx_attacks.h"

#define VM_PAGES 512

static long thread_minflt(void)
{
	struct rusage ru;
	assert_int_equal(getrusage(RUSAGE_THREAD, &ru), 0);
	return ru.ru_minflt;
}

/* With the pool on, its refill clones after our run: wait until it is full
 * again, so that any copy it made is made before we write. */
static void pool_settled(void)
{
	char why[200];
	int i;

	if (!sbx_pool_on)
		return;
	for (i = 0; i < 5000 && tg_sandbox_pool_ready(why, sizeof(why)) < sbx_pool_on; i++)
		usleep(1000);
	assert_int_equal(tg_sandbox_pool_ready(why, sizeof(why)), sbx_pool_on);
}

void sandbox_shared_vm_faults(void **state)
{
	const char *off = getenv("TG_SANDBOX_FORK_CHILD");
	int forked = off && strcmp(off, "1") == 0;
	long page = sysconf(_SC_PAGESIZE), before, faults;
	char *buf;

	SBX_NATIVE_ONLY("a native child that shares the supervisor's memory");
	int i;

	(void)state;
	assert_int_equal(sbx_share_vm(), !forked);
	buf = mmap(NULL, (size_t)page * VM_PAGES, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(buf != MAP_FAILED);
	/* small pages: a huge one would fault once for all of them */
	(void)madvise(buf, (size_t)page * VM_PAGES, MADV_NOHUGEPAGE);
	memset(buf, 1, (size_t)page * VM_PAGES); /* all present and writable now */
	expect_exit(run_attack(0, 0, "echo_stdin", NULL), 0, "");
	pool_settled();
	before = thread_minflt();
	for (i = 0; i < VM_PAGES; i++)
		buf[(long)i * page]++;
	faults = thread_minflt() - before;
	munmap(buf, (size_t)page * VM_PAGES);
	if (forked) {
		/* a copy of this process was made: every page written faults */
		if (faults < VM_PAGES)
			fail_msg("a forked child should cost a fault per page: %ld of %d", faults,
				 VM_PAGES);
		return;
	}
	if (faults > VM_PAGES / 16)
		fail_msg("%ld of %d pages faulted after a run: the child copied this process",
			 faults, VM_PAGES);
	/* our memory's dumpable flag, which the child's id change would set
	 * for both: cleared for good as root (not root, the child's uid is
	 * ours and the flag stays set: the maps are written through it) */
	assert_int_equal(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), geteuid() != 0);
}

static volatile sig_atomic_t handler_ran;

static void on_usr1(int sig)
{
	(void)sig;
	handler_ran = 1;
}

struct held_run {
	tg_run_result *res;
	int rc;
	char err[1100];
};

static void *run_held(void *arg)
{
	struct held_run *h = arg;
	const char *argv[] = { "sigmask", NULL };
	tg_sandbox_opts o;
	sigset_t usr2;

	/* the tool gets this thread's mask (its tracer's), exactly */
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &usr2, NULL);
	memset(&o, 0, sizeof(o));
	o.program = ATTACK("sigmask");
	o.argv = argv;
	o.timeout_ms = 5000;
	h->rc = sbx_run_with(&h->res, &o, SBX_TEST_HOLD_GO);
	if (h->rc < 0)
		snprintf(h->err, sizeof(h->err), "%s", tg_error_last()->message);
	return NULL;
}

/* Is pid blocked in read(2) (/proc/PID/syscall: its number first)? */
static int waits_in_read(int pid)
{
	char path[64], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strncmp(buf, "0 ", 2) == 0;
}

void sandbox_shared_vm_signals(void **state)
{
	struct sigaction sa, old;
	void (*pipe_was)(int);
	struct held_run h;
	pthread_t th;
	int pid = 0, i;

	(void)state;
	memset(&h, 0, sizeof(h));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	pipe_was = signal(SIGPIPE, SIG_IGN);
	handler_ran = 0;
	atomic_store(&sbx_test_held, 0);
	assert_int_equal(pthread_create(&th, NULL, run_held, &h), 0);
	for (i = 0; i < 5000 && (pid = atomic_load(&sbx_test_held)) == 0; i++)
		usleep(1000);
	assert_true(pid > 0);
	/* the child waits for go: cloned, its handlers already put back. A
	 * pid namespace's init drops a signal from outside that it has no
	 * handler for; with ours still set, the handler would run in it, in
	 * our memory, within a few milliseconds. */
	if (sbx_share_vm()) { /* a copy would run our handler in its own memory */
		/* once the child waits for go it is past the point where a
		 * copy makes itself dumpable: our memory (its) must not be */
		for (i = 0; i < 2000 && !waits_in_read(pid); i++)
			usleep(1000);
		assert_true(waits_in_read(pid));
		assert_int_equal(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), geteuid() != 0);
		assert_int_equal(kill(pid, SIGUSR1), 0);
		for (i = 0; i < 200 && !handler_ran; i++)
			usleep(1000);
	}
	atomic_store(&sbx_test_held, 0); /* let the tracer go on */
	pthread_join(th, NULL);
	sigaction(SIGUSR1, &old, NULL);
	signal(SIGPIPE, pipe_was);
	if (handler_ran)
		fail_msg("our SIGUSR1 handler ran in the child, in our memory");
	if (h.rc < 0)
		fail_msg("the held run failed: %s", h.err);
	/* SIGUSR2 (12) blocked, as in the thread that ran it; SIGPIPE (13)
	 * ignored, as in this process (ignored stays ignored across execve) */
	expect_exit(h.res, 0, "blocked 800 ignored 1000\n");
}
