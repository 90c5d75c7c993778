/*
 * sandbox/cgroup.c: memory and pids limits of one run through cgroups.
 * cgroup v2 is used where it is mounted with the memory and pids
 * controllers enabled for our own cgroup's children (the child is then
 * cloned straight into it with CLONE_INTO_CGROUP); otherwise the v1 memory
 * and pids hierarchies, which the child joins itself (child.c) before it
 * tells the supervisor it is ready. v1 runs use persistent, flock-owned
 * slots "tg-slot-<n>" next to our cgroup (see below); a v2 run, or a v1 run
 * when every slot is taken, gets its own cgroup "tg-<supervisor pid>-<n>",
 * removed after the run; leftovers of dead (SIGKILLed) supervisors are
 * swept by one process in eight and by tg_sandbox_available(). Rootless,
 * v2 runs go in a folder the operator delegated (TOOLGATE_CGROUP, below).
 * Without cgroups (not root, nothing delegated) the caller degrades to
 * rlimits.
 */
#include "sandbox/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>

/* 0 or -errno */
static int write_file(const char *dir, const char *name, const char *val)
{
	char path[600];
	int k = snprintf(path, sizeof(path), "%s/%s", dir, name);

	if (k < 0 || (size_t)k >= sizeof(path))
		return -ENAMETOOLONG;
	return tg_file_write_str(path, val);
}

static int read_small(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t k;

	if (fd < 0)
		return -errno;
	k = read(fd, buf, n - 1);
	close(fd);
	if (k < 0)
		return -errno;
	buf[k] = '\0';
	return 0;
}

static const char *const ctrl_names[3] = { NULL, "memory", "pids" };

/* Does the comma-separated list hold word? (list is modified) */
static int list_has(char *list, const char *word)
{
	char *save = NULL, *t;
	for (t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (strcmp(t, word) == 0)
			return 1;
	return 0;
}

/* One pass over /proc/self/mountinfo: the v2 mount and the v1 memory and
 * pids mounts. */
static void find_mounts(char mnt[3][512], int ok[3])
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[1024];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - "), m[512], type[64], src[256], opts[512];
		int i;
		if (!sep || sscanf(line, "%*s %*s %*s %*s %511s", m) != 1)
			continue;
		if (sscanf(sep + 3, "%63s %255s %511s", type, src, opts) != 3)
			continue;
		if (!ok[0] && strcmp(type, "cgroup2") == 0) {
			memcpy(mnt[0], m, sizeof(m));
			ok[0] = 1;
		}
		for (i = 1; i < 3; i++) {
			char tmp[512];
			memcpy(tmp, opts, sizeof(tmp));
			if (!ok[i] && strcmp(type, "cgroup") == 0 && list_has(tmp, ctrl_names[i])) {
				memcpy(mnt[i], m, sizeof(m));
				ok[i] = 1;
			}
		}
	}
}

/* One pass over /proc/self/cgroup: our path in each of the three. */
static void own_paths(char own[3][512], int ok[3])
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/cgroup", "re");
	char line[1024];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		int i;
		if (!c2)
			continue;
		*c2 = '\0';
		c2[strcspn(c2 + 1, "\n") + 1] = '\0';
		if (!ok[0] && strcmp(c1 + 1, "") == 0 && strncmp(line, "0", 1) == 0) {
			snprintf(own[0], sizeof(own[0]), "%s", c2 + 1);
			ok[0] = 1;
		}
		for (i = 1; i < 3; i++) {
			char tmp[512];
			snprintf(tmp, sizeof(tmp), "%s", c1 + 1);
			if (!ok[i] && list_has(tmp, ctrl_names[i])) {
				snprintf(own[i], sizeof(own[i]), "%s", c2 + 1);
				ok[i] = 1;
			}
		}
	}
}

