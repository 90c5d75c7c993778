#!/bin/sh
# tests/registry/status_overview.sh TOOLGATE SQLEXEC: the one-screen
# `toolgate status` (issue 14): tools and active versions, versions awaiting
# approval (count and names), rejections of the last 24 hours (with their
# reason), calls of the last 24 hours and the session budget defaults of
# config.json, in text and as new --json keys, while the quota lines and
# keys stay.
. "$(dirname "$0")/lib.sh"

mkdir -p "$WORK/ws"
run tg init
expect_rc 0 "init"
printf '{"workspace": "%s", "session_max_calls": 7, "session_max_creates": 0, "session_hide_write_tools": true}\n' \
	"$WORK/ws" >"$HOME_DIR/config.json"
run tg status
expect_rc 0 "status on a new home"
expect_out '^tools +0, 0 with an active version$' "no tools"
expect_out '^pending +0 versions awaiting approval$' "nothing pending"
expect_out '^rejects +0 in the last 24 hours$' "no rejection"
expect_out '^sessions +budget per MCP session: 7 calls, creates unlimited, write tools hidden \(config.json\)$' "session defaults"

# one active tool, called once
run tg create "$(tool_dir word_count)"
expect_rc 0 "create word_count"
run tg call word_count '{"text": "a b"}'
expect_rc 0 "call"
# one rejected submission
d=$(tool_dir bad_tool)
sed -i 's/"word_count"/"bad_tool"/' "$d/tool.json"
sed -i 's/^int main(void)$/int evil(void) { return system("id"); }\nint main(void)/' "$d/word_count.c"
run tg create "$d"
expect_rc 1 "create bad_tool is rejected"
# one pending version (asks for a capability)
w=$WORK/src/ws_tool
mkdir -p "$w"
cp "$HERE/tools/word_count.c" "$w/tool.c"
sed 's/"word_count"/"ws_tool"/; s/"source": "word_count.c"/"source": "tool.c"/; s/"capabilities": \[\]/"capabilities": ["workspace:read"]/' \
	"$HERE/tools/word_count.json" >"$w/tool.json"
run tg create "$w"
expect_rc 0 "create ws_tool"
expect_out '^ws_tool v1: pending' "ws_tool is pending"

run tg status
expect_rc 0 "status"
expect_out '^tools +3, 1 with an active version$' "three tools, one active"
expect_out '^pending +1 version awaiting approval: ws_tool v1$' "the pending version named"
expect_out '^rejects +1 in the last 24 hours:$' "the rejections follow"
expect_out '^          bad_tool v1: the analyzer rejected the source' "the rejection with its reason, on its own line"
expect_out '^calls +1 in the last 24 hours$' "one call"
expect_out '^home +[0-9.]+ MiB of 1024\.0 MiB \(quota_home_mb\)' "the quota lines stay"
expect_out '^rejected +1 in the last hour for bad_tool of 20 \(max_rejected_per_tool_hour\)$' "the per-hour quota line stays"
run tg --json status
expect_rc 0 "status --json"
expect_out '"quota_bytes": [0-9]+' "the quota keys stay"
expect_out '"total": 3' "tools.total"
expect_out '"active": 1' "tools.active"
checks=$((checks + 1))
tr -d ' \n' <"$OUT" | grep -q '"pending":{"count":1,"first":\[{"name":"ws_tool","version":1,"status":"pending"' || fail "pending.first"
checks=$((checks + 1))
tr -d ' \n' <"$OUT" | grep -q '"rejections_24h":{"count":1,"recent":\[{"name":"bad_tool","version":1,"status":"rejected"' || fail "rejections_24h.recent"
checks=$((checks + 1))
tr -d ' \n' <"$OUT" | grep -q '"session_defaults":{"max_calls":7,"max_creates":0,"hide_write_tools":true}' || fail "session_defaults"
run tg status extra
expect_rc 2 "status takes no argument"
finish status_overview
