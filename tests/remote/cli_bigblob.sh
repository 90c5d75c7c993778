#!/bin/sh
# tests/remote/cli_bigblob.sh TOOLGATE SOURCE_DIR [MAX_KB]: a 1 GiB blob of zeros in
# a 1 MB pack (big_pack.py writes the pack and its index straight into a
# bare hub: nothing of 1 GiB is written or held). Pulled (1) from the hub as
# a path and as a file:// URL (libgit2's local transport, which would read
# the blob whole in this process: toolgate checks blob sizes in the remote
# repository first) and (2) through a git daemon on 127.0.0.1 (libgit2's
# indexer streams the blob through its hash; the fetched chain's blob sizes
# come from object headers). Asserted each time: exit 1, the tool refused
# with the exact reason naming the 4 MiB blob cap, no ref of the store
# changed, the peak resident memory of the toolgate process (getrusage of
# the waited child) under MAX_KB (default 100 MB), verify clean; for the local remote no
# object is written at all; the same blob as a 514-byte delta pack is
# refused the same way.
set -eu
TG=$1
SRC=$2
MAX_KB=${3:-102400}
HERE=$(cd "$(dirname "$0")" && pwd)
H=$(mktemp -d /tmp/tg_bigblob_XXXXXX)
DPID=
cleanup() { [ -n "$DPID" ] && kill "$DPID" 2>/dev/null; rm -rf "$H"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
refs() { git --git-dir="$1/store.git" for-each-ref --format='%(refname) %(objectname)'; }
objects() { (cd "$1/store.git/objects" && find . -type f | sort); }
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

check() { # check HOME URL WHAT LOCAL(1: no object may be written)
	local_remote=$4
	"$TG" --home "$1" init >/dev/null
	"$TG" --home "$1" remote add origin "$2" >/dev/null
	"$TG" --home "$1" create "$SRC/examples/word_count" >/dev/null
	before=$(refs "$1")
	set -- "$1" "$2" "$3" "$(objects "$1")" $(peak "$TG" --home "$1" pull)
	[ "$6" = 1 ] || fail "$3: exit $6"
	[ "$5" -lt "$MAX_KB" ] || fail "$3: peak resident memory $5 KiB"
	grep -qx "  refused: $REASON" "$H/out" || fail "$3: $(cat "$H/out")"
	[ "$(refs "$1")" = "$before" ] || fail "$3: refs changed"
	[ "$local_remote" = 0 ] || [ "$(objects "$1")" = "$4" ] || fail "$3: objects written"
	"$TG" --home "$1" verify >/dev/null || fail "$3: verify"
	echo "$3: refused, peak RSS $5 KiB"
}
check "$H/P" "$H/srv/hub.git" "path" 1
check "$H/F" "file://$H/srv/delta.git" "file:// (delta pack)" 1
# the local pre-check wrote nothing: a fresh home pulling only the big tool keeps no object
"$TG" --home "$H/E" init >/dev/null
"$TG" --home "$H/E" remote add origin "$H/srv/hub.git" >/dev/null
set +e
"$TG" --home "$H/E" pull >/dev/null; rc=$?
set -e
[ $rc = 1 ] || fail "empty home: exit $rc"
[ -z "$(objects "$H/E")" ] || fail "objects written by a refused local pull: $(objects "$H/E")"
[ -z "$(refs "$H/E")" ] || fail "refs written by a refused local pull"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
git daemon --base-path="$H/srv" --export-all --reuseaddr --listen=127.0.0.1 --port="$PORT" \
	"$H/srv" 2>"$H/daemon.log" &
DPID=$!
i=0
until git ls-remote "git://127.0.0.1:$PORT/hub.git" >/dev/null 2>&1; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "git daemon did not start"; sleep 0.1
done
check "$H/D" "git://127.0.0.1:$PORT/hub.git" "git daemon" 0
echo "remote_bigblob: ok"
