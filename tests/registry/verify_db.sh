#!/bin/sh
# tests/registry/verify_db.sh TOOLGATE SQLEXEC: `verify` and a damaged or
# lost registry.db. Deleted or emptied: any command rebuilds it from the
# store, but the audit and call history is gone; the rebuild is a
# registry_rebuilt audit entry (naming the anchor's last head) and verify
# exits 1 until a person runs `verify --acknowledge-rebuild`. A corrupt page
# fails SQLite's integrity check (exit 1, one PROBLEM per finding); a
# corrupt header makes the database unopenable, which verify reports as a
# problem (exit 1) while other commands fail with exit 3.
. "$(dirname "$0")/lib.sh"

db=$HOME_DIR/registry.db
d=$(tool_dir wc)
run tg create "$d"
expect_rc 0 "create"
run tg call word_count '{"text":"a b"}'
run tg call word_count '{"text":"a b c"}'
run tg verify
expect_rc 0 "verify on a sound home"
expect_out '^ok: 1 tools, 1 versions checked$' "verify ok"
"$SQLX" "$db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
cp "$db" "$WORK/clean.db"
cp "$HOME_DIR/audit.anchor" "$WORK/clean.anchor"
restore() {
	rm -f "$db" "$db-wal" "$db-shm"
	cp "$WORK/clean.db" "$db"
	cp "$WORK/clean.anchor" "$HOME_DIR/audit.anchor"
}
seq_now=$(sed -n 's/.*"seq": *\([0-9]*\).*/\1/p' "$HOME_DIR/audit.anchor")
checks=$((checks + 1))
[ "$(wc -c <"$HOME_DIR/audit.anchor")" -eq 256 ] || fail "the anchor is one 256-byte record"
checks=$((checks + 1))
# 7 entries (create_intent, create, activate, 2 x call + call_result);
# word_count acts only through its result, so each call's intent is
# deferred and its call_result's commit is durable: the anchor names it
[ "$seq_now" -eq 7 ] || fail "the anchor names the last durable entry ($seq_now)"

# 1. deleted
rm -f "$db" "$db-wal" "$db-shm"
run tg list
expect_rc 0 "a command rebuilds the deleted registry"
expect_out '^word_count +v1 ' "the toolset is back"
run tg verify
expect_rc 1 "verify: a rebuilt registry lost its history"
expect_out "^PROBLEM: registry.db was rebuilt from the store at [0-9]+ \\(unix time\\): the audit and call logs from before that are lost \\(the anchor recorded $seq_now entries\\); versions and active pointers were re-indexed from git \\(see the registry_rebuilt entry in toolgate log; acknowledge with toolgate verify --acknowledge-rebuild\\)$" "the exact problem"
expect_out '^FAILED: 1 tools, 1 versions checked$' "the summary"
run tg verify
expect_rc 1 "still reported on the next verify"
run tg log
expect_out '^ +1 .* system +registry_rebuilt +- +\{"previous_audit_head":\{"db_id":"[0-9a-f]{32}","seq":'"$seq_now"',"hash":"[0-9a-f]{64}"\}\}$' "the rebuild is the first entry of the new log"
run tg verify --acknowledge-rebuild
expect_rc 0 "acknowledge"
expect_out '^acknowledged: registry.db was rebuilt at [0-9]+ \(unix time\); its earlier audit and call logs are lost$' "the acknowledgement"
run tg verify
expect_rc 0 "verify after the acknowledgement"
expect_out '^note: registry.db was rebuilt from the store at [0-9]+ \(unix time\): the audit and call logs from before that are lost \(acknowledged\)$' "still noted"
run tg log --limit 1
expect_out ' cli +rebuild_acknowledged +- +\{"rebuilt_at":"[0-9]+"\}$' "the acknowledgement is audited"
run tg verify --acknowledge-rebuild
expect_rc 2 "nothing left to acknowledge"
expect_err '^toolgate: verify: the rebuild at [0-9]+ is already acknowledged$' "already acknowledged"

# 2. emptied (the new database's acknowledgement does not carry over)
restore
run tg verify --acknowledge-rebuild
expect_rc 2 "a registry that was never rebuilt"
expect_err '^toolgate: verify: registry.db was never rebuilt: nothing to acknowledge$' "never rebuilt"
: >"$db"
rm -f "$db-wal" "$db-shm"
run tg verify
expect_rc 1 "verify: an emptied registry"
expect_out "^PROBLEM: registry.db was rebuilt from the store at [0-9]+ \\(unix time\\): the audit and call logs from before that are lost \\(the anchor recorded $seq_now entries\\);" "the exact problem (emptied)"

# 3. a corrupt page (the audit table's root page overwritten)
restore
page=$("$SQLX" "$db" "SELECT rootpage FROM sqlite_schema WHERE name = 'audit'")
head -c 4096 /dev/zero | tr '\0' '\377' | dd of="$db" bs=4096 seek=$((page - 1)) conv=notrunc 2>/dev/null
run tg call word_count '{"text":"a"}'
expect_rc 3 "a call on a damaged registry fails (closed)"
expect_err '^toolgate: call: word_count was not run: its call could not be recorded: registry database: read audit head: database disk image is malformed \(registry.db is damaged: run toolgate verify\)$' "the call names the damage"
run tg verify
expect_rc 1 "verify: a corrupt page"
expect_out "^PROBLEM: registry.db: integrity check: Page $page: btreeInitPage\\(\\) returns error code 11$" "the integrity check names the page"
expect_out '^note: the other checks were skipped: registry.db is damaged' "the rest is skipped"
expect_out '^FAILED: 0 tools, 0 versions checked$' "summary (corrupt page)"

# 4. a corrupt header: the database cannot even be opened
restore
head -c 100 /dev/zero | tr '\0' '\377' | dd of="$db" bs=1 conv=notrunc 2>/dev/null
run tg verify
expect_rc 1 "verify: an unopenable registry is a finding"
expect_out '^PROBLEM: registry database: exec: file is not a database \(registry.db is damaged: run toolgate verify\)$' "the exact problem (header)"
expect_out '^FAILED: registry.db could not be opened$' "summary (header)"
run tg --json verify
expect_rc 1 "verify --json: exit 1"
expect_out '"ok": false' "verify --json: not ok"
run tg list
expect_rc 3 "other commands fail with exit 3"
expect_err '^toolgate: list: registry database: exec: file is not a database \(registry.db is damaged: run toolgate verify\)$' "list names the damage"
finish verify_db
