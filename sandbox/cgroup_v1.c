/*
 * sandbox/cgroup_v1.c: a run's memory and pids limits on cgroup v1 (the
 * half of cgroup.c that only v1 hosts use). Runs take persistent,
 * flock-owned slot pairs "tg-slot-<n>" next to our cgroup in the memory
 * and pids hierarchies, shared by every toolgate process; a process keeps
 * up to SBX_POOL_MAX of them locked for its next runs, and a reused slot
 * gets only the limit writes whose value changed. When every slot is
 * taken a run gets its own pair "tg-<pid>-<n>". Calls cgroup.c's helpers
 * (cgroup_int.h) for the file writes, folder making and sweeping.
 * A slot's three files read at every run (pids.current, memory.oom_control
 * and memory.usage_in_bytes: slot_check, sbx_cgroup_oom) are opened once,
 * relative to the slot's locked folders, and held with the slot: each run
 * reads them again from offset 0, instead of three path lookups and opens
 * in the cgroup file system per run.
 */
#include "sandbox/cgroup_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Write a memory+swap limit; a hierarchy without swap accounting has no
 * such file, which is fine. */
static int write_memsw(struct sbx_cgroup *cg, const char *buf, uint64_t v)
{
	int e = sbx_cg_write_file(cg->mem, "memory.memsw.limit_in_bytes", buf);

	if (e == -ENOENT) {
		cg->memsw = 0;
		return 0;
	}
	if (e == 0)
		cg->memsw_limit = v;
	return e;
}

/* v1 limits of a fresh, reused or newly claimed pair of folders. The memory
 * and memory+swap limits must keep mem <= memsw at every step: memsw is
 * raised first and lowered last. Writes whose value is already there are
 * skipped. */
int sbx_cg_v1_limits(struct sbx_cgroup *cg, uint64_t mem_bytes, uint32_t max_pids)
{
	char buf[64];
	int e = 0;

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)mem_bytes);
	if (cg->memsw && cg->memsw_limit < mem_bytes)
		e = write_memsw(cg, buf, mem_bytes);
	if (e == 0 && cg->mem_limit != mem_bytes) {
		e = sbx_cg_write_file(cg->mem, "memory.limit_in_bytes", buf);
		if (e == 0)
			cg->mem_limit = mem_bytes;
	}
	/* no swap either, where swap accounting exists */
	if (e == 0 && cg->memsw && cg->memsw_limit != mem_bytes)
		e = write_memsw(cg, buf, mem_bytes);
	if (e < 0)
		return e;
	if (!cg->pids_known || cg->pids_max != max_pids) {
		sbx_cg_pids_value(buf, sizeof(buf), max_pids);
		e = sbx_cg_write_file(cg->pids, "pids.max", buf);
		if (e < 0)
			return e;
		cg->pids_max = max_pids;
		cg->pids_known = 1;
	}
	return 0;
}

/*
 * Slots (v1). A pair of v1 folders costs a mkdir and an rmdir in each
 * hierarchy (memcg and css allocation, the control files, an RCU-deferred
 * free: 0.25-0.3 ms of a one-run process such as `toolgate call`). So runs
 * use up to SBX_SLOTS persistent pairs "tg-slot-<n>" next to our cgroup,
 * shared by every toolgate process: a process owns a slot while it holds an
 * flock on the slot's memory folder (released by the kernel when the
 * process dies, however it dies), and keeps up to SBX_POOL_MAX slots
 * locked for its next runs. A slot is used only when pids.current reads 0
 * and at most SBX_POOL_MAX_USAGE is still charged to it (page cache of
 * files earlier runs read; more would count against this run's limit: such
 * a slot is removed and made again); its oom_kill count is remembered,
 * since v1 cannot reset it. Slots are never removed at exit. When every
 * slot is taken, a run gets its own pair "tg-<pid>-<n>", removed after the
 * run (leftovers of SIGKILLed processes are swept).
 */
