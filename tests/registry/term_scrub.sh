#!/bin/sh
# tests/registry/term_scrub.sh TOOLGATE SQLEXEC: nothing an agent or a tool
# wrote reaches a terminal as a control sequence. A tool's stderr (CSI, OSC
# 52, BEL, a raw 0x9b, C1 CSI U+009B, RLO U+202E), test details, a planted
# description / test name / audit entry (SQL), a store commit whose source
# holds a bidi control and whose trailer holds ESC (git plumbing), and a file
# name given to check: every output (call, create, history, show, list, log,
# diff, verify, check) shows visible markers and never the raw bytes. C1
# controls in a manifest are refused (exit 2). A one-off program (toolgate
# run) whose stderr carries the same controls, whose arguments hold C1 and
# bidi and whose source a bidi comment: run, show-run (its error, arguments,
# a planted finding, the source) and log --run; a queued call planted with
# ESC, C1 and bidi in tool, version, caller and arguments: approvals,
# deny-call and the audit entry the denial writes.
. "$(dirname "$0")/lib.sh"

db=$HOME_DIR/registry.db
git_s() { git --git-dir="$HOME_DIR/store.git" "$@"; }
# no_raw WHAT: neither stdout nor stderr holds a C0 control (but newline and
# tab), DEL, a 0x9b byte, a C1 control or a bidi control
no_raw() {
	checks=$((checks + 1))
	if LC_ALL=C grep -aqP '[\x00-\x08\x0b-\x1f\x7f\x9b]|\xc2[\x80-\x9f]|\xe2\x80[\x8e\x8f\xaa-\xae]|\xe2\x81[\xa6-\xa9]|\xd8\x9c' "$OUT" "$ERR"; then
		fail "$1: a raw control byte reached the output"
	fi
}

d=$(tool_dir wc)
sed -i 's|fprintf(stderr, "boom: asked to fail\\n");|fputs("boom \\033[31mRED \\033]52;c;ZXZpbA==\\007 \\233[2J \\302\\233[2J \\342\\200\\256RLO\\n", stderr);|' "$d/word_count.c"
grep -q 'RLO' "$d/word_count.c" || fail "the evil stderr line was not planted"
run tg create "$d"
expect_rc 0 "create v1"

# call: the tool's stderr
run tg call word_count '{"text":"fail"}'
expect_rc 1 "call fails"
no_raw "call stderr"
expect_err '^toolgate: call word_count: boom \^\[\[31mRED \^\[\]52;c;ZXZpbA==\^G \\x9B\[2J <U\+009B>\[2J <U\+202E>RLO$' "call stderr shows markers"
run tg call word_count --json '{"text":"fail"}'
no_raw "call --json"

# create / history / show: a failing test's detail quotes that stderr
sed -i 's/"asked to fail", "args": {"text": "fail"}, "expect_error": true/"asked to fail", "args": {"text": "fail"}, "expect": {"words": 1}/' "$d/tool.json"
run tg create "$d"
expect_rc 1 "create v2 (its test fails)"
no_raw "create output"
expect_out '^  test "asked to fail": FAIL: error: boom \^\[\[31mRED .*<U\+202E>RLO$' "create shows the detail with markers"
run tg history word_count
no_raw "history"
expect_out 'v2 +failed .*boom \^\[\[31mRED' "history reason with markers"
run tg show word_count@2
no_raw "show v2"
expect_out '^test: +"asked to fail": FAIL \(error: boom \^\[\[31mRED .*<U\+009B>\[2J <U\+202E>RLO\)$' "show test detail with markers"

# manifests: C1 controls refused
cp "$d/tool.json" "$WORK/good.json"
sed -i 's/"Count words in a text"/"Count \\u009b2J words"/' "$d/tool.json"
run tg create "$d"
expect_rc 2 "C1 in the description refused"
expect_err 'description: must not hold control characters \(other than newline and tab\), C1 controls or bidirectional controls \(found U\+009B on line 1\)' "C1 description reason"
no_raw "C1 description refusal"
cp "$WORK/good.json" "$d/tool.json"
sed -i 's/"two words"/"two\\u0085words"/' "$d/tool.json"
run tg create "$d"
expect_rc 2 "C1 in a test name refused"
expect_err 'tests\[0\]\.name: must not hold control characters, C1 controls or bidirectional controls \(found U\+0085\)' "C1 test name reason"
cp "$WORK/good.json" "$d/tool.json"

