#!/bin/sh
# tests/remote/cli_bigblob.sh TOOLGATE SOURCE_DIR [MAX_KB]: a 1 GiB blob of zeros in
# a 1 MB pack (big_pack.py writes the pack and its index straight into a
# bare hub: nothing of 1 GiB is written or held). Pulled (1) from the hub as
# a path and as a file:// URL (the fetch process checks blob sizes in the
# remote repository from object headers before it copies anything) and (2)
# through a git daemon on 127.0.0.1 (libgit2's indexer streams the blob
# through its hash in the fetch process; the fetched chain's blob sizes
# come from object headers). Asserted each time: exit 1, the tool refused
# with the exact reason naming the 4 MiB blob cap, no ref of the store
# changed, the store's objects byte for byte as before (every file under
# objects/ with its size, and `git count-objects -v`: the fetch landed in a
# quarantine, removed with what it held), no quarantine left, the peak
# resident memory of the toolgate process (getrusage of the waited child)
# under MAX_KB (default 64 MiB), verify clean; the same blob as a 514-byte
# delta pack is refused the same way. A pull killed (SIGKILL) while the
# blob streams into its quarantine leaves the store's objects unchanged and
# its quarantine is swept at the next open; a quarantine whose owner died
# goes at the next open, one whose lock is held stays.
set -eu
TG=$1
SRC=$2
MAX_KB=${3:-65536}
HERE=$(cd "$(dirname "$0")" && pwd)
H=$(mktemp -d /tmp/tg_bigblob_XXXXXX)
DPID=
LPID=
cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	[ -z "$LPID" ] || kill "$LPID" 2>/dev/null || true
	rm -rf "$H"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$(dirname "$0")/lib.sh"
refs() { git --git-dir="$1/store.git" for-each-ref --format='%(refname) %(objectname)'; }
objects() {
	(cd "$1/store.git/objects" && find . -type f -printf '%p %s\n' | sort)
	git --git-dir="$1/store.git" count-objects -v
}
quarantines() { find "$1/store.git" -maxdepth 1 -name 'toolgate-quarantine-*'; }
# peak RSS (KiB) of the command, its exit status, its stdout in $H/out
peak() {
	python3 -c '
import resource, subprocess, sys
rc = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1] + "/out", "w"), stderr=subprocess.DEVNULL).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, rc)' "$H" "$@"
}
REASON="tool big version 1: tool.c is 1073741824 bytes, over the cap of 4194304"
mkdir -p "$H/srv"
git init -q --bare "$H/srv/hub.git"
c=$(python3 "$HERE/big_pack.py" "$H/srv/hub.git")
git --git-dir="$H/srv/hub.git" update-ref refs/tools/big "$c"
[ "$(git --git-dir="$H/srv/hub.git" cat-file -s "$c:tool.c")" = 1073741824 ] || fail "no 1 GiB blob"
[ "$(du -k "$H/srv/hub.git/objects/pack" | cut -f1)" -lt 2048 ] || fail "the pack is not small"
git init -q --bare "$H/srv/delta.git"
c=$(python3 "$HERE/big_pack.py" "$H/srv/delta.git" --delta)
git --git-dir="$H/srv/delta.git" update-ref refs/tools/big "$c"

