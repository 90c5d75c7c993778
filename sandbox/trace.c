/*
 * sandbox/trace.c: the tracer's loop of one run (run.c's tracer thread, after
 * the clone): it reads the child's sync messages, reaps the child and its
 * threads, and turns ptrace's events into the run's facts: a seccomp kill
 * traced back to the denied system call (exit events; a pooled run's
 * filter stops a denied call for the tracer instead, which names it and
 * kills), a fatal signal that takes the pid namespace's init down, and the
 * few calls the tracer answers itself.
 */
#include "sandbox/internal.h"
#include "sandbox/rawsys.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>

#ifndef PTRACE_GET_SYSCALL_INFO
#define PTRACE_GET_SYSCALL_INFO 0x420e
#endif
#define SBX_AUDIT_ARCH_X86_64 0xc000003eU
#define SBX_AUDIT_ARCH_I386 0x40000003U

struct ptrace_sc_info { /* the fixed head of struct ptrace_syscall_info */
	uint8_t op;
	uint8_t pad[3];
	uint32_t arch;
	uint64_t ip;
	uint64_t sp;
	uint64_t rest[8];
};

/* Read what the child said on the sync socket (non-blocking). */
static void read_sync(struct sbx_run *r)
{
	for (;;) {
		struct sbx_msg m;
		char cbuf[CMSG_SPACE(sizeof(int))];
		struct iovec iov = { &m, sizeof(m) };
		struct msghdr mh = { 0 };
		struct cmsghdr *c;
		ssize_t k;

		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		k = recvmsg(r->sync_parent, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (k <= 0)
			return;
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
				int fd;
				memcpy(&fd, CMSG_DATA(c), sizeof(int));
				if (m.type == SBX_MSG_TMPFD && r->tmpfd < 0)
					r->tmpfd = fd;
				else
					close(fd);
			}
		}
		if ((size_t)k == sizeof(m) && (m.type == SBX_MSG_ERROR || m.type == SBX_MSG_EXEC) &&
		    !r->msg.type) {
			r->msg = m;
			r->msg.step[sizeof(r->msg.step) - 1] = '\0';
		}
	}
}

/* A thread of the child stopped at its exit with a SIGSYS status: find the
 * syscall it was in, and whether our filter would have killed it. */
static void inspect_kill(struct sbx_run *r, pid_t tid)
{
	struct ptrace_sc_info si;
	struct user_regs_struct regs;
	struct seccomp_data d;
	const struct sock_fprog *f = r->child.filter;
	uint32_t act;

	memset(&si, 0, sizeof(si));
	if (ptrace(PTRACE_GETREGS, tid, 0, &regs) < 0)
		return;
	if (ptrace((enum __ptrace_request)PTRACE_GET_SYSCALL_INFO, tid, sizeof(si), &si) < 0)
		si.arch = SBX_AUDIT_ARCH_X86_64;
	memset(&d, 0, sizeof(d));
	d.arch = si.arch;
	d.instruction_pointer = regs.rip;
	if (si.arch == SBX_AUDIT_ARCH_I386) {
		d.nr = (int)(uint32_t)regs.orig_rax;
		d.args[0] = (uint32_t)regs.rbx;
		d.args[1] = (uint32_t)regs.rcx;
		d.args[2] = (uint32_t)regs.rdx;
		d.args[3] = (uint32_t)regs.rsi;
		d.args[4] = (uint32_t)regs.rdi;
		d.args[5] = (uint32_t)regs.rbp;
	} else {
		d.nr = (int)regs.orig_rax;
		d.args[0] = regs.rdi;
		d.args[1] = regs.rsi;
		d.args[2] = regs.rdx;
		d.args[3] = regs.r10;
		d.args[4] = regs.r8;
		d.args[5] = regs.r9;
	}
	act = f ? sbx_bpf_eval(f, &d) : SECCOMP_RET_KILL_PROCESS;
	act &= SECCOMP_RET_ACTION_FULL;
	if (act == SECCOMP_RET_KILL_PROCESS || act == SECCOMP_RET_KILL_THREAD) {
		r->sys_found = 2;
	} else if (r->sys_found == 0) {
		r->sys_found = 1;
	} else {
		return;
	}
	r->sys_arch = si.arch;
	r->sys_nr = si.arch == SBX_AUDIT_ARCH_I386 ? (uint32_t)regs.orig_rax : regs.orig_rax;
}

/* Signals whose default action ends the process (term or core). */
static int sig_default_fatal(int sig)
{
	switch (sig) {
	case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
	case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU: case SIGKILL:
		return 0;
	default:
		return sig > 0 && sig <= SIGRTMAX;
	}
}

/* 1 when thread tid belongs to the init (thread group) and would die of
 * sig: neither caught nor ignored. Read from /proc/<tid>/status. */
static int sig_kills_init(pid_t tid, pid_t init, int sig)
{
	char path[64], buf[2048];
	unsigned long long ign = 0, cgt = 0, bit = 1ULL << (sig - 1);
	long tgid = -1;
	const char *p;
	ssize_t k;
	int fd;

	if (!sig_default_fatal(sig))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	k = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (k <= 0)
		return 0;
	buf[k] = '\0';
	if ((p = strstr(buf, "\nTgid:")))
		tgid = strtol(p + 6, NULL, 10);
	if ((p = strstr(buf, "\nSigIgn:")))
		ign = strtoull(p + 8, NULL, 16);
	if ((p = strstr(buf, "\nSigCgt:")))
		cgt = strtoull(p + 8, NULL, 16);
	return tgid == init && !(ign & bit) && !(cgt & bit);
}

