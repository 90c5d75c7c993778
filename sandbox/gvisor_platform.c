/*
 * sandbox/gvisor_platform.c: which runsc platform the gVisor backend uses
 * (docs/SANDBOX.md, "gVisor backend", "Platform"). KVM when /dev/kvm opens
 * and `runsc --platform=kvm do /bin/true` ends well within SBX_KVM_PROBE_MS
 * (nested KVM may hang: the probe is killed then), else ptrace. The answer
 * is probed once per boot and kept in a cache file (/run/toolgate/gvisor-
 * platform, or TG_GVISOR_PLATFORM_CACHE), trusted only when it is a regular
 * file of our uid that no one else can write and names the same runsc
 * (inode, size, mtime); within a process it is decided once (a mutex). The
 * operator may force one (TG_GVISOR_PLATFORM=kvm|ptrace). sbx_runsc_true
 * runs `runsc do /bin/true` bounded in time, for the probe and for doctor
 * (tg_sandbox_gvisor_available); tg_sandbox_runsc finds runsc. gvisor.c
 * calls it for each run's platform.
 */
#include "sandbox/gvisor.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SBX_KVM_PROBE_MS 5000
#define SBX_PLATFORM_CACHE "/run/toolgate/gvisor-platform"

static pthread_mutex_t plat_lock = PTHREAD_MUTEX_INITIALIZER;
static char plat_name[8];      /* "" until decided in this process */
static char plat_why[200];

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	(void)remove(p); /* best effort */
	return 0;
}

