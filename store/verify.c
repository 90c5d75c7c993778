/*
 * store/verify.c: the consistency check of a store. Every ref must resolve
 * to an existing object; every refs/tools/<name> must have a valid name and
 * a first-parent chain of version commits numbered tip, tip-1, ..., 1 (the
 * root), each holding tool.json and tool.c, with every tree entry present;
 * every refs/active/<name> must name a tool and point at a commit of that
 * tool's chain. fetch (remote.c) runs the same chain check on what it
 * received before it lets it into refs/tools/.
 */
#include "store_internal.h"

#include <string.h>

int st_problem_add(tg_store_problem_list *l, const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;
	int n;

	if (l->n > ST_MAX_PROBLEMS)
		return 0;
	if (l->n == ST_MAX_PROBLEMS) {
		line = strdup("(more problems not listed)");
	} else {
		va_start(ap, fmt);
		n = vasprintf(&line, fmt, ap);
		va_end(ap);
		if (n < 0)
			line = NULL;
	}
	if (!line)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (!(l->n & (l->n - 1)) || !l->items) {
		char **ni = realloc(l->items, (l->n ? l->n * 2 : 4) * sizeof(*ni));
		if (!ni) {
			free(line);
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		}
		l->items = ni;
	}
	l->items[l->n++] = line;
	return 0;
}

