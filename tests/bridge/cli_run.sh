#!/bin/sh
# tests/bridge/cli_run.sh TOOLGATE SOURCE_DIR: `toolgate run`, one-off
# programs with the bridge (docs/BRIDGE.md). A program calling word_count
# answers and is recorded (show-run gives back the exact source, whose
# SHA-256 is the recorded one; log --run lists its two bridged calls); it is
# never registered; the call cap counts (the 4th call of a cap of 3 is
# "limit"); an undeclared tool is "denied"; a tool holding approved
# capabilities cannot be declared; a program the analyzer rejects is
# recorded as rejected and never runs.
set -eu
TG=$1
SRC=$2
H=$(mktemp -d /tmp/tg_bridge_run_XXXXXX)
trap 'rm -rf "$H"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
t() { "$TG" --home "$H/home" "$@"; }
P=$SRC/tests/bridge/run/caller.c

t init >/dev/null
t create "$SRC/examples/word_count" >/dev/null || fail "create word_count"
out=$(t run "$SRC/examples/word_pair/tool.c" '{"a":"one two","b":"three"}' --calls word_count 2>"$H/err") ||
	fail "run word_pair's source: $(cat "$H/err")"
[ "$out" = '{"words":3}' ] || fail "run result: $out"
grep -q 'recorded as run 1 (toolgate show-run 1)' "$H/err" || fail "run id: $(cat "$H/err")"
# what ran is kept exactly
t show-run 1 --json >"$H/run1.json"
python3 - "$H/run1.json" "$SRC/examples/word_pair/tool.c" <<'PY' || fail "show-run does not give back what ran"
import json, sys, hashlib
r = json.load(open(sys.argv[1]))
src = open(sys.argv[2], "rb").read()
assert r["source"].encode() == src, "source differs"
assert r["program_sha256"] == hashlib.sha256(src).hexdigest(), "sha256"
assert r["status"] == "ok" and r["tool_calls"] == 2, r
assert r["calls"] == ["word_count"] and r["args"] == {"a": "one two", "b": "three"}
calls = [e for e in r["entries"] if e["event"] == "bridge_call"]
assert [c["details"]["outcome"] for c in calls] == ["ok", "ok"], calls
assert all(c["details"]["callee"] == "word_count" and c["details"]["run"] == 1 for c in calls)
assert calls[0]["details"]["caller"] == "program:" + r["program_sha256"][:16]
rep = json.dumps(r["report"], separators=(",", ":"), ensure_ascii=False)
PY
n=$(t log --run 1 | grep -c '"callee":"word_count".*"outcome":"ok"') || true
[ "$n" -eq 2 ] || fail "log --run 1 shows $n calls"
t log | grep -q ' run .*"run":1,.*"status":"ok"' || fail "no audit entry for the run"
# never registered
t list --json | grep -q word_pair && fail "the program was registered"
# the cap counts every attempt: the 4th call of a cap of 3 is refused
out=$(t run "$P" '{"n":4}' --calls word_count --max-tool-calls 3 2>/dev/null) || fail "cap run"
[ "$out" = '["ok:2","ok:2","ok:2","limit"]' ] || fail "cap: $out"
# a tool not in --calls
out=$(t run "$P" '{"n":2,"tool":"stats"}' --calls word_count 2>/dev/null) || fail "undeclared run"
[ "$out" = '["denied","denied"]' ] || fail "undeclared: $out"
# no --calls at all: fd 3 is closed, every call fails in the SDK
out=$(t run "$P" '{"n":1}' 2>/dev/null) || fail "no-calls run"
[ "$out" = '["bridge"]' ] || fail "no calls: $out"
# a callee holding approved capabilities cannot be declared
t create "$SRC/examples/word_pair" >/dev/null || fail "create word_pair"
t approve word_pair@1 >/dev/null || fail "approve word_pair"
rc=0; t run "$P" '{}' --calls word_pair 2>"$H/err" || rc=$?
[ $rc -eq 1 ] || fail "exit $rc for a callee with capabilities"
grep -q '^toolgate: run: calls\[0\]: word_pair holds capabilities a person approved; a one-off program may call only tools that hold none' "$H/err" ||
	fail "callee with capabilities: $(cat "$H/err")"
rc=0; t run "$P" '{}' --calls host:nope 2>"$H/err" || rc=$?
[ $rc -eq 2 ] || fail "exit $rc for an unconfigured host tool"
grep -q "calls\[0\]: host:nope: this home's config.json configures no host tool nope" "$H/err" || fail "host: $(cat "$H/err")"
rc=0; t run "$P" '{}' --calls word_count --max-tool-calls 100000 2>"$H/err" || rc=$?
[ $rc -eq 2 ] || fail "exit $rc for a cap over the ceiling"
grep -q 'limits.max_tool_calls: 100000 exceeds' "$H/err" || fail "ceiling: $(cat "$H/err")"
# the analyzer rejects: recorded, never run
cat >"$H/bad.c" <<'EOC'
#include <toolgate/tool.h>
#include <stdio.h>
int main(void)
{
	FILE *f = fopen("/etc/passwd", "r");
	puts(f ? "{}" : "[]");
	return 0;
}
EOC
rc=0; out=$(t run "$H/bad.c" 2>"$H/err") || rc=$?
[ $rc -eq 1 ] || fail "exit $rc for a rejected program"
grep -q '^toolgate: run: rejected: the analyzer rejected the source' "$H/err" || fail "reject: $(cat "$H/err")"
id=$(sed -n 's/.*recorded as run \([0-9]*\).*/\1/p' "$H/err")
t show-run "$id" --json | python3 -c "
import json,sys; r=json.load(sys.stdin)
assert r['status']=='rejected' and r['tool_calls']==0, r
assert any(f['rule']=='file_access' for f in r['report']['findings']), r['report']
" || fail "rejected run record"
t verify >/dev/null || fail "verify after runs"
echo ok
