/*
 * sandbox/child.c: the sandboxed child from clone3() to execve(). It runs
 * as pid 1 of fresh user, pid, mount, net, ipc, uts and cgroup namespaces
 * (the net and ipc ones a serving process's shared ones, netns.c, when
 * its filter is loaded: a.ipc_shared) and only makes system calls, raw ones (rawsys.h): no allocation, no
 * stdio, no libc wrapper, nothing written outside its own stack. Mostly
 * it shares its supervisor's address space until its execve (CLONE_VM,
 * run.c, sbx_share_vm): it must not write errno (the tracer thread's) or
 * any global, and it first puts back the signal handlers and mask a copy
 * of serve must not keep (reset_signals). Otherwise (a build step,
 * TG_SANDBOX_FORK_CHILD=1) it is a copy of the supervisor, which may be
 * threaded (its copy here has just one thread).
 * Order: fds 0-3 set up and all others closed; v1 cgroups joined; setsid;
 * die with the parent; wait for the supervisor to map uid/gid 65534; clone the
 * bind sources with open_tree() and open the program; a time namespace for
 * what it executes (tool runs); switch to uid/gid 65534 (caps kept by a
 * locked securebit); umask 022; a tmpfs root with a copy of the program at
 * /tool (its inode, device and times the run's own), the binds, a minimal
 * /dev, a capped /tmp; pivot_root and detach the old root; root remounted
 * read-only; hostname; every rlimit (sbx_rlimit_value);
 * bounding set, ambient and all capabilities dropped, securebits locked,
 * no_new_privs; Landlock (tool runs: writes only beneath /tmp and writable
 * binds); the seccomp filter; execve with an empty environment. Any failure is reported on the sync socket and ends the
 * child before the program ever runs.
 * With a prepared mount tree (mnt_template.c; a.mnt_template, the last fd
 * at close_range time) it is cloned into a new pid namespace only: after
 * setsid it opens the program and its /proc folder, enters the template
 * (setns), closes it and unshares user, mount, ipc, uts and cgroup
 * namespaces (a private, locked copy of the read-only tree), says so and
 * waits for go; the rest as above but the root: /tool is bound from a tmpfs
 * of its own onto the template's empty file and /tmp mounted on its
 * folder, with no pivot_root and no remount (enter_template, finish_root).
 * A pooled child (pool.c) writes its time offsets at once (clocks start
 * at 0 when the entry is made), loads its filter and execveat()s the waiter
 * (waiter/waiter.c, a sealed memfd at fd 5), which says ready and waits
 * for its one run: stdin and the program as descriptors (the program run
 * with execveat); the supervisor has lowered its rlimits and cgroup limits
 * by then (they only tighten).
 */
#include "sandbox/internal.h"
#include "sandbox/rawsys.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <linux/landlock.h>
#include <linux/mount.h>
#include <linux/securebits.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>


static size_t slen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

/* expr is a raw call: < 0 is -errno. sfd must be in scope. */
#define CHECK(expr, step)                                                    \
	do {                                                                 \
		long rc_ = (expr);                                           \
		if (rc_ < 0)                                                 \
			sbx_raw_fail(sfd, SBX_MSG_ERROR, (int)-rc_, (step)); \
	} while (0)

#define OPENAT(path, flags, mode) SX4(__NR_openat, AT_FDCWD, (path), (flags), (mode))

