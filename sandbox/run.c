/*
 * sandbox/run.c: the supervisor of one sandboxed execution (sbx_execute).
 *
 * Two threads per run. A tracer thread, started first, enters the run's
 * empty network namespace (netns.c: the process's shared one for a
 * filtered run under tg_sandbox_prepare, else a spare made ahead, or its
 * own unshare(), ~250 us of CPU spent while the calling thread sets up
 * cgroups and pipes; without CAP_SYS_ADMIN clone3 makes it instead; with
 * the shared network namespace it also enters the process's shared ipc
 * namespace, which the child then keeps) and then
 * clone3()s the child into it and into fresh user/pid/mount/ipc/uts/cgroup
 * namespaces (with a prepared mount tree, mnt_template.c, a pid namespace
 * only: the child makes the others once in the tree and says so, and the
 * maps wait for that), straight into its v2 cgroup when there is one (v1
 * cgroups the child joins itself), maps
 * uid/gid 65534, PTRACE_SEIZEs it (exit, clone and fork events: that is
 * how a seccomp kill is traced back to the denied syscall, since
 * KILL_PROCESS leaves nothing readable in /proc; a pooled run has no exit
 * event: its filter stops a denied call for the tracer, which names it and
 * kills, deny_call) and then reaps it. The calling thread captures stdout/stderr,
 * enforces the wall-clock timeout and the output cap and kills the child's
 * pid-namespace init through a pidfd, which takes the whole tree down.
 * Stdin is a sealed, read-only memfd. The child side is in child.c, the
 * tracer's loop after the clone in trace.c.
 */
#include "sandbox/internal.h"
#include "sandbox/rawsys.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/sysinfo.h>
#include <sys/user.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#define MFD_ALLOW_SEALING 0x0002U
#endif
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif


static int write_proc(pid_t pid, const char *name, const char *val)
{
	char path[64];
	int fd, e = 0;
	size_t n = strlen(val);

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, n) != (ssize_t)n)
		e = -errno;
	close(fd);
	return e;
}

static void notify(struct sbx_run *r)
{
	uint64_t one = 1;
	(void)!write(r->evfd, &one, sizeof(one));
}


/* A pool entry's mount namespace, held by a descriptor (or -1: then the
 * exit tears it down as for any run). When the tool's process ends, the
 * namespace goes with its last reference: umounting its tree costs an RCU
 * grace period (namespace_unlock), on the path between the tool's output
 * and its reap. Held here, that last reference is ours, dropped at the
 * release (run_release), after the result went back (pool.c). */
