#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": packets the stack holds for a long time must not hold
# up the QP that sent them. b streams RDMA Writes to a (ib_write_bw)
# through a tbf qdisc on its NIC, then the qdisc is changed to 1 kbit/s
# (a change keeps what it queues; replacing it would drop the window in
# it, and a QP that times out resends one packet, not its window), which
# keeps b's packets queued for many minutes. Killing the writer must
# still destroy its QP at once (the process exits), and "rdma link
# delete" must return; the module stays in use (refcnt > 0, rmmod
# refused) while the stack holds packets whose destructor is its code,
# and unloads once the qdisc is deleted and frees them.
# Then the same with zero-copy packets (zcopy=on) held by netem at
# 1 kbit/s, which runs a packet's destructor as it takes it
# (skb_orphan()): the packets still hold the module through their
# ubuf_info, so rmmod is refused rather than left waiting for them.
# Last, what a process can make such packets pin (zc_verify -t pin, as
# nobody): 64 times a fresh 1 MiB buffer, an MR, a QP, a window of
# 1 KiB Sends whose payloads spread 256 bytes over each of four pages,
# then everything destroyed at once while tbf holds the packets. With
# zero copy on, no more memory may stay pinned than with it off (such
# sparse payloads are copied), and with dense payloads the pinned pages
# are charged to nobody's RLIMIT_MEMLOCK: past it, payloads are copied.
. "$(dirname "$0")/../lib.sh"

PORT=18990
ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0
sync_peer ready

# Each side's neighbour entry for the other, for good: an ARP request or
# reply that b's qdisc held would leave a's ACKs, or b's packets, waiting
# in a neighbour entry instead of the qdisc, and would fill the qdisc
# with packets that are not ours.
pin_peer_mac() {
	local mac

	ping -c 1 -W 10 "$SROCE_PEER_IP" >/dev/null || return 1
	mac=$(ip neigh show "$SROCE_PEER_IP" dev eth0 |
		awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }')
	[ -n "$mac" ] || return 1
	ip neigh replace "$SROCE_PEER_IP" lladdr "$mac" dev eth0 nud permanent
}
check "the peer's MAC is permanent in the neighbour table" pin_peer_mac
sync_peer pinned

bw=(ib_write_bw -d sroce0 -x 1 -F -s 65536 -n 1000000 -p $PORT)
if [ "$SROCE_ROLE" = a ]; then
	for round in tbf netem; do
		"${bw[@]}" > /tmp/app.log 2>&1 &
		pid=$!
		wait_for 60 bash -c "ss -ltn | grep -q ':$PORT '"
		sync_peer "listening-$round"
		sync_peer "killed-$round"
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	sync_peer done 1800
	check "rdma link delete" rdma link delete sroce0
	check "rmmod" rmmod rdma_sroce
	ktap_end
	exit
fi

# held ROUND PASS HOLD: b streams Writes through the qdisc PASS on eth0,
# which is changed to HOLD; the writer is killed, the device deleted;
# rmmod waits for the qdisc.
held() {
	local round=$1 pass hold pid

	read -ra pass <<< "$2"
	read -ra hold <<< "$3"
	sync_peer "listening-$round"
	check "$round: ${pass[*]} on eth0" tc qdisc add dev eth0 root "${pass[@]}"
	"${bw[@]}" "$SROCE_PEER_IP" > /tmp/app.log 2>&1 &
	pid=$!
	check "$round: Writes flowing" wait_for "$(app_timeout)" bash -c \
		"[ \$(hw_counter tx_packets) -gt 1000 ]"
	check "$round: changed to ${hold[*]}" \
		tc qdisc change dev eth0 root "${hold[@]}"
	# Our Writes carry 1 KiB each; ARP and ACKs are far smaller.
	check "$round: eth0's qdisc holds 16 or more of our packets" \
		wait_for "$(app_timeout)" bash -c \
		'[ "$(qdisc_backlog_bytes)" -ge $((16 * 1024)) ]'
	diag "$round: held: $(qdisc_backlog) packets, $(qdisc_backlog_bytes) bytes"
	kill -9 "$pid" 2>/dev/null	# (it may have given up by itself)
	# A safety net against a hang, which is many minutes here.
	check "$round: the killed writer is gone (its QP destroyed)" \
		wait_for "$(app_timeout)" bash -c "! kill -0 $pid"
	wait "$pid" 2>/dev/null
	sync_peer "killed-$round"
	check "$round: packets still held after the QP is gone" \
		test "$(qdisc_backlog_bytes)" -ge 1024
	diag "$round: module refcnt $(cat /sys/module/rdma_sroce/refcnt), tx_zcopy_packets $(hw_counter tx_zcopy_packets)"
	diag "$round: $(tc -s qdisc show dev eth0 | tr -s ' \n' ' ')"
	check "$round: rdma link delete with packets held" \
		rdma link delete sroce0
	check "$round: module in use while packets are held" \
		test "$(cat /sys/module/rdma_sroce/refcnt)" -gt 0
	# (timeout: rmmod that waits for the packets would block for good)
	check_fails "$round: rmmod refused while packets are held" \
		timeout 60 rmmod rdma_sroce
	check "$round: tc qdisc del frees them" tc qdisc del dev eth0 root
	check "$round: rmmod once they are freed" wait_for 60 rmmod rdma_sroce
}

