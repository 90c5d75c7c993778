#!/bin/sh
# tests/deb/apparmor_parse.sh SRC_DIR BUILD_DIR: the AppArmor profile the
# package ships (packaging/apparmor/toolgate) goes through apparmor_parser
# with -Q (parse and compile, skip the kernel load) and -K (no cache), so no
# AppArmor kernel is needed. The parser is the system's when the package
# apparmor is installed, else the one in that package, fetched with
# apt-get download and unpacked into BUILD_DIR/aa-cache (never installed:
# installing it would change what the deb_package test sees in
# /etc/apparmor.d). Checked, with the parser's own files (-b, -I):
# - a parser that knows abi 4.0 (Ubuntu 24.04, Debian 13) compiles the
#   profile as shipped;
# - an older one (Debian 12 has 3.0.8) refuses it for exactly the reasons
#   debian/postinst does not install it there: "abi/4.0" is unknown, and
#   with abi 3.0 the `userns,` rule is the one syntax error; without those
#   two lines the rest (tunables, the attachment, flags=(unconfined), the
#   local include) compiles.
# What is not checked here: the profile loaded into a real Ubuntu 24.04
# kernel letting /usr/bin/toolgate create user namespaces.
# Exit 0 pass, 1 fail, 77 (ctest skip, said loudly) when no parser can be had.
set -u
src=$1
bld=$2
profile=$src/packaging/apparmor/toolgate
cache=$bld/aa-cache
tmp=$(mktemp -d /tmp/tg-aa.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
skip() {
	echo "*** APPARMOR PARSE TEST SKIPPED: $* ***" >&2
	exit 77
}

if command -v apparmor_parser >/dev/null 2>&1 && [ -d /etc/apparmor.d/tunables ]; then
	parser=$(command -v apparmor_parser)
	base=/etc/apparmor.d
	conf=/etc/apparmor/parser.conf
else
	if [ ! -x "$cache/x/sbin/apparmor_parser" ]; then
		rm -rf "$cache"
		mkdir -p "$cache"
		(cd "$cache" && apt-get download apparmor >/dev/null 2>&1) ||
			skip "no apparmor_parser and apt-get download apparmor failed (offline?)"
		dpkg-deb -x "$cache"/apparmor_*.deb "$cache/x" || skip "dpkg-deb -x apparmor failed"
		rm -f "$cache"/apparmor_*.deb
	fi
	parser=$cache/x/sbin/apparmor_parser
	base=$cache/x/etc/apparmor.d
	# its parser.conf names the policy features by their installed path
	conf=$tmp/parser.conf
	sed "s|^policy-features=/|policy-features=$cache/x/|" "$cache/x/etc/apparmor/parser.conf" >"$conf"
fi
version=$("$parser" --config-file "$conf" --version 2>/dev/null | sed -n '1s/^AppArmor parser version //p')
[ -n "$version" ] || { echo "FAIL: $parser --version says nothing"; exit 1; }
echo "apparmor_parser $version ($parser), base $base"

# parse FILE: rc and the messages (warnings about a missing AppArmor
# filesystem for the cache are expected without an AppArmor kernel)
parse() {
	"$parser" --config-file "$conf" -Q -K -b "$base" -I "$base" "$1" >"$tmp/msg" 2>&1
	rc=$?
}

if [ -e "$base/abi/4.0" ]; then
	parse "$profile"
	if [ "$rc" = 0 ]; then ok "abi 4.0 parser: the shipped profile compiles"
	else bad "abi 4.0 parser refused the shipped profile: $(cat "$tmp/msg")"; fi
else
	cp "$profile" "$tmp/as-shipped"
	parse "$tmp/as-shipped"
	if [ "$rc" = 1 ] && grep -q "at line 9: Could not open 'abi/4.0'" "$tmp/msg"; then
		ok "parser $version: refuses the shipped profile for abi 4.0 (line 9), so postinst skips it"
	else
		bad "parser $version on the shipped profile: rc $rc, expected 1 and abi/4.0 at line 9: $(cat "$tmp/msg")"
	fi
	grep -q '^abi <abi/4.0>,$' "$profile" || bad "the profile's abi line moved or changed"
	uline=$(grep -n '^  userns,$' "$profile" | cut -d: -f1)
	[ -n "$uline" ] || bad "the profile has no '  userns,' line"
	sed 's|^abi <abi/4.0>,$|abi <abi/3.0>,|' "$profile" >"$tmp/abi3"
	parse "$tmp/abi3"
	if [ "$rc" = 1 ] && grep -q "at line ${uline:-?}: syntax error" "$tmp/msg"; then
		ok "parser $version with abi 3.0: the one error is userns at line $uline"
	else
		bad "parser $version with abi 3.0: rc $rc, expected 1 at line $uline: $(cat "$tmp/msg")"
	fi
	grep -v -e '^abi <abi/4.0>,$' -e '^  userns,$' "$profile" >"$tmp/rest"
	parse "$tmp/rest"
	if [ "$rc" = 0 ]; then
		ok "parser $version: the rest of the profile compiles"
	else
		bad "parser $version on the profile without abi 4.0 and userns: rc $rc: $(cat "$tmp/msg")"
	fi
fi
[ "$fails" -eq 0 ] || exit 1
exit 0
