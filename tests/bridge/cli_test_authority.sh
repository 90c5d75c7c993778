#!/bin/sh
# tests/bridge/cli_test_authority.sh TOOLGATE SOURCE_DIR: tests and re-tests
# run under a test's authority (registry/authz/, docs/THREAT_MODEL.md "One
# decision"). writer holds workspace:write (approved, a real workspace with
# a seeded log.txt); caller (authz/relay.c) "calls" writer and word_count.
# Asserted:
#  - a test of caller that drives writer without "tool_results" fails the
#    create with "unexpected call to tools:writer: the test declares no
#    tool_results for it" (its expect is what writer's real run would give,
#    so a create that ran writer would pass) and log.txt is unchanged; the
#    bridge_call entry is "denied";
#  - with "tool_results": {"writer": ...} the create passes from the
#    fixture (bridge_call "fixture"), log.txt still unchanged; a
#    capability-free callee (word_count) runs for real in a test ("ok");
#  - the same over MCP stdio (create_tool); with --hide-write-tools writer
#    is absent for the session's tests (bridge code "unknown", "no active
#    tool named writer"), fixture or not, and log.txt is unchanged;
#  - a create_tool over stdio with --max-calls 3 whose test makes 5 bridged
#    calls: the session's call 1 is the create, calls 2 and 3 run, the rest
#    are refused (bridge code "limit", bridge_call "session_limit");
#  - a pull: a remote's version of relay_w whose test calls writer (absent
#    on the remote) is re-tested here without running writer (log.txt
#    unchanged) and fails its re-test with the unexpected call; with
#    pull_test_max_tool_calls 2 a re-test making 5 capability-free calls
#    sees calls 3.. refused (bridge_call "session_limit") and fails.
set -eu
TG=$1
SRC=$2
H=$(mktemp -d /tmp/tg_test_authority_XXXXXX)
trap 'rm -rf "$H"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
t() { "$TG" --home "$H/home" "$@"; }
r() { "$TG" --home "$H/remote" "$@"; }
js() { python3 -c "import json,sys; d=json.load(sys.stdin); r=($1); print(r)"; }
A=$SRC/tests/bridge/authz
SEED='seed'
ws_same() { [ "$(cat "$H/ws/log.txt")" = "$SEED" ] || fail "$1: the workspace changed: $(cat "$H/ws/log.txt")"; }
# tool DIR NAME SOURCE CALLS TESTS [CAPS]: a tool folder
tool() {
	mkdir -p "$H/$1"
	cp "$3" "$H/$1/tool.c"
	cat >"$H/$1/tool.json" <<EOJ
{"name": "$2", "description": "authority test tool $2",
 "input_schema": {"type": "object", "properties": {"tool": {"type": "string"},
   "via": {"type": "string"}, "n": {"type": "integer"}, "text": {"type": "string"}},
   "additionalProperties": false},
 "source": "tool.c", "tests": $5, "limits": {"timeout_ms": 5000, "max_tool_calls": 8},
 "calls": $4, "capabilities": ${6:-[]}}
EOJ
	# a tool without calls has no "calls" entry
	[ "$4" != '[]' ] || python3 - "$H/$1/tool.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); del m["calls"]; json.dump(m, open(sys.argv[1], "w"))
PY
}
# bridge_calls CALLER: "callee outcome" of each bridge_call entry of CALLER
bridge_calls() {
	t log --json --limit 1000 | python3 -c "
import json, sys
for e in json.load(sys.stdin):
    d = e.get('details') or {}
    if e['event'] == 'bridge_call' and d.get('caller') == '$1':
        print(d['callee'], d['outcome'])"
}

t init >/dev/null
mkdir -p "$H/ws"
chmod 777 "$H/ws"
printf '%s\n' "$SEED" >"$H/ws/log.txt"
chmod 666 "$H/ws/log.txt"
printf '{"workspace": "%s"}\n' "$H/ws" >"$H/home/config.json"
t create "$SRC/examples/word_count" >/dev/null || fail "create word_count"
tool writer writer "$A/writer.c" '[]' '[{"name": "no workspace", "args": {"text": "t"}, "expect": {"entry": 0}}]' '["workspace:write"]'
t create "$H/writer" >/dev/null || fail "create writer"
t approve writer@1 >/dev/null || fail "approve writer"
# writer writes for real when called: the workspace is writable
[ "$(t call writer '{"text":"probe"}')" = '{"entry":2}' ] || fail "writer does not write"
printf '%s\n' "$SEED" >"$H/ws/log.txt"