/* Create a mount point (folder or empty file) at rel, with its parents. */
long sbx_make_point(const char *rel, int is_dir)
{
	char p[256];
	size_t i, n = slen(rel);
	long fd, e;

	if (n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, rel, n + 1);
	for (i = 1; i < n; i++) {
		if (p[i] != '/')
			continue;
		p[i] = '\0';
		e = SX2(__NR_mkdir, p, 0755);
		if (e < 0 && e != -EEXIST)
			return e;
		p[i] = '/';
	}
	if (is_dir) {
		e = SX2(__NR_mkdir, p, 0755);
		return e < 0 && e != -EEXIST ? e : 0;
	}
	fd = OPENAT(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (fd < 0)
		return fd;
	SX1(__NR_close, fd);
	return 0;
}

long sbx_limit_tighten(long pid, int res, uint64_t v)
{
	struct rlimit rl, old;
	long e;

	rl.rlim_cur = rl.rlim_max = (rlim_t)v;
	e = SX4(__NR_prlimit64, pid, res, &rl, &old);
	if (e == -EPERM)
		e = SX4(__NR_prlimit64, pid, res, NULL, &old);
	else if (e == 0 && (old.rlim_max == RLIM_INFINITY || v <= (uint64_t)old.rlim_max))
		return 0;
	if (e < 0)
		return e;
	if (old.rlim_max != RLIM_INFINITY && v > (uint64_t)old.rlim_max)
		v = (uint64_t)old.rlim_max;
	rl.rlim_cur = rl.rlim_max = (rlim_t)v;
	return SX4(__NR_prlimit64, pid, res, &rl, NULL);
}

/* soft = hard = v, or the current hard limit if v is above it (raising a
 * hard limit is not possible here, and not wanted). */
static void set_limit(int sfd, int res, uint64_t v, const char *step)
{
	CHECK(sbx_limit_tighten(0, res, v), step);
}

/* Every rlimit gets its value (sbx_rlimit_value), in this order (the
 * gVisor bundle's spec names them too: gvisor_spec.c). */
const char *const sbx_rlimit_names[RLIM_NLIMITS] = {
	"RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_DATA", "RLIMIT_STACK", "RLIMIT_CORE",
	"RLIMIT_RSS", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_MEMLOCK", "RLIMIT_AS",
	"RLIMIT_LOCKS", "RLIMIT_SIGPENDING", "RLIMIT_MSGQUEUE", "RLIMIT_NICE",
	"RLIMIT_RTPRIO", "RLIMIT_RTTIME",
};
_Static_assert(RLIM_NLIMITS == 16 && RLIMIT_AS == 9 && RLIMIT_SIGPENDING == 11 &&
		       RLIMIT_RTTIME == 15,
	       "sbx_rlimit_names follows the kernel's numbering");

static void write_input(int sfd, const struct sbx_file *f)
{
	size_t off = 0;
	long fd = OPENAT(f->name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);

	CHECK(fd, "writing an input file into /tmp");
	while (off < f->len) {
		long k = SX3(__NR_write, fd, f->data + off, f->len - off);
		if (k <= 0)
			sbx_raw_fail(sfd, SBX_MSG_ERROR, k < 0 ? (int)-k : ENOSPC,
			     "writing an input file into /tmp");
		off += (size_t)k;
	}
	SX1(__NR_close, fd);
}

/* /tool: a copy of the program (src, the host file) at file, in a tmpfs
 * of the run's own (its root's, created first: the same inode number in
 * every run; with a prepared tree, one mounted for it), mode 0555, its
 * access and modification times 0, then bound at point (file itself, or
 * the template's empty /tool) read-only with exec allowed (the root stays
 * noexec). Its inode, device and times are the run's own: the host file's
 * never reach the tool. */
static void copy_tool(int sfd, long src, const char *file, const char *point)
{
	static const struct timespec epoch[2];
	struct mount_attr attr;
	long fd, k, t;

	fd = OPENAT(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0555);
	CHECK(fd, "creating /tool");
	do
		k = SX4(__NR_sendfile, fd, src, NULL, 1L << 30);
	while (k > 0);
	CHECK(k, "copying the program to /tool");
	CHECK(SX2(__NR_fchmod, fd, 0555), "chmod /tool");
	CHECK(SX4(__NR_utimensat, fd, NULL, epoch, 0), "setting the times of /tool");
	SX1(__NR_close, fd);
	SX1(__NR_close, src);
	t = SX3(__NR_open_tree, AT_FDCWD, file, OPEN_TREE_CLONE | O_CLOEXEC);
	CHECK(t, "open_tree of /tool");
	memset(&attr, 0, sizeof(attr));
	attr.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
	attr.attr_clr = MOUNT_ATTR_NOEXEC;
	CHECK(SX5(__NR_mount_setattr, t, "", AT_EMPTY_PATH, &attr, sizeof(attr)),
	      "mount_setattr on /tool");
	CHECK(SX5(__NR_move_mount, t, "", AT_FDCWD, point, MOVE_MOUNT_F_EMPTY_PATH),
	      "move_mount of /tool");
	SX1(__NR_close, t);
}

static void send_fd(int sfd, int fd)
{
	struct sbx_msg m;
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &m, sizeof(m) };
	struct msghdr mh;
	struct cmsghdr *c;

	memset(&m, 0, sizeof(m));
	memset(&mh, 0, sizeof(mh));
	memset(cbuf, 0, sizeof(cbuf));
	m.type = SBX_MSG_TMPFD;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	CHECK(SX3(__NR_sendmsg, sfd, &mh, MSG_NOSIGNAL), "sending the /tmp fd");
}

