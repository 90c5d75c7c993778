/*
 * registry/db/txn.c: transactions. BEGIN IMMEDIATE, COMMIT with or without
 * the shared durability barrier (commit.c), ROLLBACK. What the layers above
 * keep pending for a transaction (review notes, the audit anchor, an
 * activation to undo) is theirs: txn.c calls the handle's reg_txn_hooks at
 * each edge, which registry.c registers at open, and never calls up.
 */
#include "registry/db/db.h"

int reg_begin(tg_registry *r)
{
	int rc = reg_exec_cached(r, "BEGIN IMMEDIATE");
	if (rc < 0)
		return rc;
	r->in_txn = 1;
	r->audit_seq_pending = 0;
	r->undo_pending = 0;
	if (r->txn_hooks && r->txn_hooks->begun)
		r->txn_hooks->begun(r);
	return 0;
}

void reg_rollback(tg_registry *r)
{
	if (!r->in_txn)
		return;
	sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
	r->in_txn = 0;
	r->audit_seq_pending = 0;
	if (r->txn_hooks && r->txn_hooks->rolled_back)
		r->txn_hooks->rolled_back(r);
	r->undo_pending = 0;
}

/* durable: 0 no barrier, 1 barrier (and checkpoint on close), 2 barrier
 * (a call's log: no checkpoint on close), 3 a call's deferred intent (no
 * barrier: its outcome's passes it, calllog.c). A commit whose barrier fails is
 * in the WAL but not known to be durable: the caller gets the error and
 * acts on nothing (fail closed), and the anchor is not advanced. */
static int commit_ex(tg_registry *r, int durable)
{
	int rc = reg_exec_cached(r, "COMMIT");
	if (rc < 0) {
		reg_rollback(r);
		return rc;
	}
	r->in_txn = 0;
	r->undo_pending = 0;
	if (durable == 1)
		r->durable_writes = 1;
	if (durable >= 2)
		tg_prof_mark(r->in_call_intent ? TG_PROF_INTENT_COMMIT : TG_PROF_OUTCOME_COMMIT);
	if (durable == 3)
		durable = 0;
	if (durable && (rc = reg_sync_durable(r)) < 0) {
		r->audit_seq_pending = 0;
		return rc;
	}
	if (durable >= 2)
		tg_prof_mark(r->in_call_intent ? TG_PROF_INTENT_SYNC : TG_PROF_OUTCOME_SYNC);
	if (durable) {
		reg_commit_durable_done(r);
		return 0;
	}
	r->audit_seq_pending = 0;
	if (r->txn_hooks && r->txn_hooks->committed)
		r->txn_hooks->committed(r, 0); /* after the commit: a record of what happened */
	return 0;
}

void reg_commit_durable_done(tg_registry *r)
{
	/* the hook advances the audit anchor to audit_seq_pending and writes
	 * the queued review notes: a record of what happened */
	if (r->txn_hooks && r->txn_hooks->committed)
		r->txn_hooks->committed(r, 1);
	r->audit_seq_pending = 0;
}

int reg_commit(tg_registry *r)
{
	return commit_ex(r, 1);
}

int reg_commit_call(tg_registry *r)
{
	return commit_ex(r, 2);
}

int reg_commit_intent(tg_registry *r, int deferred)
{
	return commit_ex(r, deferred ? 3 : 2);
}

int reg_commit_nosync(tg_registry *r)
{
	return commit_ex(r, 0);
}

