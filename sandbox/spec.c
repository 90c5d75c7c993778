/*
 * sandbox/spec.c: what the files of the sandbox module use to fill the spec
 * of a run (struct sbx_spec, internal.h) and what they ask of the kernel
 * first: the default limits of a run (sbx_spec_defaults), its binds (a host
 * file or folder, the system library folders, the three device nodes) and
 * the kernel's Landlock ABI and time namespaces, probed once per process
 * (the device nodes too: sbx_spec_bind_dev), and whether a spec's binds
 * and links are only the system ones (the skeleton a prepared mount tree
 * may hold: mnt_template.c).
 * It calls nothing else of the module but forksafe.c (its lock of the
 * device nodes): sandbox.c, build.c, pool.c and run.c
 * call it.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <linux/landlock.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

void sbx_spec_defaults(struct sbx_spec *s, const tg_sandbox_opts *o)
{
	s->timeout_ms = o->timeout_ms ? o->timeout_ms : 2000;
	s->memory_mb = o->memory_mb ? o->memory_mb : 64;
	s->output_kb = o->output_kb ? o->output_kb : 1024;
	s->tmp_mb = o->tmp_mb ? o->tmp_mb : 16;
	s->max_procs = o->max_procs ? o->max_procs : 1;
	s->max_files = o->max_files ? o->max_files : 32;
	s->cpu_percent = o->cpu_percent;
	s->cancel = o->cancel;
	s->cpu_s = o->cpu_s;
}

int sbx_spec_bind(struct sbx_spec *s, const char *src, const char *dst, unsigned flags)
{
	struct stat st;
	struct sbx_bind *b;

	if (lstat(src, &st) < 0)
		return tg_error_errno(TG_ERR_NOTFOUND, errno, "sandbox: %s", src);
	if (S_ISLNK(st.st_mode) && strchr(dst + 1, '/') == NULL && s->nlinks < SBX_MAX_LINKS) {
		/* a top-level system symlink (/lib -> usr/lib): same link inside */
		struct sbx_link *l = &s->links[s->nlinks];
		ssize_t k = readlink(src, l->target, sizeof(l->target) - 1);
		if (k <= 0 || strlen(dst + 1) >= sizeof(l->name))
			return tg_error_errno(TG_ERR_IO, errno, "sandbox: readlink %s", src);
		l->target[k] = '\0';
		snprintf(l->name, sizeof(l->name), "%s", dst + 1);
		s->nlinks++;
		return 0;
	}
	if (stat(src, &st) < 0)
		return tg_error_errno(TG_ERR_NOTFOUND, errno, "sandbox: %s", src);
	if (s->nbinds >= SBX_MAX_BINDS)
		return tg_error_set(TG_ERR_LIMIT, "sandbox: too many binds");
	if (strlen(src) >= sizeof(s->binds[0].src) || strlen(dst) >= sizeof(s->binds[0].dst) ||
	    dst[0] != '/' || strstr(dst, ".."))
		return tg_error_set(TG_ERR_INVALID, "sandbox: bad bind %s -> %s", src, dst);
	b = &s->binds[s->nbinds++];
	snprintf(b->src, sizeof(b->src), "%s", src);
	snprintf(b->dst, sizeof(b->dst), "%s", dst);
	b->flags = flags;
	b->is_dir = S_ISDIR(st.st_mode);
	return 0;
}

/* The system folders and device nodes every run may get, with their flags
 * (sbx_spec_bind_system, sbx_spec_bind_dev, sbx_spec_skeleton_ok). */
static const char *const sys_dirs[] = { "/usr", "/lib", "/lib64", "/bin" };
static const char *const sys_devs[] = { "/dev/null", "/dev/zero", "/dev/urandom" };

int sbx_spec_bind_system(struct sbx_spec *s)
{
	size_t i;
	int r;

	for (i = 0; i < TG_ARRAY_SIZE(sys_dirs); i++) {
		if (access(sys_dirs[i], F_OK) < 0)
			continue;
		r = sbx_spec_bind(s, sys_dirs[i], sys_dirs[i], SBX_BIND_EXEC);
		if (r < 0)
			return r;
	}
	return 0;
}

