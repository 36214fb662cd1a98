#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What "make bench" (tools/bench/bench.sh) runs in each of its two guests,
# over sroce, then rdma_rxe, then kernel TCP, in the same boot; guest a
# serves, guest b is the client and reports.
#
# BENCH_IMPLS (default "sroce rxe tcp"; also sroce-copy: sroce with
# zero-copy transmit off, zcopy=off) picks what runs, BENCH_PARTS (default
# "count time scale") the parts, each run at every
# netdev MTU in BENCH_MTUS (default "1500 9000"):
# count: each case at N and at 2N iterations between icount marks
#   (icount-mark ID: the QEMU plugin writes both guests' instruction
#   totals at each); b prints "COUNT impl mtu test size N ID rc" and the
#   host takes the marginal cost of N more iterations, so that start-up
#   and teardown cancel (report.py).
# time: perftest bandwidth (64 KiB, 1 MiB; RDMA Write also with 4 and 16
#   QPs) and latency (64 B, 4 KiB), and iperf3, BENCH_REPEAT (default 5)
#   rounds; b prints "RESULT impl mtu test size qps metric value" (bw in
#   MB/s; p50, p99 in usec) and the host takes medians (report.py).
# scale: 1, 4, 16, 64 and 256 RC QPs of 64 KiB RDMA Writes for
#   BENCH_SCALE_SECS (default 4) seconds each (fan_verify -t, every
#   region checked), b writing: b prints "SCALE impl mtu qps MB/s min
#   median max jain" (per-QP MB/s, Jain's index over the QPs' bytes) and,
#   for sroce, the counters that explain them from both sides
#   ("SCALECNT impl mtu qps SIDE:NAME DELTA").
# ucx: what MPI moves over UCX (Open MPI's and MPICH's UCX layers match
#   tags and send large messages by rendezvous): ucx_perftest tag_bw of
#   4 MiB messages, rendezvous by RDMA Write (UCX_RNDV_SCHEME=put_zcopy)
#   and by RDMA Read (get_zcopy); b prints "UCX impl mtu scheme MB/s"
#   and the counters as scale does ("UCXCNT impl mtu scheme SIDE:NAME
#   DELTA").
. "$SROCE_SRC/selftests/lib.sh"

MARK=${SROCE_ICOUNT_MARK:-$SROCE_SRC/build/host/icount-mark}
PARTS=${BENCH_PARTS:-count time scale}
MTUS=${BENCH_MTUS:-1500 9000}
REPEAT=${BENCH_REPEAT:-5}

sroce_install_module || exit 1
sroce_setup_net || exit 1

# iperf3 in pair_app's calling convention: CMD BYTES -p PORT [PEER]
cat > /tmp/tcp.sh <<'TCP'
#!/bin/sh
if [ -n "${4:-}" ]; then
	exec iperf3 -c "$4" -p "$3" -n "$1" -l 128K -f M
fi
exec iperf3 -s -1 -p "$3"
TCP
chmod +x /tmp/tcp.sh

step=0
mtu=1500
# timed IMPL TEST SIZE QPS ITERS: one timed run, guest a serving; b
# reports.
timed() {
	local impl=$1 test=$2 size=$3 qps=$4 iters=$5 bw p50 p99

	step=$((step + 1))
	if [ "$impl" = tcp ]; then
		pair_app a $((18800 + step)) bash -c \
			'/tmp/tcp.sh $((1048576 * $0)) "$@"' "$iters"
	else
		# perftest's latency tests take no -q
		local q=()
		[ "$qps" -gt 1 ] && q=(-q "$qps")
		pair_app a $((18800 + step)) "$test" -d "$dev" -x 1 -F \
			-s "$size" "${q[@]}" -n "$iters"
	fi
	[ "$SROCE_ROLE" = b ] || return 0
	case "$test" in
	iperf3)
		# "[ ID] 0.00-T sec N MBytes RATE MBytes/sec receiver";
		# -f M: MiB, as perftest's MB
		bw=$(awk '/receiver/ { for (i = 1; i < NF; i++)
			if ($(i + 1) == "MBytes/sec") print $i }' /tmp/app.log)
		echo "RESULT $impl $mtu $test $size $qps bw ${bw:-FAILED}" ;;
	*_bw)
		bw=$(awk -v s="$size" '$1 == s && NF >= 5 { print $4 }' /tmp/app.log)
		echo "RESULT $impl $mtu $test $size $qps bw ${bw:-FAILED}" ;;
	*_lat)
		# bytes iters t_min t_max t_typical t_avg t_stdev 99% 99.9%
		p50=$(awk -v s="$size" '$1 == s && NF >= 9 { print $5 }' /tmp/app.log)
		p99=$(awk -v s="$size" '$1 == s && NF >= 9 { print $8 }' /tmp/app.log)
		echo "RESULT $impl $mtu $test $size $qps p50 ${p50:-FAILED}"
		echo "RESULT $impl $mtu $test $size $qps p99 ${p99:-FAILED}" ;;
	esac
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
	[ "$SROCE_ROLE" = b ] && echo "COUNT $impl $mtu $test $size $n $id $rc"
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

# Rounds interleave the cases, so that a slow minute of the host's
# spreads over all of them rather than sinking one.
time_rdma() {
	local impl=$1 r t q

	for r in $(seq "$REPEAT"); do
		for t in write read send; do
			timed "$impl" "ib_${t}_bw" 65536 1 200
			timed "$impl" "ib_${t}_bw" 1048576 1 30
			timed "$impl" "ib_${t}_lat" 64 1 1000
			timed "$impl" "ib_${t}_lat" 4096 1 1000
		done
		for q in 4 16; do
			timed "$impl" ib_write_bw 65536 "$q" 200
		done
	done
}

