#!/bin/sh
# tests/remote/cli_trust.sh TOOLGATE SOURCE_DIR: `pull --trust-signed` and
# `verify` checking signatures (docs/STORE.md, "Signed verdicts"). Homes A
# and C have keys; B and T trust A's key (principal host-a), not C's; B
# pulls with --trust-signed, T without. Versions are forged in the hub with
# git plumbing (commit_tool.py): one signed by A's key whose code fails its
# own tests here, so that only a skipped test run lets it pass.
# Asserted: A's real version reaches B vetted and built with its tests
# skipped ("tests skipped: signed by host-a", 0 tests run, callable) and
# reaches T re-tested (3 tests run); the forged v2 signed by host-a is
# "inactive" (passed) on B with no test run, "failed" on T (its tests ran
# and failed: the skip, not the code, made B accept it); a version signed by
# C's untrusted key, a version carrying a signature copied from another
# commit ("bad", exact reason), and a version signed by host-a whose claimed
# content hash is not its tool.c's are all re-tested and fail on B (exit 1,
# disagreements); B's verify names the commit whose signature does not
# verify (exit 1); A's verify is clean with its own signatures counted, and
# exit 1 with the exact problem line once a signature in its store is
# replaced by another commit's with git plumbing.
set -eu
TG=$1
SRC=$2
HERE=$(cd "$(dirname "$0")" && pwd)
H=$(mktemp -d /tmp/tg_trust_XXXXXX)
trap 'rm -rf "$H"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
t() { h=$1; shift; "$TG" --home "$H/$h" "$@"; }
js() { python3 -c "import json,sys; d=json.load(sys.stdin); r=($1); print(r)"; }
forge() { python3 "$HERE/commit_tool.py" "$@"; }
vers() { js "[(v['version'], v['status'], v['signature']['state'], v.get('tests_skipped'), v['tests_run'], v['disagree']) for t in d['tools'] for v in t.get('versions', [])]"; }
HUB=$H/hub.git
git init -q --bare "$HUB"
for h in A B C T; do
	t $h init >/dev/null
	t $h remote add origin "$HUB" >/dev/null
done
t A key init >/dev/null
t C key init >/dev/null
t B key trust host-a "$H/A/keys/signing_key.pub" >/dev/null
t T key trust host-a "$H/A/keys/signing_key.pub" >/dev/null
BAD_WORDS="the signature does not match the commit (ssh-keygen -Y check-novalidate failed)"

# A's version: B skips its tests (still vets and builds: callable), T runs them
t A create "$SRC/examples/word_count" >/dev/null
t A push >/dev/null
t B pull --trust-signed --json >"$H/b1.json" || fail "B pull: $(cat "$H/b1.json")"
[ "$(vers <"$H/b1.json")" = "[(1, 'inactive', 'good', 'signed by host-a', 0, False)]" ] \
	|| fail "trusted pull: $(cat "$H/b1.json")"
[ "$(js "d['tools'][0]['versions'][0]['reason']" <"$H/b1.json")" = "passed; tests skipped: signed by host-a" ] \
	|| fail "reason: $(cat "$H/b1.json")"
c1=$(git --git-dir="$HUB" rev-parse refs/tools/word_count)
git --git-dir="$H/B/store.git" notes --ref=toolgate-local show "$c1" \
	| js "d['tests_skipped'], d['tests'], d['status'], d['content_hash'] == d['claimed']['content_hash']" \
	| grep -qx "('signed by host-a', \[\], 'inactive', True)" || fail "B's local note"
[ "$(t B show word_count@1 --json | js "d['reason']")" = "passed; tests skipped: signed by host-a" ] \
	|| fail "B's record: $(t B show word_count@1 --json)"
[ "$(t B call word_count '{"text":"a b c"}')" = '{"words":3,"lines":1,"chars":5}' ] || fail "call on B"
t T pull --json >"$H/t1.json" || fail "T pull"
[ "$(vers <"$H/t1.json")" = "[(1, 'inactive', 'good', None, 3, False)]" ] || fail "T: $(cat "$H/t1.json")"

# v2 signed by host-a, its code failing its tests: B (skipping) takes it, T (testing) does not
sed 's/words++;/words += 2;/' "$SRC/examples/word_count/tool.c" >"$H/wrong.c"
c2=$(forge craft "$HUB" "$c1" "$H/wrong.c" "$H/A/keys/signing_key")
git --git-dir="$HUB" update-ref refs/tools/word_count "$c2"
t B pull --trust-signed --json >"$H/b2.json" || fail "B pull v2: $(cat "$H/b2.json")"
[ "$(vers <"$H/b2.json")" = "[(2, 'inactive', 'good', 'signed by host-a', 0, False)]" ] \
	|| fail "trusted v2: $(cat "$H/b2.json")"
