#!/bin/sh
# tests/hygiene/make_install.sh SRC_DIR BUILD_DIR: `make install PREFIX=...`
# reuses a build folder as it is (issue 29): it installs into PREFIX without
# configuring the folder anew, so nothing is compiled or linked again and
# the folder's cache (TG_WERROR, CMAKE_INSTALL_PREFIX) is unchanged; and
# `make build` passes TG_WERROR to CMake only when it is given.
set -u
src=$1
build=$2
tmp=$(mktemp -d /tmp/tg_make_install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
command -v make >/dev/null 2>&1 || { echo "make not found: skipped"; exit 77; }
[ -f "$build/CMakeCache.txt" ] || { echo "no CMakeCache.txt in $build: skipped"; exit 77; }

# up to date first: what follows must then build nothing
cmake --build "$build" -j2 >/dev/null 2>&1 || fail "the build folder does not build"
before=$(grep -E '^(TG_WERROR|CMAKE_INSTALL_PREFIX):' "$build/CMakeCache.txt")
env -u TG_WERROR -u CMAKE_FLAGS make -C "$src" install BUILD="$build" PREFIX="$tmp/prefix" \
	>"$tmp/out" 2>&1 || { fail "make install exited $?"; cat "$tmp/out"; }
grep -E 'Building C object|Linking C (executable|static library)' "$tmp/out" >"$tmp/rebuilt" &&
	fail "make install compiled again: $(wc -l <"$tmp/rebuilt") steps, e.g. $(head -n 1 "$tmp/rebuilt")"
grep -q -- '-- Configuring done' "$tmp/out" && fail "make install configured the build folder anew"
[ -x "$tmp/prefix/bin/toolgate" ] || fail "no $tmp/prefix/bin/toolgate"
[ -f "$tmp/prefix/share/toolgate/include/toolgate/tool.h" ] || fail "no SDK header under the prefix"
[ -f "$tmp/prefix/share/toolgate/include/toolgate/workspace.h" ] || fail "the SDK's parts not installed"
after=$(grep -E '^(TG_WERROR|CMAKE_INSTALL_PREFIX):' "$build/CMakeCache.txt")
[ "$before" = "$after" ] || fail "the build folder's cache changed: '$before' -> '$after'"
# the installed binary runs from its prefix
"$tmp/prefix/bin/toolgate" --help >/dev/null 2>&1 || fail "the installed toolgate does not run"

# TG_WERROR reaches CMake only when given
env -u TG_WERROR make -n -C "$src" build BUILD="$build" >"$tmp/dry" 2>&1
grep -q -- '-DTG_WERROR' "$tmp/dry" && fail "make build passes TG_WERROR though it was not given"
TG_WERROR=ON make -n -C "$src" build BUILD="$build" >"$tmp/dry" 2>&1
grep -q -- '-DTG_WERROR=ON' "$tmp/dry" || fail "make build does not pass a given TG_WERROR"

[ "$fails" -eq 0 ] && { echo "make_install: ok"; exit 0; }
exit 1
