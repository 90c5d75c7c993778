#!/bin/sh
# tests/remote/cli_claims.sh TOOLGATE SOURCE_DIR: a remote's trailers are
# claims, this host's local note is the fact, and `verify` holds each to
# its place (docs/STORE.md, "What verify compares"). A hub (a bare
# repository, a real git remote) is made to lie with git plumbing
# (commit_tool.py): v2 claims Toolgate-Status: active, verdict pass, for
# code that fails its tests here, and the hub's active pointer names it;
# v3 is good code whose Toolgate-Content-Hash names other code. B pulls:
# v2 failed, v3 passed, the active pointer not followed (exit 1, two
# disagreements); B then denies v3. Asserted: B's verify exits 0 with the
# two claims named in notes, and no problem. Then real tampering, each on
# a copy of B (or on A, which created v1), makes verify exit 1 with the
# exact problem lines: B's local note of v2 removed (the remote's claims
# are all that is left, and the registry disagrees with them); the active
# ref moved by hand to v2 (active but failed here); B's note of v3 edited
# to record the claimed hash; the registry's row of v3 given that hash;
# and, on A, v1's tool.c changed in a rewritten commit.
set -eu
TG=$1
SRC=$2
HERE=$(cd "$(dirname "$0")" && pwd)
H=$(mktemp -d /tmp/tg_claims_XXXXXX)
trap 'rm -rf "$H"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
t() { h=$1; shift; "$TG" --home "$H/$h" "$@"; }
js() { python3 -c "import json,sys; d=json.load(sys.stdin); r=($1); print(r)"; }
forge() { python3 "$HERE/commit_tool.py" "$@"; }
# verify_is HOME RC [LINE...]: verify --json exits RC, its problems exactly
# the LINEs (in order)
verify_is() {
	vh=$1
	want=$2
	shift 2
	set +e
	t "$vh" verify --json >"$H/v.json"
	rc=$?
	set -e
	[ $rc = "$want" ] || fail "$vh: verify exit $rc, want $want: $(cat "$H/v.json")"
	python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["problems"] != sys.argv[2:])' \
		"$H/v.json" "$@" || fail "$vh: verify problems: $(cat "$H/v.json")"
}
# in_list KEY LINE: LINE is one of the last verify's KEY (problems, notes)
in_list() {
	python3 -c 'import json,sys; sys.exit(sys.argv[3] not in json.load(open(sys.argv[1]))[sys.argv[2]])' \
		"$H/v.json" "$1" "$2" || fail "no $1 line '$2': $(cat "$H/v.json")"
}
HUB=$H/hub.git
git init -q --bare "$HUB"
for h in A B; do
	t $h init >/dev/null
	t $h remote add origin "$HUB" >/dev/null
done

# v1, honest: created on A, pulled by B, active on both
t A create "$SRC/examples/word_count" >/dev/null
t A push >/dev/null
t B pull >/dev/null || fail "B's first pull"
c1=$(git --git-dir="$HUB" rev-parse refs/tools/word_count)

# the lies: v2 fails its tests here but claims active and pass, and the
# hub's active pointer names it; v3 passes but claims another content hash
sed 's/words++;/words += 2;/' "$SRC/examples/word_count/tool.c" >"$H/wrong.c"
cmp -s "$H/wrong.c" "$SRC/examples/word_count/tool.c" && fail "wrong.c is word_count's tool.c"
c2=$(forge craft "$HUB" "$c1" "$H/wrong.c" -)
LIE=$(printf '%064d' 7)
c3=$(FORGE_CONTENT_HASH=$LIE forge craft "$HUB" "$c2" "$SRC/examples/word_count/tool.c" -)
git --git-dir="$HUB" update-ref refs/tools/word_count "$c3"
git --git-dir="$HUB" update-ref refs/active/word_count "$c2"
real3=$( (printf 'toolgate-build-v1\n'; cat "$SRC/examples/word_count/tool.c") | sha256sum | cut -c1-64)
[ "$real3" != "$LIE" ] || fail "the claimed hash is the real one"

