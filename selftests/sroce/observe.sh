#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": what an operator sees of a device at work.
# - rdma resource show -dd: while a's ibv_rc_pingpong server waits for
#   its peer, its RC QP shows the driver's attributes (PSNs, packets in
#   flight, retries left, timer, rate) and its CQ its slots and fill.
# - The port counters sysfs has from the Performance Management class
#   (ports/1/counters/): once the pingpong is over, what each side sent
#   is what the other received, in packets and in 4-octet words, and
#   the packets are hw_counters' tx_packets and rx_packets.
# - The "sroce" trace system with Debian's trace-cmd. Both guests record
#   every sroce event while ibv_rc_pingpong runs (4 KiB, 50 round trips,
#   buffers checked), then b sends three RoCE packets to a QP a does not
#   have. Each side checks its record: one sroce_tx per packet its
#   tx_packets counted and one sroce_rx per packet its rx_packets did,
#   the pingpong QP's INIT -> RTR -> RTS, successful completions, the
#   protocol events (timeouts, NAKs, rewinds: sroce_qp_event with QPN
#   and PSN) of a short ib_write_bw through netem's 10% loss, and on a the
#   drop with its reason (sroce_count: rx_drop_no_qp).
# - Per-QP counters (rdma statistic qp, auto mode by QP type): a
#   streaming RC QP's counter counts its packets, and so does one it
#   is then bound to by hand (after an unbinding, and a second one
#   refused); once it is gone, the
#   port's hw_counters still equal the PMA's counts (the RDMA core adds
#   its counters' counts to the port's; the lossy run above lost some,
#   so the two sides are not compared again).
. "$(dirname "$0")/../lib.sh"

forge=(/usr/bin/python3 "$SROCE_SRC/selftests/sroce/roce_forge.py")

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0
check "trace-cmd start -e sroce" trace-cmd start -e sroce -b 8192
tx0=$(hw_counter tx_packets)
rx0=$(hw_counter rx_packets)
sync_peer tracing
# a's server has made its QP (INIT) and waits: look at it and its CQ
res_look() {
	rdma -dd res show qp link sroce0/1 > /tmp/res_qp.txt 2>&1
	rdma -dd res show cq dev sroce0 > /tmp/res_cq.txt 2>&1
}
[ "$SROCE_ROLE" = a ] && PAIR_APP_LISTENING=res_look
if pair_app a 18991 ibv_rc_pingpong -d sroce0 -g 1 -s 4096 -n 50 -c; then
	ktap_ok "ibv_rc_pingpong -s 4096 -n 50 -c"
else
	ktap_fail "ibv_rc_pingpong -s 4096 -n 50 -c"
	tail -n 5 /tmp/app.log | sed 's/^/#   /'
fi
unset PAIR_APP_LISTENING
if [ "$SROCE_ROLE" = a ]; then
	sed 's/^/# /' /tmp/res_qp.txt /tmp/res_cq.txt
	rc_qp=$(grep ' type RC ' /tmp/res_qp.txt)
	for attr in next_psn una_psn epsn inflight cwnd retries_left \
		rnr_retries_left timer rate_mbps cnp_received; do
		grep -q " drv_$attr " <<< "$rc_qp" || missing="${missing:-} $attr"
	done
	check "rdma res show qp -dd: the RC QP with the driver's attributes" \
		test -n "$rc_qp" -a -z "${missing:-}"
	check "rdma res show qp -dd: nothing in flight, no timer, in INIT" \
		bash -c "grep -q 'state INIT .* drv_inflight 0 .* drv_timer idle' <<< '$rc_qp'"
	check "rdma res show cq -dd: a CQ's slots and fill" \
		grep -q "comm ibv_rc_pingpong drv_slots [0-9]* drv_used 0 " /tmp/res_cq.txt
fi

