/*
 * sandbox/waiter/waiter.c: the program a pooled sandbox child waits as.
 * The child (child.c) does the whole set-up as a copy of its supervisor,
 * loads the run_pooled filter and then execveat()s this program from a
 * sealed memfd at fd 5, so that the copy of the supervisor's address space
 * is torn down while the entry is made, not when its run comes, and no page
 * the supervisor writes meanwhile has to be copied for it.
 *
 * It is freestanding (no libc, no start-up code: raw x86-64 system calls)
 * and makes only the calls the run_pooled filter allows the child: it marks
 * the sync socket (fd 4) close-on-exec, says ready, waits in recvmsg(4, ...,
 * MSG_CMSG_CLOEXEC) for its one run (struct sbx_run_msg with stdin, the
 * program and maybe the bridge as SCM_RIGHTS), puts stdin at 0, the bridge
 * at 3 (else closes 3), the program at 5 (close-on-exec), and calls
 * execveat(5, "", argv, {}, AT_EMPTY_PATH). A failure is said on the sync
 * socket as the child says it (SBX_MSG_ERROR, or SBX_MSG_EXEC when the
 * exec fails), then exit 127. EOF on the socket (the supervisor is going
 * away): pause until the SIGKILL that follows.
 */
#include "sandbox/waiter/waiter.h"
#include "sandbox/rawsys.h"

#include <asm/unistd.h>
#include <stddef.h>

#if !defined(__x86_64__)
#error "the sandbox waiter is written for x86-64"
#endif

/* The kernel's ABI (x86-64), without libc's headers. */
#define W_EINTR 4
#define W_EBADMSG 74
#define W_F_SETFD 2
#define W_FD_CLOEXEC 1
#define W_F_DUPFD_CLOEXEC 1030
#define W_O_CLOEXEC 02000000
#define W_AT_EMPTY_PATH 0x1000
#define W_MSG_CTRUNC 0x8
#define W_MSG_CMSG_CLOEXEC 0x40000000
#define W_SOL_SOCKET 1
#define W_SCM_RIGHTS 1

struct w_iovec {
	void *base;
	size_t len;
};
struct w_msghdr {
	void *name;
	int namelen;
	struct w_iovec *iov;
	size_t iovlen;
	void *control;
	size_t controllen;
	unsigned flags;
};
struct w_cmsghdr {
	size_t len;
	int level;
	int type;
};
#define W_CMSG_HDR sizeof(struct w_cmsghdr) /* 16: data follows, 8-aligned */

static struct sbx_run_msg run_msg;
static char *run_argv[SBX_POOL_ARGC_MAX + 1];
static char *const run_envp[1] = { NULL };
static union {
	struct w_cmsghdr h;
	char buf[W_CMSG_HDR + 16]; /* CMSG_SPACE(3 * sizeof(int)) */
} cbuf;

#define sys3(n, a, b, c) SX3((n), (a), (b), (c))

/* The compiler may turn loops into calls to these. */
void *memset(void *d, int c, size_t n)
{
	unsigned char *p = d;
	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
	unsigned char *p = d;
	const unsigned char *q = s;
	while (n--)
		*p++ = *q++;
	return d;
}

static void check(long rc, const char *step)
{
	if (rc < 0)
		sbx_raw_fail(SBX_POOL_SYNC_FD, SBX_MSG_ERROR, -rc, step);
}

