/*
 * sandbox/filter.c: the seccomp allowlists, built with libseccomp once per
 * process and exported as classic BPF, so that the child only has to load a
 * ready program before execve. Default action: KILL_PROCESS; any other
 * architecture (i386 `int 0x80`, x32 numbers) is killed too (RUN_POOLED:
 * TRACE to the tracer, which names the call and kills the run). A few calls get
 * a clean errno instead so programs fail rather than hang (fork, clone3,
 * socket, io_uring, flock); uname and sysinfo go to the tracer, which
 * answers with the sandbox's own values (docs/SANDBOX.md lists what each
 * allowed call can tell). Arguments are checked where they matter: no
 * executable mapping at all for a static tool (RUN), no W+X mapping for
 * ld.so (RUN_DYNAMIC) or the compiler, clone only with the exact pthread flag set, ioctl only
 * TCGETS/FIONREAD compared on 64 bits, fcntl without locks, prlimit64
 * read-only on self. The build profile adds process creation for the
 * compiler driver. The parse profile is narrower than any: the analyzer's
 * parse child (libclang on the agent's text) may read, map and start
 * threads, and nothing else. This file alone includes seccomp.h.
 *
 * The filters are compiled at build time by gen/genbpf.c (libseccomp's
 * first compile in a process costs ~0.5 ms, a third of a run) and the BPF
 * is linked into the library (bpf_table.c); a test checks that a fresh
 * compile still gives the same program.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <seccomp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <termios.h>

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif

/* The flags glibc's pthread_create passes to clone(). */
#define SBX_THREAD_FLAGS                                                              \
	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | \
	 CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)
/* Any namespace flag (CLONE_NEWTIME is 0x80). */
#define SBX_CLONE_NS_MASK 0x7E020080ULL

static const char *const allow_plain[] = {
	"read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev",
	"lseek", "close", "dup", "dup2", "dup3", "poll", "ppoll", "select", "pselect6",
	"open", "openat", "stat", "fstat", "lstat", "newfstatat", "statx", "access",
	"faccessat", "faccessat2", "readlink", "readlinkat", "getdents", "getdents64",
	"getcwd", "chdir", "fchdir", "unlink", "unlinkat", "mkdir", "mkdirat", "rmdir",
	"rename", "renameat", "renameat2", "truncate", "ftruncate", "fsync", "fdatasync",
	"umask", "fchmod", "chmod", "fadvise64", "pipe", "pipe2", "sendfile",
	"brk", "munmap", "mremap", "msync", "exit", "exit_group",
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigtimedwait",
	"rt_sigsuspend", "sigaltstack", "pause", "alarm", "getitimer", "setitimer",
	"set_robust_list", "set_tid_address", "rseq", "sched_yield", "restart_syscall",
	"getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid",
	"getresuid", "getresgid", "getgroups", "getpgrp", "getpgid", "getsid",
	"clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday",
	"time", "getrlimit",
	"kill", "tgkill", "tkill", "execve", "wait4", "waitid",
	"epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait", "eventfd2",
};

/* Extra calls the compiler driver and its children need. */
static const char *const allow_build[] = {
	"vfork", "getrusage", "setrlimit", "statfs", "fstatfs", "utimensat", "fchown",
	"chown", "lchown", "link", "linkat", "symlink", "symlinkat", "fallocate",
	"sched_getaffinity", "prlimit64", "uname", "sysinfo", "times",
};

static int rule(scmp_filter_ctx c, uint32_t action, const char *name, unsigned n,
		const struct scmp_arg_cmp *cmp)
{
	int nr = seccomp_syscall_resolve_name(name);
	if (nr == __NR_SCMP_ERROR)
		return 0; /* not on this architecture */
	return seccomp_rule_add_array(c, action, nr, n, cmp);
}

#define RULE0(c, act, name) rule((c), (act), (name), 0, NULL)
#define RULEN(c, act, name, ...)                                                \
	({                                                                      \
		const struct scmp_arg_cmp _cmp[] = { __VA_ARGS__ };             \
		rule((c), (act), (name), TG_ARRAY_SIZE(_cmp), _cmp);            \
	})

