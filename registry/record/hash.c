/*
 * registry/record/hash.c: the hashes records are keyed by: a source's
 * content hash, the build cache's key (the content hash and the build
 * inputs' fingerprint, which includes the SDK this binary found:
 * reg_need_sdk), a file's sha256 streamed from disk.
 */
#include "registry/record/record.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int reg_need_sdk(tg_registry *r)
{
	if (r->sdk_include)
		return 0;
	return tg_sdk_dir(&r->sdk_include);
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