#define SBX_SLOTS 16
#define SBX_POOL_MAX 4
#define SBX_POOL_MAX_USAGE (8ull << 20)
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
/* safe across fork() (forksafe.c): the refill thread keeps slots under it */
__attribute__((constructor)) static void guard_pool_lock(void)
{
	sbx_fork_guard(&pool_lock, NULL);
}
static struct sbx_cgroup pool[SBX_POOL_MAX];
static int pool_n;
static pid_t pool_owner;

/* A slot of this process, free for its next run. */
static int pool_take(struct sbx_cgroup *cg)
{
	int got = 0;

	pthread_mutex_lock(&pool_lock);
	if (pool_owner != getpid()) { /* a fork: the locks are the parent's */
		pool_n = 0;
		pool_owner = getpid();
	}
	if (pool_n > 0) {
		*cg = pool[--pool_n];
		got = 1;
	}
	pthread_mutex_unlock(&pool_lock);
	return got;
}

/* The files of sbx_cgroup.ctl: in the pids folder or the memory one. */
static const struct {
	const char *name;
	int in_pids;
} ctl_files[3] = {
	[SBX_CG_CUR] = { "pids.current", 1 },
	[SBX_CG_OOM] = { "memory.oom_control", 0 },
	[SBX_CG_USAGE] = { "memory.usage_in_bytes", 0 },
};

int sbx_cg_slot_read(struct sbx_cgroup *cg, int which, char *buf, size_t n)
{
	ssize_t k;

	if (cg->slot_fd < 0 || cg->pids_fd < 0)
		return -EBADF;
	if (cg->ctl[which] < 0) {
		int dir = ctl_files[which].in_pids ? cg->pids_fd : cg->slot_fd;
		cg->ctl[which] = openat(dir, ctl_files[which].name, O_RDONLY | O_CLOEXEC);
		if (cg->ctl[which] < 0)
			return -errno;
	}
	k = pread(cg->ctl[which], buf, n - 1, 0);
	if (k < 0)
		return -errno;
	buf[k] = '\0';
	return 0;
}

/* The number in buf, after key when key is given; *ok 0 when none. */
static uint64_t u64_after(const char *buf, const char *key, int *ok)
{
	const char *p = buf;

	*ok = 0;
	if (key) {
		p = strstr(buf, key);
		if (!p)
			return 0;
		p += strlen(key);
	}
	if (*p < '0' || *p > '9')
		return 0;
	*ok = 1;
	return strtoull(p, NULL, 10);
}

/* A held file of the slot (sbx_cgroup.ctl). */
static uint64_t read_ctl(struct sbx_cgroup *cg, int which, const char *key, int *ok)
{
	char buf[1024];

	*ok = 0;
	return sbx_cg_slot_read(cg, which, buf, sizeof(buf)) < 0 ? 0 : u64_after(buf, key, ok);
}

static uint64_t read_u64(const char *dir, const char *name, int *ok)
{
	char path[600], buf[1024];

	*ok = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return sbx_cg_read_small(path, buf, sizeof(buf)) < 0 ? 0 : u64_after(buf, NULL, ok);
}

/* Give a slot up: unlock it, leave the folders. */
void sbx_cg_slot_unlock(struct sbx_cgroup *cg)
{
	int i;

	if (cg->pids_fd >= 0)
		close(cg->pids_fd);
	for (i = 0; cg->slot_fd >= 0 && i < 3; i++)
		if (cg->ctl[i] >= 0)
			close(cg->ctl[i]);
	if (cg->slot_fd >= 0)
		close(cg->slot_fd);
	cg->slot_fd = cg->pids_fd = -1;
	cg->ctl[0] = cg->ctl[1] = cg->ctl[2] = -1;
	cg->mem[0] = cg->pids[0] = '\0';
	cg->version = 0;
}

