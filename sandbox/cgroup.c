/*
 * sandbox/cgroup.c: memory and pids limits of one run through cgroups.
 * cgroup v2 is used where it is mounted with the memory and pids
 * controllers enabled for our own cgroup's children (the child is then
 * cloned straight into it with CLONE_INTO_CGROUP); otherwise the v1 memory
 * and pids hierarchies, which the child joins itself (child.c) before it
 * tells the supervisor it is ready. v1 runs use persistent, flock-owned
 * slots "tg-slot-<n>" next to our cgroup (cgroup_v1.c); a v2 run, or a v1 run
 * when every slot is taken, gets its own cgroup "tg-<supervisor pid>-<n>",
 * removed after the run; leftovers of dead (SIGKILLed) supervisors are
 * swept by one process in eight and by tg_sandbox_available(). Rootless,
 * v2 runs go in a folder the operator delegated (TOOLGATE_CGROUP, below).
 * Without cgroups (not root, nothing delegated) the caller degrades to
 * rlimits. This file holds the entry points and the v2 and delegated
 * folders; it calls cgroup_v1.c (v1 limits and slots) and cgroup_fs.c (the
 * hierarchies, control files, sweeping) through cgroup_int.h.
 */
#include "sandbox/cgroup_int.h"

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

static atomic_uint counter;
static atomic_int swept;

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
	if (!sbx_cg_is_v2(d)) {
		snprintf(deleg_why, sizeof(deleg_why), "TOOLGATE_CGROUP=%.100s: not a cgroup v2 folder", d);
		return;
	}
	snprintf(ctl, sizeof(ctl), "%s/cgroup.subtree_control", d);
	e = sbx_cg_read_small(ctl, buf, sizeof(buf));
	if (e < 0 || !sbx_cg_has_word(buf, "memory") || !sbx_cg_has_word(buf, "pids")) {
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
	if (!sbx_cg_v2_ctrl() || sbx_cg_own_dir(root, n, 0) < 0)
		return -1;
	return 0;
}

static int try_v2(struct sbx_cgroup *cg, uint64_t mem_bytes, uint32_t max_pids, unsigned id)
{
	char root[1100], buf[256];
	int e;

	if (v2_root(root, sizeof(root), cg) < 0)
		return -1;
	sbx_cg_sweep_note(0, root);
	e = sbx_cg_mk(cg->mem, sizeof(cg->mem), root, id);
	if (e < 0) {
		snprintf(cg->why, sizeof(cg->why), "cannot create a v2 cgroup in %.80s: %s", root,
			 strerror(-e));
		cg->mem[0] = '\0';
		return -1;
	}
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)mem_bytes);
	e = sbx_cg_write_file(cg->mem, "memory.max", buf);
	if (e == 0)
		sbx_cg_write_file(cg->mem, "memory.swap.max", "0");
	sbx_cg_pids_value(buf, sizeof(buf), max_pids);
	if (e == 0)
		e = sbx_cg_write_file(cg->mem, "pids.max", buf);
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

int sbx_cgroup_create(struct sbx_cgroup *cg, uint64_t mem_bytes, uint32_t max_pids)
{
	unsigned id = atomic_fetch_add(&counter, 1);

	sbx_cg_reset(cg);
	if (try_v2(cg, mem_bytes, max_pids, id) == 0)
		return 0;
	if (deleg_set) /* the operator named the folder: nothing else is tried */
		return -1;
	if (sbx_cg_try_v1(cg, mem_bytes, max_pids, id) == 0)
		return 0;
	if (sbx_cg_where_reread()) { /* the usual places were wrong: the mount table */
		sbx_cg_reset(cg);
		if (try_v2(cg, mem_bytes, max_pids, id) == 0 ||
		    sbx_cg_try_v1(cg, mem_bytes, max_pids, id) == 0)
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
		return sbx_cg_v1_limits(cg, mem_bytes, max_pids);
	}
	if (cg->version != 2)
		return 0;
	/* v2: a pooled run's own folder, made with the pool's ceilings */
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)mem_bytes);
	e = sbx_cg_write_file(cg->mem, "memory.max", buf);
	sbx_cg_pids_value(buf, sizeof(buf), max_pids);
	if (e == 0)
		e = sbx_cg_write_file(cg->mem, "pids.max", buf);
	return e;
}

void sbx_cgroup_sweep(void)
{
	sbx_cg_sweep_all();
}

int sbx_cgroup_oom(struct sbx_cgroup *cg)
{
	char path[600], buf[1024], *p;

	if (cg->version == 0 || !cg->mem[0])
		return 0;
	snprintf(path, sizeof(path), "%s/%s", cg->mem,
		 cg->version == 2 ? "memory.events" : "memory.oom_control");
	/* a v1 slot's file is held open (cgroup_v1.c) */
	if (cg->version == 1 && cg->slot_fd >= 0
		    ? sbx_cg_slot_read(cg, SBX_CG_OOM, buf, sizeof(buf)) < 0
		    : sbx_cg_read_small(path, buf, sizeof(buf)) < 0)
		return 0;
	p = strstr(buf, "oom_kill ");
	return p && strtoull(p + 9, NULL, 10) > (cg->version == 1 ? cg->oom_base : 0);
}

void sbx_cgroup_release(struct sbx_cgroup *cg, int empty)
{
	if (cg->slot_fd < 0)
		sbx_cgroup_destroy(cg);
	else
		sbx_cg_slot_release(cg, empty);
}

void sbx_cgroup_destroy(struct sbx_cgroup *cg)
{
	if (cg->slot_fd >= 0) { /* a slot stays; only our lock goes */
		sbx_cg_slot_unlock(cg);
		return;
	}
	if (cg->v2fd >= 0) {
		close(cg->v2fd);
		cg->v2fd = -1;
	}
	if (cg->version == 2 && cg->mem[0])
		sbx_cg_write_file(cg->mem, "cgroup.kill", "1");
	if (cg->mem[0])
		sbx_cg_remove_dir(cg->mem);
	if (cg->pids[0])
		sbx_cg_remove_dir(cg->pids);
	cg->mem[0] = cg->pids[0] = '\0';
	/* Leftovers only come from SIGKILLed supervisors and are empty: one
	 * process in eight sweeps them, after its first run (off the run's
	 * own time; the listing costs about 0.15 ms). */
	if (cg->version && getpid() % 8 == 0 && !atomic_exchange(&swept, 1))
		sbx_cg_sweep_all();
	cg->version = 0;
}