set +e
t B pull --json >"$H/pull.json"; rc=$?
set -e
[ $rc = 1 ] || fail "the lying pull: exit $rc $(cat "$H/pull.json")"
[ "$(js "[(v['version'], v['status'], v['claimed_status'], v['disagree']) for v in d['tools'][0]['versions']], d['tools'][0]['active']['followed'], d['disagreements']" <"$H/pull.json")" = \
  "([(2, 'failed', 'active', True), (3, 'inactive', 'active', True)], False, 2)" ] \
	|| fail "the lying pull: $(cat "$H/pull.json")"
t B deny word_count@3 --reason "not wanted here" >/dev/null || fail "deny the pulled v3"

# the claims are notes; nothing is a problem
verify_is B 0
in_list notes "pull: word_count@2: the remote claimed status active, verdict pass; here: failed, pass"
in_list notes "pull: word_count@3: the remote claimed content hash $(echo "$LIE" | cut -c1-12); tool.c hashes to $(echo "$real3" | cut -c1-12) here"
t A verify >/dev/null || fail "A's verify"

# real tampering, each on a copy of B
copy() { rm -rf "$H/$1"; cp -a "$H/B" "$H/$1"; }

# B's local note of v2 removed: the remote's claims are all that is left
copy B1
git --git-dir="$H/B1/store.git" notes --ref=toolgate-local remove "$c2" 2>/dev/null
verify_is B1 1 \
	"registry: word_count@2: status failed in the registry disagrees with the commit's Toolgate-Status: active"

# the active ref moved by hand to v2 (the re-index follows the store, so
# the registry names v2 active too: active, yet failed here)
copy B2
git --git-dir="$H/B2/store.git" update-ref refs/active/word_count "$c2"
verify_is B2 1 \
	"registry: word_count@2: status active in the registry disagrees with this host's local note: status failed" \
	"registry: word_count@2 is active but 3 of its tests did not pass"
in_list notes "word_count: the active version follows the store's refs/active: v2 (the registry had v1)"

# B's note of v3 edited to record the hash the remote claimed
copy B3
G3=$H/B3/store.git
git --git-dir="$G3" notes --ref=toolgate-local show "$c3" \
	| python3 -c "import json,sys; d=json.load(sys.stdin); d['content_hash']='$LIE'; print(json.dumps(d))" >"$H/note3"
git --git-dir="$G3" notes --ref=toolgate-local add -f -F "$H/note3" "$c3" 2>/dev/null
verify_is B3 1 "store: word_count@3: tool.c hashes to $(echo "$real3" | cut -c1-12) but this host's local note recorded $(echo "$LIE" | cut -c1-12) when it was pulled"

# the registry's row of v3 given the claimed hash
copy B4
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE versions SET content_hash = ? WHERE version = 3\", (sys.argv[2],)); c.commit()" \
	"$H/B4/registry.db" "$LIE"
verify_is B4 1 "registry: word_count@3: content hash differs: $(echo "$LIE" | cut -c1-12) in the registry, tool.c in the store hashes to $(echo "$real3" | cut -c1-12)"

# on A, which created v1: its tool.c changed in a rewritten commit (same
# trailers), the tool's refs moved to it
GA=$H/A/store.git
blob=$(git --git-dir="$GA" hash-object -w "$H/wrong.c")
tree=$(git --git-dir="$GA" ls-tree "$c1" | sed "s/[0-9a-f]\{40\}\ttool.c\$/$blob\ttool.c/" | git --git-dir="$GA" mktree)
git --git-dir="$GA" cat-file commit "$c1" | sed "s/^tree .*/tree $tree/" >"$H/c1x"
y=$(git --git-dir="$GA" hash-object -t commit -w "$H/c1x")
git --git-dir="$GA" update-ref refs/tools/word_count "$y"
git --git-dir="$GA" update-ref refs/active/word_count "$y"
h1=$( (printf 'toolgate-build-v1\n'; cat "$SRC/examples/word_count/tool.c") | sha256sum | cut -c1-12)
hw=$( (printf 'toolgate-build-v1\n'; cat "$H/wrong.c") | sha256sum | cut -c1-12)
verify_is A 1 \
	"registry: word_count v1: commit $(echo "$c1" | cut -c1-12) in the registry, $(echo "$y" | cut -c1-12) in the store" \
	"registry: word_count@1: content hash differs: $h1 in the registry, tool.c in the store hashes to $hw" \
	"store: word_count@1: tool.c hashes to $hw but the commit's Toolgate-Content-Hash says $h1"
echo "remote_claims: ok"
