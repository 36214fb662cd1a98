#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What "make bench"'s ECN part runs in each guest of a pair
# (tools/testbed/vm.sh --pair): RDMA and TCP through one bottleneck that
# marks CE. b's eth0 is the bottleneck: tbf at BENCH_ECN_MBIT (default
# 40) Mbit/s over one RED FIFO with ECN, as a switch port with WRED
# marking has it (one queue for both, so its delay is theirs). b sends
# to a, at once and for BENCH_ECN_SECS (default 10) seconds: RC QPs of
# 64 KiB RDMA Writes (fan_verify, every region checked; 1, then 4 QPs:
# BENCH_ECN_QPS) and one TCP flow (iperf3, ECN on, cubic). One QP against
# one flow is where each should get half; four QPs are four flows to the
# queue, as four TCP flows would be. Three cases in one boot:
#   sroce      sroce's defaults: requests ECT(0), CE answered with CNPs,
#              CNPs answered by DCQCN and a window cut;
#   sroce-off  the same without ECN handling (ecn=0: RED drops what it
#              would have marked, and only a loss slows sroce down);
#   rxe        rdma_rxe, what users have today (no ECT, no CNP).
# b samples the queue's backlog every 100 ms and prints
#   ECN case qps rdma_MB/s tcp_MB/s link_MB/s delay_p50_ms delay_p99_ms
#       delay_max_ms samples marked dropped   (the RED queue's own counts)
#   ECNCNT case qps SIDE:NAME DELTA     (sroce's counters, a and b)
# and report.py makes the table.
. "$SROCE_SRC/selftests/lib.sh"

SECS=${BENCH_ECN_SECS:-10}
MBIT=${BENCH_ECN_MBIT:-40}
QPS=${BENCH_ECN_QPS:-1 4}
COUNTERS="ecn_marked cnp_sent cnp_received rate_cuts tx_paced retransmits
	retransmit_timeouts duplicate_requests seq_naks_rcvd rx_packets
	tx_packets"

# counters_now: "NAME VALUE" of sroce0's COUNTERS, or nothing
counters_now() {
	# shellcheck disable=SC2086 # the names are words
	[ "$dev" != sroce0 ] || hw_counters $COUNTERS
}

# A case runs BENCH_ECN_SECS; one that hangs is stopped a few minutes
# after, not at the guest's timeout's two thirds.
app_timeout() { echo $((SECS + 180)); }

sroce_install_module || exit 1
sroce_setup_net || exit 1
sysctl -qw net.ipv4.tcp_ecn=1

# red_stat NAME: the RED child's count NAME ("marked", "early", "pdrop")
red_stat() {
	tc -s qdisc show dev eth0 | awk -v n="$1" '
		$1 == "qdisc" { red = $2 == "red" }
		red { for (i = 1; i < NF; i++) if ($i == n) { print $(i + 1); exit } }'
}

# red_drops: what the RED queue dropped, early, forced or for room
red_drops() {
	echo $(($(red_stat early) + $(red_stat pdrop) + $(red_stat other)))
}

# The bottleneck: tbf holds the rate, RED under it the queue. Marking
# starts at 30 KB (about 6 ms at 40 Mbit/s) and is certain at 90 KB; the
# queue holds 400 KB before it must drop.
bottleneck() {
	tc qdisc del dev eth0 root 2> /dev/null
	tc qdisc add dev eth0 root handle 1: tbf rate "${MBIT}mbit" \
		burst 32kb latency 1s &&
		tc qdisc add dev eth0 parent 1:1 handle 10: red limit 400000 \
			min 30000 max 90000 avpkt 1500 burst 34 \
			bandwidth "${MBIT}mbit" probability 0.5 ecn
}

# sample FILE PID: eth0's backlog in bytes every 100 ms while PID runs
sample() {
	while kill -0 "$2" 2> /dev/null; do
		qdisc_backlog_bytes >> "$1"
		sleep 0.1
	done
}

