/*
 * store/diff.c: the diff between two versions of a tool, in the order a
 * reviewer reads it: the source (tool.c) first, then the manifest
 * (tool.json), then the test results (tests.json), then the analysis
 * report and any other file. Each file is a unified diff as git prints it.
 * The test results are compared without their timing figures (wall_ms,
 * cpu_ms, max_rss_kb), which differ on every run and say nothing about the
 * change. The manifest's reals are shown in their shortest spelling
 * (tg_json_shorten_reals), so a version stored before toolgate spelled them
 * so (0.77000000000000002) compares equal to a later 0.77; the stored bytes
 * are not changed. Files are capped at ST_MAX_FILE_BYTES each, so the
 * output is bounded too.
 */
#include "store_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const order[] = { "tool.c", "tool.json", "tests.json", "analysis.json" };
static const char *const timing[] = { "wall_ms", "cpu_ms", "max_rss_kb" };

/* Drop the timing keys from every object of v, at any depth. */
static void drop_timing(json_t *v)
{
	json_t *x;
	const char *k;
	size_t i;

	if (json_is_object(v)) {
		for (i = 0; i < TG_ARRAY_SIZE(timing); i++)
			json_object_del(v, timing[i]);
		json_object_foreach(v, k, x)
			drop_timing(x);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			drop_timing(x);
	}
}

/* The text of path in tree (NULL, len 0 when absent); tests.json without
 * timing; tool.json with its reals spelled shortest. */
static int file_text(char **out, size_t *len, tg_store *s, git_tree *tree, const char *path)
{
	const git_tree_entry *e = git_tree_entry_byname(tree, path);
	git_blob *blob = NULL;
	git_object_size_t size;
	int rc;

	*out = NULL;
	*len = 0;
	if (!e || git_tree_entry_type(e) != GIT_OBJECT_BLOB)
		return 0;
	if ((rc = git_blob_lookup(&blob, s->repo, git_tree_entry_id(e))) < 0)
		return st_git_fail(rc, "file %s", path);
	size = git_blob_rawsize(blob);
	if (size > ST_MAX_FILE_BYTES) {
		git_blob_free(blob);
		return tg_error_set(TG_ERR_LIMIT, "file %s larger than %u bytes", path,
				    ST_MAX_FILE_BYTES);
	}
	*out = strndup(git_blob_rawcontent(blob), (size_t)size);
	git_blob_free(blob);
	if (!*out)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	*len = (size_t)size;
	if (strcmp(path, "tests.json") == 0) {
		json_error_t err;
		json_t *j = json_loadb(*out, *len, JSON_DECODE_ANY, &err);
		char *clean;
		if (!j)
			return 0; /* not JSON: compared as it is */
		drop_timing(j);
		clean = tg_json_dump_pretty(j);
		json_decref(j);
		if (!clean)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		free(*out);
		*out = clean;
		*len = strlen(clean);
	} else if (strcmp(path, "tool.json") == 0) {
		json_error_t err;
		json_t *j = json_loadb(*out, *len, 0, &err);
		char *clean;
		if (!j)
			return 0; /* not JSON: compared as it is */
		json_decref(j);
		if (!(clean = tg_json_shorten_reals(*out)))
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		free(*out);
		*out = clean;
		*len = strlen(clean);
	}
	return 0;
}

/* Append the diff of path between t1 and t2 to *acc. */
static int diff_one(char **acc, size_t *acc_len, tg_store *s, git_tree *t1, git_tree *t2,
		    const char *path)
{
	_cleanup_free_ char *a = NULL, *b = NULL;
	git_patch *patch = NULL;
	git_buf buf = GIT_BUF_INIT;
	git_diff_options o;
	size_t la, lb;
	char *n;
	int rc;

	if ((rc = file_text(&a, &la, s, t1, path)) < 0 || (rc = file_text(&b, &lb, s, t2, path)) < 0)
		return rc;
	if (!a && !b)
		return 0;
	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	o.context_lines = 3;
	rc = git_patch_from_buffers(&patch, a, la, a ? path : NULL, b, lb, b ? path : NULL, &o);
	if (rc < 0)
		return st_git_fail(rc, "diff %s", path);
	rc = git_patch_to_buf(&buf, patch);
	git_patch_free(patch);
	if (rc < 0)
		return st_git_fail(rc, "format diff of %s", path);
	n = realloc(*acc, *acc_len + buf.size + 1);
	if (!n) {
		git_buf_dispose(&buf);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	memcpy(n + *acc_len, buf.ptr ? buf.ptr : "", buf.size);
	*acc_len += buf.size;
	n[*acc_len] = '\0';
	*acc = n;
	git_buf_dispose(&buf);
	return 0;
}

static int in_order(const char *name)
{
	size_t i;

	for (i = 0; i < TG_ARRAY_SIZE(order); i++)
		if (strcmp(order[i], name) == 0)
			return 1;
	return 0;
}

int tg_store_diff(char **out, tg_store *s, const char *tool, unsigned v1, unsigned v2)
{
	git_commit *c1 = NULL, *c2 = NULL;
	git_tree *t1 = NULL, *t2 = NULL;
	char *acc = NULL;
	size_t acc_len = 0, i;
	int rc;

	*out = NULL;
	if ((rc = st_check_tool(tool)) < 0)
		return rc;
	if ((rc = st_lookup_version_commit(&c1, s, tool, v1)) < 0 ||
	    (rc = st_lookup_version_commit(&c2, s, tool, v2)) < 0)
		goto out;
	if ((rc = git_commit_tree(&t1, c1)) < 0 || (rc = git_commit_tree(&t2, c2)) < 0) {
		rc = st_git_fail(rc, "tool %s: tree", tool);
		goto out;
	}
	for (i = 0; i < TG_ARRAY_SIZE(order); i++)
		if ((rc = diff_one(&acc, &acc_len, s, t1, t2, order[i])) < 0)
			goto out;
	/* other files: those of v2 by name, then those only v1 has */
	for (i = 0; i < git_tree_entrycount(t2); i++) {
		const char *name = git_tree_entry_name(git_tree_entry_byindex(t2, i));
		if (!in_order(name) && (rc = diff_one(&acc, &acc_len, s, t1, t2, name)) < 0)
			goto out;
	}
	for (i = 0; i < git_tree_entrycount(t1); i++) {
		const char *name = git_tree_entry_name(git_tree_entry_byindex(t1, i));
		if (!in_order(name) && !git_tree_entry_byname(t2, name) &&
		    (rc = diff_one(&acc, &acc_len, s, t1, t2, name)) < 0)
			goto out;
	}
	*out = acc ? acc : strdup("");
	acc = NULL;
	rc = *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
out:
	free(acc);
	git_tree_free(t1);
	git_tree_free(t2);
	git_commit_free(c1);
	git_commit_free(c2);
	return rc;
}
