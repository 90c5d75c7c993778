/*
 * store/diff.c: a unified diff of every file between two versions of a tool
 * (source, manifest, reports), as `git diff <v1> <v2>` prints it. Files are
 * capped at ST_MAX_FILE_BYTES each, so the output is bounded too.
 */
#include "store_internal.h"

#include <string.h>

int tg_store_diff(char **out, tg_store *s, const char *tool, unsigned v1, unsigned v2)
{
	git_commit *c1 = NULL, *c2 = NULL;
	git_tree *t1 = NULL, *t2 = NULL;
	git_diff *diff = NULL;
	git_diff_options o;
	git_buf buf = GIT_BUF_INIT;
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
	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	o.context_lines = 3;
	if ((rc = git_diff_tree_to_tree(&diff, s->repo, t1, t2, &o)) < 0) {
		rc = st_git_fail(rc, "tool %s: diff %u %u", tool, v1, v2);
		goto out;
	}
	if ((rc = git_diff_to_buf(&buf, diff, GIT_DIFF_FORMAT_PATCH)) < 0) {
		rc = st_git_fail(rc, "tool %s: format diff", tool);
		goto out;
	}
	*out = strndup(buf.ptr ? buf.ptr : "", buf.size);
	rc = *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
out:
	git_buf_dispose(&buf);
	git_diff_free(diff);
	git_tree_free(t1);
	git_tree_free(t2);
	git_commit_free(c1);
	git_commit_free(c2);
	return rc;
}
