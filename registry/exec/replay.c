/*
 * registry/exec/replay.c: the journaled replay of a run's bridged calls
 * (docs/BRIDGE.md, "Replay after input_required"; docs/MCP.md). In the
 * 2026-07-28 era a call that needs a person ends the run with
 * input_required, and the client's retry runs the program again from its
 * start. So that the calls that ran before the approval point do not run
 * twice, the run keeps a journal: each bridged call, at any depth, gets an
 * index in the order it starts (after the checks that refuse it without
 * running: cap, declaration, deadline, cycle, depth), and once it is
 * answered its entry {i, span (1 + the indexes of the calls its callee
 * made meanwhile, skipped when it is replayed), callee, callee_version (a
 * host tool's config digest, a registered tool's active commit),
 * args_sha256 (canonical),
 * outcome, reply (the frame the program got, without its id)} is recorded,
 * until a call asks with input_required (what follows is the cut-short
 * run's, not the program's). At most the root run's max_tool_calls entries
 * and REG_REPLAY_MAX_BYTES of them: past either the journal is dropped and
 * a call that needs a person waits on the queue instead of another round.
 * request_state.c stores the journal as a replay_journals row keyed by the
 * new state's id, its digest sealed in the state. On the retry the redeemed
 * journal answers the calls whose index has an entry that matches exactly
 * (callee, version, args digest): nothing runs, the audit says "replayed".
 * The first entry that does not match (a program that is not
 * deterministic) ends replay mode: from there every call runs for real and
 * is governed as usual ("bridge_replay_diverged" in the audit).
 *
 * The tape (reg_tape_*) is the same kind of entry kept for a recorded call
 * (record/samples.c): the root run's direct calls {callee, args_sha256,
 * outcome, reply}, at most max_bytes of them (past it the call is not
 * sampled). A shadow run (create/shadow.c) plays it back: a call is
 * answered by the first entry not yet used with the same callee and
 * arguments, so the recorded calls answer in their order; a call the tape
 * does not hold is answered "unexpected". Nothing runs either way.
 */

#include <string.h>
#include "registry/exec/exec.h"

/* a call's span: itself and the calls of its callee, at any depth */
#define REG_REPLAY_MAX_SPAN 1024

struct reg_replay {
	const json_t *journal; /* the redeemed state's (borrowed from the hooks) */
	int64_t next;          /* the index of the next call that starts */
	int live;              /* replay mode: the journal still answers */
	int recording;         /* the hooks want this run's journal */
	int stopped;           /* a call asked with input_required */
	int overflow;          /* past the caps: nothing kept, no round */
	json_t *recorded;
	size_t bytes;
};

void reg_replay_free(tg_registry *r)
{
	if (!r->replay)
		return;
	json_decref(r->replay->recorded);
	free(r->replay);
	r->replay = NULL;
}

void reg_replay_begin(tg_registry *r, const tg_call_hooks *h)
{
	reg_replay *p;

	reg_replay_free(r);
	if (!h || (!json_is_array(h->replay) && !h->journaled))
		return;
	p = calloc(1, sizeof(*p));
	if (!p)
		return; /* no replay: the calls run for real, as without it */
	p->journal = json_is_array(h->replay) ? h->replay : NULL;
	p->live = p->journal && json_array_size(p->journal) > 0;
	p->recording = h->journaled != NULL;
	if (p->recording && !(p->recorded = json_array()))
		p->overflow = 1;
	r->replay = p;
}

void reg_replay_end(tg_registry *r)
{
	const tg_call_hooks *h = r->hooks;
	reg_replay *p = r->replay;

	if (p && p->recording && h && h->journaled) {
		json_t *j = p->overflow ? NULL : p->recorded;
		p->recorded = NULL;
		h->journaled(h->ctx, j);
	}
	reg_replay_free(r);
}

int64_t reg_replay_next(tg_registry *r)
{
	if (!r->replay)
		return -1;
	return r->replay->next++;
}

int reg_replay_may_ask(const tg_registry *r)
{
	return !r->replay || !r->replay->recording || !r->replay->overflow;
}

void reg_replay_asked(tg_registry *r, const char *why)
{
	if (r->replay && why && strcmp(why, "input_required") == 0)
		r->replay->stopped = 1;
}

void reg_replay_args_digest(char out[65], const json_t *args)
{
	(void)tg_json_digest(out, NULL, NULL, args);
}

int reg_replay_callee_version(char out[65], tg_registry *r, const char *tool)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc;

	out[0] = '\0';
	if (strncmp(tool, "host:", 5) == 0)
		return reg_host_version(out, &r->cfg, tool + 5);
	rc = reg_prepare(r, &st, "SELECT v.commit_id FROM tools t JOIN versions v ON v.tool_id = "
				 "t.id AND v.version = t.active_version WHERE t.name = ?1");
	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, tool);
	rc = reg_step(st);
	if (rc == SQLITE_ROW)
		snprintf(out, 65, "%.64s", (const char *)sqlite3_column_text(st, 0));
	else if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "find a callee's version");
	return 0;
}

