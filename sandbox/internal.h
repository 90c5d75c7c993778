/*
 * sandbox/internal.h: what the files of the sandbox module share and the
 * tests may use, but nothing else should: the spec of one sandboxed
 * execution (binds, files, limits, profile), the seccomp filters compiled
 * once per process, a classic-BPF evaluator used to find which syscall a
 * killed process was denied, the cgroup helpers and the child-side setup.
 */
#ifndef TG_SANDBOX_INTERNAL_H
#define TG_SANDBOX_INTERNAL_H

#include "sandbox/sandbox.h"
#include "sandbox/waiter/waiter.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/resource.h>

/* Which seccomp allowlist applies. */
enum sbx_profile {
	SBX_PROFILE_RUN = 0,   /* a tool: no fork, threads only, no sockets */
	SBX_PROFILE_BUILD = 1, /* the compiler: fork/exec of cc1, as, ld */
	SBX_PROFILE_RUN_DYNAMIC = 2, /* a dynamic program (sandbox exec): RUN
				      * plus read+exec file mappings for ld.so */
	SBX_PROFILE_RUN_POOLED = 3, /* a static tool in a pooled sandbox: RUN
				     * plus execveat(SBX_POOL_EXEC_FD, "", ...,
				     * AT_EMPTY_PATH), the one exec it makes */
	SBX_PROFILE_PARSE = 4, /* the analyzer's parse child: read-only opens,
				* threads, no exec, no executable mapping */
	SBX_PROFILE_COUNT
};

/* Test-only switches (never set by the public entry points). */
enum {
	SBX_TEST_NO_SECCOMP = 1u << 0, /* namespaces, mounts and limits only */
	SBX_TEST_NO_PTRACE = 1u << 1,  /* do not trace (as when ptrace is refused) */
	SBX_TEST_HOLD_GO = 1u << 2,    /* the tracer publishes the child's pid in
					* sbx_test_held and waits (up to 5 s)
					* for the test to clear it before it
					* traces the child and says go */
};
extern atomic_int sbx_test_held;

enum {
	SBX_BIND_RW = 1u << 0,   /* writable (default read-only) */
	SBX_BIND_EXEC = 1u << 1, /* allow exec (default noexec) */
	SBX_BIND_DEV = 1u << 2,  /* a device node: no nodev */
};

#define SBX_MAX_BINDS 16
#define SBX_MAX_LINKS 8
#define SBX_MAX_FILES 4
#define SBX_UID 65534u   /* the uid/gid inside the sandbox */

struct sbx_bind {
	char src[4096];  /* host path */
	char dst[256];   /* path inside, absolute */
	unsigned flags;
	int is_dir;
};

struct sbx_link {
	char name[64];    /* inside, relative to / (e.g. "lib") */
	char target[256]; /* e.g. "usr/lib" */
};

struct sbx_file {
	const char *name; /* a plain name, written into /tmp */
	const char *data;
	size_t len;
};

struct sbx_spec {
	int profile;
	const char *exec_path;       /* inside */
	const char *tool_src;        /* host path of the program copied to /tool
				      * (a file of the run's root tmpfs), or NULL */
	uint64_t tool_size;          /* its size when the spec was made */
	const char *display;         /* its name in messages (host path), or NULL */
	const char *const *argv;     /* NULL-terminated */
	const char *const *envp;     /* NULL-terminated */
	struct sbx_bind binds[SBX_MAX_BINDS];
	size_t nbinds;
	struct sbx_link links[SBX_MAX_LINKS];
	size_t nlinks;
	struct sbx_file files[SBX_MAX_FILES];
	size_t nfiles;
	int want_tmpfd;              /* hand /tmp's dirfd back (build outputs) */
	const char *stdin_data;
	size_t stdin_len;
	uint32_t timeout_ms, memory_mb, output_kb, tmp_mb, max_procs, max_files;
	uint64_t fsize_bytes; /* RLIMIT_FSIZE when below the tmpfs (builds); 0: tmp_mb */
	uint32_t cpu_percent;        /* CPU share (100 = one core), 0: none */
	const tg_cancel *cancel;     /* kill the run when it fires, or NULL */
	uint32_t cpu_s;              /* as asked; 0: see sbx_cpu_limit_s() */
	unsigned test_flags;
	int fd3;                     /* > 0: handed to the program as fd 3 */
};

