#!/bin/sh
# bench/analyzer/run.sh BUILD_DIR: the analyzer's benchmark. Times a full vet
# (`toolgate check`) of a 200-line and a 2,000-line tool against
# `clang -fsyntax-only`, clang-tidy and cppcheck on the same files in the same
# run (hyperfine: wall-clock medians, and mean CPU = user + system of the
# process and its children, which suffers less from a loaded machine), prints
# the ratios to clang -fsyntax-only, and adds tg_analyze() measured inside one
# process (bench_analyzer), without the fixed process start and libclang load.
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tg="$build/cli/toolgate"
inproc="$build/bench/analyzer/bench_analyzer"
runs=${RUNS:-20}
for t in hyperfine clang-14 clang-tidy-14 cppcheck; do
	command -v $t >/dev/null 2>&1 || { echo "bench/analyzer: $t missing (apt-get install -y hyperfine clang-tidy cppcheck)"; exit 2; }
done
[ -x "$tg" ] && [ -x "$inproc" ] || { echo "bench/analyzer: build toolgate and bench_analyzer in $build first"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/home"

# the 2,000-line tool: the BODY of tool200.c twelve times, renamed
cp "$here/tool200.c" "$tmp/tool200.c"
{
	sed -n '1,/BEGIN BODY/p' "$here/tool200.c"
	for k in 0 1 2 3 4 5 6 7 8 9 10 11; do
		sed -n '/BEGIN BODY/,/END BODY/p' "$here/tool200.c" | sed '1d;$d' | sed "s/t0_/t${k}_/g"
	done
	printf 'int main(void)\n{\n\tstatic char in[1 << 16];\n\tsize_t n = fread(in, 1, sizeof(in) - 1, stdin);\n\tin[n] = 0;\n'
	for k in 0 1 2 3 4 5 6 7 8 9 10 11; do
		printf '\tif (t%s_run(in, n) < 0)\n\t\treturn 1;\n' $k
	done
	printf '\treturn 0;\n}\n'
} > "$tmp/tool2000.c"

ratio() { awk -v x="$1" -v y="$2" 'BEGIN { printf "%.2f", x / y }'; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; $runs runs each"
printf '%-9s %5s | %-24s | %-24s | %-24s | %-24s | %s\n' file lines \
	"toolgate check" "clang -fsyntax-only" "clang-tidy" "cppcheck" "in-process tg_analyze"
printf '%-9s %5s | %-24s | %-24s | %-24s | %-24s | %s\n' "" "" \
	"wall med / cpu  (x clang)" "wall med / cpu" "wall med / cpu  (x clang)" "wall med / cpu  (x clang)" "wall med (min) / cpu"
for f in tool200 tool2000; do
	src="$tmp/$f.c"
	"$tg" --home "$tmp/home" check "$src" >/dev/null || { echo "bench/analyzer: $f is rejected"; exit 1; }
	hyperfine -N --warmup 3 --runs "$runs" --export-csv "$tmp/$f.csv" \
		-n toolgate "$tg --home $tmp/home check $src" \
		-n clang "clang-14 -fsyntax-only -std=gnu11 $src" \
		-n tidy "clang-tidy-14 --quiet --checks=-*,cert-env33-c,concurrency-mt-unsafe,bugprone-* $src -- -std=gnu11" \
		-n cppcheck "cppcheck -q --enable=all --suppress=missingIncludeSystem $src" >/dev/null 2>&1
	# csv: command,mean,stddev,median,user,system,min,max (seconds)
	med() { awk -F, -v n="$1" '$1 == n { printf "%.1f", $4 * 1000 }' "$tmp/$f.csv"; }
	cpu() { awk -F, -v n="$1" '$1 == n { printf "%.1f", ($5 + $6) * 1000 }' "$tmp/$f.csv"; }
	a=$(med toolgate); c=$(med clang); t=$(med tidy); p=$(med cppcheck)
	ac=$(cpu toolgate); cc=$(cpu clang); tc=$(cpu tidy); pc=$(cpu cppcheck)
	set -- $("$inproc" "$src" "$runs")
	printf '%-9s %5s | %-24s | %-24s | %-24s | %-24s | %s\n' "$f" "$(wc -l < "$src")" \
		"$a/${ac}ms ($(ratio "$a" "$c")/$(ratio "$ac" "$cc")x)" "$c/${cc}ms" \
		"$t/${tc}ms ($(ratio "$t" "$c")/$(ratio "$tc" "$cc")x)" \
		"$p/${pc}ms ($(ratio "$p" "$c")/$(ratio "$pc" "$cc")x)" "$1 ($2) / $3 ms"
done
echo "target: toolgate check of the 200-line tool under 1.5x clang -fsyntax-only (same run)"
