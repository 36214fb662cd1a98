#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": stock applications between the guests' sroce devices
# (a serves, b connects): ibv_rc_pingpong at 64 B, 4 KiB and 1 MiB and
# ibv_uc_pingpong at 64 B, 4 KiB and 64 KiB, each with polling and with
# completion events (-e), data checked (-c), ibv_srq_pingpong (four QPs on
# one SRQ, data checked), perftest's send, write and
# read bandwidth tests at 64 B, 4 KiB, 64 KiB and 1 MiB and latency tests
# at 64 B and 64 KiB, and
# its atomic bandwidth (both operations) and latency tests; with
# zcopy=auto, payloads copied where eth0 has no scatter-gather, and UC's
# copied even with zcopy=on.
# Each run must exit 0 on both sides. On make check-debug's kernel, where
# a pair moves about a hundred packets a second, each case runs a tenth
# of its iterations (at least 5): the same cases, and the 1 MiB perftest
# runs carry 75 MiB instead of 660.
# A safety net only: about 190 s on an idle machine, 625 s once beside
# two other pairs, past the default 600.
# timeout: 1500
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0
check "zcopy=auto" sroce_zcopy auto

# iters N: N iterations, or a tenth of them (at least 5) on a debug kernel
iters() {
	if [ "${SROCE_DEBUG_KERNEL:-}" = 1 ]; then
		echo $(($1 / 10 > 5 ? $1 / 10 : 5))
	else
		echo "$1"
	fi
}

step=0
# run NAME CMD...: guest a serves CMD, b connects; one test point.
run() {
	local name=$1

	shift
	step=$((step + 1))
	if pair_app a $((18600 + step)) "$@"; then
		ktap_ok "$name"
		grep -E '^ *[0-9]+ +[0-9]+ |iters in' /tmp/app.log | head -n 2 |
			sed 's/^/# /'
	else
		ktap_fail "$name (exit $?)"
		tail -n 15 /tmp/app.log | sed 's/^/#   /'
	fi
}

for s in 64 4096 1048576; do
	n=$(iters 200)
	[ $s -eq 1048576 ] && n=$(iters 10)
	run "ibv_rc_pingpong -s $s -c" ibv_rc_pingpong -d sroce0 -g 1 -s $s -n $n -c
	run "ibv_rc_pingpong -s $s -c -e" ibv_rc_pingpong -d sroce0 -g 1 -s $s -n $n -c -e
done
# UC: the same exchange with nothing acknowledged, received data checked;
# never from the MRs' pages, even with zcopy=on (UC completes a send
# before its packets have left).
sroce_zcopy on
for s in 64 4096 65536; do
	run "ibv_uc_pingpong -s $s -c" \
		ibv_uc_pingpong -d sroce0 -g 1 -s $s -n "$(iters 200)" -c
	run "ibv_uc_pingpong -s $s -c -e" \
		ibv_uc_pingpong -d sroce0 -g 1 -s $s -n "$(iters 200)" -c -e
done
sroce_zcopy auto
# Four QPs sharing one SRQ on each side, received data checked.
run "ibv_srq_pingpong -q 4 -c" \
	ibv_srq_pingpong -d sroce0 -g 1 -q 4 -n "$(iters 100)" -c
run "ibv_srq_pingpong -q 4 -c -e" \
	ibv_srq_pingpong -d sroce0 -g 1 -q 4 -n "$(iters 100)" -c -e
for t in send write read; do
	for s in 64 4096 65536 1048576; do
		n=$(iters 200)
		[ $s -eq 1048576 ] && n=$(iters 20)
		run "ib_${t}_bw -s $s" ib_${t}_bw -d sroce0 -x 1 -F -s $s -n $n
		# latency: one packet and sixty-four (1 MiB's 100 round
		# trips took a minute of make check for the same path)
		[ $s -eq 64 ] || [ $s -eq 65536 ] || continue
		run "ib_${t}_lat -s $s" \
			ib_${t}_lat -d sroce0 -x 1 -F -s $s -n "$(iters 100)"
	done
done
for op in FETCH_AND_ADD CMP_AND_SWAP; do
	run "ib_atomic_bw -A $op" \
		ib_atomic_bw -d sroce0 -x 1 -F -A $op -n "$(iters 500)"
done
run "ib_atomic_lat" ib_atomic_lat -d sroce0 -x 1 -F -n "$(iters 200)"
# zcopy=auto: RC payloads go as the MRs' pages only where the netdev
# gathers them itself (the testbed's virtio NIC does not); UC never.
if [ "$(netdev_sg eth0)" = on ]; then
	check "zcopy=auto, eth0 with scatter-gather: payloads from the MRs' pages" \
		test "$(hw_counter tx_zcopy_packets)" -gt 0
else
	check "zcopy=auto without scatter-gather, UC with zcopy=on: every payload copied" \
		test "$(hw_counter tx_zcopy_packets)" -eq 0
fi
diag "counters: $(rdma statistic show link sroce0/1 | tr -s ' ')"
sync_peer done
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
