/*
 * sandbox/forksafe.c: the sandbox's process-wide locks across fork().
 * The pool's lock and condition (pool.c), the net namespace maker's
 * (netns.c), the cgroup slots' lock (cgroup_v1.c), the kept cpu folders'
 * (cgroup_cpu.c), the mount templates' (mnt_template.c) and the device
 * nodes' (spec.c) are used by background threads (the refill thread, the
 * maker) or by several runs at once. A process that forks while one of them holds its lock, or waits
 * on its condition, gives the child a copy that names a thread the child
 * does not have: its first run, or its tg_sandbox_pool_start, waits
 * forever (a test's forked supervisor did, about one run in twenty on a
 * loaded host; glibc's condition variable then waits for the missing
 * waiter in pthread_cond_broadcast). Each pair is registered once
 * (sbx_fork_guard); pthread_atfork takes every lock before fork(),
 * releases them after it in the parent, and in the child, the only thread
 * there, makes each lock and condition new. The locks never nest, so the
 * order they are taken in cannot deadlock. clone3() and posix_spawn() run
 * no fork handlers and need none: the pool's children exec or are ours,
 * and never use these locks.
 */
#include "sandbox/internal.h"

/* Room for every lock registered: one more is a programming error that
 * would leave a lock unguarded, so it stops the process at load (every
 * test would). */
#define GUARDS_MAX 16

static struct {
	pthread_mutex_t *m;
	pthread_cond_t *c;
} guards[GUARDS_MAX];
static int nguards;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void before_fork(void)
{
	for (int i = 0; i < nguards; i++)
		pthread_mutex_lock(guards[i].m);
}

static void parent_after(void)
{
	for (int i = nguards; i-- > 0;)
		pthread_mutex_unlock(guards[i].m);
}

static void child_after(void)
{
	static const pthread_mutex_t m0 = PTHREAD_MUTEX_INITIALIZER;
	static const pthread_cond_t c0 = PTHREAD_COND_INITIALIZER;

	for (int i = 0; i < nguards; i++) {
		*guards[i].m = m0;
		if (guards[i].c)
			*guards[i].c = c0;
	}
}

static void install(void)
{
	(void)pthread_atfork(before_fork, parent_after, child_after);
}

void sbx_fork_guard(pthread_mutex_t *m, pthread_cond_t *c)
{
	pthread_once(&once, install);
	if (nguards >= GUARDS_MAX)
		abort();
	guards[nguards].m = m;
	guards[nguards].c = c;
	nguards++;
}
