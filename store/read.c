/*
 * store/read.c: reading versions back. A tool's versions are the
 * first-parent chain of refs/tools/<tool>; version v sits (tip - v) commits
 * below the tip, so reading it never touches another tool's history.
 * list_tools iterates the refs/tools/ namespace only.
 */
#include "store_internal.h"

#include <string.h>

int st_lookup_tip(git_commit **out, unsigned *version_out, tg_store *s, const char *tool)
{
	char ref[128];
	git_oid oid;
	int rc;

	*out = NULL;
	if (version_out)
		*version_out = 0;
	st_ref_name(ref, sizeof(ref), ST_TOOLS_PREFIX, tool);
	rc = st_ref_id(&oid, s, ref);
	if (rc == GIT_ENOTFOUND)
		return tg_error_set(TG_ERR_NOTFOUND, "tool %s: not in the store", tool);
	if (rc < 0)
		return st_git_fail(rc, "read %s", ref);
	if ((rc = git_commit_lookup(out, s->repo, &oid)) < 0)
		return st_git_fail(rc == GIT_ENOTFOUND ? GIT_ERROR : rc, "tool %s: tip commit", tool);
	if (version_out && (rc = st_commit_version(version_out, *out)) < 0) {
		git_commit_free(*out);
		*out = NULL;
		return tg_error_prefix("tool %s", tool);
	}
	return 0;
}

int st_lookup_version_commit(git_commit **out, tg_store *s, const char *tool, unsigned v)
{
	git_commit *tip = NULL;
	unsigned tipv, got;
	int rc;

	*out = NULL;
	if ((rc = st_lookup_tip(&tip, &tipv, s, tool)) < 0)
		return rc;
	if (v == 0 || v > tipv) {
		git_commit_free(tip);
		return tg_error_set(TG_ERR_NOTFOUND, "tool %s: no version %u", tool, v);
	}
	if (v == tipv) {
		*out = tip;
		return 0;
	}
	rc = git_commit_nth_gen_ancestor(out, tip, tipv - v);
	git_commit_free(tip);
	if (rc < 0)
		return st_git_fail(rc == GIT_ENOTFOUND ? GIT_ERROR : rc,
				   "tool %s: history broken below version %u", tool, tipv);
	if ((rc = st_commit_version(&got, *out)) < 0 || got != v) {
		git_commit_free(*out);
		*out = NULL;
		if (rc < 0)
			return tg_error_prefix("tool %s", tool);
		return tg_error_set(TG_ERR_INTERNAL, "tool %s: history out of sequence (found version %u "
				    "where %u belongs)", tool, got, v);
	}
	return 0;
}

int tg_store_get_version(tg_store_version **out, tg_store *s, const char *tool, unsigned version)
{
	git_commit *c = NULL;
	int rc;

	*out = NULL;
	if ((rc = st_check_tool(tool)) < 0)
		return rc;
	if ((rc = st_lookup_version_commit(&c, s, tool, version)) < 0)
		return rc;
	rc = st_version_from_commit(out, tool, c);
	git_commit_free(c);
	return rc;
}

int tg_store_get_file(char **out, size_t *len_out, tg_store *s, const char *tool, unsigned version,
		      const char *path)
{
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_blob *blob = NULL;
	const git_tree_entry *e;
	git_object_size_t size;
	char *data;
	int rc;

	*out = NULL;
	if (len_out)
		*len_out = 0;
	if ((rc = st_check_tool(tool)) < 0 || (rc = st_check_file_name(path)) < 0)
		return rc;
	if ((rc = st_lookup_version_commit(&c, s, tool, version)) < 0)
		return rc;
	if ((rc = git_commit_tree(&tree, c)) < 0) {
		rc = st_git_fail(GIT_ERROR, "tool %s version %u: tree", tool, version);
		goto out;
	}
	e = git_tree_entry_byname(tree, path);
	if (!e || git_tree_entry_type(e) != GIT_OBJECT_BLOB) {
		rc = tg_error_set(TG_ERR_NOTFOUND, "tool %s version %u: no file %s", tool, version, path);
		goto out;
	}
	if ((rc = git_blob_lookup(&blob, s->repo, git_tree_entry_id(e))) < 0) {
		rc = st_git_fail(GIT_ERROR, "tool %s version %u: file %s", tool, version, path);
		goto out;
	}
	size = git_blob_rawsize(blob);
	if (size > ST_MAX_FILE_BYTES) {
		rc = tg_error_set(TG_ERR_LIMIT, "tool %s version %u: file %s larger than %u bytes", tool,
				  version, path, ST_MAX_FILE_BYTES);
		goto out;
	}
	data = malloc((size_t)size + 1);
	if (!data) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto out;
	}
	memcpy(data, git_blob_rawcontent(blob), (size_t)size);
	data[size] = '\0';
	*out = data;
	if (len_out)
		*len_out = (size_t)size;
	rc = 0;