static const json_t *entry_at(const json_t *journal, int64_t idx)
{
	const json_t *e;
	size_t i;

	json_array_foreach(journal, i, e) {
		if (json_integer_value(json_object_get(e, "i")) == idx)
			return e;
	}
	return NULL;
}

static int same(const json_t *e, const char *key, const char *v)
{
	const char *x = json_string_value(json_object_get(e, key));
	return x && strcmp(x, v) == 0;
}

static void audit_replay(reg_bridge *b, const char *event, json_t *d /* stolen */)
{
	if (!d)
		return;
	json_object_set_new(d, "caller", json_string(b->caller));
	json_object_set_new(d, "attempt", json_integer((json_int_t)b->attempts));
	json_object_set_new(d, "depth", json_integer((json_int_t)b->depth));
	if (b->run_id)
		json_object_set_new(d, "run", json_integer(b->run_id));
	(void)reg_audit_nosync(b->r, b->who, event, b->name[0] ? b->name : NULL, d);
	json_decref(d);
	tg_error_clear();
}

json_t *reg_replay_answer(reg_bridge *b, int64_t idx, const char *tool, const char *ver,
			  const char *digest, json_int_t id)
{
	reg_replay *p = b->r->replay;
	const json_t *e;
	json_t *reply;
	json_int_t span;

	if (!p || !p->live || idx < 0 || !(e = entry_at(p->journal, idx)))
		return NULL;
	if (!same(e, "callee", tool) || !same(e, "callee_version", ver) ||
	    !same(e, "args_sha256", digest)) {
		/* not the program that ran before: every call runs from here */
		p->live = 0;
		audit_replay(b, "bridge_replay_diverged",
			     json_pack("{s:I, s:{s:O?, s:O?, s:O?}, s:{s:s, s:s, s:s}}", "index",
				       (json_int_t)idx, "journal", "callee",
				       json_object_get(e, "callee"), "callee_version",
				       json_object_get(e, "callee_version"), "args_sha256",
				       json_object_get(e, "args_sha256"), "call", "callee", tool,
				       "callee_version", ver, "args_sha256", digest));
		return NULL;
	}
	reply = json_deep_copy(json_object_get(e, "reply"));
	if (!reply || json_object_set_new(reply, "id", json_integer(id)) < 0) {
		json_decref(reply);
		return NULL;
	}
	/* the calls the callee itself made (a registered tool's bridged
	 * calls) are not made now: the next call's index is past them */
	span = json_integer_value(json_object_get(e, "span"));
	if (span > 1 && span <= REG_REPLAY_MAX_SPAN)
		p->next = idx + span;
	if (json_object_get(reply, "result"))
		b->ok++;
	audit_replay(b, "bridge_call",
		     json_pack("{s:s, s:s, s:s, s:s, s:O?, s:I, s:i}", "callee", tool,
			       "callee_version", ver, "args_sha256", digest, "outcome", "replayed",
			       "replayed_outcome", json_object_get(e, "outcome"), "journal_index",
			       (json_int_t)idx, "wall_ms", 0));
	return reply;
}

void reg_replay_record(reg_bridge *b, int64_t idx, const char *tool, const char *ver,
		       const char *digest, const json_t *reply, const char *outcome)
{
	reg_replay *p = b->r->replay;
	const reg_bridge *root = b;
	_cleanup_free_ char *text = NULL;
	json_t *e, *rep;

	if (!p || !p->recording || p->stopped || p->overflow || idx < 0 || !reply)
		return;
	while (root->parent)
		root = root->parent;
	rep = json_deep_copy(reply);
	if (rep)
		json_object_del(rep, "id");
	/* span: this call's index and those of the calls its callee made */
	e = json_pack("{s:I, s:I, s:s, s:s, s:s, s:I, s:s, s:o?}", "i", (json_int_t)idx, "span",
		      (json_int_t)(p->next - idx), "callee", tool, "callee_version", ver,
		      "args_sha256", digest, "depth", (json_int_t)b->depth, "outcome",
		      outcome ? outcome : "ok", "reply", rep);
	text = e ? tg_json_dump(e) : NULL;
	if (!text || json_array_size(p->recorded) + 1 > root->max_calls ||
	    p->bytes + strlen(text) + 1 > REG_REPLAY_MAX_BYTES) {
		json_decref(e);
		goto overflow;
	}
	if (json_array_append_new(p->recorded, e) < 0) /* e is freed */
		goto overflow;
	p->bytes += strlen(text) + 1;
	return;
overflow:
	p->overflow = 1;
	json_decref(p->recorded);
	p->recorded = NULL;
}

/* ---- the tape of a recorded call ------------------------------------------- */

