#!/bin/sh
# tests/vm/vm_test.sh BUILD_DIR: boots Debian's own kernel (the package
# linux-image-amd64 depends on, downloaded with apt-get and unpacked into
# BUILD_DIR/vm-cache, never installed: the kernel and the 9p/virtio modules
# are kept) under QEMU from an initramfs holding busybox (static, from
# busybox-static), the built toolgate, attack programs, the example tools
# and the SDK header; the host's /usr is shared read-only over virtio-9p
# (the VM's /lib and /lib64 are links into it, as on a usrmerged Debian):
# toolgate's shared libraries, the clang driver, libclang, libgit2 and bwrap
# come from there. init.sh runs suite.sh there on cgroup v2 only. KVM when
# /dev/kvm works (probed with a short boot under a timeout: nested KVM may
# hang), else TCG. Exit 0 when every check passed, 1 when one failed or the
# VM gave no result, 77 (ctest skip) only when QEMU or the kernel cannot be
# had here, said loudly.
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
[ "$(readlink /lib)" = usr/lib ] && [ "$(readlink /lib64)" = usr/lib64 ] ||
	skip "this host is not usrmerged (/lib, /lib64 not links into /usr): the VM shares /usr only"
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
[ -d "$src/sdk/toolgate" ] || { echo "FAIL: no source tree (sdk) at [$src]"; exit 1; }

# The kernel and the modules for virtio-9p: cached once per build folder.
# Modules are loaded with busybox insmod in dependency order (the depends=
# field of each module's .modinfo section, what modinfo -F depends prints).
mods="9p 9pnet_virtio virtio_pci"
mkdir -p "$cache"
kernel=$(ls "$cache"/vmlinuz-* 2>/dev/null | head -n 1)
if [ -z "$kernel" ] || [ ! -s "$cache/modules/order" ]; then
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n 1)
	[ -n "$pkg" ] || skip "apt-cache does not know linux-image-amd64"
	rm -rf "$cache"/vmlinuz-* "$cache/modules" "$cache/x"
	(cd "$cache" && apt-get download "$pkg" >/dev/null 2>&1) ||
		skip "apt-get download $pkg failed (offline?)"
	dpkg-deb -x "$cache"/"$pkg"_*.deb "$cache/x" || skip "dpkg-deb -x failed"
	mkdir -p "$cache/modules"
	kdir=$(ls -d "$cache"/x/lib/modules/*/kernel | head -n 1)
	# depth first: a module after everything it depends on
	add_mod() {
		grep -qx "$1" "$cache/modules/order" 2>/dev/null && return 0
		[ -n "$(find "$kdir" -name "$1.ko")" ] ||
			{ echo "FAIL: module $1 not in $pkg (compressed?)"; return 1; }
		for d in $(tr '\0' '\n' <"$(find "$kdir" -name "$1.ko" | head -n 1)" |
			sed -n 's/^depends=//p' | tr ',' ' '); do
			add_mod "$d" || return 1
		done
		# (no variable holds the path: the recursion above would clobber it)
		cp "$(find "$kdir" -name "$1.ko" | head -n 1)" "$cache/modules/$1.ko" &&
			echo "$1" >>"$cache/modules/order"
	}
	for m in $mods; do add_mod "$m" || exit 1; done
	cp "$cache"/x/boot/vmlinuz-* "$cache"/ && rm -rf "$cache/x" "$cache"/*.deb
	kernel=$(ls "$cache"/vmlinuz-* | head -n 1)
fi

# The initramfs: /usr is an empty mount point for the 9p share.
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/tg/attacks" "$stage/tg/modules" "$stage/tg/tools" "$stage/etc" \
	"$stage/usr" "$stage$src"
ln -s usr/lib "$stage/lib"
ln -s usr/lib64 "$stage/lib64"
cp "$bb" "$stage/bin/busybox"
cp "$here/init.sh" "$stage/tg/init.sh"
cp "$here/suite.sh" "$stage/tg/suite.sh"
ln -s tg/init.sh "$stage/init"
cp "$tg" "$stage/tg/toolgate"
cp "$build/tests/vm/vm_median" "$build/bench/sandbox/bench_sandbox_hello" "$stage/tg/" ||
	{ echo "FAIL: build vm_median and bench_sandbox_hello first"; exit 1; }
cp "$cache"/modules/*.ko "$cache/modules/order" "$stage/tg/modules/"
for a in memory_bomb thread_bomb fork_bomb busy_loop stdout_flood ptrace denied io_uring \
	net_tcp read_files identity echo_stdin cpu_threads; do
	strip -o "$stage/tg/attacks/attack_$a" "$at/attack_$a" 2>/dev/null ||
		cp "$at/attack_$a" "$stage/tg/attacks/"
done
# the SDK header where an installed toolgate looks for it: beside the
# binary (/tg/toolgate -> /share/toolgate/include), as `make install` lays out
mkdir -p "$stage/share/toolgate/include"
cp -a "$src/sdk/toolgate" "$stage/share/toolgate/include/"
cp -a "$src/examples/word_count" "$src/examples/word_count_v2" "$here/tools/mem_hog" \
	"$stage/tg/tools/"
printf 'root:x:0:0::/:/bin/sh\ntg:x:1000:1000::/tmp:/bin/sh\n' >"$stage/etc/passwd"
printf 'root:x:0:\ntg:x:1000:\n' >"$stage/etc/group"
(cd "$stage" && find . | cpio -o -H newc --quiet) >"$build/vm-initramfs.cpio" ||
	{ echo "FAIL: cpio"; exit 1; }

# KVM or TCG: a boot with no init panics at once (panic=-1, -no-reboot):
# seconds under KVM; nested KVM may hang instead, so a timeout (SIGKILL 5 s
# after the SIGTERM), and the answer is kept in the cache (TG_VM_ACCEL=tcg|kvm
# overrides it). The probe boots the run's own -cpu: on this machine (nested
# KVM, 2026-12-03) "-cpu max" under KVM aborts at once ("failed to set MSR
# 0x10a") and "-cpu qemu64" hangs with no console output (killed after 60 s).
cpu=max
accel=${TG_VM_ACCEL:-$(cat "$cache/accel" 2>/dev/null)}
if [ -z "$accel" ]; then
	accel=tcg
	if [ -r /dev/kvm ] && [ -w /dev/kvm ] &&
		timeout -k 5 10 "$qemu" -accel kvm -cpu "$cpu" -m 256 -nodefaults -display none \
			-serial stdio -no-reboot -kernel "$kernel" \
			-append "console=ttyS0 panic=-1 rdinit=/none" \
			2>/dev/null </dev/null | grep -q 'Kernel panic'; then
		accel=kvm
	fi
	echo "$accel" >"$cache/accel"
fi
echo "vm: kernel $(basename "$kernel"), accel $accel"
t0=$(date +%s)
timeout 600 "$qemu" -accel "$accel" -cpu "$cpu" -smp 2 -m 1024 -nodefaults -display none \
	-serial stdio -no-reboot -kernel "$kernel" -initrd "$build/vm-initramfs.cpio" \
	-fsdev local,id=usr,path=/usr,security_model=none,readonly=on \
	-device virtio-9p-pci,fsdev=usr,mount_tag=usr \
	-append "console=ttyS0 quiet panic=-1 rdinit=/init tg.accel=$accel" </dev/null >"$log" 2>&1
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
