/*
 * tests/sandbox/attacks/attack.h: what the attack programs share. Each is a
 * small static program run inside the sandbox by test_sandbox.c; it prints
 * one line per attempt ("what: ERRNAME" or "what: ok") so the test can
 * assert the exact outcome, or gets killed, which the test asserts too.
 */
#ifndef TG_ATTACK_H
#define TG_ATTACK_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

static inline void report(const char *what, long rc)
{
	const char *n = rc < 0 ? strerrorname_np(errno) : NULL;
	printf("%s: %s\n", what, rc < 0 ? (n ? n : "E?") : "ok");
	fflush(stdout);
}
#endif
