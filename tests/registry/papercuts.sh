#!/bin/sh
# tests/registry/papercuts.sh TOOLGATE SQLEXEC: the CLI side of the papercuts
# a newcomer met (issue 29), each with its exact new wording:
#  - calling a tool whose only version waits for approval names the command
#    that approves it (exit 1, denied), not "no active tool";
#  - rollback --to the active version is idempotent: exit 0, "already active",
#    nothing audited;
#  - approving a tool's first version says "active", not "(was v0)";
#  - a failing test's reason counts the skipped tests apart from the failed;
#  - status prints each recent rejection's whole reason on its own line;
#  - list aligns names longer than 24 characters;
#  - doctor names the compiler builds really use (the clang driver);
#  - a test's expect compares numbers by value: 2 equals 2.0 (docs/SDK.md);
#  - every problem of a manifest at once; one problem reads as before; the
#    analyzer's findings in the same round (or why the source was not
#    analyzed).
. "$(dirname "$0")/lib.sh"

run tg init
expect_rc 0 "init"
mkdir -p "$WORK/ws"
printf '{"workspace": "%s"}\n' "$WORK/ws" >"$HOME_DIR/config.json"

# a pending tool
w=$(named_tool ws_tool)
sed -i 's/"capabilities": \[\]/"capabilities": ["workspace:read"]/' "$w/tool.json"
run tg create "$w"
expect_out '^ws_tool v1: pending' "ws_tool pending"
run tg call ws_tool '{"text": "a b"}'
expect_rc 1 "calling a pending tool is refused"
expect_err '^toolgate: call: ws_tool v1 is pending: it waits for a person'"'"'s approval and cannot be called until then \(the operator runs `toolgate approve ws_tool@1`\)$' \
	"the refusal names the approval command"
run tg call nothing_here '{}'
expect_rc 2 "an unknown tool"
expect_err '^toolgate: call: .*no active tool named nothing_here' "an unknown tool stays unknown"

# rollback to the active version
d=$(named_tool wc)
run tg create "$d"
expect_rc 0 "create wc v1"
sed -i 's/Count words in a text/Count the words of a text/' "$d/tool.json"
run tg create "$d"
expect_rc 0 "create wc v2"
run tg log --json
audit_before=$(grep -c '"event"' "$OUT")
run tg rollback wc --to 2
expect_rc 0 "rollback to the active version is idempotent"
expect_out '^wc: v2 is already active$' "it says so"
run tg rollback wc --to 2 --json
expect_rc 0 "the same in JSON"
expect_out '"already_active": true' "already_active in JSON"
run tg log --json
checks=$((checks + 1))
[ "$(grep -c '"event"' "$OUT")" -eq "$audit_before" ] || fail "a no-op rollback wrote audit entries"
run tg rollback wc --to 1
expect_rc 0 "a real rollback"
expect_out '^wc: v1 is active \(was v2\)$' "the real rollback's wording is unchanged"
run tg rollback wc --to 3
expect_rc 2 "a version that does not exist"

# approve: no "(was v0)" for a first active version
run tg approve ws_tool@1
expect_rc 0 "approve"
expect_out '^ws_tool v1 approved with capabilities \["workspace:read"\]: active$' "no (was v0)"

# 1 failed, 2 skipped: said apart
f=$(named_tool wf)
sed -i 's/"expect": {"words": 0}/"expect": {"words": 1}/' "$f/tool.json"
run tg create "$f"
expect_rc 1 "a failing test"
expect_out '1 of 4 tests failed, 2 skipped; test "empty" failed: expected \{"words":1\}, got ' "failed and skipped counted apart"

# status: the whole reason, on its own line (wf v1 failed above)
run tg status
expect_rc 0 "status"
expect_out '^rejects +1 in the last 24 hours:$' "the rejections follow the count"
expect_out '^          wf v1: 1 of 4 tests failed, 2 skipped; test "empty" failed: expected \{"words":1\}, got \{"words":0\}$' \
	"the whole reason, not cut"

# list: a long name keeps the columns aligned
l=$(named_tool a_tool_with_a_rather_long_name_of_40_ch)
run tg create "$l"
expect_rc 0 "create a long-named tool"
run tg list
expect_out '^a_tool_with_a_rather_long_name_of_40_ch v1    ' "the long name's version column"
expect_out '^wc                                      v1    ' "a short name padded to the same column"

