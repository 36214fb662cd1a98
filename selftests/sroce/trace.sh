#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": the "sroce" trace system with Debian's trace-cmd. Both
# guests record every sroce event while ibv_rc_pingpong runs (4 KiB, 50
# round trips, buffers checked), then b sends three RoCE packets to a QP
# a does not have. Each side checks its record: one sroce_tx per packet
# its tx_packets counted and one sroce_rx per packet its rx_packets did,
# the pingpong QP's INIT -> RTR -> RTS, successful completions, and on a
# the drop with its reason (sroce_count: rx_drop_no_qp).
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
if pair_app a 18991 ibv_rc_pingpong -d sroce0 -g 1 -s 4096 -n 50 -c; then
	ktap_ok "ibv_rc_pingpong -s 4096 -n 50 -c"
else
	ktap_fail "ibv_rc_pingpong -s 4096 -n 50 -c"
	tail -n 5 /tmp/app.log | sed 's/^/#   /'
fi
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
check "sroce_count: tx_packets and rx_packets as they count" \
	bash -c "grep -q 'sroce_count: sroce0 tx_packets' /tmp/trace.txt &&
		 grep -q 'sroce_count: sroce0 rx_packets' /tmp/trace.txt"
if [ "$SROCE_ROLE" = a ]; then
	check "sroce_count: the three drops, reason rx_drop_no_qp" \
		test "$(grep -c 'sroce_count: sroce0 rx_drop_no_qp' /tmp/trace.txt)" -eq 3
fi
sync_peer done
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
