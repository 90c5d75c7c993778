#!/bin/sh
# tests/doctor/doctor.sh TOOLGATE: `toolgate doctor` on a fresh home (every
# item ok or warn, exit 0, --json shape), on a home the user cannot read (the
# home item fails, exit 1, with its fix), with TOOLGATE_CGROUP naming a
# folder that is no cgroup (the cgroups item fails once config.json has
# require_cgroups, and `call` then refuses with exit 3), and with a
# config.json signing_key that is missing (the signing item fails), and
# with audit_mirror on (warn without a socket at its path, ok with one).
# The analysis item vets a source end to end (ok on a fresh home).
set -u
tg=$1
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp" # the home inside is what is unreadable below
check() { # name expected actual
	if [ "$2" != "$3" ]; then
		echo "FAIL $1: expected [$2] got [$3]"
		fails=$((fails + 1))
	else
		echo "ok   $1"
	fi
}
h=$tmp/home
"$tg" --home "$h" init >/dev/null 2>&1
chmod 700 "$h"

"$tg" --home "$h" doctor >"$tmp/out" 2>&1
check "fresh home: exit 0" 0 "$?"
check "fresh home: no fail line" 0 "$(grep -c '^fail' "$tmp/out")"
check "fresh home: sandbox probe ok" 1 "$(grep -c '^ok    sandbox' "$tmp/out")"
check "fresh home: registry ok" 1 "$(grep -c '^ok    registry' "$tmp/out")"
check "fresh home: a cpu line" 1 "$(grep -Ec "^(ok|warn) +cpu" "$tmp/out")"
# one analysis end to end, its parse child confined (analyzer/child.c)
check "fresh home: analysis ok" 1 \
	"$(grep -Ec "^ok    analysis   a test source vetted in [0-9]+ ms \(the parse in a fresh image under the parse filter\)$" "$tmp/out")"
# which mount path runs take (sandbox/mnt_template.c): as root a prepared
# tree, else (and with TG_SANDBOX_TEMPLATE=0) the host's mounts per run
if [ "$(id -u)" = 0 ]; then
	check "fresh home: prepared mount trees" 1 \
		"$(grep -c "^ok    mounts     runs copy a read-only mount tree prepared once per process (serve's, and any process's from its second run)$" "$tmp/out")"
else
	check "fresh home: mounts per run" 1 "$(grep -c "^ok    mounts     each run copies the host's mounts and pivots (not root" "$tmp/out")"
fi
TG_SANDBOX_TEMPLATE=0 "$tg" --home "$h" doctor >"$tmp/out" 2>&1
check "TG_SANDBOX_TEMPLATE=0: mounts per run" 1 \
	"$(grep -c "^ok    mounts     each run copies the host's mounts and pivots (turned off (TG_SANDBOX_TEMPLATE=0))$" "$tmp/out")"

"$tg" --home "$h" --json doctor >"$tmp/out" 2>&1
check "json: exit 0" 0 "$?"
check "json: ok true" 1 "$(grep -c '"ok": true' "$tmp/out")"
check "json: names every item" 13 "$(grep -c '"name": ' "$tmp/out")"
# the compiler is the clang driver the builds use, never gcc (issue 29)
check "json: the compiler item names clang" 1 "$(grep -c '"detail": "[^"]*clang[^"]*(tools are built with it)"' "$tmp/out")"
check "json: no gcc" 0 "$(grep -c gcc "$tmp/out")"
# gvisor: ok when runsc works or is absent (the home uses the native backend)
check "json: a gvisor item" 1 "$(grep -c '"name": "gvisor"' "$tmp/out")"

# An unreadable home: as uid 65534 (root reads any folder).
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$tg" --home "$h" doctor >"$tmp/out" 2>&1
	check "unreadable home: exit 1" 1 "$?"
	check "unreadable home: home fails" 1 \
		"$(grep -c "^fail  home       $h: not a folder this user can read and write (owner uid 0, mode 700)" "$tmp/out")"
	check "unreadable home: fix line" 1 "$(grep -c 'fix: chown the home to this user' "$tmp/out")"
else
	echo "note: not root or no setpriv: the unreadable-home case is not run"
fi

# A delegated folder that is no cgroup, with require_cgroups.
echo '{"require_cgroups": true}' >"$h/config.json"
TOOLGATE_CGROUP=$tmp "$tg" --home "$h" --json doctor >"$tmp/out" 2>&1
check "bad TOOLGATE_CGROUP: exit 1" 1 "$?"
check "bad TOOLGATE_CGROUP: cgroups fails" 1 \
	"$(grep -A3 '"name": "cgroups"' "$tmp/out" | grep -c '"status": "fail"')"
check "bad TOOLGATE_CGROUP: says why" 1 "$(grep -c 'not a cgroup v2 folder' "$tmp/out")"
TOOLGATE_CGROUP=$tmp "$tg" --home "$h" call nosuchtool '{}' >"$tmp/out" 2>"$tmp/err"
check "require_cgroups: call exits 3" 3 "$?"
check "require_cgroups: message" 1 "$(grep -c '^toolgate: call: no cgroup limits can be applied here (TOOLGATE_CGROUP=.*: not a cgroup v2 folder) and config.json sets require_cgroups: refusing' "$tmp/err")"
echo '{}' >"$h/config.json"
TOOLGATE_CGROUP=$tmp "$tg" --home "$h" call nosuchtool '{}' >"$tmp/out" 2>"$tmp/err"
check "fallback: note said once" 1 "$(grep -c '^toolgate: call: note: no cgroup limits here .*fall back to rlimits' "$tmp/err")"
check "fallback: the call goes on (unknown tool)" 1 "$(grep -c 'nosuchtool' "$tmp/err")"

# A configured signing key that is not there: the signing item fails.
echo '{"signing_key": "/nonexistent/id_ed25519"}' >"$h/config.json"
"$tg" --home "$h" doctor >"$tmp/out" 2>&1
check "missing signing key: exit 1" 1 "$?"
check "missing signing key: signing fails" 1 \
	"$(grep -c '^fail  signing    signing key: /nonexistent/id_ed25519: No such file or directory$' "$tmp/out")"
echo '{}' >"$h/config.json"

# audit_mirror on: a warn while no socket listens at its path, ok once one does.
echo "{\"audit_mirror\": \"journal\", \"audit_mirror_socket\": \"$tmp/j.sock\"}" >"$h/config.json"
"$tg" --home "$h" doctor >"$tmp/out" 2>&1
check "audit_mirror, no socket: exit 0" 0 "$?"
check "audit_mirror, no socket: warns" 1 \
	"$(grep -c "^warn  audit_mirror no socket at $tmp/j.sock: the journal copies of the audit entries are dropped\$" "$tmp/out")"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).bind(sys.argv[1])' "$tmp/j.sock"
"$tg" --home "$h" doctor >"$tmp/out" 2>&1
check "audit_mirror, a socket: ok" 1 \
	"$(grep -c "^ok    audit_mirror audit entries copied to the journal at $tmp/j.sock\$" "$tmp/out")"
echo '{}' >"$h/config.json"

if [ "$fails" -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "all passed"
