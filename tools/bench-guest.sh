#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What "make bench" runs in each of its two guests: perftest bandwidth and
# latency between them, first over sroce, then over rdma_rxe, in the same
# boot. Guest a serves. Prints "RESULT impl test size value" lines
# (MB/s for bandwidth, usec average for latency).
. "$SROCE_SRC/selftests/lib.sh"

sroce_install_module || exit 1
sroce_setup_net || exit 1

step=0
# one IMPL TEST SIZE ITERS: one perftest run, guest a serving; b reports.
one() {
	local impl=$1 test=$2 size=$3 iters=$4 out

	step=$((step + 1))
	pair_app a $((18800 + step)) "$test" -d "$dev" -x 1 -F -s "$size" \
		-n "$iters"
	[ "$SROCE_ROLE" = b ] || return 0
	case "$test" in
	*_bw) out=$(awk -v s="$size" '$1 == s && NF >= 5 { print $4 }' /tmp/app.log) ;;
	*_lat) out=$(awk -v s="$size" '$1 == s && NF >= 7 { print $6 }' /tmp/app.log) ;;
	esac
	echo "RESULT $impl $test $size ${out:-FAILED}"
}

suite() {
	local impl=$1 t s n
	for t in write read send; do
		for s in 64 4096 65536 1048576; do
			n=1000
			[ "$s" -ge 65536 ] && n=200
			[ "$s" -ge 1048576 ] && n=30
			one "$impl" "ib_${t}_bw" "$s" "$n"
			one "$impl" "ib_${t}_lat" "$s" 100
		done
	done
}

dev=sroce0
rdma link add sroce0 type sroce netdev eth0
wait_for 30 bash -c "ibv_devinfo -v -d sroce0 | grep -q '::ffff:$SROCE_IP'"
suite sroce
sync_peer sroce-done
rdma link delete sroce0
rmmod rdma_sroce

dev=rxe0
modprobe rdma_rxe
rdma link add rxe0 type rxe netdev eth0
wait_for 30 bash -c "ibv_devinfo -v -d rxe0 | grep -q '::ffff:$SROCE_IP'"
suite rxe
sync_peer rxe-done
rdma link delete rxe0
