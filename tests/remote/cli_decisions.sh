#!/bin/sh
# tests/remote/cli_decisions.sh TOOLGATE SOURCE_DIR: decisions travel,
# signed (docs/STORE.md, "Signed decisions"). Three homes (A, B, C, each
# with a key) and one git daemon on 127.0.0.1. Asserted:
#  - A's approval of file_stats v1 is a signed line in A's review note,
#    pushed as refs/toolgate-review/<A's id>;
#  - B (trusts A as an approver) follows it on pull: v1 active, audited
#    decision_followed with A's key fingerprint, actor remote:host-a;
#  - C (does not) keeps v1 pending, and show / list --pending say "claimed
#    by KEY (...): approve, not followed: key KEY is not in the trusted
#    approvers", and so does approvals; once C trusts A, the next pull
#    follows it;
#  - trusting A as a signer (trusted_signers) does not make it an approver;
#  - B revokes A; A's approval of v2, signed after that, is refused on B
#    with the exact message, v2 stays pending there; C follows it;
#  - on a hub ref of a host that does not exist: a forged entry (A's line
#    with its time edited), A's v2 entry copied onto v3's commit, entries
#    A's own key signed over another content hash, over another capability
#    set and naming B's key as signer: each refused on C with the exact
#    message, exit 1, v3 still pending;
#  - A's denial of v3 and removal of v2 are followed on C (v3 denied with
#    the signer in its reason, no active version, the hub's stale active
#    pointer to v2 not followed because of the removal, exit 0) and refused
#    on B (A revoked there);
#  - a second pull applies nothing twice (followed entries are not listed);
#  - pull --watch 1 pulls repeatedly and stops with exit 0 on SIGTERM.
set -eu
TG=$1
SRC=$2
H=$(mktemp -d /tmp/tg_decide_XXXXXX)
DPID=
cleanup() { [ -n "$DPID" ] && kill "$DPID" 2>/dev/null; [ -n "${TG_KEEP:-}" ] || rm -rf "$H"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$(dirname "$0")/lib.sh"
t() { h=$1; shift; "$TG" --home "$H/$h" "$@"; }
js() { python3 -c "import json,sys; d=json.load(sys.stdin); r=($1); print(r)"; }
G() { git --git-dir="$H/srv/hub.git" "$@"; }

mkdir -p "$H/srv" "$H/ws"
git init -q --bare "$H/srv/hub.git"
git_daemon_start "$H/srv" hub.git --enable=receive-pack
URL=git://127.0.0.1:$PORT/hub.git
for h in A B C; do
	t $h init >/dev/null
	printf '{"workspace": "%s"}\n' "$H/ws" >"$H/$h/config.json"
	t $h remote add origin "$URL" >/dev/null
	t $h key init >/dev/null
done
KA=$(ssh-keygen -lf "$H/A/keys/signing_key.pub" | cut -d' ' -f2)
t B key trust-approver host-a "$H/A/keys/signing_key.pub" >/dev/null
# C trusts A's commits (tests), not its decisions (B's decisions only)
t C key trust host-a "$H/A/keys/signing_key.pub" >/dev/null
t C key trust-approver host-b "$H/B/keys/signing_key.pub" >/dev/null
grep -q '^host-a namespaces="toolgate-decision" ssh-ed25519 ' "$H/B/trusted_approvers" \
	|| fail "trusted_approvers line: $(cat "$H/B/trusted_approvers")"

# versions 2 and 3: the same code under another description (own hashes)
for n in 2 3; do
	mkdir -p "$H/fs$n"
	cp "$SRC/examples/file_stats/tool.c" "$H/fs$n/"
	python3 - "$SRC/examples/file_stats/tool.json" "$H/fs$n/tool.json" "$n" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["description"] += " Revision %s." % sys.argv[3]
json.dump(d, open(sys.argv[2], "w"))
EOF
done
t A create "$SRC/examples/file_stats" >/dev/null
t A push >/dev/null
t B pull >/dev/null
t C pull >/dev/null
[ "$(t C show file_stats@1 --json | js "d['status']")" = pending ] || fail "C: v1 not pending"

# A approves: a signed decision line in A's review note, carried by push
t A approve file_stats@1 >/dev/null
c1=$(git --git-dir="$H/A/store.git" rev-parse refs/tools/file_stats)
git --git-dir="$H/A/store.git" notes --ref=toolgate-review show "$c1" >"$H/note_a"
grep -q "^signed decision: toolgate-decision/1 approve file_stats v1 content_hash=[0-9a-f]\{64\} capabilities=\[\"workspace:read\"\] signer=$KA at=[0-9]* | [A-Za-z0-9+/=]*$" "$H/note_a" \
	|| fail "A's note: $(cat "$H/note_a")"
t A push >/dev/null
[ "$(G for-each-ref --format='%(refname)' refs/toolgate-review/ | wc -l)" = 1 ] || fail "review ref not pushed"

# B trusts A as an approver: followed through B's own approval code
t B pull --json >"$H/b1.json"
[ "$(js "[(e['tool'], e['version'], e['decision'], e['signer'], e['principal'], e['state'], e['why']) for e in d['decisions']]" <"$H/b1.json")" \
	= "[('file_stats', 1, 'approve', '$KA', 'host-a', 'followed', '')]" ] || fail "B: $(cat "$H/b1.json")"
[ "$(t B show file_stats@1 --json | js "d['status']")" = active ] || fail "B: v1 not active"
[ "$(t B log --json | js "[(e['actor'], e['details']['signer'], e['details']['principal']) for e in d if e['event'] == 'decision_followed']")" \
	= "[('remote:host-a', '$KA', 'host-a')]" ] || fail "B: decision_followed audit"
[ "$(t B log --json | js "[e['actor'] for e in d if e['event'] == 'approve_version']")" = "['remote:host-a']" ] \
	|| fail "B: not approved through the approval code"
# a second pull applies nothing again
t B pull --json >"$H/b2.json"
[ "$(js "d['decisions']" <"$H/b2.json")" = "[]" ] || fail "B: second pull: $(cat "$H/b2.json")"
[ "$(t B log --json | js "len([e for e in d if e['event'] == 'approve_version'])")" = 1 ] || fail "B: approved twice"
# B's own review note has no signed line for a followed decision
c1b=$(git --git-dir="$H/B/store.git" rev-parse refs/tools/file_stats)
! git --git-dir="$H/B/store.git" notes --ref=toolgate-review show "$c1b" 2>/dev/null | grep -q '^signed decision' \
	|| fail "B signed a decision it followed"

# C: a signer key, not an approver: a claim, v1 stays pending
set +e
t C pull >"$H/c1.txt"; rc=$?
set -e
# exit 1: the remote's active pointer names v1, not approved here
[ $rc = 1 ] || fail "C pull with a claim: exit $rc"
grep -qx "  decision: approve file_stats v1 by $KA: claim, not followed: key $KA is not in the trusted approvers" "$H/c1.txt" \
	|| fail "C pull text: $(cat "$H/c1.txt")"
[ "$(t C show file_stats@1 --json | js "d['status']")" = pending ] || fail "C: v1 followed an untrusted key"
t C show file_stats@1 | grep -qx "decision:     claimed by $KA: approve, not followed: key $KA is not in the trusted approvers" \
	|| fail "C show: $(t C show file_stats@1 | grep decision)"
t C list --pending | grep -qx "    claimed by $KA: approve, not followed: key $KA is not in the trusted approvers" \
	|| fail "C list --pending: $(t C list --pending)"
t C approvals >"$H/appr.txt"
printf 'no calls are waiting for a person\nfile_stats v1 awaits approval here:\n    claimed by %s: approve, not followed: key %s is not in the trusted approvers\n' "$KA" "$KA" \
	| diff - "$H/appr.txt" >&2 || fail "C approvals"
# trusted from now on: the next pull follows it
t C key trust-approver host-a "$H/A/keys/signing_key.pub" >/dev/null
t C pull --json >"$H/c2.json"
[ "$(js "[(e['version'], e['state']) for e in d['decisions']]" <"$H/c2.json")" = "[(1, 'followed')]" ] \
	|| fail "C after trust: $(cat "$H/c2.json")"
[ "$(t C show file_stats@1 --json | js "d['status'], d['claims']")" = "('active', [])" ] || fail "C: v1 not active"

# revocation: B removes A; A's next decision is signed after it
t B key revoke-approver host-a >"$H/rev.txt"
grep -qx "revoked approver host-a: $KA" "$H/rev.txt" || fail "revoke: $(cat "$H/rev.txt")"
grep -q host-a "$H/B/trusted_approvers" && fail "revoke left the line"
rev_at=$(t B log --json | js "[e['details']['at'] for e in d if e['event'] == 'key_revoke_approver'][0]")
sleep 1.1
t A create "$H/fs2" >/dev/null
t A approve file_stats@2 >/dev/null
t A push >/dev/null
t C pull >/dev/null
[ "$(t C show file_stats@2 --json | js "d['status']")" = active ] || fail "C: v2 not followed"
set +e
t B pull --json >"$H/b3.json"; rc=$?
set -e
[ $rc = 1 ] || fail "B after revocation: exit $rc"
at2=$(js "[e['signed_at'] for e in d['decisions'] if e['version'] == 2][0]" <"$H/b3.json")
[ "$(js "[(e['version'], e['state'], e['why']) for e in d['decisions']]" <"$H/b3.json")" \
	= "[(2, 'refused', 'signed at $at2, after key $KA was revoked here at $rev_at')]" ] \
	|| fail "B after revocation: $(cat "$H/b3.json")"
[ "$(t B show file_stats@2 --json | js "d['status']")" = pending ] || fail "B: v2 not pending"
[ "$(t B log --json | js "len([e for e in d if e['event'] == 'decision_refused'])")" = 1 ] || fail "B: refusal not audited"

# forged entries on a hub ref of a host that never pushed
t A create "$H/fs3" >/dev/null
t A push >/dev/null
t C pull >/dev/null
[ "$(t C show file_stats@3 --json | js "d['status']")" = pending ] || fail "C: v3 not pending"
c2=$(G rev-parse refs/tools/file_stats~1)
c3=$(G rev-parse refs/tools/file_stats)
line2=$(git --git-dir="$H/A/store.git" notes --ref=toolgate-review show "$c2" | grep '^signed decision')
forged=$(printf '%s\n' "$line2" | sed 's/ at=\([0-9]*\)9 | / at=\18 | /; t; s/ at=\([0-9]*\) | / at=\19 | /')
[ "$forged" != "$line2" ] || fail "could not forge"
h3=$(t C show file_stats@3 --json | js "d['content_hash']")
# sign PAYLOAD with A's key into a decision line
signed() {
	printf '%s' "$1" >"$H/payload"
	rm -f "$H/payload.sig"
	ssh-keygen -q -Y sign -n toolgate-decision -f "$H/A/keys/signing_key" "$H/payload"
	printf 'signed decision: %s | %s' "$1" "$(grep -v -- '-----' "$H/payload.sig" | tr -d '\n')"
}
now=$(date +%s)
other=$(signed "toolgate-decision/1 approve file_stats v3 content_hash=$(printf '%064d' 0) capabilities=[\"workspace:read\"] signer=$KA at=$now")
nocaps=$(signed "toolgate-decision/1 approve file_stats v3 content_hash=$h3 capabilities=[] signer=$KA at=$now")
KB=$(ssh-keygen -lf "$H/B/keys/signing_key.pub" | cut -d' ' -f2)
namesb=$(signed "toolgate-decision/1 approve file_stats v3 content_hash=$h3 capabilities=[\"workspace:read\"] signer=$KB at=$now")
G notes --ref=forge add -m "$forged" "$c2"
G notes --ref=forge add -m "$line2" -m "$other" -m "$nocaps" -m "$namesb" "$c3"
G update-ref refs/toolgate-review/ffffffffffffffff refs/notes/forge
G update-ref -d refs/notes/forge
set +e
t C pull --json >"$H/c3.json"; rc=$?
set -e
[ $rc = 1 ] || fail "forged entries: exit $rc"
js "'\n'.join(sorted('%s v%d %s: %s' % (e['state'], e['version'], e['from'], e['why']) for e in d['decisions']))" <"$H/c3.json" >"$H/c3.txt"
cat >"$H/c3.want" <<EOF
refused v2 ffffffffffffffff: the signature does not verify (the signature does not match the signed entry (ssh-keygen -Y check-novalidate failed))
refused v3 ffffffffffffffff: the entry is bound to capabilities [], this version asks for ["workspace:read"]
refused v3 ffffffffffffffff: the entry is bound to content hash 000000000000, this version's is $(printf '%.12s' "$h3")
refused v3 ffffffffffffffff: the entry is for file_stats v2, the note is on file_stats v3
refused v3 ffffffffffffffff: the entry names signer $KB, the signature is by key $KA
EOF
diff "$H/c3.want" "$H/c3.txt" >&2 || fail "forged entries: $(cat "$H/c3.json")"
[ "$(t C show file_stats@3 --json | js "d['status'], len(d['claims'])")" = "('pending', 4)" ] || fail "C: v3 moved"
G update-ref -d refs/toolgate-review/ffffffffffffffff

# a denial and a removal travel too: C follows both, B (revoked) neither
t A deny file_stats@3 --reason "not this one" >/dev/null
t A remove file_stats >/dev/null
t A push >/dev/null
set +e
t C pull --json >"$H/c4.json"; rc=$?
set -e
[ "$(js "sorted((e['decision'], e['version'], e['state']) for e in d['decisions'])" <"$H/c4.json")" \
	= "[('deny', 3, 'followed'), ('remove', 2, 'followed')]" ] || fail "C deny/remove: $(cat "$H/c4.json")"
[ "$(t C show file_stats@3 --json | js "d['status'], d['reason']")" = "('denied', 'denied by remote:host-a: signed by host-a ($KA)')" ] \
	|| fail "C: v3 not denied: $(t C show file_stats@3 --json | js "d['status'], d['reason']")"
# the hub's active pointer still names v2 (push deletes no remote active
# ref): not followed, because a signed removal of v2 was; not a failure
[ $rc = 0 ] || fail "C after the removal: exit $rc"
[ "$(js "[(t['active']['followed'], t['active']['removed'], t['active']['why']) for t in d['tools']]" <"$H/c4.json")" \
	= "[(False, True, 'v2 was removed here by a signed decision of $KA')]" ] || fail "C: active after removal: $(cat "$H/c4.json")"
[ "$(t C list --json | js "[x['name'] for x in d['tools']]")" = "[]" ] || fail "C: file_stats still active"
set +e
t B pull --json >"$H/b4.json"
set -e
[ "$(js "sorted((e['decision'], e['version'], e['state']) for e in d['decisions'])" <"$H/b4.json")" \
	= "[('approve', 2, 'refused'), ('deny', 3, 'refused'), ('remove', 2, 'refused')]" ] || fail "B deny/remove: $(cat "$H/b4.json")"
[ "$(t B show file_stats --json | js "d['version'], d['status']")" = "(1, 'active')" ] || fail "B: active moved"

# pull --watch: repeats, and SIGTERM ends it cleanly
: >"$H/watch.txt"
"$TG" --home "$H/B" pull --watch 1 >>"$H/watch.txt" 2>&1 &
WP=$!
i=0
until [ "$(grep -c '^pull [0-9]*: exit' "$H/watch.txt")" -ge 2 ]; do
	i=$((i + 1)); [ $i -lt 300 ] || fail "pull --watch: $(cat "$H/watch.txt")"; sleep 0.1
done
kill -TERM $WP
set +e
wait $WP; rc=$?
set -e
[ $rc = 0 ] || fail "pull --watch after SIGTERM: exit $rc"
tail -n 1 "$H/watch.txt" | grep -q '^pull --watch: stopped after [0-9]* pulls$' || fail "watch: $(cat "$H/watch.txt")"
set +e
t B pull --watch 0 2>"$H/err"; rc=$?
set -e
[ $rc = 2 ] || fail "pull --watch 0: exit $rc"
echo ok
