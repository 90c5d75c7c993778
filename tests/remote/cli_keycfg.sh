#!/bin/sh
# tests/remote/cli_keycfg.sh TOOLGATE SOURCE_DIR: an existing signing key
# named in config.json ("signing_key"), made by ssh-keygen. Asserted: key
# show names it (source config); a create signs its commit with it, and
# plain `git verify-commit` with an allowed-signers file accepts it; key
# init refuses to make another (exit 2); a missing key, a group-writable
# one, a group-readable one, an RSA key, a passphrase-protected key and a
# .pub that is not the key's each stop a create with exit 3 and the exact
# message, nothing written; a relative path is a config error (exit 2).
set -eu
TG=$1
SRC=$2
H=$(mktemp -d /tmp/tg_keycfg_XXXXXX)
trap 'rm -rf "$H"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
t() { "$TG" --home "$H/h" "$@"; }
js() { python3 -c "import json,sys; d=json.load(sys.stdin); r=($1); print(r)"; }
cfg() { printf '{"signing_key": "%s"}\n' "$1" >"$H/h/config.json"; }
K=$H/k
mkdir -p "$K"
ssh-keygen -q -t ed25519 -N '' -C me@test -f "$K/id"
t init >/dev/null
cfg "$K/id"
[ "$(t key show --json | js "d['key'], d['source'], d['public_key'] == ' '.join(open('$K/id.pub').read().split()[:2])")" = \
  "('$K/id', 'config', True)" ] || fail "key show: $(t key show --json)"
t key show | grep -qx "key: $K/id (config.json signing_key)" || fail "key show text: $(t key show)"
t create "$SRC/examples/word_count" >/dev/null
printf 'me@test namespaces="git" %s\n' "$(cut -d' ' -f1,2 "$K/id.pub")" >"$H/allowed"
git -c gpg.format=ssh -c gpg.ssh.allowedSignersFile="$H/allowed" --git-dir="$H/h/store.git" \
	verify-commit refs/tools/word_count 2>"$H/v" || fail "verify-commit: $(cat "$H/v")"
grep -q '^Good "git" signature for me@test with ED25519 key' "$H/v" || fail "verify-commit said: $(cat "$H/v")"
# a key of another host's is not accepted in its place
ssh-keygen -q -t ed25519 -N '' -C other@test -f "$K/other"
printf 'me@test namespaces="git" %s\n' "$(cut -d' ' -f1,2 "$K/other.pub")" >"$H/allowed2"
git -c gpg.format=ssh -c gpg.ssh.allowedSignersFile="$H/allowed2" --git-dir="$H/h/store.git" \
	verify-commit refs/tools/word_count 2>/dev/null && fail "verify-commit accepted another key"
set +e
t key init >/dev/null 2>"$H/err"; rc=$?
set -e
[ $rc = 2 ] || fail "key init with a configured key: exit $rc"
grep -qx "toolgate: key: config.json signing_key names the key this host signs with ($K/id): no key made" \
	"$H/err" || fail "key init: $(cat "$H/err")"
[ ! -e "$H/h/keys/signing_key" ] || fail "key init made a key"

refs() { git --git-dir="$H/h/store.git" for-each-ref --format='%(refname) %(objectname)'; }
bad() { # bad CONFIGURED_PATH EXPECTED_MESSAGE
	cfg "$1"
	before=$(refs)
	set +e
	t create "$SRC/examples/sort_lines" >/dev/null 2>"$H/err"; rc=$?
	set -e
	[ $rc = 3 ] || fail "$1: exit $rc: $(cat "$H/err")"
	[ "$(cat "$H/err")" = "toolgate: create: signing key: $2" ] || fail "$1: $(cat "$H/err")"
	[ "$(refs)" = "$before" ] || fail "$1: refs changed"
	set +e
	t key show >/dev/null 2>"$H/err"; rc=$?
	set -e
	[ $rc = 3 ] && [ "$(cat "$H/err")" = "toolgate: key: signing key: $2" ] || fail "$1: key show: $rc $(cat "$H/err")"
}
bad "$K/nope" "$K/nope: No such file or directory"
cp "$K/id" "$K/gw"; cp "$K/id.pub" "$K/gw.pub"; chmod 620 "$K/gw"
bad "$K/gw" "$K/gw: writable by group or others (mode 0620): anyone could replace it"
cp "$K/id" "$K/gr"; cp "$K/id.pub" "$K/gr.pub"; chmod 640 "$K/gr"
bad "$K/gr" "$K/gr: readable by group or others (mode 0640): ssh-keygen refuses it (chmod 600)"
ssh-keygen -q -t rsa -b 2048 -N '' -f "$K/rsa"
bad "$K/rsa" "$K/rsa: a key of type ssh-rsa, not ssh-ed25519"
ssh-keygen -q -t ed25519 -N 'secret' -f "$K/enc"
bad "$K/enc" "$K/enc: protected by a passphrase (signing is unattended: use a key without one)"
cp "$K/id" "$K/mix"; cp "$K/other.pub" "$K/mix.pub"
bad "$K/mix" "$K/mix.pub: not the public half of $K/mix"
cp "$K/id" "$K/nopub"
bad "$K/nopub" "$K/nopub.pub: No such file or directory"
cp "$K/id.pub" "$K/pubonly"; chmod 600 "$K/pubonly"
bad "$K/pubonly" "$K/pubonly: not an OpenSSH private key (ssh-keygen -t ed25519 makes one)"
cfg "$K/id" # list opens the store (and its key) when it re-checks the store
[ "$(t list --json | js "[x['name'] for x in d['tools']]")" = "['word_count']" ] || fail "a refused create left a tool"
printf '{"signing_key": "k/id"}\n' >"$H/h/config.json"
set +e
t create "$SRC/examples/sort_lines" >/dev/null 2>"$H/err"; rc=$?
set -e
[ $rc = 2 ] || fail "relative path: exit $rc"
grep -qx "toolgate: create: $H/h/config.json: signing_key: must be an absolute path" "$H/err" ||
	fail "relative: $(cat "$H/err")"
# back to the configured good key: signing goes on
cfg "$K/id"
t create "$SRC/examples/sort_lines" >/dev/null
git -c gpg.format=ssh -c gpg.ssh.allowedSignersFile="$H/allowed" --git-dir="$H/h/store.git" \
	verify-commit refs/tools/sort_lines 2>/dev/null || fail "sort_lines not signed by the configured key"
echo "remote_key_config: ok"
