#!/bin/sh
# tests/registry/migrate.sh TOOLGATE SQLEXEC: a home written before approvals
# were bound to versions (schema 1: tools.approved_caps, approvals without a
# version or hash) is migrated on open: name-level approvals no longer count,
# an inactive version asking for capabilities becomes pending, the active one
# stays active but its calls are refused until a person approves that very
# version, and a tool without capabilities is untouched.
. "$(dirname "$0")/lib.sh"

d=$(tool_dir wc)
run tg create "$d"
expect_rc 0 "create word_count"
mkdir -p "$WORK/ws"
echo "ws data" >"$WORK/ws/greeting.txt"
printf '{"workspace": "%s"}\n' "$WORK/ws" >"$HOME_DIR/config.json"
w=$WORK/src/cap
mkdir -p "$w"
cat >"$w/cap.c" <<'EOF'
#include <stdio.h>
int main(void)
{
	FILE *f = fopen("/workspace/greeting.txt", "r");
	printf("{\"found\":%s}\n", f ? "true" : "false");
	if (f)
		fclose(f);
	return 0;
}
EOF
cat >"$w/tool.json" <<'EOF'
{"name": "cap", "description": "Is the greeting there", "input_schema": {"type": "object"},
 "source": "cap.c", "tests": [{"name": "empty", "args": {}, "expect": {"found": false}}],
 "capabilities": ["workspace:read"]}
EOF
run tg create "$w"
expect_out '^cap v1: pending' "cap v1 pending"
run tg approve cap@1
expect_rc 0 "approve v1"
sed -i 's/"empty"/"empty 2"/' "$w/tool.json"
run tg create "$w"
run tg approve cap@2
expect_rc 0 "approve v2"
run tg call cap '{}'
expect_out '^\{"found":true\}$' "v2 runs with the workspace"

# turn the database back into schema 1, as an older toolgate left it (without
# the columns of schemas 2 and 3): the
# tool-level approval (approved_caps) said workspace:read was approved
run "$SQLX" "$HOME_DIR/registry.db" "DROP TABLE denials; DROP INDEX approvals_version; ALTER TABLE approvals DROP COLUMN version; ALTER TABLE approvals DROP COLUMN approval_hash; ALTER TABLE approvals DROP COLUMN verified; ALTER TABLE calls DROP COLUMN finished; UPDATE tools SET approved_caps = '[\"workspace:read\"]', approved_version = 2 WHERE name = 'cap'; PRAGMA user_version = 1"
expect_rc 0 "downgrade to schema 1"
run tg list --pending
expect_rc 0 "the open migrates"
expect_out '^cap +v1 +\[workspace:read\]' "the inactive capability version is pending"
expect_out '^cap +v2 +\[workspace:read\]  \(active but not approved: calls refuse it\)' "the active one needs approval again"
run "$SQLX" "$HOME_DIR/registry.db" "PRAGMA user_version"
expect_out '^11$' "schema version 11 (2: approvals per version, 3: output_schemas, 4: calls.finished, 5: used_request_states, 6: usage, 7: replay_journals, 8: call_samples, shadow_reports, held, 9: tool_backends, 10: remote_decisions, approver_revocations, 11: sample_journals, sample_tests)"
run tg call cap '{}'
expect_rc 1 "the old approval no longer counts"
expect_err '^toolgate: call cap: cap v2 asks for capabilities that no person approved for this exact version \(approval hash [0-9a-f]{12}\): toolgate approve cap@2$' "call refusal"
run tg call word_count '{"text":"a b"}'
expect_rc 0 "a tool without capabilities is untouched"
run tg rollback cap --to 1
expect_rc 2 "rollback to a version whose approval was name-level"
expect_err "awaits approval of its capabilities: use 'toolgate approve cap@1'" "rollback refusal"
run tg approve cap@2
expect_rc 0 "approve the active version"
expect_out '^cap v2 approved with capabilities \["workspace:read"\]: it was already active$' "approve says it was active"
run tg call cap '{}'
expect_out '^\{"found":true\}$' "v2 runs again once approved"
run tg verify
expect_rc 0 "verify after the migration"

# the approval check is cached against the store's fingerprint: rewriting
# the approved version's code in the store behind toolgate's back (same
# version, new commit) is seen by the next call, which refuses it
run tg call cap '{}'
expect_rc 0 "call before the store is rewritten"
g="git --git-dir=$HOME_DIR/store.git"
tip=$($g rev-parse refs/tools/cap)
printf '#include <stdio.h>\nint main(void) { puts("{\\"found\\":\\"evil\\"}"); return 0; }\n' >"$WORK/evil.c"
blob=$($g hash-object -w "$WORK/evil.c")
GIT_INDEX_FILE=$WORK/idx $g read-tree "$tip^{tree}"
GIT_INDEX_FILE=$WORK/idx $g update-index --cacheinfo "100644,$blob,tool.c"
tree=$(GIT_INDEX_FILE=$WORK/idx $g write-tree)
new=$($g log -1 --format=%B "$tip" | $g -c user.name=x -c user.email=x@x commit-tree "$tree" -p "$tip^")
$g update-ref refs/tools/cap "$new" "$tip"
checks=$((checks + 1))
[ "$($g rev-parse refs/tools/cap)" = "$new" ] || fail "the store rewrite did not take"
run tg call cap '{}'
expect_rc 1 "a call after the approved code was rewritten in the store"
expect_err '^toolgate: call cap: cap v2: the registry.s record does not match the stored version \(capabilities or content hash differ\)$' "the rewrite is seen"
checks=$((checks + 1))
grep -q evil "$OUT" && fail "the rewritten code ran"
finish migrate
