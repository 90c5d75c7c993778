#!/bin/sh
# tests/deb/deb_test.sh SRC_DIR BUILD_DIR: the Debian package end to end, as
# root. Builds it with packaging/build-deb.sh (dpkg-buildpackage, then
# lintian failing on any error or warning), installs it with dpkg -i
# (apt-get install -f for missing dependencies), then, in a private mount
# namespace where the source and build trees are covered by empty tmpfs
# mounts, with PATH=/usr/bin:/bin, a temporary home and cwd, runs
# scripts/demo.sh (copied with examples/ to a temporary folder) against
# /usr/bin/toolgate. Checks `man -w toolgate`, the rendered page, the bash
# completion through bash-completion's own loader, the systemd example
# units (systemd-analyze, when present) and the AppArmor profile's postinst
# and postrm handling. The package is purged on exit whatever happens.
# Skips (77, loudly) only without dpkg-buildpackage/debhelper or root.
set -u

src=$(cd "$1" && pwd)
bld=$(cd "$2" && pwd)
t0=$(date +%s)

skip() {
	echo "######## SKIPPED: deb test: $1 ########" >&2
	exit 77
}
command -v dpkg-buildpackage >/dev/null 2>&1 || skip "dpkg-buildpackage is missing (apt-get install dpkg-dev debhelper)"
command -v dh >/dev/null 2>&1 || skip "debhelper is missing (apt-get install debhelper)"
[ "$(id -u)" = 0 ] || skip "installing a package needs root"

fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
check() { # name command...
	name=$1
	shift
	if "$@"; then ok "$name"; else bad "$name"; fi
}