# rows planted with SQL: description, test name, audit entry
run "$SQLX" "$db" "UPDATE versions SET description = 'x' || char(27) || '[2J' || char(155) || 'y' || char(8238) || 'z' WHERE version = 1"
expect_rc 0 "plant a description"
run "$SQLX" "$db" "UPDATE versions SET tests = json_set(tests, '\$[0].name', 't' || char(27) || ']52;c;QQ==' || char(7)) WHERE version = 1"
expect_rc 0 "plant a test name"
run "$SQLX" "$db" "INSERT INTO audit(seq, at, actor, event, tool, details, prev_hash, hash) SELECT max(seq) + 1, 0, 'cli' || char(27) || '[8m', 'create', 'word_count', '{\"x\":\"' || char(155) || char(8238) || '\"}', 'x', 'y' FROM audit"
expect_rc 0 "plant an audit entry"
run tg list
no_raw "list"
expect_out '^word_count +v1 +x\^\[\[2J<U\+009B>y<U\+202E>z$' "list description with markers"
run tg list --json
no_raw "list --json"
expect_out '"description": "x\\u001B\[2J\\u009By\\u202Ez"' "list --json escapes C1 and bidi"
run tg show word_count
no_raw "show v1"
expect_out '^description: +x\^\[\[2J<U\+009B>y<U\+202E>z$' "show description with markers"
expect_out '^test: +"t\^\[\]52;c;QQ==\^G": pass' "show test name with markers"
run tg log
no_raw "log"
expect_out 'cli\^\[\[8m +create .*<U\+009B><U\+202E>' "log actor and details with markers"
run "$SQLX" "$db" "DELETE FROM audit WHERE hash = 'y'"

# a store commit (as from an edited store or a pull): bidi in the source,
# ESC in a trailer
tip=$(git_s rev-parse refs/tools/word_count)
git_s show "$tip:tool.c" >"$WORK/tool.c"
printf '/* access level: user \342\200\256 } if (admin) { \342\201\246 */\n' >>"$WORK/tool.c"
blob=$(git_s hash-object -w "$WORK/tool.c")
tree=$(git_s ls-tree "$tip" | sed "s/[0-9a-f]\{40\}\ttool.c\$/$blob\ttool.c/" | git_s mktree)
hash=$( (printf 'toolgate-build-v1\n'; cat "$WORK/tool.c") | sha256sum | cut -d' ' -f1)
printf 'word_count: failed\n\nToolgate-Version: 3\nToolgate-Status: failed\033[2J\nToolgate-Verdict: pass\nToolgate-Content-Hash: %s\nToolgate-Submitter: cli\n' "$hash" >"$WORK/msg"
new=$(GIT_AUTHOR_NAME=toolgate GIT_AUTHOR_EMAIL=toolgate@localhost GIT_COMMITTER_NAME=toolgate GIT_COMMITTER_EMAIL=toolgate@localhost git_s commit-tree "$tree" -p "$tip" -F "$WORK/msg")
git_s update-ref refs/tools/word_count "$new" "$tip"
run tg show word_count@3
no_raw "show v3 source"
expect_out '^/\* access level: user <U\+202E> \} if \(admin\) \{ <U\+2066> \*/$' "show marks bidi in source"
run tg diff word_count 1 3
no_raw "diff"
expect_out '^\+/\* access level: user <U\+202E> \} if \(admin\) \{ <U\+2066> \*/$' "diff marks bidi in source"
run tg verify
expect_rc 1 "verify fails on the planted commit"
no_raw "verify"
expect_out "^PROBLEM: registry: word_count@3: status failed in the registry disagrees with the commit's Toolgate-Status: failed\^\[\[2J$" "verify quotes the trailer with markers"

# check: a file name and findings
f="$WORK/e$(printf '\033')[31m.c"
printf '#include "x\033[31m\302\233\342\200\256.h"\nint main(void) { return 0; }\n' >"$f"
run tg check "$f"
expect_rc 1 "check rejects"
no_raw "check"
expect_out 'e\^\[\[31m\.c:1:1: error: \[include\]' "check shows the file name with markers"

