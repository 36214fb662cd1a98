#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": a QP's packets leave in the order they were built, and
# many QPs into one receiver neither collapse nor fail. b writes to a with
# perftest, the many-contexts case: posting tasks, the receive softirq
# that an ACK wakes, and the workqueue all run a QP's requester.
#  1. ib_write_bw -q 4 of 4 KiB: a receiver that keeps up. Where every
#     packet that left one side arrived at the other (each side's sent
#     count equal to the peer's received), nothing may have come out of
#     sequence: a counts no out-of-sequence request and sends no
#     sequence NAK, b receives none.
#  2. ib_write_bw and ib_send_bw -q 16 of 64 KiB: sixteen windows
#     overflow what the receiving guest takes in, and the link drops
#     (the socket NIC's host queue). Each run must end well: no QP may
#     run out of retries. The counters that explain the figures are
#     printed.
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0
peer=a
[ "$SROCE_ROLE" = a ] && peer=b

run_case() { # NAME PORT CMD...: a serves, b connects; one point
	local name=$1 port=$2 rc

	shift 2
	pair_app a "$port" "$@"
	rc=$?
	app_report "$name" $rc
	[ $rc -eq 0 ] && grep -E '^ *[0-9]+ +[0-9]+ ' /tmp/app.log |
		head -n 1 | sed 's/^/# /'
}

# counts TAG: this side's sent and received packets, and the peer's
counts() {
	echo "$(hw_counter tx_packets) $(hw_counter rx_packets)" \
		> "$SROCE_SYNC/counts.$1.$SROCE_ROLE"
	sync_peer "counted$1"
	read -r tx rx < "$SROCE_SYNC/counts.$1.$SROCE_ROLE"
	read -r ptx prx < "$SROCE_SYNC/counts.$1.$peer"
	diag "$1: sent $tx received $rx; peer sent $ptx received $prx"
}

sync_peer ready
run_case "ib_write_bw -q 4 -s 4096" 18711 \
	ib_write_bw -d sroce0 -x 1 -F -q 4 -s 4096 -n 2000
counts q4
if [ "$tx" -eq "$prx" ] && [ "$ptx" -eq "$rx" ]; then
	if [ "$SROCE_ROLE" = a ]; then
		check "no request out of sequence on a loss-free link" \
			test "$(hw_counter out_of_sequence_requests)" -eq 0
		check "no sequence NAK sent" \
			test "$(hw_counter seq_naks_sent)" -eq 0
	else
		check "no sequence NAK received" \
			test "$(hw_counter seq_naks_rcvd)" -eq 0
	fi
else
	ktap_skip "in order on a loss-free link" "the link lost packets"
fi
diag "counters: $(rdma statistic show link sroce0/1 | tr -s ' ')"

run_case "ib_write_bw -q 16 -s 65536" 18712 \
	ib_write_bw -d sroce0 -x 1 -F -q 16 -s 65536 -n 50
run_case "ib_send_bw -q 16 -s 65536" 18713 \
	ib_send_bw -d sroce0 -x 1 -F -q 16 -s 65536 -n 50
counts q16
diag "counters: $(rdma statistic show link sroce0/1 | tr -s ' ')"
sync_peer done
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
