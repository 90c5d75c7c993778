/*
 * sandbox/build.c: tg_sandbox_build(): the compiler runs in the sandbox
 * too, under the build profile (the clang driver, its in-process cc1 and ld
 * allowed, with a pids limit). Its root holds read-only binds of /usr,
 * /lib, /lib64 and /bin (no /etc, /home, /proc or project tree), the SDK
 * include folder at /sdk, and the source and the overlay written into its
 * /tmp. The compiler is the clang 14 driver of the same release as the
 * analyzer's libclang (checked once per process with --version), reading
 * the source with the analyzer's own arguments inside the analyzer's own
 * virtual sysroot (common/cfront.c): the same dialect, defines, headers and
 * file name, so the program that was vetted is the program that is built.
 * Step one compiles tool.c to tool.o (-c), step two links tool as a static
 * PIE with full RELRO (plain -static if that fails); each output is opened
 * through a descriptor of the sandbox's /tmp (no symlinks, regular files
 * only, size-capped) and never read into our memory (issue 15: a 60 MB
 * static array once held 180 MB of a server): tool.o reaches the link
 * step as a read-only mapping only the link's child touches, and both
 * files are copied into out_dir with sendfile(2), atomically. The
 * diagnostics go back to the submitter: without carets, in a sysroot that
 * holds nothing but public headers and the tool's own source.
 * tg_sandbox_build_inputs() fingerprints everything besides the source that
 * decides the bytes of a build (compiler, its arguments and overlay, link
 * flags, environment, toolchain files, SDK headers) from the same arrays and
 * functions the build uses, for the build cache's key.
 */
#include "sandbox/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>

#define BUILD_SOURCE_MAX (1u << 20)
#define BUILD_OUTPUT_MAX (64u << 20)
#define BUILD_LOG_MAX (64u << 10)

/* LLVM_DISABLE_SYMBOLIZATION: a compiler stopped by a limit (SIGXFSZ at
 * max_output_bytes) prints its stack without running llvm-symbolizer,
 * which took about 0.4 s of every such refusal. */
static const char *const build_env[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", "TMPDIR=/tmp",
					  "LLVM_DISABLE_SYMBOLIZATION=1", NULL };

/* The two link commands after the driver's name; the compile step's
 * arguments are common/cfront.c's (tg_sandbox_build_inputs fingerprints
 * these very arrays and that function: change them and the cache key
 * changes with them). Full RELRO either way. */
static const char *const link_pie_flags[] = { "-static-pie", "-Wl,-z,relro,-z,now",
					      "-Wl,-z,noexecstack", "-Wl,--fatal-warnings",
					      "/tmp/tool.o", "-lm", "-o", "/tmp/tool", NULL };
static const char *const link_static_flags[] = { "-static", "-Wl,-z,relro,-z,now",
						 "-Wl,-z,noexecstack", "-Wl,--fatal-warnings",
						 "/tmp/tool.o", "-lm", "-o", "/tmp/tool", NULL };

/* argv = { cc, flags..., NULL } into dst (16 slots). */
static void link_argv(const char **dst, const char *cc, const char *const *flags)
{
	size_t i;

	dst[0] = cc;
	for (i = 0; flags[i] && i < 14; i++)
		dst[i + 1] = flags[i];
	dst[i + 1] = NULL;
}

void tg_build_result_free(tg_build_result *r)
{
	if (!r)
		return;
	free(r->object_path);
	free(r->binary_path);
	free(r->log);
	tg_run_result_free(r->run);
	free(r);
}

/* A build output: a regular file (not a link, not a FIFO) of the sandbox's
 * /tmp, open (the tmpfs lives while it is) and mapped read-only, but not
 * read: the mapping is touched only by the link step's child. */
struct output {
	int fd;
	void *map;
	size_t len;
};

static void output_free(struct output *o)
{
	if (o->map)
		munmap(o->map, o->len);
	if (o->fd >= 0)
		close(o->fd);
	o->map = NULL;
	o->fd = -1;
	o->len = 0;
}

