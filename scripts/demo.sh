#!/bin/sh
# scripts/demo.sh [TOOLGATE_BINARY]: the demo of `make demo`, on the default
# home (no --home). It walks through the life of one tool with the examples
# of examples/: word_count v1 registered and called; a malicious tool
# rejected with its findings; a buggy v2 whose own tests fail, so v1 stays
# active; a good v2 activated and called; a rollback to v1 and a call again;
# word_pair, which calls word_count through the bridge: pending, approved
# (this version), called; a one-off program run with the bridge; the
# history; `toolgate verify`. Each step prints a header and the real
# command output; a create's header names the version it made (v1 on a new
# home, v4 on the second run...). Version numbers come from the output (never
# hard-coded), so the demo can run again and again on the same home; a step
# that must succeed and does not stops the demo with a non-zero status.
set -eu

tg=${1:-build/cli/toolgate}
here=$(cd "$(dirname "$0")/.." && pwd)
ex="$here/examples"
out=$(mktemp)
scratch=$(mktemp -d)
trap 'rm -rf "$out" "$scratch"' EXIT

[ -x "$tg" ] || { echo "demo: $tg is not an executable (build first: make build)" >&2; exit 2; }
command -v node >/dev/null 2>&1 || { echo "demo: node is needed (scripts/install-deps.sh)" >&2; exit 2; }

step=0
header() {
	step=$((step + 1))
	printf '\n== %d. %s\n' "$step" "$1"
}
die() {
	printf 'demo: FAILED at step %d: %s\n' "$step" "$1" >&2
	exit 1
}
# Show a command, run it with its output going to the terminal and to $out;
# sets rc to its exit status without stopping the script.
run() {
	show "$@"
	run_quiet "$@"
	cat "$out"
}
show() {
	printf '$ toolgate'
	for arg in "$@"; do
		case "$arg" in
		*[!A-Za-z0-9_./@=-]*) printf " '%s'" "$arg" ;;
		*) printf ' %s' "$arg" ;;
		esac
	done
	printf '\n'
}
# run_create TITLE DIR: create DIR, then the step's header with the version
# the create really made in place of TITLE's @V@ (on a home used before,
# word_count's first version here is v4, v7, ...), the command, its output;
# the version in $v.
run_create() {
	run_quiet create "$2"
	v=$(created version <"$out")
	v=${v:-?} # no version: the create failed, as the next check says
	header "$(printf '%s' "$1" | sed "s/@V@/v$v/g")"
	show create "$2"
	cat "$out"
}
# The same without printing anything (for checks between the steps).
run_quiet() {
	set +e
	"$tg" "$@" >"$out" 2>&1
	rc=$?
	set -e
}
# json FIELD < document: a top-level field of a JSON document ("" if absent).
# node is installed by scripts/install-deps.sh.
json() {
	node -e '
		let s = require("fs").readFileSync(0, "utf8"), v;
		try { v = JSON.parse(s)[process.argv[1]]; } catch (e) { v = undefined; }
		console.log(v === undefined || v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));
	' "$1"
}
# created FIELD < `toolgate create` text output: "version" or "status" of
# its first line, "NAME vN: STATUS (verdict ..., commit ...)".
created() {
	case "$1" in
	version) sed -n '1s/^[a-z0-9_]* v\([0-9]*\): .*/\1/p' ;;
	status) sed -n '1s/^[a-z0-9_]* v[0-9]*: \([a-z]*\).*/\1/p' ;;
	esac
}
expect_rc() { # want what
	[ "$rc" -eq "$1" ] || die "$2: exit status $rc, expected $1"
}

header "toolgate init (the default home)"
run init
expect_rc 0 "init"

run_create "Register a good tool: word_count @V@ (vetted, built, its 3 tests run in the sandbox)" "$ex/word_count"
expect_rc 0 "create word_count v$v"
v1=$v
[ "$(created status <"$out")" = active ] || die "word_count v$v1 is not active"
echo "-> word_count v$v1 is active"

header "Call it"
run call word_count '{"text": "the quick brown fox\njumps"}'
expect_rc 0 "call word_count v$v1"
[ "$(json words <"$out")" = 5 ] || die "word_count v$v1 gave a wrong result"

header "A malicious tool: weather runs curl and opens a socket -> rejected (exit 1 expected)"
run create "$ex/weather"
expect_rc 1 "create weather"
[ "$(created status <"$out")" = rejected ] || die "weather was not rejected"
echo "-> weather v$(created version <"$out") rejected by the analyzer; it is kept for review but never built or run"

run_create "A buggy word_count @V@: its own tests fail -> not activated (exit 1 expected)" "$ex/word_count_v2_buggy"
expect_rc 1 "create buggy word_count v$v"
status=$(created status <"$out")
[ "$status" = failed ] || die "the buggy v$v has status '$status', expected failed"
vb=$v
run_quiet --json show word_count
expect_rc 0 "show word_count"
[ "$(json version <"$out")" = "$v1" ] || die "the buggy v$vb replaced v$v1"
echo "-> word_count v$(json version <"$out") is still the active version (toolgate show word_count)"

run_create "A good word_count @V@ (adds the longest word) -> activated" "$ex/word_count_v2"
expect_rc 0 "create word_count v$v"
v2=$v
[ "$(created status <"$out")" = active ] || die "word_count v$v2 is not active"
echo "-> word_count v$v2 is active"

