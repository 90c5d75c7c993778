/*
 * registry/record/review_note.c: what people did to a version, written where plain
 * git sees it. Every approval, denial, activation, rollback and removal
 * queues one line for the version commit's note under
 * refs/notes/toolgate-review (store/notes.c appends it, never rewrites):
 *
 *   approved by cli at 2026-12-03T08:40:00Z: capabilities ["workspace:read"], content hash 3f2a...
 *
 * The lines are written after the SQLite transaction commits (a rolled-back
 * act leaves no line) and best effort, like the audit anchor: the audit log
 * in registry.db stays the record the registry trusts, and nothing here is
 * read back (a pull reads only the signed decision lines of other hosts'
 * notes, decision.c, and checks each). A line holds printable ASCII only (actor names and a denial's
 * reason are cleaned: any other byte becomes '?'), so a note is one line
 * per act whatever a client sent.
 */
#include "registry/record/record.h"

#include <string.h>
#include <time.h>

#define REG_REVIEW_LINE_MAX 1000

void reg_line_clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
}

int reg_version_binding(sqlite3_stmt **st, tg_registry *r, const char *tool, unsigned v,
			const char **commit, const char **caps, const char **hash)
{
	int rc;

	rc = reg_prepare(r, st, "SELECT v.commit_id, v.capabilities, v.content_hash FROM versions v "
				"JOIN tools t ON t.id = v.tool_id WHERE t.name = ?1 AND v.version = ?2");
	if (rc < 0)
		return rc;
	sqlite3_bind_text(*st, 1, tool, -1, SQLITE_STATIC);
	sqlite3_bind_int64(*st, 2, v);
	rc = reg_step(*st);
	if (rc == SQLITE_DONE)
		return tg_error_set(TG_ERR_NOTFOUND, "%s has no version %u", tool, v);
	if (rc != SQLITE_ROW)
		return reg_sqlerr(r, rc, "read version");
	*commit = (const char *)sqlite3_column_text(*st, 0);
	*caps = (const char *)sqlite3_column_text(*st, 1);
	*hash = (const char *)sqlite3_column_text(*st, 2);
	return 0;
}

int reg_review_note(tg_registry *r, const char *tool, unsigned v, const char *what,
		    const tg_actor *who, const char *detail)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_free_ char *actor = reg_actor_string(who);
	char line[REG_REVIEW_LINE_MAX + 1], when[32];
	const char *commit, *caps, *hash;
	time_t now = (time_t)tg_time_now();
	struct tm tm;
	int rc;

	if (!actor)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_version_binding(&st, r, tool, v, &commit, &caps, &hash)) < 0)
		return rc;
	if (!commit || strlen(commit) != 40)
		return 0; /* no commit to note on */
	if (!gmtime_r(&now, &tm) || !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(when, sizeof(when), "%lld", (long long)now);
	snprintf(line, sizeof(line), "%s by %.160s at %s%.300s: capabilities %.300s, content hash %.64s",
		 what, actor, when, detail ? detail : "", caps ? caps : "[]", hash ? hash : "");
	reg_line_clean(line);
	return reg_review_line(r, commit, line);
}

int reg_review_line(tg_registry *r, const char *commit, const char *line)
{
	json_t *item;

	if (!r->in_txn) {
		tg_store *s;
		if (reg_store(r, &s) < 0 || tg_store_review_note(s, commit, line) < 0)
			tg_error_clear(); /* best effort, as after a commit */
		return 0;
	}
	if (!r->review_pending && !(r->review_pending = json_array()))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	item = json_pack("[s, s]", commit, line);
	if (!item || json_array_append_new(r->review_pending, item) < 0)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return 0;
}

void reg_review_flush(tg_registry *r)
{
	tg_error saved = *tg_error_last();
	json_t *item;
	tg_store *s;
	size_t i;

	if (!r->review_pending)
		return;
	if (reg_store(r, &s) == 0) {
		json_array_foreach(r->review_pending, i, item) {
			if (tg_store_review_note(s, json_string_value(json_array_get(item, 0)),
						 json_string_value(json_array_get(item, 1))) < 0)
				break; /* the store is unwritable: the rest would fail too */
		}
	}
	reg_review_drop(r);
	if (saved.code)
		tg_error_set(saved.code, "%s", saved.message);
	else
		tg_error_clear();
}

void reg_review_drop(tg_registry *r)
{
	json_decref(r->review_pending);
	r->review_pending = NULL;
}

char *tg_registry_scrub(const char *s)
{
	return tg_term_scrub(s, s ? strlen(s) : 0, TG_TERM_BLOCK);
}