tmp=$(mktemp -d /tmp/tg-deb.XXXXXX)
chmod 755 "$tmp"
fake_aa=0
was_installed=0
dpkg-query -W -f='${Status}' toolgate 2>/dev/null | grep -q "install ok installed" && was_installed=1
cleanup() {
	if dpkg-query -W -f='${Status}' toolgate 2>/dev/null | grep -q installed; then
		dpkg --purge toolgate >/dev/null 2>&1 || echo "deb test: could not purge toolgate" >&2
	fi
	if [ "$fake_aa" = 1 ]; then
		rm -f /etc/apparmor.d/abi/4.0
		rmdir /etc/apparmor.d/abi /etc/apparmor.d 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
[ "$was_installed" = 1 ] && echo "deb test: note: a toolgate package was installed; it is replaced and purged at the end"

# 1. build (lintian fails the build on any error or warning)
out="$bld/deb-test"
if ! sh "$src/packaging/build-deb.sh" "$out" >"$tmp/build.log" 2>&1; then
	cat "$tmp/build.log"
	bad "make deb (dpkg-buildpackage + lintian)"
	exit 1
fi
sed -n '/build-deb: lintian/,$p' "$tmp/build.log"
deb=$(tail -n1 "$tmp/build.log")
version=$(cd "$src" && dpkg-parsechangelog -SVersion)
check "package named toolgate_${version}_amd64.deb" test "$(basename "$deb")" = "toolgate_${version}_amd64.deb"
t1=$(date +%s)

# 2. install
if ! dpkg -i "$deb" >"$tmp/install.log" 2>&1; then
	DEBIAN_FRONTEND=noninteractive apt-get install -f -y -qq >>"$tmp/install.log" 2>&1
fi
if ! dpkg-query -W -f='${Status}' toolgate 2>/dev/null | grep -q "install ok installed"; then
	cat "$tmp/install.log"
	bad "dpkg -i $deb"
	exit 1
fi
ok "dpkg -i (and its dependencies)"
check "the binary is /usr/bin/toolgate, owned by the package" \
	sh -c 'dpkg -S /usr/bin/toolgate | grep -q "^toolgate: "'
check "the SDK header is installed" test -f /usr/share/toolgate/include/toolgate/tool.h
check "the license is in debian/copyright" grep -q "^License: Expat" /usr/share/doc/toolgate/copyright
check "the systemd user unit examples are installed" \
	test -f /usr/share/doc/toolgate/examples/toolgate-serve.socket -a \
	-f /usr/share/doc/toolgate/examples/toolgate-serve@.service -a \
	-f /usr/share/doc/toolgate/examples/toolgate-pull.service
check "the AppArmor profile's source is installed" test -f /usr/share/toolgate/apparmor/toolgate
if [ ! -e /etc/apparmor.d/abi/4.0 ]; then
	# Debian 12 (AppArmor 3.0, or none): no profile its parser would refuse.
	# Then a stand-in abi/4.0 file and a reinstall take postinst down the
	# Ubuntu 24.04 path (no AppArmor here: it is copied, not loaded).
	check "AppArmor without abi 4.0: no profile in /etc/apparmor.d" test ! -e /etc/apparmor.d/toolgate
	if [ ! -e /etc/apparmor.d/abi ]; then
		mkdir -p /etc/apparmor.d/abi && : >/etc/apparmor.d/abi/4.0 && fake_aa=1
		dpkg -i "$deb" >>"$tmp/install.log" 2>&1 || bad "dpkg -i again with abi 4.0"
	fi
fi
if [ -e /etc/apparmor.d/abi/4.0 ]; then
	check "AppArmor abi 4.0: the profile is /etc/apparmor.d/toolgate" \
		cmp -s /usr/share/toolgate/apparmor/toolgate /etc/apparmor.d/toolgate
	check "the profile lets /usr/bin/toolgate create user namespaces" \
		sh -c "grep -q '^profile toolgate /usr/bin/toolgate flags=(unconfined) {' /etc/apparmor.d/toolgate &&
			grep -q '^  userns,$' /etc/apparmor.d/toolgate && grep -q '^abi <abi/4.0>,$' /etc/apparmor.d/toolgate"
fi

# 3. the demo against the installed binary, the trees out of reach
mkdir -p "$tmp/demo/scripts" "$tmp/home" "$tmp/work"
cp "$src/scripts/demo.sh" "$tmp/demo/scripts/"
cp -r "$src/examples" "$tmp/demo/"
cat >"$tmp/inner.sh" <<'INNER'
# runs in the private mount namespace: src and bld are covered by tmpfs
src=$1 bld=$2 tmp=$3
for d in "$bld" "$src"; do
	mount -t tmpfs -o size=1m,mode=755 tg-hidden "$d" || exit 90
done
[ -e "$src/CMakeLists.txt" ] && exit 91
[ -e "$bld/cli/toolgate" ] && exit 92
cd "$tmp/work" || exit 93
env -i PATH=/usr/bin:/bin HOME="$tmp/home" XDG_DATA_HOME="$tmp/home/.local/share" \
	LANG=C.UTF-8 sh -c '
	echo "which toolgate: $(command -v toolgate)"
	[ "$(command -v toolgate)" = /usr/bin/toolgate ] || exit 94
	toolgate --version || exit 95
	sh "$1/demo/scripts/demo.sh" "$(command -v toolgate)"
' sh "$tmp"
INNER
hide=yes
unshare --mount --propagation private true 2>/dev/null || hide=no
if [ "$hide" = yes ]; then
	unshare --mount --propagation private sh "$tmp/inner.sh" "$src" "$bld" "$tmp" >"$tmp/demo.log" 2>&1
	rc=$?
else
	echo "deb test: WARNING: unshare --mount is refused here; the trees are not covered (PATH and cwd still exclude them)"
	sed 's/^	mount -t tmpfs.*$/	:/; s/^\[ -e .*exit 9[12]$/:/' "$tmp/inner.sh" >"$tmp/inner2.sh"
	sh "$tmp/inner2.sh" "$src" "$bld" "$tmp" >"$tmp/demo.log" 2>&1
	rc=$?
fi
if [ "$rc" = 0 ] && grep -q '^demo: all [0-9]* steps done$' "$tmp/demo.log"; then
	ok "the demo ran against /usr/bin/toolgate ($(grep -c '^== ' "$tmp/demo.log") steps, source tree hidden: $hide)"
else
	cat "$tmp/demo.log"
	bad "the demo against the installed binary (exit $rc)"
fi
check "the demo used the installed binary" grep -qx 'which toolgate: /usr/bin/toolgate' "$tmp/demo.log"
check "toolgate doctor finds the installed SDK header" \
	sh -c "env -i PATH=/usr/bin:/bin HOME='$tmp/home' toolgate doctor 2>&1 | grep -q '/usr/share/toolgate/include'"

# 4. the manual page
if grep -rqs 'path-exclude.*/usr/share/man' /etc/dpkg/dpkg.cfg.d/; then
	echo "deb test: note: dpkg excludes /usr/share/man here; checking the package's contents instead"
	check "the package holds toolgate.1.gz" \
		sh -c "dpkg-deb -c '$deb' | grep -q ' ./usr/share/man/man1/toolgate.1.gz$'"
else
	check "man -w toolgate" test "$(man -w toolgate 2>&1)" = /usr/share/man/man1/toolgate.1.gz
	# -l: render the installed page itself, never a cat page man-db cached from
	# an earlier install of the same version (same SOURCE_DATE_EPOCH mtime)
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -P cat -l "$(man -w toolgate)" >"$tmp/man.txt" 2>"$tmp/man.err"
	check "man toolgate renders without warnings" test ! -s "$tmp/man.err" -a -s "$tmp/man.txt"
	[ -s "$tmp/man.err" ] && cat "$tmp/man.err"
	for c in $(toolgate --help | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p'); do
		grep -q "^   $c\$" "$tmp/man.txt" || bad "man toolgate has no section for $c"
	done
	ok "man toolgate has a section per command of toolgate --help"
fi

# 5. bash completion, loaded on demand by bash-completion from its folder
check "the completion file" test -f /usr/share/bash-completion/completions/toolgate
if [ -f /usr/share/bash-completion/bash_completion ]; then
	complete_line() { # words... (the last one is completed)
		env -i PATH=/usr/bin:/bin HOME="$tmp/home" XDG_DATA_HOME="$tmp/home/.local/share" \
			bash -c '
			. /usr/share/bash-completion/bash_completion
			_completion_loader toolgate
			COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
			COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
			$(complete -p toolgate | sed -n "s/.*-F \([^ ]*\) .*/\1/p") toolgate "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
			printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "
		' bash "$@"
	}
	want_cmds=$(toolgate --help | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p' | sort | tr '\n' ' ')
	got=$(complete_line toolgate "")
	missing=""
	for c in $want_cmds; do
		case " $got " in *" $c "*) ;; *) missing="$missing $c" ;; esac
	done
	check "completion offers every command (missing:${missing:- none})" test -z "$missing"
	check "completion: serve flags" test "$(complete_line toolgate serve --m)" = "--max-body --max-calls --max-connections --max-creates "
	check "completion: check --format values" test "$(complete_line toolgate check x.c --format "")" = "json sarif text "
	got=$(complete_line toolgate sandbox exec --)
	check "completion: sandbox exec flags" \
		test "$got" = "-- --cpu-percent --cpu-s --help --home --json --max-procs --memory-mb --output-kb --timeout-ms "
	check "completion: active tool names (after the demo: word_count, word_pair)" \
		test "$(complete_line toolgate call word)" = "word_count word_pair "
else
	bad "bash-completion is not installed (scripts/install-deps.sh installs it)"
fi

# 6. the systemd user units (when systemd-analyze is here)
if command -v systemd-analyze >/dev/null 2>&1; then
	mkdir -p "$tmp/run" "$tmp/units" && chmod 700 "$tmp/run"
	cp /usr/share/doc/toolgate/examples/toolgate-serve* /usr/share/doc/toolgate/examples/toolgate-pull.service \
		"$tmp/units/"
	(cd "$tmp/units" && XDG_RUNTIME_DIR="$tmp/run" systemd-analyze verify --user --man=no \
		./toolgate-serve.socket ./toolgate-serve@.service ./toolgate-pull.service) >"$tmp/sa.log" 2>&1
	check "systemd-analyze verify --user the example units" test ! -s "$tmp/sa.log"
	[ -s "$tmp/sa.log" ] && cat "$tmp/sa.log"
else
	echo "deb test: note: no systemd-analyze here; the example units are not verified"
fi

# 7. purge: nothing of the package is left
dpkg --purge toolgate >"$tmp/purge.log" 2>&1 || { cat "$tmp/purge.log"; bad "dpkg --purge toolgate"; }
check "purged: /usr/bin/toolgate is gone" test ! -e /usr/bin/toolgate
check "purged: /usr/share/toolgate is gone" test ! -e /usr/share/toolgate
check "purged: no AppArmor profile left" test ! -e /etc/apparmor.d/toolgate

t2=$(date +%s)
echo "deb test: build+lintian $((t1 - t0)) s, install+demo+checks $((t2 - t1)) s, total $((t2 - t0)) s"
if [ "$fails" -gt 0 ]; then
	echo "deb test: $fails check(s) failed"
	exit 1
fi
echo "deb test: all checks passed"
exit 0
