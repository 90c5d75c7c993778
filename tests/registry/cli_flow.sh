#!/bin/sh
# tests/registry/cli_flow.sh TOOLGATE SQLEXEC: the whole product through the
# CLI on a temporary home: create (active, failed tests, rejected, pending),
# call (result, tool error, bad arguments, missing cache), list, show,
# history, diff, rollback (default and --to, refusals), approve, log, verify,
# every exit status and the --json documents.
. "$(dirname "$0")/lib.sh"

run tg init
expect_rc 0 "init"

# v1: passes everything
d=$(tool_dir wc)
run tg create "$d"
expect_rc 0 "create v1"
expect_out '^word_count v1: active \(verdict pass' "create v1 says version and verdict"
expect_out 'test "two words": pass' "create v1 lists tests"

run tg call word_count '{"text":"a b c"}'
expect_rc 0 "call"
[ "$(cat "$OUT")" = '{"words":3}' ] || fail "call prints the result alone: $(cat "$OUT")"
run tg call word_count '{"text":"fail"}'
expect_rc 1 "call: tool error"
expect_err '^toolgate: call word_count: boom: asked to fail$' "call: tool error message"
run tg call word_count '{"text":5}'
expect_rc 2 "call: args not matching the schema"
expect_err 'text' "call: schema message names the field"
run tg call word_count '{"text":'
expect_rc 2 "call: malformed args"
expect_one_line_err "call: malformed args"
run tg call word_count '[1]'
expect_rc 2 "call: args not an object"
run tg call nosuch '{}'
expect_rc 2 "call: unknown tool"
expect_one_line_err "call: unknown tool"
run sh -c "echo '{\"text\":\"x y\"}' | \"$TG\" --home \"$HOME_DIR\" call word_count -"
expect_rc 0 "call: args from stdin"
expect_out '^\{"words":2\}$' "call: args from stdin result"
run tg call word_count '{"text":"a"}' --json
expect_rc 0 "call --json"
expect_out '"version": 1' "call --json has the version"
expect_out '"wall_ms"' "call --json has timing"
expect_out '"result"' "call --json has the result"

# v2: a failing test -> failed, v1 stays active
sed -i 's/"expect": {"words": 2}/"expect": {"words": 7}/' "$d/tool.json"
run tg create "$d"
expect_rc 1 "create v2 (test fails)"
expect_out '^word_count v2: failed' "create v2 status"
expect_out 'test "two words": FAIL: expected \{"words":7\}, got \{"words":2\}' "create v2 names the failing test"
run tg call word_count '{"text":"a b"}' --json
expect_out '"version": 1' "v1 still active after a failed v2"

# v3: a forbidden call -> rejected with the finding
sed -i 's/"expect": {"words": 7}/"expect": {"words": 2}/' "$d/tool.json"
sed -i 's/^int main(void)$/int evil(void) { return system("id"); }\nint main(void)/' "$d/word_count.c"
run tg create "$d"
expect_rc 1 "create v3 (rejected)"
expect_out '^word_count v3: rejected \(verdict reject' "create v3 status"
expect_out 'finding \[error\].*system' "create v3 prints the finding"

# v4: passes, with a changed output
cp "$HERE/tools/word_count.c" "$d/word_count.c"
sed -i 's/{\\"words\\":%d}/{\\"words\\":%d,\\"v\\":4}/' "$d/word_count.c"
sed -i 's/"expect": {"words": 2}/"expect": {"words": 2, "v": 4}/; s/"expect": {"words": 0}/"expect": {"words": 0, "v": 4}/' "$d/tool.json"
run tg create "$d" --json
expect_rc 0 "create v4 --json"
expect_out '"status": "active"' "create v4 json status"
expect_out '"version": 4' "create v4 json version"
run tg call word_count '{"text":"a"}'
expect_out '^\{"words":1,"v":4\}$' "v4 active"

