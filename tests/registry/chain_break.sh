#!/bin/sh
# tests/registry/chain_break.sh TOOLGATE SQLEXEC: a cut audit chain stays
# cut. Deleting the log's last entries, deleting the anchor file, or wiping
# the log and the anchor, then making calls: the first append records a
# chain_break entry (audit_guard.c) and verify reports it with the exact
# problem for good; later appends record no second break.
. "$(dirname "$0")/lib.sh"

db=$HOME_DIR/registry.db
anchor=$HOME_DIR/audit.anchor
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
cp "$anchor" "$WORK/clean.anchor"
restore() {
	rm -f "$db" "$db-wal" "$db-shm"
	cp "$WORK/clean.db" "$db"
	[ -f "$WORK/clean.db-wal" ] && cp "$WORK/clean.db-wal" "$db-wal"
	cp "$WORK/clean.anchor" "$anchor"
}
notrig="DROP TRIGGER audit_no_update; DROP TRIGGER audit_no_delete;"
n=$("$SQLX" "$db" "SELECT max(seq) FROM audit")
a=$(sed -n 's/.*"seq": *\([0-9]*\).*/\1/p' "$anchor")
calls3() {
	for i in 1 2 3; do
		run tg call word_count '{"text":"a b"}'
		expect_rc 0 "$1: call $i after the tampering"
	done
}
# one chain_break line and the exact problem
expect_break() { # LINE WHAT
	run tg verify
	expect_rc 1 "$2: verify still fails after 3 calls"
	expect_out "^PROBLEM: $1\$" "$2: the exact problem"
	checks=$((checks + 1))
	[ "$(grep -c 'records a broken chain' "$OUT")" -eq 1 ] || fail "$2: one break recorded"
}

# 1. the last three entries deleted
t=$((n - 3))
run "$SQLX" "$db" "$notrig DELETE FROM audit WHERE seq > $t"
run tg verify
expect_rc 1 "tail deleted: verify fails at once"
calls3 tail
expect_break "audit: entry $((t + 1)) records a broken chain found at an append: the log ended at entry $t but its recorded head was entry $n; the anchor recorded entry $a but the log ended at entry $t" "tail deleted"

# 2. the anchor deleted alone: never recreated silently
restore
rm -f "$anchor"
calls3 anchor
[ -f "$anchor" ] || fail "the anchor is written again after the recorded break"
expect_break "audit: entry $((n + 1)) records a broken chain found at an append: the anchor file was missing beside a log of $n entries" "anchor deleted"

# 3. the whole log wiped and the anchor deleted
restore
run "$SQLX" "$db" "$notrig DELETE FROM audit"
rm -f "$anchor"
calls3 wiped
expect_break "audit: entry 1 records a broken chain found at an append: the log ended at entry 0 but its recorded head was entry $n" "log and anchor wiped"

# 4. untouched: calls record no break
restore
calls3 clean
run tg verify
expect_rc 0 "verify after calls on an untouched chain"
finish chain_break