/* RUN_POOLED: a call the filter denies stops here instead of killing
 * (no exit stop is needed to name it): name it and kill the run now; the
 * call is never made (a fatal signal pending skips it). */
static void deny_call(struct sbx_run *r, pid_t tid, const struct user_regs_struct *regs)
{
	struct ptrace_sc_info si;
	struct user_regs_struct skip = *regs;

	memset(&si, 0, sizeof(si));
	if (!r->denied) {
		if (ptrace((enum __ptrace_request)PTRACE_GET_SYSCALL_INFO, tid, sizeof(si), &si) > 0 &&
		    si.op == 3 /* PTRACE_SYSCALL_INFO_SECCOMP */) {
			r->sys_arch = si.arch;
			r->sys_nr = si.rest[0];
		} else {
			r->sys_arch = SBX_AUDIT_ARCH_X86_64;
			r->sys_nr = regs->orig_rax;
		}
		r->sys_found = 2;
		r->denied = 1;
	}
	/* skipped even if the kill could not be sent: a call the tracer left
	 * alone would pass the filter's second look after the stop */
	skip.orig_rax = (unsigned long long)-1;
	skip.rax = (unsigned long long)-ENOSYS;
	(void)ptrace(PTRACE_SETREGS, tid, 0, &skip);
	syscall(SYS_pidfd_send_signal, atomic_load(&r->pidfd), SIGKILL, NULL, 0);
}

/* A SECCOMP_RET_TRACE stop: answer uname or sysinfo with the sandbox's own
 * values, written into the caller's buffer, and skip the real call. */
static void answer_call(struct sbx_run *r, pid_t tid)
{
	struct user_regs_struct regs;
	unsigned long which = 0;
	struct utsname u;
	struct sysinfo si;
	struct iovec local, remote;
	long ret = -ENOSYS;

	if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &which) < 0 ||
	    ptrace(PTRACE_GETREGS, tid, 0, &regs) < 0)
		return;
	if (which == SBX_TRACE_DENY) {
		deny_call(r, tid, &regs);
		return;
	}
	if (which == SBX_TRACE_UNAME) {
		memset(&u, 0, sizeof(u));
		snprintf(u.sysname, sizeof(u.sysname), "Linux");
		snprintf(u.nodename, sizeof(u.nodename), "toolgate");
		snprintf(u.release, sizeof(u.release), "0.0.0-toolgate");
		snprintf(u.version, sizeof(u.version), "#1 toolgate");
		snprintf(u.machine, sizeof(u.machine), "x86_64");
		snprintf(u.domainname, sizeof(u.domainname), "toolgate");
		local.iov_base = &u;
		local.iov_len = sizeof(u);
	} else if (which == SBX_TRACE_SYSINFO) {
		memset(&si, 0, sizeof(si));
		si.uptime = (long)((tg_now_ms() - r->t0) / 1000);
		si.totalram = si.freeram = (unsigned long)r->spec->memory_mb << 20;
		si.procs = 1;
		si.mem_unit = 1;
		local.iov_base = &si;
		local.iov_len = sizeof(si);
	} else {
		local.iov_len = 0;
	}
	if (local.iov_len) {
		remote.iov_base = (void *)(uintptr_t)regs.rdi;
		remote.iov_len = local.iov_len;
		ret = process_vm_writev(tid, &local, 1, &remote, 1, 0) == (ssize_t)local.iov_len
			      ? 0 : -EFAULT;
	}
	regs.orig_rax = (unsigned long long)-1; /* skip the call */
	regs.rax = (unsigned long long)ret;
	(void)ptrace(PTRACE_SETREGS, tid, 0, &regs);
}

void sbx_trace_loop(struct sbx_run *r)
{
	for (;;) {
		int st;
		struct rusage ru;
		pid_t w = wait4(-1, &st, __WALL | __WNOTHREAD, &ru);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			snprintf(r->tracer_err, sizeof(r->tracer_err), "wait4: %s", strerror(errno));
			return;
		}
		if (WIFSTOPPED(st)) {
			int ev = st >> 16, sig = 0;
			if (ev == PTRACE_EVENT_EXIT) {
				unsigned long msg = 0;
				if (ptrace(PTRACE_GETEVENTMSG, w, 0, &msg) == 0 && WIFSIGNALED((int)msg) &&
				    WTERMSIG((int)msg) == SIGSYS && r->sys_found < 2)
					inspect_kill(r, w);
			} else if (ev == PTRACE_EVENT_SECCOMP) {
				answer_call(r, w);
			} else if (ev == 0) {
				sig = WSTOPSIG(st); /* signal-delivery stop: pass it on */
				/* The init of a pid namespace ignores a fatal signal it
				 * has no handler for, and under ptrace even a fault is
				 * not forced on it: a crash would re-fault forever. End
				 * it as it would end outside: now, by that signal. */
				if (!r->crash_sig && sig_kills_init(w, r->pid, sig)) {
					r->crash_sig = sig;
					syscall(SYS_pidfd_send_signal, atomic_load(&r->pidfd), SIGKILL,
						NULL, 0);
					sig = 0;
				}
			}
			ptrace(PTRACE_CONT, w, 0, sig);
			continue;
		}
		if (w == r->pid) {
			SBX_PROF(SBX_PROF_REAPED);
			tg_prof_mark(TG_PROF_REAPED);
			r->status = st;
			r->reaped = 1;
			r->ru = ru;
			/* Everything the child said before it went is still queued. A
			 * child that reported no failure reached execve: the sync
			 * socket is close-on-exec and all failures are reported. */
			read_sync(r);
			r->exec_done = !r->msg.type && r->ready;
			return;
		}
	}
}