static int fetch(struct output *o, int dirfd, const char *name)
{
	struct stat st;

	o->fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (o->fd < 0)
		return tg_error_errno(TG_ERR_NOTFOUND, errno, "build: %s was not produced", name);
	if (fstat(o->fd, &st) < 0 || !S_ISREG(st.st_mode))
		return tg_error_set(TG_ERR_INVALID, "build: %s is not a regular file", name);
	if (st.st_size > BUILD_OUTPUT_MAX)
		return tg_error_set(TG_ERR_LIMIT, "build: %s is larger than %u bytes", name,
				    BUILD_OUTPUT_MAX);
	o->len = (size_t)st.st_size;
	if (o->len) {
		o->map = mmap(NULL, o->len, PROT_READ, MAP_PRIVATE, o->fd, 0);
		if (o->map == MAP_FAILED) {
			o->map = NULL;
			return tg_error_errno(TG_ERR_IO, errno, "build: map %s", name);
		}
	}
	return 0;
}

/* Copy an output into path atomically (temporary name, fsync, rename),
 * kernel to kernel. */
static int write_output(const char *path, const struct output *o, int mode)
{
	_cleanup_free_ char *tmp = NULL;
	off_t off = 0;
	int fd, r = 0;

	if (asprintf(&tmp, "%s.tmp.%ld", path, (long)getpid()) < 0) {
		tmp = NULL;
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return tg_error_errno(TG_ERR_IO, errno, "%s", tmp);
	while ((size_t)off < o->len) {
		ssize_t n = sendfile(fd, o->fd, &off, o->len - (size_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = tg_error_errno(TG_ERR_IO, n < 0 ? errno : EIO, "write %s", path);
			break;
		}
	}
	if (r == 0 && fsync(fd) < 0)
		r = tg_error_errno(TG_ERR_IO, errno, "fsync %s", path);
	if (close(fd) < 0 && r == 0)
		r = tg_error_errno(TG_ERR_IO, errno, "close %s", path);
	if (r == 0 && rename(tmp, path) < 0)
		r = tg_error_errno(TG_ERR_IO, errno, "rename to %s", path);
	if (r < 0)
		unlink(tmp);
	return r;
}

/* Append what fits under the log's cap (the cap keeps the head). */
static void log_put(tg_buf *log, const char *s, size_t n)
{
	size_t room = log->max > log->len ? log->max - log->len : 0;
	tg_buf_append(log, s, n < room ? n : room);
}

static void log_append(tg_buf *log, const tg_run_result *r, const char *step)
{
	log_put(log, r->err, r->err_len);
	log_put(log, r->out, r->out_len);
	if (r->reason != TG_REASON_EXITED)
		tg_buf_printf(log, "toolgate: build: %s: compiler %s%s%s\n", step,
			      tg_reason_name(r->reason), r->syscall[0] ? " " : "", r->syscall);
}

struct step {
	const tg_build_opts *o;
	const char *compiler;
	tg_buf *log;
	int cut; /* a step was stopped at max_output_bytes */
};

/* The step wrote past RLIMIT_FSIZE: the driver died of SIGXFSZ (the
 * compiler runs in-process and re-raises it), or it reports its linker
 * killed by it (strsignal's text). */
static int stopped_at_fsize(const tg_run_result *r)
{
	if (r->reason == TG_REASON_FILE_SIZE)
		return 1;
	return r->reason == TG_REASON_EXITED && r->exit_code != 0 && r->err &&
	       memmem(r->err, r->err_len, "File size limit exceeded", 24) != NULL;
}

static int s_cut_check(struct step *st, const tg_run_result *r)
{
	if (!st->o->max_output_bytes || !stopped_at_fsize(r))
		return 0;
	st->cut = 1;
	return 1;
}

/* One sandboxed compiler run; *data gets output `want` when it succeeded. */
static int run_step(tg_run_result **res, struct output *data, struct step *st,
		    const char *const *argv, const struct sbx_file *input, size_t ninput,
		    const char *want, const char *what)
{
	struct sbx_spec *s = calloc(1, sizeof(*s));
	tg_sandbox_opts d;
	int r, tmpfd = -1;

	*res = NULL;
	data->fd = -1;
	data->map = NULL;
	data->len = 0;
	if (!s)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	memset(&d, 0, sizeof(d));
	d.timeout_ms = st->o->timeout_ms ? st->o->timeout_ms : 30000;
	d.memory_mb = st->o->memory_mb ? st->o->memory_mb : 512;
	d.output_kb = BUILD_LOG_MAX / 1024;
	d.tmp_mb = 128;
	/* RLIMIT_NPROC counts every process of the sandbox uid on the host
	 * (other sandboxes too); the build's cgroup caps its own pids */
	d.max_procs = 64;
	d.max_files = 128;
	d.cpu_percent = st->o->cpu_percent;
	d.cancel = st->o->cancel;
	sbx_spec_defaults(s, &d);
	if (st->o->max_output_bytes && st->o->max_output_bytes < ((uint64_t)d.tmp_mb << 20))
		s->fsize_bytes = st->o->max_output_bytes;
	s->profile = SBX_PROFILE_BUILD;
	s->exec_path = st->compiler;
	s->argv = argv;
	s->envp = build_env;
	for (size_t i = 0; i < ninput && i < SBX_MAX_FILES; i++)
		s->files[s->nfiles++] = input[i];
	s->want_tmpfd = 1;
	r = sbx_spec_bind_system(s);
	if (r == 0)
		r = sbx_spec_bind(s, "/dev/null", "/dev/null", SBX_BIND_DEV);
	if (r == 0 && st->o->sdk_include_dir)
		r = sbx_spec_bind(s, st->o->sdk_include_dir, "/sdk", 0);
	if (r == 0)
		r = sbx_execute(res, s, &tmpfd);
	free(s);
	if (r < 0)
		return r;
	if (!want) { /* the version probe: its output is the caller's */
		if (tmpfd >= 0)
			close(tmpfd);
		return 0;
	}
	log_append(st->log, *res, what);
	if (s_cut_check(st, *res))
		tg_buf_printf(st->log, "toolgate: build: %s: output past %llu bytes (max_output_bytes)\n",
			      what, (unsigned long long)st->o->max_output_bytes);
	if ((*res)->reason == TG_REASON_EXITED && (*res)->exit_code == 0 && tmpfd >= 0) {
		r = fetch(data, tmpfd, want);
		if (r < 0) {
			tg_buf_printf(st->log, "toolgate: build: %s\n", tg_error_last()->message);
			output_free(data);
		}
		r = 0;
	}
	if (tmpfd >= 0)
		close(tmpfd);
	return r;
}

static pthread_mutex_t version_lock = PTHREAD_MUTEX_INITIALIZER;
static int version_ok;
static int test_no_static_pie; /* tests: take the -static fallback */
static const char *test_compiler; /* tests: another driver (version refusal) */
static char inputs_hash[65];    /* tg_sandbox_build_inputs' memo */

void sbx_build_test_no_static_pie(int on)
{
	test_no_static_pie = on;
	inputs_hash[0] = '\0';
}

void sbx_build_test_compiler(const char *path)
{
	pthread_mutex_lock(&version_lock);
	test_compiler = path;
	version_ok = 0;
	inputs_hash[0] = '\0';
	pthread_mutex_unlock(&version_lock);
}

/* The driver in the sandbox must be the release the analyzer parses with:
 * asked once per process (a later upgrade of the package while a server
 * runs is caught by the analyzer's own check of its libclang). */

static int check_version(struct step *st)
{
	const char *argv[] = { st->compiler, "--version", NULL };
	tg_run_result *run = NULL;
	struct output none = { -1, NULL, 0 };
	int r = 0;

	pthread_mutex_lock(&version_lock);
	if (version_ok)
		goto out;
	if (access(st->compiler, X_OK) < 0) {
		r = tg_error_set(TG_ERR_UNAVAILABLE,
				 "build: the compiler %s is missing: install clang-%s, the release "
				 "the analyzer reads with", st->compiler, tg_cfront_clang_version());
		goto out;
	}
	r = run_step(&run, &none, st, argv, NULL, 0, NULL, "version");
	if (r < 0)
		goto out;
	if (run->reason != TG_REASON_EXITED || run->exit_code != 0 || !run->out ||
	    !tg_cfront_version_matches(run->out)) {
		char shown[80];
		const char *nl = run->out ? strchr(run->out, '\n') : NULL;
		tg_str_printable(shown, sizeof(shown), run->out ? run->out : "",
				 nl ? (size_t)(nl - run->out) : run->out_len);
		r = tg_error_set(TG_ERR_UNAVAILABLE,
				 "build: %s is \"%s\", not clang %s, the release the analyzer "
				 "reads with: refusing to build what was not analysed", st->compiler,
				 shown, tg_cfront_clang_version());
		goto out;
	}
	version_ok = 1;
out:
	pthread_mutex_unlock(&version_lock);
	tg_run_result_free(run);
	return r;
}

int tg_sandbox_build(tg_build_result **out, const tg_build_opts *o)
{
	const char *argv[80], *link[16];
	tg_buf log = TG_BUF_INIT(BUILD_LOG_MAX);
	tg_build_result *res = NULL;
	tg_run_result *run = NULL;
	struct output obj = { -1, NULL, 0 }, bin = { -1, NULL, 0 };
	char *overlay = NULL;
	size_t n;
	struct step st;
	struct sbx_file in[2];
	struct stat sb;
	int r;

	if (!out || !o || !o->source || !o->out_dir)
		return tg_error_set(TG_ERR_INVALID, "build: missing source or out_dir");
	*out = NULL;
	if (o->source_len > BUILD_SOURCE_MAX)
		return tg_error_set(TG_ERR_LIMIT, "build: source larger than %u bytes", BUILD_SOURCE_MAX);
	if (stat(o->out_dir, &sb) < 0 || !S_ISDIR(sb.st_mode))
		return tg_error_set(TG_ERR_NOTFOUND, "build: out_dir %s is not a folder", o->out_dir);
	if (o->sdk_include_dir && (stat(o->sdk_include_dir, &sb) < 0 || !S_ISDIR(sb.st_mode)))
		return tg_error_set(TG_ERR_NOTFOUND, "build: SDK include dir %s is not a folder",
				    o->sdk_include_dir);
	st.o = o;
	st.log = &log;
	st.cut = 0;
	st.compiler = test_compiler ? test_compiler : tg_cfront_clang_path();
	r = check_version(&st);
	if (r < 0)
		return r;
	/* the overlay names the SDK where the sandbox binds it (/sdk; when
	 * there is none, /sdk is an empty name and toolgate/tool.h is not found) */
	r = tg_cfront_overlay(&overlay, "/sdk", 1);
	if (r < 0)
		return r;
	res = calloc(1, sizeof(*res));
	if (!res) {
		free(overlay);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}

	/* 1: tool.c -> tool.o, read exactly as the analyzer read it */
	argv[0] = st.compiler;
	n = 1 + tg_cfront_args(argv + 1, TG_ARRAY_SIZE(argv) - 6, "/tmp/cfront.yaml");
	argv[n++] = "-c";
	argv[n++] = TG_CFRONT_MAIN;
	argv[n++] = "-o";
	argv[n++] = "/tmp/tool.o";
	argv[n] = NULL;
	in[0].name = TG_CFRONT_NAME;
	in[0].data = o->source;
	in[0].len = o->source_len;
	in[1].name = "cfront.yaml";
	in[1].data = overlay;
	in[1].len = strlen(overlay);
	r = run_step(&run, &obj, &st, argv, in, 2, "tool.o", "compile");
	if (r < 0)
		goto out;

	/* 2: tool.o -> tool, static PIE, else static; full RELRO either way */
	if (obj.fd >= 0) {
		in[0].name = "tool.o";
		in[0].data = obj.map;
		in[0].len = obj.len;
		tg_run_result_free(run);
		run = NULL;
		r = test_no_static_pie ? 0
				       : (link_argv(link, st.compiler, link_pie_flags),
					  run_step(&run, &bin, &st, link, in, 1, "tool",
						   "link (static-pie)"));
		if (r == 0 && bin.fd < 0 && !st.cut) {
			tg_buf_puts(&log, test_no_static_pie
						  ? "toolgate: build: static-pie off (test), linking with -static\n"
						  : "toolgate: build: static-pie failed, linking with -static\n");
			tg_run_result_free(run);
			run = NULL;
			link_argv(link, st.compiler, link_static_flags);
			r = run_step(&run, &bin, &st, link, in, 1, "tool", "link (static)");
		}
		if (r < 0)
			goto out;
	}
	res->object_path = tg_path_join(o->out_dir, "tool.o");
	res->binary_path = tg_path_join(o->out_dir, "tool");
	if (!res->object_path || !res->binary_path) {
		r = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (obj.fd >= 0 && bin.fd >= 0) {
		r = write_output(res->object_path, &obj, 0644);
		if (r == 0)
			r = write_output(res->binary_path, &bin, 0755);
		if (r < 0)
			goto out;
		res->ok = 1;
	}
	res->log = tg_buf_detach(&log, NULL);
	if (!res->log) {
		r = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto out;
	}
	res->run = run;
	res->output_limit = st.cut;
	run = NULL;
	*out = res;
	res = NULL;
out:
	free(overlay);
	output_free(&obj);
	output_free(&bin);
	tg_run_result_free(run);
	tg_build_result_free(res);
	tg_buf_free(&log);
	return r;
}

/* ---- the build's inputs, for the cache key ------------------------------ */

static void put_str(tg_sha256 *h, const char *tag, const char *s)
{
	tg_sha256_update(h, tag, strlen(tag));
	tg_sha256_update(h, "=", 1);
	tg_sha256_update(h, s, strlen(s) + 1); /* the NUL separates */
}

static void put_argv(tg_sha256 *h, const char *tag, const char *const *v)
{
	size_t i;

	for (i = 0; v[i]; i++)
		put_str(h, tag, v[i]);
	put_str(h, tag, "(end)");
}

/* A toolchain file's identity: resolved path, device, inode, size, and
 * modification and change times to the nanosecond (a package upgrade
 * replaces the file, any write moves ctime). Cheaper than hashing tens of
 * megabytes of compiler on every call; the cached binary's own hash (kept by
 * the registry) is what makes the cache safe, this only makes it current. */
static void put_file_identity(tg_sha256 *h, const char *path)
{
	char line[256];
	struct stat st;

	/* stat follows the links: device and inode name the file itself (a
	 * realpath would cost a readlink per path component, on every call) */
	put_str(h, "path", path);
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(line, sizeof(line), "missing");
	} else {
		snprintf(line, sizeof(line), "dev %llu ino %llu size %lld mtime %lld.%09ld "
			 "ctime %lld.%09ld", (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino, (long long)st.st_size,
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			 (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	}
	put_str(h, "file", line);
}

static void put_glob(tg_sha256 *h, const char *pattern)
{
	glob_t g;
	size_t i;

	put_str(h, "glob", pattern);
	if (glob(pattern, 0, NULL, &g) != 0)
		return;
	for (i = 0; i < g.gl_pathc; i++) /* glob sorts */
		put_file_identity(h, g.gl_pathv[i]);
	globfree(&g);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file under dir (sorted, depth-capped), name and bytes. */
static int put_tree(tg_sha256 *h, const char *dir, const char *rel, int depth)
{
	_cleanup_free_ char **names = NULL;
	DIR *d;
	struct dirent *e;
	size_t n = 0, cap = 0, i;
	int rc = 0;

	if (depth > 8)
		return tg_error_set(TG_ERR_LIMIT, "build inputs: SDK folder nested too deep");
	d = opendir(dir);
	if (!d)
		return tg_error_errno(TG_ERR_IO, errno, "build inputs: cannot read %s", dir);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 16) * sizeof(*nn));
			if (!nn) {
				rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
				break;
			}
			names = nn;
		}
		if (!(names[n] = strdup(e->d_name))) {
			rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
			break;
		}
		n++;
	}
	closedir(d);
	if (rc == 0 && n)
		qsort(names, n, sizeof(*names), name_cmp);
	for (i = 0; i < n; i++) {
		_cleanup_free_ char *p = rc == 0 ? tg_path_join(dir, names[i]) : NULL;
		_cleanup_free_ char *r = rc == 0 ? tg_path_join(rel, names[i]) : NULL;
		_cleanup_free_ char *data = NULL;
		struct stat st;
		size_t len = 0;

		if (rc == 0 && (!p || !r))
			rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		if (rc == 0 && stat(p, &st) != 0)
			rc = tg_error_errno(TG_ERR_IO, errno, "build inputs: cannot stat %s", p);
		if (rc == 0 && S_ISDIR(st.st_mode)) {
			rc = put_tree(h, p, r, depth + 1);
		} else if (rc == 0 && S_ISREG(st.st_mode)) {
			rc = tg_file_read(&data, &len, p, BUILD_SOURCE_MAX);
			if (rc == 0) {
				char sz[32];
				put_str(h, "sdk-file", r);
				snprintf(sz, sizeof(sz), "%zu", len);
				put_str(h, "sdk-size", sz);
				tg_sha256_update(h, data, len);
			}
		}
		free(names[i]);
	}
	return rc;
}

static pthread_mutex_t inputs_lock = PTHREAD_MUTEX_INITIALIZER;
static char inputs_dir[PATH_MAX];

int tg_sandbox_build_inputs(char out[65], const char *sdk_include_dir)
{
	const char *sdk = sdk_include_dir ? sdk_include_dir : "";
	tg_sha256 h;
	size_t i;
	int rc = 0;

	pthread_mutex_lock(&inputs_lock);
	if (inputs_hash[0] && strcmp(inputs_dir, sdk) == 0) {
		memcpy(out, inputs_hash, 65);
		goto out;
	}
	tg_sha256_init(&h);
	put_str(&h, "toolgate-build-inputs", "v2");
	put_file_identity(&h, test_compiler ? test_compiler : tg_cfront_clang_path());
	put_str(&h, "clang-version", tg_cfront_clang_version());
	{
		const char *cargs[72];
		_cleanup_free_ char *overlay = NULL;

		cargs[tg_cfront_args(cargs, TG_ARRAY_SIZE(cargs) - 1, "/tmp/cfront.yaml")] = NULL;
		put_argv(&h, "cflags", cargs);
		rc = tg_cfront_overlay(&overlay, "/sdk", 1);
		if (rc < 0)
			goto out;
		put_str(&h, "overlay", overlay);
	}
	put_str(&h, "sdk", sdk_include_dir ? "/sdk" : "(none)");
	put_argv(&h, "link-pie", link_pie_flags);
	put_argv(&h, "link-static", link_static_flags);
	put_argv(&h, "env", build_env);
	put_str(&h, "test-no-static-pie", test_no_static_pie ? "1" : "0");
	/* the rest of the toolchain: linker, the C library and start files the
	 * static link takes. /usr/lib holds hundreds of entries: it is read
	 * once for the triplet folders, whose files are then named. */
	{
		static const char *const tool_globs[] = {
			"/usr/lib/gcc/*-linux-gnu/*/libgcc.a", "/usr/lib/gcc/*-linux-gnu/*/libgcc_eh.a",
			"/usr/lib/gcc/*-linux-gnu/*/crt*.o", "/usr/bin/ld", "/usr/bin/ld.bfd", NULL
		};
		static const char *const libc_files[] = {
			"libc.a", "libm.a", "libmvec.a", "crt1.o", "Scrt1.o", "rcrt1.o", "crti.o",
			"crtn.o", NULL
		};
		glob_t g;
		size_t k;

		for (i = 0; tool_globs[i]; i++)
			put_glob(&h, tool_globs[i]);
		put_str(&h, "glob", "/usr/lib/*-linux-gnu/");
		if (glob("/usr/lib/*-linux-gnu/", GLOB_ONLYDIR, NULL, &g) == 0) {
			for (k = 0; k < g.gl_pathc; k++) {
				for (i = 0; libc_files[i]; i++) {
					char p[PATH_MAX];
					snprintf(p, sizeof(p), "%s%s", g.gl_pathv[k], libc_files[i]);
					put_file_identity(&h, p);
				}
			}
			globfree(&g);
		}
	}
	if (sdk_include_dir)
		rc = put_tree(&h, sdk_include_dir, "", 0);
	if (rc < 0)
		goto out;
	tg_sha256_final_hex(&h, out);
	if (strlen(sdk) < sizeof(inputs_dir)) {
		memcpy(inputs_dir, sdk, strlen(sdk) + 1);
		memcpy(inputs_hash, out, 65);
	}
out:
	pthread_mutex_unlock(&inputs_lock);
	return rc;
}
