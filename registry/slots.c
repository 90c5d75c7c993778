/*
 * registry/slots.c: the host-wide cap on concurrent builds (issue 15,
 * config max_concurrent_builds, default 2). A build holds one of N slot
 * files, build-slot.0 .. build-slot.N-1, through an exclusive flock(2) on
 * it; every toolgate process (any home, CLI or server) using the same
 * folder shares the N slots, and a process that dies frees its slot with
 * its file descriptor, so nothing is ever left held. The folder is
 * $TOOLGATE_RUN_DIR when set, else /run/toolgate when it exists and is
 * writable (the Debian package's tmpfiles.d makes it, shared by all users),
 * else <home>/run (then the cap holds per home). A build waits for a slot
 * up to its own timeout, polling; past it the create is refused naming the
 * key, before anything is built.
 */
#include "reg_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SLOT_POLL_MS 50

static char *slot_dir(tg_registry *r)
{
	const char *env = getenv("TOOLGATE_RUN_DIR");

	if (env && env[0] == '/')
		return strdup(env);
	if (access("/run/toolgate", W_OK | X_OK) == 0)
		return strdup("/run/toolgate");
	return tg_path_join(r->home, "run");
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* One free slot among n, or -1 (errno EWOULDBLOCK when all are held). */
static int try_slots(const char *dir, uint32_t n)
{
	char path[4096];
	uint32_t i;
	int fd, err = EWOULDBLOCK;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/build-slot.%u", dir, i);
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
		if (fd < 0)
			fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW); /* another user's */
		if (fd < 0) {
			err = errno;
			continue;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		if (errno != EWOULDBLOCK)
			err = errno;
		close(fd);
	}
	errno = err;
	return -1;
}

int reg_build_slot_take(tg_registry *r, uint32_t wait_ms, int *slot)
{
	_cleanup_free_ char *dir = slot_dir(r);
	uint32_t n = r->cfg.max_concurrent_builds;
	uint64_t deadline = now_ms() + wait_ms;
	int fd;

	*slot = -1;
	if (!n)
		return 0;
	if (!dir)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		return tg_error_errno(TG_ERR_IO, errno, "build slots: %s", dir);
	for (;;) {
		fd = try_slots(dir, n);
		if (fd >= 0) {
			*slot = fd;
			return 0;
		}
		if (errno != EWOULDBLOCK)
			return tg_error_errno(TG_ERR_IO, errno, "build slots: %s", dir);
		if (now_ms() >= deadline)
			return tg_error_set(TG_ERR_DENIED,
					    "max_concurrent_builds: all %u build slots of the host "
					    "(%s) stayed busy for %u ms: nothing was built; try "
					    "again later",
					    n, dir, wait_ms);
		usleep(SLOT_POLL_MS * 1000);
	}
}

void reg_build_slot_give(int slot)
{
	if (slot >= 0)
		close(slot); /* closing the last descriptor drops the flock */
}