check() { # check HOME URL WHAT
	"$TG" --home "$1" init >/dev/null
	"$TG" --home "$1" remote add origin "$2" >/dev/null
	"$TG" --home "$1" create "$SRC/examples/word_count" >/dev/null
	before=$(refs "$1")
	set -- "$1" "$2" "$3" "$(objects "$1")" $(peak "$TG" --home "$1" pull)
	[ "$6" = 1 ] || fail "$3: exit $6"
	[ "$5" -lt "$MAX_KB" ] || fail "$3: peak resident memory $5 KiB"
	grep -qx "  refused: $REASON" "$H/out" || fail "$3: $(cat "$H/out")"
	[ "$(refs "$1")" = "$before" ] || fail "$3: refs changed"
	[ "$(objects "$1")" = "$4" ] || fail "$3: objects changed: $(objects "$1")"
	[ -z "$(quarantines "$1")" ] || fail "$3: quarantine left: $(quarantines "$1")"
	"$TG" --home "$1" verify >/dev/null || fail "$3: verify"
	echo "$3: refused, peak RSS $5 KiB"
}
check "$H/P" "$H/srv/hub.git" "path"
check "$H/F" "file://$H/srv/delta.git" "file:// (delta pack)"
# the local pre-check wrote nothing: a fresh home pulling only the big tool keeps no object
"$TG" --home "$H/E" init >/dev/null
"$TG" --home "$H/E" remote add origin "$H/srv/hub.git" >/dev/null
set +e
"$TG" --home "$H/E" pull >/dev/null; rc=$?
set -e
[ $rc = 1 ] || fail "empty home: exit $rc"
[ -z "$(cd "$H/E/store.git/objects" && find . -type f)" ] || fail "objects written by a refused local pull"

[ -z "$(refs "$H/E")" ] || fail "refs written by a refused local pull"

git_daemon_start "$H/srv" hub.git
check "$H/D" "git://127.0.0.1:$PORT/hub.git" "git daemon"

# a crash mid-fetch: the pull is killed (SIGKILL) while the 1 GiB blob
# streams into its quarantine; the store's objects are as before, and the
# next open sweeps the dead quarantine
before=$(objects "$H/D")
"$TG" --home "$H/D" pull >/dev/null 2>&1 &
PPID_=$!
i=0
until [ -n "$(quarantines "$H/D")" ]; do
	i=$((i + 1)); [ $i -lt 400 ] || fail "no quarantine seen during the pull"; sleep 0.025
done
kill -9 "$PPID_"
wait "$PPID_" 2>/dev/null && fail "the pull ended before it was killed"
[ -n "$(quarantines "$H/D")" ] || fail "the killed pull left no quarantine"
[ "$(objects "$H/D")" = "$before" ] || fail "crash: objects changed: $(objects "$H/D")"
"$TG" --home "$H/D" verify >/dev/null || fail "verify after the crash"
[ -z "$(quarantines "$H/D")" ] || fail "crash: quarantine not swept: $(quarantines "$H/D")"
echo "crash mid-fetch: store unchanged, quarantine swept"

# the sweep at open: a quarantine left by a dead process (its lock file
# unlocked) is removed; one whose lock is held (a live pull) is not
mkdir "$H/D/store.git/toolgate-quarantine-dead01" "$H/D/store.git/toolgate-quarantine-live01"
: >"$H/D/store.git/toolgate-quarantine-dead01/toolgate.lock"
: >"$H/D/store.git/toolgate-quarantine-live01/toolgate.lock"
: >"$H/D/store.git/toolgate-quarantine-dead01/objects-junk"
# (the subshell becomes sleep, which holds the flocked descriptor)
(exec 9>"$H/D/store.git/toolgate-quarantine-live01/toolgate.lock" >/dev/null 2>&1 &&
	flock 9 && exec sleep 30) &
LPID=$!
i=0
until ! flock -n "$H/D/store.git/toolgate-quarantine-live01/toolgate.lock" true; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "flock did not start"; sleep 0.1
done
"$TG" --home "$H/D" verify >/dev/null
[ "$(quarantines "$H/D")" = "$H/D/store.git/toolgate-quarantine-live01" ] ||
	fail "sweep: $(quarantines "$H/D")"
kill "$LPID"; wait "$LPID" 2>/dev/null || true; LPID=
"$TG" --home "$H/D" verify >/dev/null
[ -z "$(quarantines "$H/D")" ] || fail "sweep after the owner died: $(quarantines "$H/D")"
echo "remote_bigblob: ok"