static int hold_mntns(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

atomic_int sbx_test_held;

/* The child's own stack while it shares our memory (CLONE_VM); its first
 * page stays unmapped, a guard. */
#define SBX_CHILD_STACK (256u * 1024u)

/* May the child share the supervisor's memory from clone3 to its execve
 * (CLONE_VM), as posix_spawn's child does? That spares copying the page
 * tables of a large process for every run, and the copy-on-write faults
 * (each with a TLB shootdown) that the supervisor's threads then take on
 * every page they write, a third of the serving thread's time with the pool
 * (docs/SANDBOX.md, "The child shares the supervisor's memory"). The
 * memory's dumpable flag is the supervisor's own, shared with the child:
 * - As root (with CAP_SYS_PTRACE and CAP_DAC_OVERRIDE: the maps are
 *   written, and the child traced, while the memory is not dumpable) the
 *   child becomes the host's uid 65534, and a dumpable memory would open it,
 *   and with it this process, to /proc/PID/mem of any process of that uid:
 *   the flag is cleared here for good, and the mode is off where
 *   fs.suid_dumpable is 1, which an id change would set it back to.
 * - Not root, the child's 65534 is our own uid on the host: it exposes
 *   nothing a process of ours does not, and its id change leaves the flag
 *   as it is. The flag must be set (the maps are written through the
 *   child's /proc files, ours only while it is): else the copy, which sets
 *   its own.
 * TG_SANDBOX_FORK_CHILD=1 turns it off (benchmarks: before and after in one
 * build). */
static int root_may_share(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	char c = '1'; /* unreadable: as if 1 */
	int fd = open("/proc/sys/fs/suid_dumpable", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = '1';
		close(fd);
	}
	memset(d, 0, sizeof(d));
	return c != '1' && syscall(SYS_capget, &h, d) == 0 &&
	       (d[0].effective & (1u << CAP_SYS_PTRACE)) &&
	       (d[0].effective & (1u << CAP_DAC_OVERRIDE)) &&
	       prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0;
}

int sbx_share_vm(void)
{
	static atomic_int ok = -1;
	int v = atomic_load(&ok);

	if (v < 0) {
		const char *off = getenv("TG_SANDBOX_FORK_CHILD");

		if (off && strcmp(off, "1") == 0)
			v = 0;
		else if (geteuid() != 0)
			v = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 1;
		else
			v = root_may_share();
		atomic_store(&ok, v);
	}
	return v;
}

/* clone3 for r: with CLONE_VM on a stack of the child's own when it may
 * share our memory, else a copy of this process. The child's pid, or -1
 * and errno. */
static pid_t clone_child(struct sbx_run *r, struct clone_args *ca)
{
	sigset_t all, old;
	void *stack = MAP_FAILED;
	long k;

	/* a run with input files (a build step) stays a copy: the child writes
	 * them into its /tmp from our memory, and shared, every page it reads
	 * (a 60 MB object mapped from the step before) would be mapped into
	 * this process as well and count in its RSS until that step's end */
	if (sbx_share_vm() && !r->spec->nfiles)
		stack = mmap(NULL, SBX_CHILD_STACK, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
	if (stack != MAP_FAILED && mprotect(stack, 4096, PROT_NONE) < 0) {
		munmap(stack, SBX_CHILD_STACK);
		stack = MAP_FAILED;
	}
	if (stack == MAP_FAILED) {
		pid_t pid = (pid_t)syscall(SYS_clone3, ca, sizeof(*ca));
		if (pid == 0)
			sbx_child_main(&r->child);
		return pid;
	}
	ca->flags |= CLONE_VM;
	ca->stack = (uint64_t)(uintptr_t)stack;
	ca->stack_size = SBX_CHILD_STACK;
	/* no handler of ours may run in the child: all blocked until it has
	 * put them back to their defaults (child.c, reset_signals) */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	memcpy(&r->child.sigmask, &old, sizeof(r->child.sigmask));
	r->child.shared_vm = 1;
	r->child_stack = stack;
	k = sbx_clone3_on_stack(ca, sizeof(*ca), sbx_child_start, &r->child);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (k < 0) {
		r->child_stack = NULL;
		munmap(stack, SBX_CHILD_STACK);
		errno = (int)-k;
		return -1;
	}
	return (pid_t)k;
}

/* A child entering the prepared mount tree makes its user namespace
 * itself: wait until it says it has (its maps can be written then). A
 * failure it reports is the run's (and, at the template's own steps, ends
 * the use of templates in this process); 0 or -1. */
static int await_unshared(struct sbx_run *r)
{
	struct sbx_msg m;
	ssize_t k;

	do
		k = recv(r->sync_parent, &m, sizeof(m), 0);
	while (k < 0 && errno == EINTR);
	if (k == (ssize_t)sizeof(m) && m.type == SBX_MSG_UNSHARED)
		return 0;
	if (k == (ssize_t)sizeof(m) && m.type == SBX_MSG_ERROR) {
		r->msg = m;
		r->msg.step[sizeof(r->msg.step) - 1] = '\0';
		/* a rule of this kernel, not a passing shortage (ENOMEM,
		 * ENOSPC: the user namespace count) */
		if ((strcmp(r->msg.step, SBX_STEP_TEMPLATE_SETNS) == 0 ||
		     strcmp(r->msg.step, SBX_STEP_TEMPLATE_UNSHARE) == 0) &&
		    (m.err == EPERM || m.err == EINVAL || m.err == EACCES))
			sbx_mnt_template_failed(m.err, r->msg.step);
	} else {
		snprintf(r->tracer_err, sizeof(r->tracer_err), "the child went away");
	}
	return -1;
}

/* The sync socket is the pool's to read from here on (sbx_run_await_clone). */
static void mark_cloned(struct sbx_run *r)
{
	pthread_mutex_lock(&r->mu);
	r->cloned = 1;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

void sbx_run_await_clone(struct sbx_run *r)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	pthread_mutex_lock(&r->mu);
	while (!r->cloned)
		if (pthread_cond_timedwait(&r->cv, &r->mu, &until) != 0)
			break;
	pthread_mutex_unlock(&r->mu);
}

static void *tracer_main(void *arg)
{
	struct sbx_run *r = arg;
	struct clone_args ca;
	int pidfd = -1, e, own_net, go;
	char c, map[64];
	pid_t pid;

	/* An empty network namespace (loopback down) for the child to
	 * inherit: shared by filtered runs of a prepared process (their filter
	 * denies every socket call), else new; the thread is used for this run
	 * only. With
	 * CAP_SYS_ADMIN (root) only: otherwise clone3 makes it below, after
	 * the new user namespace. */
	own_net = sbx_net_enter(r->child.filter != NULL);
	r->child.ipc_shared = own_net == SBX_NET_SHARED_IPC;
	pthread_mutex_lock(&r->mu);
	while (!r->start)
		pthread_cond_wait(&r->cv, &r->mu);
	go = r->start;
	pthread_mutex_unlock(&r->mu);
	if (go < 0) {
		/* the caller failed before the child's ends were handed over */
		atomic_store(&r->finished, 1);
		mark_cloned(r);
		return NULL;
	}

	memset(&ca, 0, sizeof(ca));
	/* with a prepared mount tree the child makes the others itself, once
	 * in it (child.c, enter_template) */
	ca.flags = r->child.mnt_template >= 0
			   ? CLONE_NEWPID | CLONE_PIDFD
			   : CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS |
				     CLONE_NEWCGROUP | CLONE_PIDFD;
	if (!own_net)
		ca.flags |= CLONE_NEWNET;
	if (r->child.ipc_shared)
		ca.flags &= ~(uint64_t)CLONE_NEWIPC;
	ca.pidfd = (uint64_t)(uintptr_t)&pidfd;
	ca.exit_signal = SIGCHLD;
	if (r->cg.version == 2) {
		ca.flags |= CLONE_INTO_CGROUP;
		ca.cgroup = (uint64_t)r->cg.v2fd;
	}
	pid = clone_child(r, &ca);
	/* The child's ends are the child's only. */
	close(r->child.stdin_fd);
	close(r->child.out_fd);
	close(r->child.err_fd);
	close(r->child.sync_fd);
	if (pid < 0) {
		r->clone_errno = errno;
		atomic_store(&r->finished, 1);
		mark_cloned(r);
		notify(r);
		return NULL;
	}
	__atomic_store_n(&r->pid, pid, __ATOMIC_RELEASE); /* read by the pool (boost_making) */
	atomic_store(&r->pidfd, pidfd);
	e = r->child.mnt_template >= 0 ? await_unshared(r) : 0;
	mark_cloned(r);
	if (e < 0)
		goto kill;
	if (r->child.pooled)
		r->mntns_fd = hold_mntns(pid);
	if (atomic_load(&r->cancel))
		goto kill;

	/* The maps can be written as soon as the child exists; it waits for
	 * SBX_MSG_GO before it uses its ids. */
	if (geteuid() != 0) {
		e = write_proc(pid, "setgroups", "deny");
		snprintf(map, sizeof(map), "%u %u 1\n", SBX_UID, (unsigned)geteuid());
		if (e == 0)
			e = write_proc(pid, "uid_map", map);
		snprintf(map, sizeof(map), "%u %u 1\n", SBX_UID, (unsigned)getegid());
	} else {
		snprintf(map, sizeof(map), "%u %u 1\n", SBX_UID, SBX_UID);
		e = write_proc(pid, "uid_map", map);
	}
	if (e == 0)
		e = write_proc(pid, "gid_map", map);
	if (e < 0) {
		snprintf(r->tracer_err, sizeof(r->tracer_err), "writing uid/gid maps: %s",
			 strerror(-e));
		goto kill;
	}
	if (r->spec->test_flags & SBX_TEST_HOLD_GO) {
		int i;
		atomic_store(&sbx_test_held, pid);
		for (i = 0; i < 5000 && atomic_load(&sbx_test_held) == pid; i++)
			usleep(1000);
	}
	/* Without ptrace (already traced, no CAP_SYS_PTRACE) we still run; only
	 * the name of a denied syscall is lost. */
	if (!(r->spec->test_flags & SBX_TEST_NO_PTRACE))
		r->seized = ptrace(PTRACE_SEIZE, pid, 0,
				   /* pooled: denied calls stop at the call (SBX_TRACE_DENY) */
				   (r->child.pooled ? 0 : PTRACE_O_TRACEEXIT) | PTRACE_O_EXITKILL |
					   PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
					   PTRACE_O_TRACEVFORK | PTRACE_O_TRACESECCOMP) == 0;
	c = SBX_MSG_GO;
	if (send(r->sync_parent, &c, 1, MSG_NOSIGNAL) != 1) {
		snprintf(r->tracer_err, sizeof(r->tracer_err), "the child went away");
		goto kill;
	}
	r->ready = 1;
	if (!r->child.pooled)
		tg_prof_mark(TG_PROF_SETUP);
	sbx_trace_loop(r);
	atomic_store(&r->finished, 1);
	notify(r);
	return NULL;
kill:
	syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	sbx_trace_loop(r);
	atomic_store(&r->finished, 1);
	notify(r);
	return NULL;
}

/* Hand the prepared run to the tracer (go = 1) or release it (-1). */
static void start_tracer(struct sbx_run *r, int go)
{
	pthread_mutex_lock(&r->mu);
	r->start = go;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

int sbx_make_stdin(const char *data, size_t len)
{
	char path[64];
	size_t off = 0;
	int fd, ro;

	fd = (int)syscall(SYS_memfd_create, "tg-stdin", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);
	if (fd < 0 && errno == EINVAL)
		fd = (int)syscall(SYS_memfd_create, "tg-stdin", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t k = write(fd, data + off, len - off);
		if (k <= 0) {
			int e = k < 0 ? errno : EIO;
			close(fd);
			return -e;
		}
		off += (size_t)k;
	}
	fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY | O_CLOEXEC);
	close(fd);
	return ro < 0 ? -errno : ro;
}

static void kill_child(struct sbx_run *r)
{
	atomic_store(&r->cancel, 1);
	int fd = atomic_load(&r->pidfd);
	if (fd >= 0)
		syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
}

int sbx_pump(int fd, tg_buf *b, size_t *total, size_t cap, int *over)
{
	char tmp[65536];

	for (;;) {
		ssize_t k = read(fd, tmp, sizeof(tmp));
		if (k == 0)
			return 1;
		if (k < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : 1;
		if (*total + (size_t)k > cap) {
			size_t room = cap - *total;
			if (room)
				tg_buf_append(b, tmp, room);
			*total = cap;
			*over = 1;
			return 0;
		}
		tg_buf_append(b, tmp, (size_t)k);
		*total += (size_t)k;
	}
}

static int finish_result(tg_run_result **out, struct sbx_run *r, tg_buf *ob, tg_buf *eb,
			 int killed_reason, uint64_t t0, uint32_t cpu_limit_s)
{
	tg_run_result *res = calloc(1, sizeof(*res));
	/* a crash the tracer ended: as if that signal had killed it; a
	 * denied call it ended (pooled): as if the filter had (SIGSYS) */
	int st = r->crash_sig && killed_reason < 0 ? r->crash_sig
		 : r->denied ? SIGSYS : r->status;

	if (!res)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	res->exit_code = -1;
	res->wall_ms = tg_now_ms() - t0;
	res->cpu_ms = (uint64_t)(r->ru.ru_utime.tv_sec + r->ru.ru_stime.tv_sec) * 1000 +
		      (uint64_t)(r->ru.ru_utime.tv_usec + r->ru.ru_stime.tv_usec) / 1000;
	res->max_rss_kb = (uint64_t)r->ru.ru_maxrss;
	res->cgroups = r->cg.version != 0;
	res->cpu_limited = r->cpu.version != 0;
	res->landlock = r->child.landlock_abi > 0;
	res->timens = r->child.timens_offsets[0] != '\0';
	if (WIFSIGNALED(st))
		res->signal = WTERMSIG(st);
	if (r->msg.type == SBX_MSG_EXEC) {
		res->reason = TG_REASON_SETUP;
		res->signal = 0;
		tg_buf_clear(eb);
		tg_buf_printf(eb, "toolgate: sandbox: cannot execute %s: %s\n",
			      r->spec->display ? r->spec->display : r->spec->exec_path,
			      strerror(r->msg.err));
	} else if (killed_reason >= 0) {
		res->reason = (tg_reason)killed_reason;
	} else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS && !r->crash_sig) {
		res->reason = TG_REASON_SECCOMP;
	} else if (!r->crash_sig &&
		   /* a tool cannot fork: one that exited was not OOM-killed (its
		    * whole process would have been); a build's compiler may be */
		   !(WIFEXITED(st) && r->spec->profile != SBX_PROFILE_BUILD) &&
		   sbx_cgroup_oom(&r->cg)) {
		res->reason = TG_REASON_MEMORY;
	} else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGXFSZ) {
		res->reason = TG_REASON_FILE_SIZE;
	} else if (WIFSIGNALED(st) &&
		   (WTERMSIG(st) == SIGXCPU ||
		    /* RLIMIT_CPU's SIGKILL (soft = hard): the rusage a reap reports
		     * can trail the kernel's own count on a loaded machine, more
		     * with several threads (seen: 6890 and 6391 ms at a 7 s
		     * limit); the supervisor's own kills were named above, so a
		     * SIGKILL within a fifth of the limit is the limit's */
		    (WTERMSIG(st) == SIGKILL &&
		     res->cpu_ms + (cpu_limit_s * 200ull > 250 ? cpu_limit_s * 200ull : 250) >=
			     cpu_limit_s * 1000ull))) {
		res->reason = TG_REASON_CPU;
	} else if (WIFEXITED(st)) {
		res->reason = TG_REASON_EXITED;
		res->exit_code = WEXITSTATUS(st);
	} else {
		res->reason = TG_REASON_SIGNALED;
	}
	if (res->reason == TG_REASON_SECCOMP && r->sys_found)
		sbx_syscall_name(res->syscall, sizeof(res->syscall), r->sys_arch, r->sys_nr);
	res->out = tg_buf_detach(ob, &res->out_len);
	res->err = tg_buf_detach(eb, &res->err_len);
	if (!res->out || !res->err) {
		tg_run_result_free(res);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	*out = res;
	return 0;
}

int sbx_run_setup(struct sbx_run *r, const struct sbx_spec *s, int waiter_fd)
{
	int ret = 0, pooled = waiter_fd >= 0;

	memset(r, 0, sizeof(*r));
	r->spec = s;
	r->tmpfd = -1;
	r->evfd = -1;
	r->in = r->sync_parent = -1;
	r->outp[0] = r->outp[1] = r->errp[0] = r->errp[1] = r->sp[0] = r->sp[1] = -1;
	atomic_init(&r->pidfd, -1);
	atomic_init(&r->cancel, 0);
	atomic_init(&r->finished, 0);
	r->cg.v2fd = r->cg.slot_fd = r->cg.pids_fd = -1;
	r->mntns_fd = -1;
	r->t0 = tg_now_ms();
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	if (!(s->test_flags & SBX_TEST_NO_SECCOMP)) {
		ret = sbx_filter_get(&r->child.filter, pooled ? SBX_PROFILE_RUN_POOLED : s->profile);
		if (ret < 0)
			return ret;
	}
	/* The tracer starts on the network namespace now; it waits for the
	 * rest below. */
	if (pthread_create(&r->th, NULL, tracer_main, r) != 0)
		return tg_error_set(TG_ERR_IO, "sandbox: cannot start the tracer thread");
	r->thread_started = 1;
	/* cgroups, else rlimits only (the run goes on; see tg_sandbox_cgroups()). */
	if (sbx_cgroup_create(&r->cg, (uint64_t)s->memory_mb << 20, s->max_procs) < 0)
		r->cg.version = 0;

	if (pipe2(r->outp, O_CLOEXEC) < 0 || pipe2(r->errp, O_CLOEXEC) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, r->sp) < 0)
		return tg_error_errno(TG_ERR_IO, errno, "sandbox: pipes");
	if (!pooled) { /* a pooled child gets its stdin with its run */
		r->in = sbx_make_stdin(s->stdin_data ? s->stdin_data : "",
				       s->stdin_data ? s->stdin_len : 0);
		if (r->in < 0) {
			ret = tg_error_errno(TG_ERR_IO, -r->in, "sandbox: stdin");
			r->in = -1;
			return ret;
		}
	}
	r->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->evfd < 0)
		return tg_error_errno(TG_ERR_IO, errno, "sandbox: eventfd");
	fcntl(r->outp[0], F_SETFL, O_NONBLOCK);
	fcntl(r->errp[0], F_SETFL, O_NONBLOCK);
	r->child.spec = s;
	r->child.pooled = pooled;
	r->child.waiter_fd = waiter_fd;
	r->child.stdin_fd = r->in;
	r->child.out_fd = r->outp[1];
	r->child.err_fd = r->errp[1];
	r->child.sync_fd = r->sp[1];
	r->child.allow_setgroups = geteuid() == 0;
	r->child.mnt_template = sbx_mnt_template_fd(s);
	snprintf(r->child.tmp_opts, sizeof(r->child.tmp_opts), "size=%um,nr_inodes=4096,mode=1777",
		 s->tmp_mb);
	/* the root: 256 KB for its folders and links, and the copy of the
	 * program (/tool) in whole pages */
	snprintf(r->child.root_opts, sizeof(r->child.root_opts), "size=%lluk,nr_inodes=256,mode=0755",
		 256 + (unsigned long long)((s->tool_size + 4095) / 4096) * 4);
	r->child.as_bytes = sbx_as_bytes(s, r->cg.version);
	if (r->cg.version == 1) {
		r->child.cgroup_tasks[0] = r->cg.tasks[0];
		r->child.cgroup_tasks[1] = r->cg.tasks[1];
	}
	/* the CPU share (cgroup_cpu.c); without a cpu controller, none */
	if (sbx_cpu_create(&r->cpu, &r->cg, s->cpu_percent) == 0 && r->cpu.version == 1)
		r->child.cgroup_tasks[2] = r->cpu.tasks;
	r->sync_parent = r->sp[0];
	/* Tool runs: clocks that start at 0 now (no host uptime or boot time)
	 * and writes only beneath /tmp (no device node is writable). A pooled
	 * child's clocks start when the entry is made (the pool bounds its age). */
	if (s->profile != SBX_PROFILE_BUILD && sbx_timens_available()) {
		struct timespec mono, boot;
		clock_gettime(CLOCK_MONOTONIC, &mono);
		clock_gettime(CLOCK_BOOTTIME, &boot);
		/* -t as whole seconds and nanoseconds in [0, 1e9) */
		snprintf(r->child.timens_offsets, sizeof(r->child.timens_offsets),
			 "monotonic %lld %ld\nboottime %lld %ld\n",
			 -(long long)mono.tv_sec - (mono.tv_nsec > 0),
			 mono.tv_nsec > 0 ? 1000000000L - mono.tv_nsec : 0L,
			 -(long long)boot.tv_sec - (boot.tv_nsec > 0),
			 boot.tv_nsec > 0 ? 1000000000L - boot.tv_nsec : 0L);
	}
	if (s->profile != SBX_PROFILE_BUILD)
		r->child.landlock_abi = sbx_landlock_abi();
	/* From here the tracer owns (and closes) the child's ends. */
	start_tracer(r, 1);
	r->in = r->outp[1] = r->errp[1] = r->sp[1] = -1;
	return 0;
}