int sbx_runsc_true(const char *runsc, const char *platform, uint64_t limit_ms, uint64_t *ms)
{
	char dir[SBX_GVISOR_DIR], root[SBX_GVISOR_DIR + 16], plat[32];
	const char *envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	const char *base = getenv("TMPDIR");
	uint64_t t0;
	int r = 0, st = 0, k = 0;
	pid_t pid;

	*ms = 0;
	snprintf(dir, sizeof(dir), "%s/tg-gvisor-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(dir))
		return tg_error_errno(TG_ERR_IO, errno, "gvisor: private folder");
	snprintf(root, sizeof(root), "%s/state", dir);
	snprintf(plat, sizeof(plat), "--platform=%s", platform);
	t0 = tg_now_ms();
	pid = fork();
	if (pid == 0) {
		const char *argv[] = { runsc, "--root", root, "--network=none", plat,
				       "--ignore-cgroups", "do", "/bin/true", NULL };
		int nul = open("/dev/null", O_RDWR);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setsid();
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(nul, 2);
		syscall(SYS_close_range, 3, ~0u, 0);
		execve(runsc, (char *const *)argv, (char *const *)envp);
		_exit(127);
	}
	if (pid < 0)
		r = tg_error_errno(TG_ERR_IO, errno, "gvisor: fork");
	while (pid > 0 && (k = waitpid(pid, &st, WNOHANG)) == 0 && tg_now_ms() - t0 < limit_ms)
		usleep(5000);
	*ms = tg_now_ms() - t0;
	if (pid > 0 && k == 0) {
		kill(-pid, SIGKILL); /* its session: runsc and what it started */
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		r = tg_error_set(TG_ERR_UNAVAILABLE,
				 "gvisor: runsc --platform=%s do /bin/true did not end in %llu ms "
				 "(killed)", platform, (unsigned long long)limit_ms);
	} else if (pid > 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
		r = tg_error_set(TG_ERR_UNAVAILABLE,
				 "gvisor: runsc --platform=%s do /bin/true failed (status %#x)",
				 platform, st);
	}
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return r;
}

int tg_sandbox_runsc(char *path, size_t n)
{
	const char *env = getenv("TG_RUNSC"), *p = getenv("PATH");
	char dir[512];

	if (env && *env) {
		snprintf(path, n, "%s", env);
		return access(path, X_OK) == 0 ? 0 : tg_error_errno(TG_ERR_UNAVAILABLE, errno,
								     "gvisor: TG_RUNSC=%s", env);
	}
	if (!p || !*p)
		p = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	while (*p) {
		size_t k = strcspn(p, ":");
		snprintf(dir, sizeof(dir), "%.*s", (int)k, p);
		snprintf(path, n, "%s/runsc", dir[0] ? dir : ".");
		if (dir[0] == '/' && access(path, X_OK) == 0)
			return 0;
		p += k + (p[k] == ':');
	}
	path[0] = '\0';
	return tg_error_set(TG_ERR_UNAVAILABLE, "gvisor: runsc is not installed (Debian package "
			    "runsc; or set TG_RUNSC to its path)");
}

static const char *cache_path(void)
{
	const char *p = getenv("TG_GVISOR_PLATFORM_CACHE");
	return p && *p ? p : SBX_PLATFORM_CACHE;
}

/* The key a cached answer holds: this runsc file. */
static int runsc_key(char *key, size_t n, const char *runsc)
{
	struct stat st;

	if (stat(runsc, &st) < 0)
		return -1;
	snprintf(key, n, "%llu %lld %lld", (unsigned long long)st.st_ino, (long long)st.st_size,
		 (long long)st.st_mtime);
	return 0;
}

/* The cached platform for key, or 0 when there is none to trust. */
static int cache_read(char name[8], const char *key)
{
	char buf[160], want[128];
	struct stat st;
	ssize_t k;
	int fd = open(cache_path(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || (k = read(fd, buf, sizeof(buf) - 1)) <= 0) {
		close(fd);
		return 0;
	}
	close(fd);
	buf[k] = '\0';
	snprintf(want, sizeof(want), " %s\n", key);
	if (strncmp(buf, "kvm ", 4) == 0 && strcmp(buf + 3, want) == 0)
		snprintf(name, 8, "kvm");
	else if (strncmp(buf, "ptrace ", 7) == 0 && strcmp(buf + 6, want) == 0)
		snprintf(name, 8, "ptrace");
	else
		return 0;
	return 1;
}

/* Best effort: a cache that cannot be written only costs the next process
 * a probe. */
static void cache_write(const char *name, const char *key)
{
	char tmp[600], line[128];
	const char *path = cache_path();
	int fd, len;

	if (!getenv("TG_GVISOR_PLATFORM_CACHE"))
		(void)mkdir("/run/toolgate", 0755);
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	len = snprintf(line, sizeof(line), "%s %s\n", name, key);
	if (write(fd, line, (size_t)len) != len || close(fd) < 0 || rename(tmp, path) < 0)
		(void)unlink(tmp);
}

/* Decide: forced, no usable /dev/kvm, cached, or probed. */
static int decide(char name[8], char *why, size_t n)
{
	const char *env = getenv("TG_GVISOR_PLATFORM");
	char runsc[512], key[100];
	uint64_t ms = 0;
	int fd, r;

	if (env && *env) {
		if (strcmp(env, "kvm") != 0 && strcmp(env, "ptrace") != 0)
			return tg_error_set(TG_ERR_INVALID,
					    "gvisor: TG_GVISOR_PLATFORM=%.32s: must be kvm or ptrace",
					    env);
		snprintf(name, 8, "%s", env);
		snprintf(why, n, "set by TG_GVISOR_PLATFORM");
		return 0;
	}
	snprintf(name, 8, "ptrace");
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, n, "no KVM: /dev/kvm: %s", strerror(errno));
		return 0;
	}
	close(fd);
	if ((r = tg_sandbox_runsc(runsc, sizeof(runsc))) < 0)
		return r;
	if (runsc_key(key, sizeof(key), runsc) == 0 && cache_read(name, key)) {
		snprintf(why, n, "cached in %s", cache_path());
		return 0;
	}
	if (sbx_runsc_true(runsc, "kvm", SBX_KVM_PROBE_MS, &ms) == 0) {
		snprintf(name, 8, "kvm");
		snprintf(why, n, "probed: kvm ran /bin/true in %llu ms", (unsigned long long)ms);
	} else {
		snprintf(why, n, "probed: %.180s", tg_error_last()->message);
		tg_error_clear();
	}
	cache_write(name, key);
	return 0;
}

int tg_sandbox_gvisor_platform(char *name, size_t n, char *why, size_t wn)
{
	int r = 0;

	pthread_mutex_lock(&plat_lock);
	if (!plat_name[0])
		r = decide(plat_name, plat_why, sizeof(plat_why));
	if (r == 0) {
		snprintf(name, n, "%s", plat_name);
		if (why)
			snprintf(why, wn, "%s", plat_why);
	} else {
		plat_name[0] = '\0';
	}
	pthread_mutex_unlock(&plat_lock);
	return r;
}

int tg_sandbox_gvisor_available(uint64_t *ms, char *platform, size_t n)
{
	char runsc[512];
	int r;

	*ms = 0;
	if (n)
		platform[0] = '\0';
	if ((r = tg_sandbox_runsc(runsc, sizeof(runsc))) < 0)
		return r;
	if (geteuid() != 0)
		return tg_error_set(TG_ERR_UNAVAILABLE, "gvisor: runs need root (rootless runsc is not built)");
	if ((r = tg_sandbox_gvisor_platform(platform, n, NULL, 0)) < 0)
		return r;
	return sbx_runsc_true(runsc, platform, 20000, ms);
}
