#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Module load/unload: repeated cycles, on-demand loading by
# "rdma link add ... type sroce", and unloading with devices present.
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
make_veth

check "modinfo shows the rdma link alias" \
	bash -c 'modinfo rdma_sroce | grep -q "alias:.*rdma-link-sroce"'

cycles() {
	local i
	for i in $(seq 25); do
		modprobe rdma_sroce || { echo "load $i failed"; return 1; }
		rmmod rdma_sroce || { echo "unload $i failed"; return 1; }
	done
	! lsmod | grep -q '^rdma_sroce'
}
check "25 load/unload cycles" cycles

# The ICRC's CRC32 (sroce_crc.c): PCLMUL where the CPU and the kernel
# have it, the table when asked, nothing else.
icrc_impl() { cat /sys/module/rdma_sroce/parameters/icrc_impl; }
want=crc32_le
grep -qw pclmulqdq /proc/cpuinfo && modinfo crc32-pclmul > /dev/null 2>&1 &&
	want=crc32-pclmul
modprobe rdma_sroce
check "ICRC by default: $want" test "$(icrc_impl)" = "$want"
rmmod rdma_sroce
modprobe rdma_sroce icrc=table
check "icrc=table: crc32_le" test "$(icrc_impl)" = crc32_le
rmmod rdma_sroce
check_fails "icrc=bogus refused" modprobe rdma_sroce icrc=bogus

# Zero-copy transmit (sroce_pkt.c): auto by default, off and on settable
# at load and at run time, nothing else.
zc=/sys/module/rdma_sroce/parameters/zcopy
modprobe rdma_sroce
check "zcopy by default: auto" test "$(cat $zc)" = auto
check "zcopy=off at run time" bash -c "echo off > $zc && [ \$(cat $zc) = off ]"
check_fails "zcopy=bogus refused at run time" bash -c "echo bogus > $zc"
check "zcopy unchanged by a refused value" test "$(cat $zc)" = off
rmmod rdma_sroce
modprobe rdma_sroce zcopy=on
check "zcopy=on at load" test "$(cat $zc)" = on
rmmod rdma_sroce
check_fails "zcopy=bogus refused at load" modprobe rdma_sroce zcopy=bogus

check "link add loads the module on demand" \
	rdma link add s_eth0 type sroce netdev eth0
check "module is loaded" bash -c 'lsmod | grep -q "^rdma_sroce"'
check "device is usable" ibv_devinfo -d s_eth0

# A user holding the device does not pin the module: unloading
# disassociates it, and it hears of it (teardown.sh has the rest).
stdbuf -oL ibv_asyncwatch -d s_eth0 > /tmp/events 2>&1 &
watcher=$!
wait_for 20 grep -q "async event FD" /tmp/events
check "rmmod while a process has the device open" rmmod rdma_sroce
check "the process got the device's fatal event" \
	wait_for 30 grep -qi "fatal\|catastrophic" /tmp/events
kill "$watcher"
wait "$watcher" 2>/dev/null
check "reload, link add again" bash -c \
	'modprobe rdma_sroce && rdma link add s_eth0 type sroce netdev eth0'

check "second device" rdma link add s_va type sroce netdev va
check "third device on lo" rdma link add s_lo type sroce netdev lo
check "rmmod with three devices present" rmmod rdma_sroce
check "every device gone" bash -c '! ls /sys/class/infiniband | grep -q "^s_"'
check "reload after that" modprobe rdma_sroce
check "link add after reload" rdma link add s_va type sroce netdev va
check "final rmmod" rmmod rdma_sroce
ktap_end
