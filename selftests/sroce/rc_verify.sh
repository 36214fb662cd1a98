#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": rc_verify between the two guests' sroce devices (a
# serves, b drives): every operation and size class compared byte for
# byte, bursts, the RNR, retry-exceeded and remote-access error cases, the
# QP state machine (path MTU above the port's refused), unaligned MRs, CQ
# arming and resize, revoked rkeys staying dead; with every case, the
# refusals say why in the kernel log (dynamic debug turned on for it).
# With SROCE_QDISC set (a root qdisc, e.g. "netem loss 2% delay 1ms") both
# NICs impair the wire first and only the data cases run; SROCE_BACKLOG_MAX
# then bounds the packets that qdisc may ever hold (sampled throughout).
# With SROCE_MTU set (256..4096) the NICs get MTU 9000 and the QPs that
# path MTU. With SROCE_PEER_RXE set, b runs rdma_rxe (rxe0) instead.
. "$(dirname "$0")/../lib.sh"

ktap_begin
[ -z "${SROCE_PEER_RXE:-}" ] || need_rxe
sroce_install_module || exit 1
sroce_setup_net || exit 1
dev=sroce0
[ -n "${SROCE_PEER_RXE:-}" ] && [ "$SROCE_ROLE" = b ] && dev=rxe0
sroce_link_up eth0 $dev
# user MRs' pages as fragments, here too (no scatter-gather on eth0)
[ $dev = sroce0 ] && check "zcopy=on" sroce_zcopy on
if [ -n "${SROCE_PEER_RXE:-}" ]; then
	# QPs resolve the peer's MAC at RTR, and the RDMA core gives up
	# sooner than a TCG guest may answer: warm the neighbour cache.
	sync_peer up
	check "peer reachable" ping -c 2 -W 10 "$SROCE_PEER_IP"
fi
cases=data,burst,sig,rnr,retry,access,qp,mr,cq,garbage,rkey,atomic
mtu=1024
if [ -n "${SROCE_MTU:-}" ]; then
	# Path MTU 4096 needs room for 4096 bytes of payload plus headers.
	check "netdev MTU 9000" ip link set eth0 mtu 9000
	check "active MTU 4096" wait_for 10 bash -c \
		'[ "$(port_attr sroce0 active_mtu)" = 4096 ]'
	mtu=$SROCE_MTU
	cases=data,burst,atomic
fi
if [ -n "${SROCE_QDISC:-}" ]; then
	modprobe "sch_${SROCE_QDISC%% *}"
	# shellcheck disable=SC2086
	check "qdisc on eth0: $SROCE_QDISC" \
		tc qdisc add dev eth0 root $SROCE_QDISC
	cases=data,burst,atomic
	lossy=-l	# a lost fatal NAK ends in RETRY_EXC_ERR
fi
if [ -n "${SROCE_BACKLOG_MAX:-}" ]; then
	# The most packets eth0's qdisc holds, sampled every 0.1 s.
	echo 0 > /tmp/backlog.max
	(
		max=0
		while :; do
			n=$(qdisc_backlog)
			if [ "${n:-0}" -gt "$max" ]; then
				max=$n
				echo "$max" > /tmp/backlog.max
			fi
			sleep 0.1
		done
	) &
	sampler=$!
fi
# Every case: the refusals say why through dynamic debug (sroce_refuse())
why=
if [ "$cases" != data,burst,atomic ] && [ $dev = sroce0 ]; then
	why=skip
	dyndbg on && why=check
fi
sync_peer ready

prog=$SROCE_SRC/selftests/sroce/rc_verify
if [ "$SROCE_ROLE" = a ]; then
	"$prog" -d $dev -g 1 -m "$mtu" -s -t "$cases" ${lossy:-} \
		> /tmp/verify.log 2>&1
else
	"$prog" -d $dev -g 1 -m "$mtu" -c "$SROCE_PEER_IP" -t "$cases" \
		${lossy:-} > /tmp/verify.log 2>&1
fi
rc=$?
ktap_import rc_verify /tmp/verify.log
check "rc_verify exit status" test "$rc" -eq 0
if [ "$why" = check ]; then
	dyndbg off
	check "dynamic debug: why path MTU 4096 and INIT -> RTS were refused" \
		bash -c "dmesg | grep -q \"modify: path MTU 4096 over the port's 1024\" &&
			 dmesg | grep -q 'is not a transition IBA allows'"
	dmesg | grep -m 3 -E 'modify:|create QP:' | sed 's/^/# /'
elif [ "$why" = skip ]; then
	ktap_skip "dynamic debug: why path MTU 4096 and INIT -> RTS were refused" \
		"no dynamic debug in $(uname -r)"
fi
if [ -n "${SROCE_BACKLOG_MAX:-}" ]; then
	kill "$sampler"
	max=$(cat /tmp/backlog.max)
	if [ $dev = sroce0 ]; then
		check "eth0 qdisc never held more than $SROCE_BACKLOG_MAX packets ($max)" \
			test "$max" -le "$SROCE_BACKLOG_MAX"
	else
		diag "eth0 qdisc held at most $max packets"
	fi
	# a answers b's READs: at this rate it must have waited for room.
	[ "$SROCE_ROLE" = a ] &&
		check "READ responder paced (tx_throttled > 0)" test \
			"$(hw_counter tx_throttled)" -gt 0
fi
# b's Writes and Sends: payloads of 512 bytes and more left as the pages
# of the MR they are in (zcopy=on); at path MTU 256 every packet is
# smaller and copied. a's Read responses were copied.
if [ $dev = sroce0 ] && [ "$SROCE_ROLE" = b ] && [ "$mtu" -lt 512 ]; then
	check "path MTU $mtu: every payload copied (tx_zcopy_packets 0)" \
		test "$(hw_counter tx_zcopy_packets)" -eq 0
elif [ $dev = sroce0 ] && [ "$SROCE_ROLE" = b ]; then
	check "payloads sent from the MR's pages (tx_zcopy_packets > 0)" \
		test "$(hw_counter tx_zcopy_packets)" -gt 0
elif [ $dev = sroce0 ]; then
	check "Read responses copied (tx_zcopy_packets 0)" \
		test "$(hw_counter tx_zcopy_packets)" -eq 0
fi
diag "counters: $(rdma statistic show link $dev/1 | tr -s ' ')"
sync_peer done
check "rdma link delete" rdma link delete $dev
[ $dev = sroce0 ] && check "rmmod" rmmod rdma_sroce
ktap_end