/* The one executor behind tg_sandbox_run and tg_sandbox_build. With
 * want_tmpfd, *tmpfd receives an O_PATH fd of the sandbox's /tmp (or -1). */
int sbx_execute(tg_run_result **out, const struct sbx_spec *s, int *tmpfd);

/* spec.c: fill a spec. Add a bind (flags SBX_BIND_*); a host symlink at a top-level system path
 * (e.g. /lib -> usr/lib) becomes the same symlink inside. */
int sbx_spec_bind(struct sbx_spec *s, const char *src, const char *dst, unsigned flags);
/* Bind the system library folders (/usr, /lib, /lib64, /bin) read-only. */
int sbx_spec_bind_system(struct sbx_spec *s);
/* Bind /dev/null, /dev/zero and /dev/urandom (device nodes, read-only). */
int sbx_spec_bind_dev(struct sbx_spec *s);

/* 1 if every bind of s is one of those two functions' (same source and
 * place, same flags) and every link one of the system folders': a
 * skeleton a prepared mount tree may hold (mnt_template.c). */
int sbx_spec_skeleton_ok(const struct sbx_spec *s);

void sbx_spec_defaults(struct sbx_spec *s, const tg_sandbox_opts *o);
/* The run's RLIMIT_CPU in seconds: cpu_s when asked, else the timeout's
 * whole seconds + 1 (so the wall-clock timeout normally comes first). */
static inline uint32_t sbx_cpu_limit_s(const struct sbx_spec *s)
{
	return s->cpu_s ? s->cpu_s : (s->timeout_ms + 999) / 1000 + 1;
}
/* The run's RLIMIT_AS: with a cgroup memory limit only a backstop (2 x
 * memory + 256 MB), without one the memory limit (memory + 32 MB). */
static inline uint64_t sbx_as_bytes(const struct sbx_spec *s, int cg_version)
{
	return cg_version ? ((uint64_t)s->memory_mb * 2 + 256) << 20
			  : ((uint64_t)s->memory_mb + 32) << 20;
}
/* Fixed rlimits of every run, whatever the supervisor holds (the kernel
 * derives RLIMIT_SIGPENDING from the host's RAM). RLIMIT_RTTIME must not
 * be 0: the CPU timers' check would take 0 microseconds of real-time CPU
 * as reaching it. */
#define SBX_RLIMIT_STACK (8ull << 20)
#define SBX_RLIMIT_SIGPENDING 128u
#define SBX_RLIMIT_RTTIME 1000000u
/* "RLIMIT_CPU" .. "RLIMIT_RTTIME", in the kernel's numbering (child.c). */
extern const char *const sbx_rlimit_names[RLIM_NLIMITS];
/* The value (soft = hard) of rlimit res in a run of s with RLIMIT_AS
 * as_bytes: every resource has one (docs/SANDBOX.md, "Limits"). The
 * child sets them all before its execve; a pooled run's supervisor lowers
 * those that depend on the run (sbx_rlimit_per_run) at take-out. Plain
 * arithmetic: child.c calls it. */
