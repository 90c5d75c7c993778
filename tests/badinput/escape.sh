#!/bin/sh
# tests/badinput/escape.sh TOOLGATE: text an agent controls must not reach
# the user's terminal as control characters, and a CLI error stays one line.
#  1. a manifest key holding ESC sequences, CR and LF: `toolgate create`
#     must refuse it with one error line free of control characters;
#  2. the same key through MCP create_tool: the error text must be free of
#     control characters;
#  3. a registered tool failing with ESC, CR and LF on stderr: `toolgate call`
#     prints one error line free of control characters.
set -u
tg=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../reliability/lib.sh"
work=$(mktemp -d /tmp/tg_esc.XXXXXX)
home=$work/home
trap 'rm -rf "$work"' EXIT
"$tg" --home "$home" init >/dev/null || fail "init"
bad=0
has_ctl() { LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$1"; }

mkdir -p "$work/m"
cp "$here/fixtures/esc/tool.c" "$work/m/"
printf '{"name":"rel_x","description":"d","input_schema":{"type":"object"},"source":"tool.c","tests":[{"name":"t","args":{},"expect":1}],"\\u001b[2J\\u001b[32mtoolgate: create: rel_x v1 active\\n\\rx":1}' > "$work/m/tool.json"
"$tg" --home "$home" create "$work/m" > /dev/null 2> "$work/err"; rc=$?
[ $rc -eq 2 ] || fail "create with an escape key: exit $rc"
if [ "$(wc -l < "$work/err")" -ne 1 ] || has_ctl "$work/err"; then
	echo "1: create's error carries control characters or several lines:"; cat -A "$work/err"; bad=1
fi

node -e '
const { spawnSync } = require("child_process");
const [tg, home] = process.argv.slice(1);
const lines = [
  { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "create_tool", arguments: {
    name: "rel_y", description: "d", input_schema: { type: "object" }, source: "int main(void) { return 0; }\n",
    tests: [{ name: "t", args: {}, expect: 1, "\u001b[2Jx\ny": 1 }] } } },
].map((m) => JSON.stringify(m)).join("\n") + "\n";
const r = spawnSync(tg, ["--home", home, "serve"], { input: lines, encoding: "utf8" });
const a = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((m) => m.id === 2);
const text = a && a.result && a.result.content[0].text;
if (!a || !a.result.isError) { console.log("2: no isError result: " + r.stdout); process.exit(2); }
if (/[\u0000-\u001f\u007f]/.test(text)) { console.log("2: MCP error text carries control characters: " + JSON.stringify(text)); process.exit(1); }
' "$tg" "$home"
case $? in 0) ;; 1) bad=1 ;; *) fail "MCP session" ;; esac

"$tg" --home "$home" create "$here/fixtures/esc" > /dev/null 2> "$work/err" || { cat "$work/err"; fail "create the escape tool"; }
"$tg" --home "$home" call rel_esc '{}' > /dev/null 2> "$work/err"; rc=$?
[ $rc -eq 1 ] || fail "call rel_esc: exit $rc"
if [ "$(wc -l < "$work/err")" -ne 1 ] || has_ctl "$work/err"; then
	echo "3: call's error carries control characters or several lines:"; cat -A "$work/err"; bad=1
fi
[ $bad -eq 0 ] || fail "agent-controlled text reaches the terminal unscrubbed"
echo "escape: errors are one line without control characters: ok"