int sbx_cgroup_pool_drain(void)
{
	int n = 0;

	pthread_mutex_lock(&pool_lock);
	if (pool_owner == getpid()) {
		while (pool_n > 0) {
			struct sbx_cgroup *c = &pool[--pool_n];
			sbx_cg_remove_dir(c->mem);
			sbx_cg_remove_dir(c->pids);
			sbx_cg_slot_unlock(c);
			n++;
		}
	}
	pool_n = 0;
	pthread_mutex_unlock(&pool_lock);
	return n;
}

int sbx_cgroup_pool_list(char (*mem)[512], char (*pids)[512], int max)
{
	int i, n = 0;

	pthread_mutex_lock(&pool_lock);
	for (i = 0; pool_owner == getpid() && i < pool_n && n < max; i++, n++) {
		memcpy(mem[n], pool[i].mem, sizeof(pool[i].mem));
		memcpy(pids[n], pool[i].pids, sizeof(pool[i].pids));
	}
	pthread_mutex_unlock(&pool_lock);
	return n;
}

/* A slot, taken for a new run: nothing left in it, its oom_kill count
 * remembered, little memory still charged. */
static int slot_check(struct sbx_cgroup *cg)
{
	uint64_t v;
	int ok;

	v = read_ctl(cg, SBX_CG_CUR, NULL, &ok);
	if (!ok || v != 0)
		return -1;
	v = read_ctl(cg, SBX_CG_OOM, "oom_kill ", &ok);
	if (!ok)
		return -1;
	cg->oom_base = v;
	v = read_ctl(cg, SBX_CG_USAGE, NULL, &ok);
	if (!ok || v > SBX_POOL_MAX_USAGE)
		return -2;
	return 0;
}

void sbx_cg_slot_release(struct sbx_cgroup *cg, int empty)
{
	int kept = 0;

	if (cg->version == 1 && empty) {
		pthread_mutex_lock(&pool_lock);
		if (pool_owner != getpid()) {
			pool_n = 0;
			pool_owner = getpid();
		}
		if (pool_n < SBX_POOL_MAX) {
			pool[pool_n++] = *cg;
			kept = 1;
		}
		pthread_mutex_unlock(&pool_lock);
	}
	if (kept) {
		sbx_cg_reset(cg);
		return;
	}
	/* Not verifiably empty (the next owner checks pids.current), or
	 * enough kept: unlocked, the folders stay. */
	sbx_cg_slot_unlock(cg);
}

