#!/bin/sh
# bench/shadow/run.sh BUILD_DIR: what "a new version earns its place" costs
# (docs/REGISTRY.md), each side by side with its baseline in the same run,
# alternating so that the machine's load falls on both alike:
#  1. shadow runs at create: word_count (examples/word_count) with 32
#     recorded calls; TG_BENCH_ROUNDS (default 12) rounds, each of a new
#     source (a counter in a comment: nothing cached): the samples purged
#     and 32 calls recorded on the active version, then one create under
#     promotion "shadow" ("fresh": the recorded calls are the active
#     version's second runs), one under "tests" (shadow runs off) and one
#     more under "shadow" ("older": the samples were recorded on the version
#     before the active one, which runs twice). Wall time of each `toolgate
#     create`, median and p99 (the max at these counts) per kind, and the
#     reports' own wall_ms. Target: <= 1 s added at the median.
#  2. recording per call: `toolgate serve` (stdio) with TG_CALL_PROFILE,
#     TG_BENCH_CALLS (default 300) calls of word_count per run after 20 of
#     warm-up, three runs with record_calls on and three off, alternating.
#     The step that recording adds to is the outcome's commit (result
#     parsed -> outcome committed, before its fdatasync): its median and p99
#     per side, and the whole call's median. Target: <= 0.1 ms at the median.
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
tg=$build/cli/toolgate
rounds=${TG_BENCH_ROUNDS:-12}
ncalls=${TG_BENCH_CALLS:-300}
work=$(mktemp -d /tmp/tg_bench_shadow.XXXXXX)
trap 'rm -rf "$work"' EXIT
home=$work/home
"$tg" --home "$home" init >/dev/null
mkdir -p "$work/tool"
cp "$src/examples/word_count/tool.c" "$src/examples/word_count/tool.json" "$work/tool/"
"$tg" --home "$home" create "$work/tool" >/dev/null
record() { # the samples purged, 32 calls recorded on the active version
	"$tg" --home "$home" samples purge word_count >/dev/null
	i=1
	while [ $i -le 32 ]; do
		"$tg" --home "$home" call word_count "{\"text\": \"recorded call $i of the bench\"}" >/dev/null
		i=$((i + 1))
	done
}

# 1. shadow runs at create
echo "shadow runs at create: word_count, 32 recorded calls, $rounds rounds"
: >"$work/create.txt"
r=1
while [ $r -le $rounds ]; do
	record
	for kind in fresh tests older; do
		mode=shadow
		[ $kind = tests ] && mode=tests
		echo "{\"promotion\": \"$mode\"}" >"$home/config.json"
		sed -i "1s|^/\* bench .*\*/$||" "$work/tool/tool.c"
		sed -i "1i/* bench $r $kind */" "$work/tool/tool.c"
		python3 - "$tg" "$home" "$work/tool" "$kind" >>"$work/create.txt" <<'PY'
import json, subprocess, sys, time
tg, home, d, kind = sys.argv[1:]
t0 = time.monotonic()
out = subprocess.run([tg, '--home', home, 'create', '--json', d], capture_output=True, text=True)
ms = (time.monotonic() - t0) * 1000
res = json.loads(out.stdout)
assert res['status'] == 'active', res.get('reason')
sh = res.get('shadow') or {}
if kind != 'tests':
    assert sh.get('samples_run') == 32 and sh.get('same') == 32, sh
    assert sh.get('recorded_as_second_run') == (32 if kind == 'fresh' else 0), sh
print(kind, '%.1f' % ms, sh.get('wall_ms', 0))
PY
	done
	r=$((r + 1))
done
python3 - "$work/create.txt" <<'PY'
import sys
def q(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(p * len(xs) + 0.5)) - 1))]
rows = [l.split() for l in open(sys.argv[1])]
col = lambda k, i: [float(r[i]) for r in rows if r[0] == k]
off = col('tests', 1)
print('  create, promotion tests (no shadow run): median %.0f ms, p99 %.0f ms (n=%d)' %
      (q(off, .5), q(off, .99), len(off)))
for k in ('fresh', 'older'):
    on, sh = col(k, 1), col(k, 2)
    print('  create, shadow, samples %s: median %.0f ms, p99 %.0f ms; added at the median %.0f ms; '
          'the report\'s wall_ms median %.0f, p99 %.0f' %
          (k, q(on, .5), q(on, .99), q(on, .5) - q(off, .5), q(sh, .5), q(sh, .99)))
PY

# 2. recording per call
echo "recording per call: toolgate serve, $ncalls calls per run after 20 of warm-up"
for run in 1 2 3; do
	for mode in on off; do
		if [ $mode = on ]; then
			echo '{"record_calls": 64}' >"$home/config.json"
		else
			echo '{"record_calls": 0}' >"$home/config.json"
		fi
		TG_CALL_PROFILE=$work/prof_$mode.$run python3 "$here/calls.py" "$tg" "$home" word_count \
			$((ncalls + 20))
	done
done
python3 - "$work" <<'PY'
import glob, sys
def q(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(p * len(xs) + 0.5)) - 1))]
def stages(path):
    out = []
    for l in open(path):
        if not l.startswith('call us'):
            continue
        st = dict((k, int(v)) for k, _, v in (w.partition('=') for w in l.partition('|')[0].split()[2:]))
        if 'result' in st and 'outcome_commit' in st:
            out.append((st['outcome_commit'] - st['result'], st.get('written', 0)))
    return out[20:]
med = {}
for mode in ('on', 'off'):
    allc = []
    for path in sorted(glob.glob(sys.argv[1] + '/prof_%s.*' % mode)):
        s = stages(path)
        allc += s
        print('  record_calls %-3s run %s: outcome commit median %d us, p99 %d us; whole call median %.2f ms' %
              (mode, path[-1], q([a for a, _ in s], .5), q([a for a, _ in s], .99), q([b for _, b in s], .5) / 1000))
    med[mode] = q([a for a, _ in allc], .5)
    print('  record_calls %-3s all runs: outcome commit median %d us, p99 %d us (n=%d)' %
          (mode, med[mode], q([a for a, _ in allc], .99), len(allc)))
print('  recording adds %d us per call at the median' % (med['on'] - med['off']))
PY
