#!/bin/sh
# tests/registry/calls_audit.sh TOOLGATE SQLEXEC: verify cross-checks the
# calls table against the audit log (registry/record/calls_audit.c): the
# calls emptied, one row's tool changed, or a row added with sqlite3 each
# make verify fail with the exact problem; after an archive the rows whose
# entries moved to the archive file are not reported.
. "$(dirname "$0")/lib.sh"

db=$HOME_DIR/registry.db
d=$(tool_dir wc)
run tg create "$d"
expect_rc 0 "create"
for i in 1 2 3; do
	run tg call word_count '{"text":"a b"}'
	expect_rc 0 "call $i"
done
run tg verify
expect_rc 0 "verify before"
cp "$db" "$WORK/clean.db"
[ -f "$db-wal" ] && cp "$db-wal" "$WORK/clean.db-wal"
restore() {
	rm -f "$db" "$db-wal" "$db-shm"
	cp "$WORK/clean.db" "$db"
	[ -f "$WORK/clean.db-wal" ] && cp "$WORK/clean.db-wal" "$db-wal"
}
seq_of() { # EVENT CALL: the entry's seq
	"$SQLX" "$db" "SELECT seq FROM audit WHERE event = '$1' AND json_extract(details, '\$.call') = $2"
}
c1=$(seq_of call 1)
r1=$(seq_of call_result 1)
r3=$(seq_of call_result 3)

# the calls table emptied
run "$SQLX" "$db" "DELETE FROM calls"
run tg verify
expect_rc 1 "verify: calls emptied"
expect_out "^PROBLEM: calls: audit entry $c1 names call 1 \\(word_count v1\\) but the calls table has no such row \\(deleted or changed outside toolgate\\)\$" "the exact problem (intent)"
expect_out "^PROBLEM: calls: audit entry $r1 names call 1 \\(word_count v1\\) but the calls table has no such row" "the outcome too"
expect_out "^PROBLEM: calls: 6 audit entries name a call with no row in all\$" "the count"

# one row changed
restore
run "$SQLX" "$db" "UPDATE calls SET tool = 'other' WHERE id = 3"
run tg verify
expect_rc 1 "verify: a row changed"
expect_out "^PROBLEM: calls: audit entry $r3 names call 3 \\(word_count v1\\) but the calls table has no such row" "the changed row"

# a row added
restore
run "$SQLX" "$db" "INSERT INTO calls(tool, version, ok, wall_ms, actor, at) VALUES('word_count', 1, 1, 1, 'cli', 1)"
run tg verify
expect_rc 1 "verify: a row added"
expect_out "^PROBLEM: calls: call 4 \\(word_count v1\\) has no entry in the audit log \\(added outside toolgate\\)\$" "the exact problem (added)"

# archived entries: their rows are not reported; a later call is checked
restore
run tg verify
expect_rc 0 "verify after restore"
run tg log --archive "$r3"
expect_rc 0 "archive through call 2's entries"
run tg call word_count '{"text":"a"}'
expect_rc 0 "call after the archive"
run tg verify
expect_rc 0 "verify after the archive: rows of archived entries not reported"
run "$SQLX" "$db" "DELETE FROM calls WHERE id = 4"
run tg verify
expect_rc 1 "verify: a row deleted after the archive"
expect_out "^PROBLEM: calls: audit entry [0-9]+ names call 4 \\(word_count v1\\) but the calls table has no such row" "the deleted row after the archive"
finish calls_audit
