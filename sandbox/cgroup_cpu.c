/*
 * sandbox/cgroup_cpu.c: the CPU share of one build or run (issue 15,
 * config cpu_percent; 100 = one core). Where the run's cgroup is a v2
 * folder whose parent enables the cpu controller, "QUOTA 100000" goes to
 * its cpu.max. Otherwise, where a v1 cpu hierarchy is mounted (alone or
 * with cpuacct), the run gets its own folder "tg-<pid>-cpu<n>" next to our
 * cpu cgroup with cpu.cfs_period_us 100000 and cpu.cfs_quota_us QUOTA; the
 * child joins it (its tasks file, like the v1 memory and pids folders)
 * before it tells the supervisor it is ready. After the run an empty
 * folder is kept for the process's next runs (up to CPU_KEEP; making and
 * removing one cost a mkdir, an rmdir and the period's write per run),
 * otherwise removed; a kept folder gets only its quota written again,
 * which also refills its bandwidth, so a run never starts throttled by
 * the one before it; kept folders are removed at exit. A folder's
 * cpu.cfs_quota_us stays open with it (kept too), written at offset 0 per
 * run, instead of a path lookup and an open in the cgroup file system per
 * run. Not its tasks file: a v1 tasks file held open gives back the list
 * of pids it loaded (for a second or so), not the folder's tasks now, so
 * the emptiness check opens it anew each time. Folders of dead supervisors
 * are swept once per process.
 * Without either, runs are not CPU-limited: sbx_cpu_create says why, and
 * `toolgate status` and `doctor` report it (tg_sandbox_cpu_limit).
 */
#include "sandbox/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>

#define CPU_PERIOD_US 100000u

/* 0 or -errno */
static int put(const char *dir, const char *name, const char *val)
{
	char path[700];

	snprintf(path, sizeof(path), "%.600s/%s", dir, name);
	return tg_file_write_str(path, val);
}

/* Does the comma-separated list s hold the word w? */
static int has_item(const char *s, const char *w)
{
	size_t n = strlen(w);
	const char *p = s;

	while ((p = strstr(p, w))) {
		if ((p == s || p[-1] == ',') && (p[n] == ',' || p[n] == '\0' || p[n] == '\n'))
			return 1;
		p += n;
	}
	return 0;
}

/* Our folder in the v1 cpu hierarchy, looked up once per process. */
static char v1_dir[600];
static char v1_why[160];
static pthread_once_t v1_once = PTHREAD_ONCE_INIT;

static void v1_sweep(void);

static void v1_init(void)
{
	_cleanup_fclose_ FILE *m = fopen("/proc/self/mountinfo", "re");
	_cleanup_fclose_ FILE *c = fopen("/proc/self/cgroup", "re");
	char line[1024], mnt[512] = "", own[512] = "";

	if (!m || !c) {
		snprintf(v1_why, sizeof(v1_why), "cannot read /proc/self/mountinfo or cgroup");
		return;
	}
	while (fgets(line, sizeof(line), m)) {
		char *sep = strstr(line, " - "), pt[512], type[64], src[256], opts[512];
		if (!sep || sscanf(line, "%*s %*s %*s %*s %511s", pt) != 1 ||
		    sscanf(sep + 3, "%63s %255s %511s", type, src, opts) != 3)
			continue;
		if (strcmp(type, "cgroup") == 0 && has_item(opts, "cpu")) {
			memcpy(mnt, pt, sizeof(mnt));
			break;
		}
	}
	while (fgets(line, sizeof(line), c)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		c2[strcspn(c2 + 1, "\n") + 1] = '\0';
		if (has_item(c1 + 1, "cpu")) {
			snprintf(own, sizeof(own), "%s", c2 + 1);
			break;
		}
	}
	if (!mnt[0] || !own[0]) {
		snprintf(v1_why, sizeof(v1_why), "no cgroup cpu controller (v1 cpu hierarchy, or "
						 "cpu enabled for the run's v2 cgroup)");
		return;
	}
	snprintf(v1_dir, sizeof(v1_dir), "%.511s%.80s", mnt, strcmp(own, "/") == 0 ? "" : own);
	if (access(v1_dir, W_OK) != 0) {
		snprintf(v1_why, sizeof(v1_why), "the v1 cpu cgroup %.100s is not writable", v1_dir);
		v1_dir[0] = '\0';
		return;
	}
	v1_sweep();
}

