/* Try to get executable memory after exec, one way per argument; a static
 * tool must be killed at the call (W^X: the kernel mapped its code, nothing
 * else is ever executable). */
#include "attack.h"
#include <sys/mman.h>
int main(int argc, char **argv)
{
	const char *w = argc > 1 ? argv[1] : "";
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 2;
	if (!strcmp(w, "mmap_rx"))
		mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	else if (!strcmp(w, "mmap_x"))
		mmap(NULL, 4096, PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	else if (!strcmp(w, "mprotect_rx"))
		mprotect(p, 4096, PROT_READ | PROT_EXEC);
	else if (!strcmp(w, "pkey_mprotect"))
		syscall(SYS_pkey_mprotect, p, 4096, PROT_READ | PROT_EXEC, -1);
	else if (!strcmp(w, "mprotect_r"))
		report("mprotect(PROT_READ)", mprotect(p, 4096, PROT_READ));
	else
		return 3;
	puts("survived");
	return 0;
}