static inline uint64_t sbx_rlimit_value(const struct sbx_spec *s, int res, uint64_t as_bytes)
{
	switch (res) {
	case RLIMIT_CPU: return sbx_cpu_limit_s(s);
	case RLIMIT_FSIZE: return s->fsize_bytes ? s->fsize_bytes : (uint64_t)s->tmp_mb << 20;
	case RLIMIT_DATA: return as_bytes;
	case RLIMIT_STACK: return SBX_RLIMIT_STACK;
	case RLIMIT_RSS: return (uint64_t)s->memory_mb << 20;
	case RLIMIT_NPROC: return s->max_procs;
	case RLIMIT_NOFILE: return s->max_files;
	case RLIMIT_AS: return as_bytes;
	case RLIMIT_SIGPENDING: return SBX_RLIMIT_SIGPENDING;
	case RLIMIT_RTTIME: return SBX_RLIMIT_RTTIME;
	default: return 0; /* CORE, MEMLOCK, LOCKS, MSGQUEUE, NICE, RTPRIO */
	}
}
/* 1 for the rlimits whose value depends on the run's spec. */
static inline int sbx_rlimit_per_run(int res)
{
	return res == RLIMIT_CPU || res == RLIMIT_FSIZE || res == RLIMIT_DATA ||
	       res == RLIMIT_RSS || res == RLIMIT_NPROC || res == RLIMIT_NOFILE ||
	       res == RLIMIT_AS;
}
/* Tests: make tg_sandbox_build skip the static-pie link (the -static
 * fallback then links). */
void sbx_build_test_no_static_pie(int on);
/* Tests: build with another compiler driver (NULL: the real one); the
 * version check runs again on the next build. */
void sbx_build_test_compiler(const char *path);
/* tg_sandbox_run with test switches (SBX_TEST_*). */
int sbx_run_with(tg_run_result **out, const tg_sandbox_opts *o, unsigned test_flags);

/* SBX_POOL_EXEC_FD, SBX_POOL_SYNC_FD, the sync socket's messages and the
 * run message of a pooled child: sandbox/waiter/waiter.h. */

/* SECCOMP_RET_TRACE data of the calls the tracer answers itself. */
enum { SBX_TRACE_UNAME = 1, SBX_TRACE_SYSINFO = 2,
       SBX_TRACE_DENY = 3 /* RUN_POOLED: denied; the tracer kills the run */ };

/* seccomp: the filter of a profile, compiled at build time. */
int sbx_filter_get(const struct sock_fprog **out, int profile);
/* Compile it now with libseccomp (the generator and the tests); the caller
 * frees out->filter. */
int sbx_filter_compile(struct sock_fprog *out, int profile);
/* Run a classic-BPF seccomp filter on d; returns the action word. */
uint32_t sbx_bpf_eval(const struct sock_fprog *f, const struct seccomp_data *d);
/* "name", "x32:name" or "i386:name" for a syscall; "#NR" when unknown. */
void sbx_syscall_name(char *buf, size_t n, uint32_t audit_arch, uint64_t nr);

/* Network namespaces (netns.c). Called by a run's tracer thread: puts the
 * thread into the process's shared empty namespace (may_share: the run's
 * seccomp filter is loaded, and tg_sandbox_prepare is on), with the shared
 * ipc namespace too (SBX_NET_SHARED_IPC: the child then gets no
 * CLONE_NEWIPC), or a fresh one (a spare made ahead, else a new one:
 * SBX_NET_OWN), or returns 0 when it may not (no CAP_SYS_ADMIN: the child
 * then gets CLONE_NEWNET). */
enum { SBX_NET_OWN = 1, SBX_NET_SHARED_IPC = 2 };
int sbx_net_enter(int may_share);
/* After a run: start making the next spare (tg_sandbox_prepare). */
void sbx_net_after_run(void);
/* Tests: the inode of the spare namespace now (0: none), and of the spare
 * the last run took. */
unsigned long sbx_net_spare_ino(void);
unsigned long sbx_net_last_ino(void);
/* Tests: the inode of the shared namespace (0: none made yet), of the
 * shared ipc namespace, and of the ipc namespace the last shared run got. */
unsigned long sbx_net_shared_ino(void);
unsigned long sbx_net_shared_ipc_ino(void);
unsigned long sbx_net_last_ipc_ino(void);

