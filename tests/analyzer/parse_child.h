/*
 * tests/analyzer/parse_child.h: find the analysis's parse child from a
 * thread of the test that started it, for analyzer_limits(_spawn) and
 * analyzer_spawn. A child of this process; with fresh = 1, only once it
 * runs the parse-child entry (its command line is the entry's): a spawned
 * child stopped before its exec would hold the caller inside posix_spawn,
 * and still maps the caller's memory. 0 when there is none yet.
 */
#ifndef TG_TEST_PARSE_CHILD_H
#define TG_TEST_PARSE_CHILD_H

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TG_TEST_CHILD_ARG "__toolgate-parse-child"

/* Up to size bytes of a small /proc file; 0 when it cannot be read. */
static size_t tg_test_read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t k;
	if (fd < 0)
		return 0;
	while (n < size && (k = read(fd, buf + n, size - n)) > 0)
		n += (size_t)k;
	close(fd);
	return n;
}

static int tg_test_runs_entry(const char *pid)
{
	static const char want[] = "toolgate\0" TG_TEST_CHILD_ARG;
	char path[300], buf[64];
	size_t n;
	snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
	n = tg_test_read_small(path, buf, sizeof(buf));
	return n == sizeof(want) && memcmp(buf, want, n) == 0;
}

static pid_t tg_test_find_parse_child(int fresh)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;
	if (!d)
		return 0;
	while (!found && (e = readdir(d)) != NULL) {
		char path[300], buf[512], *c;
		int ppid = 0;
		size_t n;
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		n = tg_test_read_small(path, buf, sizeof(buf) - 1);
		buf[n] = '\0';
		c = strrchr(buf, ')'); /* the state and the parent follow the name */
		if (c && sscanf(c + 1, " %*c %d", &ppid) == 1 && ppid == getpid() &&
		    (!fresh || tg_test_runs_entry(e->d_name)))
			found = (pid_t)atoi(e->d_name);
	}
	closedir(d);
	return found;
}

#endif
