#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# vm.sh [options] SCRIPT
#
# Boot throw-away QEMU guests on Debian's kernel and run SCRIPT in each.
#
#   --pair        two guests (a, b), one vCPU each, wired back to back by
#                 a UDP socket netdev on 127.0.0.1; SCRIPT runs in both
#                 with SROCE_ROLE=a / b. Default: one guest (2 vCPUs).
#   --guests N    N guests (a, b, c, ...; 3 to 8), one vCPU each, on one
#                 bridge (SROCE_NET=tap, implied); a's peer is b, every
#                 other guest's peer is a. SROCE_GUESTS lists the roles,
#                 SROCE_GUEST_IPS their addresses, in the same order.
#   -o DIR        output directory (default: build/testbed/run-$$)
#   -t SECONDS    guest script timeout (default 300); the host kills a
#                 guest that outlives it by 120 s
#   -m MiB        guest memory (default 1024)
#
# Environment: SROCE_KVM=1 uses KVM instead of TCG. KVER picks the
# kernel (default: newest /boot/vmlinuz-*-amd64). SROCE_KERNEL (a
# bzImage) and SROCE_MODBASE (a directory holding lib/modules/KVER) boot
# another kernel, such as make check-debug's; SROCE_APPEND adds to its
# command line, SROCE_TCG_CPU replaces TCG's CPU model (max), and
# SROCE_DEBUG_KERNEL=1 tells the scripts they run on a debug kernel;
# SROCE_GUEST_ENV lists more variables to hand to the scripts.
# SROCE_ICOUNT (make bench's instruction counter, tools/bench/icount.c:
# "PLUGIN.so" or "PLUGIN.so,prof=on") runs each guest under that TCG
# plugin, writing DIR/HOST/icount.txt.
# SROCE_ROOTFS=9p|virtiofs picks how guests reach the host's root
# (default: 9p when the kernel has it).
# SROCE_NET=tap (with --pair) wires the guests through tap devices on a
# bridge in a network namespace made for the run, with the virtio net
# header: their NICs then offer checksum offload, scatter-gather and
# segmentation offload, as a cloud host's do; the UDP socket netdev (the
# default) offers none of them.
#
# Each guest sees the host's root read-only with a tmpfs overlay, so the
# host's rdma-core/perftest and this tree's freshly built module are
# there. Per guest DIR/HOST/ receives output.txt (the script's output),
# rc, dmesg.txt, console.log, and while it runs monitor.sock (QEMU's
# monitor, e.g. "info registers" through socat or python3). Exit
# status: 0 if every script exited 0 and no kernel log shows a splat
# (see check_kernel_log), else 1.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
PAIR=0
NGUESTS=2
OUT=
TIMEOUT=300
MEM=1024
while [ $# -gt 1 ]; do
	case "$1" in
	--pair) PAIR=1; shift ;;
	--guests) PAIR=1; NGUESTS=$2; shift 2 ;;
	-o) OUT=$2; shift 2 ;;
	-t) TIMEOUT=$2; shift 2 ;;
	-m) MEM=$2; shift 2 ;;
	*) echo "vm.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
SCRIPT=${1:?usage: vm.sh [--pair | --guests N] [-o DIR] [-t SECONDS] SCRIPT}
case "$NGUESTS" in
2) ;;
[3-8]) export SROCE_NET=tap ;;
*) echo "vm.sh: --guests 3 to 8" >&2; exit 2 ;;
esac
# The guests' roles and addresses: a, b, ... at 10.11.0.1, .2, ...
ROLES=$(echo a b c d e f g h | cut -d' ' -f1-"$NGUESTS")
IPS=
for i in $(seq "$NGUESTS"); do
	IPS="$IPS${IPS:+ }10.11.0.$i"
done
SCRIPT=$(cd "$(dirname "$SCRIPT")" && pwd)/$(basename "$SCRIPT")
OUT=${OUT:-$SRC/build/testbed/run-$$}

KVER=${KVER:-$(ls /boot/vmlinuz-*-amd64 2>/dev/null | sed 's|/boot/vmlinuz-||' |
	sort -V | tail -n 1)}
[ -n "$KVER" ] || { echo "vm.sh: no Debian kernel in /boot (make deps)" >&2; exit 2; }
KERNEL=${SROCE_KERNEL:-/boot/vmlinuz-$KVER}
MODBASE=${SROCE_MODBASE:-}