/* Prepared mount trees (mnt_template.c). The descriptor of the mount
 * namespace whose root is the read-only skeleton of s (its links and binds,
 * empty /tool and /tmp mount points), made once per process (on the
 * first run under tg_sandbox_prepare, else the second); -1 when s takes
 * the usual path (not root in the initial user namespace,
 * TG_SANDBOX_TEMPLATE=0, binds no template may hold, a process's first
 * run, or it could not be made). The process keeps it open for its life. */
int sbx_mnt_template_fd(const struct sbx_spec *s);
/* tg_sandbox_prepare(on) (netns.c): a long-lived process makes its
 * template on its first run, any other on its second. */
void sbx_mnt_template_prepare(int on);
/* A run could not enter or copy the template (error e at step: EPERM,
 * EINVAL or EACCES, a rule of this kernel or its security module): no run
 * of this process uses one any more. */
void sbx_mnt_template_failed(int e, const char *step);
/* The step names of the child's template entry (child.c), which the
 * tracer matches to call sbx_mnt_template_failed. */
#define SBX_STEP_TEMPLATE_SETNS "setns into the mount template"
#define SBX_STEP_TEMPLATE_UNSHARE "unshare after the mount template"
/* Tests: how many templates this process holds. */
int sbx_mnt_template_count(void);
/* Tests: every template's descriptor now names a network namespace (the
 * calling thread's), so that a run's setns into it fails (EINVAL); how
 * many. */
int sbx_mnt_template_test_break(void);
/* The mount attributes of a bind with flags SBX_BIND_* (child.c and
 * mnt_template.c set the same). */
#include <linux/mount.h>
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
static inline uint64_t sbx_bind_attr(unsigned flags)
{
	uint64_t a = MOUNT_ATTR_NOSUID;

	if (!(flags & SBX_BIND_RW))
		a |= MOUNT_ATTR_RDONLY;
	if (!(flags & SBX_BIND_EXEC))
		a |= MOUNT_ATTR_NOEXEC;
	if (!(flags & SBX_BIND_DEV))
		a |= MOUNT_ATTR_NODEV;
	return a;
}
/* child.c: a mount point (folder or empty file) at the relative path rel,
 * with its parents; raw calls, 0 or -errno. */
long sbx_make_point(const char *rel, int is_dir);
/* child.c: rlimit res of process pid (0: the caller) set to soft = hard =
 * v, or to its current hard limit when v is above it: limits only tighten.
 * One prlimit64 sets v and returns what it replaced, so the usual case (v
 * at or below the hard limit) costs one call instead of a read and a write;
 * a raise refused (EPERM), or one a privilege let through, is then set to
 * the old hard limit. Raw calls (child.c's rules): 0 or -errno. */
long sbx_limit_tighten(long pid, int res, uint64_t v);

/* cgroups: memory and pids limits for one run (v2 with controllers, else v1). */
struct sbx_cgroup {
	int version;        /* 0 none, 1, 2 */
	char mem[512];      /* v1 memory cgroup folder, or the v2 folder */
	char pids[512];     /* v1 pids cgroup folder */
	int v2fd;           /* v2: folder fd for CLONE_INTO_CGROUP */
	char why[160];      /* when version == 0: why not */
	char tasks[2][540]; /* v1: the tasks files of both folders */
	uint64_t mem_limit; /* v1: memory.limit_in_bytes now (UINT64_MAX: fresh) */
	uint64_t memsw_limit; /* v1: memory.memsw.limit_in_bytes now */
	uint32_t pids_max;  /* v1: pids.max now, when pids_known */
	int pids_known;
	int memsw;          /* v1: memory.memsw.limit_in_bytes exists */
	uint64_t oom_base;  /* v1: oom_kill count before this run (reused folder) */
	int slot_fd;        /* v1 slot: its locked memory folder, else -1 */
	int pids_fd;        /* v1 slot: its locked pids folder, else -1 (the pids
			     * hierarchy may be shared by processes whose memory
			     * cgroups differ: each lock covers one folder) */
	int ctl[3];         /* v1 slot: pids.current, memory.oom_control and
			     * memory.usage_in_bytes held open while the slot is
			     * (cgroup_v1.c), else -1; only while slot_fd >= 0 */
};
int sbx_cgroup_create(struct sbx_cgroup *cg, uint64_t mem_bytes, uint32_t max_pids);
/* cgroup_cpu.c: the CPU share of one run, in its v2 folder (cpu.max) or a
 * v1 cpu folder of its own that the child joins (tasks). */
