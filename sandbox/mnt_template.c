/*
 * sandbox/mnt_template.c: mount trees prepared once per process and copied
 * by each run (issue 31), when the supervisor is root in the host's
 * initial user namespace.
 *
 * Without it, each run's clone3 copies the host's whole mount namespace
 * into the run's new user namespace, and the child then builds a root
 * tmpfs, pivots into it (the kernel's chroot_fs_refs walks every task of
 * the host) and detaches the copied host tree. Here, once per process and
 * per skeleton (the spec's links and binds: only the system folders and
 * device nodes of spec.c, sbx_spec_skeleton_ok), a short thread of ours
 * unshares its mount namespace (and its fs_struct with it: the other
 * threads keep their root and cwd), makes every mount private, mounts a
 * small tmpfs and builds in it what child.c's build_root builds (the
 * links; the binds with the same attributes, sbx_bind_attr; an empty file
 * `tool`, for runs that get one, and an empty folder `tmp` as mount
 * points), pivots into it,
 * detaches the old root and remounts the tmpfs read-only at the superblock
 * and at the mount (nosuid, nodev, noexec). The process keeps a
 * descriptor of that namespace (close-on-exec, never closed); the thread
 * ends. A run's child enters it with setns while still root in the host's
 * namespace and then unshares its own user, mount, ipc, uts and cgroup
 * namespaces (child.c, enter_template): a private copy of the small tree
 * whose mounts are locked and whose superblock it has no capability over.
 *
 * It is used by default: under tg_sandbox_prepare (serve) from the first
 * run, elsewhere from a process's second run that could use one (making
 * it costs about what one run's own mounts cost: a one-shot command would
 * pay twice). TG_SANDBOX_TEMPLATE=0 turns it off (tests of the usual
 * path, benchmarks). A template that could not be made, or that a
 * run could not enter (sbx_mnt_template_failed), turns it off for the
 * process, which then takes the usual path. It calls spec.c
 * (sbx_spec_skeleton_ok) and child.c (sbx_make_point); run.c calls it.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>


/* The skeletons a process may hold: a static tool's (/dev nodes) and a
 * dynamic program's (system folders too), with room to spare. */
#define TPL_MAX 4
/* The initial user namespace's inode (the kernel's PROC_USER_INIT_INO). */
#define TPL_INIT_USERNS "user:[4026531837]"

struct tpl {
	int fd;
	int tool; /* has the /tool mount point (a pooled run has no /tool) */
	size_t nbinds, nlinks;
	struct sbx_bind binds[SBX_MAX_BINDS];
	struct sbx_link links[SBX_MAX_LINKS];
};

static pthread_mutex_t tpl_lock = PTHREAD_MUTEX_INITIALIZER;
__attribute__((constructor)) static void guard_tpl_lock(void)
{
	sbx_fork_guard(&tpl_lock, NULL);
}
static struct tpl tpls[TPL_MAX];
static int ntpl;
static int prepared;      /* tg_sandbox_prepare: a long-lived process */
static unsigned seen;     /* runs that could have used a template */
static int tpl_state = -1; /* -1 not decided, 1 on, 0 off (tpl_why says why) */
static char tpl_why[200];

/* May this process prepare trees? Root with CAP_SYS_ADMIN and
 * CAP_SYS_CHROOT (setns into a mount namespace) in the initial user
 * namespace, and not turned off. Called with tpl_lock held. */
static int decide(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	const char *env = getenv("TG_SANDBOX_TEMPLATE");
	char ns[64];
	ssize_t k;

	if (env && strcmp(env, "0") == 0) {
		snprintf(tpl_why, sizeof(tpl_why), "turned off (TG_SANDBOX_TEMPLATE=0)");
		return 0;
	}
	if (geteuid() != 0) {
		snprintf(tpl_why, sizeof(tpl_why), "not root (each run copies the host's mounts)");
		return 0;
	}
	k = readlink("/proc/self/ns/user", ns, sizeof(ns) - 1);
	if (k <= 0 || (ns[k] = '\0', strcmp(ns, TPL_INIT_USERNS) != 0)) {
		snprintf(tpl_why, sizeof(tpl_why), "not in the host's initial user namespace");
		return 0;
	}
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) != 0 || !(d[0].effective & (1u << CAP_SYS_ADMIN)) ||
	    !(d[0].effective & (1u << CAP_SYS_CHROOT))) {
		snprintf(tpl_why, sizeof(tpl_why), "no CAP_SYS_ADMIN and CAP_SYS_CHROOT");
		return 0;
	}
	return 1;
}