# 1. a test drives writer with no tool_results: the create fails, writer never runs
REAL='{"calls": ["ok"], "message": "", "result": {"entry": 2}}'
tool c1 caller "$A/relay.c" '["writer", "word_count"]' \
	"[{\"name\": \"drives writer\", \"args\": {\"tool\": \"writer\"}, \"expect\": $REAL}]"
if out=$(t create "$H/c1" 2>&1); then fail "a test ran writer: $out"; fi
echo "$out" | grep -q 'test "drives writer": FAIL: unexpected call to tools:writer: the test declares no tool_results for it' ||
	fail "no unexpected-call failure: $out"
ws_same "create without tool_results"
[ "$(bridge_calls caller@test)" = "writer denied" ] || fail "audit: $(bridge_calls caller@test)"

# 2. with tool_results: the fixture answers, the workspace is unchanged; a
# capability-free callee runs for real
FIX='{"calls": ["ok"], "message": "", "result": {"entry": 7}}'
WC='{"calls": ["ok"], "message": "", "result": {"words": 2, "lines": 1, "chars": 3}}'
tool c2 caller "$A/relay.c" '["writer", "word_count"]' \
	"[{\"name\": \"fixture\", \"args\": {\"tool\": \"writer\"}, \"tool_results\": {\"writer\": {\"entry\": 7}}, \"expect\": $FIX},
	  {\"name\": \"real callee\", \"args\": {\"tool\": \"word_count\"}, \"expect\": $WC}]"
out=$(t create "$H/c2" 2>&1) || fail "create with tool_results: $out"
echo "$out" | grep -q 'caller v2: pending' || fail "caller v2 not pending: $out"
ws_same "create with tool_results"
[ "$(bridge_calls caller@test | tr '\n' ,)" = "writer denied,writer fixture,word_count ok," ] ||
	fail "audit: $(bridge_calls caller@test)"

# 3. the same over MCP stdio, as the local operator and with --hide-write-tools
ans() { python3 "$A/create_stdio.py" "$TG" "$H/home" "$@" 2>>"$H/serve.err"; }
out=$(ans "$H/c1") || fail "stdio create: $out"
[ "$(printf '%s\n' "$out" | js "d['result']['isError'], d['result']['structuredContent']['tests'][0]['detail']")" = \
	"(True, 'unexpected call to tools:writer: the test declares no tool_results for it')" ] || fail "stdio create without tool_results: $out"
ws_same "stdio create without tool_results"
out=$(ans "$H/c2") || fail "stdio create: $out"
[ "$(printf '%s\n' "$out" | js "d['result']['structuredContent']['status']")" = pending ] || fail "stdio create with tool_results: $out"
ws_same "stdio create with tool_results"
for d in c1 c2; do
	want='{"calls":["ok"],"message":"","result":{"entry":2}}'
	[ $d = c1 ] || want='{"calls":["ok"],"message":"","result":{"entry":7}}'
	out=$(ans "$H/$d" --hide-write-tools) || fail "hidden stdio create: $out"
	[ "$(printf '%s\n' "$out" | js "d['result']['isError'], d['result']['structuredContent']['tests'][0]['detail']")" = \
		"(True, 'expected $want, got {\"calls\":[\"unknown\"],\"message\":\"no active tool named writer\",\"result\":null}')" ] ||
		fail "$d with --hide-write-tools: $out"
	ws_same "hidden stdio create $d"
done
[ "$(bridge_calls caller@test | tail -2 | tr '\n' ,)" = "writer unknown,writer unknown," ] || fail "hidden audit: $(bridge_calls caller@test)"

# 4. the session's call budget counts a create's bridged calls
LIM='call budget exhausted: this session allows 3 tool calls (--max-calls / session_max_calls); the call to word_count is refused'
tool c3 counter "$A/relay.c" '["word_count"]' \
	"[{\"name\": \"five calls\", \"args\": {\"tool\": \"word_count\", \"n\": 5},
	   \"expect\": {\"calls\": [\"ok\", \"ok\", \"limit\", \"limit\", \"limit\"], \"message\": \"$LIM\",
	                \"result\": {\"words\": 2, \"lines\": 1, \"chars\": 3}}}]"
out=$(ans "$H/c3" --max-calls 3) || fail "budget create: $out"
[ "$(printf '%s\n' "$out" | js "d['result']['structuredContent']['status']")" = pending ] || fail "budget create: $out"
[ "$(bridge_calls counter@test | tr '\n' ,)" = "word_count ok,word_count ok,word_count session_limit,word_count session_limit,word_count session_limit," ] ||
	fail "budget audit: $(bridge_calls counter@test)"

# 5. a pull's re-tests: a remote's test that drives writer, and the pull's budget
git init -q --bare "$H/hub.git"
r init >/dev/null
r remote add origin "$H/hub.git" >/dev/null
t remote add origin "$H/hub.git" >/dev/null
ON_REMOTE='{"calls": ["unknown"], "message": "no active tool named writer", "result": null}'
tool rw relay_w "$A/relay.c" '["writer"]' \
	"[{\"name\": \"drives writer\", \"args\": {\"tool\": \"writer\"}, \"expect\": $ON_REMOTE}]"
r create "$H/rw" >/dev/null || fail "remote create relay_w"
r push >/dev/null || fail "remote push"
set +e
t pull --json >"$H/p1.json" 2>"$H/p1.err"
set -e
ws_same "pull"
python3 - "$H/p1.json" <<'PY' || fail "pull 1: $(cat "$H/p1.json" "$H/p1.err")"
import json, sys
d = json.load(open(sys.argv[1]))
[v] = [x for x in d["tools"] if x["name"] == "relay_w"]
[ver] = v["versions"]
assert ver["status"] == "failed" and ver["disagree"] and ver["claimed_status"] == "pending", ver
assert ver["reason"] == ('1 of 1 tests failed; test "drives writer" failed: unexpected call to '
                         'tools:writer: the test declares no tool_results for it'), ver["reason"]
PY
[ "$(bridge_calls relay_w@test)" = "writer denied" ] || fail "pull audit: $(bridge_calls relay_w@test)"

# relay_n's test calls word_count 5 times: the remote has no word_count, so
# there its test sees "unknown"; here word_count runs for real, twice
ON_REMOTE5='{"calls": ["unknown", "unknown", "unknown", "unknown", "unknown"], "message": "no active tool named word_count", "result": null}'
tool rn relay_n "$A/relay.c" '["word_count"]' \
	"[{\"name\": \"five calls\", \"args\": {\"tool\": \"word_count\", \"n\": 5}, \"expect\": $ON_REMOTE5}]"
r create "$H/rn" >/dev/null || fail "remote create relay_n"
r push >/dev/null || fail "remote push 2"
printf '{"workspace": "%s", "pull_test_max_tool_calls": 2}\n' "$H/ws" >"$H/home/config.json"
set +e
t pull --json >"$H/p2.json" 2>"$H/p2.err"
set -e
[ "$(bridge_calls relay_n@test | tr '\n' ,)" = "word_count ok,word_count ok,word_count session_limit,word_count session_limit,word_count session_limit," ] ||
	fail "pull budget audit: $(bridge_calls relay_n@test) $(cat "$H/p2.json")"
python3 - "$H/p2.json" <<'PY' || fail "pull 2: $(cat "$H/p2.json" "$H/p2.err")"
import json, sys
d = json.load(open(sys.argv[1]))
[v] = [x for x in d["tools"] if x["name"] == "relay_n"]
[ver] = v["versions"]
got = ('{"calls":["ok","ok","limit","limit","limit"],"message":"the re-tests of this pull may make 2 '
       'bridged calls in all (pull_test_max_tool_calls); the call to word_count is refused",'
       '"result":{"words":2,"lines":1,"chars":3}}')
assert ver["status"] == "failed" and ver["reason"].endswith(", got " + got), ver["reason"]
PY
ws_same "the end"
t verify >/dev/null || fail "verify: $(t verify --json)"
echo ok