run tg list
expect_rc 0 "list"
expect_out '^word_count +v4 ' "list text"
run tg list --json
expect_out '"name": "word_count"' "list --json"
run tg show word_count@2
expect_rc 0 "show @2"
expect_out '^status: +failed' "show @2 status"
expect_out '^--- tool.c' "show prints the source"
run tg show word_count --json
expect_out '"version": 4' "show default = active"
expect_out '"findings"' "show --json findings"
run tg show word_count@99
expect_rc 2 "show: no such version"
run tg show 'Bad@1'
expect_rc 2 "show: bad name"
run tg history word_count
expect_rc 0 "history"
expect_out '^ +v1 +inactive' "history v1"
expect_out '^ +v2 +failed' "history v2"
expect_out '^ +v3 +rejected' "history v3"
expect_out '^ +v4 +active' "history v4"
expect_out '^ +v1 +inactive .*superseded by v4' "history says why v1 is not active"
expect_out 'activate +v4 \(was v1\)' "history events"
run tg diff word_count 1 4
expect_rc 0 "diff"
expect_out '^\+.*\\"v\\":4' "diff shows the change"
run tg diff word_count 1 9
expect_rc 2 "diff: no such version"
run tg diff word_count one 2
expect_rc 2 "diff: bad version"

# rollback
run tg rollback word_count
expect_rc 0 "rollback (default)"
expect_out 'v1 is active \(was v4\)' "rollback goes to the one active before"
run tg call word_count '{"text":"a"}'
expect_out '^\{"words":1\}$' "rolled back behaviour"
run tg rollback word_count --to 3
expect_rc 2 "rollback to a rejected version"
expect_err 'did not pass' "rollback refusal message"
run tg rollback word_count --to 2
expect_rc 2 "rollback to a failed version"
run tg rollback word_count --to 1
expect_rc 0 "rollback to the active version (idempotent)"
expect_out '^word_count: v1 is already active$' "rollback to the active version says so"
run tg rollback word_count
expect_rc 2 "rollback with nothing earlier"
run tg rollback word_count --to 4 --json
expect_rc 0 "rollback --to 4"
expect_out '"version": 4' "rollback --json"
run tg rollback word_count --bogus
expect_rc 2 "rollback: unknown option"
run tg rollback
expect_rc 2 "rollback: no name"