modprobe sch_tbf
held tbf "tbf rate 10gbit burst 1mb limit 10mb" \
	"tbf rate 1kbit burst 2kb limit 10mb"
# Payloads as the MRs' pages even on eth0 (no scatter-gather), and a
# qdisc that orphans them as it takes them and keeps them for minutes.
modprobe sch_netem
check "modprobe rdma_sroce zcopy=on" modprobe rdma_sroce zcopy=on
sroce_link_up eth0 sroce0
held netem "netem limit 100000" "netem rate 1kbit limit 100000"

mem_avail() { awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo; }

# pin MODE PER_PAGE: zc_verify's loop as nobody with zcopy=MODE while
# tbf holds every packet; sets "drop", MemAvailable lost (KiB) while
# they are held.
pin() {
	local before after

	sroce_zcopy "$1"
	tc qdisc add dev eth0 root tbf rate 1kbit burst 2kb limit 400mb
	sync
	echo 3 > /proc/sys/vm/drop_caches
	before=$(mem_avail)
	# shellcheck disable=SC2016
	check "pin, zcopy=$1, $2 bytes per page: the loop runs as nobody" \
		bash -c 'ulimit -l 8192 && exec setpriv --reuid=nobody \
			--regid=nogroup --clear-groups "$@"' pin \
		"$SROCE_SRC/selftests/sroce/zc_verify" -t pin -d sroce0 -g 1 \
		-c "$SROCE_PEER_IP" -n 64 -l 1048576 -k "$2"
	echo 3 > /proc/sys/vm/drop_caches
	after=$(mem_avail)
	drop=$((before - after))
	diag "pin, zcopy=$1, $2 B/page: held $(qdisc_backlog) packets, MemAvailable -$drop KiB, zcopy $(hw_counter tx_zcopy_packets), over memlock $(hw_counter tx_zcopy_over_memlock 2>/dev/null)"
	tc qdisc del dev eth0 root
}

check "modprobe rdma_sroce" modprobe rdma_sroce
sroce_link_up eth0 sroce0
chmod 666 /dev/infiniband/uverbs* /dev/infiniband/rdma_cm 2>/dev/null
base=$(mem_avail)
pin off 256
off=$drop
z0=$(hw_counter tx_zcopy_packets)
pin on 256
check "sparse payloads pin no more with zcopy=on (-$drop KiB) than off (-$off KiB)" \
	test "$drop" -le $((off + 16384))
check "sparse payloads are copied" \
	test "$(hw_counter tx_zcopy_packets)" -eq "$z0"
pin on 1024
z1=$(hw_counter tx_zcopy_packets)
check "dense payloads go zero-copy ($((z1 - z0)) packets)" \
	test $((z1 - z0)) -gt 0
check "and within nobody's 8 MiB of locked memory ($((z1 - z0)) pages)" \
	test $((z1 - z0)) -le $((2048 + 64))
check "past it, payloads are copied (tx_zcopy_over_memlock)" \
	test "$(hw_counter tx_zcopy_over_memlock)" -gt 0
echo 3 > /proc/sys/vm/drop_caches
check "the memory comes back once the qdisc frees the packets" \
	wait_for 60 bash -c "[ \$(awk '\$1 == \"MemAvailable:\" { print \$2 }' /proc/meminfo) -ge $((base - 16384)) ]"
check "rdma link delete" rdma link delete sroce0
check "rmmod" wait_for 60 rmmod rdma_sroce
sync_peer done
ktap_end