/* Remove tg-<pid>-cpu<n> folders of supervisors that no longer exist. */
static void v1_sweep(void)
{
	DIR *d = opendir(v1_dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end, path[700];
		long pid;
		if (strncmp(e->d_name, "tg-", 3) != 0)
			continue;
		pid = strtol(e->d_name + 3, &end, 10);
		if (end == e->d_name + 3 || strncmp(end, "-cpu", 4) != 0 || pid <= 0 ||
		    pid == getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%.600s/%.64s", v1_dir, e->d_name);
		rmdir(path);
	}
	closedir(d);
}

static atomic_uint cpu_counter;

/* Empty v1 folders of this process, kept for its next runs. */
#define CPU_KEEP 4
static pthread_mutex_t keep_lock = PTHREAD_MUTEX_INITIALIZER;
/* safe across fork() (forksafe.c) */
__attribute__((constructor)) static void guard_keep_lock(void)
{
	sbx_fork_guard(&keep_lock, NULL);
}
static struct {
	char dir[700];
	int quota_fd;
} kept[CPU_KEEP];
static int nkept;
static pid_t kept_owner;

/* At exit the kept folders go (after a SIGKILL the next process's sweep
 * removes them); a lock held elsewhere at exit leaves them to the sweep. */
__attribute__((destructor)) static void drop_kept(void)
{
	if (pthread_mutex_trylock(&keep_lock) != 0)
		return;
	while (kept_owner == getpid() && nkept > 0)
		rmdir(kept[--nkept].dir);
	pthread_mutex_unlock(&keep_lock);
}

/* A kept folder into c->dir, 1; 0 if none. */
static int take_kept(struct sbx_cpu *c)
{
	int got = 0;

	pthread_mutex_lock(&keep_lock);
	if (kept_owner != getpid()) { /* a fork: the parent's folders */
		nkept = 0;
		kept_owner = getpid();
	}
	if (nkept > 0) {
		nkept--;
		memcpy(c->dir, kept[nkept].dir, sizeof(c->dir));
		c->quota_fd = kept[nkept].quota_fd;
		got = 1;
	}
	pthread_mutex_unlock(&keep_lock);
	return got;
}

/* Keep c's folder (with its open quota file) if it is empty and there
 * is room: 1 if kept. */
static int keep(const struct sbx_cpu *c)
{
	char b;
	ssize_t k = -1;
	int fd = open(c->tasks, O_RDONLY | O_CLOEXEC), ok = 0;

	if (fd >= 0) {
		k = read(fd, &b, 1);
		close(fd);
	}
	if (k != 0) /* a task still in it (or unreadable): not reused */
		return 0;
	pthread_mutex_lock(&keep_lock);
	if (kept_owner != getpid()) {
		nkept = 0;
		kept_owner = getpid();
	}
	if (nkept < CPU_KEEP) {
		memcpy(kept[nkept].dir, c->dir, sizeof(kept[0].dir));
		kept[nkept++].quota_fd = c->quota_fd;
		ok = 1;
	}
	pthread_mutex_unlock(&keep_lock);
	return ok;
}

static void close_files(struct sbx_cpu *c)
{
	if (c->quota_fd >= 0)
		close(c->quota_fd);
	c->quota_fd = -1;
}

/* The quota through the folder's open file (opened at its first write). */
static int put_quota(struct sbx_cpu *c, const char *val)
{
	char path[700];
	size_t n = strlen(val);
	ssize_t k;

	if (c->quota_fd < 0) {
		snprintf(path, sizeof(path), "%.600s/cpu.cfs_quota_us", c->dir);
		c->quota_fd = open(path, O_WRONLY | O_CLOEXEC);
		if (c->quota_fd < 0)
			return -errno;
	}
	k = pwrite(c->quota_fd, val, n, 0);
	if (k < 0)
		return -errno;
	return k == (ssize_t)n ? 0 : -EIO;
}

int sbx_cpu_create(struct sbx_cpu *c, const struct sbx_cgroup *cg, uint32_t percent)
{
	char val[64];
	int e;

	memset(c, 0, sizeof(*c));
	c->quota_fd = -1;
	if (!percent) {
		snprintf(c->why, sizeof(c->why), "cpu_percent is 0 (no CPU limit)");
		return -1;
	}
	snprintf(val, sizeof(val), "%llu %u",
		 (unsigned long long)percent * CPU_PERIOD_US / 100u, CPU_PERIOD_US);
	if (cg->version == 2) {
		/* the run's own v2 folder: its cpu.max exists when the parent
		 * enables the cpu controller for its children */
		e = put(cg->mem, "cpu.max", val);
		if (e == 0) {
			c->version = 2;
			return 0;
		}
		snprintf(c->why, sizeof(c->why), "cpu.max in the run's v2 cgroup: %s%s",
			 strerror(-e), e == -ENOENT ? " (enable +cpu in the parent's "
						      "cgroup.subtree_control)" : "");
		return -1;
	}
	pthread_once(&v1_once, v1_init);
	if (!v1_dir[0]) {
		snprintf(c->why, sizeof(c->why), "%s", v1_why);
		return -1;
	}
	if (take_kept(c)) {
		e = 0; /* its period is ours already */
	} else {
		int tries = 0;
		/* EEXIST: kept by an earlier process of our pid, not swept yet */
		do
			snprintf(c->dir, sizeof(c->dir), "%.600s/tg-%d-cpu%u", v1_dir,
				 (int)getpid(), atomic_fetch_add(&cpu_counter, 1));
		while ((e = mkdir(c->dir, 0755) == 0 ? 0 : -errno) == -EEXIST && ++tries < 16);
		if (e < 0) {
			snprintf(c->why, sizeof(c->why), "cannot create a v1 cpu cgroup: %s",
				 strerror(-e));
			c->dir[0] = '\0';
			return -1;
		}
		snprintf(val, sizeof(val), "%u", CPU_PERIOD_US);
		e = put(c->dir, "cpu.cfs_period_us", val);
	}
	snprintf(val, sizeof(val), "%llu", (unsigned long long)percent * CPU_PERIOD_US / 100u);
	if (e == 0)
		e = put_quota(c, val);
	if (e < 0) {
		snprintf(c->why, sizeof(c->why), "v1 cpu.cfs_quota_us: %s", strerror(-e));
		close_files(c);
		rmdir(c->dir);
		c->dir[0] = '\0';
		return -1;
	}
	snprintf(c->tasks, sizeof(c->tasks), "%.600s/tasks", c->dir);
	c->version = 1;
	return 0;
}

void sbx_cpu_release(struct sbx_cpu *c)
{
	int i;

	if (c->version == 1 && c->dir[0] && !keep(c)) {
		close_files(c);
		/* the run's tree is gone; an exiting task may linger a moment */
		for (i = 0; i < 50; i++) {
			if (rmdir(c->dir) == 0 || errno != EBUSY)
				break;
			nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
		}
	}
	memset(c, 0, sizeof(*c));
}

int tg_sandbox_cpu_limit(char *why, size_t n, uint32_t percent)
{
	struct sbx_cgroup cg;
	struct sbx_cpu c;
	int have = sbx_cgroup_create(&cg, 64ull << 20, 1) == 0, ok;

	if (!have)
		cg.version = 0;
	ok = sbx_cpu_create(&c, &cg, percent ? percent : 100) == 0;
	if (why && n) {
		if (ok)
			snprintf(why, n, "cgroup v%d cpu controller (%s)", c.version,
				 c.version == 2 ? "cpu.max" : "cpu.cfs_quota_us");
		else
			snprintf(why, n, "%s", c.why);
	}
	sbx_cpu_release(&c);
	if (have)
		sbx_cgroup_destroy(&cg);
	return ok;
}
