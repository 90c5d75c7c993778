/*
 * registry/record/calls_audit.c: verify's cross-check of the call log
 * against the audit chain. calllog.c writes every call's `calls` row in the
 * same transaction as its audit entry naming it (`call` for an intent,
 * `call_result` for an outcome, details {"call": id, "version": v}, the
 * entry's tool the row's tool). The chain protects the entries, not the
 * rows: a `calls` table emptied or edited with sqlite3 passed verify. Here
 * every such entry must have its row (same id, tool and version) and every
 * row an entry. Entries moved to archive files are not in the table: when
 * the log was archived, rows older than the first call the table still
 * names are not checked (the archive keeps their entries). At most
 * CALLS_AUDIT_LINES lines of each kind, then a count.
 */
#include "registry/record/record.h"

#define CALLS_AUDIT_LINES 5

static const char entries_without_row[] =
	"SELECT a.seq, CAST(json_extract(a.details, '$.call') AS INTEGER), a.tool, "
	"json_extract(a.details, '$.version') FROM audit a "
	"WHERE a.event IN ('call', 'call_result') AND json_valid(a.details) "
	"AND json_type(a.details, '$.call') = 'integer' AND NOT EXISTS (SELECT 1 FROM calls c "
	"WHERE c.id = json_extract(a.details, '$.call') AND c.tool IS a.tool "
	"AND c.version IS json_extract(a.details, '$.version')) ORDER BY a.seq";

static const char rows_without_entry[] =
	"WITH e(id) AS MATERIALIZED (SELECT DISTINCT json_extract(details, '$.call') FROM audit "
	"WHERE event IN ('call', 'call_result') AND json_valid(details)) "
	"SELECT c.id, c.tool, c.version FROM calls c WHERE c.id >= ?1 "
	"AND NOT EXISTS (SELECT 1 FROM e WHERE e.id = c.id) ORDER BY c.id";

/* The first call id whose row must have an entry in the table: 0 without
 * an archive, else the lowest call the table's entries name. */
static int first_checked_row(tg_registry *r, int64_t *lo)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int64_t archived = 0;
	int rc;

	*lo = 0;
	if ((rc = reg_meta_get_int(r, "audit_archived_through", &archived)) < 0)
		return rc;
	if (archived <= 0)
		return 0;
	rc = reg_prepare(r, &st, "SELECT coalesce(min(CAST(json_extract(details, '$.call') AS "
				 "INTEGER)), (SELECT coalesce(max(id), 0) + 1 FROM calls)) FROM audit "
				 "WHERE event IN ('call', 'call_result') AND json_valid(details) "
				 "AND json_type(details, '$.call') = 'integer'");
	if (rc < 0)
		return rc;
	if ((rc = reg_step(st)) != SQLITE_ROW)
		return reg_sqlerr(r, rc, "read the audit log's calls");
	*lo = sqlite3_column_int64(st, 0);
	return 0;
}

int reg_calls_cross_check(tg_registry *r, json_t *problems)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int64_t lo = 0, n = 0;
	int rc;

	rc = reg_prepare(r, &st, entries_without_row);
	if (rc < 0)
		return rc;
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		if (++n <= CALLS_AUDIT_LINES)
			reg_add_line(problems, "calls: audit entry %lld names call %lld (%s v%lld) but "
					       "the calls table has no such row (deleted or "
					       "changed outside toolgate)",
				     (long long)sqlite3_column_int64(st, 0),
				     (long long)sqlite3_column_int64(st, 1),
				     (const char *)sqlite3_column_text(st, 2) ?: "-",
				     (long long)sqlite3_column_int64(st, 3));
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "cross-check calls");
	if (n > CALLS_AUDIT_LINES)
		reg_add_line(problems, "calls: %lld audit entries name a call with no row in all",
			     (long long)n);
	reg_finalizep(&st);
	st = NULL;
	if ((rc = first_checked_row(r, &lo)) < 0)
		return rc;
	if ((rc = reg_prepare(r, &st, rows_without_entry)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, lo);
	n = 0;
	while ((rc = reg_step(st)) == SQLITE_ROW) {
		if (++n <= CALLS_AUDIT_LINES)
			reg_add_line(problems, "calls: call %lld (%s v%lld) has no entry in the audit "
					       "log (added outside toolgate)",
				     (long long)sqlite3_column_int64(st, 0),
				     (const char *)sqlite3_column_text(st, 1) ?: "-",
				     (long long)sqlite3_column_int64(st, 2));
	}
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "cross-check calls");
	if (n > CALLS_AUDIT_LINES)
		reg_add_line(problems, "calls: %lld calls have no entry in the audit log in all",
			     (long long)n);
	return 0;
}