# How a guest reaches the host's root: 9p where the kernel has it, else
# virtiofs (Debian's cloud kernels have no 9p, but virtiofs), served by
# QEMU's virtiofsd. SROCE_ROOTFS=9p|virtiofs forces one.
VIRTIOFSD=/usr/lib/qemu/virtiofsd
rootfs_for() { # kver modbase
	local fs=${SROCE_ROOTFS:-}

	if [ -z "$fs" ]; then
		fs=virtiofs
		grep -qs '^CONFIG_9P_FS=[ym]' "$2/boot/config-$1" && fs=9p
	fi
	if [ "$fs" = virtiofs ] && [ ! -x "$VIRTIOFSD" ]; then
		echo "vm.sh: $1 has no 9p and $VIRTIOFSD is missing" >&2
		exit 2
	fi
	echo $fs
}
ROOTFS=$(rootfs_for "$KVER" "$MODBASE") || exit 2
INITRD=$SRC/build/testbed/initramfs-$KVER-$ROOTFS.gz

# SROCE_A_KVER, SROCE_A_KERNEL and SROCE_A_MODBASE boot guest a of a pair
# on another kernel than b (interop between kernels: a runs rdma_rxe).
A_KVER=${SROCE_A_KVER:-$KVER}
A_KERNEL=${SROCE_A_KERNEL:-$KERNEL}
A_MODBASE=${SROCE_A_MODBASE-$MODBASE}
A_ROOTFS=$(rootfs_for "$A_KVER" "$A_MODBASE") || exit 2
A_INITRD=$SRC/build/testbed/initramfs-$A_KVER-$A_ROOTFS.gz

# SROCE_ROOT_LAYER: a directory laid over the host's root in the guests
# (an overlay's upper directory: tools/packaging/test-deb.sh's, in which
# dpkg installed kernels and the package). Its kernels' modules are
# installed there, and the module under test is the one it holds: the
# tree's is left out.
LAYER=${SROCE_ROOT_LAYER:-}

# The module under test must be built for the guest's kernel: a mismatch
# would only show as a refused modprobe in every guest.
KO=$SRC/drivers/infiniband/sw/sroce/rdma_sroce.ko
[ -z "$LAYER" ] || KO=/nonexistent
if [ -f "$KO" ]; then
	magic=$(modinfo -F vermagic "$KO" | cut -d' ' -f1)
	if [ "$magic" != "$KVER" ]; then
		echo "vm.sh: $KO is built for $magic, the guests boot $KVER" \
			"(make KDIR=...; tools/check-kernel.sh builds a tree per kernel)" >&2
		exit 2
	fi
fi

mkdir -p "$SRC/build/testbed"
# Shared artefacts (initramfs, module index) are built by one run at a
# time; concurrent runs wait here.
exec 9> "$SRC/build/testbed/.lock"
flock 9
for k in "$KVER $INITRD $ROOTFS ${MODBASE:-$LAYER}" \
	 "$A_KVER $A_INITRD $A_ROOTFS ${A_MODBASE:-$LAYER}"; do
	set -- $k
	if [ ! -s "$2" ] || [ "$HERE/init" -nt "$2" ] ||
	   [ "$HERE/initramfs.sh" -nt "$2" ]; then
		"$HERE/initramfs.sh" "$1" "$2" "$3" "${4:-}" || exit 2
	fi
done

# depmod over 9p under TCG takes half a minute; run it here instead on a
# hard-linked copy of the kernel's module tree plus the fresh module, and
# let guests copy the resulting index (sroce_install_module).
MODROOT=$SRC/build/testbed/modroot
if [ -f "$KO" ] && { [ ! -f "$MODROOT/stamp" ] || [ "$KO" -nt "$MODROOT/stamp" ]; }; then
	rm -rf "$MODROOT"
	mkdir -p "$MODROOT/lib/modules"
	cp -al "$MODBASE/lib/modules/$KVER" "$MODROOT/lib/modules/" 2>/dev/null ||
		cp -as "$MODBASE/lib/modules/$KVER" "$MODROOT/lib/modules/"
	mkdir -p "$MODROOT/lib/modules/$KVER/updates"
	cp "$KO" "$MODROOT/lib/modules/$KVER/updates/"
	depmod -b "$MODROOT" "$KVER" || exit 2
	touch "$MODROOT/stamp"
fi
flock -u 9

rm -rf "$OUT"
mkdir -p "$OUT"

