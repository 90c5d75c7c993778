/*
 * sandbox/build.c: tg_sandbox_build(): the compiler runs in the sandbox
 * too, under the build profile (fork/exec of cc1, as, collect2 and ld
 * allowed, with a pids limit). Its root holds read-only binds of /usr,
 * /lib, /lib64 and /bin (no /etc, /home, /proc or project tree), the SDK
 * include folder at /sdk, and the source written into its /tmp. Step one
 * compiles tool.c to tool.o (-c), step two links tool as a static PIE
 * (plain -static if that fails); each output is read back through a
 * descriptor of the sandbox's /tmp (no symlinks, regular files only,
 * size-capped) and written atomically into out_dir.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#define BUILD_SOURCE_MAX (1u << 20)
#define BUILD_OUTPUT_MAX (64u << 20)
#define BUILD_LOG_MAX (64u << 10)

static const char *const build_env[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", "TMPDIR=/tmp",
					  "GCC_COLORS=", NULL };

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

/* Read a regular file (not a link, not a FIFO) from the sandbox's /tmp. */
static int fetch(char **data, size_t *len, int dirfd, const char *name)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return tg_error_errno(TG_ERR_NOTFOUND, errno, "build: %s was not produced", name);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return tg_error_set(TG_ERR_INVALID, "build: %s is not a regular file", name);
	if (st.st_size > BUILD_OUTPUT_MAX)
		return tg_error_set(TG_ERR_LIMIT, "build: %s is larger than %u bytes", name,
				    BUILD_OUTPUT_MAX);
	return tg_fd_read_all(data, len, fd, BUILD_OUTPUT_MAX);
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
};

/* One sandboxed compiler run; *data gets output `want` when it succeeded. */
static int run_step(tg_run_result **res, char **data, size_t *len, const struct step *st,
		    const char *const *argv, const struct sbx_file *input, const char *want,
		    const char *what)
{
	struct sbx_spec *s = calloc(1, sizeof(*s));
	tg_sandbox_opts d;
	int r, tmpfd = -1;

	*res = NULL;
	*data = NULL;
	if (!s)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	memset(&d, 0, sizeof(d));
	d.timeout_ms = st->o->timeout_ms ? st->o->timeout_ms : 30000;
	d.memory_mb = st->o->memory_mb ? st->o->memory_mb : 512;
	d.output_kb = BUILD_LOG_MAX / 1024;
	d.tmp_mb = 128;
	d.max_procs = 16;
	d.max_files = 128;
	sbx_spec_defaults(s, &d);
	s->profile = SBX_PROFILE_BUILD;
	s->exec_path = st->compiler;
	s->argv = argv;
	s->envp = build_env;
	s->files[0] = *input;
	s->nfiles = 1;
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
	log_append(st->log, *res, what);
	if ((*res)->reason == TG_REASON_EXITED && (*res)->exit_code == 0 && tmpfd >= 0) {
		r = fetch(data, len, tmpfd, want);
		if (r < 0)
			tg_buf_printf(st->log, "toolgate: build: %s\n", tg_error_last()->message);
		r = 0;
	}
	if (tmpfd >= 0)
		close(tmpfd);
	return r;
}

static int test_no_static_pie; /* tests: take the -static fallback */

void sbx_build_test_no_static_pie(int on)
{
	test_no_static_pie = on;
}

int tg_sandbox_build(tg_build_result **out, const tg_build_opts *o)
{
	static const char *const cflags[] = { "-std=gnu11", "-O2", "-fstack-protector-strong",
					      "-D_FORTIFY_SOURCE=2", "-fPIE",
					      "-Werror=implicit-function-declaration",
					      "-fdiagnostics-color=never" };
	const char *argv[32];
	tg_buf log = TG_BUF_INIT(BUILD_LOG_MAX);
	tg_build_result *res = NULL;
	tg_run_result *run = NULL;
	char *obj = NULL, *bin = NULL;
	size_t obj_len = 0, bin_len = 0, n, i;
	struct step st;
	struct sbx_file in;
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
	res = calloc(1, sizeof(*res));
	if (!res)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	st.o = o;
	st.log = &log;
	st.compiler = access("/usr/bin/gcc", X_OK) == 0 ? "/usr/bin/gcc" : "/usr/bin/cc";

	/* 1: tool.c -> tool.o */
	n = 0;
	argv[n++] = "gcc";
	for (i = 0; i < TG_ARRAY_SIZE(cflags); i++)
		argv[n++] = cflags[i];
	if (o->sdk_include_dir)
		argv[n++] = "-I/sdk";
	argv[n++] = "-c";
	argv[n++] = "tool.c";
	argv[n++] = "-o";
	argv[n++] = "tool.o";
	argv[n] = NULL;
	in.name = "tool.c";
	in.data = o->source;
	in.len = o->source_len;
	r = run_step(&run, &obj, &obj_len, &st, argv, &in, "tool.o", "compile");
	if (r < 0)
		goto out;

	/* 2: tool.o -> tool, static PIE, else static */
	if (obj) {
		static const char *const link_pie[] = { "gcc", "-static-pie", "-Wl,-z,relro,-z,now",
							"-Wl,-z,noexecstack", "tool.o", "-lm", "-o", "tool",
							NULL };
		static const char *const link_static[] = { "gcc", "-static", "-no-pie",
							   "-Wl,-z,relro,-z,now",
							   "-Wl,-z,noexecstack", "tool.o", "-lm", "-o",
							   "tool", NULL };
		in.name = "tool.o";
		in.data = obj;
		in.len = obj_len;
		tg_run_result_free(run);
		run = NULL;
		r = test_no_static_pie ? 0
				       : run_step(&run, &bin, &bin_len, &st, link_pie, &in, "tool",
						  "link (static-pie)");
		if (r == 0 && !bin) {
			tg_buf_puts(&log, test_no_static_pie
						  ? "toolgate: build: static-pie off (test), linking with -static\n"
						  : "toolgate: build: static-pie failed, linking with -static\n");
			tg_run_result_free(run);
			run = NULL;
			r = run_step(&run, &bin, &bin_len, &st, link_static, &in, "tool",
				     "link (static)");
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
	if (obj && bin) {
		r = tg_file_write_atomic(res->object_path, obj, obj_len, 0644);
		if (r == 0)
			r = tg_file_write_atomic(res->binary_path, bin, bin_len, 0755);
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
	run = NULL;
	*out = res;
	res = NULL;
out:
	free(obj);
	free(bin);
	tg_run_result_free(run);
	tg_build_result_free(res);
	tg_buf_free(&log);
	return r;
}