/* Free what r holds once its tracer is joined (or never ran). */
static void run_release(struct sbx_run *r)
{
	if (r->thread_started) {
		if (!r->start)
			start_tracer(r, -1);
		kill_child(r);
		pthread_join(r->th, NULL);
		r->thread_started = 0;
	}
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	tg_closep(&r->mntns_fd); /* the namespace's teardown, when it was the last */
	/* a child that shared our memory has left its stack once reaped (an
	 * unreaped one may still be on it: kept) */
	if (r->child_stack && r->reaped) {
		munmap(r->child_stack, SBX_CHILD_STACK);
		r->child_stack = NULL;
	}
	if (atomic_load(&r->pidfd) >= 0)
		close(atomic_load(&r->pidfd));
	atomic_store(&r->pidfd, -1);
	if (r->tmpfd >= 0)
		close(r->tmpfd);
	r->tmpfd = -1;
	/* reaped (or never started): nothing can be left in the cgroup */
	sbx_cgroup_release(&r->cg, r->reaped || r->pid <= 0);
	sbx_cpu_release(&r->cpu);
	tg_closep(&r->outp[0]);
	tg_closep(&r->outp[1]);
	tg_closep(&r->errp[0]);
	tg_closep(&r->errp[1]);
	tg_closep(&r->sp[0]);
	tg_closep(&r->sp[1]);
	tg_closep(&r->in);
	tg_closep(&r->evfd);
}

