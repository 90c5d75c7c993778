/*
 * sandbox/cgroup_fs.c: the cgroup file system as the sandbox sees it:
 * where the v2 and v1 memory/pids hierarchies are mounted and where this
 * process sits in them (guessed at the usual places, the mount table read
 * when a guess fails), small reads and writes of control files, making a
 * run's own folder, removing one, and sweeping the leftovers of dead
 * supervisors. Used by cgroup.c (v2 and the entry points) and cgroup_v1.c
 * through cgroup_int.h; calls only the C library and common/.
 */
#include "sandbox/cgroup_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

/* 0 or -errno */
int sbx_cg_write_file(const char *dir, const char *name, const char *val)
{
	char path[600];
	int k = snprintf(path, sizeof(path), "%s/%s", dir, name);

	if (k < 0 || (size_t)k >= sizeof(path))
		return -ENAMETOOLONG;
	return tg_file_write_str(path, val);
}

int sbx_cg_read_small(const char *path, char *buf, size_t n)
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

int sbx_cg_has_word(const char *s, const char *w)
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
void sbx_cg_remove_dir(const char *dir)
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
		sbx_cg_write_file(path, "cgroup.kill", "1");
		rmdir(path);
	}
	closedir(d);
}

/* The folders to sweep, the same for all runs: written once, by the first
 * of the runs on several threads (0 -> 1 claimed, 2 published). */
static char sweep_dirs[3][1100];
static atomic_int sweep_set[3];

void sbx_cg_sweep_note(int i, const char *dir)
{
	int zero = 0;
	if (atomic_compare_exchange_strong(&sweep_set[i], &zero, 1)) {
		snprintf(sweep_dirs[i], sizeof(sweep_dirs[i]), "%s", dir);
		atomic_store(&sweep_set[i], 2);
	}
}

void sbx_cg_sweep_all(void)
{
	int i;
	for (i = 0; i < 3; i++)
		if (atomic_load(&sweep_set[i]) == 2 && sweep_dirs[i][0])
			sweep(sweep_dirs[i]);
}

/* pids.max takes at most PID_MAX_LIMIT (4194304); above that, "max". */
void sbx_cg_pids_value(char *buf, size_t n, uint32_t max_pids)
{
	if (max_pids >= 4194304u)
		snprintf(buf, n, "max");
	else
		snprintf(buf, n, "%u", max_pids);
}

/* A run's own folder "tg-<pid>-<id>" under root (our folder in a hierarchy). */
int sbx_cg_mk(char *out, size_t n, const char *root, unsigned id)
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
		w->v2_ctrl = sbx_cg_read_small(ctl, buf, sizeof(buf)) == 0 && sbx_cg_has_word(buf, "memory") &&
			     sbx_cg_has_word(buf, "pids");
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
int sbx_cg_where_reread(void)
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
int sbx_cg_own_dir(char *out, size_t n, int which)
{
	char mnt[512], own[512];

	if (lookup(which, mnt, own) < 0)
		return -1;
	snprintf(out, n, "%s%s", mnt, strcmp(own, "/") == 0 ? "" : own);
	return 0;
}

/* A cgroup handle with nothing in it. */
void sbx_cg_reset(struct sbx_cgroup *cg)
{
	memset(cg, 0, sizeof(*cg));
	cg->v2fd = cg->slot_fd = cg->pids_fd = -1;
	cg->ctl[0] = cg->ctl[1] = cg->ctl[2] = -1;
}

int sbx_cg_v2_ctrl(void)
{
	return where_get()->v2_ctrl;
}

int sbx_cg_is_v2(const char *path)
{
	return is_fs(path, CGROUP2_SUPER_MAGIC);
}
