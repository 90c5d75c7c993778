/*
 * registry/build.c: the build cache and the tool-run contract.
 *
 * Built binaries live in <home>/cache/<key>/{tool,tool.o}, where the key is
 * sha256 over the content hash recomputed from the source bytes and the
 * fingerprint of every other build input (tg_sandbox_build_inputs: compiler,
 * flags, toolchain, SDK headers). The sha256 of both files is recorded in
 * the registry's meta table ("build:<key>") when they are built; a cached
 * file is used only when it still hashes to that record, else it is thrown
 * away and rebuilt (nothing in cache/ is trusted on its own). A build goes to
 * a fresh temporary folder under cache/ (the compiler runs in the sandbox)
 * and is renamed into place only when both files exist, so a reader never
 * sees half a build and concurrent builders of one key both succeed.
 * reg_run_tool() runs a binary in the tool sandbox with the manifest's limits
 * and turns the outcome into the call contract of DESIGN.md: exit 0 plus one
 * JSON value on stdout is a result, anything else an error whose message is
 * the capped stderr or the kill reason.
 */
#include "bridge.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define DEF_TIMEOUT_MS 2000u
#define DEF_MEMORY_MB 64u
#define DEF_OUTPUT_KB 1024u
#define BUILD_TIMEOUT_MS 30000u /* a compile, and its wait for a build slot */

int reg_policy(tg_registry *r, const tg_policy **out)
{
	_cleanup_free_ char *path = NULL;
	int rc;

	if (!r->policy) {
		path = tg_path_join(r->home, "policy.json");
		if (!path)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		rc = tg_policy_load(&r->policy, path);
		if (rc < 0)
			return tg_error_prefix("policy");
	}
	*out = r->policy;
	return 0;
}

void reg_content_hash(char out[65], const char *source, size_t len)
{
	tg_sha256 s;

	tg_sha256_init(&s);
	tg_sha256_update(&s, "toolgate-build-v1\n", 18);
	tg_sha256_update(&s, source, len);
	tg_sha256_final_hex(&s, out);
}

int reg_cache_key(char out[65], const char *content_hash, tg_registry *r)
{
	char inputs[65];
	tg_sha256 s;
	int rc = reg_need_sdk(r);

	if (rc < 0)
		return rc;
	if (tg_sandbox_build_inputs(inputs, r->sdk_include) < 0)
		return tg_error_prefix("build inputs");
	tg_sha256_init(&s);
	tg_sha256_update(&s, "toolgate-cache-v2\n", 18);
	tg_sha256_update(&s, content_hash, strlen(content_hash));
	tg_sha256_update(&s, "\n", 1);
	tg_sha256_update(&s, inputs, 64);
	tg_sha256_final_hex(&s, out);
	return 0;
}

/* Streamed in 64 KiB pieces: a cached binary is never held whole in the
 * server's memory (issue 15). */
int reg_file_sha256(char out[65], const char *path)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	char buf[65536];
	struct stat st;
	tg_sha256 h;
	ssize_t n;

	if (fd < 0)
		return tg_error_errno(errno == ENOENT ? TG_ERR_NOTFOUND : TG_ERR_IO, errno, "%s",
				      path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return tg_error_set(TG_ERR_INVALID, "%s: not a regular file", path);
	tg_sha256_init(&h);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return tg_error_errno(TG_ERR_IO, errno, "%s", path);
		}
		tg_sha256_update(&h, buf, (size_t)n);
	}
	tg_sha256_final_hex(&h, out);
	return 0;
}

/* The recorded hashes of cache/<key>: 1 and bin/obj set, 0 when none. */
int reg_cache_record(tg_registry *r, const char *key, char bin[65], char obj[65])
{
	_cleanup_free_ char *v = NULL;
	char mk[80];
	int rc;

	snprintf(mk, sizeof(mk), "build:%s", key);
	rc = reg_meta_get_text(r, mk, &v);
	if (rc <= 0)
		return rc;
	if (strlen(v) != 129 || v[64] != ' ')
		return 0;
	memcpy(bin, v, 64);
	bin[64] = '\0';
	memcpy(obj, v + 65, 64);
	obj[64] = '\0';
	return 1;
}

