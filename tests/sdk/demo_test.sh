#!/bin/sh
# tests/sdk/demo_test.sh TOOLGATE SRC_DIR: scripts/demo.sh works on a fresh
# home and again on the same home (versions keep increasing, taken from the
# --json output), and stops with a non-zero status when a step that must
# succeed fails. The demo's default home is redirected with TOOLGATE_HOME.
set -u
tg=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
export TOOLGATE_HOME="$tmp/home"
for round in 1 2; do
	if ! sh "$src/scripts/demo.sh" "$tg" >"$tmp/out$round" 2>&1; then
		echo "FAIL: demo round $round:"; cat "$tmp/out$round"; fail=1
	fi
done
# round 2 on the same home: v4 (v1 again), buggy v5 failed, v6, rollback to v4
grep -q -- "-> word_count v4 is active" "$tmp/out2" || { echo "FAIL: round 2 did not create v4"; fail=1; }
grep -q -- "-> word_count v6 is active" "$tmp/out2" || { echo "FAIL: round 2 did not create v6"; fail=1; }
grep -q -- "rollback word_count --to 4" "$tmp/out2" || { echo "FAIL: round 2 did not roll back to v4"; fail=1; }
grep -q "^demo: all 22 steps done" "$tmp/out2" || { echo "FAIL: round 2 incomplete"; fail=1; }
# the headers name the versions the creates made (issue 29), in both rounds
for want in "1:== 2. Register a good tool: word_count v1 (" "1:== 5. A buggy word_count v2: " \
	"1:== 6. A good word_count v3 (" "1:== 7. Call the new version, v3$" \
	"2:== 2. Register a good tool: word_count v4 (" "2:== 5. A buggy word_count v5: " \
	"2:== 6. A good word_count v6 (" "2:== 7. Call the new version, v6$"; do
	grep -q -- "^${want#?:}" "$tmp/out${want%%:*}" ||
		{ echo "FAIL: round ${want%%:*} lacks the header '${want#?:}'"; fail=1; }
done
# a toolgate whose create fails: the demo must stop, loudly, non-zero
cat >"$tmp/broken" <<'EOS'
#!/bin/sh
[ "$1" = init ] && { echo "initialized"; exit 0; }
echo "toolgate: create: store unreadable" >&2
exit 3
EOS
chmod +x "$tmp/broken"
if sh "$src/scripts/demo.sh" "$tmp/broken" >"$tmp/out3" 2>&1; then
	echo "FAIL: the demo succeeded with a broken toolgate"; fail=1
fi
grep -q "demo: FAILED at step 2: create word_count v?: exit status 3, expected 0" "$tmp/out3" ||
	{ echo "FAIL: no clear failure message:"; cat "$tmp/out3"; fail=1; }
[ "$fail" -eq 0 ] && echo "demo: two rounds on one home and a broken toolgate: ok"
exit $fail
