/*
 * registry/create/testfiles.c: the files a test of a workspace tool puts on
 * its scratch /workspace (a test's "files": {"notes.txt": "text"}). The
 * manifest check (reg_test_files_check, from manifest.c) bounds them:
 * TG_TEST_MAX_FILES files of at most TG_TEST_FILES_KB KiB in all per test,
 * plain names of [A-Za-z0-9._-] (no '/', no "..", no leading dot), only in
 * a manifest asking for workspace:read or workspace:write. Before each test
 * run_tests (pipeline.c) calls reg_test_files_place: the previous test's
 * files are removed and this test's are written into the scratch folder
 * (cache.c's reg_workdir_make) through its directory fd, O_EXCL and
 * O_NOFOLLOW, readable by the sandbox's user, never writable by it. The
 * scratch folder is never the host's workspace.
 */
#include "registry/create/create.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int name_ok(const char *n)
{
	size_t len = strlen(n);

	return len > 0 && len <= 64 && n[0] != '.' &&
	       strspn(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == len;
}

int reg_test_files_check(const json_t *m)
{
	const json_t *caps = json_object_get(m, "capabilities"), *t, *c;
	int ws = 0;
	size_t i, k;

	json_array_foreach(caps, k, c)
		ws |= json_is_string(c) && !strncmp(json_string_value(c), "workspace:", 10);
	json_array_foreach(json_object_get(m, "tests"), i, t) {
		const json_t *files = json_object_get(t, "files"), *v;
		const char *n;
		size_t total = 0;

		if (!files)
			continue;
		if (!json_is_object(files))
			return tg_error_set(TG_ERR_INVALID, "tests[%zu].files: must be an object of "
							    "file names and their text", i);
		if (!ws)
			return tg_error_set(TG_ERR_INVALID, "tests[%zu].files: only a tool asking for "
							    "workspace:read or workspace:write has a "
							    "/workspace", i);
		if (json_object_size(files) > TG_TEST_MAX_FILES)
			return tg_error_set(TG_ERR_LIMIT, "tests[%zu].files: %zu files, at most %d "
							  "allowed", i, json_object_size(files),
					    TG_TEST_MAX_FILES);
		json_object_foreach((json_t *)files, n, v) {
			if (!name_ok(n))
				return tg_error_set(TG_ERR_INVALID, "tests[%zu].files: \"%.64s\": a name "
								    "is 1 to 64 of A-Z a-z 0-9 . _ - "
								    "(no '/', no \"..\", no leading dot)",
						    i, n);
			if (!json_is_string(v))
				return tg_error_set(TG_ERR_INVALID, "tests[%zu].files.%s: must be a "
								    "string (the file's text)", i, n);
			total += json_string_length(v);
			if (total > (size_t)TG_TEST_FILES_KB * 1024)
				return tg_error_set(TG_ERR_LIMIT, "tests[%zu].files: more than %d KiB "
								  "in all", i, TG_TEST_FILES_KB);
		}
	}
	return 0;
}

int reg_test_files_place(const char *dir, const json_t *prev, const json_t *files)
{
	const char *n;
	const json_t *v;
	int dfd, rc = 0;

	if (!dir || (!prev && !files))
		return 0;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return tg_error_set(TG_ERR_IO, "scratch workspace: %s", strerror(errno));
	json_object_foreach((json_t *)prev, n, v) {
		if (unlinkat(dfd, n, 0) < 0 && errno != ENOENT) {
			rc = tg_error_set(TG_ERR_IO, "scratch workspace: remove %s: %s", n,
					  strerror(errno));
			goto out;
		}
	}
	/* the sandbox's user reads the folder and the files, writes neither */
	if (files && fchmod(dfd, 0755) < 0) {
		rc = tg_error_set(TG_ERR_IO, "scratch workspace: %s", strerror(errno));
		goto out;
	}
	json_object_foreach((json_t *)files, n, v) {
		int fd = openat(dfd, n, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0) {
			rc = tg_error_set(TG_ERR_IO, "scratch workspace: %s: %s", n, strerror(errno));
			goto out;
		}
		rc = tg_fd_write_all(fd, json_string_value(v), json_string_length(v));
		if (fchmod(fd, 0644) < 0 && rc == 0)
			rc = tg_error_set(TG_ERR_IO, "scratch workspace: %s: %s", n, strerror(errno));
		close(fd);
		if (rc < 0)
			goto out;
	}
out:
	close(dfd);
	return rc;
}