/* 1 when dir/name exists and hashes to want, 0 when not (or unreadable). */
static int file_matches(const char *dir, const char *name, const char *want)
{
	_cleanup_free_ char *p = tg_path_join(dir, name);
	char got[65];

	if (!p || reg_file_sha256(got, p) < 0) {
		tg_error_clear();
		return 0;
	}
	return strcmp(got, want) == 0;
}

/* A file's identity as the kernel keeps it: device, inode, size, and the
 * modification and change times to the nanosecond. Any write moves mtime
 * and ctime, a replacement brings another inode and ctime, and ctime
 * cannot be set back without setting the system clock. "" when path is not
 * a regular file. */
static void file_identity(char out[160], const char *path)
{
	struct stat st;

	out[0] = '\0';
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
		snprintf(out, 160, "%llu %llu %lld %lld.%09ld %lld.%09ld",
			 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
			 (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			 (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
}

/* Remember that cache/<key>/tool hashed to its record while it had this
 * identity ("buildid:<key>"); best effort (a read-only home keeps hashing). */
static void note_identity(tg_registry *r, const char *key, const char *id)
{
	char mk[80];

	snprintf(mk, sizeof(mk), "buildid:%s", key);
	if (id[0] && reg_meta_set_text(r, mk, id) < 0)
		tg_error_clear();
}

int reg_cached_binary(char **out, tg_registry *r, const char *content_hash)
{
	_cleanup_free_ char *dir = NULL, *bin = NULL, *known = NULL;
	char key[65], hbin[65], hobj[65], mk[80], id[160];
	int rc;

	*out = NULL;
	if ((rc = reg_cache_key(key, content_hash, r)) < 0)
		return rc;
	dir = tg_path_join(r->cache_dir, key);
	bin = dir ? tg_path_join(dir, "tool") : NULL;
	if (!bin)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	rc = reg_cache_record(r, key, hbin, hobj);
	if (rc <= 0)
		return rc;
	/* The bytes were hashed and matched while the file had this very
	 * identity: unchanged since, so not hashed again on every call (verify
	 * always hashes). Anything else is hashed in full. */
	file_identity(id, bin);
	snprintf(mk, sizeof(mk), "buildid:%s", key);
	if (id[0] && reg_meta_get_text(r, mk, &known) > 0 && strcmp(known, id) == 0) {
		*out = TG_TAKE_PTR(bin);
		return 0;
	}
	tg_error_clear();
	if (file_matches(dir, "tool", hbin)) {
		note_identity(r, key, id);
		*out = TG_TAKE_PTR(bin);
	}
	return 0;
}

static int is_file(const char *dir, const char *name)
{
	_cleanup_free_ char *p = tg_path_join(dir, name);
	struct stat st;
	return p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Record the hashes of a finished build in tmp and move it to final. */
static int install_build(tg_registry *r, const char *key, const char *tmp, const char *final)
{
	_cleanup_free_ char *pb = tg_path_join(tmp, "tool"), *po = tg_path_join(tmp, "tool.o");
	char hbin[65], hobj[65], mk[80], val[130];
	int rc;

	if (!pb || !po)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_file_sha256(hbin, pb)) < 0 || (rc = reg_file_sha256(hobj, po)) < 0)
		return tg_error_prefix("hash the build");
	if (rename(tmp, final) != 0) {
		int e = errno;
		if (!(e == EEXIST || e == ENOTEMPTY))
			return tg_error_errno(TG_ERR_IO, e, "cannot move the build into %s", final);
		/* another builder (or a planted folder) was first: keep ours
		 * unless theirs is byte for byte the same */
		if (!file_matches(final, "tool", hbin) || !file_matches(final, "tool.o", hobj)) {
			if (renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_EXCHANGE) != 0)
				return tg_error_errno(TG_ERR_IO, errno, "cannot replace %s", final);
		}
		reg_rm_tree(tmp);
	}
	snprintf(mk, sizeof(mk), "build:%s", key);
	snprintf(val, sizeof(val), "%s %s", hbin, hobj);
	return reg_meta_set_text(r, mk, val); /* the first use notes the identity */
}

int reg_build(tg_registry *r, const char *hash, const char *source, size_t len,
	      const char *const *caps, size_t ncaps, int *out_ok, tg_report **out_report,
	      char **out_log, char **out_binary)
{
	_cleanup_free_ char *final = NULL;
	_cleanup_free_ char *obj = NULL;
	tg_build_result *b = NULL;
	tg_build_opts bo = { 0 };
	tg_analyze_opts ao = { 0 };
	const tg_policy *pol;
	char want[65], key[65], hbin[65], hobj[65];
	int rc, cached = 0, slot = -1;

	*out_ok = 0;
	*out_report = NULL;
	*out_log = NULL;
	*out_binary = NULL;
	reg_content_hash(want, source, len);
	if (strcmp(want, hash) != 0)
		return tg_error_set(TG_ERR_INTERNAL, "build: the source does not have content hash "
						     "%.12s", hash);
	if ((rc = reg_cache_key(key, want, r)) < 0)
		return rc;
	final = tg_path_join(r->cache_dir, key);
	if (!final)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_cache_record(r, key, hbin, hobj)) < 0)
		return rc;
	cached = rc == 1 && file_matches(final, "tool", hbin) && file_matches(final, "tool.o", hobj);
	if (!cached) {
		struct stat st;
		reg_workdir w;
		if (lstat(final, &st) == 0)
			reg_cache_discard(r, final); /* not what was built here: never used */
		/* a build folder owned through its lock (cache.c): swept at the
		 * next open if this process dies, never while it lives */
		if ((rc = reg_workdir_make(&w, r, "build")) < 0)
			return tg_error_prefix("cannot create a build folder");
		bo.source = source;
		bo.source_len = len;
		bo.sdk_include_dir = r->sdk_include;
		bo.out_dir = w.dir;
		/* one of the host's build slots for the compile (slots.c) */
		if ((rc = reg_build_slot_take(r, BUILD_TIMEOUT_MS, &slot)) < 0) {
			reg_workdir_release(&w, 1);
			return rc;
		}
		bo.timeout_ms = BUILD_TIMEOUT_MS;
		bo.cpu_percent = r->cfg.cpu_percent;
		bo.cancel = r->cancel;
		rc = tg_sandbox_build(&b, &bo);
		reg_slot_give(slot);
		if (rc < 0) {
			reg_workdir_release(&w, 1);
			return tg_error_prefix("build");
		}
		if (tg_cancel_fired(r->cancel)) {
			tg_build_result_free(b);
			reg_workdir_release(&w, 1);
			return tg_error_set(TG_ERR_DENIED, "cancelled by the client: the build was "
							   "stopped");
		}
		if (!b->ok || !is_file(w.dir, "tool") || !is_file(w.dir, "tool.o")) {
			*out_log = strdup(b->log && b->log[0] ? b->log : "the compiler failed");
			tg_build_result_free(b);
			reg_workdir_release(&w, 1);
			return *out_log ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
		}
		tg_build_result_free(b);
		/* max_binary_mb: checked before anything is cached */
		{
			_cleanup_free_ char *tb = tg_path_join(w.dir, "tool");
			rc = tb ? reg_quota_binary(r, tb) : tg_error_set(TG_ERR_NOMEM, "out of memory");
		}
		if (rc == 0)
			rc = install_build(r, key, w.dir, final);
		/* installed: w.dir was renamed to final (or removed, see
		 * install_build); otherwise it goes now */
		reg_workdir_release(&w, 1);
		if (rc < 0)
			return rc;
	}
	/* the second, independent check on what the compiler produced */
	rc = reg_policy(r, &pol);
	if (rc < 0)
		return rc;
	obj = tg_path_join(final, "tool.o");
	if (!obj)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	ao.capabilities = caps;
	ao.ncapabilities = ncaps;
	ao.sdk_include_dir = r->sdk_include;
	ao.timeout_ms = r->cfg.analyze_timeout_ms;
	rc = tg_analyze_object(out_report, pol, obj, &ao);
	if (rc < 0)
		return tg_error_prefix("object check");
	*out_binary = tg_path_join(final, "tool");
	if (!*out_binary)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	*out_ok = (*out_report)->pass;
	return 0;
}