# both: the pair_app command of one case, RDMA and TCP at once. Server:
# iperf3 first, then fan_verify (whose port pair_app waits for); client:
# both, and their logs after. ARGS: -p PORT [PEER]
cat > /tmp/both.sh <<'BOTH'
#!/bin/bash
dev=$1 secs=$2 fan=$3 qps=$4 port=$6 peer=${7:-}
if [ -z "$peer" ]; then
	iperf3 -s -1 -p $((port + 1)) > /tmp/tcp.log 2>&1 &
	tcp=$!
	"$fan" -d "$dev" -q "$qps" -m 65536 -s -p "$port"
	rc=$?
	wait "$tcp"
	exit $rc
fi
"$fan" -d "$dev" -q "$qps" -m 65536 -t "$secs" -p "$port" "$peer" \
	> /tmp/fan.log 2>&1 &
fan=$!
iperf3 -c "$peer" -p $((port + 1)) -t "$secs" -f M > /tmp/tcp.log 2>&1
tcp=$?
wait "$fan"
rc=$?
cat /tmp/fan.log /tmp/tcp.log
[ $tcp -eq 0 ] && exit $rc
exit 1
BOTH
chmod +x /tmp/both.sh

# report CASE QPS: b's line for the case just run
report() {
	local rdma tcp link q

	rdma=$(fan_summary /tmp/app.log | awk '{ print $1 }')
	tcp=$(awk '/receiver/ { for (i = 1; i < NF; i++)
		if ($(i + 1) == "MBytes/sec") print $i }' /tmp/app.log)
	link=$(awk -v m="$MBIT" 'BEGIN { printf "%.2f", m * 1e6 / 8 / 1048576 }')
	# backlog bytes to ms at the bottleneck's rate
	q=$(sort -n /tmp/backlog | awk -v m="$MBIT" '
		{ v[NR] = $1 * 8 / (m * 1000) }
		END { if (!NR) { print "- - - 0"; exit }
			printf "%.1f %.1f %.1f %d\n", v[int((NR + 1) / 2)],
				v[int(NR * 0.99 + 0.5) ? int(NR * 0.99 + 0.5) : 1], v[NR], NR }')
	echo "ECN $1 $2 ${rdma:-FAILED} ${tcp:-FAILED} $link $q" \
		"$(($(red_stat marked) - marked0)) $(($(red_drops) - drops0))"
}

step=0
# case_run CASE QPS: one case; the device is $dev
case_run() {
	local tag=$SROCE_SYNC/ecn-$1-$2 pid rc

	step=$((step + 1))
	counters_now > "$tag.before.$SROCE_ROLE"
	if [ "$SROCE_ROLE" = b ]; then
		bottleneck || { echo "ECN $1 $2 FAILED (no bottleneck)"; return 1; }
		marked0=$(red_stat marked) drops0=$(red_drops)
		: > /tmp/backlog
		sample /tmp/backlog $$ &
		pid=$!
	fi
	pair_app a $((19700 + 2 * step)) /tmp/both.sh "$dev" "$SECS" \
		"$SROCE_SRC/selftests/sroce/fan_verify" "$2"
	rc=$?
	counters_now > "$tag.after.$SROCE_ROLE"
	sync_peer "ecn-$1-$2-end"
	[ "$SROCE_ROLE" = b ] || return 0
	kill "$pid"
	wait "$pid" 2> /dev/null
	if [ $rc -eq 0 ]; then
		report "$1" "$2"
	else
		echo "ECN $1 $2 FAILED"
		tail -n 5 /tmp/app.log | sed 's/^/# /'
	fi
	pair_deltas "$tag" "ECNCNT $1 $2"	# nothing for rdma_rxe
	tc qdisc del dev eth0 root
}

# each_qps CASE: the case at each QP count
each_qps() {
	local q

	for q in $QPS; do
		case_run "$1" "$q"
	done
}

# cases IMPL: each_driver's turn for IMPL; sroce's cases run with and
# without ECN handling
cases() {
	each_qps "$1"
	[ "$1" = sroce ] || return 0
	echo 0 > /sys/module/rdma_sroce/parameters/ecn
	each_qps sroce-off
	echo 1 > /sys/module/rdma_sroce/parameters/ecn
}

each_driver cases
