#!/bin/sh
# tests/remote/cli_sign.sh TOOLGATE: signed verdicts end to end
# (docs/STORE.md, "Signed verdicts"). Homes A, C (each with a key from
# `key init`), D (no key) and B (trusts A's key only) share a bare hub on
# disk. Asserted: key init refuses to overwrite and leaves a 0600 key; A's
# commits carry an SSH gpgsig that plain `git verify-commit` accepts with
# the allowed-signers line key init printed; B's pull reports A's version
# "good from host-a" and still re-vets it (B's own status); C's version is
# "untrusted" (key not in B's trusted signers) and re-vetted; D's unsigned
# version is "unsigned", re-vetted and accepted; a commit of A edited in the
# hub with its gpgsig kept is "bad" with the exact reason, a disagreement
# (exit 1, pull_disagreement audited) and never active on B.
set -eu
TG=$1
SRC=$2
H=$(mktemp -d /tmp/tg_sign_XXXXXX)
trap 'rm -rf "$H"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
t() { h=$1; shift; "$TG" --home "$H/$h" "$@"; }
js() { python3 -c "import json,sys; d=json.load(sys.stdin); r=($1); print(r)"; }
HUB=$H/hub.git
git init -q --bare "$HUB"
mkdir -p "$H/ws"
for h in A B C D; do
	t $h init >/dev/null
	printf '{"workspace": "%s"}\n' "$H/ws" >"$H/$h/config.json"
	t $h remote add origin "$HUB" >/dev/null
done
for h in A B C; do t $h key init >/dev/null; done
# key init never overwrites; the key is private
set +e
t A key init 2>"$H/err"; rc=$?
set -e
[ $rc = 2 ] || fail "second key init: exit $rc"
grep -q "a key is already there (not overwritten)" "$H/err" || fail "second key init: $(cat "$H/err")"
[ "$(stat -c %a "$H/A/keys/signing_key")" = 600 ] || fail "key mode"
t B key trust host-a "$H/A/keys/signing_key.pub" >/dev/null

# A's commit is signed; git alone verifies it with key init's allowed-signers line
t A create "$SRC/examples/word_count" >/dev/null
t A push >/dev/null
t A key show --json | js "d['allowed_signers']" >"$H/allowed_a"
git --git-dir="$HUB" cat-file commit refs/tools/word_count | grep -q '^gpgsig -----BEGIN SSH SIGNATURE-----$' \
	|| fail "no gpgsig header"
git --git-dir="$HUB" -c gpg.format=ssh -c gpg.ssh.allowedSignersFile="$H/allowed_a" \
	verify-commit refs/tools/word_count 2>/dev/null || fail "git verify-commit"

# B: good signature from host-a, still re-vetted here
t B pull --json >"$H/p1.json"
[ "$(js "[(v['status'], v['signature']['state'], v['signature'].get('principal'), v['disagree']) for t in d['tools'] for v in t['versions']]" <"$H/p1.json")" \
	= "[('inactive', 'good', 'host-a', False)]" ] || fail "good signature: $(cat "$H/p1.json")"
c1=$(js "d['tools'][0]['versions'][0]['commit']" <"$H/p1.json")
git --git-dir="$H/B/store.git" notes --ref=toolgate-local show "$c1" | js "d['signature']['state'], d['status']" \
	| grep -qx "('good', 'inactive')" || fail "local note lacks the signature"

# C (a key B does not trust) and D (no key): reported, re-vetted, accepted
t C create "$SRC/examples/sort_lines" >/dev/null
t C push >/dev/null
t B pull >/dev/null
t D pull >/dev/null
t D create "$SRC/examples/stats" >/dev/null
t D push >/dev/null
t A pull >/dev/null
set +e
t B pull --json >"$H/p2.json"; rc=$?
set -e
[ $rc = 0 ] || fail "pull of untrusted and unsigned versions: exit $rc $(cat "$H/p2.json")"
[ "$(js "sorted((t['name'], v['status'], v['signature']['state']) for t in d['tools'] for v in t.get('versions', []))" <"$H/p2.json")" \
	= "[('stats', 'inactive', 'unsigned')]" ] || fail "unsigned: $(cat "$H/p2.json")"
kc=$(ssh-keygen -lf "$H/C/keys/signing_key.pub" | cut -d' ' -f2)
git --git-dir="$H/B/store.git" notes --ref=toolgate-local show \
	"$(git --git-dir="$H/B/store.git" rev-parse refs/tools/sort_lines)" >"$H/n_sort.json"
[ "$(js "d['signature']['state'], d['signature']['why'], d['status']" <"$H/n_sort.json")" \
	= "('untrusted', 'key $kc is not in the trusted signers', 'inactive')" ] \
	|| fail "untrusted signer: $(cat "$H/n_sort.json")"

# tamper: A's next commit edited in the hub, its gpgsig kept
t A create "$SRC/examples/word_count_v2" >/dev/null
t A push >/dev/null
orig=$(git --git-dir="$HUB" rev-parse refs/tools/word_count)
git --git-dir="$HUB" cat-file commit "$orig" | sed 's/^word_count: active$/word_count: active (edited)/' \
	>"$H/forged"
grep -q '(edited)' "$H/forged" || fail "could not edit the commit"
grep -q '^gpgsig ' "$H/forged" || fail "edit lost the gpgsig"
forged=$(git --git-dir="$HUB" hash-object -t commit -w "$H/forged")
git --git-dir="$HUB" update-ref refs/tools/word_count "$forged"
git --git-dir="$HUB" update-ref refs/active/word_count "$forged"
set +e
t B pull --json >"$H/p4.json"; rc=$?
set -e
[ $rc = 1 ] || fail "tampered signature: exit $rc"
[ "$(js "[(v['version'], v['status'], v['signature']['state'], v['signature']['why'], v['disagree']) for t in d['tools'] for v in t.get('versions', [])]" <"$H/p4.json")" \
	= "[(2, 'inactive', 'bad', 'the signature does not match the commit (ssh-keygen -Y check-novalidate failed)', True)]" ] \
	|| fail "tampered: $(cat "$H/p4.json")"
[ "$(js "d['disagreements']" <"$H/p4.json")" = 1 ] || fail "tampered: not counted"
t B log --json | js "[e['details']['signature']['state'] for e in d if e['event'] == 'pull_disagreement']" \
	| grep -q "'bad'" || fail "no pull_disagreement audit for the bad signature"
[ "$(js "[(t['active']['followed'], t['active']['why']) for t in d['tools'] if t['name'] == 'word_count'][0]" <"$H/p4.json")" \
	= "(False, 'v2: its signature does not verify')" ] || fail "followed a badly signed version"
[ "$(t B show word_count --json | js "d['version']")" = 1 ] || fail "B's active moved"
# the text form names each state
t C create "$SRC/examples/csv_to_json" >/dev/null
t C push >/dev/null
set +e
t B pull >"$H/p5.txt"; rc=$?
set -e
[ $rc = 1 ] || fail "text pull: exit $rc (the hub still holds the bad word_count active pointer)"
grep -qx '  v1 inactive, signature: untrusted (key '"$kc"' is not in the trusted signers)' "$H/p5.txt" \
	|| fail "text form: $(cat "$H/p5.txt")"
echo ok
