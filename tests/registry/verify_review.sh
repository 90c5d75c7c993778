#!/bin/sh
# tests/registry/verify_review.sh TOOLGATE SQLEXEC: a person's later
# decision is the fact `verify` holds a version's status to, not the
# Toolgate-Status trailer written when the version was created
# (docs/STORE.md, "What verify compares"). v2, active once, is rolled
# back from and denied; v3 asks for a capability, is pending, approved
# and activated; the tool is removed and rolled back to v1; v4 fails its
# tests and is denied. verify exits 0 after each step. Then the registry
# is changed with SQL, each change alone: v2's status set back to
# inactive while its denial stays, v2's denial deleted while its status
# stays denied, a denial inserted for the active v1: verify exits 1 with
# exactly the one problem line naming it.
. "$(dirname "$0")/lib.sh"

db=$HOME_DIR/registry.db
# verify_clean WHAT: verify exits 0 with no problem line
verify_clean() {
	run tg verify
	expect_rc 0 "verify after $1"
	checks=$((checks + 1))
	grep -q '^PROBLEM' "$OUT" && fail "verify after $1 has problems"
}
# verify_fails WHAT LINE: verify exits 1, LINE its only problem
verify_fails() {
	run tg verify
	expect_rc 1 "verify after $1"
	checks=$((checks + 1))
	[ "$(grep '^PROBLEM' "$OUT")" = "PROBLEM: $2" ] || fail "verify after $1: want only 'PROBLEM: $2'"
}
vid() { "$SQLX" "$db" "SELECT id FROM versions WHERE version = $1"; }

run tg init
mkdir -p "$WORK/ws"
printf '{"workspace": "%s"}\n' "$WORK/ws" >"$HOME_DIR/config.json"
d=$(tool_dir word_count)
run tg create "$d"
expect_rc 0 "create v1"
sed -i 's/"description": "/"description": "Version two. /' "$d/tool.json"
run tg create "$d"
expect_rc 0 "create v2"
run tg rollback word_count
expect_rc 0 "roll back to v1"
run tg show word_count@2 --json
expect_out '"status": "inactive"' "v2 is inactive after the rollback"
run tg deny word_count@2 --reason "not this one"
expect_rc 0 "deny v2, active once"
verify_clean "the denial of a version that was active once"

sed -i 's/"capabilities": \[\]/"capabilities": ["workspace:read"]/' "$d/tool.json"
run tg create "$d"
expect_rc 0 "create v3 (asks for workspace:read)"
run tg show word_count@3 --json
expect_out '"status": "pending"' "v3 is pending"
verify_clean "a pending version"
run tg approve word_count@3
expect_rc 0 "approve v3"
run tg show word_count@3 --json
expect_out '"status": "active"' "v3 is active once approved"
verify_clean "the approval"
run tg remove word_count
expect_rc 0 "remove"
verify_clean "the removal"
run tg rollback word_count --to 1
expect_rc 0 "roll back to v1"
verify_clean "the rollback after the removal"

sed -i 's/"expect": {"words": 2}/"expect": {"words": 3}/' "$d/tool.json"
run tg create "$d"
expect_rc 1 "create v4 (a test fails)"
run tg deny word_count@4
expect_rc 0 "deny the failed v4"
verify_clean "the denial of a failed version"

# the registry changed by hand
run "$SQLX" "$db" "UPDATE versions SET status = 'inactive' WHERE version = 2"
verify_fails "v2's status set back to inactive" \
	"registry: word_count@2: status inactive in the registry, but a person denied it (its denial is recorded)"
run "$SQLX" "$db" "UPDATE versions SET status = 'denied' WHERE version = 2"
verify_clean "v2's status restored"
run "$SQLX" "$db" "CREATE TABLE saved AS SELECT * FROM denials WHERE version_id = $(vid 2);
 DELETE FROM denials WHERE version_id = $(vid 2)"
verify_fails "v2's denial deleted" \
	"registry: word_count@2: status denied in the registry, but no denial of it is recorded"
run "$SQLX" "$db" "INSERT INTO denials SELECT * FROM saved; DROP TABLE saved"
verify_clean "v2's denial restored"
run "$SQLX" "$db" "INSERT INTO denials(version_id, reason, actor, at) VALUES($(vid 1), '', 'cli', 0)"
verify_fails "a denial inserted for the active v1" \
	"registry: word_count@1: status active in the registry, but a person denied it (its denial is recorded)"
finish verify_review
