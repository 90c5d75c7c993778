#!/bin/sh
# tests/registry/rate.sh TOOLGATE SQLEXEC: the create rate limits of
# docs/CONFIG.md (issue 15). home_max_creates_per_minute counts every
# submission to the home in the last minute (CLI and MCP, rejected ones
# too): past it `create` exits 1 naming the key, no version, no store ref,
# a create_refused audit entry. session_max_creates_per_minute counts one
# MCP session's create_tool calls: past it an isError result naming the
# key, while another session (same home) may still create.
. "$(dirname "$0")/lib.sh"

refs() { git --git-dir="$HOME_DIR/store.git" for-each-ref | wc -l; }

run tg init
# 1. the home: 3 a minute; a rejected submission counts as one
printf '{"home_max_creates_per_minute": 3}\n' >"$HOME_DIR/config.json"
d=$(tool_dir word_count)
run tg create "$d"
expect_out '^word_count v1: active' "first create"
bad=$(tool_dir bad_one)
sed -i 's/"word_count"/"bad_one"/' "$bad/tool.json"
sed -i 's/^int main(void)$/int evil(void) { return system("id"); }\nint main(void)/' "$bad/word_count.c"
run tg create "$bad"
expect_out '^bad_one v1: rejected' "a rejection counts"
run tg create "$d"
expect_out '^word_count v2: active' "third create"
before=$(refs)
run tg create "$d"
expect_rc 1 "the fourth in a minute is refused"
expect_err '^toolgate: create: rate limit: home_max_creates_per_minute: 3 tools were submitted to this home in the last minute \(at most 3\): nothing was built or stored; try again in a minute$' "the refusal names the key"
expect_one_line_err "rate refusal"
checks=$((checks + 1))
[ "$(refs)" -eq "$before" ] || fail "the refused create wrote to the store"
run tg history word_count
checks=$((checks + 1))
grep -q ' v3 ' "$OUT" && fail "a refused submission got a version"
run tg log --limit 1
expect_out ' create_refused +word_count +\{"reason":"rate limit: home_max_creates_per_minute: ' "the refusal is audited"

# 2. one MCP session: 2 a minute (the home's limit lifted)
printf '{"home_max_creates_per_minute": 0, "session_max_creates_per_minute": 2}\n' >"$HOME_DIR/config.json"
src='#include <toolgate/tool.h>\nint main(void) { tg_out_object_begin(); tg_out_key_int(\"n\", 1); tg_out_end(); return 0; }\n'
create() { # ID NAME
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"create_tool","arguments":{"name":"%s","description":"one","input_schema":{"type":"object"},"source":"%s","tests":[{"name":"t","args":{},"expect":{"n":1}}]}}}\n' "$1" "$2" "$src"
}
session() { # NAME...: one session creating each NAME in turn
	printf '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"rate","version":"1"}}}\n'
	printf '{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
	i=1
	for n in "$@"; do
		create $i "$n"
		i=$((i + 1))
	done
}
session one_a one_b one_c >"$WORK/in"
run tg serve <"$WORK/in"
expect_rc 0 "serve ends at EOF"
expect_out '^\{"jsonrpc":"2.0","id":1,"result":\{"content":\[\{"type":"text","text":"one_a v1: active' "first create of the session"
expect_out '^\{"jsonrpc":"2.0","id":2,"result":\{"content":\[\{"type":"text","text":"one_b v1: active' "second create of the session"
expect_out '^\{"jsonrpc":"2.0","id":3,"result":\{"content":\[\{"type":"text","text":"create_tool: rate limit: session_max_creates_per_minute: this session submitted 2 tools in the last minute \(at most 2\): nothing was built or stored; try again in a minute"\}\],"isError":true\}\}$' "the third is an isError naming the key"
run tg history one_c
expect_rc 2 "nothing registered for the refused create"
session two_a >"$WORK/in"
run tg serve <"$WORK/in"
expect_out '"id":1,"result":\{"content":\[\{"type":"text","text":"two_a v1: active' "another session may create"

# 3. tests stop at the first failure: the rest reported as skipped, not run
d3=$(tool_dir stop_first)
python3 - "$d3/tool.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["name"] = "stop_first"
t = m["tests"][0]
m["tests"] = [dict(t, name="wrong", expect={"nope": 1}), dict(t, name="second"), dict(t, name="third")]
json.dump(m, open(sys.argv[1], "w"))
PY
run tg --json create "$d3"
expect_rc 1 "a failing test fails the version"
checks=$((checks + 1))
python3 - "$OUT" <<'PY' || fail "tests after the first failure were not skipped"
import json, sys
d = json.load(open(sys.argv[1]))
got = [(t["name"], t["passed"], t["skipped"], t["detail"]) for t in d["tests"]]
assert d["status"] == "failed", d["status"]
assert got[0][:3] == ("wrong", False, False), got
assert got[1:] == [("second", False, True, "skipped: an earlier test failed"),
                   ("third", False, True, "skipped: an earlier test failed")], got
PY
finish rate
