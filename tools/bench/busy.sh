#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What "make bench"'s busy-host part runs in each of four guests on one
# bridge (tools/testbed/vm.sh --guests 4), over sroce, then rdma_rxe, in
# the same boot: b drives one RC QP of 4 KiB RDMA Writes, then Reads, to
# a (perftest, BENCH_BUSY_ITERS messages, default 4000), first with c and
# d idle ("quiet"), then with c and d each burning its vCPU ("busy"):
# four vCPUs on the host's cores, as when other virtual machines run
# beside the pair. Guest b prints, per case:
#   BUSY impl state test iters seconds MB/s   (seconds: perftest's
#                                             transfer time, iters x 4 KiB
#                                             at its average bandwidth)
#   BUSYCNT impl state test ROLE:NAME DELTA   (sroce's counters, a and b)
# and report.py sets each busy time beside its quiet one.
. "$SROCE_SRC/selftests/lib.sh"

ITERS=${BENCH_BUSY_ITERS:-4000}
SIZE=4096
COUNTERS="retransmit_timeouts retransmits requester_rewinds seq_naks_rcvd
	duplicate_requests seq_naks_sent read_rerequests rx_packets tx_packets"

# A case moves 16 MiB in seconds even on a busy host: one that hangs (as
# rdma_rxe's quiet Write once did) is stopped after 3 minutes, not after
# the guest's timeout's two thirds.
app_timeout() { echo 180; }

sroce_install_module || exit 1
sroce_setup_net || exit 1

# counters_now: "NAME VALUE" of sroce0's COUNTERS, or nothing
counters_now() {
	# shellcheck disable=SC2086 # the names are words
	[ "$dev" != sroce0 ] || hw_counters $COUNTERS
}

step=0
# case_run IMPL STATE TEST: one case; c and d burn through it if busy
case_run() {
	local impl=$1 state=$2 test=$3 tag burner= bw

	step=$((step + 1))
	tag=$SROCE_SYNC/busy-$impl-$state-$test
	case $SROCE_ROLE in
	a | b)
		counters_now > "$tag.before.$SROCE_ROLE"
		sync_all "$impl-$state-$test-begin"
		pair_app a $((19500 + step)) "$test" -d "$dev" -x 1 -F \
			-s $SIZE -n "$ITERS"
		counters_now > "$tag.after.$SROCE_ROLE"
		sync_all "$impl-$state-$test-end" 900
		;;
	*)
		if [ "$state" = busy ]; then
			sh -c 'while :; do :; done' &
			burner=$!
		fi
		sync_all "$impl-$state-$test-begin"
		sync_all "$impl-$state-$test-end" 900
		[ -z "$burner" ] || kill "$burner"
		;;
	esac
	[ "$SROCE_ROLE" = b ] || return 0
	bw=$(awk -v s=$SIZE '$1 == s && NF >= 5 { print $4 }' /tmp/app.log)
	if [ -n "$bw" ] && awk -v b="$bw" 'BEGIN { exit !(b > 0) }'; then
		echo "BUSY $impl $state $test $ITERS $(awk -v n="$ITERS" \
			-v s=$SIZE -v b="$bw" 'BEGIN { printf "%.3f", n * s / (b * 1048576) }') $bw"
	else
		echo "BUSY $impl $state $test $ITERS FAILED"
		tail -n 5 /tmp/app.log | sed 's/^/# /'
	fi
	pair_deltas "$tag" "BUSYCNT $impl $state $test"
}

rounds() {
	local state test

	for state in quiet busy; do
		for test in ib_write_bw ib_read_bw; do
			case_run "$1" "$state" "$test"
		done
	done
}

each_driver rounds
