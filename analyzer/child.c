/*
 * analyzer/child.c: the parse child, the process libclang runs in, and how
 * it starts. A program that calls tg_analyze_main() first thing in main()
 * (toolgate does) starts each parse child as a fresh image of itself:
 * posix_spawn of /proc/self/exe with an empty environment, /dev/null on 0-2,
 * the answer pipe on 3 and the job on 4 (a memfd: the policy, capabilities
 * and limits as one JSON line, then the source and the overlay, raw). The
 * child then holds none of the caller's memory (a server's tokens, its
 * database pages) and none of its locks: a fork of a process with threads
 * copies locks held by the others (the allocator's, under ASan, which has no
 * fork handlers), and libclang's loading in that copy could wait forever.
 * A program that did not call it (a unit test linking the library) forks
 * instead, as before. Both paths run the same body, parse_body().
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define TG_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TG_UNDER_ASAN 1
#endif
#endif

#define CHILD_ARG "__toolgate-parse-child"
#define CHILD_SELF "/proc/self/exe"
#define JOB_FD 4
#define JOB_MAX ((size_t)64 * 1024 * 1024)
#define JOB_MAX_CAPS 64

static atomic_int spawn_self;   /* tg_analyze_main() ran: exec a fresh image */
static tg_analyze_confine_fn confine_hook; /* its confinement, set before any thread */
int tg_parse_spawns(void)
{
	return atomic_load(&spawn_self);
}

static void set_limit(int res, rlim_t v)
{
	struct rlimit rl = { v, v };
	(void)setrlimit(res, &rl);
}

#ifndef TG_UNDER_ASAN
/* The address space already mapped (libclang, the caller's heap): the
 * memory limit comes on top of it. */
static rlim_t mapped_bytes(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "re");
	if (!f)
		return 0;
	if (fscanf(f, "%lu", &pages) != 1)
		pages = 0;
	fclose(f);
	return (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE);
}
#endif

/* The overlay as a file clang can open: a memfd, else (a fork only: a
 * fresh image's filter would refuse the unlink) an unlinked-after-use
 * temporary file. */
static int overlay_file(char *path, size_t pathsz, const char *yaml, int *tmp)
{
	int fd = memfd_create("toolgate-vfs", 0);
	*tmp = 0;
	if (fd >= 0) {
		snprintf(path, pathsz, "/proc/self/fd/%d", fd);
		if (tg_fd_write_all(fd, yaml, strlen(yaml)) == 0 && access(path, R_OK) == 0)
			return fd;
		close(fd);
	}
	if (tg_parse_spawns())
		return -1;
	snprintf(path, pathsz, "/tmp/toolgate-vfs-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	*tmp = 1;
	if (tg_fd_write_all(fd, yaml, strlen(yaml)) < 0) {
		unlink(path);
		close(fd);
		return -1;
	}
	return fd;
}

/* The parse, in the child: descriptors 0-3 and the working folder are
 * set; the answer goes to 3. */
static _Noreturn void parse_body(const tg_parse_job *j)
{
	tg_flist l = { 0 };
	tg_clang_job job;
	char ovpath[64];
	char *ans = NULL;
	size_t anslen = 0;
	int tmp = 0;

	if (overlay_file(ovpath, sizeof(ovpath), j->yaml, &tmp) < 0)
		_exit(TG_PARSE_NO_OVERLAY);
	/* a fresh image loads libclang here (a fork has it from its parent),
	 * before the limits, which count only what the parse maps after */
	if (tg_parse_spawns() && tg_clang_load() < 0)
		_exit(TG_PARSE_NO_CLANG);
	set_limit(RLIMIT_CPU, (rlim_t)(j->timeout_ms / 1000u + 1u));
#ifndef TG_UNDER_ASAN
	set_limit(RLIMIT_AS, mapped_bytes() + (rlim_t)j->memory_mb * 1024u * 1024u);
#endif
	set_limit(RLIMIT_CORE, 0);
	if (!tmp)
		set_limit(RLIMIT_FSIZE, 0);
	/* the seccomp filter last: nothing after it opens for writing */
	if (confine_hook && confine_hook() < 0)
		_exit(TG_PARSE_NO_CONFINE);
	job = j->clang;
	job.overlay_path = ovpath;
	tg_clang_check(&l, &job);
	if (tmp)
		unlink(ovpath);
	if (tg_flist_serialize(&ans, &anslen, &l) < 0 || tg_fd_write_all(3, ans, anslen) < 0)
		_exit(123);
	_exit(0);
}

/* ---- the fork path ------------------------------------------------------ */

static pid_t parse_fork(int wfd, const tg_parse_job *j)
{
	pid_t pid;
	int devnull;

	fflush(NULL);
	pid = fork();
	if (pid != 0)
		return pid;
	/* descriptors: 0-2 on /dev/null, the answer pipe on 3, nothing else */
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
	}
	if (wfd != 3 && dup2(wfd, 3) < 0)
		_exit(120);
	if (close_range(4, ~0u, 0) < 0)
		for (int fd = 4; fd < 1024; fd++)
			close(fd);
	clearenv(); /* CPATH, C_INCLUDE_PATH, COMPILER_PATH, LIBCLANG_* ... */
	if (chdir("/") < 0)
		_exit(121);
	parse_body(j);
}