struct sbx_cpu {
	int version;        /* 0: not limited (why says why), 1, 2 */
	char dir[700];      /* v1: the run's cpu folder */
	char tasks[720];    /* v1: its tasks file */
	int quota_fd;       /* v1: its cpu.cfs_quota_us held open with the folder
			     * (cgroup_cpu.c), else -1; only while version == 1 */
	char why[160];
};
int sbx_cpu_create(struct sbx_cpu *c, const struct sbx_cgroup *cg, uint32_t percent);
void sbx_cpu_release(struct sbx_cpu *c);
/* The error of a refused user namespace (clone3 errno e: ENOSPC, EPERM,
 * EACCES): names the sysctl or AppArmor rule to blame, points to doctor. */
int sbx_userns_error(int e);
/* 1 if the OOM killer fired in this cgroup (during this run). */
int sbx_cgroup_oom(struct sbx_cgroup *cg);
void sbx_cgroup_destroy(struct sbx_cgroup *cg);
/* After a run whose whole tree is known to be gone (empty = 1: the init was
 * reaped, or never started): a v1 slot stays locked by this process for
 * its next run (up to four); otherwise it is unlocked for any process (its
 * folders stay). A run's own folders are removed. */
void sbx_cgroup_release(struct sbx_cgroup *cg, int empty);
/* Remove the slots this process holds now (unlocked and removed: tests);
 * returns how many. */
int sbx_cgroup_pool_drain(void);
/* Test hook: the pooled folders' paths (mem, pids) of this process. */
int sbx_cgroup_pool_list(char (*mem)[512], char (*pids)[512], int max);
/* Remove the cgroups of dead supervisors now (also done once per process). */
void sbx_cgroup_sweep(void);

/* The child side: everything after clone3 until execve. Never returns. */
struct sbx_child_args {
	const struct sbx_spec *spec;
	const struct sock_fprog *filter; /* NULL with SBX_TEST_NO_SECCOMP */
	int stdin_fd, out_fd, err_fd, sync_fd;
	int allow_setgroups;
	const char *cgroup_tasks[3];     /* v1: tasks files the child joins
					  * (memory, pids, cpu) */
	uint64_t as_bytes;               /* RLIMIT_AS */
	char root_opts[96];              /* mount options of the root tmpfs
					  * (room for the copy of the program) */
	char tmp_opts[96];               /* mount options of /tmp */
	char timens_offsets[96];         /* for a fresh time namespace, or "" */
	int landlock_abi;                /* > 0: writes only beneath /tmp and rw binds */
	int pooled;                      /* a pooled child: exec the waiter,
					  * which waits for its run */
	int waiter_fd;                   /* pooled: the waiter (a sealed memfd) */
	int shared_vm;                   /* cloned with CLONE_VM (run.c): it
					  * resets the signal handlers, then
					  * sets sigmask, and leaves the dumpable
					  * flag (the supervisor's) alone */
	uint64_t sigmask;                /* the tracer's mask before the clone */
	int mnt_template;                /* >= 0: the prepared mount tree's
					  * namespace (mnt_template.c), a
					  * descriptor of the supervisor: the
					  * child enters it and makes its
					  * own namespaces (no NEWUSER, NEWNS,
					  * NEWIPC, NEWUTS, NEWCGROUP at clone3) */
	int ipc_shared;                  /* the tracer is in the process's shared
					  * ipc namespace (netns.c): the child
					  * keeps it (no NEWIPC) */
};

