#!/bin/sh
# tests/sdk/pipeline_test.sh TOOLGATE SRC_DIR: every example through the real
# pipeline (`toolgate create`: analyzer, store, sandboxed build and tests) on
# a temporary home, then called: the good ones become active and answer
# exactly; weather is rejected with process and network findings; the buggy
# word_count v2 fails its tests and leaves v1 active; file_stats is refused
# without a workspace, then stays pending until `toolgate approve`, then
# reads the workspace.
set -u
tg=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TOOLGATE_HOME="$tmp/home"
fail=0
field() { # FIELD FILE: a top-level JSON field
	node -e 'const v = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"))[process.argv[1]];
		console.log(typeof v === "object" ? JSON.stringify(v) : String(v))' "$1" "$2"
}
t() { # WANT_RC WANT_STATUS(or -) what -- toolgate args...
	want_rc=$1 want_status=$2 what=$3
	shift 4
	"$tg" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$want_rc" ]; then
		echo "FAIL: $what: exit $rc, want $want_rc"; cat "$tmp/out" "$tmp/err"; fail=1; return
	fi
	if [ "$want_status" != - ] && [ "$(field status "$tmp/out")" != "$want_status" ]; then
		echo "FAIL: $what: status $(field status "$tmp/out"), want $want_status"; fail=1
	fi
}
expect_out() { # what want
	[ "$(cat "$tmp/out")" = "$2" ] || { echo "FAIL: $1: stdout [$(cat "$tmp/out")], want [$2]"; fail=1; }
}

"$tg" init >/dev/null || { echo "FAIL: init"; exit 1; }
for e in word_count stats csv_to_json sort_lines; do
	t 0 active "create $e" -- --json create "$src/examples/$e"
done
t 1 rejected "create weather" -- --json create "$src/examples/weather"
for rule in process network environment; do
	grep -q "\"rule\": *\"$rule\"" "$tmp/out" || { echo "FAIL: weather: no $rule finding"; fail=1; }
done
t 1 failed "create buggy word_count v2" -- --json create "$src/examples/word_count_v2_buggy"
t 0 - "show word_count" -- --json show word_count
[ "$(field version "$tmp/out")" = 1 ] || { echo "FAIL: the buggy v2 became active"; fail=1; }

t 0 - "call word_count" -- call word_count '{"text":"a b\nc"}'
expect_out "call word_count" '{"words":3,"lines":2,"chars":5}'
t 0 - "call stats" -- call stats '{"values":[1,2,3,4]}'
expect_out "call stats" '{"count":4,"mean":2.5,"median":2.5,"stddev":1.118033988749895,"min":1.0,"max":4.0}'
t 1 - "call stats with no values" -- call stats '{"values":[]}'
grep -q "values: need at least one number" "$tmp/err" || { echo "FAIL: stats error message"; fail=1; }
t 2 - "call stats with bad args" -- call stats '{"values":"x"}'
t 0 - "call csv_to_json" -- call csv_to_json '{"csv":"k,v\n\"a,1\",\"x\"\"y\"\n"}'
expect_out "call csv_to_json" '[{"k":"a,1","v":"x\"y"}]'
t 0 - "call sort_lines" -- call sort_lines '{"text":"b\na\nb","unique":true,"reverse":true}'
expect_out "call sort_lines" '{"lines":["b","a"],"count":2}'

# file_stats asks for workspace:read
t 2 - "create file_stats without a workspace" -- create "$src/examples/file_stats"
grep -q "workspace" "$tmp/err" || { echo "FAIL: file_stats: no word about the workspace"; fail=1; }
mkdir -p "$tmp/ws"
printf 'hello world\nsecond line\n' >"$tmp/ws/notes.txt"
printf '{"workspace": "%s"}\n' "$tmp/ws" >"$TOOLGATE_HOME/config.json"
t 0 pending "create file_stats" -- --json create "$src/examples/file_stats"
v=$(field version "$tmp/out")
t 1 - "call pending file_stats (denied: waits for approval)" -- call file_stats '{"file":"notes.txt"}'
t 0 - "approve file_stats" -- approve "file_stats@$v"
t 0 - "call file_stats" -- call file_stats '{"file":"notes.txt"}'
expect_out "call file_stats" '{"file":"notes.txt","bytes":24,"lines":2,"words":4}'
t 1 - "call file_stats on a missing file" -- call file_stats '{"file":"README.md"}'
grep -q "README.md: not found in the workspace" "$tmp/err" || { echo "FAIL: file_stats missing-file message"; fail=1; }
t 1 - "call file_stats outside its list" -- call file_stats '{"file":"../../etc/passwd"}'
t 0 - "verify" -- verify
[ "$fail" -eq 0 ] && echo "every example through the pipeline: ok"
exit $fail
