/*
 * registry/create/build.c: the sandboxed build and the build cache.
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
 * Running a built binary is exec/run_tool.c's.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "registry/create/create.h"

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
	/* marked used first: an eviction from now on keeps it (cache.c) */
	if ((rc = reg_cache_mark_used(r, key)) <= 0)
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
	/* what was just built is about to run: no eviction until it has */
	if ((rc = reg_cache_mark_used(r, key)) < 0)
		return rc;
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
	cached = rc == 1 && reg_cache_mark_used(r, key) > 0 && file_matches(final, "tool", hbin) &&
		 file_matches(final, "tool.o", hobj);
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
		/* max_binary_mb inside the sandbox: the compiler and linker stop
		 * at the limit (RLIMIT_FSIZE) instead of writing a 60 MB
		 * object and binary that are refused afterwards */
		bo.max_output_bytes = reg_quota_binary_bytes(r);
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
		if (!b->ok && b->output_limit) {
			tg_build_result_free(b);
			reg_workdir_release(&w, 1);
			return reg_quota_binary_stopped(r);
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
