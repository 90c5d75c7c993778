/*
 * store/notes.c: git notes on version commits, written the way every other
 * ref of the store is: the notes commit is built on the notes ref's tip as
 * read, and the ref moves by compare-and-swap (st_ref_cas) against that
 * tip, retried on a lost race, so two writers never drop each other's
 * note (git_note_create forces the ref, which could).
 *
 * Two notes refs:
 * - refs/notes/toolgate-local: this host's own verdict on a pulled version
 *   (registry/pull.c), one JSON document, replaced as a whole; never pushed
 *   or fetched.
 * - refs/notes/toolgate-review: what people did to a version (approved,
 *   denied, activated, rolled back to, removed), one line per act, each
 *   appended to the note's text, never rewritten (the notes ref's own
 *   history keeps every state). A record for people reading the store with
 *   plain git (`git notes --ref=toolgate-review show COMMIT`); push carries
 *   it to the remote as refs/toolgate-review/<host id> (review_carry.c),
 *   and a pull reads back only its signed decision lines, each checked
 *   (registry/replica/decisions.c); nothing else in it is read back.
 */
#include "store_internal.h"

#include <string.h>


/* The text of the note on target at the notes commit tip (NULL tip or no
 * note: *out NULL). */
static int note_at(char **out, tg_store *s, git_commit *tip, const git_oid *target)
{
	git_note *n = NULL;
	int rc;

	*out = NULL;
	if (!tip)
		return 0;
	rc = git_note_commit_read(&n, s->repo, tip, target);
	if (rc == GIT_ENOTFOUND)
		return 0;
	if (rc < 0)
		return st_git_fail(rc, "read note of %.12s", git_oid_tostr_s(target));
	*out = strdup(git_note_message(n) ? git_note_message(n) : "");
	git_note_free(n);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}

/* The note's new text: text alone, or the old text + text as one more line. */
static char *compose(const char *old, const char *text, int append)
{
	size_t n = old ? strlen(old) : 0;
	char *out = NULL;

	if (append && n + strlen(text) + 2 > ST_MAX_REVIEW_NOTE) {
		tg_error_set(TG_ERR_LIMIT, "the note is over %u bytes", ST_MAX_REVIEW_NOTE);
		return NULL;
	}
	if (!append)
		out = strdup(text);
	else if (asprintf(&out, "%s%s%s\n", n ? old : "", n && old[n - 1] != '\n' ? "\n" : "",
			  text) < 0)
		out = NULL;
	if (!out)
		tg_error_set(TG_ERR_NOMEM, "out of memory");
	return out;
}

/* Set (append=0) or extend (append=1) the note on commit under notes_ref. */
static int note_write(tg_store *s, const char *notes_ref, const char *commit, const char *text,
		      int append)
{
	git_signature *sig = NULL;
	git_oid target, tip, made;
	uint64_t start = tg_now_ms();
	unsigned attempt;
	int rc;

	if (git_oid_fromstr(&target, commit) < 0)
		return tg_error_set(TG_ERR_INVALID, "not a commit id: %.64s", commit);
	{
		git_commit *c = NULL;
		if ((rc = git_commit_lookup(&c, s->repo, &target)) < 0)
			return st_git_fail(rc, "note on %.12s: no such commit", commit);
		git_commit_free(c);
	}
	if ((rc = git_signature_now(&sig, "toolgate", "toolgate@localhost")) < 0)
		return st_git_fail(rc, "signature");
	for (attempt = 0;; attempt++) {
		git_commit *tipc = NULL;
		_cleanup_free_ char *old = NULL, *next = NULL;
		int have_tip;

		rc = git_reference_name_to_id(&tip, s->repo, notes_ref);
		have_tip = rc == 0;
		if (rc < 0 && rc != GIT_ENOTFOUND) {
			rc = st_git_fail(rc, "read %s", notes_ref);
			break;
		}
		if (have_tip && (rc = git_commit_lookup(&tipc, s->repo, &tip)) < 0) {
			rc = st_git_fail(rc, "read %s", notes_ref);
			break;
		}
		rc = append ? note_at(&old, s, tipc, &target) : 0;
		if (rc == 0 && !(next = compose(old, text, append)))
			rc = tg_error_last()->code ? tg_error_last()->code : TG_ERR_NOMEM;
		if (rc < 0) {
			git_commit_free(tipc);
			break;
		}
		rc = git_note_commit_create(&made, NULL, s->repo, tipc, sig, sig, &target, next, 1);
		git_commit_free(tipc);
		if (rc < 0) {
			rc = st_git_fail(rc, "note on %.12s", commit);
			break;
		}
		rc = st_ref_cas(s, notes_ref, &made, have_tip ? &tip : NULL, "toolgate: note");
		if (rc == 0)
			break;
		if ((rc != GIT_EMODIFIED && rc != GIT_ELOCKED && rc != GIT_EEXISTS) ||
		    !st_may_retry(attempt, start)) {
			rc = st_git_fail(rc, "note on %.12s: update %s", commit, notes_ref);
			break;
		}
		st_backoff(attempt);
	}
	git_signature_free(sig);
	return rc;
}

int tg_store_note_set(tg_store *s, const char *commit, const char *text)
{
	return note_write(s, ST_LOCAL_NOTES_REF, commit, text, 0);
}

int tg_store_note_get(char **out, tg_store *s, const char *commit)
{
	git_note *n = NULL;
	git_oid id;
	int rc;

	*out = NULL;
	if (git_oid_fromstr(&id, commit) < 0)
		return tg_error_set(TG_ERR_INVALID, "not a commit id: %.64s", commit);
	if (!st_snapshot_may_have_note(s, &id))
		return 0;
	rc = git_note_read(&n, s->repo, ST_LOCAL_NOTES_REF, &id);
	if (rc == GIT_ENOTFOUND)
		return 0;
	if (rc < 0)
		return st_git_fail(rc, "read note of %.12s", commit);
	*out = strdup(git_note_message(n) ? git_note_message(n) : "");
	git_note_free(n);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}

int tg_store_review_note(tg_store *s, const char *commit, const char *line)
{
	int rc;

	if ((rc = st_check_line("review note", line, ST_MAX_REVIEW_LINE, 0)) < 0 ||
	    strchr(line, '\t'))
		return rc < 0 ? rc : tg_error_set(TG_ERR_INVALID, "review note: must not contain tabs");
	return note_write(s, ST_REVIEW_NOTES_REF, commit, line, 1);
}
