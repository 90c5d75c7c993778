/*
 * registry/exec/slots.c: the host-wide caps on concurrent builds and runs
 * (issue 15, config max_concurrent_builds, default 2, and
 * max_concurrent_runs, default twice the cores). A build holds one of N slot
 * files, build-slot.0 .. build-slot.N-1 (a run: run-slot.0 ..), through an
 * exclusive flock(2) on
 * it; every toolgate process (any home, CLI or server) using the same
 * folder shares the N slots, and a process that dies frees its slot with
 * its file descriptor, so nothing is ever left held. The folder is
 * $TOOLGATE_RUN_DIR when set, else /run/toolgate when it exists and is
 * writable (the Debian package's tmpfiles.d makes it, shared by all users),
 * else <home>/run (then the cap holds per home). A build waits for a slot
 * up to its own timeout, polling; past it the create is refused naming the
 * key, before anything is built. A run (a call, a test of a create, a
 * one-off program) waits up to its own timeout too, then is refused naming
 * max_concurrent_runs before the tool starts; the tools a run calls through
 * the bridge run within their caller's slot (they would otherwise wait on
 * slots their callers hold). reg_run_slot_take_in takes a run slot from
 * what reg_run_slots_get read off the handle, so that threads that must
 * not touch the handle (the property tests' workers) can take one.
 */
#include "registry/exec/exec.h"

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

/* One free slot among n, or -1 (errno EWOULDBLOCK when all are held,
 * ENOENT when the folder is missing). */
static int try_slots(const char *dir, const char *kind, uint32_t n)
{
	char path[4096];
	uint32_t i;
	int fd, err = EWOULDBLOCK;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s-slot.%u", dir, kind, i);
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
		if (fd < 0 && errno == ENOENT) { /* no folder: made by the caller */
			err = ENOENT;
			break;
		}
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

/* One of n slots of this kind ("build", "run") in dir, waiting up to
 * wait_ms; touches no handle (the property tests' worker threads call it). */
static int slot_take_in(const char *dir, const tg_cancel *cancel, const char *kind, uint32_t n,
			uint32_t wait_ms, int *slot)
{
	uint64_t deadline = now_ms() + wait_ms;
	int fd;

	*slot = -1;
	if (!n)
		return 0;
	for (;;) {
		fd = try_slots(dir, kind, n);
		/* the folder is made when missing, not tried on every take */
		if (fd < 0 && errno == ENOENT) {
			if (mkdir(dir, 0777) != 0 && errno != EEXIST)
				return tg_error_errno(TG_ERR_IO, errno, "%s slots: %s", kind, dir);
			fd = try_slots(dir, kind, n);
		}
		if (fd >= 0) {
			*slot = fd;
			return 0;
		}
		if (errno != EWOULDBLOCK)
			return tg_error_errno(TG_ERR_IO, errno, "%s slots: %s", kind, dir);
		if (tg_cancel_fired(cancel))
			return tg_error_set(TG_ERR_DENIED, "cancelled by the client while waiting "
							   "for a %s slot", kind);
		if (now_ms() >= deadline)
			return tg_error_set(TG_ERR_DENIED,
					    "max_concurrent_%ss: all %u %s slots of the host "
					    "(%s) stayed busy for %u ms: nothing was %s; try "
					    "again later",
					    kind, n, kind, dir, wait_ms,
					    kind[0] == 'b' ? "built" : "run");
		usleep(SLOT_POLL_MS * 1000);
	}
}

static int slot_take(tg_registry *r, const char *kind, uint32_t n, uint32_t wait_ms, int *slot)
{
	_cleanup_free_ char *dir = NULL;

	*slot = -1;
	if (!n)
		return 0;
	if (!(dir = slot_dir(r)))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return slot_take_in(dir, r->cancel, kind, n, wait_ms, slot);
}

int reg_build_slot_take(tg_registry *r, uint32_t wait_ms, int *slot)
{
	return slot_take(r, "build", r->cfg.max_concurrent_builds, wait_ms, slot);
}

int reg_run_slot_take(tg_registry *r, uint32_t wait_ms, int *slot)
{
	return slot_take(r, "run", r->cfg.max_concurrent_runs, wait_ms, slot);
}

int reg_run_slots_get(reg_run_slots *s, tg_registry *r)
{
	s->n = r->cfg.max_concurrent_runs;
	s->cancel = r->cancel;
	s->dir = slot_dir(r);
	return s->dir ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}

int reg_run_slot_take_in(const reg_run_slots *s, uint32_t wait_ms, int *slot)
{
	return slot_take_in(s->dir, s->cancel, "run", s->n, wait_ms, slot);
}

/* Held slots of a kind: a slot whose file refuses a shared flock is held
 * (the probe's own lock lasts microseconds; a taker meeting it tries the
 * next slot). */
uint32_t reg_slots_busy(tg_registry *r, int build)
{
	_cleanup_free_ char *dir = slot_dir(r);
	uint32_t n = build ? r->cfg.max_concurrent_builds : r->cfg.max_concurrent_runs, i, busy = 0;
	char path[4096];

	for (i = 0; dir && i < n; i++) {
		int fd;
		snprintf(path, sizeof(path), "%s/%s-slot.%u", dir, build ? "build" : "run", i);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue; /* never taken yet */
		if (flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK)
			busy++;
		close(fd);
	}
	return busy;
}

void reg_slot_give(int slot)
{
	if (slot >= 0)
		close(slot); /* closing the last descriptor drops the flock */
}