/* ---- the spawn path: the job over descriptor 4 -------------------------- */

static int job_write(int fd, const tg_parse_job *j)
{
	_cleanup_json_ json_t *o = NULL, *pol = NULL;
	_cleanup_free_ char *line = NULL;
	size_t ylen = strlen(j->yaml);
	int r = tg_policy_to_json(&pol, j->clang.policy);

	if (r < 0)
		return r;
	o = json_pack("{s:i,s:O,s:o,s:I,s:I,s:I,s:I}", "v", 1, "policy", pol, "capabilities",
		      tg_strv_json((char *const *)j->clang.capabilities, j->clang.ncapabilities), "timeout_ms",
		      (json_int_t)j->timeout_ms, "memory_mb", (json_int_t)j->memory_mb, "source",
		      (json_int_t)j->clang.len, "overlay", (json_int_t)ylen);
	if (!o || !(line = tg_json_dump(o)))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (tg_fd_write_all(fd, line, strlen(line)) < 0 || tg_fd_write_all(fd, "\n", 1) < 0 ||
	    tg_fd_write_all(fd, j->clang.source, j->clang.len) < 0 || tg_fd_write_all(fd, j->yaml, ylen) < 0)
		return tg_error_errno(TG_ERR_IO, errno, "analysis: write the parse job");
	return 0;
}

/* A descriptor holding the job, at 10 or above (so moving it to 4 and the
 * answer to 3 cannot overwrite one with the other). */
static int job_fd(const tg_parse_job *j)
{
	int fd = memfd_create("toolgate-parse-job", MFD_CLOEXEC), hi;

	if (fd < 0)
		fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return tg_error_errno(TG_ERR_UNAVAILABLE, errno, "analysis: a file for the parse job");
	hi = fcntl(fd, F_DUPFD_CLOEXEC, 10);
	close(fd);
	if (hi < 0)
		return tg_error_errno(TG_ERR_UNAVAILABLE, errno, "analysis: a file for the parse job");
	if (job_write(hi, j) < 0) {
		close(hi);
		return -1;
	}
	return hi;
}