# The pingpong is over: what one side sent, the other received. An ACK
# may still be on its way: each side rewrites its own counters until
# they match the peer's latest.
ports=/sys/class/infiniband/sroce0/ports/1/counters
port_file() {
	local f="$SROCE_SYNC/$SROCE_ROLE.${SROCE_SYNC_TAG:-}ports"

	echo "$(cat $ports/port_xmit_packets) $(cat $ports/port_xmit_data)" \
		"$(cat $ports/port_rcv_packets) $(cat $ports/port_rcv_data)" \
		> "$f.tmp" && mv "$f.tmp" "$f"
}
ports_match() {
	local peer=b tx txd rx rxd ptx ptxd prx prxd

	[ "$SROCE_ROLE" = b ] && peer=a
	port_file
	read -r tx txd rx rxd < "$SROCE_SYNC/$SROCE_ROLE.${SROCE_SYNC_TAG:-}ports"
	read -r ptx ptxd prx prxd \
		< "$SROCE_SYNC/$peer.${SROCE_SYNC_TAG:-}ports" || return 1
	echo "sent $tx packets $txd words, peer received $prx $prxd;" \
		"received $rx $rxd, peer sent $ptx $ptxd"
	[ "$tx" = "$prx" ] && [ "$txd" = "$prxd" ] &&
		[ "$rx" = "$ptx" ] && [ "$rxd" = "$ptxd" ]
}
port_file
sync_peer counters
check "counters/: each side received what the other sent (packets, data)" \
	wait_for 60 ports_match
check "counters/port_xmit_packets is hw_counters/tx_packets" \
	test "$(cat $ports/port_xmit_packets)" -eq "$(hw_counter tx_packets)"
check "counters/port_rcv_packets is hw_counters/rx_packets" \
	test "$(cat $ports/port_rcv_packets)" -eq "$(hw_counter rx_packets)"
# 50 messages of 4 KiB each way, in 4-octet words: at least 51200
check "counters/port_xmit_data counts 4-octet words of the payload" \
	test "$(cat $ports/port_xmit_data)" -ge 51200 \
	-a "$(cat $ports/port_xmit_data)" -lt $((51200 * 2))
check "counters/port_rcv_errors 0, port_xmit_discards 0" \
	test "$(cat $ports/port_rcv_errors)$(cat $ports/port_xmit_discards)" = 00
check "counters/unicast_xmit_packets: every one sent" \
	test "$(cat $ports/unicast_xmit_packets)" -eq "$(cat $ports/port_xmit_packets)"
sync_peer compared

# A lossy wire for a while (netem drops a tenth of what each side
# sends): the QPs' protocol events, each with its QP and PSN.
check "netem: 10% loss on eth0" tc qdisc add dev eth0 root netem loss 10%
# (perftest: both sides keep their QPs until its closing handshake;
# ibv_rc_pingpong's server may exit while its last ACK is lost, and the
# client's last Send then ends in a retry error, as on any RDMA NIC)
pair_app a 18995 ib_write_bw -d sroce0 -x 1 -F -s 4096 -n 200
app_report "ib_write_bw -n 200 over the lossy wire" $?
tc qdisc del dev eth0 root
sync_peer lossy

# no QP 700001 on a: its device drops them, and says why
[ "$SROCE_ROLE" = b ] &&
	check "three packets to a's QP 700001, which does not exist" \
		"${forge[@]}" --src "$SROCE_IP" --dst "$SROCE_PEER_IP" \
		--qpn 700001 --psn 0 --count 3
sync_peer forged
[ "$SROCE_ROLE" = a ] &&
	wait_for 30 bash -c '[ "$(hw_counter rx_drop_no_qp)" -ge 3 ]'
trace-cmd stop
tx=$(($(hw_counter tx_packets) - tx0))
rx=$(($(hw_counter rx_packets) - rx0))
trace-cmd show > /tmp/trace.txt
trace-cmd reset
n_tx=$(grep -c ' sroce_tx: sroce0 ' /tmp/trace.txt)
n_rx=$(grep -c ' sroce_rx: sroce0 ' /tmp/trace.txt)
diag "events: $(grep -c ': sroce_' /tmp/trace.txt), counted tx $tx rx $rx"
grep -m 3 -E ' sroce_(tx|rx|cqe):' /tmp/trace.txt | sed 's/^ */# /'
check "sroce_tx: $n_tx events, tx_packets counted $tx" \
	test "$n_tx" -eq "$tx" -a "$tx" -gt 100
check "sroce_rx: $n_rx events, rx_packets counted $rx" \
	test "$n_rx" -eq "$rx" -a "$rx" -gt 100
check "sroce_qp_state: a QP went INIT -> RTR -> RTS" \
	bash -c "grep -q 'sroce_qp_state: sroce0 .* INIT -> RTR' /tmp/trace.txt &&
		 grep -q 'sroce_qp_state: sroce0 .* RTR -> RTS' /tmp/trace.txt"
