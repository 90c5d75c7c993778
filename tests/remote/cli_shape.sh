#!/bin/sh
# tests/remote/cli_shape.sh TOOLGATE SOURCE_DIR: a remote whose histories
# are not all of the expected shape. The hub holds word_count (pushed by
# home A), a tool whose tree has a symlink (mode 120000 to /etc/passwd)
# and one whose tree has a gitlink (mode 160000). Home B pulls it (exit 1):
# word_count arrives and is active, both others are refused with the exact
# reason, and none of their objects (the symlink's blob, the trees, the
# commits) is in B's store: the fetch landed in a quarantine and only the
# accepted history was packed into the store; no quarantine is left.
set -eu
TG=$1
SRC=$2
H=$(mktemp -d /tmp/tg_shape_XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$H"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
HUB=$H/hub.git
G() { git --git-dir="$HUB" "$@"; }
git init -q --bare "$HUB"
"$TG" --home "$H/A" init >/dev/null
"$TG" --home "$H/A" remote add origin "$HUB" >/dev/null
"$TG" --home "$H/A" create "$SRC/examples/word_count" >/dev/null
"$TG" --home "$H/A" push >/dev/null

# two hostile histories built with plumbing, claiming pass and active
bj=$(G show refs/tools/word_count:tool.json | sed 's/"word_count"/"linky"/' | G hash-object -w --stdin)
bc=$(G show refs/tools/word_count:tool.c | G hash-object -w --stdin)
bl=$(printf '/etc/passwd' | G hash-object -w --stdin)
commit() { # commit TREE SUBJECT
	printf '%s\n\nToolgate-Version: 1\nToolgate-Status: active\nToolgate-Verdict: pass\n' "$2" |
		GIT_AUTHOR_NAME=x GIT_AUTHOR_EMAIL=x@x GIT_COMMITTER_NAME=x GIT_COMMITTER_EMAIL=x@x \
		G commit-tree "$1"
}
tl=$(printf '120000 blob %s\tlink\n100644 blob %s\ttool.c\n100644 blob %s\ttool.json\n' "$bl" "$bc" "$bj" | G mktree)
cl=$(commit "$tl" "linky: a symlink")
G update-ref refs/tools/linky "$cl"
G update-ref refs/active/linky "$cl"
sub=$(G rev-parse refs/tools/word_count)
tg=$(printf '160000 commit %s\tsub\n100644 blob %s\ttool.c\n100644 blob %s\ttool.json\n' "$sub" "$bc" "$bj" | G mktree)
cg=$(commit "$tg" "gitty: a gitlink")
G update-ref refs/tools/gitty "$cg"

"$TG" --home "$H/B" init >/dev/null
"$TG" --home "$H/B" remote add origin "$HUB" >/dev/null
set +e
"$TG" --home "$H/B" pull >"$H/out" 2>"$H/err"; rc=$?
set -e
[ $rc = 1 ] || fail "pull exit $rc: $(cat "$H/out" "$H/err")"
grep -qx "  refused: tool linky version 1: link is not a regular file (mode 120000)" "$H/out" ||
	fail "linky: $(cat "$H/out")"
grep -qx "  refused: tool gitty version 1: sub is not a file" "$H/out" ||
	fail "gitty: $(cat "$H/out")"
"$TG" --home "$H/B" call word_count '{"text":"a b c"}' >"$H/call"
[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["words"])' "$H/call")" = 3 ] ||
	fail "word_count not callable on B"
S=$H/B/store.git
for o in "$bl" "$tl" "$cl" "$tg" "$cg"; do
	git --git-dir="$S" cat-file -e "$o" 2>/dev/null && fail "object $o of a refused history is in the store"
done
git --git-dir="$S" cat-file -e "$bc" || fail "word_count's source is not in the store"
git --git-dir="$S" rev-parse -q --verify refs/tools/linky >/dev/null && fail "linky taken"
[ -z "$(find "$S" -maxdepth 1 -name 'toolgate-quarantine-*')" ] || fail "quarantine left"
"$TG" --home "$H/B" verify >/dev/null || fail "verify"
echo "remote_shape: ok"