set +e
t T pull --json >"$H/t2.json"; rc=$?
set -e
[ $rc = 1 ] || fail "T pull v2: exit $rc"
[ "$(vers <"$H/t2.json")" = "[(2, 'failed', 'good', None, 3, True)]" ] || fail "T v2: $(cat "$H/t2.json")"

# v3: the same code signed by C's key (untrusted here): re-tested, fails
c3=$(forge craft "$HUB" "$c2" "$H/wrong.c" "$H/C/keys/signing_key")
git --git-dir="$HUB" update-ref refs/tools/word_count "$c3"
kc=$(ssh-keygen -lf "$H/C/keys/signing_key.pub" | cut -d' ' -f2)
set +e
t B pull --trust-signed --json >"$H/b3.json"; rc=$?
set -e
[ $rc = 1 ] || fail "untrusted: exit $rc"
[ "$(vers <"$H/b3.json")" = "[(3, 'failed', 'untrusted', None, 3, True)]" ] || fail "untrusted: $(cat "$H/b3.json")"
[ "$(js "d['tools'][0]['versions'][0]['signature']['why']" <"$H/b3.json")" = "key $kc is not in the trusted signers" ] \
	|| fail "untrusted why: $(cat "$H/b3.json")"

# v4: host-a's signature of v1 copied onto it: bad, re-tested, fails
c4=$(forge craft "$HUB" "$c3" "$H/wrong.c" "$H/A/keys/signing_key")
c4=$(forge swapsig "$HUB" "$c4" "$c1")
git --git-dir="$HUB" update-ref refs/tools/word_count "$c4"
set +e
t B pull --trust-signed --json >"$H/b4.json"; rc=$?
set -e
[ $rc = 1 ] || fail "copied signature: exit $rc"
[ "$(vers <"$H/b4.json")" = "[(4, 'failed', 'bad', None, 3, True)]" ] || fail "copied: $(cat "$H/b4.json")"
[ "$(js "d['tools'][0]['versions'][0]['signature']['why']" <"$H/b4.json")" = "$BAD_WORDS" ] \
	|| fail "copied why: $(cat "$H/b4.json")"

# verify on B: the version whose signature does not verify is a problem
set +e
t B verify --json >"$H/vb.json"; rc=$?
set -e
[ $rc = 1 ] || fail "B verify: exit $rc $(cat "$H/vb.json")"
[ "$(js "d['problems']" <"$H/vb.json")" = \
  "['store: word_count@4: the signature of commit $(echo "$c4" | cut -c1-12) does not verify: $BAD_WORDS']" ] \
	|| fail "B verify problems: $(cat "$H/vb.json")"

# v5: signed by host-a but claiming the content hash of other code: re-tested
c5=$(FORGE_CONTENT_HASH=$(printf '%064d' 5) forge craft "$HUB" "$c4" "$H/wrong.c" "$H/A/keys/signing_key")
git --git-dir="$HUB" update-ref refs/tools/word_count "$c5"
set +e
t B pull --trust-signed >"$H/b5.txt"; rc=$?
set -e
[ $rc = 1 ] || fail "hash claim: exit $rc"
grep -qx "  v5 failed (DISAGREES: the remote claimed active), signature: good from host-a" "$H/b5.txt" \
	|| fail "hash claim: $(cat "$H/b5.txt")"

# verify on A: clean, then a signature in its store replaced by another commit's
t A create "$SRC/examples/sort_lines" >/dev/null
t A verify --json >"$H/va.json" || fail "A verify: $(cat "$H/va.json")"
js "d['notes']" <"$H/va.json" | grep -q "signatures: 0 good (by a trusted signer), 2 valid by keys not in trusted_signers, 0 unsigned" \
	|| fail "A verify notes: $(cat "$H/va.json")"
GA=$H/A/store.git
o=$(git --git-dir="$GA" rev-parse refs/tools/word_count)
x=$(forge swapsig "$GA" "$o" "$(git --git-dir="$GA" rev-parse refs/tools/sort_lines)")
git --git-dir="$GA" update-ref refs/tools/word_count "$x"
git --git-dir="$GA" update-ref refs/active/word_count "$x"
set +e
t A verify --json >"$H/va2.json"; rc=$?
set -e
[ $rc = 1 ] || fail "A verify after the tamper: exit $rc $(cat "$H/va2.json")"
# (the registry still names the commit it recorded: a second problem)
[ "$(js "d['problems']" <"$H/va2.json")" = \
  "['registry: word_count v1: commit $(echo "$o" | cut -c1-12) in the registry, $(echo "$x" | cut -c1-12) in the store', 'store: word_count@1: the signature of commit $(echo "$x" | cut -c1-12) does not verify: $BAD_WORDS']" ] \
	|| fail "A verify problems: $(cat "$H/va2.json")"
echo "remote_trust: ok"