static int has_word(const char *s, const char *w)
{
	size_t n = strlen(w);
	const char *p = s;

	while ((p = strstr(p, w))) {
		if ((p == s || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

/* rmdir, again while the kernel still counts a task of the run in it
 * (EBUSY: a killed task is reaped before it has left its cgroups, and on a
 * loaded host that took longer than the 100 ms this waited before, leaving
 * a tg-<pid>-<n> folder behind now and then: sandbox_cgroups_cleaned):
 * 2 ms, doubling to 64 ms between tries, 2 s in all. */
static void remove_dir(const char *dir)
{
	long ns = 2000000, waited = 0;

	while (rmdir(dir) != 0 && errno == EBUSY && waited < 2000000000L) {
		nanosleep(&(struct timespec){ 0, ns }, NULL);
		waited += ns;
		if (ns < 64000000)
			ns *= 2;
	}
}

/* Remove tg-<pid>-<n> folders of supervisors that no longer exist. */
static void sweep(const char *parent)
{
	DIR *d = opendir(parent);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		long pid;
		char *end, path[600];
		if (strncmp(e->d_name, "tg-", 3) != 0)
			continue;
		pid = strtol(e->d_name + 3, &end, 10);
		if (end == e->d_name + 3 || *end != '-' || pid <= 0 || pid == getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", parent, e->d_name);
		write_file(path, "cgroup.kill", "1");
		rmdir(path);
	}
	closedir(d);
}

static atomic_uint counter;
static atomic_int swept;
/* The folders to sweep, the same for all runs: written once, by the first
 * of the runs on several threads (0 -> 1 claimed, 2 published). */
static char sweep_dirs[3][1100];
static atomic_int sweep_set[3];

static void sweep_note(int i, const char *dir)
{
	int zero = 0;
	if (atomic_compare_exchange_strong(&sweep_set[i], &zero, 1)) {
		snprintf(sweep_dirs[i], sizeof(sweep_dirs[i]), "%s", dir);
		atomic_store(&sweep_set[i], 2);
	}
}

static void sweep_all(void)
{
	int i;
	for (i = 0; i < 3; i++)
		if (atomic_load(&sweep_set[i]) == 2 && sweep_dirs[i][0])
			sweep(sweep_dirs[i]);
}

/* pids.max takes at most PID_MAX_LIMIT (4194304); above that, "max". */
static void pids_value(char *buf, size_t n, uint32_t max_pids)
{
	if (max_pids >= 4194304u)
		snprintf(buf, n, "max");
	else
		snprintf(buf, n, "%u", max_pids);
}

/* A run's own folder "tg-<pid>-<id>" under root (our folder in a hierarchy). */
static int mk(char *out, size_t n, const char *root, unsigned id)
{
	int k = snprintf(out, n, "%s/tg-%d-%u", root, (int)getpid(), id);
	if (k < 0 || (size_t)k >= n)
		return -ENAMETOOLONG;
	if (mkdir(out, 0755) < 0)
		return -errno;
	return 0;
}

/* Where the hierarchies are and where we sit in them: looked up once per
 * process (a supervisor does not move between cgroups). Our own paths come
 * from /proc/self/cgroup. The mount points are first taken at the usual
 * places (/sys/fs/cgroup/{unified,memory,pids}, /sys/fs/cgroup for v2), each
 * checked with statfs (and, for a v1 memory hierarchy, its control file in
 * our folder): generating /proc/self/mountinfo costs 50-100 us, a quarter of
 * the cgroup set-up of a single-run process. If that guess leads to any
 * failure, the mount table is read after all and the run retries with it
 * (sbx_cgroup_create): a wrong guess never costs the limits. */
struct where_tab {
	int ok[3];          /* v2, v1 memory, v1 pids */
	char mnt[3][512];
	char own[3][512];
	int v2_ctrl;        /* v2: memory and pids enabled for our children */
	int guessed;        /* the mount points are the usual places, unchecked */
};
static struct where_tab where_guess, where_read;
static struct where_tab *_Atomic where_cur;
static pthread_once_t where_once = PTHREAD_ONCE_INIT;
static pthread_once_t where_read_once = PTHREAD_ONCE_INIT;

#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

static void where_v2_ctrl(struct where_tab *w)
{
	if (w->ok[0]) {
		char ctl[1100], buf[256];
		snprintf(ctl, sizeof(ctl), "%s%s/cgroup.subtree_control", w->mnt[0],
			 strcmp(w->own[0], "/") == 0 ? "" : w->own[0]);
		w->v2_ctrl = read_small(ctl, buf, sizeof(buf)) == 0 && has_word(buf, "memory") &&
			     has_word(buf, "pids");
	}
}

static void where_read_init(void)
{
	int m[3] = { 0, 0, 0 }, o[3] = { 0, 0, 0 }, i;
	struct where_tab *w = &where_read;

	find_mounts(w->mnt, m);
	own_paths(w->own, o);
	for (i = 0; i < 3; i++)
		w->ok[i] = m[i] && o[i];
	where_v2_ctrl(w);
	atomic_store(&where_cur, w);
}

static int is_fs(const char *path, long magic)
{
	struct statfs sf;
	return statfs(path, &sf) == 0 && (long)sf.f_type == magic;
}

static void where_init(void)
{
	static const char *const v2[] = { "/sys/fs/cgroup/unified", "/sys/fs/cgroup" };
	static const char *const v1[3] = { NULL, "/sys/fs/cgroup/memory", "/sys/fs/cgroup/pids" };
	struct where_tab *w = &where_guess;
	int o[3] = { 0, 0, 0 }, i;
	size_t k;

	own_paths(w->own, o);
	for (k = 0; k < TG_ARRAY_SIZE(v2) && o[0]; k++) {
		if (is_fs(v2[k], CGROUP2_SUPER_MAGIC)) {
			snprintf(w->mnt[0], sizeof(w->mnt[0]), "%s", v2[k]);
			w->ok[0] = 1;
			break;
		}
	}
	for (i = 1; i < 3; i++)
		if (o[i] && is_fs(v1[i], CGROUP_SUPER_MAGIC)) {
			snprintf(w->mnt[i], sizeof(w->mnt[i]), "%s", v1[i]);
			w->ok[i] = 1;
		}
	if (w->ok[1]) { /* the memory hierarchy has its file in our folder */
		char f[1100];
		snprintf(f, sizeof(f), "%.511s%.511s/memory.limit_in_bytes", w->mnt[1],
			 strcmp(w->own[1], "/") == 0 ? "" : w->own[1]);
		w->ok[1] = access(f, F_OK) == 0;
	}
	where_v2_ctrl(w);
	if (!(w->ok[0] && w->v2_ctrl) && !(w->ok[1] && w->ok[2])) {
		where_read_init(); /* no usable guess: read the table now */
		return;
	}
	w->guessed = 1;
	atomic_store(&where_cur, w);
}

static struct where_tab *where_get(void)
{
	pthread_once(&where_once, where_init);
	return atomic_load(&where_cur);
}

/* The guess failed somewhere: from now on, the mount table. Returns 1 if
 * that changed anything (worth a retry). */
static int where_reread(void)
{
	if (!where_get()->guessed)
		return 0;
	pthread_once(&where_read_once, where_read_init);
	return 1;
}

static int lookup(int which, char *mnt, char *own)
{
	struct where_tab *w = where_get();

	if (!w->ok[which])
		return -1;
	memcpy(mnt, w->mnt[which], sizeof(w->mnt[which]));
	memcpy(own, w->own[which], sizeof(w->own[which]));
	return 0;
}

/* Our own folder in hierarchy `which` (0: v2, 1: v1 memory, 2: v1 pids). */
static int own_dir(char *out, size_t n, int which)
{
	char mnt[512], own[512];

	if (lookup(which, mnt, own) < 0)
		return -1;
	snprintf(out, n, "%s%s", mnt, strcmp(own, "/") == 0 ? "" : own);
	return 0;
}

/* A cgroup handle with nothing in it. */
static void cg_reset(struct sbx_cgroup *cg)
{
	memset(cg, 0, sizeof(*cg));
	cg->v2fd = cg->slot_fd = cg->pids_fd = -1;
}

/*
 * A delegated v2 folder (rootless runs). An ordinary user cannot enable
 * controllers in its own cgroup (it holds processes, and is owned by root
 * or systemd), so the operator delegates a folder instead and names it in
 * TOOLGATE_CGROUP: a cgroup2 folder the user owns (with its cgroup.procs,
 * cgroup.subtree_control and cgroup.threads), "+memory +pids" written to
 * its cgroup.subtree_control, holding no process itself, and under a
 * common ancestor whose cgroup.procs the user may write (the kernel's rule
 * for moving a process, which CLONE_INTO_CGROUP follows). Runs then get
 * their folders "tg-<pid>-<n>" in it. Checked once per process; when the
 * variable is set but the folder is unusable, that reason is kept for
 * cg->why and our own folder is not tried.
 */
static char deleg_dir[600];
static char deleg_why[160];
static int deleg_set;
static pthread_once_t deleg_once = PTHREAD_ONCE_INIT;

static void deleg_init(void)
{
	const char *d = getenv("TOOLGATE_CGROUP");
	char ctl[700], buf[256];
	int e;

	if (!d || !d[0])
		return;
	deleg_set = 1;
	if (d[0] != '/' || strlen(d) >= sizeof(deleg_dir)) {
		snprintf(deleg_why, sizeof(deleg_why), "TOOLGATE_CGROUP: not an absolute path");
		return;
	}
	if (!is_fs(d, CGROUP2_SUPER_MAGIC)) {
		snprintf(deleg_why, sizeof(deleg_why), "TOOLGATE_CGROUP=%.100s: not a cgroup v2 folder", d);
		return;
	}
	snprintf(ctl, sizeof(ctl), "%s/cgroup.subtree_control", d);
	e = read_small(ctl, buf, sizeof(buf));
	if (e < 0 || !has_word(buf, "memory") || !has_word(buf, "pids")) {
		snprintf(deleg_why, sizeof(deleg_why),
			 "TOOLGATE_CGROUP=%.60s: memory and pids are not enabled in its cgroup.subtree_control",
			 d);
		return;
	}
	if (access(d, W_OK) < 0) {
		snprintf(deleg_why, sizeof(deleg_why), "TOOLGATE_CGROUP=%.80s: not writable (%s)", d,
			 strerror(errno));
		return;
	}
	snprintf(deleg_dir, sizeof(deleg_dir), "%s", d);
}

/* The folder v2 runs are made in: the delegated one, else our own (when
 * memory and pids are enabled for its children). */
static int v2_root(char *root, size_t n, struct sbx_cgroup *cg)
{
	pthread_once(&deleg_once, deleg_init);
	if (deleg_set) {
		if (!deleg_dir[0]) {
			snprintf(cg->why, sizeof(cg->why), "%s", deleg_why);
			return -1;
		}
		snprintf(root, n, "%s", deleg_dir);
		return 0;
	}
	/* The controllers enabled for our children are checked once per
	 * process (with the mounts): re-reading subtree_control cost an
	 * open+read+close on every run. */
	if (!where_get()->v2_ctrl || own_dir(root, n, 0) < 0)
		return -1;
	return 0;
}

static int try_v2(struct sbx_cgroup *cg, uint64_t mem_bytes, uint32_t max_pids, unsigned id)
{
	char root[1100], buf[256];
	int e;

	if (v2_root(root, sizeof(root), cg) < 0)
		return -1;
	sweep_note(0, root);
	e = mk(cg->mem, sizeof(cg->mem), root, id);
	if (e < 0) {
		snprintf(cg->why, sizeof(cg->why), "cannot create a v2 cgroup in %.80s: %s", root,
			 strerror(-e));
		cg->mem[0] = '\0';
		return -1;
	}
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)mem_bytes);
	e = write_file(cg->mem, "memory.max", buf);
	if (e == 0)
		write_file(cg->mem, "memory.swap.max", "0");
	pids_value(buf, sizeof(buf), max_pids);
	if (e == 0)
		e = write_file(cg->mem, "pids.max", buf);
	if (e == 0) {
		cg->v2fd = open(cg->mem, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cg->v2fd < 0)
			e = -errno;
	}
	if (e < 0) {
		snprintf(cg->why, sizeof(cg->why), "v2 memory/pids limits in %.80s: %s", root,
			 strerror(-e));
		rmdir(cg->mem);
		cg->mem[0] = '\0';
		return -1;
	}
	cg->version = 2;
	return 0;
}

/* Write a memory+swap limit; a hierarchy without swap accounting has no
 * such file, which is fine. */
static int write_memsw(struct sbx_cgroup *cg, const char *buf, uint64_t v)
{
	int e = write_file(cg->mem, "memory.memsw.limit_in_bytes", buf);

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
static int v1_limits(struct sbx_cgroup *cg, uint64_t mem_bytes, uint32_t max_pids)
{
	char buf[64];
	int e = 0;

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)mem_bytes);
	if (cg->memsw && cg->memsw_limit < mem_bytes)
		e = write_memsw(cg, buf, mem_bytes);
	if (e == 0 && cg->mem_limit != mem_bytes) {
		e = write_file(cg->mem, "memory.limit_in_bytes", buf);
		if (e == 0)
			cg->mem_limit = mem_bytes;
	}
	/* no swap either, where swap accounting exists */
	if (e == 0 && cg->memsw && cg->memsw_limit != mem_bytes)
		e = write_memsw(cg, buf, mem_bytes);
	if (e < 0)
		return e;
	if (!cg->pids_known || cg->pids_max != max_pids) {
		pids_value(buf, sizeof(buf), max_pids);
		e = write_file(cg->pids, "pids.max", buf);
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

static uint64_t read_u64_after(const char *dir, const char *name, const char *key, int *ok)
{
	char path[600], buf[1024], *p = buf;

	*ok = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return 0;
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

/* Give a slot up: unlock it, leave the folders. */
static void slot_unlock(struct sbx_cgroup *cg)
{
	if (cg->slot_fd >= 0)
		close(cg->slot_fd);
	if (cg->pids_fd >= 0)
		close(cg->pids_fd);
	cg->slot_fd = cg->pids_fd = -1;
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
			remove_dir(c->mem);
			remove_dir(c->pids);
			slot_unlock(c);
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

	v = read_u64_after(cg->pids, "pids.current", NULL, &ok);
	if (!ok || v != 0)
		return -1;
	v = read_u64_after(cg->mem, "memory.oom_control", "oom_kill ", &ok);
	if (!ok)
		return -1;
	cg->oom_base = v;
	v = read_u64_after(cg->mem, "memory.usage_in_bytes", NULL, &ok);
	if (!ok || v > SBX_POOL_MAX_USAGE)
		return -2;
	return 0;
}

void sbx_cgroup_release(struct sbx_cgroup *cg, int empty)
{
	int kept = 0;

	if (cg->slot_fd < 0) {
		sbx_cgroup_destroy(cg);
		return;
	}
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
		cg_reset(cg);
		return;
	}
	/* Not verifiably empty (the next owner checks pids.current), or
	 * enough kept: unlocked, the folders stay. */
	slot_unlock(cg);
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
	uint64_t v = read_u64_after(cg->mem, "memory.limit_in_bytes", NULL, &ok);

	if (!ok)
		return -1;
	cg->mem_limit = v;
	v = read_u64_after(cg->mem, "memory.memsw.limit_in_bytes", NULL, &ok);
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
				slot_unlock(cg);
				break;
			}
			e = slot_check(cg);
			if (e == -2 && attempt == 0) {
				/* too much still charged: the pair is made again
				 * (the charge goes to the parent) and locked anew */
				remove_dir(cg->mem);
				remove_dir(cg->pids);
				slot_unlock(cg);
				continue;
			}
			if (e < 0 || slot_read_limits(cg) < 0 || v1_limits(cg, mem_bytes, max_pids) < 0) {
				slot_unlock(cg);
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

static int try_v1(struct sbx_cgroup *cg, uint64_t mem_bytes, uint32_t max_pids, unsigned id)
{
	char memroot[1100], pidsroot[1100];
	int e, has_pids;

	if (own_dir(memroot, sizeof(memroot), 1) < 0)
		return -1;
	sweep_note(1, memroot);
	has_pids = own_dir(pidsroot, sizeof(pidsroot), 2) == 0;
	if (has_pids)
		sweep_note(2, pidsroot);
	while (pool_take(cg)) {
		if (slot_check(cg) == 0 && v1_limits(cg, mem_bytes, max_pids) == 0)
			goto ready;
		/* e.g. usage above a lower limit: give it up, try the next */
		slot_unlock(cg);
		cg_reset(cg);
	}
	if (has_pids && slot_claim(cg, memroot, pidsroot, mem_bytes, max_pids) == 0)
		goto ready;

	/* every slot taken (or none can be made): a pair of our own */
	cg->mem_limit = cg->memsw_limit = UINT64_MAX; /* fresh: unlimited */
	cg->memsw = 1;
	cg->pids_known = 0;
	cg->oom_base = 0;
	e = mk(cg->mem, sizeof(cg->mem), memroot, id);
	if (e < 0) {
		snprintf(cg->why, sizeof(cg->why), "cannot create a v1 memory cgroup: %s",
			 strerror(-e));
		cg->mem[0] = '\0';
		return -1;
	}
	if (has_pids) {
		e = mk(cg->pids, sizeof(cg->pids), pidsroot, id);
		if (e < 0)
			snprintf(cg->why, sizeof(cg->why), "v1 pids cgroup: %s", strerror(-e));
	} else {
		e = -ENOENT;
		snprintf(cg->why, sizeof(cg->why), "no v1 pids hierarchy");
	}
	if (e == 0) {
		e = v1_limits(cg, mem_bytes, max_pids);
		if (e < 0)
			snprintf(cg->why, sizeof(cg->why), "v1 memory/pids limits: %s", strerror(-e));
	}
	if (e < 0) {
		sbx_cgroup_destroy(cg);
		return -1;
	}
ready:
	snprintf(cg->tasks[0], sizeof(cg->tasks[0]), "%s/tasks", cg->mem);
	snprintf(cg->tasks[1], sizeof(cg->tasks[1]), "%s/tasks", cg->pids);
	cg->version = 1;
	return 0;
}

int sbx_cgroup_create(struct sbx_cgroup *cg, uint64_t mem_bytes, uint32_t max_pids)
{
	unsigned id = atomic_fetch_add(&counter, 1);

	cg_reset(cg);
	if (try_v2(cg, mem_bytes, max_pids, id) == 0)
		return 0;
	if (deleg_set) /* the operator named the folder: nothing else is tried */
		return -1;
	if (try_v1(cg, mem_bytes, max_pids, id) == 0)
		return 0;
	if (where_reread()) { /* the usual places were wrong: the mount table */
		cg_reset(cg);
		if (try_v2(cg, mem_bytes, max_pids, id) == 0 ||
		    try_v1(cg, mem_bytes, max_pids, id) == 0)
			return 0;
	}
	if (!cg->why[0])
		snprintf(cg->why, sizeof(cg->why), "no usable cgroup v1 or v2 memory+pids controllers");
	return -1;
}

int sbx_cgroup_tighten(struct sbx_cgroup *cg, uint64_t mem_bytes, uint32_t max_pids)
{
	char buf[64];
	int e;

	if (cg->version == 1) {
		if (mem_bytes > cg->mem_limit)
			mem_bytes = cg->mem_limit;
		if (cg->pids_known && max_pids > cg->pids_max)
			max_pids = cg->pids_max;
		return v1_limits(cg, mem_bytes, max_pids);
	}
	if (cg->version != 2)
		return 0;
	/* v2: a pooled run's own folder, made with the pool's ceilings */
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)mem_bytes);
	e = write_file(cg->mem, "memory.max", buf);
	pids_value(buf, sizeof(buf), max_pids);
	if (e == 0)
		e = write_file(cg->mem, "pids.max", buf);
	return e;
}

void sbx_cgroup_sweep(void)
{
	sweep_all();
}

int sbx_cgroup_oom(const struct sbx_cgroup *cg)
{
	char path[600], buf[1024], *p;

	if (cg->version == 0 || !cg->mem[0])
		return 0;
	snprintf(path, sizeof(path), "%s/%s", cg->mem,
		 cg->version == 2 ? "memory.events" : "memory.oom_control");
	if (read_small(path, buf, sizeof(buf)) < 0)
		return 0;
	p = strstr(buf, "oom_kill ");
	return p && strtoull(p + 9, NULL, 10) > (cg->version == 1 ? cg->oom_base : 0);
}

void sbx_cgroup_destroy(struct sbx_cgroup *cg)
{
	if (cg->slot_fd >= 0) { /* a slot stays; only our lock goes */
		slot_unlock(cg);
		return;
	}
	if (cg->v2fd >= 0) {
		close(cg->v2fd);
		cg->v2fd = -1;
	}
	if (cg->version == 2 && cg->mem[0])
		write_file(cg->mem, "cgroup.kill", "1");
	if (cg->mem[0])
		remove_dir(cg->mem);
	if (cg->pids[0])
		remove_dir(cg->pids);
	cg->mem[0] = cg->pids[0] = '\0';
	/* Leftovers only come from SIGKILLed supervisors and are empty: one
	 * process in eight sweeps them, after its first run (off the run's
	 * own time; the listing costs about 0.15 ms). */
	if (cg->version && getpid() % 8 == 0 && !atomic_exchange(&swept, 1))
		sweep_all();
	cg->version = 0;
}
