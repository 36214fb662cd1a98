#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What "make bench" (tools/bench/bench.sh) runs in each of its two guests,
# over sroce, then rdma_rxe, then kernel TCP, in the same boot; guest a
# serves, guest b is the client and reports.
#
# BENCH_PARTS (default "count time") picks the parts:
# count: each case at N and at 2N iterations between icount marks
#   (icount-mark ID: the QEMU plugin writes both guests' instruction
#   totals at each); b prints "COUNT impl test size N ID rc" and the host
#   takes the marginal cost of N more iterations, so that start-up and
#   teardown cancel (bench.sh).
# time: perftest bandwidth and latency, printed as "RESULT impl test size
#   value" (MB/s for bandwidth, usec average for latency).
. "$SROCE_SRC/selftests/lib.sh"

MARK=${SROCE_ICOUNT_MARK:-$SROCE_SRC/build/host/icount-mark}
PARTS=${BENCH_PARTS:-count time}

sroce_install_module || exit 1
sroce_setup_net || exit 1

# iperf3 in pair_app's calling convention: CMD BYTES -p PORT [PEER]
cat > /tmp/tcp.sh <<'TCP'
#!/bin/sh
if [ -n "${4:-}" ]; then
	exec iperf3 -c "$4" -p "$3" -n "$1" -l 128K
fi
exec iperf3 -s -1 -p "$3"
TCP
chmod +x /tmp/tcp.sh

step=0
# one IMPL TEST SIZE ITERS: one timed perftest run, guest a serving.
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

# counted IMPL TEST SIZE N CMD...: CMD (pair_app's convention, given
# "-n ITERS" last) at N, then 2N iterations, marked before, between and
# after in both guests. The marks are ids ID, ID+1, ID+2.
mark_id=0
counted() {
	local impl=$1 test=$2 size=$3 n=$4 id=$mark_id rc=0

	shift 4
	mark_id=$((mark_id + 3))
	sync_peer "count$id"
	"$MARK" "$id" || return 1
	step=$((step + 1))
	pair_app a $((18800 + step)) "$@" "$n" || rc=1
	"$MARK" $((id + 1))
	step=$((step + 1))
	pair_app a $((18800 + step)) "$@" $((2 * n)) || rc=1
	"$MARK" $((id + 2))
	[ "$SROCE_ROLE" = b ] && echo "COUNT $impl $test $size $n $id $rc"
	return 0
}

# 16 MiB more per case at 64 KiB and 1 MiB; 4000 more 64-byte messages.
count_rdma() {
	local impl=$1 t

	for t in write read send; do
		counted "$impl" "ib_${t}_bw" 64 4000 \
			"ib_${t}_bw" -d "$dev" -x 1 -F -s 64 -n
		counted "$impl" "ib_${t}_bw" 65536 256 \
			"ib_${t}_bw" -d "$dev" -x 1 -F -s 65536 -n
		counted "$impl" "ib_${t}_bw" 1048576 16 \
			"ib_${t}_bw" -d "$dev" -x 1 -F -s 1048576 -n
	done
}

count_tcp() {
	# iperf3 -n counts bytes: N = 16 MiB, as "1048576 x 16".
	counted tcp iperf3 1048576 16 bash -c '/tmp/tcp.sh $((1048576 * $0)) "$@"'
}

time_suite() {
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

run_parts() {
	# BENCH_PROFILE: symbols for tools/bench/profile.py, while loaded
	[ -z "${BENCH_PROFILE:-}" ] || cat /proc/kallsyms > "$SROCE_OUT/kallsyms-$1.txt"
	case " $PARTS " in *" count "*) count_rdma "$1" ;; esac
	case " $PARTS " in *" time "*) time_suite "$1" ;; esac
}

dev=sroce0
rdma link add sroce0 type sroce netdev eth0
wait_for 30 bash -c "ibv_devinfo -v -d sroce0 | grep -q '::ffff:$SROCE_IP'"
run_parts sroce
sync_peer sroce-done
rdma link delete sroce0
rmmod rdma_sroce

dev=rxe0
modprobe rdma_rxe
rdma link add rxe0 type rxe netdev eth0
wait_for 30 bash -c "ibv_devinfo -v -d rxe0 | grep -q '::ffff:$SROCE_IP'"
run_parts rxe
sync_peer rxe-done
rdma link delete rxe0
modprobe -r rdma_rxe

case " $PARTS " in *" count "*) count_tcp ;; esac
sync_peer done