header "Call the new version, v$v2"
run call word_count '{"text": "the quick brown fox\njumps"}'
expect_rc 0 "call word_count v$v2"
[ "$(json longest <"$out")" = quick ] || die "word_count v$v2 gave a wrong result"

header "Roll back to v$v1"
run rollback word_count --to "$v1"
expect_rc 0 "rollback"

header "Call again: v$v1 answers"
run call word_count '{"text": "the quick brown fox\njumps"}'
expect_rc 0 "call after rollback"
[ -z "$(json longest <"$out")" ] && [ "$(json words <"$out")" = 5 ] ||
	die "the call after the rollback was not answered by v$v1"

header "A tool that calls a tool: word_pair asks for tools:word_count -> pending until a person approves this version"
run create "$ex/word_pair"
expect_rc 0 "create word_pair"
vp=$(created version <"$out")
[ "$(created status <"$out")" = pending ] || die "word_pair v$vp is not pending"

header "What waits for a person"
run list --pending
expect_rc 0 "list --pending"

header "Approve word_pair v$vp (the approval binds this version's content hash and capabilities)"
run approve "word_pair@$vp" --activate
expect_rc 0 "approve word_pair"

header "The approval as plain git sees it (a note on word_pair v$vp's commit: a record for people, never read back)"
home=$("$tg" init 2>/dev/null | sed -n 's/^[a-z ]*toolgate home //p')
if command -v git >/dev/null 2>&1 && [ -n "$home" ] && [ -d "$home/store.git" ]; then
	printf '$ git --git-dir=%s/store.git notes --ref=toolgate-review show refs/tools/word_pair\n' "$home"
	git --git-dir="$home/store.git" notes --ref=toolgate-review show refs/tools/word_pair >"$out" 2>&1 ||
		die "no review note on word_pair's commit"
	tail -n 3 "$out"
	grep -q "^approved by " "$out" || die "the note does not record the approval"
else
	echo "(git not installed: skipped)"
fi

header "Call word_pair: two calls to word_count through the bridge (fd 3), each counted and audited"
run call word_pair '{"a": "one two", "b": "three"}'
expect_rc 0 "call word_pair"
[ "$(json words <"$out")" = 3 ] || die "word_pair gave a wrong result"

header "A test never reaches real authority: pair_sum's test calls word_pair (which holds tools:word_count) without a fixture"
mkdir -p "$scratch/pair_sum"
cat >"$scratch/pair_sum/tool.c" <<'EOC'
#include <toolgate/tool.h>
int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	tg_args x = TG_ARGS_INIT;
	tg_value *r = NULL;
	tg_args_str(&x, "a", tg_arg_str(a, "text", ""));
	tg_args_str(&x, "b", "");
	if (tg_call_tool("word_pair", tg_args_json(&x), &r) != 0)
		tg_tool_fail("word_pair: %s", r ? tg_arg_str(r, "message", "?") : "bridge");
	tg_out_object_begin();
	tg_out_key_int("words", tg_arg_int(r, "words", -1));
	tg_out_end();
	tg_value_free(r);
	tg_args_free(&x);
	tg_tool_args_free(a);
	return 0;
}
EOC
pair_sum() { # TEST_EXTRA: the test's fields after "expect"
	cat >"$scratch/pair_sum/tool.json" <<EOJ
{"name": "pair_sum", "description": "Count words through word_pair.",
 "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
 "source": "tool.c", "calls": ["word_pair"],
 "tests": [{"name": "two words", "args": {"text": "a b"}, "expect": {"words": 2}$1}]}
EOJ
}
pair_sum ""
run create "$scratch/pair_sum"
expect_rc 1 "create pair_sum without a fixture"
grep -q 'unexpected call to tools:word_pair: the test declares no tool_results for it' "$out" ||
	die "the test of pair_sum was not stopped at its call of word_pair"

header "The same test with a tool_results fixture for word_pair: it passes, word_pair never ran for it"
pair_sum ', "tool_results": {"word_pair": {"words": 2}}'
run create "$scratch/pair_sum"
expect_rc 0 "create pair_sum with a fixture"
[ "$(created status <"$out")" = pending ] || die "pair_sum is not pending (it calls a tool: a person approves it)"

header "The analyzer refuses a %n format (a write primitive even under FORTIFY)"
cat >"$scratch/count_n.c" <<'EOC'
#include <stdio.h>
int main(void)
{
	int n = 0;
	printf("hello%n\n", &n);
	return n;
}
EOC
run check "$scratch/count_n.c"
expect_rc 1 "check count_n.c"
grep -q 'format_n' "$out" || die "the %n format was not found"

header "A one-off program (code action): vetted, built and run once with the bridge, never registered"
run run "$ex/programs/longest_line.c" '{"text": "a b\nc d e\nf"}' --calls word_count
expect_rc 0 "run longest_line.c"
[ "$(tail -n 1 "$out" | json busiest_line)" = 2 ] || die "the one-off program gave a wrong result"

header "The history of word_count (every version, and the activations)"
run history word_count
expect_rc 0 "history"

header "The toolset"
run list
expect_rc 0 "list"

header "One screen for the operator: tools, pending approvals, recent rejections, budgets and quotas"
run status
expect_rc 0 "status"

header "toolgate verify: store, registry and audit chain agree"
run verify
expect_rc 0 "verify"

printf '\ndemo: all %d steps done\n' "$step"
