/*
 * sandbox/waiter/waiter.h: what a pooled sandbox child and its supervisor
 * say to each other on the sync socket, and the descriptors they use. The
 * waiter (waiter.c, a freestanding program) includes it as well as the
 * sandbox module (internal.h), so it holds nothing but fixed-size types.
 */
#ifndef TG_SANDBOX_WAITER_H
#define TG_SANDBOX_WAITER_H

#include <stdint.h>

/* A pooled child runs the waiter, then its program, from this descriptor
 * (close-on-exec); it receives its run on the sync socket, this
 * descriptor, with recvmsg(SBX_POOL_SYNC_FD, ..., MSG_CMSG_CLOEXEC), under
 * its filter. */
#define SBX_POOL_EXEC_FD 5
#define SBX_POOL_SYNC_FD 4
/* Largest argv (bytes, NULs included) a pooled run takes; more: no pool. */
#define SBX_POOL_ARGV_MAX 8192
#define SBX_POOL_ARGC_MAX 64

/* Messages on the sync socket (child -> supervisor). */
enum { SBX_MSG_GO = 'G', SBX_MSG_ERROR = 'E', SBX_MSG_EXEC = 'X',
       SBX_MSG_TMPFD = 'D', SBX_MSG_READY = 'R', SBX_MSG_RUN = 'P',
       SBX_MSG_UNSHARED = 'U' /* in the copy of the mount template, in its
			       * own namespaces: its maps may be written */ };
struct sbx_msg {
	char type;
	int err;          /* errno */
	char step[120];   /* what failed */
};

/* Supervisor -> pooled child (the waiter): the one run it serves. With it
 * come, as SCM_RIGHTS, stdin and the program (and the bridge socket when
 * has_fd3). Its rlimits and cgroup limits are lowered by the supervisor
 * before. */
struct sbx_run_msg {
	char type;                 /* SBX_MSG_RUN */
	uint8_t has_fd3;
	uint32_t argc;
	uint32_t argv_len;         /* bytes of argv used (NUL-separated) */
	char argv[SBX_POOL_ARGV_MAX];
};

#endif
