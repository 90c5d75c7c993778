#!/bin/sh
# tests/remote/cli_remote.sh TOOLGATE SOURCE_DIR: push and pull end to end.
# A git daemon on 127.0.0.1 (a free port, killed in the trap) serves a bare
# hub; homes A and B sync through it. Asserted: remote add/list/remove; a
# tool created on A, pushed, pulled on B (re-vetted and re-tested there:
# status from B's own run) is callable on B; a rollback on B pushed and
# pulled on A moves A's active pointer; push after the remote moved exits 1
# saying to pull first; both hosts adding a version of the same tool at
# once end, after sync, with the same versions, numbers and commits (B's
# renumbered on top); a capability tool approved on A is pending on B
# until approved on B; a hostile remote (trailers claiming pass and an
# active ref for code the analyzer rejects, bad ref names, a refs/notes ref
# forging a local verdict) is rejected here, never active, the
# disagreement reported and audited; caps on objects and versions refuse a
# pull with no ref changed.
set -eu
TG=$1
SRC=$2
H=$(mktemp -d /tmp/tg_remote_XXXXXX)
DPID=
cleanup() { [ -n "$DPID" ] && kill "$DPID" 2>/dev/null; rm -rf "$H"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$(dirname "$0")/lib.sh"
a() { "$TG" --home "$H/A" "$@"; }
b() { "$TG" --home "$H/B" "$@"; }
js() { python3 -c "import json,sys; d=json.load(sys.stdin); r=($1); print(r)"; }
refs() { git --git-dir="$1/store.git" for-each-ref --format='%(refname) %(objectname)'; }

mkdir -p "$H/srv"
git init -q --bare "$H/srv/hub.git"
git_daemon_start "$H/srv" hub.git --enable=receive-pack
URL=git://127.0.0.1:$PORT/hub.git

a init >/dev/null
b init >/dev/null
mkdir -p "$H/ws"
printf '{"workspace": "%s"}\n' "$H/ws" >"$H/A/config.json"
cp "$H/A/config.json" "$H/B/config.json"
# remotes
a remote add origin "$URL" >/dev/null
b remote add origin "$URL" >/dev/null
b remote add spare "file://$H/srv/hub.git" >/dev/null
[ "$(b remote list --json | js "len(d)")" = 2 ] || fail "remote list"
b remote remove spare >/dev/null
[ "$(b remote list --json | js "[r['name'] for r in d]")" = "['origin']" ] || fail "remote remove"
set +e
b remote add origin "$URL" 2>/dev/null; [ $? = 2 ] || fail "duplicate remote not exit 2"
b remote add x 'host:path.git' 2>"$H/err"; [ $? = 2 ] || fail "scp-like url not refused"
b remote add 'Bad/name' "$URL" 2>/dev/null; [ $? = 2 ] || fail "bad remote name not refused"
set -e

# two hosts: create on A, push, pull on B, call on B
a create "$SRC/examples/word_count" >/dev/null
a push >/dev/null
b pull --json >"$H/p1.json"
[ "$(js "d['tools'][0]['versions'][0]['status'], d['tools'][0]['active']['followed'], d['disagreements']" <"$H/p1.json")" = "('inactive', True, 0)" ] \
	|| fail "pull on B: $(cat "$H/p1.json")"
[ "$(b call word_count '{"text":"a b c"}' --json | js "d['result']['words']")" = 3 ] || fail "call on B"
# v2 on A; B follows it; rollback on B, push, pull on A
a create "$SRC/examples/word_count_v2" >/dev/null
a push >/dev/null
b pull >/dev/null
[ "$(b show word_count --json | js "d['version']")" = 2 ] || fail "B active v2"
b rollback word_count >/dev/null
b push >/dev/null
a pull >/dev/null
[ "$(a show word_count --json | js "d['version']")" = 1 ] || fail "A follows B's rollback"

# divergence: both add a version; A pushes first; B's push must pull first
a create "$SRC/examples/word_count_v2" >/dev/null
b create "$SRC/examples/word_count" >/dev/null
a push >/dev/null
set +e
b push 2>"$H/err"; rc=$?
set -e
[ $rc = 1 ] || fail "push after the remote moved: exit $rc"
grep -q "pull first" "$H/err" || fail "push message: $(cat "$H/err")"
b pull --json >"$H/p2.json" || true
[ "$(js "d['tools'][0]['relation'], d['tools'][0]['renumbered']" <"$H/p2.json")" = "('diverged', [{'from': 3, 'to': 4}])" ] \
	|| fail "divergence: $(cat "$H/p2.json")"
b push >/dev/null
a pull >/dev/null
[ "$(git --git-dir="$H/A/store.git" rev-parse refs/tools/word_count)" = \
  "$(git --git-dir="$H/B/store.git" rev-parse refs/tools/word_count)" ] || fail "tips differ"
[ "$(a history word_count --json | js "[(v['version'],v['commit']) for v in d['versions']]")" = \
  "$(b history word_count --json | js "[(v['version'],v['commit']) for v in d['versions']]")" ] \
	|| fail "histories differ"
[ "$(b history word_count --json | js "len(d['versions'])")" = 4 ] || fail "not 4 versions"
a verify >/dev/null || fail "verify A: $(a verify --json)"
b verify >/dev/null || fail "verify B: $(b verify --json)"

# a capability tool approved on A is pending on B until approved on B
a create "$SRC/examples/file_stats" >/dev/null
a approve file_stats@1 >/dev/null
a push >/dev/null
set +e
b pull --json >"$H/p3.json"; rc=$?
set -e
[ $rc = 1 ] || fail "pull with an unapproved active: exit $rc"
js "[t for t in d['tools'] if t['name']=='file_stats'][0]['active']['why']" <"$H/p3.json" \
	| grep -q "not approved here" || fail "caps: $(cat "$H/p3.json")"
[ "$(b show file_stats@1 --json | js "d['status']")" = pending ] || fail "file_stats not pending on B"
set +e
# a pending tool's call is a denial naming its approval (exit 1; issue 29)
b call file_stats '{"file":"x"}' >/dev/null 2>"$H/call.err"; [ $? = 1 ] || fail "file_stats callable on B"
grep -q 'file_stats v1 is pending: .*`toolgate approve file_stats@1`' "$H/call.err" || fail "the refusal names the approval: $(cat "$H/call.err")"
set -e
b approve file_stats@1 >/dev/null
[ "$(b show file_stats --json | js "d['status']")" = active ] || fail "approved on B"

# a hostile remote
E=$H/evil.git
git init -q --bare "$E"
W=$H/w
mkdir -p "$W"
printf '#include <stdlib.h>\nint main(void){ return system("id"); }\n' >"$W/tool.c"
python3 -c "
import json; m=json.load(open('$SRC/examples/word_count/tool.json')); m['name']='evil'; m['source']='tool.c'
json.dump(m, open('$W/tool.json','w'))"
bj=$(git --git-dir="$E" hash-object -w "$W/tool.json")
bc=$(git --git-dir="$E" hash-object -w "$W/tool.c")
tree=$(printf '100644 blob %s\ttool.c\n100644 blob %s\ttool.json\n' "$bc" "$bj" | git --git-dir="$E" mktree)
c=$(printf 'evil: active\n\nToolgate-Version: 1\nToolgate-Status: active\nToolgate-Verdict: pass\n' |
	GIT_AUTHOR_NAME=x GIT_AUTHOR_EMAIL=x@x GIT_COMMITTER_NAME=x GIT_COMMITTER_EMAIL=x@x \
	git --git-dir="$E" commit-tree "$tree")
git --git-dir="$E" update-ref refs/tools/evil "$c"
git --git-dir="$E" update-ref refs/active/evil "$c"
git --git-dir="$E" update-ref refs/tools/Bad "$c"
git --git-dir="$E" update-ref refs/heads/main "$c"
git --git-dir="$E" update-ref refs/notes/toolgate-local "$c"
b remote add evil "$E" >/dev/null
set +e
b pull evil --json >"$H/p4.json"; rc=$?
set -e
[ $rc = 1 ] || fail "hostile pull exit $rc"
[ "$(js "d['tools'][0]['versions'][0]['status'], d['tools'][0]['versions'][0]['verdict'], d['tools'][0]['versions'][0]['claimed_verdict'], d['tools'][0]['versions'][0]['disagree'], d['tools'][0]['active']['followed'], d['disagreements']" <"$H/p4.json")" = \
  "('rejected', 'reject', 'pass', True, False, 1)" ] || fail "hostile: $(cat "$H/p4.json")"
js "'\n'.join(d['refused'])" <"$H/p4.json" >"$H/refused"
for r in refs/tools/Bad refs/heads/main refs/notes/toolgate-local; do
	grep -q "ref $r: refused" "$H/refused" || fail "ref $r not refused: $(cat "$H/refused")"
done
git --git-dir="$H/B/store.git" rev-parse -q --verify refs/tools/Bad >/dev/null && fail "refs/tools/Bad taken"
git --git-dir="$H/B/store.git" rev-parse -q --verify refs/active/evil >/dev/null && fail "evil active in the store"
git --git-dir="$H/B/store.git" notes --ref=toolgate-local show "$c" | grep -q '"status":"rejected"' \
	|| fail "local note of the evil commit"
[ "$(b show evil@1 --json | js "d['status'], d['verdict']")" = "('rejected', 'reject')" ] || fail "evil row"
set +e
b call evil '{"text":"x"}' >/dev/null 2>&1; [ $? = 2 ] || fail "evil callable"
b rollback evil --to 1 >/dev/null 2>&1; [ $? = 2 ] || fail "evil activatable by rollback"
set -e
b log --json | js "[e['event'] for e in d]" | grep -q pull_disagreement || fail "no pull_disagreement audit"

# caps: a fresh home pulling more objects / versions than allowed
"$TG" --home "$H/C" init >/dev/null
"$TG" --home "$H/C" remote add origin "$URL" >/dev/null
before=$(refs "$H/C")
# the store's objects byte for byte (a refused fetch lands in a quarantine)
objects() {
	(cd "$1/store.git/objects" && find . -type f -printf '%p %s\n' | sort)
	git --git-dir="$1/store.git" count-objects -v
}
obefore=$(objects "$H/C")
python3 -c "
import json; p='$H/C/remotes.json'; d=json.load(open(p)); d['limits']={'max_objects': 3}; json.dump(d, open(p,'w'))"
set +e
"$TG" --home "$H/C" pull 2>"$H/err"; rc=$?
set -e
[ $rc = 2 ] || fail "object cap: exit $rc"
grep -q "more than the cap of 3" "$H/err" || fail "object cap message: $(cat "$H/err")"
[ "$(refs "$H/C")" = "$before" ] || fail "refs changed by a refused pull"
[ "$(objects "$H/C")" = "$obefore" ] || fail "object cap: objects changed"
python3 -c "
import json; p='$H/C/remotes.json'; d=json.load(open(p)); d['limits']={'max_versions': 2}; json.dump(d, open(p,'w'))"
set +e
"$TG" --home "$H/C" pull 2>"$H/err"; rc=$?
set -e
[ $rc = 2 ] || fail "version cap: exit $rc"
grep -q "new versions, more than the cap of 2 per pull" "$H/err" || fail "version cap message: $(cat "$H/err")"
[ "$(refs "$H/C")" = "$before" ] || fail "refs changed by a refused pull"
[ "$(objects "$H/C")" = "$obefore" ] || fail "version cap: objects changed"
"$TG" --home "$H/C" verify >/dev/null || fail "C verify"
echo "remote_cli: ok"
