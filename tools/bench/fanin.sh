#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What "make bench"'s fan-in part runs in each of N guests on one bridge
# (tools/testbed/vm.sh --guests N), over sroce, then rdma_rxe, in the
# same boot: guest a receives, every other guest sends to it. Two rounds
# per driver: one pair (b to a), then fan-in (all senders to a at once),
# each sender with BENCH_FANIN_QPS (default 4) RC QPs of 64 KiB RDMA
# Writes for BENCH_SCALE_SECS (default 4) seconds, through fan_verify,
# which checks every QP's region on a. Guest a prints, per round:
#   FANIN impl round sender MB/s min median max jain   (the sender's own)
#   FANINCHK impl round sender ok|FAILED               (a's byte check)
#   FANINCNT impl round ROLE:NAME DELTA                (sroce's counters)
. "$SROCE_SRC/selftests/lib.sh"

QPS=${BENCH_FANIN_QPS:-4}
SECS=${BENCH_SCALE_SECS:-4}
FAN=$SROCE_SRC/selftests/sroce/fan_verify
A_IP=${SROCE_GUEST_IPS%% *}
SENDERS=${SROCE_GUESTS#a }
COUNTERS="retransmit_timeouts retransmits requester_rewinds tx_budget_held
	duplicate_requests seq_naks_sent rx_packets"

sroce_install_module || exit 1
sroce_setup_net || exit 1

# counters_now: "NAME VALUE" of sroce0's COUNTERS, or nothing
counters_now() {
	# shellcheck disable=SC2086 # the names are words
	[ "$dev" != sroce0 ] || hw_counters $COUNTERS
}

# port_of ROLE: the TCP port a listens on for that sender in this round
port_of() {
	local i=0 r

	for r in $SROCE_GUESTS; do
		[ "$r" = "$1" ] && echo $((19000 + step * 10 + i))
		i=$((i + 1))
	done
}

step=0
# round IMPL NAME SENDER...: the senders write to a at once
round() {
	local impl=$1 name=$2 s pids=() rc line tag

	shift 2
	step=$((step + 1))
	tag=$SROCE_SYNC/fanin-$impl-$name
	sync_all "$impl-$name-begin"
	counters_now > "/tmp/before"
	if [ "$SROCE_ROLE" = a ]; then
		for s in "$@"; do
			timeout "$(app_timeout)" "$FAN" -d "$dev" -q "$QPS" \
				-m 65536 -p "$(port_of "$s")" \
				> "/tmp/fan-$s.log" 2>&1 &
			pids+=($!)
			wait_for 60 bash -c "ss -ltn | grep -q ':$(port_of "$s") '"
		done
		sync_all "$impl-$name-listen"
		for s in "$@"; do
			wait "${pids[0]}"
			rc=$?
			pids=("${pids[@]:1}")
			if [ $rc -eq 0 ] && ! grep -q "^not ok" "/tmp/fan-$s.log"; then
				echo "FANINCHK $impl $name $s ok"
			else
				echo "FANINCHK $impl $name $s FAILED"
				sed 's/^/# /' "/tmp/fan-$s.log" | tail -n 5
			fi
		done
	else
		sync_all "$impl-$name-listen"
		case " $* " in
		*" $SROCE_ROLE "*)
			timeout "$(app_timeout)" "$FAN" -d "$dev" -q "$QPS" \
				-m 65536 -t "$SECS" -p "$(port_of "$SROCE_ROLE")" \
				"$A_IP" > /tmp/fan.log 2>&1
			line=$(fan_summary /tmp/fan.log)
			{
				echo "FANIN $impl $name $SROCE_ROLE ${line:-FAILED}"
				# the sender's own failures (completions in error)
				grep -E "^not ok|^# QP" /tmp/fan.log |
					sed "s/^/# $SROCE_ROLE: /"
			} > "$tag.$SROCE_ROLE"
			;;
		esac
	fi
	counters_now > /tmp/after
	counter_deltas /tmp/before /tmp/after "FANINCNT $impl $name $SROCE_ROLE:" \
		> "$tag.$SROCE_ROLE.cnt"
	sync_all "$impl-$name-end"
	if [ "$SROCE_ROLE" = a ]; then
		for s in "$@"; do
			cat "$tag.$s" 2>/dev/null || echo "FANIN $impl $name $s FAILED"
		done
		cat "$tag".*.cnt
	fi
}

rounds() {
	local first=${SENDERS%% *}

	# shellcheck disable=SC2086 # the senders are words
	round "$1" pair "$first"
	# shellcheck disable=SC2086
	round "$1" fanin $SENDERS
}

each_driver rounds