/* Open and lock slot n's memory folder (made if missing). */
static int slot_lock(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT) {
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -1;
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The current v1 memory limits of a slot this process has not used yet. */
static int slot_read_limits(struct sbx_cgroup *cg)
{
	int ok;
	uint64_t v = read_u64(cg->mem, "memory.limit_in_bytes", &ok);

	if (!ok)
		return -1;
	cg->mem_limit = v;
	v = read_u64(cg->mem, "memory.memsw.limit_in_bytes", &ok);
	cg->memsw = ok;
	cg->memsw_limit = ok ? v : 0;
	cg->pids_known = 0; /* written */
	return 0;
}

/* Lock a free slot and make it ready for a run. */
static int slot_claim(struct sbx_cgroup *cg, const char *memroot, const char *pidsroot,
		      uint64_t mem_bytes, uint32_t max_pids)
{
	int n, attempt;

	for (n = 0; n < SBX_SLOTS; n++) {
		for (attempt = 0; attempt < 2; attempt++) {
			int k1, k2, e;

			k1 = snprintf(cg->mem, sizeof(cg->mem), "%s/tg-slot-%d", memroot, n);
			k2 = snprintf(cg->pids, sizeof(cg->pids), "%s/tg-slot-%d", pidsroot, n);
			if (k1 < 0 || (size_t)k1 >= sizeof(cg->mem) || k2 < 0 ||
			    (size_t)k2 >= sizeof(cg->pids))
				goto none;
			cg->slot_fd = slot_lock(cg->mem);
			if (cg->slot_fd < 0)
				break; /* another process has it */
			cg->version = 1;
			/* the pids folder is locked too: processes in other
			 * memory cgroups (other sessions) share the pids
			 * hierarchy's folder of the same name */
			if ((mkdir(cg->pids, 0755) < 0 && errno != EEXIST) ||
			    (cg->pids_fd = slot_lock(cg->pids)) < 0) {
				sbx_cg_slot_unlock(cg);
				break;
			}
			e = slot_check(cg);
			if (e == -2 && attempt == 0) {
				/* too much still charged: the pair is made again
				 * (the charge goes to the parent) and locked anew */
				sbx_cg_remove_dir(cg->mem);
				sbx_cg_remove_dir(cg->pids);
				sbx_cg_slot_unlock(cg);
				continue;
			}
			if (e < 0 || slot_read_limits(cg) < 0 || sbx_cg_v1_limits(cg, mem_bytes, max_pids) < 0) {
				sbx_cg_slot_unlock(cg);
				break;
			}
			return 0;
		}
	}
none:
	cg->mem[0] = cg->pids[0] = '\0';
	cg->slot_fd = cg->pids_fd = -1;
	cg->version = 0;
	return -1;
}

int sbx_cg_try_v1(struct sbx_cgroup *cg, uint64_t mem_bytes, uint32_t max_pids, unsigned id)
{
	char memroot[1100], pidsroot[1100];
	int e, has_pids;

	if (sbx_cg_own_dir(memroot, sizeof(memroot), 1) < 0)
		return -1;
	sbx_cg_sweep_note(1, memroot);
	has_pids = sbx_cg_own_dir(pidsroot, sizeof(pidsroot), 2) == 0;
	if (has_pids)
		sbx_cg_sweep_note(2, pidsroot);
	while (pool_take(cg)) {
		if (slot_check(cg) == 0 && sbx_cg_v1_limits(cg, mem_bytes, max_pids) == 0)
			goto ready;
		/* e.g. usage above a lower limit: give it up, try the next */
		sbx_cg_slot_unlock(cg);
		sbx_cg_reset(cg);
	}
	if (has_pids && slot_claim(cg, memroot, pidsroot, mem_bytes, max_pids) == 0)
		goto ready;

	/* every slot taken (or none can be made): a pair of our own */
	cg->mem_limit = cg->memsw_limit = UINT64_MAX; /* fresh: unlimited */
	cg->memsw = 1;
	cg->pids_known = 0;
	cg->oom_base = 0;
	e = sbx_cg_mk(cg->mem, sizeof(cg->mem), memroot, id);
	if (e < 0) {
		snprintf(cg->why, sizeof(cg->why), "cannot create a v1 memory cgroup: %s",
			 strerror(-e));
		cg->mem[0] = '\0';
		return -1;
	}
	if (has_pids) {
		e = sbx_cg_mk(cg->pids, sizeof(cg->pids), pidsroot, id);
		if (e < 0)
			snprintf(cg->why, sizeof(cg->why), "v1 pids cgroup: %s", strerror(-e));
	} else {
		e = -ENOENT;
		snprintf(cg->why, sizeof(cg->why), "no v1 pids hierarchy");
	}
	if (e == 0) {
		e = sbx_cg_v1_limits(cg, mem_bytes, max_pids);
		if (e < 0)
			snprintf(cg->why, sizeof(cg->why), "v1 memory/pids limits: %s", strerror(-e));
	}
	if (e < 0) { /* our own pair (no slot, no v2 folder): removed */
		sbx_cg_remove_dir(cg->mem);
		if (cg->pids[0])
			sbx_cg_remove_dir(cg->pids);
		cg->mem[0] = cg->pids[0] = '\0';
		return -1;
	}
ready:
	snprintf(cg->tasks[0], sizeof(cg->tasks[0]), "%s/tasks", cg->mem);
	snprintf(cg->tasks[1], sizeof(cg->tasks[1]), "%s/tasks", cg->pids);
	cg->version = 1;
	return 0;
}
