#!/bin/sh
# bench/mcp/run.sh BUILD_DIR: 1,000 sequential tools/call of a registered tool
# through the official MCP SDK client (toolgate serve), next to the same tool
# binary spawned bare with the same stdin 1,000 times, in the same run:
# a pooled server (SANDBOX_POOL, default 2) and an unpooled one, interleaved.
# Prints median and p99 per call and their ratios. N=... changes the count.
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ ! -d "$root/tests/mcp/node_modules/@modelcontextprotocol/sdk" ]; then
	(cd "$root/tests/mcp" && npm ci --no-audit --no-fund --loglevel=error)
fi
exec node "$here/bench.mjs" "$build/cli/toolgate" "${N:-1000}"
