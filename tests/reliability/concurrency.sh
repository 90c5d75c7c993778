#!/bin/sh
# tests/reliability/concurrency.sh TOOLGATE: 8 processes at once on one home:
# three submit the same tool, one submits different tools, one rolls back,
# three read (list, history, call). Asserts: no lost version, no duplicate
# version number, versions of each tool contiguous from 1, no SQLITE_BUSY or
# internal error surfacing to any command (exit 3 or a "locked"/"busy"
# message), and a consistent final state (`toolgate verify`, `git fsck`).
set -u
tg=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
rounds=${TG_CONC_ROUNDS:-6}
work=$(mktemp -d /tmp/tg_conc.XXXXXX)
home=$work/home
trap 'rm -rf "$work"' EXIT
"$tg" --home "$home" init >/dev/null || fail "init"
# eight processes at once for minutes: concurrency, not the create rate limits
printf '{"home_max_creates_per_minute": 0, "session_max_creates_per_minute": 0, "max_rejected_per_tool_hour": 0}\n' > "$home/config.json"
"$tg" --home "$home" --json create "$here/fixtures/good" > "$work/base.out" || fail "baseline create"
for n in a b; do
	mkdir -p "$work/tool_$n"
	cp "$here/fixtures/good/tool.c" "$work/tool_$n/"
	sed "s/\"rel_tool\"/\"rel_$n\"/" "$here/fixtures/good/tool.json" > "$work/tool_$n/tool.json"
done

submitter() { # id dir...
	id=$1; shift
	r=0
	while [ $r -lt "$rounds" ]; do
		k=0
		for d in "$@"; do
			"$tg" --home "$home" --json create "$d" > "$work/c.$id.$r.$k.out" 2> "$work/c.$id.$r.$k.err"
			echo $? > "$work/c.$id.$r.$k.rc"
			k=$(( k + 1 ))
		done
		r=$(( r + 1 ))
	done
}
roller() {
	r=0
	while [ $r -lt $(( rounds * 2 )) ]; do
		"$tg" --home "$home" rollback rel_tool > /dev/null 2> "$work/r.$r.err"; echo $? > "$work/r.$r.rc"
		r=$(( r + 1 ))
	done
}
reader() { # id
	r=0
	while [ $r -lt $(( rounds * 3 )) ]; do
		"$tg" --home "$home" list --json > /dev/null 2> "$work/l.$1.$r.err"; echo $? > "$work/l.$1.$r.rc"
		"$tg" --home "$home" history rel_tool > /dev/null 2> "$work/h.$1.$r.err"; echo $? > "$work/h.$1.$r.rc"
		"$tg" --home "$home" call rel_tool '{}' > "$work/k.$1.$r.out" 2> "$work/k.$1.$r.err"; echo $? > "$work/k.$1.$r.rc"
		r=$(( r + 1 ))
	done
}
submitter s1 "$here/fixtures/good" & p1=$!
submitter s2 "$here/fixtures/good" & p2=$!
submitter s3 "$here/fixtures/good" "$here/fixtures/bad_test" & p3=$!
submitter s4 "$work/tool_a" "$work/tool_b" & p4=$!
roller & p5=$!
reader 1 & p6=$!
reader 2 & p7=$!
reader 3 & p8=$!
wait $p1 $p2 $p3 $p4 $p5 $p6 $p7 $p8

# nothing surfaced as an environment error or a lock
for f in "$work"/*.rc; do
	rc=$(cat "$f")
	[ "$rc" -le 2 ] || { cat "${f%.rc}.err"; fail "$(basename "$f" .rc) exit $rc"; }
done
if grep -il -E 'busy|locked|SQLITE' "$work"/*.err; then fail "a lock error surfaced"; fi
# creates: every one reported, versions distinct per tool
: > "$work/versions"
for f in "$work"/c.*.out; do
	[ "$(cat "${f%.out}.rc")" -le 1 ] || fail "$(basename "$f") failed: $(cat "${f%.out}.err")"
	echo "$(jget "$f" 'd.name') $(jget "$f" 'd.version')" >> "$work/versions"
	echo "$(jget "$f" 'd.name') $(jget "$f" 'd.version') $(jget "$f" 'd.verdict') $(jget "$f" 'd.commit')" >> "$work/reported"
done
echo "rel_tool 1" >> "$work/versions"
dups=$(sort "$work/versions" | uniq -d)
[ -z "$dups" ] || fail "duplicate versions: $dups"
for t in rel_tool rel_a rel_b; do
	n=$(grep -c "^$t " "$work/versions")
	"$tg" --home "$home" --json history $t > "$work/hist" || fail "history $t"
	got=$(jget "$work/hist" '(d.versions||d).map(v=>v.version).sort((a,b)=>a-b).join(",")')
	want=$(seq -s, 1 "$n")
	[ "$got" = "$want" ] || fail "$t versions: got $got want $want"
	# one active version, passing, the one history names
	act=$(jget "$work/hist" 'd.versions.filter(v=>v.status==="active").map(v=>v.version+"/"+v.verdict).join(",")')
	[ "$act" = "$(jget "$work/hist" 'd.active')/pass" ] || fail "$t: active versions [$act], history says $(jget "$work/hist" 'd.active')"
	# every reported submission is there with its verdict and commit
	grep "^$t " "$work/reported" | while read -r n v vd c; do
		got=$(jget "$work/hist" "(d.versions.find(x=>x.version===$v)||{}).verdict+' '+(d.versions.find(x=>x.version===$v)||{}).commit")
		[ "$got" = "$vd $c" ] || fail "$t@$v reported $vd $c, history has $got"
	done || exit 1
done
# rollbacks succeed or find nothing to roll back to (exit 2); every call
# succeeds (only passing versions are ever active) with the fixture's value
for f in "$work"/r.*.rc; do
	case "$(cat "$f")" in 0|2) ;; *) fail "$(basename "$f" .rc) exit $(cat "$f")";; esac
done
for f in "$work"/k.*.out; do
	[ "$(cat "${f%.out}.rc")" = 0 ] || fail "$(basename "$f" .out) exit $(cat "${f%.out}.rc"): $(cat "${f%.out}.err")"
	[ "$(jget "$f" 'd.v')" = 1 ] || fail "$(basename "$f"): $(cat "$f")"
done
"$tg" --home "$home" verify > "$work/verify" 2>&1 || { cat "$work/verify"; fail "verify"; }
git --git-dir="$home/store.git" fsck --strict --no-progress >/dev/null 2>&1 || fail "git fsck"
echo "concurrency: $(wc -l < "$work/versions") versions, 8 processes: ok"
