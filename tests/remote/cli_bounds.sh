#!/bin/sh
# tests/remote/cli_bounds.sh TOOLGATE SOURCE_DIR [MAX_KB]: a pull's memory
# and time are bounded whatever the remote advertises (docs/STORE.md,
# "Bounds of a pull"). The hub holds a 1 GiB blob of zeros in a 1 MB pack
# (big_pack.py) under refs the pull refuses by name (refs/heads/big, a
# lightweight tag, an annotated tag on the blob itself, a branch naming the
# blob) and under one it accepts (refs/tools/big, refused by the blob cap).
# Pulled as a path, a file:// URL and through a git daemon on 127.0.0.1,
# each time: exit 1, the exact refusals, the peak resident memory of the
# toolgate process and its children (getrusage) under MAX_KB (default
# 64 MiB), the wall time under 10 s for a local remote (libgit2's local
# transport packed every advertised ref in-process: 1 GiB and about 30 s)
# and 60 s through the daemon (which sends the accepted 1 GiB blob), the
# store's refs and objects unchanged by a second pull, no quarantine left. A fresh home pulls a small tool
# from the same hub: it is admitted in bounded time and no object of a
# refused ref enters the store. Past the limits: a 1 GiB commit under an
# accepted name (a path remote) fails at the memory limit, a git:// server
# that never answers at the time limit (TG_PULL_MAX_SECONDS=2), each with
# exit 2, the exact message and the store unchanged.
set -eu
TG=$1
SRC=$2
MAX_KB=${3:-65536}
HERE=$(cd "$(dirname "$0")" && pwd)
H=$(mktemp -d /tmp/tg_bounds_XXXXXX)
DPID=
MPID=
cleanup() {
	[ -z "$DPID" ] || kill "$DPID" 2>/dev/null || true
	[ -z "$MPID" ] || kill "$MPID" 2>/dev/null || true
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
# peak RSS (KiB) of the command and its children, its exit status, its
# wall time (ms); stdout in $H/out, stderr in $H/err
peak() {
	python3 -c '
import resource, subprocess, sys, time
t = time.monotonic()
rc = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1] + "/out", "w"),
                    stderr=open(sys.argv[1] + "/err", "w")).returncode
ms = int((time.monotonic() - t) * 1000)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, rc, ms)' "$H" "$@"
}
BYNAME="(only refs/tools/<name> and refs/active/<name> with a valid tool name)"
mkdir -p "$H/srv"
HUB=$H/srv/hub.git
git init -q --bare "$HUB"
c=$(python3 "$HERE/big_pack.py" "$HUB")
blob=$(git --git-dir="$HUB" rev-parse "$c:tool.c")
[ "$(git --git-dir="$HUB" cat-file -s "$blob")" = 1073741824 ] || fail "no 1 GiB blob"
git --git-dir="$HUB" update-ref refs/heads/big "$c"
git --git-dir="$HUB" update-ref refs/misc/blob "$blob"
git --git-dir="$HUB" update-ref refs/tags/big "$c"
tag=$(printf 'object %s\ntype blob\ntag blobtag\ntagger x <x@x> 1700000000 +0000\n\nbig\n' "$blob" |
	git --git-dir="$HUB" mktag)
git --git-dir="$HUB" update-ref refs/tags/blobtag "$tag"
git --git-dir="$HUB" update-ref refs/tools/big "$c"
# a small tool, pushed by another home
"$TG" --home "$H/W" init >/dev/null
"$TG" --home "$H/W" remote add origin "$HUB" >/dev/null
"$TG" --home "$H/W" create "$SRC/examples/word_count" >/dev/null
"$TG" --home "$H/W" push >/dev/null
wc=$(git --git-dir="$HUB" rev-parse refs/tools/word_count)

git_daemon_start "$H/srv" hub.git

expect_refused() { # WHAT: the exact refusals of a pull of the hub
	for r in refs/heads/big refs/misc/blob refs/tags/big refs/tags/blobtag; do
		grep -qxF "refused: ref $r: refused $BYNAME" "$H/out" || fail "$1: $r: $(cat "$H/out")"
	done
	grep -qxF "  refused: tool big version 1: tool.c is 1073741824 bytes, over the cap of 4194304" \
		"$H/out" || fail "$1: big: $(cat "$H/out")"
}
# (1) a home that already has word_count at the hub's tip: nothing to
# build, so the peak is toolgate's own (and its fetch process's). The
# first pull records this host's view of word_count (its active pointer,
# a review note); the second must change nothing at all.
pull_once() { # HOME WHAT MAX_MS: one measured pull, its assertions
	what=$2
	max_ms=$3
	set -- $(peak "$TG" --home "$1" pull)
	[ "$2" = 1 ] || fail "$what: exit $2: $(cat "$H/err")"
	[ "$1" -lt "$MAX_KB" ] || fail "$what: peak resident memory $1 KiB"
	[ "$3" -lt "$max_ms" ] || fail "$what: took $3 ms"
	grep -qx "word_count: same" "$H/out" || fail "$what: word_count: $(cat "$H/out")"
	expect_refused "$what"
	echo "$what: refused by name and by cap, peak RSS $1 KiB, $3 ms"
}
check() { # check HOME URL WHAT MAX_MS
	"$TG" --home "$1" init >/dev/null
	"$TG" --home "$1" remote add origin "$2" >/dev/null
	git --git-dir="$1/store.git" fetch -q "$HUB" "refs/tools/word_count:refs/tools/word_count"
	pull_once "$1" "$3" "$4"
	before=$(refs "$1")
	obefore=$(objects "$1")
	pull_once "$1" "$3 (again)" "$4"
	[ "$(refs "$1")" = "$before" ] || fail "$3: refs changed: $before ==> $(refs "$1")"
	[ "$(objects "$1")" = "$obefore" ] || fail "$3: objects changed"
	[ -z "$(quarantines "$1")" ] || fail "$3: quarantine left"
}
# (a local remote's refs/tools/big is refused from its object header; over
# git:// the daemon sends the 1 GiB blob, deflated, and the fetch process
# streams it through its hash before the cap refuses it: seconds, not memory)
check "$H/P" "$HUB" "path" 10000
check "$H/F" "file://$HUB" "file://" 10000
check "$H/D" "git://127.0.0.1:$PORT/hub.git" "git daemon" 60000