void sbx_run_discard(struct sbx_run *r)
{
	run_release(r);
}

int sbx_run_wait(tg_run_result **out, struct sbx_run *r, int *tmpfd)
{
	const struct sbx_spec *s = r->spec;
	int ret = 0, killed = -1, over = 0;
	int out_eof = 0, err_eof = 0, done = 0, kills = 0, pipes_marked = 0;
	tg_buf ob = TG_BUF_INIT(0), eb = TG_BUF_INIT(0);
	size_t total = 0, cap = (size_t)s->output_kb * 1024;
	uint64_t t0 = r->t0, deadline = t0 + s->timeout_ms, drain_until = 0;
	uint32_t cpu_limit_s = sbx_cpu_limit_s(s);

	for (;;) {
		struct pollfd p[5];
		int n = 0, k, i_out = -1, i_err = -1, i_fd3 = -1, i_cancel = -1;
		uint64_t now = tg_now_ms(), until = done ? drain_until : deadline;
		int wait = now >= until ? 0 : until - now > 60000 ? 60000 : (int)(until - now);

		p[n].fd = r->evfd;
		p[n++].events = POLLIN;
		if (!out_eof) {
			i_out = n;
			p[n].fd = r->outp[0];
			p[n++].events = POLLIN;
		}
		if (!err_eof) {
			i_err = n;
			p[n].fd = r->errp[0];
			p[n++].events = POLLIN;
		}
		if (s->fd3 > 0 && !done && killed < 0) {
			/* no events: only a hangup (the peer shut the channel) wakes us */
			i_fd3 = n;
			p[n].fd = s->fd3;
			p[n++].events = 0;
		}
		if (s->cancel && !done && killed < 0) {
			/* stays readable once fired (common/cancel.c) */
			i_cancel = n;
			p[n].fd = tg_cancel_fd(s->cancel);
			p[n++].events = POLLIN;
		}
		k = poll(p, (nfds_t)n, wait);
		if (i_cancel >= 0 && (p[i_cancel].revents & POLLIN) && tg_cancel_fired(s->cancel) &&
		    killed < 0) {
			killed = TG_REASON_CANCELLED;
			kill_child(r);
		}
		if (i_fd3 >= 0 && (p[i_fd3].revents & (POLLHUP | POLLERR | POLLNVAL)) && killed < 0) {
			killed = TG_REASON_BRIDGE_PROTOCOL;
			kill_child(r);
		}
		if (k < 0 && errno != EINTR)
			break;
		if (i_out >= 0 && (p[i_out].revents & (POLLIN | POLLHUP | POLLERR)))
			out_eof = sbx_pump(r->outp[0], &ob, &total, cap, &over);
		if (i_err >= 0 && (p[i_err].revents & (POLLIN | POLLHUP | POLLERR)))
			err_eof = sbx_pump(r->errp[0], &eb, &total, cap, &over);
		if (over && killed < 0) {
			killed = TG_REASON_OUTPUT_LIMIT;
			kill_child(r);
			out_eof = err_eof = 1; /* the cap is reached: read no more */
		}
		if (p[0].revents & POLLIN) {
			uint64_t v;
			(void)!read(r->evfd, &v, sizeof(v));
		}
		now = tg_now_ms();
		if (!done && atomic_load(&r->finished)) {
			done = 1;
			drain_until = now + 200;
		}
		if (!done && now >= deadline) {
			if (killed < 0)
				killed = TG_REASON_TIMEOUT;
			kill_child(r);
			if (++kills > 3)
				break; /* give up waiting; the join below reaps */
			deadline = now + 2000;
		}
#ifdef TG_SANDBOX_PROFILE
		if (out_eof && err_eof && sbx_prof && !sbx_prof[SBX_PROF_PIPES_EOF])
			SBX_PROF(SBX_PROF_PIPES_EOF);
#endif
		if (tg_prof_on && out_eof && err_eof && !pipes_marked) {
			pipes_marked = 1;
			tg_prof_mark_(TG_PROF_PIPES_EOF);
		}
		if (done && ((out_eof && err_eof) || now >= drain_until)) {
			/* every writer is dead: what is left sits in the pipe buffers */
			if (!out_eof)
				sbx_pump(r->outp[0], &ob, &total, cap, &over);
			if (!err_eof)
				sbx_pump(r->errp[0], &eb, &total, cap, &over);
			break;
		}
	}
	/* A pool entry whose init is reaped: its result goes back now, the
	 * join and the release (cgroup, descriptors) come after (pool.c). */
	if (r->defer_release && done)
		r->defer_release = 2;
	if (r->thread_started && r->defer_release != 2) {
		if (!done)
			kill_child(r);
		pthread_join(r->th, NULL);
		r->thread_started = 0;
	}
	if (r->clone_errno) {
		int e = r->clone_errno;
		if (e == ENOSPC || e == EPERM || e == EACCES)
			ret = sbx_userns_error(e);
		else
			ret = tg_error_errno(e == ENOMEM || e == EAGAIN ? TG_ERR_IO : TG_ERR_UNAVAILABLE, e,
				     "sandbox: cannot create the namespaces (clone3)");
		goto out;
	}
	if (r->msg.type == SBX_MSG_ERROR) {
		int e = r->msg.err;
		/* a user namespace refused to the child in the template, as
		 * clone3's would be on the usual path */
		if (strcmp(r->msg.step, SBX_STEP_TEMPLATE_UNSHARE) == 0 &&
		    (e == ENOSPC || e == EPERM || e == EACCES))
			ret = sbx_userns_error(e);
		else
			ret = tg_error_errno(TG_ERR_UNAVAILABLE, e, "sandbox: %s", r->msg.step);
		goto out;
	}
	if (r->tracer_err[0] && !r->exec_done && r->msg.type != SBX_MSG_EXEC) {
		ret = tg_error_set(TG_ERR_UNAVAILABLE, "sandbox: %s", r->tracer_err);
		goto out;
	}
	if (!r->exec_done && r->msg.type != SBX_MSG_EXEC && killed < 0) {
		ret = tg_error_set(TG_ERR_UNAVAILABLE, "sandbox: the child died during setup (status %#x)",
				   r->status);
		goto out;
	}
	ret = finish_result(out, r, &ob, &eb, killed, t0, cpu_limit_s);
	if (ret == 0 && tmpfd) {
		*tmpfd = r->tmpfd;
		r->tmpfd = -1;
	}
out:
	SBX_PROF(SBX_PROF_RESULT);
	if (r->defer_release != 2) {
		run_release(r);
		sbx_net_after_run();
	}
	tg_buf_free(&ob);
	tg_buf_free(&eb);
	return ret;
}

int sbx_execute(tg_run_result **out, const struct sbx_spec *s, int *tmpfd)
{
	struct sbx_run r;
	int ret;

	*out = NULL;
	if (tmpfd)
		*tmpfd = -1;
	ret = sbx_run_setup(&r, s, -1);
	if (ret < 0) {
		run_release(&r);
		sbx_net_after_run();
		return ret;
	}
	return sbx_run_wait(out, &r, tmpfd);
}
