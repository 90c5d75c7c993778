#!/bin/sh
# tests/registry/usage_quota.sh TOOLGATE SQLEXEC: the per-tool and
# per-session byte quotas (quota_tool_mb, quota_session_mb; registry/
# usage.c). A version is charged its store bytes (source, tool.json,
# report) plus its build's disk blocks in cache/ (a small static tool:
# about 0.8 MiB). With quota_tool_mb 1, the third version of a tool is
# refused before any build (exit 1, the exact message naming the key, no
# new ref, no new build folder, a create_refused entry) while another tool
# still creates. Over MCP with quota_session_mb 1, the third create_tool of
# one session is an isError naming the key and stores nothing, while a new
# session still creates. `status` shows the largest use against each quota.
. "$(dirname "$0")/lib.sh"

refs() { git --git-dir="$HOME_DIR/store.git" for-each-ref | wc -l; }
builds() { ls "$HOME_DIR/cache" | grep -c '^[0-9a-f]\{64\}$'; }
run tg init
run tg status
expect_out '^per tool  largest 0\.0 MiB of 128\.0 MiB \(quota_tool_mb\)$' "default tool quota in status"
expect_out '^session   largest 0\.0 MiB of 256\.0 MiB \(quota_session_mb\)$' "default session quota in status"
printf '{"quota_tool_mb": 1}\n' >"$HOME_DIR/config.json"

# 1. one tool: v1 and v2 fit, the third is refused
d=$(tool_dir word_count)
run tg create "$d"
expect_out '^word_count v1: active' "v1"
printf '\n/* v2 */\n' >>"$d/word_count.c"
run tg create "$d"
expect_out '^word_count v2: active' "v2 (the tool held under 1 MiB before it)"
run tg status --json
expect_out '"tool": "word_count"' "status names the tool charged most"
used=$(grep -A3 '"tool_bytes"' "$OUT" | sed -n 's/.*"used_bytes": \([0-9]*\).*/\1/p')
checks=$((checks + 1))
[ "${used:-0}" -ge 1048576 ] || fail "two versions charge ${used:-?} bytes, want at least 1 MiB (two builds)"
before=$(refs)
nb=$(builds)
printf '\n/* v3 */\n' >>"$d/word_count.c"
run tg create "$d"
expect_rc 1 "the third version is refused"
expect_err '^toolgate: create: quota exceeded: quota_tool_mb: word_count holds [0-9]+\.[0-9] MiB \(store and cache\) of its 1\.0 MiB: nothing was built or stored$' "the exact refusal"
expect_one_line_err "tool quota refusal"
checks=$((checks + 1))
[ "$(refs)" -eq "$before" ] || fail "the refused create wrote to the store"
checks=$((checks + 1))
[ "$(builds)" -eq "$nb" ] || fail "the refused create built"
run tg log --limit 1
expect_out ' create_refused +word_count +\{"reason":"quota exceeded: quota_tool_mb: ' "the refusal is audited"
run tg status
expect_out '^per tool  largest [0-9.]+ MiB for word_count of 1\.0 MiB \(quota_tool_mb\)$' "status: use against the tool quota"
d2=$(tool_dir other)
sed -i 's/"name": "word_count"/"name": "other"/' "$d2/tool.json"
printf '\n/* other */\n' >>"$d2/word_count.c"
run tg create "$d2"
expect_out '^other v1: active' "another tool still creates"

# 2. one MCP session: 1 MiB (the tool quota lifted)
printf '{"quota_tool_mb": 0, "quota_session_mb": 1}\n' >"$HOME_DIR/config.json"
session() { # NAME...: one session creating each NAME in turn, each its own build
	python3 - "$@" <<'PY'
import json, sys
def line(o):
    print(json.dumps(o, separators=(",", ":")))
line({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "usage", "version": "1"}}})
line({"jsonrpc": "2.0", "method": "notifications/initialized"})
for i, n in enumerate(sys.argv[1:], 1):
    src = "#include <toolgate/tool.h>\n/* %s */\nint main(void) { tg_out_object_begin(); tg_out_key_int(\"n\", 1); tg_out_end(); return 0; }\n" % n
    line({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "create_tool", "arguments": {"name": n, "description": "one", "input_schema": {"type": "object"}, "source": src, "tests": [{"name": "t", "args": {}, "expect": {"n": 1}}]}}})
PY
}
session s_a s_b s_c >"$WORK/in"
run tg serve <"$WORK/in"
expect_rc 0 "serve ends at EOF"
expect_out '^\{"jsonrpc":"2.0","id":1,"result":\{"content":\[\{"type":"text","text":"s_a v1: active' "first create of the session"
expect_out '^\{"jsonrpc":"2.0","id":2,"result":\{"content":\[\{"type":"text","text":"s_b v1: active' "second create (the session held under 1 MiB)"
expect_out '^\{"jsonrpc":"2.0","id":3,"result":\{"content":\[\{"type":"text","text":"create_tool: quota exceeded: quota_session_mb: this session.s submissions hold [0-9]+\.[0-9] MiB \(store and cache\) of its 1\.0 MiB: nothing was built or stored"\}\],"isError":true\}\}$' "the third is an isError naming the key"
run tg history s_c
expect_rc 2 "nothing stored for the refused create"
run tg status
expect_out '^session   largest [0-9.]+ MiB for mcp:[0-9a-f]+ of 1\.0 MiB \(quota_session_mb\)$' "status: use against the session quota"
session s_d >"$WORK/in"
run tg serve <"$WORK/in"
expect_out '"id":1,"result":\{"content":\[\{"type":"text","text":"s_d v1: active' "another session may create"
finish usage_quota