# toolgate run: the program's stderr, its arguments, its source
cat >"$WORK/evil.c" <<'EOC'
#include <toolgate/tool.h>
#include <stdio.h>
int main(void)
{
	fputs("boom \033[31mRED \033]52;c;ZXZpbA==\007 \233[2J \302\233[2J \342\200\256RLO\n", stderr);
	return 1;
}
EOC
# a source holding bidi controls is refused, as a tool's source is
cp "$WORK/evil.c" "$WORK/evil_bidi.c"
printf '/* access level: user \342\200\256 } if (admin) { \342\201\246 */\n' >>"$WORK/evil_bidi.c"
run tg run "$WORK/evil_bidi.c"
expect_rc 2 "run refuses a source with bidi controls"
no_raw "run of a bidi source"
expect_err '^toolgate: run: source: line 8 holds the control character U\+202E' "run names the bidi control"
run tg run "$WORK/evil.c" '{"text":"a\u009bb\u202ec"}'
expect_rc 1 "run fails"
no_raw "run stderr"
expect_err '^toolgate: run: error: boom \^\[\[31mRED \^\[\]52;c;ZXZpbA==\^G \\x9B\[2J <U\+009B>\[2J <U\+202E>RLO$' "run stderr shows markers"
id=$(sed -n 's/^toolgate: run: recorded as run \([0-9]*\) .*/\1/p' "$ERR")
[ -n "$id" ] || fail "run names no run id"
run tg run "$WORK/evil.c" --json
no_raw "run --json"
# a finding as if the analyzer had quoted raw bytes (planted in the record)
run "$SQLX" "$db" "UPDATE runs SET report = json_set(report, '\$.findings', json_array(json_object('rule', 'r' || char(27) || '[1m', 'message', 'm' || char(155) || '[2J' || char(8238) || 'n', 'line', 1, 'column', 2))) WHERE id = $id"
expect_rc 0 "plant a finding in the run"
# and a bidi comment in its kept source (as if it had been accepted)
run "$SQLX" "$db" "UPDATE programs SET source = source || '/* access level: user ' || char(8238) || ' } if (admin) { ' || char(8294) || ' */' || char(10) WHERE sha256 = (SELECT program_sha256 FROM runs WHERE id = $id)"
expect_rc 0 "plant a bidi comment in the kept source"
# a queued call of that run, as if a program and a host tool had named them
run "$SQLX" "$db" "INSERT INTO call_approvals(binding, tool, callee_version, args, caller, run, status, queued_at) VALUES('b', 'host:x' || char(27) || '[2J' || char(155) || 'y', 'v' || char(155) || '1234567890abcdef', '{\"a\":\"' || char(8238) || 'b\"}', 'evil' || char(27) || ']52;c;QQ==' || char(7) || char(8238), $id, 'pending', 0)"
expect_rc 0 "plant a queued call"
run tg approvals
no_raw "approvals"
expect_out '^[0-9]+  host:x\^\[\[2J<U\+009B>y \(version v<U\+009B>123456789\) called by evil\^\[\]52;c;QQ==\^G<U\+202E> \(a one-off run\)$' "approvals shows tool, version and caller with markers"
expect_out '^    args \{"a":"<U\+202E>b"\}$' "approvals shows the args with markers"
qid=$(sed -n 's/^\([0-9]*\)  host:x.*/\1/p' "$OUT")
run tg approvals --json
no_raw "approvals --json"
run tg deny-call "$qid"
expect_rc 0 "deny the planted call"
no_raw "deny-call"
expect_out '^call [0-9]+ denied: host:x\^\[\[2J<U\+009B>y called by evil\^\[\]52;c;QQ==\^G<U\+202E>$' "deny-call shows callee and caller with markers"
run tg show-run "$id"
no_raw "show-run"
expect_out '^error boom \^\[\[31mRED \^\[\]52;c;ZXZpbA==\^G \\x9B\[2J <U\+009B>\[2J <U\+202E>RLO$' "show-run error with markers"
expect_out '^args  \{"text":"a<U\+009B>b<U\+202E>c"\}$' "show-run args with markers"
expect_out '^  1:2 \[r\^\[\[1m\] m<U\+009B>\[2J<U\+202E>n$' "show-run finding with markers"
expect_out '^ +[0-9]+ call_denied +.*"callee":"host:x\\u001B\[2J<U\+009B>y".*"caller":"evil\\u001B\]52;c;QQ==\\u0007<U\+202E>"' "show-run call tree with markers"
expect_out '^/\* access level: user <U\+202E> \} if \(admin\) \{ <U\+2066> \*/$' "show-run marks bidi in the source"
run tg log --run "$id"
no_raw "log --run"
expect_out '^ +[0-9]+ call_denied +.*"callee_version":"v<U\+009B>1234567890abcdef"' "log --run with markers"
finish term_scrub