# capabilities: refused without a workspace; every version that asks for one
# is pending until a person approves that very version; the tests of a
# pending version see an empty scratch /workspace, never the host's
mkdir -p "$WORK/ws"
echo "hello from the workspace" >"$WORK/ws/greeting.txt"
secret='hello from the workspace'
w=$WORK/src/ws_reader
mkdir -p "$w"
cat >"$w/ws_reader.c" <<'EOF'
#include <stdio.h>
#include <string.h>
int main(void)
{
	char line[128] = "";
	FILE *f = fopen("/workspace/greeting.txt", "r");
	if (!f) {
		printf("{\"bytes\":-1,\"text\":\"\"}\n");
		return 0;
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	int n = (int)strlen(line);
	line[strcspn(line, "\n\"\\")] = '\0';
	printf("{\"bytes\":%d,\"text\":\"%s\"}\n", n, line);
	return 0;
}
EOF
cat >"$w/tool.json" <<'EOF'
{"name": "ws_reader", "description": "Read the greeting from the workspace",
 "input_schema": {"type": "object"}, "source": "ws_reader.c",
 "tests": [{"name": "sees an empty workspace", "args": {}, "expect": {"bytes": -1, "text": ""}}],
 "capabilities": ["workspace:read"]}
EOF
run tg create "$w"
expect_rc 2 "workspace capability without a configured workspace"
expect_err 'workspace' "capability refusal names the workspace"
printf '{"workspace": "%s"}\n' "$WORK/ws" >"$HOME_DIR/config.json"
run tg create "$w"
expect_rc 0 "create with a capability"
expect_out '^ws_reader v1: pending' "a first version with a capability is pending"
expect_out '^  test "sees an empty workspace": pass$' "a pending version's test sees an empty /workspace"
run tg call ws_reader '{}'
expect_rc 1 "a pending tool cannot be called"
expect_err '^toolgate: call: ws_reader v1 is pending: .*`toolgate approve ws_reader@1`' "a pending tool names its approval"
run tg list --json
expect_out '"pending": \[' "list --json has a pending section"
run tg list --pending
expect_rc 0 "list --pending"
expect_out '^ws_reader +v1 +\[workspace:read\] .*toolgate approve ws_reader@1' "list --pending names v1"
run tg list
expect_out '^pending approval:' "list has a pending section"
run tg approve ws_reader
expect_rc 2 "approve without @V"
run tg approve ws_reader@2
expect_rc 2 "approve a missing version"
run tg approve ws_reader@1
expect_rc 0 "approve"
expect_out 'approved with capabilities \["workspace:read"\]: active' "approve activates"
run tg call ws_reader '{}'
expect_rc 0 "call the approved tool"
expect_out '^\{"bytes":25,"text":"hello from the workspace"\}$' "the approved tool reads the workspace"
mv "$HOME_DIR/config.json" "$WORK/ws_config.json"
run tg call ws_reader '{}'
expect_rc 1 "a workspace tool with the workspace unset"
expect_err 'sets no "workspace"' "missing workspace named"
mv "$WORK/ws_config.json" "$HOME_DIR/config.json"
run tg approve ws_reader@1
expect_rc 2 "approve twice"
expect_err 'already approved' "approve twice says why"
run tg list --pending --json
expect_out '^\[\]$' "nothing pending after the approval"

# attack: v2 asks for the same capability as the approved v1: still pending
sed -i 's/"sees an empty workspace"/"empty again"/' "$w/tool.json"
run tg create "$w"
expect_out '^ws_reader v2: pending' "same capability as the approved v1: v2 is pending"
run tg rollback ws_reader --to 2
expect_rc 2 "rollback to the pending v2 refused"
expect_err "^toolgate: rollback: ws_reader v2 awaits approval of its capabilities: use 'toolgate approve ws_reader@2'$" "rollback refusal names the approval"
# attack: the registry is edited to make v2 active and to give it v1's
# approval row, and the store's active ref is moved to v2 too (else the next
# open may re-index and follow the store back to v1): the approval is bound
# to v1's hash, so v2 cannot run
git --git-dir="$HOME_DIR/store.git" update-ref refs/active/ws_reader \
	"$(git --git-dir="$HOME_DIR/store.git" rev-parse refs/tools/ws_reader)"
run "$SQLX" "$HOME_DIR/registry.db" "UPDATE tools SET active_version = 2 WHERE name = 'ws_reader'; UPDATE versions SET status = 'active' WHERE version = 2 AND tool_id = (SELECT id FROM tools WHERE name = 'ws_reader'); INSERT INTO approvals(version_id, capabilities, actor, at, version, approval_hash) SELECT v2.id, a.capabilities, 'cli', 0, 2, a.approval_hash FROM approvals a JOIN versions v1 ON v1.id = a.version_id JOIN versions v2 ON v2.tool_id = v1.tool_id AND v2.version = 2 JOIN tools t ON t.id = v1.tool_id AND t.name = 'ws_reader' WHERE v1.version = 1"
run tg call ws_reader '{}'
expect_rc 1 "v1's approval does not let v2 run"
expect_err '^toolgate: call ws_reader: ws_reader v2 asks for capabilities that no person approved for this exact version \(approval hash [0-9a-f]{12}\): toolgate approve ws_reader@2$' "call refusal names the version"
checks=$((checks + 1))
grep -q "$secret" "$OUT" "$ERR" && fail "the host file reached the caller of an unapproved version"
git --git-dir="$HOME_DIR/store.git" update-ref refs/active/ws_reader \
	"$(git --git-dir="$HOME_DIR/store.git" rev-parse refs/tools/ws_reader~1)"
run "$SQLX" "$HOME_DIR/registry.db" "UPDATE tools SET active_version = 1 WHERE name = 'ws_reader'; UPDATE versions SET status = 'pending' WHERE version = 2 AND tool_id = (SELECT id FROM tools WHERE name = 'ws_reader'); DELETE FROM approvals WHERE version = 2"
run tg call ws_reader '{}'
expect_out '^\{"bytes":25,' "v1 still runs"

# attack: a pending version's tests try to carry the host file out through
# their result and error text; they only ever see the empty scratch folder
cat >"$w/leak.json" <<'EOF'
{"name": "ws_reader", "description": "Try to leak the workspace",
 "input_schema": {"type": "object"}, "source": "ws_reader.c",
 "tests": [{"name": "leak", "args": {}, "expect": {"bytes": 0}}],
 "capabilities": ["workspace:read"]}
EOF
run tg create "$w/leak.json"
expect_rc 1 "the leaking version fails its test"
expect_out '^  test "leak": FAIL: expected \{"bytes":0\}, got \{"bytes":-1,"text":""\}' "its test saw no workspace file"
run tg --json show ws_reader@3
checks=$((checks + 1))
grep -q "$secret" "$OUT" "$ERR" && fail "host file content reached the submitter"
git --git-dir "$HOME_DIR/store.git" log -p --all >"$OUT" 2>"$ERR"
checks=$((checks + 1))
grep -q "$secret" "$OUT" && fail "host file content reached the store"

# deny: recorded, audited, never activatable
run tg deny ws_reader@2 --reason "reads more than it says"
expect_rc 0 "deny"
expect_out '^ws_reader v2 denied' "deny output"
run tg approve ws_reader@2
expect_rc 2 "approve a denied version"
expect_err '^toolgate: approve: ws_reader v2 was denied by a person: it can never be approved or activated$' "approve refusal after deny"
run tg rollback ws_reader --to 2
expect_rc 2 "rollback to a denied version"
expect_err '^toolgate: rollback: ws_reader v2 was denied by a person: it can never be activated$' "rollback refusal after deny"
run tg deny ws_reader@1
expect_rc 2 "the active version cannot be denied"
run tg list --pending
checks=$((checks + 1))
grep -q 'ws_reader  *v2 ' "$OUT" && fail "a denied version is still pending"
run tg log
expect_out ' deny +ws_reader .*"reads more than it says"' "the denial is audited"

# approving an older version while a newer one is active does not replace it
sed -i 's/"empty again"/"empty v4"/' "$w/tool.json"
run tg create "$w"
expect_out '^ws_reader v4: pending' "v4 pending"
sed -i 's/"empty v4"/"empty v5"/' "$w/tool.json"
run tg create "$w"
expect_out '^ws_reader v5: pending' "v5 pending"
run tg approve ws_reader@5
expect_out 'active \(was v1\)' "approving the newest activates it"
run tg approve ws_reader@4
expect_rc 0 "approve an older version"
expect_out '^ws_reader v4 approved with capabilities \["workspace:read"\]: NOT activated, the newer v5 stays active' "the newer version is not replaced silently"
run tg --json show ws_reader
expect_out '"version": 5' "v5 still active"
run tg approve ws_reader@4
expect_rc 2 "v4 is approved already"
run tg rollback ws_reader --to 4
expect_rc 0 "a person may roll back to an approved version"
run tg rollback ws_reader --to 5
expect_rc 0 "and forward again"
# an approval row that does not match the version's recomputed hash counts
# for nothing (the registry edited behind toolgate's back)
run "$SQLX" "$HOME_DIR/registry.db" "UPDATE approvals SET approval_hash = '0000000000000000000000000000000000000000000000000000000000000000' WHERE version = 4"
run tg rollback ws_reader --to 4
expect_rc 2 "rollback to a version whose approval does not match its hash"
expect_err '^toolgate: rollback: ws_reader v4 asks for capabilities that no person approved for this exact version \(approval hash [0-9a-f]{12}\): toolgate approve ws_reader@4$' "rollback refusal names the approval"
run tg rollback ws_reader
expect_rc 0 "default rollback"
expect_out '^ws_reader: v1 is active \(was v5\)$' "the default rollback target skips v4 for the approved v1"
run tg rollback ws_reader --to 5
expect_rc 0 "forward to v5 again"
sed -i 's/"empty v5"/"empty v6"/' "$w/tool.json"
run tg create "$w"
expect_out '^ws_reader v6: pending' "v6 pending"
run tg approve --activate ws_reader@1
expect_rc 2 "approve --activate needs an unapproved version"
run tg approve ws_reader@6 --activate
expect_out 'v6 approved .*: active \(was v5\)' "approve --activate"
sed -i 's/\["workspace:read"\]/["workspace:read", "workspace:write"]/' "$w/tool.json"
run tg create "$w"
expect_out '^ws_reader v7: pending' "a new capability needs approval"

# the build cache is rebuilt when missing
rm -rf "$HOME_DIR"/cache/*
run tg call word_count '{"text":"a b"}'
expect_rc 0 "call after the cache was emptied"
expect_out '^\{"words":2,"v":4\}$' "rebuilt binary result"

# a tool on the SDK header, submitted as a manifest file (not a folder)
run tg create "$HERE/tools/sdk_upper.json"
expect_rc 0 "create an SDK tool from a manifest file"
expect_out '^sdk_upper v1: active' "SDK tool active"
run tg call sdk_upper '{"text":"ab","n":3}'
expect_out '^\{"upper":"ABABAB"\}$' "SDK tool result"
run tg call sdk_upper '{"text":"ab","n":9}'
expect_rc 2 "schema maximum enforced before the tool runs"

# a tool that never ends: its test is stopped by the timeout, the version fails
l=$WORK/src/looper
mkdir -p "$l"
printf 'int main(void)\n{\n\tvolatile unsigned long i = 0;\n\tfor (;;)\n\t\ti++;\n}\n' >"$l/loop.c"
cat >"$l/tool.json" <<'EOF'
{"name": "looper", "description": "Never answers", "input_schema": {"type": "object"},
 "source": "loop.c", "limits": {"timeout_ms": 300},
 "tests": [{"name": "errors", "args": {}, "expect_error": true},
           {"name": "answers", "args": {}, "expect": 1}]}
EOF
run tg create "$l"
expect_rc 1 "a looping tool fails its tests"
expect_out '^looper v1: failed' "looper status"
expect_out 'test "errors": FAIL: expected the tool to exit with an error, but it was stopped: killed by the sandbox: timeout after 300 ms' "a kill is not an expected error, the timeout named"
expect_out 'test "answers": FAIL: skipped: an earlier test failed' "tests stop at the first failure"

# a tool error is shown without terminal control characters
e=$WORK/src/noisy
mkdir -p "$e"
cat >"$e/noisy.c" <<'EOF'
#include <stdio.h>
#include <string.h>
int main(void)
{
	char in[256] = "";
	size_t n = fread(in, 1, sizeof(in) - 1, stdin);
	in[n] = '\0';
	if (!strstr(in, "fail")) {
		puts("{}");
		return 0;
	}
	fputs("\033[2Jred\007 alert\n", stderr);
	return 3;
}
EOF
cat >"$e/tool.json" <<'EOF'
{"name": "noisy", "description": "Fails with escapes", "input_schema": {"type": "object"},
 "source": "noisy.c", "tests": [{"name": "quiet", "args": {}, "expect": {}},
 {"name": "fails", "args": {"fail": true}, "expect_error": true}]}
EOF
run tg create "$e"
expect_rc 0 "create noisy"
run tg call noisy '{"fail":true}'
expect_rc 1 "noisy call fails"
checks=$((checks + 1))
if grep -q "$(printf '\033')" "$ERR" || grep -q "$(printf '\007')" "$ERR"; then fail "control characters reached the terminal"; fi
expect_err '^toolgate: call noisy: \^\[\[2Jred\^G alert$' "control characters shown as markers"

# log and verify
run tg log
expect_rc 0 "log"
expect_out ' create +word_count' "log has creates"
expect_out ' rollback +word_count' "log has rollbacks"
expect_out ' approve +ws_reader' "log has approvals"
run tg log --limit 2 --json
expect_rc 0 "log --json"
[ "$(grep -c '"seq"' "$OUT")" -eq 2 ] || fail "log --limit 2 gives 2 entries"
run tg log --limit x
expect_rc 2 "log: bad limit"
run tg verify
expect_rc 0 "verify"
expect_out '^ok: 5 tools, 14 versions checked' "verify summary"
run tg verify --json
expect_out '"ok": true' "verify --json"

# usage errors and a missing home
run tg create
expect_rc 2 "create without PATH"
expect_one_line_err "create without PATH"
run tg create "$WORK/nowhere"
expect_rc 2 "create of a missing path"
run "$TG" --home "$WORK/none" list
expect_rc 2 "list on a missing home"
expect_err "toolgate init" "missing home hint"
run tg list extra
expect_rc 2 "list: extra argument"
run tg verify extra
expect_rc 2 "verify: extra argument"

# exit 3: an environment problem (a database newer than this binary)
run "$SQLX" "$HOME_DIR/registry.db" "PRAGMA user_version = 99"
run tg list
expect_rc 3 "a newer registry schema is refused"
expect_err 'newer than this toolgate' "schema refusal message"
expect_one_line_err "schema refusal"
run "$SQLX" "$HOME_DIR/registry.db" "PRAGMA user_version = 7"
run tg list
expect_rc 0 "list again after restoring the schema version"
# exit 2: a broken config.json names the key
cp "$HOME_DIR/config.json" "$WORK/config.json"
echo '{"max_timeout_ms": "fast"}' >"$HOME_DIR/config.json"
run tg list
expect_rc 2 "a bad config.json"
expect_err 'max_timeout_ms' "config error names the key"
cp "$WORK/config.json" "$HOME_DIR/config.json"
finish cli_flow