/* What every profile allows with its arguments checked: futex operations,
 * madvise advice, fcntl without locks, getrandom. */
static int add_threads_memory(scmp_filter_ctx c)
{
	static const int futex_ops[] = { FUTEX_WAIT, FUTEX_WAKE, FUTEX_REQUEUE,
					 FUTEX_CMP_REQUEUE, FUTEX_WAKE_OP, FUTEX_WAIT_BITSET,
					 FUTEX_WAKE_BITSET };
	static const int advice[] = { MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL,
				      MADV_WILLNEED, MADV_DONTNEED, MADV_FREE,
				      MADV_HUGEPAGE, MADV_NOHUGEPAGE };
	static const int fcntl_ok[] = { F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_DUPFD,
					F_DUPFD_CLOEXEC };
	size_t i;
	int r = 0;

	for (i = 0; i < TG_ARRAY_SIZE(futex_ops) && r == 0; i++)
		r = RULEN(c, SCMP_ACT_ALLOW, "futex",
			  SCMP_A1(SCMP_CMP_MASKED_EQ,
				  ~(uint64_t)(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME),
				  (uint64_t)futex_ops[i]));
	for (i = 0; i < TG_ARRAY_SIZE(advice) && r == 0; i++)
		r = RULEN(c, SCMP_ACT_ALLOW, "madvise", SCMP_A2(SCMP_CMP_EQ, (uint64_t)advice[i]));
	for (i = 0; i < TG_ARRAY_SIZE(fcntl_ok) && r == 0; i++)
		r = RULEN(c, SCMP_ACT_ALLOW, "fcntl", SCMP_A1(SCMP_CMP_EQ, (uint64_t)fcntl_ok[i]));
	if (r == 0)
		r = RULEN(c, SCMP_ACT_ALLOW, "getrandom",
			  SCMP_A2(SCMP_CMP_MASKED_EQ, ~(uint64_t)1 /* GRND_NONBLOCK */, 0));
	return r;
}

/* The analyzer's parse child (PARSE), after libclang is loaded: it reads
 * headers, maps memory, starts threads and writes its answer on a descriptor
 * it holds. Nothing is opened for writing, created or removed; nothing is
 * mapped executable; no process, signal, socket, exec or namespace call. */
static const char *const allow_parse[] = {
	"read", "readv", "pread64", "write", "writev", "lseek", "close",
	"stat", "fstat", "lstat", "newfstatat", "statx", "access", "faccessat",
	"faccessat2", "readlink", "readlinkat", "getdents64", "getcwd",
	"brk", "munmap", "mremap", "exit", "exit_group",
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack",
	"set_robust_list", "set_tid_address", "rseq", "sched_yield", "restart_syscall",
	"getpid", "gettid", "getuid", "geteuid", "getgid", "getegid",
	"clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday",
	"getrlimit", "uname", "sysinfo", "sched_getaffinity",
};

