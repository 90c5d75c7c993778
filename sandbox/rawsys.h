/*
 * sandbox/rawsys.h: system calls without libc, for the sandboxed child
 * between clone3 and its execve (child.c) and the clone3 that starts it on
 * a stack of its own (run.c). With CLONE_VM the child shares the whole
 * address space of its supervisor, the thread-local storage of the tracer
 * thread that cloned it included; libc's wrappers would write errno there
 * (and a tracer that reads errno after a failed wait4 would read the
 * child's), so the child makes every call through these: the result is
 * the kernel's own, -errno on failure, and no memory is written. The pooled
 * child's waiter (waiter/waiter.c), which has no libc at all, uses them too,
 * and both report a failure on the sync socket the same way (sbx_raw_fail).
 */
#ifndef TG_SANDBOX_RAWSYS_H
#define TG_SANDBOX_RAWSYS_H

#include "sandbox/waiter/waiter.h"

#include <asm/unistd.h>
#include <stddef.h>
#include <string.h> /* memset: libc's, or the waiter's own */

#if !defined(__x86_64__)
#error "the sandbox's raw system calls are written for x86-64"
#endif

static inline long sbx_sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

#define SX0(n) sbx_sys6((n), 0, 0, 0, 0, 0, 0)
#define SX1(n, a) sbx_sys6((n), (long)(a), 0, 0, 0, 0, 0)
#define SX2(n, a, b) sbx_sys6((n), (long)(a), (long)(b), 0, 0, 0, 0)
#define SX3(n, a, b, c) sbx_sys6((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define SX4(n, a, b, c, d) sbx_sys6((n), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define SX5(n, a, b, c, d, e) \
	sbx_sys6((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)

/* The end of the child or the waiter: exit_group(127), for good. */
__attribute__((noreturn)) static inline void sbx_raw_die(void)
{
	for (;;)
		SX1(__NR_exit_group, 127);
}

/* Say type (errno err at step; step may be NULL) on the sync socket fd. */
static inline void sbx_raw_say(int fd, char type, long err, const char *step)
{
	struct sbx_msg m;
	size_t i;

	memset(&m, 0, sizeof(m));
	m.type = type;
	m.err = (int)err;
	for (i = 0; step && step[i] && i + 1 < sizeof(m.step); i++)
		m.step[i] = step[i];
	(void)SX3(__NR_write, fd, &m, sizeof(m));
}

/* A failure said, then the end. */
__attribute__((noreturn)) static inline void sbx_raw_fail(int fd, char type, long err,
							 const char *step)
{
	sbx_raw_say(fd, type, err, step);
	sbx_raw_die();
}

/* clone3(ca) with ca->stack set: the child starts fn(arg) on that stack
 * (it must not return); the parent gets the child's pid or -errno. */
static inline long sbx_clone3_on_stack(void *ca, unsigned long size, void (*fn)(void *), void *arg)
{
	register long rax __asm__("rax") = __NR_clone3;
	register void *rdi __asm__("rdi") = ca;
	register unsigned long rsi __asm__("rsi") = size;
	register void (*r8)(void *) __asm__("r8") = fn;
	register void *r9 __asm__("r9") = arg;

	/* the kernel keeps r8 and r9 in the child and points its stack at
	 * the top of ca->stack (16-aligned: the call leaves it as a call
	 * would); the child never comes back here */
	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "mov %%r9, %%rdi\n\t"
			 "call *%%r8\n\t"
			 "ud2\n"
			 "1:"
			 : "+r"(rax)
			 : "r"(rdi), "r"(rsi), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory", "cc");
	return rax;
}

#endif