void reg_tape_record(reg_tape *t, const char *tool, const json_t *args, const json_t *reply,
		     const char *outcome)
{
	_cleanup_free_ char *text = NULL;
	char digest[65];
	json_t *e, *rep;

	if (!t || !t->rec || t->over || !reply)
		return;
	reg_replay_args_digest(digest, args ? args : json_null());
	rep = json_deep_copy(reply);
	if (rep)
		json_object_del(rep, "id");
	e = json_pack("{s:s, s:s, s:s, s:o?}", "callee", tool, "args_sha256", digest, "outcome",
		      outcome ? outcome : "ok", "reply", rep);
	text = e ? tg_json_dump(e) : NULL;
	if (!text || t->bytes + strlen(text) + 1 > t->max_bytes) {
		json_decref(e);
		t->over = 1;
		return;
	}
	if (json_array_append_new(t->rec, e) < 0) { /* e is freed */
		t->over = 1;
		return;
	}
	t->bytes += strlen(text) + 1;
}

json_t *reg_tape_answer(reg_tape *t, json_int_t id, const char *tool, const json_t *args)
{
	char digest[65], m[200];
	const json_t *e;
	json_t *reply;
	size_t i;

	reg_replay_args_digest(digest, args ? args : json_null());
	json_array_foreach(t->play, i, e) {
		if (t->used[i] || !same(e, "callee", tool) || !same(e, "args_sha256", digest))
			continue;
		t->used[i] = 1;
		reply = json_deep_copy(json_object_get(e, "reply"));
		if (reply && json_object_set_new(reply, "id", json_integer(id)) == 0)
			return reply;
		json_decref(reply);
		return NULL;
	}
	if (!t->unexpected++)
		snprintf(t->first_unexpected, sizeof(t->first_unexpected), "%s", tool);
	snprintf(m, sizeof(m), "%.80s was called with arguments the recorded call does not hold "
			       "(a shadow run answers only from the recording)", tool);
	return json_pack("{s:I, s:{s:s, s:s}}", "id", id, "error", "code", "unexpected", "message",
			 m);
}

/* ---- the stored journal (request_state.c) ---------------------------------- */

int reg_journal_sweep(tg_registry *r)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "DELETE FROM replay_journals WHERE expires_at < ?1");

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)tg_wall_ms());
	rc = reg_step(st);
	return rc == SQLITE_DONE ? 0 : reg_sqlerr(r, rc, "forget expired replay journals");
}

int reg_journal_store(tg_registry *r, const char *sid, const char *principal, int64_t exp,
		      const json_t *entries, char digest[65])
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_free_ char *text = json_dumps(entries, JSON_COMPACT | JSON_SORT_KEYS);
	int rc;

	if (!text)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (strlen(text) > REG_REPLAY_MAX_BYTES)
		return tg_error_set(TG_ERR_LIMIT, "request state: the journal is over 1 MiB");
	tg_sha256_hex(digest, text, strlen(text));
	if ((rc = reg_begin(r)) < 0)
		return rc;
	if ((rc = reg_journal_sweep(r)) < 0)
		goto fail;
	rc = reg_prepare(r, &st, "INSERT INTO replay_journals(sid, principal, entries, "
				 "created_at, expires_at) VALUES(?1, ?2, ?3, ?4, ?5)");
	if (rc < 0)
		goto fail;
	reg_bind_text(st, 1, sid);
	reg_bind_text(st, 2, principal);
	reg_bind_text(st, 3, text);
	sqlite3_bind_int64(st, 4, tg_time_now());
	sqlite3_bind_int64(st, 5, exp);
	if ((rc = reg_step(st)) != SQLITE_DONE) {
		rc = reg_sqlerr(r, rc, "store a replay journal");
		goto fail;
	}
	return reg_commit(r);
fail:
	reg_rollback(r);
	return rc;
}

int reg_journal_take(tg_registry *r, const char *sid, const char *digest, json_t **out)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL, *del = NULL;
	const char *text;
	char got[65];
	int rc;

	*out = NULL;
	rc = reg_prepare(r, &st, "SELECT entries FROM replay_journals WHERE sid = ?1");
	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, sid);
	rc = reg_step(st);
	if (rc == SQLITE_DONE)
		return tg_error_set(TG_ERR_DENIED, "journal missing (its row expired or was "
						   "removed)");
	if (rc != SQLITE_ROW)
		return reg_sqlerr(r, rc, "read a replay journal");
	text = (const char *)sqlite3_column_text(st, 0);
	tg_sha256_hex(got, text ? text : "", text ? strlen(text) : 0);
	if (strcmp(got, digest) != 0)
		return tg_error_set(TG_ERR_DENIED, "journal altered (its digest does not match "
						   "the one sealed in the state)");
	*out = json_loads(text, 0, NULL);
	if (!json_is_array(*out)) {
		json_decref(*out);
		*out = NULL;
		return tg_error_set(TG_ERR_INTERNAL, "replay journal: not an array");
	}
	rc = reg_prepare(r, &del, "DELETE FROM replay_journals WHERE sid = ?1");
	if (rc < 0) {
		json_decref(*out);
		*out = NULL;
		return rc;
	}
	reg_bind_text(del, 1, sid);
	rc = reg_step(del);
	if (rc == SQLITE_DONE)
		return 0;
	json_decref(*out);
	*out = NULL;
	return reg_sqlerr(r, rc, "delete a replay journal");
}