out:
	git_blob_free(blob);
	git_tree_free(tree);
	git_commit_free(c);
	return rc;
}

int tg_store_list_versions(tg_store_version_list **out, tg_store *s, const char *tool)
{
	tg_store_version_list *l;
	git_commit *c = NULL, *parent;
	unsigned tipv;
	size_t cap;
	int rc;

	*out = NULL;
	if ((rc = st_check_tool(tool)) < 0)
		return rc;
	if ((rc = st_lookup_tip(&c, &tipv, s, tool)) < 0)
		return rc;
	cap = tipv < 256 ? tipv : 256; /* tipv comes from a trailer: grow, do not trust */
	l = calloc(1, sizeof(*l));
	if (l)
		l->items = calloc(cap, sizeof(*l->items));
	if (!l || !l->items) {
		free(l);
		git_commit_free(c);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	while (c) {
		tg_store_version *v = NULL;
		if (l->n == tipv) {
			rc = tg_error_set(TG_ERR_INTERNAL, "tool %s: more commits than versions", tool);
			goto fail;
		}
		if (l->n == cap) {
			size_t nc = cap * 2 < tipv ? cap * 2 : tipv;
			tg_store_version *ni = realloc(l->items, nc * sizeof(*ni));
			if (!ni) {
				rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
				goto fail;
			}
			l->items = ni;
			cap = nc;
		}
		if ((rc = st_version_from_commit(&v, tool, c)) < 0)
			goto fail;
		l->items[l->n++] = *v;
		free(v);
		if (l->items[l->n - 1].version != tipv - (l->n - 1)) {
			rc = tg_error_set(TG_ERR_INTERNAL, "tool %s: history out of sequence at version %u",
					  tool, l->items[l->n - 1].version);
			goto fail;
		}
		if (git_commit_parentcount(c) == 0) {
			git_commit_free(c);
			c = NULL;
			break;
		}
		rc = git_commit_parent(&parent, c, 0);
		git_commit_free(c);
		c = NULL;
		if (rc < 0) {
			rc = st_git_fail(GIT_ERROR, "tool %s: parent of version %u", tool,
					 l->items[l->n - 1].version);
			goto fail;
		}
		c = parent;
	}
	if (l->n != tipv) {
		rc = tg_error_set(TG_ERR_INTERNAL, "tool %s: history ends at version %u", tool,
				  l->items[l->n - 1].version);
		goto fail;
	}
	*out = l;
	return 0;
fail:
	git_commit_free(c);
	tg_store_version_list_free(l);
	return rc;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int tg_store_list_tools(char ***out, size_t *n_out, tg_store *s)
{
	git_reference_iterator *it = NULL;
	const char *name;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc;

	*out = NULL;
	*n_out = 0;
	if (s->snap)
		return st_snapshot_tools(out, n_out, s);
	if ((rc = git_reference_iterator_glob_new(&it, s->repo, ST_TOOLS_PREFIX "*")) < 0)
		return st_git_fail(rc, "list refs");
	while ((rc = git_reference_next_name(&name, it)) == 0) {
		const char *tool = name + strlen(ST_TOOLS_PREFIX);
		if (strncmp(name, ST_TOOLS_PREFIX, strlen(ST_TOOLS_PREFIX)) || !tg_name_valid(tool))
			continue; /* tg_store_verify reports these */
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			char **nn = realloc(names, nc * sizeof(*nn));
			if (!nn)
				goto oom;
			names = nn;
			cap = nc;
		}
		if (!(names[n] = strdup(tool)))
			goto oom;
		n++;
	}
	git_reference_iterator_free(it);
	if (rc != GIT_ITEROVER) {
		tg_store_free_names(names, n);
		return st_git_fail(rc, "list refs");
	}
	if (!names && !(names = calloc(1, sizeof(*names))))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	qsort(names, n, sizeof(*names), cmp_names);
	*out = names;
	*n_out = n;
	return 0;
oom:
	git_reference_iterator_free(it);
	tg_store_free_names(names, n);
	return tg_error_set(TG_ERR_NOMEM, "out of memory");
}