SCALE_COUNTERS="retransmit_timeouts retransmits requester_rewinds
	seq_naks_rcvd tx_budget_held duplicate_requests seq_naks_sent
	rx_packets tx_packets"

# counters_now: "NAME VALUE" of sroce0's SCALE_COUNTERS, or nothing
counters_now() {
	# shellcheck disable=SC2086 # the names are words
	[ "$dev" != sroce0 ] || hw_counters $SCALE_COUNTERS
}

# Each QP count once: the rows are compared within one run, and fan_verify
# reports the spread over QPs itself. Both sides' counters go through
# the shared directory; b reports them as "a:NAME" and "b:NAME".
scale_rdma() {
	local impl=$1 q line tag

	for q in 1 4 16 64 256; do
		tag=$SROCE_SYNC/scale-$impl-$mtu-$q
		counters_now > "$tag.before.$SROCE_ROLE"
		step=$((step + 1))
		pair_app a $((18800 + step)) "$SROCE_SRC/selftests/sroce/fan_verify" \
			-d "$dev" -q "$q" -m 65536 -t "${BENCH_SCALE_SECS:-4}"
		counters_now > "$tag.after.$SROCE_ROLE"
		sync_peer "scale-$impl-$mtu-$q"
		[ "$SROCE_ROLE" = b ] || continue
		line=$(fan_summary /tmp/app.log)
		echo "SCALE $impl $mtu $q ${line:-FAILED}"
		pair_deltas "$tag" "SCALECNT $impl $mtu $q"
	done
}

# The rendezvous schemes MPI's large messages take over UCX, each once:
# the counters say what was sent again and received twice.
ucx_rdma() {
	local impl=$1 scheme tag bw

	for scheme in put_zcopy get_zcopy; do
		tag=$SROCE_SYNC/ucx-$impl-$mtu-$scheme
		counters_now > "$tag.before.$SROCE_ROLE"
		step=$((step + 1))
		pair_app a $((18800 + step)) env UCX_NET_DEVICES="$dev:1" \
			UCX_RNDV_SCHEME=$scheme ucx_perftest -t tag_bw \
			-s 4194304 -n 60
		counters_now > "$tag.after.$SROCE_ROLE"
		sync_peer "ucx-$impl-$mtu-$scheme"
		[ "$SROCE_ROLE" = b ] || continue
		# "Final: ITERS ... BW_AVERAGE BW_OVERALL RATE RATE"
		bw=$(awk '$1 == "Final:" { print $(NF - 2) }' /tmp/app.log)
		echo "UCX $impl $mtu $scheme ${bw:-FAILED}"
		[ -n "$bw" ] || grep -a -E 'ERROR|Fatal|rror' /tmp/app.log |
			head -n 5 | sed 's/^/# /'
		pair_deltas "$tag" "UCXCNT $impl $mtu $scheme"
	done
}

time_tcp() {
	local r

	for r in $(seq "$REPEAT"); do
		timed tcp iperf3 1048576 1 32
	done
}

# set_mtu MTU DEV: both guests' eth0 at MTU, and DEV's port following
# (active IB MTU 1024 at 1500, 4096 at 9000; sroce_port.c).
set_mtu() {
	local want=1024

	[ "$1" -ge 4200 ] && want=4096
	mtu=$1
	ip link set eth0 mtu "$1"
	[ -z "$2" ] || wait_for 30 bash -c "[ \"\$(port_attr $2 active_mtu)\" = $want ]"
	sync_peer "mtu$1-${2:-tcp}"
}

run_parts() {
	local m

	# BENCH_PROFILE: symbols for tools/bench/profile.py, while loaded
	[ -z "${BENCH_PROFILE:-}" ] || cat /proc/kallsyms > "$SROCE_OUT/kallsyms-$1.txt"
	for m in $MTUS; do
		set_mtu "$m" "$dev"
		case " $PARTS " in *" count "*) count_rdma "$1" ;; esac
		case " $PARTS " in *" time "*) time_rdma "$1" ;; esac
		case " $PARTS " in *" scale "*) scale_rdma "$1" ;; esac
		case " $PARTS " in *" ucx "*) ucx_rdma "$1" ;; esac
	done
}

# has IMPL: is IMPL in BENCH_IMPLS (default: sroce rxe tcp)? sroce runs
# with the module's defaults (zcopy=auto: zero-copy transmit where the
# netdev gathers), sroce-copy with every payload copied (zcopy=off), for
# the comparison.
has() {
	case " ${BENCH_IMPLS:-sroce rxe tcp} " in *" $1 "*) ;; *) return 1 ;; esac
}

if has sroce || has sroce-copy; then
	dev=sroce0
	rdma link add sroce0 type sroce netdev eth0
	wait_for 30 bash -c "ibv_devinfo -v -d sroce0 | grep -q '::ffff:$SROCE_IP'"
	! has sroce || run_parts sroce
	if has sroce-copy; then
		sroce_zcopy off || exit 1
		run_parts sroce-copy
		sroce_zcopy auto || exit 1
	fi
	sync_peer sroce-done
	rdma link delete sroce0
fi
rmmod rdma_sroce

if has rxe; then
	dev=rxe0
	modprobe rdma_rxe
	rdma link add rxe0 type rxe netdev eth0
	wait_for 30 bash -c "ibv_devinfo -v -d rxe0 | grep -q '::ffff:$SROCE_IP'"
	run_parts rxe
	sync_peer rxe-done
	rdma link delete rxe0
	modprobe -r rdma_rxe
fi

dev=
if has tcp; then
	for m in $MTUS; do
		set_mtu "$m" ""
		case " $PARTS " in *" count "*) count_tcp ;; esac
		case " $PARTS " in *" time "*) time_tcp ;; esac
	done
fi
sync_peer done