static int spawn_setup(posix_spawn_file_actions_t *fa, posix_spawnattr_t *at, int wfd, int jfd)
{
	sigset_t none, all;

	sigemptyset(&none);
	sigfillset(&all);
	sigdelset(&all, SIGKILL);
	sigdelset(&all, SIGSTOP);
	if (posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDWR, 0) ||
	    posix_spawn_file_actions_adddup2(fa, 0, 1) || posix_spawn_file_actions_adddup2(fa, 0, 2) ||
	    posix_spawn_file_actions_adddup2(fa, wfd, 3) ||
	    posix_spawn_file_actions_adddup2(fa, jfd, JOB_FD) ||
	    posix_spawn_file_actions_addclosefrom_np(fa, JOB_FD + 1) ||
	    posix_spawn_file_actions_addchdir_np(fa, "/") ||
	    posix_spawnattr_setsigmask(at, &none) || posix_spawnattr_setsigdefault(at, &all) ||
	    posix_spawnattr_setflags(at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
		return -1;
	return 0;
}

static pid_t parse_spawn(int wfd, const tg_parse_job *j)
{
	char *const argv[] = { "toolgate", CHILD_ARG, NULL };
	char *const envp[] = { NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int jfd, whi, e = 0;
	pid_t pid = -1;

	jfd = job_fd(j);
	if (jfd < 0)
		return -1;
	whi = fcntl(wfd, F_DUPFD_CLOEXEC, 10);
	if (whi < 0) {
		close(jfd);
		return tg_error_errno(TG_ERR_UNAVAILABLE, errno, "analysis: the answer pipe");
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	if (spawn_setup(&fa, &at, whi, jfd) < 0)
		e = ENOMEM;
	else
		e = posix_spawn(&pid, CHILD_SELF, &fa, &at, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(whi);
	close(jfd);
	if (e != 0)
		return tg_error_errno(TG_ERR_UNAVAILABLE, e, "analysis: start the parse child (%s)",
				      CHILD_SELF);
	return pid;
}

pid_t tg_parse_start(int wfd, const tg_parse_job *j)
{
	pid_t pid;

	if (tg_parse_spawns())
		return parse_spawn(wfd, j);
	pid = parse_fork(wfd, j);
	if (pid < 0)
		return tg_error_errno(TG_ERR_UNAVAILABLE, errno, "fork");
	return pid;
}

/* ---- the fresh image's side --------------------------------------------- */

static int job_strv(const char ***out, size_t *n, const json_t *arr)
{
	size_t i, k = json_array_size(arr);
	const char **v;

	if (!json_is_array(arr) || k > JOB_MAX_CAPS || !(v = calloc(k + 1, sizeof(*v))))
		return -1;
	for (i = 0; i < k; i++)
		if (!(v[i] = json_string_value(json_array_get(arr, i)))) {
			free(v);
			return -1;
		}
	*out = v;
	*n = k;
	return 0;
}

/* Read and check the job on descriptor 4; it stays valid while root lives. */
static int job_read(tg_parse_job *j, json_t **root, char **buf)
{
	tg_json_limits lim = { 1024 * 1024, 16 };
	int64_t v = 0, t = 0, m = 0, slen = -1, ylen = -1;
	json_t *pol = NULL, *caps = NULL;
	_cleanup_free_ char *pjson = NULL;
	size_t len = 0;
	char *nl;

	if (lseek(JOB_FD, 0, SEEK_SET) != 0 || tg_fd_read_all(buf, &len, JOB_FD, JOB_MAX) < 0)
		return -1;
	close(JOB_FD);
	nl = memchr(*buf, '\n', len);
	if (!nl || tg_json_parse(root, *buf, (size_t)(nl - *buf), &lim) < 0 ||
	    tg_json_get_int(&v, *root, "v", 1) < 0 || v != 1 ||
	    tg_json_get_int(&t, *root, "timeout_ms", 1) < 0 ||
	    tg_json_get_int(&m, *root, "memory_mb", 1) < 0 ||
	    tg_json_get_int(&slen, *root, "source", 1) < 0 ||
	    tg_json_get_int(&ylen, *root, "overlay", 1) < 0 ||
	    tg_json_get_object(&pol, *root, "policy", 1) < 0 ||
	    tg_json_get_array(&caps, *root, "capabilities", 1) < 0)
		return -1;
	if (t <= 0 || t > UINT32_MAX || m <= 0 || m > UINT32_MAX || slen < 0 || ylen < 0 ||
	    (uint64_t)slen > len || (uint64_t)ylen > len ||
	    (size_t)slen + (size_t)ylen != len - (size_t)(nl + 1 - *buf))
		return -1;
	if (!(pjson = tg_json_dump(pol)) ||
	    tg_policy_from_json((tg_policy **)&j->clang.policy, pjson, strlen(pjson)) < 0)
		return -1;
	if (job_strv((const char ***)&j->clang.capabilities, &j->clang.ncapabilities, caps) < 0)
		return -1;
	j->timeout_ms = (uint32_t)t;
	j->memory_mb = (uint32_t)m;
	j->clang.source = nl + 1;
	j->clang.len = (size_t)slen;
	/* the overlay ends the job: a text the body reads to its NUL */
	j->yaml = nl + 1 + slen;
	return memchr(j->yaml, '\0', (size_t)ylen) ? -1 : 0;
}

void tg_analyze_main(int argc, char **argv, tg_analyze_confine_fn confine)
{
	tg_parse_job j = { 0 };
	json_t *root = NULL;
	char *buf = NULL;

	confine_hook = confine;
	atomic_store(&spawn_self, 1);
	if (argc != 2 || strcmp(argv[1], CHILD_ARG) != 0)
		return;
	if (fcntl(3, F_GETFD) < 0 || fcntl(JOB_FD, F_GETFD) < 0) {
		fprintf(stderr, "toolgate: %s: the analyzer's parse child, started by toolgate "
				"itself with its job on descriptor 4\n", CHILD_ARG);
		_exit(2); /* toolgate's exit code for bad input */
	}
	if (job_read(&j, &root, &buf) < 0)
		_exit(TG_PARSE_BAD_JOB);
	parse_body(&j);
}