check "sroce_cqe: at least 50 successful completions" \
	test "$(grep -c ' sroce_cqe: sroce0 .* status=0 ' /tmp/trace.txt)" -ge 50
qp_ev=' sroce_qp_event: sroce0 qpn=0x[0-9a-f]{6} (retransmit_timeouts|seq_naks_(rcvd|sent)|out_of_sequence_requests|duplicate_requests|requester_rewinds) psn=0x[0-9a-f]{6}$'
grep -m 3 -E "$qp_ev" /tmp/trace.txt | sed 's/^ */# /'
check "sroce_qp_event: the lossy run's timeouts, NAKs, rewinds by QP and PSN" \
	grep -qE "$qp_ev" /tmp/trace.txt
check "sroce_count: tx_packets and rx_packets as they count" \
	bash -c "grep -q 'sroce_count: sroce0 tx_packets' /tmp/trace.txt &&
		 grep -q 'sroce_count: sroce0 rx_packets' /tmp/trace.txt"
if [ "$SROCE_ROLE" = a ]; then
	check "sroce_count: the three drops, reason rx_drop_no_qp" \
		test "$(grep -c 'sroce_count: sroce0 rx_drop_no_qp' /tmp/trace.txt)" -eq 3
fi
sync_peer traced

# Per-QP counters: RC QPs bound automatically to a counter of their own
# type. While rc_verify streams, the counter shows its QP's packets, and
# the port's counters still count everything: once the QP and its
# counter are gone, hw_counters' packets are the PMA's again.
check "rdma statistic qp set link sroce0/1 auto type on" \
	rdma statistic qp set link sroce0/1 auto type on
field() { # WORD: the value after WORD on the first line that has it
	awk -v w="$1" '{ for (i = 1; i < NF; i++) if ($i == w) { print $(i + 1); exit } }'
}
qp_tx() { # tx_packets of the (one) QP counter, from rdma statistic qp show
	rdma statistic qp show link sroce0/1 | field tx_packets
}
qp_streamed() { [ "$(qp_tx)" -ge 100 ] 2> /dev/null; }
stream_start
check "rdma statistic qp: the RC QP's counter counts its packets" \
	wait_for 120 qp_streamed
rdma statistic qp show link sroce0/1 | sed 's/^/# /'
# By hand (the port's counters in manual mode, auto off): the QP leaves
# its counter (which goes with it), cannot leave it twice, and is bound
# to a new counter, which counts on.
cntn=$(rdma statistic qp show link sroce0/1 | field cntn)
lqpn=$(rdma resource show qp link sroce0/1 | grep 'type RC' |
	grep rc_verify | field lqpn)
check "rdma statistic qp set link sroce0/1 auto off (manual mode)" \
	rdma statistic qp set link sroce0/1 auto off
check "rdma statistic qp unbind cntn $cntn lqpn $lqpn" \
	rdma statistic qp unbind link sroce0/1 cntn "$cntn" lqpn "$lqpn"
check_fails "unbinding it again is refused" \
	rdma statistic qp unbind link sroce0/1 cntn "$cntn" lqpn "$lqpn"
check "rdma statistic qp bind lqpn $lqpn (a counter by hand)" \
	rdma statistic qp bind link sroce0/1 lqpn "$lqpn"
cntn2=$(rdma statistic qp show link sroce0/1 | field cntn)
check "a new counter: cntn $cntn2, not $cntn" \
	test -n "$cntn2" -a "$cntn2" != "$cntn"
qp_grew() { [ "$(qp_tx)" -ge 50 ] 2> /dev/null; }
check "the counter by hand counts the QP's packets on" wait_for 120 qp_grew
rdma statistic qp show link sroce0/1 | sed 's/^/# /'
sync_peer qp-counted
stream_stop
pma_is_hw() {
	echo "PMA sent $(cat $ports/port_xmit_packets) received" \
		"$(cat $ports/port_rcv_packets); hw_counters tx_packets" \
		"$(hw_counter tx_packets) rx_packets $(hw_counter rx_packets)"
	[ "$(cat $ports/port_xmit_packets)" -eq "$(hw_counter tx_packets)" ] &&
		[ "$(cat $ports/port_rcv_packets)" -eq "$(hw_counter rx_packets)" ]
}
check "after the counter went: hw_counters' packets are the PMA's" \
	wait_for 60 pma_is_hw
sync_peer done
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