static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;
/* safe across fork() (forksafe.c), as the module's other locks */
__attribute__((constructor)) static void guard_dev_lock(void)
{
	sbx_fork_guard(&dev_lock, NULL);
}

/* The three device nodes are looked at (an lstat and a stat each) once
 * per process, the first time a run binds them, and copied into every
 * later spec: a per-run look found the same host nodes, and it checked
 * nothing the run does not check again itself: on the usual path the
 * child clones each bind source with open_tree() when it builds the root
 * (child.c), which fails the run if a node is gone by then, and a
 * prepared mount tree (mnt_template.c) bound them once per process
 * anyway. A failed look is not kept: the next run looks again. */
int sbx_spec_bind_dev(struct sbx_spec *s)
{
	static struct sbx_spec seen; /* only its binds: the nodes as looked at */
	static int looked;
	size_t i;
	int r = 0;

	pthread_mutex_lock(&dev_lock);
	if (!looked) {
		seen.nbinds = 0;
		for (i = 0; r == 0 && i < TG_ARRAY_SIZE(sys_devs); i++)
			r = sbx_spec_bind(&seen, sys_devs[i], sys_devs[i], SBX_BIND_DEV);
		looked = r == 0;
	}
	if (r == 0 && s->nbinds + seen.nbinds > SBX_MAX_BINDS)
		r = tg_error_set(TG_ERR_LIMIT, "sandbox: too many binds");
	if (r == 0) {
		memcpy(&s->binds[s->nbinds], seen.binds, seen.nbinds * sizeof(seen.binds[0]));
		s->nbinds += seen.nbinds;
	}
	pthread_mutex_unlock(&dev_lock);
	return r;
}

static int listed(const char *const *list, size_t n, const char *path)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(list[i], path) == 0)
			return 1;
	return 0;
}

int sbx_spec_skeleton_ok(const struct sbx_spec *s)
{
	size_t k;

	for (k = 0; k < s->nbinds; k++) {
		const struct sbx_bind *b = &s->binds[k];
		if (strcmp(b->src, b->dst) != 0)
			return 0;
		if (!(b->flags == SBX_BIND_EXEC && listed(sys_dirs, TG_ARRAY_SIZE(sys_dirs), b->dst)) &&
		    !(b->flags == SBX_BIND_DEV && listed(sys_devs, TG_ARRAY_SIZE(sys_devs), b->dst)))
			return 0;
	}
	for (k = 0; k < s->nlinks; k++) {
		const char *n = s->links[k].name;
		size_t i, hit = 0;
		for (i = 0; i < TG_ARRAY_SIZE(sys_dirs); i++)
			hit |= strcmp(sys_dirs[i] + 1, n) == 0;
		if (!hit)
			return 0;
	}
	return 1;
}

int sbx_landlock_abi(void)
{
	static atomic_int abi = -1;
	int v = atomic_load(&abi);

	if (v < 0) {
		long k = syscall(SYS_landlock_create_ruleset, NULL, 0,
				 LANDLOCK_CREATE_RULESET_VERSION);
		v = k > 0 ? (int)k : 0;
		atomic_store(&abi, v);
	}
	return v;
}

int sbx_timens_available(void)
{
	static atomic_int ok = -1;
	int v = atomic_load(&ok);

	if (v < 0) {
		struct utsname u;
		int major = 0, minor = 0;

		/* Before Linux 6.3 an exec does not enter the time namespace made
		 * for children, and the tool, left outside it, cannot create a
		 * thread (clone with CLONE_VM fails with EINVAL): no time
		 * namespace there (found by the Debian 6.1 kernel in tests/vm). */
		v = access("/proc/self/timens_offsets", F_OK) == 0 && uname(&u) == 0 &&
		    sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
		    (major > 6 || (major == 6 && minor >= 3));
		atomic_store(&ok, v);
	}
	return v;
}