# doctor: the compiler is the clang driver builds use, not gcc
run tg doctor
expect_out '^ok +compiler +/[^ ]*clang[^ ]*: .*clang version 1[0-9]\..* \(tools are built with it\)$' "doctor names clang"
checks=$((checks + 1))
grep -q gcc "$OUT" && fail "doctor mentions gcc"

# expect: 2 == 2.0 both ways, 2 != 2.5
n=$WORK/src/two
mkdir -p "$n"
cat >"$n/tool.c" <<'EOC'
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	tg_out_object_begin();
	tg_out_key_num("real", 2);
	tg_out_key_int("integer", 2);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
EOC
printf '%s\n' '{"name": "two", "description": "two as a real and as an integer",' \
	'"input_schema": {"type": "object"}, "source": "tool.c",' \
	'"tests": [{"name": "2 and 2.0", "args": {}, "expect": {"real": 2, "integer": 2.0}}]}' >"$n/tool.json"
run tg create "$n"
expect_rc 0 "2 equals 2.0"
expect_out '^  test "2 and 2.0": pass$' "the test passed"
run tg call two '{}'
expect_out '^\{"real":2.0,"integer":2\}$' "the tool wrote a real and an integer"
sed -i 's/"integer": 2.0/"integer": 2.5/' "$n/tool.json"
run tg create "$n"
expect_rc 1 "2 does not equal 2.5"
expect_out 'expected \{"real":2,"integer":2.5\}, got \{"real":2.0,"integer":2\}' "the mismatch"

# every manifest problem at once
b=$WORK/src/bad
mkdir -p "$b"
: >"$b/tool.c"
printf '%s\n' '{"name": "bad", "description": "many problems", "input_schema": {"type": "object"},' \
	'"source": "tool.c", "tests": [{"name": "t", "args": {}, "expect_error": true}],' \
	'"capabilities": ["network"], "limits": {"timeout_ms": 0}}' >"$b/tool.json"
run tg create "$b"
expect_rc 2 "a manifest with four problems"
expect_err '^toolgate: create: 4 problems in the manifest: limits.timeout_ms: must be at least 10; capabilities\[0\]: unknown capability \(known: workspace:read, workspace:write, tools:NAME, host:NAME\); tests: no test runs the tool and compares its result: all 1 are "expect_error" \(0 refused by input_schema before the tool runs\); add a test with "expect"; source: is empty; the source was not analyzed: it has a problem of its own$' \
	"all four, in the manifest's order, and why the source was not analyzed"
echo 'int main(void) { return 0; }' >"$b/tool.c"
sed -i 's/"timeout_ms": 0/"timeout_ms": 100/; s/"expect_error": true/"expect": {}/' "$b/tool.json"
run tg create "$b"
expect_rc 2 "a manifest with one problem left"
expect_err '^toolgate: create: capabilities\[0\]: unknown capability \(known: workspace:read, workspace:write, tools:NAME, host:NAME\)$' \
	"one problem reads as it is" 
checks=$((checks + 1))
tg list --json | grep -q '"bad"' && fail "a refused manifest was stored"
# a manifest problem and analyzer findings: all in the same round
printf '%s\n' '#include <toolgate/tool.h>' 'int main(void)' '{' \
	'	tg_tool_args *a = tg_tool_read_args();' \
	'	int rc = system(tg_arg_str(a, "cmd", "true"));' \
	'	FILE *f = fopen(tg_arg_str(a, "file", ""), "r");' \
	'	return rc + (f != 0);' '}' >"$b/tool.c"
run tg create "$b"
expect_rc 2 "a manifest problem and two analyzer findings"
expect_err '^toolgate: create: capabilities\[0\]: unknown capability \(known: workspace:read, workspace:write, tools:NAME, host:NAME\); the analyzer also found 2 errors in the source: \[process\] 5:11 system is not allowed \(process\); \[file_access\] 6:12 fopen: the path must be a string constant$' \
	"the manifest's problem and the analyzer's findings at once"
run tg log --json
checks=$((checks + 1))
grep -q '"bad"' "$OUT" && fail "a refused manifest was audited"

finish papercuts
