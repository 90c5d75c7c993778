#!/bin/sh
# tests/vm/vm_test.sh BUILD_DIR: boots Debian's own kernel (the package
# linux-image-amd64 depends on, downloaded with apt-get and unpacked into
# BUILD_DIR/vm-cache, never installed) under QEMU from an initramfs holding
# busybox (static, from busybox-static), the built toolgate with the shared
# libraries it still loads, and attack programs; init.sh runs suite.sh
# there on cgroup v2 only. KVM when /dev/kvm works (probed with a short
# boot under a timeout: nested KVM may hang), else TCG. Exit 0 when every
# check passed, 1 when one failed or the VM gave no result, 77 (ctest skip)
# only when QEMU or the kernel cannot be had here, said loudly.
set -u
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
cache=$build/vm-cache
stage=$build/vm-root
tg=$build/cli/toolgate
at=$build/tests/sandbox/attacks
log=$build/vm-console.log

skip() {
	echo "***********************************************************" >&2
	echo "*** VM TESTS SKIPPED: $*" >&2
	echo "***********************************************************" >&2
	exit 77
}

qemu=$(command -v qemu-system-x86_64) ||
	skip "qemu-system-x86_64 is missing (scripts/install-deps.sh installs qemu-system-x86)"
bb=""
for b in /bin/busybox /usr/bin/busybox; do
	if [ -x "$b" ] && ldd "$b" 2>&1 | grep -q 'not a dynamic'; then bb=$b; break; fi
done
[ -n "$bb" ] || skip "no static busybox (install busybox-static)"
command -v cpio >/dev/null || skip "cpio is missing"

# The kernel: cached once per build folder.
mkdir -p "$cache"
kernel=$(ls "$cache"/vmlinuz-* 2>/dev/null | head -n 1)
if [ -z "$kernel" ]; then
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n 1)
	[ -n "$pkg" ] || skip "apt-cache does not know linux-image-amd64"
	(cd "$cache" && apt-get download "$pkg" >/dev/null 2>&1) ||
		skip "apt-get download $pkg failed (offline?)"
	rm -rf "$cache/x"
	dpkg-deb -x "$cache"/"$pkg"_*.deb "$cache/x" || skip "dpkg-deb -x failed"
	cp "$cache"/x/boot/vmlinuz-* "$cache"/ && rm -rf "$cache/x" "$cache"/*.deb
	kernel=$(ls "$cache"/vmlinuz-* | head -n 1)
fi

# The initramfs.
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/tg/attacks" "$stage/etc"
cp "$bb" "$stage/bin/busybox"
cp "$here/init.sh" "$stage/tg/init.sh"
cp "$here/suite.sh" "$stage/tg/suite.sh"
ln -s tg/init.sh "$stage/init"
cp "$tg" "$stage/tg/toolgate"
for lib in $(ldd "$tg" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'); do
	mkdir -p "$stage$(dirname "$lib")"
	cp -L "$lib" "$stage$lib"
done
for a in memory_bomb thread_bomb fork_bomb busy_loop stdout_flood ptrace denied io_uring \
	net_tcp read_files identity echo_stdin; do
	strip -o "$stage/tg/attacks/attack_$a" "$at/attack_$a" 2>/dev/null ||
		cp "$at/attack_$a" "$stage/tg/attacks/"
done
printf 'root:x:0:0::/:/bin/sh\ntg:x:1000:1000::/tmp:/bin/sh\n' >"$stage/etc/passwd"
printf 'root:x:0:\ntg:x:1000:\n' >"$stage/etc/group"
(cd "$stage" && find . | cpio -o -H newc --quiet) >"$build/vm-initramfs.cpio" ||
	{ echo "FAIL: cpio"; exit 1; }

# KVM or TCG: a boot with no init panics at once (panic=-1, -no-reboot):
# seconds under KVM; nested KVM may hang instead, so a timeout, and the
# answer is kept in the cache (TG_VM_ACCEL=tcg|kvm overrides it).
accel=${TG_VM_ACCEL:-$(cat "$cache/accel" 2>/dev/null)}
if [ -z "$accel" ]; then
	accel=tcg
	if [ -r /dev/kvm ] && [ -w /dev/kvm ] &&
		timeout 10 "$qemu" -accel kvm -m 256 -nodefaults -display none -serial stdio \
			-no-reboot -kernel "$kernel" -append "console=ttyS0 panic=-1 rdinit=/none" \
			2>/dev/null </dev/null | grep -q 'Kernel panic'; then
		accel=kvm
	fi
	echo "$accel" >"$cache/accel"
fi
cpu=max
echo "vm: kernel $(basename "$kernel"), accel $accel"
t0=$(date +%s)
timeout 600 "$qemu" -accel "$accel" -cpu "$cpu" -smp 2 -m 768 -nodefaults -display none \
	-serial stdio -no-reboot -kernel "$kernel" -initrd "$build/vm-initramfs.cpio" \
	-append "console=ttyS0 quiet panic=-1 rdinit=/init" </dev/null >"$log" 2>&1
t1=$(date +%s)
tr -d '\r' <"$log" | grep '^VMTEST' | grep -v '^VMTEST ok'
ok=$(tr -d '\r' <"$log" | grep -c '^VMTEST ok')
bad=$(tr -d '\r' <"$log" | grep -c '^VMTEST FAIL')
echo "vm: $ok passed, $bad failed, wall $((t1 - t0)) s ($accel)"
if ! tr -d '\r' <"$log" | grep -q '^VMTEST END'; then
	echo "FAIL: the VM gave no complete result; the console ($log) ends with:"
	tail -n 30 "$log"
	exit 1
fi
[ "$bad" -eq 0 ] && [ "$ok" -gt 0 ] || exit 1
exit 0
