#!/bin/sh
# bench/run.sh BUILD_DIR [AREA...]: run the benchmarks of each area (every
# bench/<area>/run.sh, or the named ones). Each prints its figures as medians
# and as ratios against a baseline measured in the same run.
set -eu
build=$(cd "${1:-build}" && pwd)
shift || true
here=$(cd "$(dirname "$0")" && pwd)
areas="$*"
[ -n "$areas" ] || areas=$(cd "$here" && for d in */; do [ -f "$d/run.sh" ] && printf '%s ' "${d%/}"; done)
for a in $areas; do
	echo "==== bench: $a"
	sh "$here/$a/run.sh" "$build"
done
