/*
 * sandbox/netns.c: the network namespace of a run, when the supervisor may
 * make it itself (CAP_SYS_ADMIN in its own user namespace: root).
 *
 * Making a network namespace is the most expensive part of a run's set-up
 * (about 0.25-0.4 ms of kernel CPU here, most of it registering the
 * per-namespace sysctl tables). The tracer thread of a run enters a fresh
 * one before it clones the child, which then inherits it: the namespace is
 * owned by the host's user namespace, so nothing inside the sandbox has any
 * capability over it (its loopback stays down).
 *
 * A long-lived process (the MCP server) calls tg_sandbox_prepare: its
 * filtered runs share one namespace (below); once a run that may not share
 * came (one without the filter), a namespace is made ahead for the next
 * such run: after each run (not during it: on two cores the maker would
 * slow the run down by as much as it saves) a short background thread
 * makes it, so that cost leaves the next call's path. A spare serves
 * exactly one run and is never handed to a forked child.
 *
 * Shared: under tg_sandbox_prepare, a run whose seccomp filter is loaded
 * does not get a namespace of its own but enters the process's one shared
 * namespace (made by the first such run, on its tracer thread, and kept
 * for the life of the process; a forked child makes its own). That saves
 * making and tearing down a namespace per run (the teardown is the
 * kernel's deferred cleanup_net, on a kernel worker: bench/cpu). It is
 * safe because every profile's filter (filter.c) denies socket and
 * socketpair and allows none of bind, connect, listen, accept, sendto or
 * sendmsg: nothing a run can do reaches anything that lives in a network
 * namespace (abstract unix sockets, ports, routes, netfilter), and the
 * namespace belongs to the host's user namespace, so no run holds
 * CAP_NET_ADMIN over it (loopback stays down; there is no /proc inside).
 * A run without the filter (SBX_TEST_NO_SECCOMP) never shares. Without
 * CAP_SYS_ADMIN (not root) nothing is shared: clone3 makes each run's.
 * The same runs share one ipc namespace too, made with the network one: no
 * profile allows a SysV IPC or POSIX message-queue call (shmget, msgget,
 * semget, mq_open and the rest are outside every allowlist) nor any mount
 * (the mqueue file system), so nothing a run can do reaches what lives in
 * an ipc namespace; it is owned by the host's user namespace. That saves
 * its sysctl tables and mqueue mount per run. sandbox_filter_shared_ns
 * checks every profile's filter against those calls; docs/THREAT_MODEL.md
 * has the row; the test is sandbox_net_shared.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t net_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t net_made = PTHREAD_COND_INITIALIZER;
/* safe across fork() (forksafe.c): registered at load, before any thread */
__attribute__((constructor)) static void guard_net_lock(void)
{
	sbx_fork_guard(&net_lock, &net_made);
}
static int spare_fd = -1;      /* a fresh, unused namespace */
static pid_t spare_owner;      /* the process that made it */
static int prepare_on;         /* share, and keep a spare for the others */
static int spare_wanted;       /* an unshared run came: keep a spare ready */
static int refilling;          /* a maker thread is on its way */
static pid_t refill_owner;     /* ... in this process */
static unsigned long last_ino; /* tests: the namespace the last run used */
static int shared_fd = -1;     /* the shared namespace, made by a run */
static int shared_ipc_fd = -1; /* the shared ipc namespace, made with it */
static pid_t shared_owner;
static unsigned long last_ipc_ino; /* tests: the ipc namespace the last shared run used */
static int shared_denied;      /* unshare refused (not root): not tried again */

/* State inherited through fork() is the parent's: a spare it may use, a
 * maker thread that does not exist here. Called with net_lock held. */
static void forget_parent(void)
{
	if (spare_fd >= 0 && spare_owner != getpid()) {
		close(spare_fd);
		spare_fd = -1;
	}
	if (refilling && refill_owner != getpid())
		refilling = 0;
	if (shared_fd >= 0 && shared_owner != getpid()) {
		close(shared_fd);
		shared_fd = -1;
		if (shared_ipc_fd >= 0)
			close(shared_ipc_fd);
		shared_ipc_fd = -1;
	}
}

static void note_ino(int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0)
		last_ino = (unsigned long)st.st_ino;
}

/* The calling (tracer) thread into the shared namespaces, made here by the
 * first run. SBX_NET_SHARED_IPC when in the shared network and ipc
 * namespaces, SBX_NET_OWN when in the shared network namespace only (the
 * ipc one could not be entered: the child gets its own), 0 when not
 * shared (not prepared, or it could not be made or entered: the caller's
 * usual path). */
static int enter_shared(void)
{
	int ok = 0, ipc = 0;

	pthread_mutex_lock(&net_lock);
	forget_parent();
	if (prepare_on && shared_fd >= 0) {
		ok = setns(shared_fd, CLONE_NEWNET) == 0;
		ipc = ok && shared_ipc_fd >= 0 && setns(shared_ipc_fd, CLONE_NEWIPC) == 0;
	} else if (prepare_on && !shared_denied) {
		/* this thread serves this run only: it stays in the namespaces */
		ok = unshare(CLONE_NEWNET | CLONE_NEWIPC) == 0;
		shared_denied = !ok && errno == EPERM;
		if (ok) {
			shared_fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
			shared_ipc_fd = open("/proc/thread-self/ns/ipc", O_RDONLY | O_CLOEXEC);
			shared_owner = getpid();
			ipc = shared_ipc_fd >= 0;
		}
	}
	if (ok && shared_fd >= 0)
		note_ino(shared_fd);
	if (ipc) {
		struct stat st;
		if (fstat(shared_ipc_fd, &st) == 0)
			last_ipc_ino = (unsigned long)st.st_ino;
	}
	pthread_mutex_unlock(&net_lock);
	return ipc ? SBX_NET_SHARED_IPC : ok ? SBX_NET_OWN : 0;
}