/* A copy of s made safe for a terminal or a log by the shared scrubber
 * (tg_term_scrub: controls, C1, bidi and bad bytes become visible markers,
 * newline and tab kept), cut to at most cap bytes on a character boundary,
 * trailing newlines trimmed. */
static char *clean_text(const char *s, size_t len, size_t cap)
{
	char *o = tg_term_scrub(s, len, TG_TERM_BLOCK);
	size_t j;

	if (!o)
		return NULL;
	j = strlen(o);
	if (j > cap) {
		j = cap;
		while (j > 0 && ((unsigned char)o[j] & 0xc0) == 0x80)
			j--;
	}
	while (j > 0 && (o[j - 1] == '\n' || o[j - 1] == '\r'))
		j--;
	o[j] = '\0';
	return o;
}

static uint32_t limit_of(const json_t *limits, const char *key, uint32_t def, uint32_t max)
{
	json_t *v = limits ? json_object_get(limits, key) : NULL;
	if (v && json_is_integer(v) && json_integer_value(v) > 0 &&
	    json_integer_value(v) <= (json_int_t)max)
		return (uint32_t)json_integer_value(v);
	return def < max ? def : max;
}

json_t *reg_limits_applied(const tg_registry *r, const json_t *limits)
{
	return json_pack("{s:I,s:I,s:I}", "timeout_ms",
			 (json_int_t)limit_of(limits, "timeout_ms", DEF_TIMEOUT_MS,
					      r->cfg.max_timeout_ms),
			 "memory_mb",
			 (json_int_t)limit_of(limits, "memory_mb", DEF_MEMORY_MB, r->cfg.max_memory_mb),
			 "output_kb",
			 (json_int_t)limit_of(limits, "output_kb", DEF_OUTPUT_KB,
					      r->cfg.max_output_kb));
}

