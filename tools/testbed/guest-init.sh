#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# PID 1 of a testbed guest after switch_root (see init): finish the
# mounts, run the test script with a timeout, save its output, exit code
# and the kernel log to /tmp/sroce-out/HOST/, power off. PID 1 must never
# exit, so every path ends in a power-off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb

arg() { sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p" /proc/cmdline; }
HOST=$(arg sroce.host)
SCRIPT=$(arg sroce.script)
RES=/tmp/sroce-out/$HOST

mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# What udev would create: bash's process substitution needs /dev/fd.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
hostname "$HOST"

# A kernel not installed on the host (make check-debug) brings its module
# tree: lay it, writable, where modprobe looks.
MODBASE=$(. "$RES/env.sh" && echo "${SROCE_MODBASE:-}")
KMODS=/lib/modules/$(uname -r)
if [ -n "$MODBASE" ] && [ ! -d "$KMODS" ]; then
	mkdir -p "$KMODS" /tmp/.kmods/upper /tmp/.kmods/work
	mount -t overlay overlay -o "lowerdir=$MODBASE$KMODS,upperdir=/tmp/.kmods/upper,workdir=/tmp/.kmods/work" "$KMODS"
fi

echo "testbed: running $SCRIPT"
(
	. "$RES/env.sh" && cd "$SROCE_SRC" &&
	exec timeout -k 5 "$SROCE_GUEST_TIMEOUT" "$SCRIPT"
) > "$RES/output.txt" 2>&1 < /dev/null
echo $? > "$RES/rc"
if [ -e /sys/kernel/debug/kmemleak ]; then
	# Twice: an object freed late is not reported as a leak.
	echo scan > /sys/kernel/debug/kmemleak
	sleep 5
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak > "$RES/kmemleak.txt"
fi
dmesg > "$RES/dmesg.txt"
echo "testbed: done, rc $(cat "$RES/rc")"
sync
umount "$RES/.." 2>/dev/null
/bin/busybox poweroff -f
echo o > /proc/sysrq-trigger
sleep 60