# (2) a fresh home: word_count is admitted, nothing of the refused refs is
for url in "$HUB" "git://127.0.0.1:$PORT/hub.git"; do
	rm -rf "$H/N"
	"$TG" --home "$H/N" init >/dev/null
	"$TG" --home "$H/N" remote add origin "$url" >/dev/null
	set -- $(peak "$TG" --home "$H/N" pull)
	[ "$2" = 1 ] || fail "fresh $url: exit $2: $(cat "$H/err")"
	[ "$3" -lt 60000 ] || fail "fresh $url: took $3 ms"
	grep -qx "word_count: new" "$H/out" || fail "fresh $url: $(cat "$H/out")"
	expect_refused "fresh $url"
	[ "$(git --git-dir="$H/N/store.git" rev-parse refs/tools/word_count)" = "$wc" ] ||
		fail "fresh $url: word_count not admitted"
	for o in "$blob" "$c" "$tag"; do
		! git --git-dir="$H/N/store.git" cat-file -e "$o" 2>/dev/null ||
			fail "fresh $url: object $o of a refused ref in the store"
	done
	echo "fresh home from $url: word_count admitted in $3 ms, no refused object"
done

# (3) past the memory limit: a 1 GiB commit under an accepted name
git init -q --bare "$H/srv/commit.git"
c=$(python3 "$HERE/big_pack.py" "$H/srv/commit.git" --commit)
git --git-dir="$H/srv/commit.git" update-ref refs/tools/huge "$c"
"$TG" --home "$H/P" remote add huge "$H/srv/commit.git" >/dev/null
before=$(refs "$H/P")
obefore=$(objects "$H/P")
# under AddressSanitizer an allocation past the limit aborts the process
# unless the allocator may return NULL, as libc's does (the ASan build's
# ASAN_OPTIONS come from make sanitize)
saved_asan=${ASAN_OPTIONS-}
if [ -n "$saved_asan" ]; then
	export ASAN_OPTIONS="$saved_asan:allocator_may_return_null=1"
fi
set -- $(peak "$TG" --home "$H/P" pull huge)
if [ -n "$saved_asan" ]; then
	export ASAN_OPTIONS="$saved_asan"
fi
[ "$2" = 2 ] || fail "memory: exit $2: $(cat "$H/out" "$H/err")"
[ "$(cat "$H/err")" = "toolgate: pull: fetch from $H/srv/commit.git refused: it needs more than the 40 MiB of memory a pull may use" ] ||
	fail "memory: $(cat "$H/err")"
[ "$1" -lt "$MAX_KB" ] || fail "memory: peak resident memory $1 KiB"
[ "$(refs "$H/P")" = "$before" ] || fail "memory: refs changed"
[ "$(objects "$H/P")" = "$obefore" ] || fail "memory: objects changed"
[ -z "$(quarantines "$H/P")" ] || fail "memory: quarantine left"
echo "1 GiB commit: memory limit, peak RSS $1 KiB, $3 ms"

# (4) past the time limit: a git:// server that accepts and never answers
MPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8); held = []
while True:
    held.append(s.accept()[0])' "$MPORT" &
MPID=$!
"$TG" --home "$H/P" remote add mute "git://127.0.0.1:$MPORT/x.git" >/dev/null
i=0
until python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])))' "$MPORT" 2>/dev/null; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "the mute server did not start"; sleep 0.1
done
set -- $(TG_PULL_MAX_SECONDS=2 peak "$TG" --home "$H/P" pull mute)
[ "$2" = 2 ] || fail "time: exit $2: $(cat "$H/err")"
[ "$(cat "$H/err")" = "toolgate: pull: fetch from git://127.0.0.1:$MPORT/x.git refused: it takes more than the 2 s a pull may take" ] ||
	fail "time: $(cat "$H/err")"
[ "$3" -ge 2000 ] && [ "$3" -lt 6000 ] || fail "time: took $3 ms"
[ "$(refs "$H/P")" = "$before" ] || fail "time: refs changed"
[ "$(objects "$H/P")" = "$obefore" ] || fail "time: objects changed"
[ -z "$(quarantines "$H/P")" ] || fail "time: quarantine left"
echo "silent server: time limit after $3 ms"
echo "remote_bounds: ok"