int reg_run_tool(json_t **out, tg_registry *r, const char *binary, const json_t *limits,
		 int ws_read, int ws_write, const char *workspace, const json_t *args)
{
	return reg_run_tool_ex(out, r, binary, limits, ws_read, ws_write, workspace, args, NULL,
			       0);
}

int reg_run_tool_ex(json_t **out, tg_registry *r, const char *binary, const json_t *limits,
		    int ws_read, int ws_write, const char *workspace, const json_t *args, reg_bridge *b,
		    uint64_t deadline_ms)
{
	_cleanup_free_ char *in = tg_json_dump(args);
	_cleanup_free_ char *msg = NULL;
	_cleanup_json_ json_t *res = NULL;
	tg_sandbox_opts so = { 0 };
	tg_run_result *rr = NULL;
	json_t *value = NULL;
	tg_json_limits jl = { 0, 256 };
	int rc, slot = -1;

	*out = NULL;
	if (!in)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	so.program = binary;
	so.stdin_data = in;
	so.stdin_len = strlen(in);
	so.timeout_ms = limit_of(limits, "timeout_ms", DEF_TIMEOUT_MS, r->cfg.max_timeout_ms);
	so.memory_mb = limit_of(limits, "memory_mb", DEF_MEMORY_MB, r->cfg.max_memory_mb);
	so.output_kb = limit_of(limits, "output_kb", DEF_OUTPUT_KB, r->cfg.max_output_kb);
	so.cpu_percent = r->cfg.cpu_percent;
	so.cancel = r->cancel;
	if ((ws_read || ws_write) && workspace) {
		so.workspace = workspace;
		so.workspace_write = ws_write;
	}
	if (b && b->deadline_ms && (!deadline_ms || b->deadline_ms < deadline_ms))
		deadline_ms = b->deadline_ms;
	if (deadline_ms) {
		/* a bridged call: the caller's run ends at deadline_ms */
		uint64_t now = tg_now_ms(), left = deadline_ms > now ? deadline_ms - now : 0;
		if (left < so.timeout_ms)
			so.timeout_ms = left > 10 ? (uint32_t)left : 10;
	}
	/* one of the host's run slots (slots.c), waiting up to the run's own
	 * timeout; a bridged call runs within its caller's slot */
	if (!deadline_ms && (rc = reg_run_slot_take(r, so.timeout_ms, &slot)) < 0)
		return rc;
	if (b)
		b->deadline_ms = tg_now_ms() + so.timeout_ms;
	tg_prof_mark(TG_PROF_SLOT);
	rc = b ? reg_bridge_run(&rr, b, &so) : tg_sandbox_run(&rr, &so);
	tg_prof_mark(TG_PROF_RUN_DONE);
	reg_slot_give(slot);
	if (rc < 0)
		return tg_error_prefix("sandbox");
	jl.max_bytes = (size_t)so.output_kb * 1024u + 1;
	if (rr->reason == TG_REASON_EXITED && rr->exit_code == 0) {
		rc = tg_json_parse(&value, rr->out ? rr->out : "", rr->out_len, &jl);
		if (rc < 0) {
			char m[1200];
			snprintf(m, sizeof(m), "the tool's output is not one JSON value: %s",
				 tg_error_last()->message);
			tg_error_clear();
			msg = clean_text(m, strlen(m), REG_MAX_ERROR_TEXT);
		}
	} else if (rr->reason == TG_REASON_EXITED) {
		if (rr->err_len > 0) {
			msg = clean_text(rr->err, rr->err_len, REG_MAX_ERROR_TEXT);
		} else if (asprintf(&msg, "the tool exited with status %d", rr->exit_code) < 0) {
			msg = NULL;
		}
	} else {
		char m[256];
		if (rr->reason == TG_REASON_SECCOMP)
			snprintf(m, sizeof(m), "killed by the sandbox: forbidden system call %s",
				 rr->syscall[0] ? rr->syscall : "(unknown)");
		else if (rr->reason == TG_REASON_TIMEOUT)
			snprintf(m, sizeof(m), "killed by the sandbox: timeout after %u ms",
				 so.timeout_ms);
		else if (rr->reason == TG_REASON_MEMORY)
			snprintf(m, sizeof(m), "killed by the sandbox: memory limit of %u MB",
				 so.memory_mb);
		else if (rr->reason == TG_REASON_OUTPUT_LIMIT)
			snprintf(m, sizeof(m), "killed by the sandbox: output over %u KiB",
				 so.output_kb);
		else if (rr->reason == TG_REASON_BRIDGE_PROTOCOL)
			snprintf(m, sizeof(m), "ended by the tool bridge: %s",
				 b && b->protocol_msg[0] ? b->protocol_msg : "protocol error");
		else if (rr->reason == TG_REASON_CANCELLED)
			snprintf(m, sizeof(m), "cancelled by the client");
		else if (rr->reason == TG_REASON_SIGNALED)
			snprintf(m, sizeof(m), "the tool was killed by signal %d", rr->signal);
		else
			snprintf(m, sizeof(m), "killed by the sandbox: %s", tg_reason_name(rr->reason));
		msg = strdup(m);
	}
	res = json_object();
	if (!res || (!value && !msg)) {
		json_decref(value);
		tg_run_result_free(rr);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	json_object_set_new(res, "ok", json_boolean(value != NULL));
	if (value)
		json_object_set_new(res, "result", value);
	else
		json_object_set_new(res, "error", json_string(msg));
	json_object_set_new(res, "reason", json_string(tg_reason_name(rr->reason)));
	json_object_set_new(res, "wall_ms", json_integer((json_int_t)rr->wall_ms));
	if (b)
		json_object_set_new(res, "tool_calls", json_integer((json_int_t)b->attempts));
	tg_run_result_free(rr);
	*out = TG_TAKE_PTR(res);
	return 0;
}