/* spec.c: what this kernel offers (probed once): the Landlock ABI version
 * (0: none) and time namespaces (1 when /proc/self/timens_offsets exists
 * and the kernel is 6.3 or later). */
int sbx_landlock_abi(void);
int sbx_timens_available(void);
__attribute__((noreturn)) void sbx_child_main(const struct sbx_child_args *a);
/* run.c: does the child share the supervisor's memory until its execve
 * (CLONE_VM; decided once per process)? 1 or 0. */
int sbx_share_vm(void);
/* The same, as the function a CLONE_VM child starts on its stack (run.c). */
__attribute__((noreturn)) void sbx_child_start(void *a);

/* One supervised execution (run.c); a pool entry is one made ahead. */
struct sbx_run {
	const struct sbx_spec *spec;
	struct sbx_child_args child;
	struct sbx_cgroup cg;
	struct sbx_cpu cpu;
	int sync_parent;
	int evfd;
	int outp[2], errp[2], sp[2], in;
	pthread_t th;
	int thread_started;
	/* the calling thread tells the tracer to clone (1) or to give up (-1) */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int start;
	int cloned;          /* the tracer is past the child's first message
			      * (mnt_template's handshake), under mu */
	/* set by the tracer */
	atomic_int pidfd;
	atomic_int cancel;      /* set by the caller thread: kill as soon as cloned */
	atomic_int finished;    /* the init is reaped (or never started) */
	pid_t pid;
	int clone_errno;
	int ready;           /* the child was told to go on */
	int exec_done;
	int reaped;          /* the init was reaped: the whole tree is gone */
	int status;          /* wait status of the init */
	struct rusage ru;
	struct sbx_msg msg;  /* setup error, if any */
	int tmpfd;
	int crash_sig;       /* a signal that would have killed a non-init process */
	int seized;          /* PTRACE_SEIZE took */
	int denied;          /* SBX_TRACE_DENY: killed for a denied call (as SIGSYS) */
	uint64_t t0;         /* when the run started (sysinfo's uptime) */
	int sys_found;       /* 2: the filter says this call kills; 1: a guess */
	uint32_t sys_arch;
	uint64_t sys_nr;
	char tracer_err[160];
	uint64_t made_ms;    /* pool: when its making began (its clocks' 0
			      * is a little later) */
	int defer_release;   /* pool: sbx_run_wait leaves the join and the
			      * release of a reaped run to sbx_run_discard */
	int mntns_fd;        /* pool: the child's mount namespace, held so that
			      * its teardown comes at the release (pool.c) */
	void *child_stack;   /* CLONE_VM: the child's stack until its execve,
			      * unmapped by the tracer once the child is reaped */
};

/* trace.c: the tracer thread's loop once the child is cloned and seized:
 * sync messages, reaping, and the run's kill facts (a denied call, a
 * fatal signal). */
void sbx_trace_loop(struct sbx_run *r);
/* run.c: read what a run's output pipe holds now into b: 1 at EOF, 0
 * otherwise; past cap (counted in *total over both pipes) the rest is
 * dropped and *over set (also the gVisor supervisor's, gvisor.c). */
int sbx_pump(int fd, tg_buf *b, size_t *total, size_t cap, int *over);
/* run.c: set up r for spec s and start its tracer, which clones the child
 * (waiter_fd >= 0: pooled, the child prepares and then waits for its run as
 * the waiter program at that descriptor). 0 or < 0. */
int sbx_run_setup(struct sbx_run *r, const struct sbx_spec *s, int waiter_fd);
/* Wait (up to 5 s) until r's tracer has cloned the child and read what it
 * reads of the sync socket before go (a child entering a prepared mount
 * tree says when its maps can be written): the pool reads the socket
 * after. */
