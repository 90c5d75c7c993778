/* Crash on purpose, one way per argument: the sandbox must end the run at
 * once with reason "signaled" and the signal (the tool is the init of its
 * pid namespace, which the kernel would otherwise keep alive). */
#undef NDEBUG /* assert() must stay, whatever the build type */
#include "attack.h"
#include <assert.h>
#include <stdint.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>

static volatile int zero;

static int deep(int n)
{
	volatile char buf[4096];
	buf[0] = (char)n;
	if (n == -1) /* never: keeps the compiler from calling this endless */
		return 0;
	return deep(n + 1) + buf[0];
}

static void on_segv(int sig)
{
	(void)sig;
	_exit(7);
}

int main(int argc, char **argv)
{
	const char *w = argc > 1 ? argv[1] : "";

	if (!strcmp(w, "segv")) {
		*(volatile int *)(uintptr_t)zero = 1;
	} else if (!strcmp(w, "bus")) {
		/* a shared mapping past the end of an empty file */
		int fd = open("/tmp/empty", O_RDWR | O_CREAT, 0600);
		volatile char *p = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			return 2;
		return p[4096];
	} else if (!strcmp(w, "ill")) {
		__builtin_trap();
	} else if (!strcmp(w, "fpe")) {
		return 10 / zero;
	} else if (!strcmp(w, "abort")) {
		abort();
	} else if (!strcmp(w, "assert")) {
		assert(zero == 1);
	} else if (!strcmp(w, "stack")) {
		return deep(0);
	} else if (!strcmp(w, "segv_handled")) {
		signal(SIGSEGV, on_segv);
		*(volatile int *)(uintptr_t)zero = 1;
	} else if (!strcmp(w, "term_self")) {
		kill(getpid(), SIGTERM);
		pause();
	} else if (!strcmp(w, "usr1_ignored")) {
		signal(SIGUSR1, SIG_IGN);
		kill(getpid(), SIGUSR1);
		puts("survived");
		return 0;
	}
	return 3;
}
