/*
 * store/review_carry.c: review notes between hosts (docs/STORE.md, "Signed
 * decisions"). Push sends this host's refs/notes/toolgate-review as
 * refs/toolgate-review/<id> on the remote (remote.c builds the refspec from
 * the id set here; forced: only this host writes its own ref). A pull
 * takes the remote's refs/toolgate-review/<16 hex digits> (at most
 * TG_STORE_MAX_REVIEW_REFS, others refused by name), and in the bounded
 * fetch process (fetch.c) reads their notes: every note blob at most
 * ST_MAX_REVIEW_NOTE bytes (size from the object header, a larger one
 * skipped and reported), every line starting "signed decision: " of at most
 * ST_MAX_REVIEW_LINE printable bytes kept with the commit it is on, at most
 * TG_STORE_MAX_DECISIONS per pull. Nothing here checks a signature or
 * decides anything: the lines are claims for the registry
 * (registry/replica/decisions.c). Calls libgit2 only.
 */
#include "store_internal.h"

#include <string.h>

int tg_store_set_review_id(tg_store *s, const char *id)
{
	size_t n = id ? strlen(id) : 0;

	if (n && (n != 16 || strspn(id, "0123456789abcdef") != 16))
		return tg_error_set(TG_ERR_INVALID, "review id: 16 lowercase hex digits");
	snprintf(s->review_id, sizeof(s->review_id), "%s", n ? id : "");
	return 0;
}

int st_review_take_ref(tg_store_fetched *f, const char *name, const git_oid *id)
{
	const size_t lp = strlen(ST_REVIEW_REMOTE_PREFIX);
	const char *hid = name + lp;

	if (strncmp(name, ST_REVIEW_REMOTE_PREFIX, lp) != 0)
		return 0;
	if (strlen(hid) != 16 || strspn(hid, "0123456789abcdef") != 16)
		return st_problem_add(&f->refused, "ref %.200s: refused (a review ref is "
						   "refs/toolgate-review/<16 hex digits>)", name) < 0 ? -1 : 1;
	if (f->nreview >= TG_STORE_MAX_REVIEW_REFS)
		return st_problem_add(&f->refused, "ref %.200s: refused (more than %d review refs)", name,
				      TG_STORE_MAX_REVIEW_REFS) < 0 ? -1 : 1;
	snprintf(f->review[f->nreview].id, sizeof(f->review[0].id), "%s", hid);
	git_oid_tostr(f->review[f->nreview].adv, sizeof(f->review[0].adv), id);
	f->nreview++;
	return 1;
}

typedef struct review_read {
	tg_store_fetched *f;
	git_repository *repo;
	git_odb *odb;
	const char *from;
	int full;
	int rc;
} review_read;

static int add_line(review_read *rr, const git_oid *commit, const char *line, size_t len)
{
	tg_store_decision *nd;
	size_t i;

	if (len > ST_MAX_REVIEW_LINE || len <= strlen(TG_STORE_DECISION_PREFIX) ||
	    strncmp(line, TG_STORE_DECISION_PREFIX, strlen(TG_STORE_DECISION_PREFIX)) != 0)
		return 0;
	for (i = 0; i < len; i++)
		if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] > 0x7e)
			return 0;
	if (rr->f->ndecisions >= TG_STORE_MAX_DECISIONS) {
		rr->full = 1;
		return 0;
	}
	nd = realloc(rr->f->decisions, (rr->f->ndecisions + 1) * sizeof(*nd));
	if (!nd)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	rr->f->decisions = nd;
	nd = &nd[rr->f->ndecisions];
	if (!(nd->line = strndup(line, len)))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	git_oid_tostr(nd->commit, sizeof(nd->commit), commit);
	snprintf(nd->from, sizeof(nd->from), "%s", rr->from);
	rr->f->ndecisions++;
	return 0;
}

static int on_note(const git_oid *blob_id, const git_oid *annotated, void *payload)
{
	review_read *rr = payload;
	git_odb_object *obj = NULL;
	git_object_t type;
	const char *p, *end, *nl;
	size_t len = 0;
	int rc = 0;

	if (rr->full)
		return 1;
	if (git_odb_read_header(&len, &type, rr->odb, blob_id) < 0 || type != GIT_OBJECT_BLOB)
		return 0;
	if (len > ST_MAX_REVIEW_NOTE)
		return st_problem_add(&rr->f->refused, "review notes %.16s: the note on %.12s is %zu bytes, "
						       "over the cap of %u (not read)", rr->from,
				      git_oid_tostr_s(annotated), len, ST_MAX_REVIEW_NOTE) < 0 ? -1 : 0;
	if (git_odb_read(&obj, rr->odb, blob_id) < 0)
		return 0;
	p = git_odb_object_data(obj);
	end = p + git_odb_object_size(obj);
	for (; p < end && rc == 0; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		rc = add_line(rr, annotated, p, (size_t)(nl - p));
	}
	git_odb_object_free(obj);
	if (rc < 0) {
		rr->rc = rc;
		return -1;
	}
	return 0;
}

int st_review_read(tg_store_fetched *f, git_repository *repo, const char *prefix)
{
	review_read rr = { f, repo, NULL, NULL, 0, 0 };
	char ref[160];
	size_t i;
	int rc;

	if (!f->nreview)
		return 0;
	if ((rc = git_repository_odb(&rr.odb, repo)) < 0)
		return st_git_fail(rc, "object database");
	for (i = 0; i < f->nreview && !rr.full; i++) {
		snprintf(ref, sizeof(ref), "%s%s", prefix, f->review[i].id);
		rr.from = f->review[i].id;
		rc = git_note_foreach(repo, ref, on_note, &rr);
		if (rr.rc < 0) {
			rc = rr.rc;
			break;
		}
		if (rc < 0 && rc != GIT_EUSER && !rr.full)
			st_problem_add(&f->refused, "review notes %.16s: not readable (%s)", f->review[i].id,
				       git_error_last() ? git_error_last()->message : "libgit2");
		rc = 0;
	}
	git_odb_free(rr.odb);
	if (rc == 0 && rr.full)
		rc = st_problem_add(&f->refused, "review notes: more than %d signed decisions, the rest "
						 "not read", TG_STORE_MAX_DECISIONS);
	return rc < 0 ? rc : 0;
}
