#!/bin/sh
# bench/builds/run.sh NEW_BUILD [OLD_BUILD]: two builds of toolgate side by
# side in one run, alternating (bench_sandbox_ab), so a change's cost is a
# ratio against the build before it measured on the same machine at the
# same time. With no OLD_BUILD (bench/run.sh), TG_BENCH_OLD names it, else
# this part is skipped. Three figures, each median, p25/p75 and p99 of
# TG_BENCH_RUNS (default 30) runs and the new/old ratio:
#  1. `toolgate sandbox exec -- hello` (a static hello);
#  2. `toolgate call word_count` (cached binary, each build its own home);
#  3. `toolgate create` of word_count with a new source each run (a counter
#     in a comment, written by a small wrapper both builds share, so
#     nothing is cached).
# The issue-12 target: no figure past 1.3x.
set -eu
new=$(cd "${1:-build}" && pwd)
old=${2:-${TG_BENCH_OLD:-}}
if [ -z "$old" ]; then
	echo "bench/builds: no old build given (TG_BENCH_OLD=DIR): skipped"
	exit 0
fi
old=$(cd "$old" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
runs=${TG_BENCH_RUNS:-30}
ab=$new/bench/sandbox/bench_sandbox_ab
hello=$new/bench/sandbox/bench_sandbox_hello
work=$(mktemp -d /tmp/tg_bench_builds.XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "== sandbox exec -- hello: A = $old, B = $new"
"$ab" "$runs" "$old/cli/toolgate" sandbox exec -- "$hello" :: \
	"$new/cli/toolgate" sandbox exec -- "$hello"

for side in old new; do
	eval "b=\$$side"
	"$b/cli/toolgate" --home "$work/$side" init >/dev/null
	# TG_BENCH_NEW_CONFIG: config.json of the new build's home (keys the old
	# build may not know, e.g. {"property_tests":0,"promotion":"tests"} to
	# compare the pipelines without the new build's extra steps)
	if [ "$side" = new ] && [ -n "${TG_BENCH_NEW_CONFIG:-}" ]; then
		printf '%s\n' "$TG_BENCH_NEW_CONFIG" >"$work/new/config.json"
	fi
	"$b/cli/toolgate" --home "$work/$side" create "$src/examples/word_count" >/dev/null
	# create wrapper: a fresh source each run
	mkdir -p "$work/$side-tool"
	cp "$src/examples/word_count/tool.json" "$work/$side-tool/"
	cat >"$work/$side-create.sh" <<EOS
#!/bin/sh
n=\$(cat "$work/$side-n" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"$work/$side-n"
{ cat "$src/examples/word_count/tool.c"; echo "/* run \$n */"; } >"$work/$side-tool/tool.c"
exec "$b/cli/toolgate" --home "$work/$side" create "$work/$side-tool"
EOS
	chmod +x "$work/$side-create.sh"
done
echo "== call word_count: A = old, B = new"
"$ab" "$runs" "$old/cli/toolgate" --home "$work/old" call word_count '{"text":"a b c"}' :: \
	"$new/cli/toolgate" --home "$work/new" call word_count '{"text":"a b c"}'
echo "== create word_count (a new source each run): A = old, B = new"
"$ab" "$((runs / 3 > 5 ? runs / 3 : 5))" "$work/old-create.sh" :: "$work/new-create.sh"