static int add_parse(scmp_filter_ctx c)
{
	const uint64_t wr = O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND;
	size_t i;
	int r = 0;

	for (i = 0; i < TG_ARRAY_SIZE(allow_parse) && r == 0; i++)
		r = RULE0(c, SCMP_ACT_ALLOW, allow_parse[i]);
	if (r == 0)
		r = add_threads_memory(c);
	/* the sanitizers' runtime marks its shadow memory out of core dumps */
	if (r == 0)
		r = RULEN(c, SCMP_ACT_ALLOW, "madvise", SCMP_A2(SCMP_CMP_EQ, MADV_DONTDUMP));
	if (r == 0)
		r = RULEN(c, SCMP_ACT_ALLOW, "madvise", SCMP_A2(SCMP_CMP_EQ, MADV_DODUMP));
	/* read-only opens (O_TMPFILE needs a writable access mode) */
	if (r == 0)
		r = RULEN(c, SCMP_ACT_ALLOW, "openat", SCMP_A2(SCMP_CMP_MASKED_EQ, wr, 0));
	if (r == 0)
		r = RULEN(c, SCMP_ACT_ALLOW, "open", SCMP_A1(SCMP_CMP_MASKED_EQ, wr, 0));
	for (i = 0; i < 2 && r == 0; i++)
		r = RULEN(c, SCMP_ACT_ALLOW, i == 0 ? "mmap" : "mprotect",
			  SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (r == 0)
		r = RULEN(c, SCMP_ACT_ALLOW, "prlimit64", SCMP_A0(SCMP_CMP_EQ, 0),
			  SCMP_A2(SCMP_CMP_EQ, 0));
	if (r == 0)
		r = RULEN(c, SCMP_ACT_ALLOW, "clone", SCMP_A0(SCMP_CMP_EQ, (uint64_t)SBX_THREAD_FLAGS));
	if (r == 0)
		r = RULEN(c, SCMP_ACT_ALLOW, "arch_prctl", SCMP_A0(SCMP_CMP_EQ, 0x1002 /* SET_FS */));
	/* what libc tries first and falls back from: clone3 to clone, send on
	 * the answer pipe to write, isatty's ioctl */
	if (r == 0)
		r = RULE0(c, SCMP_ACT_ERRNO(ENOSYS), "clone3");
	if (r == 0)
		r = RULE0(c, SCMP_ACT_ERRNO(ENOTSOCK), "sendto");
	if (r == 0)
		r = RULE0(c, SCMP_ACT_ERRNO(ENOTTY), "ioctl");
	return r;
}

static int add_common(scmp_filter_ctx c, int profile)
{
	const uint64_t wx = PROT_WRITE | PROT_EXEC;
	/* a static tool: RUN, or RUN from a pooled child */
	int stat = profile == SBX_PROFILE_RUN || profile == SBX_PROFILE_RUN_POOLED;
	size_t i;
	int r = 0;

	for (i = 0; i < TG_ARRAY_SIZE(allow_plain) && r == 0; i++)
		r = RULE0(c, SCMP_ACT_ALLOW, allow_plain[i]);
	if (profile == SBX_PROFILE_BUILD) {
		for (i = 0; i < TG_ARRAY_SIZE(allow_build) && r == 0; i++)
			r = RULE0(c, SCMP_ACT_ALLOW, allow_build[i]);
	}
	/* mmap/mprotect: a static tool (RUN) never maps anything executable
	 * after exec (the kernel mapped its code); ld.so (RUN_DYNAMIC) and the
	 * compiler may map read+exec, never writable and executable at once. */
	for (i = 0; stat && i < 2 && r == 0; i++) {
		const char *name = i == 0 ? "mmap" : "mprotect";
		r = RULEN(c, SCMP_ACT_ALLOW, name, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	}
	for (i = 0; !stat && i < 3 && r == 0; i++) {
		uint64_t v = i == 0 ? 0 : i == 1 ? PROT_WRITE : PROT_EXEC;
		r = RULEN(c, SCMP_ACT_ALLOW, "mmap", SCMP_A2(SCMP_CMP_MASKED_EQ, wx, v));
		if (r == 0)
			r = RULEN(c, SCMP_ACT_ALLOW, "mprotect", SCMP_A2(SCMP_CMP_MASKED_EQ, wx, v));
	}
	if (r == 0)
		r = add_threads_memory(c);
	/* ioctl: full 64-bit compares, so (1 << 32) | TIOCSTI matches nothing. */
	if (r == 0)
		r = RULEN(c, SCMP_ACT_ALLOW, "ioctl", SCMP_A1(SCMP_CMP_EQ, (uint64_t)TCGETS));
	if (r == 0)
		r = RULEN(c, SCMP_ACT_ALLOW, "ioctl", SCMP_A1(SCMP_CMP_EQ, (uint64_t)FIONREAD));
	if (r == 0)
		r = RULEN(c, SCMP_ACT_ALLOW, "arch_prctl", SCMP_A0(SCMP_CMP_EQ, 0x1002 /* SET_FS */));
	if (r == 0) /* other arch_prctl codes (CET status queries): a clean EINVAL */
		r = RULEN(c, SCMP_ACT_ERRNO(EINVAL), "arch_prctl", SCMP_A0(SCMP_CMP_NE, 0x1002));
	/* A pooled child (pool.c) runs its program from a descriptor: exactly
	 * execveat(SBX_POOL_EXEC_FD, "", argv, envp, AT_EMPTY_PATH). The tool
	 * may make the same call afterwards; that fd is closed at exec, and
	 * whatever it opens there lies on a noexec mount (EACCES). */
	if (r == 0 && profile == SBX_PROFILE_RUN_POOLED)
		r = RULEN(c, SCMP_ACT_ALLOW, "execveat",
			  SCMP_A0(SCMP_CMP_EQ, (uint64_t)SBX_POOL_EXEC_FD),
			  SCMP_A4(SCMP_CMP_EQ, (uint64_t)AT_EMPTY_PATH));
	/* It loads this filter before it waits, and receives its run under it:
	 * exactly recvmsg(SBX_POOL_SYNC_FD, msg, MSG_CMSG_CLOEXEC). After exec
	 * that descriptor is closed; the tool can make no socket, so whatever
	 * it puts there is a file or a pipe (ENOTSOCK), or a copy of the
	 * bridge, which it may read anyway and which never carries descriptors. */
	if (r == 0 && profile == SBX_PROFILE_RUN_POOLED)
		r = RULEN(c, SCMP_ACT_ALLOW, "recvmsg",
			  SCMP_A0(SCMP_CMP_EQ, (uint64_t)SBX_POOL_SYNC_FD),
			  SCMP_A2(SCMP_CMP_EQ, (uint64_t)MSG_CMSG_CLOEXEC));
	if (profile != SBX_PROFILE_BUILD) {
		/* Host facts: uname and sysinfo are answered by the supervisor
		 * with the sandbox's own values (SECCOMP_RET_TRACE; ENOSYS when
		 * nothing traces the run); the CPU set and times() (ticks since
		 * the host booted) fail cleanly. */
		if (r == 0)
			r = RULE0(c, SCMP_ACT_TRACE(SBX_TRACE_UNAME), "uname");
		if (r == 0)
			r = RULE0(c, SCMP_ACT_TRACE(SBX_TRACE_SYSINFO), "sysinfo");
		if (r == 0)
			r = RULE0(c, SCMP_ACT_ERRNO(ENOSYS), "sched_getaffinity");
		if (r == 0)
			r = RULE0(c, SCMP_ACT_ERRNO(ENOSYS), "times");
		if (r == 0)
			r = RULEN(c, SCMP_ACT_ALLOW, "prlimit64", SCMP_A0(SCMP_CMP_EQ, 0),
				  SCMP_A2(SCMP_CMP_EQ, 0));
		if (r == 0)
			r = RULEN(c, SCMP_ACT_ALLOW, "getrusage", SCMP_A0(SCMP_CMP_EQ, RUSAGE_SELF));
		if (r == 0)
			r = RULEN(c, SCMP_ACT_ALLOW, "getrusage", SCMP_A0(SCMP_CMP_EQ, 1 /* THREAD */));
		/* clone: threads only, the exact glibc flag set; fork-like calls fail. */
		if (r == 0)
			r = RULEN(c, SCMP_ACT_ALLOW, "clone",
				  SCMP_A0(SCMP_CMP_EQ, (uint64_t)SBX_THREAD_FLAGS));
		if (r == 0)
			r = RULEN(c, SCMP_ACT_ERRNO(EPERM), "clone",
				  SCMP_A0(SCMP_CMP_NE, (uint64_t)SBX_THREAD_FLAGS));
		if (r == 0)
			r = RULE0(c, SCMP_ACT_ERRNO(EPERM), "fork");
		if (r == 0)
			r = RULE0(c, SCMP_ACT_ERRNO(EPERM), "vfork");
	} else {
		/* The compiler forks; never with a namespace flag. */
		if (r == 0)
			r = RULEN(c, SCMP_ACT_ALLOW, "clone",
				  SCMP_A0(SCMP_CMP_MASKED_EQ, SBX_CLONE_NS_MASK, 0));
		if (r == 0)
			r = RULE0(c, SCMP_ACT_ALLOW, "fork");
	}
	/* Clean failures rather than kills for what portable code probes. */
	if (r == 0)
		r = RULE0(c, SCMP_ACT_ERRNO(ENOSYS), "clone3");
	if (r == 0)
		r = RULE0(c, SCMP_ACT_ERRNO(EACCES), "socket");
	if (r == 0)
		r = RULE0(c, SCMP_ACT_ERRNO(EACCES), "socketpair");
	if (r == 0)
		r = RULE0(c, SCMP_ACT_ERRNO(ENOSYS), "io_uring_setup");
	if (r == 0)
		r = RULE0(c, SCMP_ACT_ERRNO(ENOSYS), "io_uring_enter");
	if (r == 0)
		r = RULE0(c, SCMP_ACT_ERRNO(ENOSYS), "io_uring_register");
	if (r == 0)
		r = RULE0(c, SCMP_ACT_ERRNO(EPERM), "flock");
	return r;
}

int sbx_filter_compile(struct sock_fprog *out, int profile)
{
	scmp_filter_ctx c;
	_cleanup_close_ int fd = -1;
	struct stat st;
	void *buf = NULL;
	int r;

	/* A pooled run is always traced (pool.c makes sure the seize took)
	 * and has no exit stop on its way out: what the filter denies stops
	 * at the call, which the tracer names and then kills (run.c). */
	uint32_t deny = profile == SBX_PROFILE_RUN_POOLED ? SCMP_ACT_TRACE(SBX_TRACE_DENY)
							 : SCMP_ACT_KILL_PROCESS;

	c = seccomp_init(deny);
	if (!c)
		return tg_error_set(TG_ERR_UNAVAILABLE, "seccomp_init failed");
	r = seccomp_attr_set(c, SCMP_FLTATR_ACT_BADARCH, deny);
	if (r == 0)
		r = seccomp_attr_set(c, SCMP_FLTATR_CTL_NNP, 0);
	if (r == 0)
		r = seccomp_attr_set(c, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (r == 0)
		r = profile == SBX_PROFILE_PARSE ? add_parse(c) : add_common(c, profile);
	if (r < 0) {
		seccomp_release(c);
		return tg_error_errno(TG_ERR_INTERNAL, -r, "seccomp: building the filter");
	}
	fd = (int)syscall(SYS_memfd_create, "tg-bpf", MFD_CLOEXEC);
	if (fd < 0) {
		seccomp_release(c);
		return tg_error_errno(TG_ERR_IO, errno, "memfd_create");
	}
	r = seccomp_export_bpf(c, fd);
	seccomp_release(c);
	if (r < 0)
		return tg_error_errno(TG_ERR_INTERNAL, -r, "seccomp_export_bpf");
	if (fstat(fd, &st) < 0 || st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) ||
	    st.st_size > 65536)
		return tg_error_set(TG_ERR_INTERNAL, "seccomp: bad exported filter");
	buf = malloc((size_t)st.st_size);
	if (!buf)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (pread(fd, buf, (size_t)st.st_size, 0) != st.st_size) {
		free(buf);
		return tg_error_errno(TG_ERR_IO, errno, "reading the filter");
	}
	out->filter = buf;
	out->len = (unsigned short)(st.st_size / sizeof(struct sock_filter));
	return 0;
}

void sbx_syscall_name(char *buf, size_t n, uint32_t audit_arch, uint64_t nr)
{
	uint32_t arch = SCMP_ARCH_X86_64;
	const char *prefix = "";
	char *name;

	if (audit_arch == SCMP_ARCH_X86) {
		arch = SCMP_ARCH_X86;
		prefix = "i386:";
	} else if (nr & 0x40000000ULL) {
		arch = SCMP_ARCH_X32;
		prefix = "x32:";
	} else if (audit_arch != SCMP_ARCH_X86_64) {
		snprintf(buf, n, "arch%#x:#%llu", audit_arch, (unsigned long long)nr);
		return;
	}
	name = nr <= 0x7fffffffULL ? seccomp_syscall_resolve_num_arch(arch, (int)nr) : NULL;
	if (name)
		snprintf(buf, n, "%s%s", prefix, name);
	else
		snprintf(buf, n, "%s#%llu", prefix, (unsigned long long)nr);
	free(name);
}
