/*
 * sandbox/shim/shim.c: the first program of a bridged run under gVisor
 * (gvisor.c, gvisor_spec.c), started by runsc as `/shim /tool ARGS`. runsc
 * gives a container only fds 0-2, so the bridge reaches it as a host unix
 * socket bound at /bridge.sock (runsc --host-uds=open). The shim connects
 * to it, moves the connection to fd 3, closes every descriptor above 3,
 * sets no_new_privs and loads its own seccomp filter, which refuses every
 * socket call from then on as the native filter does (socket and
 * socketpair EACCES; connect, accept, bind, listen, send/recv*, shutdown,
 * the socket options and names killed; any other architecture killed), so
 * the tool can open no further connection. It then checks /tool can be
 * executed, writes one byte (SBX_SHIM_READY) on fd 3, which the supervisor
 * takes as proof that all of this held, and execs /tool with the remaining
 * arguments and an empty environment. Any failure is said on stderr and
 * ends the shim with SBX_SHIM_EXIT + step; the supervisor, which saw no
 * ready byte, reports the run as setup. Freestanding like the waiter: no
 * libc, raw x86-64 system calls (rawsys.h).
 */
#include "sandbox/rawsys.h"
#include "sandbox/shim/shim.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#define S_AF_UNIX 1
#define S_SOCK_STREAM 1
#define S_SOCK_CLOEXEC 02000000
#define S_PR_SET_NO_NEW_PRIVS 38
#define S_PR_SET_SECCOMP 22
#define S_EACCES 13
#define S_EINTR 4
#define S_X_OK 1
#define S_AT_FDCWD (-100)

void *memset(void *d, int c, size_t n)
{
	unsigned char *p = d;
	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

/* "toolgate: sandbox: bridge shim: STEP: errno N" on stderr, then the end */
__attribute__((noreturn)) static void fail(int step, const char *what, long err)
{
	char msg[128], num[12];
	const char *head = "toolgate: sandbox: bridge shim: ";
	size_t n = 0, k = sizeof(num);
	unsigned long v = (unsigned long)(err < 0 ? -err : err);

	do
		num[--k] = (char)('0' + v % 10);
	while ((v /= 10) && k > 0);
	for (const char *p = head; *p && n < 80; p++)
		msg[n++] = *p;
	for (const char *p = what; *p && n < 110; p++)
		msg[n++] = *p;
	msg[n++] = ':';
	msg[n++] = ' ';
	while (k < sizeof(num) && n < sizeof(msg) - 1)
		msg[n++] = num[k++];
	msg[n++] = '\n';
	(void)SX3(__NR_write, 2, msg, n);
	for (;;)
		SX1(__NR_exit_group, SBX_SHIM_EXIT + step);
}

#define KILL SECCOMP_RET_KILL_PROCESS
#define DENY (SECCOMP_RET_ERRNO | S_EACCES)
#define JEQ(nr, t) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), (t), 0)

/* socket, socketpair: EACCES; the rest of 41-55 and accept4, recvmmsg,
 * sendmmsg: killed; another architecture or an x32 number: killed. */
static const struct sock_filter filter[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4 /* arch */),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, KILL),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0 /* nr */),
	BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 8, 0),      /* -> kill */
	JEQ(__NR_socket, 8),                                        /* -> deny */
	JEQ(__NR_socketpair, 7),                                    /* -> deny */
	JEQ(__NR_accept4, 5),                                       /* -> kill */
	JEQ(__NR_recvmmsg, 4),                                      /* -> kill */
	JEQ(__NR_sendmmsg, 3),                                      /* -> kill */
	BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, __NR_socket, 0, 1),     /* < 41: allow */
	BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, __NR_getsockopt, 0, 1), /* 41-55: kill */
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	BPF_STMT(BPF_RET | BPF_K, KILL),
	BPF_STMT(BPF_RET | BPF_K, DENY),
};

struct s_sockaddr_un {
	unsigned short family;
	char path[108];
};

__attribute__((noreturn, used)) void shim_main(long *sp)
{
	long argc = sp[0], k;
	char **argv = (char **)(sp + 1);
	static char *const envp[] = { NULL };
	struct s_sockaddr_un a;
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), (struct sock_filter *)filter };
	const char *path = SBX_SHIM_SOCKET;
	char ready = SBX_SHIM_READY;
	int fd, i;

	if (argc < 2 || !argv[1])
		fail(SBX_SHIM_STEP_ARGS, "usage: /shim /tool ARGS", 22);
	memset(&a, 0, sizeof(a));
	a.family = S_AF_UNIX;
	for (i = 0; path[i] && i < (int)sizeof(a.path) - 1; i++)
		a.path[i] = path[i];
	k = SX3(__NR_socket, S_AF_UNIX, S_SOCK_STREAM | S_SOCK_CLOEXEC, 0);
	if (k < 0)
		fail(SBX_SHIM_STEP_SOCKET, "socket", k);
	fd = (int)k;
	do
		k = SX3(__NR_connect, fd, &a, sizeof(a));
	while (k == -S_EINTR);
	if (k < 0)
		fail(SBX_SHIM_STEP_CONNECT, "connect " SBX_SHIM_SOCKET, k);
	if (fd != 3) {
		/* dup2 clears close-on-exec on the copy */
		if ((k = SX2(__NR_dup2, fd, 3)) < 0)
			fail(SBX_SHIM_STEP_FD3, "dup2 to fd 3", k);
		SX1(__NR_close, fd);
	} else if ((k = SX3(__NR_fcntl, 3, 2 /* F_SETFD */, 0)) < 0) {
		fail(SBX_SHIM_STEP_FD3, "fd 3", k);
	}
	/* runsc gives 0-2 only; close whatever else there is: close_range, else
	 * each number below the descriptor limit (a call each costs tens of
	 * microseconds on the ptrace platform: bounded by the limit, 4096 at most) */
	if (SX3(__NR_close_range, 4, ~0u, 0) < 0) {
		unsigned long lim[2] = { 4096, 4096 };
		if (SX2(__NR_getrlimit, 7 /* RLIMIT_NOFILE */, lim) < 0 || lim[1] > 4096)
			lim[1] = 4096;
		for (i = 4; i < (int)lim[1]; i++)
			SX1(__NR_close, i);
	}
	if ((k = SX5(__NR_prctl, S_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) < 0)
		fail(SBX_SHIM_STEP_NNP, "no_new_privs", k);
	if ((k = SX3(__NR_prctl, S_PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) < 0)
		fail(SBX_SHIM_STEP_FILTER, "seccomp filter", k);
	if ((k = SX4(__NR_faccessat, S_AT_FDCWD, argv[1], S_X_OK, 0)) < 0)
		fail(SBX_SHIM_STEP_EXEC, "cannot execute the tool", k);
	do
		k = SX3(__NR_write, 3, &ready, 1);
	while (k == -S_EINTR);
	if (k != 1)
		fail(SBX_SHIM_STEP_FD3, "ready", k < 0 ? k : 5);
	k = SX3(__NR_execve, argv[1], argv + 1, envp);
	fail(SBX_SHIM_STEP_EXEC, "execve", k);
}

/* Entry: the kernel's stack (argc, argv, envp); pass it on, 16-aligned. */
__asm__(".text\n"
	".globl _start\n"
	".type _start,@function\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call shim_main\n"
	"	hlt\n");
