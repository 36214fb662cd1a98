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
# one IMPL TEST SIZE ITERS
one() {
	local impl=$1 test=$2 size=$3 iters=$4 port out
	step=$((step + 1))
	port=$((18800 + step))
	if [ "$SROCE_ROLE" = a ]; then
		timeout 300 "$test" -d "$dev" -x 1 -F -s "$size" -n "$iters" \
			-p "$port" > /tmp/bench.log 2>&1 &
		local pid=$!
		wait_for 60 bash -c "ss -ltn | grep -q ':$port '"
		sync_peer "start$step"
		wait "$pid"
	else
		sync_peer "start$step"
		timeout 300 "$test" -d "$dev" -x 1 -F -s "$size" -n "$iters" \
			-p "$port" "$SROCE_PEER_IP" > /tmp/bench.log 2>&1
		case "$test" in
		*_bw) out=$(awk -v s="$size" '$1 == s && NF >= 5 { print $4 }' /tmp/bench.log) ;;
		*_lat) out=$(awk -v s="$size" '$1 == s && NF >= 7 { print $6 }' /tmp/bench.log) ;;
		esac
		echo "RESULT $impl $test $size ${out:-FAILED}"
	fi
	sync_peer "end$step"
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
