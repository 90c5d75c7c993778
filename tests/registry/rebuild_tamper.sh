#!/bin/sh
# tests/registry/rebuild_tamper.sh TOOLGATE SQLEXEC: the registry is derived
# from git: delete registry.db (and its WAL) and any command rebuilds the
# versions and active pointers, verify saying the logs were lost. Then the
# audit chain: an edited entry, a deleted middle entry, a deleted last entry
# (also with the meta head fixed up) each make verify fail (exit 1).
. "$(dirname "$0")/lib.sh"

db=$HOME_DIR/registry.db
d=$(tool_dir wc)
run tg create "$d"
expect_rc 0 "create v1"
sed -i 's/{\\"words\\":%d}/{\\"words\\":%d,\\"v\\":2}/' "$d/word_count.c"
sed -i 's/"expect": {"words": 2}/"expect": {"words": 2, "v": 2}/; s/"expect": {"words": 0}/"expect": {"words": 0, "v": 2}/' "$d/tool.json"
run tg create "$d"
expect_rc 0 "create v2"
sed -i 's/^int main(void)$/int evil(void) { return system("id"); }\nint main(void)/' "$d/word_count.c"
run tg create "$d"
expect_rc 1 "create v3 (rejected)"
run tg rollback word_count
expect_rc 0 "rollback to v1"
run tg verify
expect_rc 0 "verify before"

# rebuild from git
rm -f "$db" "$db-wal" "$db-shm"
run tg list --json
expect_rc 0 "list rebuilds"
expect_out '"version": 1' "active pointer (after the rollback) rebuilt"
run tg history word_count
expect_out '^ +v1 +active' "v1 active after rebuild"
expect_out '^ +v2 +inactive' "v2 inactive after rebuild"
expect_out '^ +v3 +rejected' "v3 rejected after rebuild"
run tg show word_count@3 --json
expect_out '"rule"' "findings rebuilt from analysis.json"
run tg call word_count '{"text":"a b"}'
expect_rc 0 "call after rebuild"
expect_out '^\{"words":2\}$' "call after rebuild runs v1"
run tg verify
expect_rc 1 "verify after rebuild: the lost history is a problem"
expect_out '^PROBLEM: registry.db was rebuilt from the store at [0-9]+ \(unix time\): the audit and call logs from before that are lost \(the anchor recorded [0-9]+ entries\);' "verify says the logs were lost"
run tg log --json
expect_out '"registry_rebuilt"' "the rebuild is in the new audit log"
expect_out '"previous_audit_head"' "the lost head is recorded"
run tg verify --acknowledge-rebuild
expect_rc 0 "a person acknowledges the rebuild"
run tg verify
expect_rc 0 "verify after the acknowledgement"

# audit: the table refuses edits while its triggers stand
run "$SQLX" "$db" "UPDATE audit SET event = 'x' WHERE seq = 1"
expect_rc 1 "audit UPDATE refused by trigger"
run "$SQLX" "$db" "DELETE FROM audit"
expect_rc 1 "audit DELETE refused by trigger"

run tg rollback word_count --to 2
expect_rc 0 "more audit entries"
run tg rollback word_count --to 1
expect_rc 0 "more audit entries"
cp "$db" "$WORK/clean.db"
[ -f "$db-wal" ] && cp "$db-wal" "$WORK/clean.db-wal"
restore() {
	rm -f "$db" "$db-wal" "$db-shm"
	cp "$WORK/clean.db" "$db"
	[ -f "$WORK/clean.db-wal" ] && cp "$WORK/clean.db-wal" "$db-wal"
	cp "$WORK/clean.anchor" "$HOME_DIR/audit.anchor"
}
cp "$HOME_DIR/audit.anchor" "$WORK/clean.anchor"
notrig="DROP TRIGGER audit_no_update; DROP TRIGGER audit_no_delete;"

run "$SQLX" "$db" "$notrig UPDATE audit SET actor = 'someone' WHERE seq = 2"
run tg verify
expect_rc 1 "verify: edited entry"
expect_out 'PROBLEM: audit: entry 2 was modified' "verify names the edited entry"

restore
run tg verify
expect_rc 0 "verify after restore"
run "$SQLX" "$db" "$notrig DELETE FROM audit WHERE seq = 2"
run tg verify
expect_rc 1 "verify: deleted middle entry"
expect_out 'entries 2\.\.2 are missing' "verify names the gap"

restore
n=$("$SQLX" "$db" "SELECT max(seq) FROM audit")
run "$SQLX" "$db" "$notrig DELETE FROM audit WHERE seq = $n"
run tg verify --json
expect_rc 1 "verify: deleted last entry"
expect_out "log ends at entry $((n - 1))" "verify sees the truncation"

restore
run "$SQLX" "$db" "$notrig DELETE FROM audit WHERE seq = $n;
 UPDATE meta SET value = $((n - 1)) WHERE key = 'audit_seq';
 UPDATE meta SET value = (SELECT hash FROM audit WHERE seq = $((n - 1))) WHERE key = 'audit_head'"
run tg verify
expect_rc 1 "verify: deleted last entry with the meta head fixed"
expect_out "anchor records entry $n" "the anchor file catches it"

restore
run "$SQLX" "$db" "UPDATE versions SET content_hash = 'x' WHERE version = 2"
run tg verify
expect_rc 1 "verify: registry disagrees with the store"
expect_out 'content hash differs' "verify names the disagreement"
finish rebuild_tamper
