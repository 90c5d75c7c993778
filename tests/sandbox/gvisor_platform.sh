#!/bin/sh
# tests/sandbox/gvisor_platform.sh TOOLGATE: the runsc platform of the
# gVisor backend (sandbox/gvisor_platform.c) as `toolgate doctor` reports
# it: probed once (KVM where /dev/kvm opens, the probe bounded to 5 s and
# killed with what it started when nested KVM hangs), then taken from the
# cache file (TG_GVISOR_PLATFORM_CACHE here), a cache others could write
# ignored, TG_GVISOR_PLATFORM forcing one, a bad value refused, and what a
# run costs. Exits 77 (skipped) when runsc cannot run here.
set -u
tg=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/t"
export TMPDIR="$tmp/t"
export TG_GVISOR_PLATFORM_CACHE="$tmp/cache"

. "$(dirname "$0")/check.sh"
gv() { "$tg" --home "$tmp/home" doctor 2>&1 | grep '^[a-z]* *gvisor'; }
now() { date +%s%N | cut -c1-13; }

"$tg" --home "$tmp/home" init >/dev/null 2>&1 || { echo "FAIL init"; exit 1; }
if ! TG_GVISOR_PLATFORM=ptrace gv | grep -q '^ok    gvisor'; then
	echo "SKIP: runsc cannot run here: $(TG_GVISOR_PLATFORM=ptrace gv)"
	exit 77
fi

t0=$(now)
first=$(gv)
t1=$(now)
echo "first:  $first ($((t1 - t0)) ms)"
if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
	plat=$(echo "$first" | sed -n 's/.* platform \([a-z]*\) (probed: .*/\1/p')
	check "with /dev/kvm: probed, kvm or ptrace" 1 "$(echo "$plat" | grep -cx 'kvm\|ptrace')"
	if [ "$plat" = ptrace ]; then
		check "the KVM probe is bounded and killed" 1 \
			"$(echo "$first" | grep -c 'probed: gvisor: runsc --platform=kvm do /bin/true \(did not end in 5000 ms (killed)\|failed\)')"
		check "doctor took the bounded probe, not more" 1 "$([ $((t1 - t0)) -lt 25000 ] && echo 1)"
	fi
	check "nothing of the probe is left running" 0 "$(pgrep -f -c "$tmp/t/tg-gvisor" || true)"
	check "the cache holds the answer and this runsc" 1 \
		"$(grep -c "^$plat [0-9]* [0-9]* [0-9]*\$" "$tmp/cache")"
	t0=$(now)
	second=$(gv)
	t1=$(now)
	echo "second: $second ($((t1 - t0)) ms)"
	check "the second doctor takes the cache" 1 \
		"$(echo "$second" | grep -c "platform $plat (cached in $tmp/cache); a run costs about [0-9]* ms")"
	chmod 666 "$tmp/cache"
	check "a cache others can write is not trusted" 1 "$(gv | grep -c "platform $plat (probed: ")"
	chmod 644 "$tmp/cache"
	echo "kvm 1 2 3" >"$tmp/cache"
	check "a cache of another runsc is not trusted" 1 "$(gv | grep -c "platform $plat (probed: ")"
else
	check "no usable /dev/kvm: ptrace" 1 \
		"$(echo "$first" | grep -c 'platform ptrace (no KVM: /dev/kvm: ')"
fi
check "TG_GVISOR_PLATFORM forces one" 1 \
	"$(TG_GVISOR_PLATFORM=ptrace gv | grep -c '^ok    gvisor .* platform ptrace (set by TG_GVISOR_PLATFORM); a run costs about [0-9]* ms')"
check "a bad TG_GVISOR_PLATFORM is refused" 1 \
	"$(TG_GVISOR_PLATFORM=hvf gv | grep -c 'gvisor: TG_GVISOR_PLATFORM=hvf: must be kvm or ptrace')"
[ "$fails" -eq 0 ] || exit 1