static int take_spare(void)
{
	struct timespec until;
	int fd = -1;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 50 * 1000000L; /* a maker takes ~0.3 ms; never hang on it */
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&net_lock);
	forget_parent();
	/* One on its way: waiting for it is cheaper than making another at
	 * the same time (two makers slow each other down). */
	while (spare_fd < 0 && refilling && prepare_on)
		if (pthread_cond_timedwait(&net_made, &net_lock, &until) != 0)
			break;
	if (spare_fd >= 0) {
		fd = spare_fd;
		spare_fd = -1;
	}
	pthread_mutex_unlock(&net_lock);
	return fd;
}

static void *maker_main(void *arg)
{
	int fd = -1;
	uint64_t t0 = tg_prof_on ? tg_prof_ns() : 0;

	(void)arg;
	/* this thread's own namespace; the fd keeps it once the thread ends */
	if (unshare(CLONE_NEWNET) == 0)
		fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	pthread_mutex_lock(&net_lock);
	refilling = 0;
	if (fd >= 0 && spare_fd < 0 && prepare_on) {
		spare_fd = fd;
		spare_owner = getpid();
		fd = -1;
	}
	pthread_cond_broadcast(&net_made);
	pthread_mutex_unlock(&net_lock);
	if (fd >= 0)
		close(fd);
	if (t0)
		tg_prof_span("netns", t0, tg_prof_ns());
	return NULL;
}

/* Start a maker thread when a spare is wanted and none is there or coming. */
static void refill(void)
{
	pthread_attr_t at;
	pthread_t th;
	int go;

	pthread_mutex_lock(&net_lock);
	forget_parent();
	go = prepare_on && spare_wanted && spare_fd < 0 && !refilling;
	if (go) {
		refilling = 1;
		refill_owner = getpid();
	}
	pthread_mutex_unlock(&net_lock);
	if (!go)
		return;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 64 * 1024);
	if (pthread_create(&th, &at, maker_main, NULL) != 0) {
		pthread_mutex_lock(&net_lock);
		refilling = 0;
		pthread_cond_broadcast(&net_made);
		pthread_mutex_unlock(&net_lock);
	}
	pthread_attr_destroy(&at);
}

int sbx_net_enter(int may_share)
{
	int fd, ok = 0, e;

	if (may_share && (e = enter_shared()) != 0)
		return e;
	pthread_mutex_lock(&net_lock);
	spare_wanted = prepare_on;
	pthread_mutex_unlock(&net_lock);
	fd = take_spare();
	if (fd >= 0) {
		ok = setns(fd, CLONE_NEWNET) == 0;
		if (ok) {
			pthread_mutex_lock(&net_lock);
			note_ino(fd);
			pthread_mutex_unlock(&net_lock);
		}
		close(fd);
	}
	if (!ok)
		ok = unshare(CLONE_NEWNET) == 0;
	return ok ? SBX_NET_OWN : 0;
}

void sbx_net_after_run(void)
{
	refill();
}

void tg_sandbox_prepare(int on)
{
	int fd = -1, sfd = -1, ifd = -1;

	sbx_mnt_template_prepare(on);
	pthread_mutex_lock(&net_lock);
	forget_parent();
	prepare_on = on;
	if (!on && spare_fd >= 0) {
		fd = spare_fd;
		spare_fd = -1;
	}
	if (!on)
		spare_wanted = 0;
	if (!on && shared_fd >= 0) { /* runs in it keep it alive */
		sfd = shared_fd;
		shared_fd = -1;
		ifd = shared_ipc_fd;
		shared_ipc_fd = -1;
	}
	pthread_mutex_unlock(&net_lock);
	if (fd >= 0)
		close(fd);
	if (sfd >= 0)
		close(sfd);
	if (ifd >= 0)
		close(ifd);
}

void sbx_net_test_lock(int take)
{
	if (take)
		pthread_mutex_lock(&net_lock);
	else
		pthread_mutex_unlock(&net_lock);
}

/* The inode of a namespace this process holds, 0 if none. */
static unsigned long held_ino(const int *fd, const pid_t *owner)
{
	struct stat st;
	unsigned long r = 0;

	pthread_mutex_lock(&net_lock);
	if (*fd >= 0 && *owner == getpid() && fstat(*fd, &st) == 0)
		r = (unsigned long)st.st_ino;
	pthread_mutex_unlock(&net_lock);
	return r;
}

unsigned long sbx_net_spare_ino(void)
{
	return held_ino(&spare_fd, &spare_owner);
}

/* A value noted under net_lock. */
static unsigned long noted(const unsigned long *v)
{
	unsigned long r;

	pthread_mutex_lock(&net_lock);
	r = *v;
	pthread_mutex_unlock(&net_lock);
	return r;
}

unsigned long sbx_net_last_ino(void)
{
	return noted(&last_ino);
}

unsigned long sbx_net_shared_ipc_ino(void)
{
	return held_ino(&shared_ipc_fd, &shared_owner);
}

unsigned long sbx_net_last_ipc_ino(void)
{
	return noted(&last_ipc_ino);
}

unsigned long sbx_net_shared_ino(void)
{
	return held_ino(&shared_fd, &shared_owner);
}