#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif

/* Landlock: every kind of write (and device ioctl) is refused outside /tmp
 * and the writable binds, whatever the mount flags say: a read-only
 * mount does not stop writing to a device node such as /dev/null. */
static void confine_writes(int sfd, const struct sbx_spec *s, int abi)
{
	struct { uint64_t handled_access_fs; } attr;
	struct landlock_path_beneath_attr pb;
	uint64_t w = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
		     LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
		     LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
		     LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
		     LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
	long rs, fd;
	size_t k;

	if (abi >= 2)
		w |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		w |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		w |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	attr.handled_access_fs = w;
	rs = SX3(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);
	CHECK(rs, "landlock_create_ruleset");
	for (k = 0; k <= s->nbinds; k++) {
		const char *dir = k == s->nbinds ? "/tmp" : s->binds[k].dst;
		if (k < s->nbinds && !(s->binds[k].flags & SBX_BIND_RW))
			continue;
		fd = OPENAT(dir, O_PATH | O_CLOEXEC, 0);
		CHECK(fd, "opening a writable folder for Landlock");
		memset(&pb, 0, sizeof(pb));
		pb.allowed_access = w & ~LANDLOCK_ACCESS_FS_IOCTL_DEV;
		if (k < s->nbinds && !s->binds[k].is_dir) /* a file: file rights only */
			pb.allowed_access &= LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE;
		pb.parent_fd = (int)fd;
		CHECK(SX4(__NR_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0),
		      "landlock_add_rule");
		SX1(__NR_close, fd);
	}
	CHECK(SX2(__NR_landlock_restrict_self, rs, 0), "landlock_restrict_self");
	SX1(__NR_close, rs);
}

/* A time namespace for what we execute: its monotonic and boot clocks
 * start at 0 (offsets computed by the supervisor just before clone). They
 * are frozen when a first process enters the namespace, which an execve
 * does: a pooled child's exec of the waiter, so they are written now. */
