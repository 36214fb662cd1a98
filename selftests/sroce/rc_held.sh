#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": packets the stack holds for a long time must not hold
# up the QP that sent them. b streams RDMA Writes to a (ib_write_bw),
# then b's NIC is throttled to 1 kbit/s by tbf, which keeps b's packets
# queued for many minutes. Killing the writer must still destroy its QP
# at once (the process exits), and "rdma link delete" must return; the
# module stays in use (refcnt > 0, rmmod refused) while the stack holds
# packets whose destructor is its code, and unloads once the qdisc is
# deleted and frees them.
# Then the same with zero-copy packets (zcopy=on) held by netem at
# 1 kbit/s, which runs a packet's destructor as it takes it
# (skb_orphan()): the packets still hold the module through their
# ubuf_info, so rmmod is refused rather than left waiting for them.
. "$(dirname "$0")/../lib.sh"

PORT=18990
ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0
sync_peer ready

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
	sync_peer done
	check "rdma link delete" rdma link delete sroce0
	check "rmmod" rmmod rdma_sroce
	ktap_end
	exit
fi

# held ROUND QDISC...: b streams Writes, QDISC on eth0 holds its packets,
# the writer is killed, the device deleted; rmmod waits for the qdisc.
held() {
	local round=$1 pid mac

	shift
	sync_peer "listening-$round"
	"${bw[@]}" "$SROCE_PEER_IP" > /tmp/app.log 2>&1 &
	pid=$!
	check "$round: Writes flowing" wait_for "$(app_timeout)" bash -c \
		"[ \$(hw_counter tx_packets) -gt 1000 ]"
	# The peer's MAC for good: an ARP probe the qdisc held would
	# leave our packets waiting in the neighbour entry, not the qdisc.
	mac=$(ip neigh show "$SROCE_PEER_IP" dev eth0 |
		awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }')
	check "$round: peer's MAC ($mac) permanent" \
		ip neigh replace "$SROCE_PEER_IP" lladdr "$mac" dev eth0 nud permanent
	check "$round: $* on eth0" tc qdisc add dev eth0 root "$@"
	check "$round: eth0's qdisc holds 32 or more of our packets" \
		wait_for "$(app_timeout)" bash -c '[ "$(qdisc_backlog)" -ge 32 ]'
	diag "$round: held: $(qdisc_backlog) packets"
	kill -9 "$pid" 2>/dev/null	# (it may have given up by itself)
	# A safety net against a hang, which is many minutes here.
	check "$round: the killed writer is gone (its QP destroyed)" \
		wait_for "$(app_timeout)" bash -c "! kill -0 $pid"
	wait "$pid" 2>/dev/null
	sync_peer "killed-$round"
	check "$round: packets still held after the QP is gone" \
		test "$(qdisc_backlog)" -ge 1
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
held tbf tbf rate 1kbit burst 2kb limit 10mb
# Payloads as the MRs' pages even on eth0 (no scatter-gather), and a
# qdisc that orphans them as it takes them and keeps them for minutes.
modprobe sch_netem
check "modprobe rdma_sroce zcopy=on" modprobe rdma_sroce zcopy=on
sroce_link_up eth0 sroce0
held netem netem rate 1kbit limit 100000
sync_peer done
ktap_end
