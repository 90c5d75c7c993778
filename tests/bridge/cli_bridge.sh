#!/bin/sh
# tests/bridge/cli_bridge.sh TOOLGATE SOURCE_DIR: the tool bridge end to end
# through the command line. word_pair (examples/) calls word_count twice and
# adds the counts: it stays pending until its tools:word_count capability is
# approved, then answers; every bridged call is an audit entry. The
# analyzer refuses a tool's own use of fd 3 (write, read, close, dup2).
set -eu
TG=$1
SRC=$2
H=$(mktemp -d /tmp/tg_bridge_cli_XXXXXX)
trap 'rm -rf "$H"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
t() { "$TG" --home "$H/home" "$@"; }

t init >/dev/null
t create "$SRC/examples/word_count" >/dev/null || fail "create word_count"
out=$(t create "$SRC/examples/word_pair") || fail "create word_pair"
echo "$out" | grep -q "word_pair v1: pending" || fail "word_pair not pending: $out"
echo "$out" | grep -q 'test "two texts": pass' || fail "its test (bridged calls) did not pass: $out"
# pending: not callable yet
if t call word_pair '{"a":"x","b":"y"}' 2>"$H/err"; then fail "pending tool was called"; fi
out=$(t approve word_pair@1) || fail "approve"
echo "$out" | grep -q '"tools:word_count"' || fail "approval does not name tools:word_count: $out"
out=$(t call word_pair '{"a":"one two three","b":"four"}') || fail "call word_pair"
[ "$out" = '{"words":4}' ] || fail "word_pair result: $out"
t call --json word_pair '{"a":"a","b":"b"}' | grep -q '"tool_calls": 2' || fail "tool_calls count"
n=$(t log | grep -c 'bridge_call .*"caller":"word_pair@1","callee":"word_count".*"outcome":"ok"') || true
[ "$n" -eq 4 ] || fail "expected 4 audited bridged calls, got $n"
t verify >/dev/null || fail "verify after bridged calls"

# manifest: calls validated
mkdir -p "$H/bad"
cp "$SRC/examples/word_pair/tool.c" "$H/bad/tool.c"
sed 's/"calls": \["word_count"\]/"calls": ["word_pair"]/' "$SRC/examples/word_pair/tool.json" >"$H/bad/tool.json"
if t create "$H/bad" 2>"$H/err"; then fail "a tool calling itself was accepted"; fi
grep -q 'calls\[0\]: a tool cannot call itself' "$H/err" || fail "self call message: $(cat "$H/err")"
sed 's/"calls": \["word_count"\]/"calls": ["host:issue_refund"]/' "$SRC/examples/word_pair/tool.json" >"$H/bad/tool.json"
if t create "$H/bad" 2>"$H/err"; then fail "an unconfigured host tool was accepted"; fi
grep -q 'calls\[0\]: host:issue_refund: this home.s config.json configures no host tool issue_refund' "$H/err" || fail "host tool message: $(cat "$H/err")"
sed 's/"max_tool_calls": 4/"max_tool_calls": 100000/' "$SRC/examples/word_pair/tool.json" >"$H/bad/tool.json"
if t create "$H/bad" 2>"$H/err"; then fail "max_tool_calls over the ceiling was accepted"; fi
grep -q 'limits.max_tool_calls: 100000 exceeds' "$H/err" || fail "ceiling message: $(cat "$H/err")"

# the analyzer: a tool's own code may not touch fd 3
for call in 'write(3, b, 4)' 'read(3, b, 4)' 'close(3)' 'dup2(1, 3)'; do
	fn=${call%%(*}
	cat >"$H/fd3.c" <<EOC
#include <toolgate/tool.h>
int main(void)
{
	char b[4] = {0, 0, 0, 1};
	$call;
	puts("{}");
	return 0;
}
EOC
	if out=$(t check "$H/fd3.c"); then fail "check passed $call"; fi
	# read/write are allowed on 0 (read) and 1/2 (write) only (issue 14)
	echo "$out" | grep -Eq "\[file_access\] $fn( is not allowed|: descriptor 3 is not)" || fail "$call: $out"
done
echo "ok"