__attribute__((noreturn, used)) void waiter_main(void)
{
	struct w_iovec iov = { &run_msg, sizeof(run_msg) };
	struct w_msghdr mh;
	int got[3] = { -1, -1, -1 }, hi[3] = { -1, -1, -1 }, ng = 0, i;
	uint32_t argc = 0, off = 0;
	long k;

	/* the child left fd 4 open across this exec for us; not for the tool */
	if (sys3(__NR_fcntl, SBX_POOL_SYNC_FD, W_F_SETFD, W_FD_CLOEXEC) < 0)
		sbx_raw_die();
	sbx_raw_say(SBX_POOL_SYNC_FD, SBX_MSG_READY, 0, NULL);
	memset(&mh, 0, sizeof(mh));
	mh.iov = &iov;
	mh.iovlen = 1;
	mh.control = cbuf.buf;
	mh.controllen = sizeof(cbuf.buf);
	do
		k = sys3(__NR_recvmsg, SBX_POOL_SYNC_FD, &mh, W_MSG_CMSG_CLOEXEC);
	while (k == -W_EINTR);
	/* EOF: the supervisor is going away; its SIGKILL follows */
	while (k == 0)
		sys3(__NR_pause, 0, 0, 0);
	if (k != (long)sizeof(run_msg) || run_msg.type != SBX_MSG_RUN)
		sbx_raw_fail(SBX_POOL_SYNC_FD, SBX_MSG_ERROR, k < 0 ? -k : W_EBADMSG, "pool: the run");
	/* one SCM_RIGHTS message: the supervisor sends nothing else */
	if (mh.controllen >= W_CMSG_HDR && cbuf.h.level == W_SOL_SOCKET &&
	    cbuf.h.type == W_SCM_RIGHTS && cbuf.h.len >= W_CMSG_HDR &&
	    cbuf.h.len <= sizeof(cbuf.buf)) {
		size_t nfd = (cbuf.h.len - W_CMSG_HDR) / sizeof(int);
		for (i = 0; i < (int)nfd && ng < 3; i++)
			memcpy(&got[ng++], cbuf.buf + W_CMSG_HDR + (size_t)i * sizeof(int),
			       sizeof(int));
	}
	if (ng != 2 + (run_msg.has_fd3 ? 1 : 0) || (mh.flags & W_MSG_CTRUNC))
		sbx_raw_fail(SBX_POOL_SYNC_FD, SBX_MSG_ERROR, W_EBADMSG, "pool: the run's descriptors");
	/* 0 stdin, 3 the bridge or nothing, 4 the sync socket (close-on-exec),
	 * 5 the program (close-on-exec), nothing else: the descriptors are
	 * known (the setup closed all others, fd 5 was closed at our exec) */
	for (i = 0; i < ng; i++) {
		hi[i] = (int)sys3(__NR_fcntl, got[i], W_F_DUPFD_CLOEXEC, 16);
		check(hi[i], "pool: the run's descriptors");
		sys3(__NR_close, got[i], 0, 0);
	}
	check(sys3(__NR_dup2, hi[0], 0, 0), "pool: stdin");
	if (run_msg.has_fd3)
		check(sys3(__NR_dup2, hi[2], 3, 0), "pool: fd 3");
	else
		sys3(__NR_close, 3, 0, 0);
	check(sys3(__NR_dup3, hi[1], SBX_POOL_EXEC_FD, W_O_CLOEXEC), "pool: the program");
	for (i = 0; i < ng; i++)
		sys3(__NR_close, hi[i], 0, 0);
	run_msg.argv[sizeof(run_msg.argv) - 1] = '\0';
	while (argc < run_msg.argc && argc < SBX_POOL_ARGC_MAX && off < run_msg.argv_len &&
	       off < sizeof(run_msg.argv)) {
		run_argv[argc++] = run_msg.argv + off;
		while (run_msg.argv[off])
			off++;
		off++;
	}
	run_argv[argc] = NULL;
	k = SX5(__NR_execveat, SBX_POOL_EXEC_FD, "", run_argv, run_envp, W_AT_EMPTY_PATH);
	sbx_raw_fail(SBX_POOL_SYNC_FD, SBX_MSG_EXEC, -k, "execveat");
}

/* Entry: no libc, nothing to set up; a 16-byte aligned stack for the call. */
__asm__(".text\n"
	".globl _start\n"
	".type _start,@function\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	and $-16, %rsp\n"
	"	call waiter_main\n"
	"	hlt\n");