void sbx_run_await_clone(struct sbx_run *r);
/* Supervise the started run r until its end; the result or < 0; frees
 * everything r holds (not r itself). */
int sbx_run_wait(tg_run_result **out, struct sbx_run *r, int *tmpfd);
/* Kill and release a run that will not be supervised (a pool entry), or
 * release one whose result came back with defer_release. */
void sbx_run_discard(struct sbx_run *r);
/* forksafe.c: m is taken before every fork() and released after it in the
 * parent; in the child m and c (if not NULL) are made new (pthread_atfork),
 * so that a child never inherits them held or waited on by a thread it does
 * not have. Call once per pair, before any thread can use it (a
 * constructor). */
void sbx_fork_guard(pthread_mutex_t *m, pthread_cond_t *c);
/* make_stdin of run.c: a sealed read-only memfd holding data. */
int sbx_make_stdin(const char *data, size_t len);

/* pool.c: a pooled run for spec s if the pool is on, holds a ready child
 * and s fits it: 1 with *out (or < 0), 0 when the caller must take the
 * ordinary path. */
int sbx_pool_execute(tg_run_result **out, const struct sbx_spec *s, const char *program);
/* Tests: how many runs the pool has served in this process. */
unsigned long sbx_pool_served(void);
/* Tests: the host pids of the ready entries' children, oldest first (at
 * most max); how many. */
int sbx_pool_test_pids(int *pids, int max);
/* Tests: an entry older than max_ms is not used (default 5000), the refill
 * thread replaces one older than refresh_ms (default 3000; UINT32_MAX:
 * never); 0, 0: the defaults. */
void sbx_pool_test_ages(uint32_t max_ms, uint32_t refresh_ms);
/* Tests: the pool sleeps after ms without a run (default 60000; 0: the
 * default). */
void sbx_pool_test_idle(uint32_t ms);
/* Tests: take (1) or release (0) the pool's lock, or the net namespace
 * maker's, from the calling thread, as their background threads do
 * (forksafe.c's guard is checked with them). */
void sbx_pool_test_lock(int take);
void sbx_net_test_lock(int take);
/* Tests: how many ready entries were discarded for their age. */
unsigned long sbx_pool_stale(void);
/* The waiter program (sandbox/waiter/waiter.c), embedded at build time. */
extern const unsigned char sbx_waiter_elf[];
extern const size_t sbx_waiter_elf_len;
/* cgroup.c: lower the limits of a run's cgroup (never raises them). */
int sbx_cgroup_tighten(struct sbx_cgroup *cg, uint64_t mem_bytes, uint32_t max_pids);

/* Bench builds only (cmake -DTG_SANDBOX_PROFILE=ON): timestamps of the
 * steps of a pooled run (CLOCK_REALTIME, ns, in a page shared with the
 * pooled children), read by bench/sandbox/pool.c. Nothing otherwise. */
#ifdef TG_SANDBOX_PROFILE
#include <time.h>
enum { SBX_PROF_START, SBX_PROF_TAKEN, SBX_PROF_LIMITS, SBX_PROF_STDIN, SBX_PROF_SENT,
       SBX_PROF_PIPES_EOF, SBX_PROF_REAPED,
       SBX_PROF_RESULT, SBX_PROF_N };
extern volatile uint64_t *sbx_prof;
#define SBX_PROF(i)                                                                    \
	do {                                                                           \
		struct timespec ts_;                                                   \
		if (sbx_prof && clock_gettime(CLOCK_REALTIME, &ts_) == 0)              \
			sbx_prof[i] = (uint64_t)ts_.tv_sec * 1000000000u + (uint64_t)ts_.tv_nsec; \
	} while (0)
#else
#define SBX_PROF(i) ((void)0)
#endif

#endif