# The host's TSC rate in kHz, as its kernel determined it at boot (its
# log: the refined rate, else the one it detected for the TSC itself),
# or /proc/cpuinfo's "cpu MHz" where that can only be the TSC rate: the
# CPU states the rate (tsc_known_freq) and nothing measures the clock
# (no APERF/MPERF, no cpufreq), as in most virtual machines. Empty if
# unknown. The kernel prints MHz with three decimals: dropping the dot
# gives kHz exactly.
host_tsc_khz() {
	local mhz

	grep -qw constant_tsc /proc/cpuinfo || return
	mhz=$({ dmesg; journalctl -k -b -o cat; } 2>/dev/null |
		sed -n -e 's/.*tsc: Detected \([0-9]*\.[0-9]\{3\}\) MHz TSC.*/2 \1/p' \
		-e 's/.*tsc: Detected \([0-9]*\.[0-9]\{3\}\) MHz processor.*/1 \1/p' \
		-e 's/.*tsc: Refined TSC clocksource calibration: \([0-9]*\.[0-9]\{3\}\) MHz.*/3 \1/p' |
		sort -s -n -k1,1 | tail -n 1 | cut -d' ' -f2)
	if [ -z "$mhz" ] && grep -qw tsc_known_freq /proc/cpuinfo &&
	   ! grep -qw aperfmperf /proc/cpuinfo &&
	   [ ! -d /sys/devices/system/cpu/cpu0/cpufreq ]; then
		mhz=$(sed -n 's/^cpu MHz[[:space:]]*: \([0-9]*\.[0-9]\{3\}\)$/\1/p' \
			/proc/cpuinfo | head -n 1)
	fi
	[ -n "$mhz" ] && echo $((10#${mhz/./}))
}

TSC_APPEND=
if [ "${SROCE_KVM:-0}" = 1 ]; then
	ACCEL=(-accel kvm -cpu host)
else
	ACCEL=(-accel tcg,thread=multi -cpu "${SROCE_TCG_CPU:-max}")
	# Under TCG a guest's TSC is the host's. A guest measures its rate
	# against the PIT and the HPET in its first milliseconds, and a vCPU
	# starved by a busy host gets that wrong: a guest of make check took
	# 922 MHz for 2596 ("PIT calibration deviates from HPET"; its clock
	# ran 2.8 times fast until the clocksource watchdog noticed, so every
	# deadline in it was short). Tell them the rate instead; the kernel
	# refines it later (a refinement more than 1% off is ignored, so a
	# wrong rate here would stick: hence only the host kernel's own
	# figure).
	khz=$(host_tsc_khz)
	if [ -n "$khz" ]; then
		TSC_APPEND="tsc_early_khz=$khz"
	else
		echo "vm.sh: host TSC rate unknown; guests measure it themselves" >&2
	fi
fi

# virtiofsd's sockets, in a short path (a socket path has 108 bytes).
VFS=
if [ "$ROOTFS" = virtiofs ] || [ "$A_ROOTFS" = virtiofs ]; then
	VFS=$(mktemp -d /tmp/sroce-vfs.XXXXXX) || exit 2
	trap 'rm -rf "$VFS"' EXIT
fi

# SROCE_NET=tap: the namespace, its bridge and one tap per guest
NETNS=
if [ "${SROCE_NET:-socket}" = tap ]; then
	[ $PAIR = 1 ] || { echo "vm.sh: SROCE_NET=tap needs --pair" >&2; exit 2; }
	NETNS=sroce-vm-$$
	ip netns add "$NETNS" || exit 2
	trap 'ip netns del "$NETNS"; [ -z "$VFS" ] || rm -rf "$VFS"' EXIT
	# MTU 9000 on the host side too ("make bench" runs at 1500 and 9000;
	# a tap at 1500 drops the guests' larger frames, TCP's and RoCE's)
	ip netns exec "$NETNS" sh -e -c '
		ip link add br0 type bridge
		for r in '"$ROLES"'; do
			t=tap$r
			ip tuntap add dev $t mode tap vnet_hdr
			ip link set $t mtu 9000
			ip link set $t master br0
			ip link set $t up
		done
		ip link set br0 mtu 9000
		ip link set br0 up' || exit 2
elif [ "${SROCE_NET:-socket}" != socket ]; then
	echo "vm.sh: SROCE_NET=${SROCE_NET}: socket or tap" >&2
	exit 2
fi

# Two UDP ports on loopback per run, derived from our PID so that
# concurrent runs do not cross wires.
PORT_A=$((20000 + ($$ % 10000) * 2))
PORT_B=$((PORT_A + 1))

# Everything a test may point at: the link between the guests only.
start_guest() { # host role ip peer_ip cpus my_port peer_port
	local host=$1 role=$2 ip=$3 peer=$4 cpus=$5 lport=$6 pport=$7
	local dir=$OUT/$host mac mon
	local net=(-netdev "socket,id=n0,udp=127.0.0.1:$pport,localaddr=127.0.0.1:$lport")
	local netns=()
	local KERNEL=$KERNEL INITRD=$INITRD ROOTFS=$ROOTFS MODBASE=$MODBASE
	if [ "$role" = a ]; then
		KERNEL=$A_KERNEL INITRD=$A_INITRD ROOTFS=$A_ROOTFS
		MODBASE=$A_MODBASE
	fi
	mkdir -p "$dir"
	mac=$(printf '52:54:00:5e:00:%02x' "$((${ip##*.}))")
	# A monitor socket, to ask a guest that hangs where it is
	# ("info registers"); a socket path must fit in 108 bytes.
	mon=()
	[ ${#dir} -lt 90 ] &&
		mon=(-monitor "unix:$dir/monitor.sock,server=on,wait=off")
	cat > "$dir/env.sh" <<-ENV
	export SROCE_SRC='$SRC'
	export SROCE_ROLE=$role SROCE_HOST=$host
	export SROCE_IP=$ip SROCE_PEER_IP=$peer SROCE_MAC=$mac
	export SROCE_GUESTS='$ROLES' SROCE_GUEST_IPS='$IPS'
	export SROCE_OUT=/tmp/sroce-out/$host SROCE_SYNC=/tmp/sroce-out
	export SROCE_GUEST_TIMEOUT=$TIMEOUT
	export SROCE_MODBASE='$MODBASE'
	export SROCE_DEBUG_KERNEL='${SROCE_DEBUG_KERNEL:-}'
	ENV
	# SROCE_GUEST_ENV: names of more variables the scripts are given.
	for v in ${SROCE_GUEST_ENV:-}; do
		printf "export %s='%s'\n" "$v" "${!v:-}" >> "$dir/env.sh"
	done
	local shares=() mach=q35 pids=() tag path xattr i=0 plugin=()
	[ -z "${SROCE_ICOUNT:-}" ] ||
		plugin=(-plugin "$SROCE_ICOUNT,out=$dir/icount.txt")
	if [ "$ROOTFS" = 9p ]; then
		shares=(-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
			-virtfs "local,path=$OUT,mount_tag=out,security_model=none"
			-virtfs "local,path=$SRC,mount_tag=src,security_model=none,readonly=on,multidevs=remap")
		[ -z "$LAYER" ] ||
			shares+=(-virtfs "local,path=$LAYER,mount_tag=layer,security_model=none,readonly=on,multidevs=remap")
		[ -z "$MODBASE" ] ||
			shares+=(-virtfs "local,path=$MODBASE,mount_tag=modbase,security_model=none,readonly=on,multidevs=remap")
	else
		# vhost-user needs the guest's memory shared with virtiofsd.
		# virtiofsd has no read-only mode: the guest mounts hostroot
		# and src read-only, as with 9p. Its namespace sandbox cannot
		# pivot_root into "/" (EBUSY): a chroot it is.
		shares=(-object "memory-backend-memfd,id=mem,size=${MEM}M,share=on")
		mach=q35,memory-backend=mem
		for tag in hostroot out src ${LAYER:+layer} ${MODBASE:+modbase}; do
			case $tag in
			hostroot) path=/ ;;
			out) path=$OUT ;;
			src) path=$SRC ;;
			layer) path=$LAYER ;;
			modbase) path=$MODBASE ;;
			esac
			# An overlay layer's opaque directories are xattrs.
			xattr=no_xattr
			[ $tag = layer ] && xattr=xattr
			"$VIRTIOFSD" --socket-path="$VFS/$host-$tag.sock" \
				-o source="$path" -o cache=auto -o sandbox=chroot -o $xattr \
				> "$dir/virtiofsd-$tag.log" 2>&1 &
			pids+=($!)
			shares+=(-chardev "socket,id=fs$i,path=$VFS/$host-$tag.sock"
				-device "vhost-user-fs-pci,chardev=fs$i,tag=$tag")
			i=$((i + 1))
		done
		for tag in hostroot out src ${LAYER:+layer} ${MODBASE:+modbase}; do
			wait_file "$VFS/$host-$tag.sock" || {
				echo "vm.sh: virtiofsd for $tag did not start" >&2
				kill "${pids[@]}" 2>/dev/null
				echo 2 > "$dir/qemu.rc"
				return
			}
		done
	fi
	if [ -n "$NETNS" ]; then
		net=(-netdev "tap,id=n0,ifname=tap$role,script=no,downscript=no,vnet_hdr=on")
		netns=(ip netns exec "$NETNS")
	fi
	timeout -s KILL $((TIMEOUT + 120)) \
	"${netns[@]}" qemu-system-x86_64 "${ACCEL[@]}" -machine "$mach" -smp "$cpus" -m "$MEM" \
		-nodefaults -no-user-config -display none -no-reboot \
		-serial "file:$dir/console.log" "${mon[@]}" "${plugin[@]}" \
		-kernel "$KERNEL" -initrd "$INITRD" \
		-append "console=ttyS0 loglevel=6 panic=-1 oops=panic sroce.src=$SRC sroce.script=$SCRIPT sroce.host=$host sroce.fs=$ROOTFS ${LAYER:+sroce.layer=1 }${MODBASE:+sroce.modbase=$MODBASE }$TSC_APPEND ${SROCE_APPEND:-}" \
		"${shares[@]}" \
		"${net[@]}" -device "virtio-net-pci,netdev=n0,mac=$mac" \
		> "$dir/qemu.log" 2>&1
	echo $? > "$dir/qemu.rc"
	# virtiofsd ends when its guest goes; one whose guest never came
	# must not outlive the run.
	[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null
	[ ${#pids[@]} -eq 0 ] || wait "${pids[@]}" 2>/dev/null
}

wait_file() { # path: up to 10 s
	local n=0
	while [ ! -S "$1" ] && [ $n -lt 100 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ -S "$1" ]
}

# Kernel messages that fail a test, whatever the script said. Lockdep's
# reports start with WARNING: or BUG: (or are listed here); a lockdep
# kernel's boot banner ("RCU lockdep checking is enabled") is no report.
BAD='WARNING:|BUG:|Oops|kernel BUG|general protection|refcount_t:|list_del corruption|list_add corruption|possible circular locking|INFO: trying to register non-static key|DEBUG_LOCKS_WARN_ON|turning off the locking correctness validator|KASAN|UBSAN|Kernel panic|blocked for more than|rcu.*stall|unregister_netdevice: waiting|unreferenced object|ODEBUG'

# Reports of bugs in other drivers, known and understood, that do not
# fail a test: each is named in the output. Keep this list short and each
# entry exact.
#  - rdma_rxe in 6.1: rxe_mr_copy() steps to the next map of an MR's map
#    array (256 pages a map) after each map's last page, even when
#    nothing is left to copy, so a copy that ends at the end of an MR of
#    256 * n pages reads one pointer past the array (a kmalloc-8 object
#    for one map). A peer's Send that fills such a receive buffer does it
#    (copy_data() from rxe_responder()); the interop tests' perftest runs
#    do. KASAN then turns lockdep off in that guest: the rxe one, sroce
#    runs in the other.
KNOWN='BUG: KASAN: slab-out-of-bounds in rxe_mr_copy\+'

check_kernel_log() { # dir
	local f hits=0
	for f in "$1/console.log" "$1/dmesg.txt" "$1/kmemleak.txt"; do
		[ -f "$f" ] || continue
		if grep -aE "$BAD" "$f" | grep -aEq "$KNOWN"; then
			echo "# known report in $f, not ours (see KNOWN in vm.sh):"
			grep -aE "$KNOWN" "$f" | head -n 3 | sed 's/^/#   /'
		fi
		if grep -aE "$BAD" "$f" | grep -aEvq "$KNOWN"; then
			echo "# kernel log $f:"
			grep -aE -A3 "$BAD" "$f" | head -n 40 | sed 's/^/#   /'
			hits=1
		fi
	done
	return $hits
}

if [ $PAIR = 1 ] && [ "$NGUESTS" -gt 2 ]; then
	i=0
	for r in $ROLES; do
		i=$((i + 1))
		peer=10.11.0.1
		[ $r = a ] && peer=10.11.0.2
		start_guest $r $r 10.11.0.$i $peer 1 0 0 &
	done
	wait
	HOSTS=$ROLES
elif [ $PAIR = 1 ]; then
	start_guest a a 10.11.0.1 10.11.0.2 1 "$PORT_A" "$PORT_B" &
	start_guest b b 10.11.0.2 10.11.0.1 1 "$PORT_B" "$PORT_A" &
	wait
	HOSTS="a b"
else
	start_guest solo solo 10.11.0.1 10.11.0.2 2 "$PORT_A" "$PORT_B"
	HOSTS=solo
fi

status=0
for h in $HOSTS; do
	d=$OUT/$h
	if [ ! -f "$d/rc" ]; then
		echo "# guest $h did not finish (qemu exit $(cat "$d/qemu.rc" 2>/dev/null)); console tail:"
		tail -n 30 "$d/console.log" 2>/dev/null | sed 's/^/#   /'
		status=1
	elif [ "$(cat "$d/rc")" != 0 ]; then
		status=1
	fi
	check_kernel_log "$d" || status=1
done
exit $status
