#!/bin/sh
# tests/remote/cli_carry.sh TOOLGATE SOURCE_DIR: an approval follows its
# version through a divergence renumbering, and only its own version
# (docs/STORE.md, "Replication with vetting", step 5). Homes A and B share
# a bare hub on disk; file_stats asks for workspace:read. Both hosts add a
# v2 of their own (different code) and approve it; B pushes first, so A's
# pull renumbers A's v2 to v3. Asserted: A's approval is carried to v3
# ("approval carried from v2 to v3", audited approval_carried), v3 is still
# A's active version and callable; B's v2 (other code) gains nothing: it is
# pending on A, and the hub's active pointer at it is not followed. Then an
# approval row whose hash does not match its code (edited in registry.db)
# is not carried on the next renumbering (approval_not_carried, the exact
# reason) and the renumbered version is not callable. verify stays clean.
set -eu
TG=$1
SRC=$2
H=$(mktemp -d /tmp/tg_carry_XXXXXX)
trap 'rm -rf "$H"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
a() { "$TG" --home "$H/A" "$@"; }
b() { "$TG" --home "$H/B" "$@"; }
js() { python3 -c "import json,sys; d=json.load(sys.stdin); r=($1); print(r)"; }
variant() { # variant NAME: file_stats with one comment line more
	mkdir -p "$H/$1"
	cp "$SRC/examples/file_stats/tool.json" "$H/$1/"
	{ echo "/* variant $1 */"; cat "$SRC/examples/file_stats/tool.c"; } >"$H/$1/tool.c"
}
git init -q --bare "$H/hub.git"
mkdir -p "$H/ws"
echo "hello world" >"$H/ws/notes.txt"
for h in A B; do
	"$TG" --home "$H/$h" init >/dev/null
	printf '{"workspace": "%s"}\n' "$H/ws" >"$H/$h/config.json"
	"$TG" --home "$H/$h" remote add origin "$H/hub.git" >/dev/null
done
a create "$SRC/examples/file_stats" >/dev/null
a approve file_stats@1 >/dev/null
a push >/dev/null
b pull >/dev/null || true
b approve file_stats@1 >/dev/null

# both add their own v2 and approve it; B pushes first
variant a2
variant b2
a create "$H/a2" >/dev/null
a approve file_stats@2 >/dev/null
b create "$H/b2" >/dev/null
b approve file_stats@2 >/dev/null
b push >/dev/null
set +e
a push 2>/dev/null; rc=$?
set -e
[ $rc = 1 ] || fail "push before pull: exit $rc"
set +e
a pull --json >"$H/p1.json"; rc=$?
set -e
[ $rc = 1 ] || fail "pull: exit $rc (the hub's active pointer is at B's v2, not approved on A)"
[ "$(js "d['tools'][0]['renumbered'], [c['note'] for c in d['tools'][0]['approvals_carried']], d['tools'][0]['approvals_not_carried']" <"$H/p1.json")" \
	= "([{'from': 2, 'to': 3}], ['approval carried from v2 to v3'], [])" ] || fail "carry: $(cat "$H/p1.json")"
[ "$(js "d['tools'][0]['active']['followed'], d['tools'][0]['active']['remote_version']" <"$H/p1.json")" = "(False, 2)" ] \
	|| fail "followed B's v2: $(cat "$H/p1.json")"
js "d['tools'][0]['active']['why']" <"$H/p1.json" | grep -q "^v2 is not approved here" || fail "why: $(cat "$H/p1.json")"
[ "$(a show file_stats --json | js "d['version'], d['status']")" = "(3, 'active')" ] || fail "A's active: $(a show file_stats --json)"
[ "$(git --git-dir="$H/A/store.git" show refs/active/file_stats:tool.c | head -1)" = "/* variant a2 */" ] \
	|| fail "A's active is not A's code"
[ "$(a show file_stats@2 --json | js "d['status']")" = pending ] || fail "B's v2 on A: $(a show file_stats@2 --json)"
[ "$(a call file_stats '{"file":"notes.txt"}' | js "d['words']")" = 2 ] || fail "call of the carried v3"
a log --json | js "[(e['details']['from'], e['details']['to'], e['details']['note']) for e in d if e['event'] == 'approval_carried']" \
	| grep -qx "\[(2, 3, 'approval carried from v2 to v3')\]" || fail "audit: $(a log --json | tail -40)"
a verify >/dev/null || fail "verify A: $(a verify --json)"
a push >/dev/null
b pull >/dev/null || true
[ "$(b show file_stats --json | js "d['version']")" = 2 ] || fail "B's active moved"

# an approval row that does not match its code is never carried
variant a4
variant b4
a create "$H/a4" >/dev/null
a approve file_stats@4 >/dev/null
python3 -c "
import sqlite3; db = sqlite3.connect('$H/A/registry.db')
db.execute(\"UPDATE approvals SET approval_hash = '$(printf '%064d' 7)' WHERE version = 4\"); db.commit()"
b create "$H/b4" >/dev/null
b push >/dev/null
set +e
a pull --json >"$H/p2.json"
set -e
[ "$(js "d['tools'][0]['renumbered'], d['tools'][0]['approvals_carried']" <"$H/p2.json")" = "([{'from': 4, 'to': 5}], [])" ] \
	|| fail "second pull: $(cat "$H/p2.json")"
h5=$(js "d['tools'][0]['approvals_not_carried'][0]['why']" <"$H/p2.json")
echo "$h5" | grep -qx "v5 is not the approved code (approval hash [0-9a-f]\{12\}, approved 000000000000)" \
	|| fail "not carried: $(cat "$H/p2.json")"
a log --json | js "[e['details']['note'] for e in d if e['event'] == 'approval_not_carried']" \
	| grep -qx "\['approval of v4 not carried to v5'\]" || fail "no approval_not_carried audit"
set +e
a call file_stats '{"file":"notes.txt"}' >/dev/null 2>"$H/err"; rc=$?
set -e
[ $rc = 1 ] || fail "v5 callable without an approval: exit $rc"
grep -q "^toolgate: call file_stats: file_stats v5 asks for capabilities that no person approved for this exact version (approval hash [0-9a-f]\{12\}): toolgate approve file_stats@5$" "$H/err" \
	|| fail "call refusal: $(cat "$H/err")"
echo "remote_carry: ok"