static void own_clocks(int sfd, const char *offsets, long procdir)
{
	size_t n = slen(offsets);
	long fd, k;

	CHECK(SX1(__NR_unshare, CLONE_NEWTIME), "unshare(CLONE_NEWTIME)");
	/* the host's /proc, or (a prepared tree has none) our folder in it,
	 * opened before we entered the tree */
	fd = procdir >= 0 ? SX4(__NR_openat, procdir, "timens_offsets", O_WRONLY | O_CLOEXEC, 0)
			  : OPENAT("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC, 0);
	CHECK(fd, "opening timens_offsets");
	k = SX3(__NR_write, fd, offsets, n);
	if (k != (long)n)
		sbx_raw_fail(sfd, SBX_MSG_ERROR, k < 0 ? (int)-k : EIO, "writing timens_offsets");
	SX1(__NR_close, fd);
}

static void drop_privileges(int sfd)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	long cap, e;

	/* Locked securebits: no root magic, no ambient raise, no fixup undo. */
	CHECK(SX5(__NR_prctl, PR_SET_SECUREBITS,
		  SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
			  SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
			  SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
		  0, 0, 0),
	      "locking securebits");
	for (cap = 0; cap <= 63; cap++) {
		e = SX5(__NR_prctl, PR_CAPBSET_DROP, cap, 0, 0, 0);
		if (e == 0)
			continue;
		if (e != -EINVAL)
			sbx_raw_fail(sfd, SBX_MSG_ERROR, (int)-e, "dropping the capability bounding set");
		break; /* past the kernel's last capability (they are contiguous) */
	}
	CHECK(SX5(__NR_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0),
	      "clearing ambient caps");
	memset(d, 0, sizeof(d));
	CHECK(SX2(__NR_capset, &h, d), "dropping capabilities");
	CHECK(SX5(__NR_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs");
}

/* A pooled child, fully prepared and unprivileged: load the filter and
 * become the waiter (waiter/waiter.c), which says ready, waits for the one
 * run it serves and executes its program. The exec tears down this copy
 * of the supervisor's address space (or leaves the shared one) now, while
 * the entry is made, rather than when the run comes. It is allowed by the
 * filter (RUN_POOLED: the run allowlist plus execveat(SBX_POOL_EXEC_FD, "",
 * ..., AT_EMPTY_PATH) and the waiter's recvmsg). The sync socket stays open
 * across this exec (the waiter makes it close-on-exec for the program's);
 * fd 5 is closed by it. */
__attribute__((noreturn)) static void pooled_wait(int sfd, const struct sbx_child_args *a)
{
	static char *const argv[] = { "tg-waiter", NULL };
	long e;

	CHECK(SX3(__NR_fcntl, SBX_POOL_SYNC_FD, F_SETFD, 0), "pool: the sync socket");
	if (a->filter)
		CHECK(SX3(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, a->filter),
		      "loading the seccomp filter");
	e = SX5(__NR_execveat, SBX_POOL_EXEC_FD, "", argv, a->spec->envp, AT_EMPTY_PATH);
	sbx_raw_fail(sfd, SBX_MSG_ERROR, (int)-e, "pool: executing the waiter");
}

/* A child that shares the supervisor's memory (CLONE_VM) got a copy of its
 * signal handlers, which would run serve's code in here: every caught
 * signal goes back to its default, as execve would do (ignored ones stay
 * ignored, as across execve), and then the mask the tracer had before it
 * blocked everything for the clone comes back. */
struct k_sigaction {
	unsigned long handler, flags, restorer;
	uint64_t mask;
};

static void reset_signals(uint64_t mask)
{
	struct k_sigaction old, dfl;
	long sig;

	memset(&dfl, 0, sizeof(dfl)); /* SIG_DFL */
	for (sig = 1; sig <= 64; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		if (SX4(__NR_rt_sigaction, sig, NULL, &old, 8) < 0)
			continue;
		if (old.handler != (unsigned long)SIG_DFL && old.handler != (unsigned long)SIG_IGN)
			SX4(__NR_rt_sigaction, sig, &dfl, NULL, 8);
	}
	SX4(__NR_rt_sigprocmask, SIG_SETMASK, &mask, NULL, 8);
}

/* The descriptors: 0-2 the pipes, 3 the sync socket (close-on-exec),
 * nothing else; with a bridge, 3 the bridge (kept across execve) and the
 * sync socket 4. Pooled: 0 and 3 hold copies of the sync socket until the
 * run brings stdin and fd 3; the sync socket is 4, the waiter 5
 * (close-on-exec). With a prepared mount tree its namespace comes next,
 * at *tpl (else -1), closed as soon as it is entered (enter_template).
 * Returns the sync socket's number; nothing to report a failure on yet,
 * so a failure ends the child. */
static int place_fds(const struct sbx_child_args *a, int *tpl)
{
	const struct sbx_spec *s = a->spec;
	int fds[7] = { a->stdin_fd, a->out_fd, a->err_fd, s->fd3 > 0 ? s->fd3 : a->sync_fd,
		       a->sync_fd, a->waiter_fd };
	int i, n = a->pooled ? 6 : s->fd3 > 0 ? 5 : 4;
	const int sfd = a->pooled ? SBX_POOL_SYNC_FD : n - 1;
	long hi[7];

	if (a->pooled)
		fds[0] = fds[3] = a->sync_fd;
	*tpl = -1;
	if (a->mnt_template >= 0) {
		fds[n] = a->mnt_template;
		*tpl = n++;
	}
	for (i = 0; i < n; i++) {
		hi[i] = SX3(__NR_fcntl, fds[i], F_DUPFD_CLOEXEC, 16);
		if (hi[i] < 0)
			sbx_raw_die();
	}
	for (i = 0; i < n; i++)
		if (SX2(__NR_dup2, hi[i], i) < 0)
			sbx_raw_die();
	if (SX3(__NR_fcntl, sfd, F_SETFD, FD_CLOEXEC) < 0 ||
	    (*tpl >= 0 && SX3(__NR_fcntl, *tpl, F_SETFD, FD_CLOEXEC) < 0) ||
	    (a->pooled && SX3(__NR_fcntl, SBX_POOL_EXEC_FD, F_SETFD, FD_CLOEXEC) < 0) ||
	    SX3(__NR_close_range, n, ~0U, 0) < 0)
		sbx_raw_die();
	return sfd;
}

/* v1 cgroups: move ourselves (writing "0" moves only the calling thread,
 * which skips the global threadgroup lock and its RCU grace period that a
 * pid written by the supervisor costs: ~8 ms here). */
static void join_cgroups(int sfd, const struct sbx_child_args *a)
{
	int i;

	for (i = 0; i < 3; i++) {
		const char *t = a->cgroup_tasks[i];
		long fd, w;
		if (!t || !t[0])
			continue;
		fd = OPENAT(t, O_WRONLY | O_CLOEXEC, 0);
		CHECK(fd, "opening a cgroup tasks file");
		w = SX3(__NR_write, fd, "0", 1);
		if (w != 1)
			sbx_raw_fail(sfd, SBX_MSG_ERROR, w < 0 ? (int)-w : EIO, "joining the cgroup");
		SX1(__NR_close, fd);
	}
}

/* A session of our own and death with the supervisor. */
static void own_session(int sfd, const struct sbx_child_args *a)
{
	CHECK(SX0(__NR_setsid), "setsid");
	CHECK(SX5(__NR_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0), "PR_SET_PDEATHSIG");
	/* A copy of the supervisor's memory is made dumpable so that an
	 * unprivileged supervisor may write our maps. A child that shares
	 * that memory must not touch the flag: it is serve's own. As root it
	 * is cleared (after our id change it would let any process of the
	 * host's uid 65534 read and write serve through /proc/PID/mem);
	 * otherwise run.c shares only a memory whose flag is already set. */
	if (!a->shared_vm)
		CHECK(SX5(__NR_prctl, PR_SET_DUMPABLE, 1, 0, 0, 0), "PR_SET_DUMPABLE");
}

/* Wait until the supervisor has mapped our ids and started tracing us. */
static void wait_for_go(int sfd)
{
	char go;

	/* EOF means the supervisor died (a death after it said go is caught
	 * by become_sandbox_user, after PDEATHSIG is set again). */
	if (SX3(__NR_read, sfd, &go, 1) != 1 || go != SBX_MSG_GO)
		sbx_raw_die();
}

/* Become 65534 (capabilities stay: SECBIT_NO_SETUID_FIXUP). Raw calls in
 * any case: glibc's wrappers broadcast id changes to every thread it
 * believes exists. */
static void become_sandbox_user(int sfd, const struct sbx_child_args *a)
{
	struct pollfd p = { sfd, POLLIN, 0 };

	CHECK(SX5(__NR_prctl, PR_SET_SECUREBITS, SECBIT_NO_SETUID_FIXUP, 0, 0, 0), "securebits");
	if (a->allow_setgroups)
		CHECK(SX2(__NR_setgroups, 0, NULL), "setgroups");
	CHECK(SX3(__NR_setresgid, SBX_UID, SBX_UID, SBX_UID), "setresgid");
	CHECK(SX3(__NR_setresuid, SBX_UID, SBX_UID, SBX_UID), "setresuid");
	/* A change of ids clears the parent-death signal: set it again, then
	 * make sure the supervisor did not die in between (its end of the
	 * sync socket would have hung up). */
	CHECK(SX5(__NR_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0), "PR_SET_PDEATHSIG");
	if (SX3(__NR_poll, &p, 1, 0) < 0 || (p.revents & (POLLHUP | POLLERR)))
		sbx_raw_die();
}

/* Attach the detached copies of the bind sources (tree, taken before
 * anything was covered) at their places in the new root (the cwd). */
static void attach_binds(int sfd, const struct sbx_spec *s, const int *tree)
{
	size_t k;

	for (k = 0; k < s->nbinds; k++) {
		const struct sbx_bind *b = &s->binds[k];
		struct mount_attr attr;
		memset(&attr, 0, sizeof(attr));
		attr.attr_set = sbx_bind_attr(b->flags);
		CHECK(sbx_make_point(b->dst + 1, b->is_dir), "creating a mount point");
		CHECK(SX5(__NR_mount_setattr, tree[k], "", AT_EMPTY_PATH, &attr, sizeof(attr)),
		      "mount_setattr on a bind");
		CHECK(SX5(__NR_move_mount, tree[k], "", AT_FDCWD, b->dst + 1,
			  MOVE_MOUNT_F_EMPTY_PATH),
		      "move_mount of a bind");
		SX1(__NR_close, tree[k]);
	}
}

/* The capped /tmp at tmp (the cwd is the new root), with the input files;
 * its fd sent back when asked. */
static void mount_tmp(int sfd, const struct sbx_child_args *a)
{
	const struct sbx_spec *s = a->spec;
	size_t k;

	CHECK(SX5(__NR_mount, "tmpfs", "tmp", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  a->tmp_opts),
	      "mounting /tmp");
	if (s->nfiles || s->want_tmpfd) {
		CHECK(SX1(__NR_chdir, "tmp"), "chdir /tmp");
		for (k = 0; k < s->nfiles; k++)
			write_input(sfd, &s->files[k]);
		CHECK(SX1(__NR_chdir, ".."), "chdir /");
	}
	if (s->want_tmpfd) {
		long tfd = OPENAT("tmp", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
		CHECK(tfd, "opening /tmp");
		send_fd(sfd, (int)tfd);
		SX1(__NR_close, tfd);
	}
}

/* The new root: a tiny tmpfs holding /tool (a copy of the program, tool
 * >= 0), the links and binds and a capped /tmp (with the input files, its
 * fd sent back when asked), pivoted into, the old root detached, then
 * remounted read-only. The cwd is its / at the end. */
static void build_root(int sfd, const struct sbx_child_args *a, const int *tree, long tool)
{
	const struct sbx_spec *s = a->spec;
	size_t k;

	CHECK(SX5(__NR_mount, "tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  a->root_opts),
	      "mounting the root tmpfs");
	CHECK(SX1(__NR_chdir, "/tmp"), "chdir to the new root");
	SX1(__NR_umask, 022); /* the files' modes, and the tool's umask */
	if (tool >= 0)
		copy_tool(sfd, tool, "tool", "tool");
	for (k = 0; k < s->nlinks; k++)
		CHECK(SX2(__NR_symlink, s->links[k].target, s->links[k].name),
		      "symlink in the new root");
	attach_binds(sfd, s, tree);
	CHECK(sbx_make_point("tmp", 1), "mkdir /tmp");
	mount_tmp(sfd, a);
	CHECK(SX2(__NR_pivot_root, ".", "."), "pivot_root");
	CHECK(SX2(__NR_umount2, ".", MNT_DETACH), "detaching the old root");
	CHECK(SX1(__NR_chdir, "/"), "chdir /");
	CHECK(SX5(__NR_mount, NULL, "/", NULL,
		  MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL),
	      "remounting the root read-only");
}

/* The prepared mount tree (mnt_template.c), tpl its namespace: enter it
 * while still root in the host's user namespace (our root and cwd become
 * its root: no pivot_root, no walk of the host's tasks, no copy of the
 * host's mounts), close it, then make our own user, mount, ipc (unless we
 * keep the shared one), uts and cgroup namespaces. The mount namespace is a private copy of the small
 * tree owned by our user namespace: each mount in it is locked (its flags
 * and what it covers) and its root's superblock, read-only, is the host's
 * to change, not ours. Then the supervisor may write our maps. */
static void enter_template(int sfd, int tpl, int ipc_shared)
{
	CHECK(SX2(__NR_setns, tpl, CLONE_NEWNS), SBX_STEP_TEMPLATE_SETNS);
	SX1(__NR_close, tpl);
	/* the ipc namespace is the process's shared one when the tracer
	 * entered it (netns.c) */
	CHECK(SX1(__NR_unshare, CLONE_NEWUSER | CLONE_NEWNS | (ipc_shared ? 0 : CLONE_NEWIPC) |
					CLONE_NEWUTS | CLONE_NEWCGROUP),
	      SBX_STEP_TEMPLATE_UNSHARE);
	sbx_raw_say(sfd, SBX_MSG_UNSHARED, 0, NULL);
}

/* The run's part of a prepared tree (the cwd its root): /tool bound from
 * a tmpfs of its own, which is then detached (the bind keeps it), and the
 * capped /tmp on the same mount point. The root and its binds are the
 * template's, read-only. */
static void finish_root(int sfd, const struct sbx_child_args *a, long tool)
{
	SX1(__NR_umask, 022);
	if (tool >= 0) {
		CHECK(SX5(__NR_mount, "tmpfs", "tmp", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
			  a->root_opts),
		      "mounting the tmpfs of /tool");
		copy_tool(sfd, tool, "tmp/tool", "tool");
		CHECK(SX2(__NR_umount2, "tmp", MNT_DETACH), "detaching the tmpfs of /tool");
	}
	mount_tmp(sfd, a);
}

void sbx_child_main(const struct sbx_child_args *a)
{
	const struct sbx_spec *s = a->spec;
	int tree[SBX_MAX_BINDS], sfd, i, tpl;
	long tool = -1, procdir = -1, e;
	size_t k;

	if (a->shared_vm)
		reset_signals(a->sigmask);
	sfd = place_fds(a, &tpl);
	join_cgroups(sfd, a);
	own_session(sfd, a);
	if (tpl < 0) {
		wait_for_go(sfd);
		/* Detached copies of every bind source, taken before anything
		 * is covered. */
		for (k = 0; k < s->nbinds; k++) {
			long t = SX3(__NR_open_tree, AT_FDCWD, s->binds[k].src,
				     OPEN_TREE_CLONE | O_CLOEXEC);
			CHECK(t, "open_tree of a bind source");
			tree[k] = (int)t;
		}
	}
	/* The program to copy, from the host's tree. */
	if (s->tool_src) {
		tool = OPENAT(s->tool_src, O_RDONLY | O_CLOEXEC | O_NOCTTY, 0);
		CHECK(tool, "opening the program");
	}
	if (tpl >= 0) {
		if (a->timens_offsets[0]) {
			procdir = OPENAT("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
			CHECK(procdir, "opening /proc/self");
		}
		enter_template(sfd, tpl, a->ipc_shared);
		wait_for_go(sfd);
	} else {
		CHECK(SX5(__NR_mount, NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL),
		      "making mounts private");
	}

	/* Before the id change: it makes us non-dumpable, and our /proc files
	 * then belong to root. */
	if (a->timens_offsets[0])
		own_clocks(sfd, a->timens_offsets, procdir);
	if (procdir >= 0)
		SX1(__NR_close, procdir);
	become_sandbox_user(sfd, a);
	if (tpl >= 0)
		finish_root(sfd, a, tool);
	else
		build_root(sfd, a, tree, tool);
	CHECK(SX2(__NR_sethostname, "toolgate", 8), "sethostname");
	CHECK(SX2(__NR_setdomainname, "toolgate", 8), "setdomainname");
	for (i = 0; i < RLIM_NLIMITS; i++)
		set_limit(sfd, i, sbx_rlimit_value(s, i, a->as_bytes), sbx_rlimit_names[i]);
	CHECK(SX1(__NR_chdir, "/tmp"), "chdir /tmp");

	drop_privileges(sfd);
	if (a->landlock_abi > 0)
		confine_writes(sfd, s, a->landlock_abi);
	if (a->pooled)
		pooled_wait(sfd, a);
	if (a->filter)
		CHECK(SX3(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, a->filter),
		      "loading the seccomp filter");
	e = SX3(__NR_execve, s->exec_path, s->argv, s->envp);
	sbx_raw_fail(sfd, SBX_MSG_EXEC, (int)-e, "execve");
}

void sbx_child_start(void *a)
{
	sbx_child_main(a);
}
