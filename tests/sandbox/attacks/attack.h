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

/* The time now in CLOCK_REALTIME milliseconds (two runs' overlap). A
 * marker /tmp/mark-NAME, then, a second later (two runs overlap), how
 * many other entries /tmp holds: "mark: ..." and "tmp_others: N". */
#include <dirent.h>
#include <fcntl.h>
#include <time.h>
static inline long long attack_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline void mark_and_look(const char *name)
{
	char mark[64];
	struct dirent *e;
	int others = 0;
	DIR *d;

	snprintf(mark, sizeof(mark), "/tmp/mark-%s", name);
	report("mark", open(mark, O_WRONLY | O_CREAT | O_EXCL, 0644));
	nanosleep(&(struct timespec){ 1, 0 }, NULL);
	d = opendir("/tmp");
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, mark + 5))
			others++;
	if (d)
		closedir(d);
	printf("tmp_others: %d\n", others);
}
#endif