static int same_skeleton(const struct tpl *t, const struct sbx_spec *s)
{
	size_t k;

	if (t->nbinds != s->nbinds || t->nlinks != s->nlinks || t->tool != (s->tool_src != NULL))
		return 0;
	for (k = 0; k < s->nbinds; k++) {
		const struct sbx_bind *a = &t->binds[k], *b = &s->binds[k];
		if (strcmp(a->src, b->src) || strcmp(a->dst, b->dst) || a->flags != b->flags ||
		    a->is_dir != b->is_dir)
			return 0;
	}
	for (k = 0; k < s->nlinks; k++)
		if (strcmp(t->links[k].name, s->links[k].name) ||
		    strcmp(t->links[k].target, s->links[k].target))
			return 0;
	return 1;
}

struct maker {
	const struct sbx_spec *s;
	int fd;         /* the namespace made */
	int err;        /* else the errno ... */
	const char *step; /* ... of this step */
};

static int failed(struct maker *m, int e, const char *step)
{
	m->err = e;
	m->step = step;
	return -1;
}

/* Attach the copy of bind b at its place in the tree (the cwd). */
static int attach(struct maker *m, const struct sbx_bind *b)
{
	struct mount_attr attr;
	long e;
	int t = (int)syscall(SYS_open_tree, AT_FDCWD, b->src, OPEN_TREE_CLONE | O_CLOEXEC);

	if (t < 0)
		return failed(m, errno, "open_tree of a bind source");
	memset(&attr, 0, sizeof(attr));
	attr.attr_set = sbx_bind_attr(b->flags);
	e = sbx_make_point(b->dst + 1, b->is_dir);
	if (e < 0) {
		close(t);
		return failed(m, (int)-e, "creating a mount point");
	}
	if (syscall(SYS_mount_setattr, t, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0 ||
	    syscall(SYS_move_mount, t, "", AT_FDCWD, b->dst + 1, MOVE_MOUNT_F_EMPTY_PATH) < 0) {
		e = errno;
		close(t);
		return failed(m, (int)e, "attaching a bind");
	}
	close(t);
	return 0;
}

/* The skeleton of m->s in this thread's own mount namespace, which
 * becomes its root, read-only. */
static int build(struct maker *m)
{
	const struct sbx_spec *s = m->s;
	const unsigned long ro = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;
	struct statvfs sv;
	size_t k;
	long e;

	if (unshare(CLONE_NEWNS) < 0)
		return failed(m, errno, "unshare(CLONE_NEWNS)");
	m->fd = open("/proc/thread-self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (m->fd < 0)
		return failed(m, errno, "opening the namespace");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return failed(m, errno, "making mounts private");
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "size=64k,nr_inodes=128,mode=0755") < 0)
		return failed(m, errno, "mounting the template's tmpfs");
	if (chdir("/tmp") < 0)
		return failed(m, errno, "chdir to the template");
	umask(022);
	for (k = 0; k < s->nlinks; k++)
		if (symlink(s->links[k].target, s->links[k].name) < 0)
			return failed(m, errno, "symlink in the template");
	for (k = 0; k < s->nbinds; k++)
		if (attach(m, &s->binds[k]) < 0)
			return -1;
	if ((s->tool_src && (e = sbx_make_point("tool", 0)) < 0) || (e = sbx_make_point("tmp", 1)) < 0)
		return failed(m, (int)-e, "the /tool and /tmp mount points");
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return failed(m, errno, "pivot_root into the template");
	if (umount2(".", MNT_DETACH) < 0)
		return failed(m, errno, "detaching the old root");
	if (chdir("/") < 0)
		return failed(m, errno, "chdir /");
	/* read-only at the superblock (no mount of it anywhere can write),
	 * then at the mount */
	if (mount(NULL, "/", NULL, MS_REMOUNT | ro, NULL) < 0 ||
	    mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | ro, NULL) < 0)
		return failed(m, errno, "remounting the template read-only");
	/* as made: even root cannot write to it */
	if (statvfs("/", &sv) < 0 || (sv.f_flag & (ST_RDONLY | ST_NOSUID | ST_NODEV | ST_NOEXEC)) !=
					     (ST_RDONLY | ST_NOSUID | ST_NODEV | ST_NOEXEC))
		return failed(m, EPERM, "the template's root is not read-only");
	if (mkdir("/tg-probe", 0700) == 0)
		return failed(m, EPERM, "the template's root is writable");
	if (errno != EROFS)
		return failed(m, errno, "the template's root is writable");
	return 0;
}

