#!/bin/sh
# tests/sdk/check_examples.sh TOOLGATE SRC_DIR: `toolgate check` on the SDK:
# every good example (and the SDK test tools) includes toolgate/tool.h and
# must pass the analyzer; the malicious weather example must be rejected with
# process, network and environment findings; file_stats, checked without its
# workspace:read capability, must be rejected for file access only.
set -u
tg=$1
src=$2
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
fail=0
n=0
for f in "$src"/examples/*/tool.c "$src"/tests/sdk/tools/*.c; do
	case "$f" in */weather/* | */file_stats/*) continue ;; esac
	if ! out=$("$tg" --home "$home" check "$f" 2>&1); then
		echo "FAIL: $f does not pass toolgate check:"; echo "$out"; fail=1
	fi
	n=$((n + 1))
done
out=$("$tg" --home "$home" check --json "$src/examples/weather/tool.c" 2>&1)
rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: weather: exit $rc, want 1"; fail=1; }
for rule in process network environment; do
	echo "$out" | grep -q "\"rule\": *\"$rule\"" || { echo "FAIL: weather: no $rule finding"; echo "$out"; fail=1; }
done
out=$("$tg" --home "$home" check --json "$src/examples/file_stats/tool.c" 2>&1)
rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: file_stats without capability: exit $rc, want 1"; fail=1; }
rules=$(echo "$out" | sed -n 's/.*"rule": *"\([a-z_]*\)".*/\1/p' | sort -u | tr '\n' ' ')
[ "$rules" = "file_access " ] || { echo "FAIL: file_stats: rules [$rules], want [file_access ]"; fail=1; }
echo "checked $n tools with the SDK, weather and file_stats"
exit $fail
