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
. "$(dirname "$0")/../lib.sh"

PORT=18990
ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0
sync_peer ready

bw=(ib_write_bw -d sroce0 -x 1 -F -s 65536 -n 1000000 -p $PORT)
if [ "$SROCE_ROLE" = a ]; then
	"${bw[@]}" > /tmp/app.log 2>&1 &
	pid=$!
	wait_for 60 bash -c "ss -ltn | grep -q ':$PORT '"
	sync_peer listening
	sync_peer killed
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
else
	sync_peer listening
	"${bw[@]}" "$SROCE_PEER_IP" > /tmp/app.log 2>&1 &
	pid=$!
	check "Writes flowing" wait_for "$(app_timeout)" bash -c \
		"[ \$(hw_counter tx_packets) -gt 1000 ]"
	modprobe sch_tbf
	check "tbf at 1 kbit/s on eth0" tc qdisc add dev eth0 root tbf \
		rate 1kbit burst 2kb limit 10mb
	check "eth0's qdisc holds 32 or more of our packets" \
		wait_for "$(app_timeout)" bash -c '[ "$(qdisc_backlog)" -ge 32 ]'
	diag "held: $(qdisc_backlog) packets"
	kill -9 "$pid"
	# A safety net against a hang, which is many minutes here.
	check "the killed writer is gone (its QP destroyed)" \
		wait_for "$(app_timeout)" bash -c "! kill -0 $pid"
	wait "$pid" 2>/dev/null
	sync_peer killed
	check "packets still held after the QP is gone" \
		test "$(qdisc_backlog)" -ge 1
	check "rdma link delete with packets held" rdma link delete sroce0
	check "module in use while packets are held" \
		test "$(cat /sys/module/rdma_sroce/refcnt)" -gt 0
	check_fails "rmmod refused while packets are held" rmmod rdma_sroce
	check "tc qdisc del frees them" tc qdisc del dev eth0 root
	check "rmmod once they are freed" wait_for 60 rmmod rdma_sroce
	sync_peer done
	ktap_end
	exit
fi
sync_peer done
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
