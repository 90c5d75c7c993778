#!/bin/busybox sh
# tests/vm/init.sh: PID 1 of the test VM, in two stages. In the initramfs
# (rootfs, which pivot_root cannot move: the sandbox pivots into its own
# root) it copies itself into a tmpfs and switch_roots there; then it mounts
# proc, sys, dev and cgroup2 only (no v1 hierarchy), enables memory and pids
# for the root's children, delegates a folder to user "tg" (uid 1000) and
# runs tests/vm/suite.sh as root, as that user with and without the
# delegated folder, and with user namespaces disabled, printing the seconds
# of each ("VMTEST note phase WHO seconds N"). Then it powers off.
# /usr is the host's, read-only over virtio-9p (tag "usr"): the modules in
# /tg/modules are loaded in the order vm_test.sh wrote to /tg/modules/order;
# /lib and /lib64 are links into it.
PATH=/bin
export PATH
if [ "$1" != stage2 ]; then
	/bin/busybox --install -s /bin
	mkdir -p /newroot
	mount -t tmpfs -o size=300m,mode=755 tmpfs /newroot
	for d in /*; do
		case $d in /newroot | /proc | /sys | /dev | /init) ;; *) cp -a "$d" /newroot/ ;; esac
	done
	exec switch_root /newroot /tg/init.sh stage2
fi
mkdir -p /proc /sys /dev /tmp
chmod 1777 /tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t cgroup2 cgroup2 /sys/fs/cgroup
for m in $(cat /tg/modules/order); do
	insmod /tg/modules/$m.ko || echo "VMTEST FAIL init insmod $m"
done
mount -t 9p -o ro,trans=virtio,version=9p2000.L,cache=loose,msize=512000 usr /usr ||
	echo "VMTEST FAIL init: mount 9p /usr"
echo "VMTEST kernel $(uname -r) mounts=$(grep -c cgroup /proc/mounts) cgroup2=$(grep -c cgroup2 /proc/mounts) cpus=$(nproc)"
echo "+memory +pids" >/sys/fs/cgroup/cgroup.subtree_control

t0=$(date +%s)
phase() { # WHO COMMAND...: one suite run, its seconds on the console
	p0=$(date +%s) pw=$1
	shift
	"$@"
	echo "VMTEST note phase $pw seconds $(($(date +%s) - p0))"
}
phase root /tg/suite.sh root

# The delegated subtree: /sys/fs/cgroup/tg-user owned by uid 1000, the
# user's shell in its leaf "sup", runs in "runs" (memory+pids enabled).
cg=/sys/fs/cgroup/tg-user
mkdir -p $cg/sup $cg/runs
echo "+memory +pids" >$cg/cgroup.subtree_control
echo "+memory +pids" >$cg/runs/cgroup.subtree_control
chown 1000:1000 $cg $cg/cgroup.procs $cg/cgroup.subtree_control $cg/cgroup.threads \
	$cg/sup $cg/sup/cgroup.procs $cg/sup/cgroup.threads \
	$cg/runs $cg/runs/cgroup.procs $cg/runs/cgroup.subtree_control $cg/runs/cgroup.threads
phase user sh -c "echo \$\$ >$cg/sup/cgroup.procs && exec su tg -s /bin/sh -c 'TOOLGATE_CGROUP=$cg/runs /tg/suite.sh user'"
phase nocg su tg -s /bin/sh -c "/tg/suite.sh nocg"

sysctl -w user.max_user_namespaces=0 >/dev/null
phase nouserns /tg/suite.sh nouserns
echo "VMTEST suite_seconds $(($(date +%s) - t0))"
echo "VMTEST END"
sync
poweroff -f