static void *maker_main(void *arg)
{
	struct maker *m = arg;

	if (build(m) < 0 && m->fd >= 0) {
		close(m->fd);
		m->fd = -1;
	}
	return NULL;
}

/* Make the template of s (tpl_lock held): its namespace's fd, or -1 with
 * tpl_why set. The thread's namespace and root are its own (unshare
 * gives it its own fs_struct); it ends when done. */
static int make(const struct sbx_spec *s)
{
	struct maker m = { s, -1, 0, NULL };
	pthread_t th;
	int e = pthread_create(&th, NULL, maker_main, &m);

	if (e != 0) {
		snprintf(tpl_why, sizeof(tpl_why), "cannot start its thread: %s", strerror(e));
		return -1;
	}
	pthread_join(th, NULL);
	if (m.fd < 0)
		snprintf(tpl_why, sizeof(tpl_why), "%s: %s", m.step ? m.step : "?",
			 strerror(m.err));
	return m.fd;
}

int sbx_mnt_template_fd(const struct sbx_spec *s)
{
	int fd = -1, i;

	if (!sbx_spec_skeleton_ok(s))
		return -1;
	pthread_mutex_lock(&tpl_lock);
	if (tpl_state < 0)
		tpl_state = decide();
	for (i = 0; tpl_state == 1 && i < ntpl && fd < 0; i++)
		if (same_skeleton(&tpls[i], s))
			fd = tpls[i].fd;
	/* making one costs about what a run's own mounts cost: a process
	 * that runs once (a CLI command) does not make it */
	if (tpl_state == 1 && fd < 0 && ntpl < TPL_MAX && (prepared || seen++ > 0)) {
		fd = make(s);
		if (fd < 0) {
			tpl_state = 0;
		} else {
			struct tpl *t = &tpls[ntpl++];
			t->fd = fd;
			t->tool = s->tool_src != NULL;
			t->nbinds = s->nbinds;
			t->nlinks = s->nlinks;
			memcpy(t->binds, s->binds, s->nbinds * sizeof(s->binds[0]));
			memcpy(t->links, s->links, s->nlinks * sizeof(s->links[0]));
		}
	}
	pthread_mutex_unlock(&tpl_lock);
	return fd;
}

void sbx_mnt_template_prepare(int on)
{
	pthread_mutex_lock(&tpl_lock);
	prepared = on;
	pthread_mutex_unlock(&tpl_lock);
}

void sbx_mnt_template_failed(int e, const char *step)
{
	pthread_mutex_lock(&tpl_lock);
	if (tpl_state != 0) {
		tpl_state = 0;
		snprintf(tpl_why, sizeof(tpl_why), "a run could not use it (%s: %s)", step,
			 strerror(e));
	}
	pthread_mutex_unlock(&tpl_lock);
}

int sbx_mnt_template_test_break(void)
{
	int i, n = 0;

	pthread_mutex_lock(&tpl_lock);
	for (i = 0; tpl_state == 1 && i < ntpl; i++) {
		int fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (dup3(fd, tpls[i].fd, O_CLOEXEC) == tpls[i].fd)
			n++;
		close(fd);
	}
	pthread_mutex_unlock(&tpl_lock);
	return n;
}

int sbx_mnt_template_count(void)
{
	int n;

	pthread_mutex_lock(&tpl_lock);
	n = tpl_state == 1 ? ntpl : 0;
	pthread_mutex_unlock(&tpl_lock);
	return n;
}

int tg_sandbox_mount_template(char *why, size_t n)
{
	int on;

	pthread_mutex_lock(&tpl_lock);
	if (tpl_state < 0)
		tpl_state = decide();
	on = tpl_state == 1;
	if (why && n)
		snprintf(why, n, "%s",
			 on ? "runs copy a read-only mount tree prepared once per process (serve's, and "
			      "any process's from its second run)"
			    : tpl_why);
	pthread_mutex_unlock(&tpl_lock);
	return on;
}