static int file_name_ok(const char *name)
{
	size_t i;

	if (!*name || !strcmp(name, ".") || !strcmp(name, "..") || strlen(name) > ST_MAX_FILE_NAME)
		return 0;
	for (i = 0; name[i]; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
		      c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

static int check_tree(tg_store_problem_list *l, tg_store *s, git_odb *odb, const char *what,
		      unsigned version, const git_commit *c)
{
	git_tree *tree = NULL;
	size_t i, n;
	int rc, manifest = 0, source = 0;

	if (git_commit_tree(&tree, c) < 0)
		return st_problem_add(l, "%s version %u: tree missing", what, version);
	n = git_tree_entrycount(tree);
	for (i = 0; i < n; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(tree, i);
		const char *name = git_tree_entry_name(e);
		if (git_tree_entry_type(e) != GIT_OBJECT_BLOB) {
			if ((rc = st_problem_add(l, "%s version %u: %s is not a file", what, version, name)) < 0)
				goto out;
			continue;
		}
		if (!file_name_ok(name) && (rc = st_problem_add(l, "%s version %u: bad file name", what, version)) < 0)
			goto out;
		if (!git_odb_exists(odb, git_tree_entry_id(e)) &&
		    (rc = st_problem_add(l, "%s version %u: file %s missing", what, version, name)) < 0)
			goto out;
		manifest |= !strcmp(name, "tool.json");
		source |= !strcmp(name, "tool.c");
	}
	rc = 0;
	if (!manifest)
		rc = st_problem_add(l, "%s version %u: no tool.json", what, version);
	if (rc == 0 && !source)
		rc = st_problem_add(l, "%s version %u: no tool.c", what, version);
out:
	git_tree_free(tree);
	(void)s;
	return rc;
}

int st_check_chain(tg_store_problem_list *l, tg_store *s, const char *what, const char *tool,
		   const git_oid *tip)
{
	git_odb *odb = NULL;
	git_commit *c = NULL, *parent = NULL;
	unsigned expected = 0, v;
	int rc, first = 1;
	char hex[GIT_OID_HEXSZ + 1];

	(void)tool;
	if ((rc = git_repository_odb(&odb, s->repo)) < 0)
		return st_git_fail(rc, "object database");
	git_oid_tostr(hex, sizeof(hex), tip);
	if (git_commit_lookup(&c, s->repo, tip) < 0) {
		rc = st_problem_add(l, "%s: points at %s, which is not an existing commit", what, hex);
		goto out;
	}
	for (;;) {
		unsigned np = git_commit_parentcount(c);
		git_oid_tostr(hex, sizeof(hex), git_commit_id(c));
		if (st_commit_version(&v, c) < 0) {
			rc = st_problem_add(l, "%s: commit %s has no valid Toolgate-Version trailer", what, hex);
			goto out;
		}
		if (first) {
			expected = v;
			first = 0;
		}
		if (v != expected) {
			rc = st_problem_add(l, "%s: commit %s is version %u where version %u belongs", what, hex,
					    v, expected);
			goto out;
		}
		if ((rc = check_tree(l, s, odb, what, v, c)) < 0)
			goto out;
		if (np > 1 && (rc = st_problem_add(l, "%s version %u: a merge commit (%s)", what, v, hex)) < 0)
			goto out;
		if (np == 0) {
			rc = v == 1 ? 0 : st_problem_add(l, "%s: history ends at version %u (%s)", what, v, hex);
			goto out;
		}
		if (v == 1) {
			rc = st_problem_add(l, "%s: version 1 (%s) has a parent", what, hex);
			goto out;
		}
		if (git_commit_parent(&parent, c, 0) < 0) {
			rc = st_problem_add(l, "%s version %u: parent %s missing", what, v,
					    git_oid_tostr_s(git_commit_parent_id(c, 0)));
			goto out;
		}
		git_commit_free(c);
		c = parent;
		parent = NULL;
		expected--;
	}
out:
	git_commit_free(c);
	git_odb_free(odb);
	return rc;
}

int st_chain_contains(tg_store *s, const git_oid *tip, const git_oid *id)
{
	git_commit *t = NULL, *c = NULL, *a = NULL;
	unsigned tv, cv;
	int rc = 0;

	if (git_commit_lookup(&t, s->repo, tip) < 0 || git_commit_lookup(&c, s->repo, id) < 0)
		goto out;
	if (st_commit_version(&tv, t) < 0 || st_commit_version(&cv, c) < 0 || cv > tv)
		goto out;
	if (git_commit_nth_gen_ancestor(&a, t, tv - cv) < 0)
		goto out;
	rc = git_oid_equal(git_commit_id(a), id);
out:
	git_commit_free(a);
	git_commit_free(c);
	git_commit_free(t);
	return rc;
}

/* One ref, named name, resolving to id (NULL: it does not resolve). */
static int check_ref(tg_store_problem_list *l, tg_store *s, const char *name, const git_oid *id)
{
	git_object *obj = NULL;
	int rc = 0;

	if (!id)
		return st_problem_add(l, "ref %s: does not resolve", name);
	if (git_object_lookup(&obj, s->repo, id, GIT_OBJECT_ANY) < 0) {
		rc = st_problem_add(l, "ref %s: points at missing object %s", name, git_oid_tostr_s(id));
		goto out;
	}
	if (!strncmp(name, ST_TOOLS_PREFIX, strlen(ST_TOOLS_PREFIX))) {
		const char *tool = name + strlen(ST_TOOLS_PREFIX);
		if (!tg_name_valid(tool))
			rc = st_problem_add(l, "ref %s: not a valid tool name", name);
		else
			rc = st_check_chain(l, s, name, tool, id);
	} else if (!strncmp(name, ST_ACTIVE_PREFIX, strlen(ST_ACTIVE_PREFIX))) {
		const char *tool = name + strlen(ST_ACTIVE_PREFIX);
		char tref[128];
		git_oid tip;
		if (!tg_name_valid(tool)) {
			rc = st_problem_add(l, "ref %s: not a valid tool name", name);
			goto out;
		}
		st_ref_name(tref, sizeof(tref), ST_TOOLS_PREFIX, tool);
		if (st_ref_id(&tip, s, tref) < 0)
			rc = st_problem_add(l, "ref %s: tool %s has no history", name, tool);
		else if (st_chain_contains(s, &tip, id) != 1)
			rc = st_problem_add(l, "ref %s: %s is not a version of %s", name, git_oid_tostr_s(id),
					    tool);
	}
out:
	git_object_free(obj);
	return rc;
}

static int check_git_ref(tg_store_problem_list *l, tg_store *s, git_reference *ref)
{
	git_reference *res = NULL;
	int rc;

	rc = check_ref(l, s, git_reference_name(ref),
		       git_reference_resolve(&res, ref) < 0 ? NULL : git_reference_target(res));
	git_reference_free(res);
	return rc;
}

int tg_store_verify(tg_store_problem_list **out, tg_store *s)
{
	tg_store_problem_list *l;
	git_reference_iterator *it = NULL;
	git_reference *ref;
	int rc;

	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (s->snap) {
		/* the refs as the snapshot read them (one pass, already made) */
		rc = st_snapshot_each(s, check_ref, l);
		goto done;
	}
	if ((rc = git_reference_iterator_new(&it, s->repo)) < 0) {
		tg_store_problem_list_free(l);
		return st_git_fail(rc, "list refs");
	}
	for (;;) {
		int grc = git_reference_next(&ref, it);
		if (grc == GIT_ITEROVER) {
			rc = 0;
			break;
		}
		if (grc < 0) {
			/* a ref file that cannot be parsed ends the listing */
			const git_error *e = git_error_last();
			rc = st_problem_add(l, "refs: unreadable: %s", e && e->message ? e->message : "?");
			break;
		}
		rc = check_git_ref(l, s, ref);
		git_reference_free(ref);
		if (rc < 0)
			break;
	}
	git_reference_iterator_free(it);
done:
	if (rc < 0) {
		tg_store_problem_list_free(l);
		return rc;
	}
	*out = l;
	if (l->n)
		return tg_error_set(TG_ERR_INTERNAL, "store %s: %zu problem(s), first: %s", s->path, l->n,
				    l->items[0]);
	return 0;
}
