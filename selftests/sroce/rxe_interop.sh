#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": sroce against the kernel's rdma_rxe, the reference for
# the wire. Guest a runs rdma_rxe (rxe0), guest b sroce (sroce0). Stock
# applications and rc_verify's data and atomic cases run in both directions (each
# side once as server, once as client), so both implementations act as
# requester and responder for every operation, over IPv4 and IPv6; then
# UD (ibv_ud_pingpong), SRQs (ibv_srq_pingpong) and rdma_cm programs (rping, ucmatose, udaddy),
# whose connections go through both GSI QPs, and UCX (lib.sh's
# ucx_run_all).
. "$(dirname "$0")/../lib.sh"

ktap_begin
need_rxe
sroce_install_module || exit 1
sroce_setup_net || exit 1
if [ "$SROCE_ROLE" = a ]; then
	dev=rxe0
else
	dev=sroce0
fi
sroce_link_up eth0 $dev
sync_peer up
# Warm the neighbour caches: QPs resolve the peer's MAC at RTR, and the
# RDMA core gives up sooner than a TCG guest may answer.
check "peer reachable over IPv4" ping -c 2 -W 10 "$SROCE_PEER_IP"
check "peer reachable over IPv6 link-local" ping -6 -c 2 -W 10 \
	"$(printf 'fe80::5054:ff:fe5e:%x%%eth0' "${SROCE_PEER_IP##*.}")"

step=0
# run SERVER_ROLE NAME CMD...: SERVER_ROLE serves, the other connects.
run() {
	local srv=$1 name=$2

	shift 2
	step=$((step + 1))
	if pair_app "$srv" $((18700 + step)) "$@"; then
		ktap_ok "$name"
	else
		ktap_fail "$name (exit $?)"
		app_failed
	fi
}

# What a failed program said: its error lines (stderr comes before the
# buffered stdout in the log), its last lines, and sroce's counters.
app_failed() {
	grep -aiE 'error|fail|exceed|couldn|unable|timeout|status' /tmp/app.log |
		head -n 5 | sed 's/^/#   /'
	tail -n 15 /tmp/app.log | sed 's/^/#   /'
	[ "$dev" = sroce0 ] &&
		diag "counters: $(rdma statistic show link sroce0/1 | tr -s ' ')"
	return 0
}

for srv in a b; do
	who="server $([ $srv = a ] && echo rxe || echo sroce)"
	run $srv "ibv_rc_pingpong 4 KiB, $who" \
		ibv_rc_pingpong -d $dev -g 1 -s 4096 -n 100
	run $srv "ibv_rc_pingpong 1 MiB -e, $who" \
		ibv_rc_pingpong -d $dev -g 1 -s 1048576 -n 5 -e
	for t in send write read; do
		run $srv "ib_${t}_bw 64 KiB, $who" \
			ib_${t}_bw -d $dev -x 1 -F -s 65536 -n 100
	done
	run $srv "ibv_uc_pingpong 4 KiB -c, $who" \
		ibv_uc_pingpong -d $dev -g 1 -s 4096 -n 100 -c
	run $srv "ibv_uc_pingpong 64 KiB -c -e, $who" \
		ibv_uc_pingpong -d $dev -g 1 -s 65536 -n 20 -c -e
	run $srv "ib_write_lat 64 B, $who" \
		ib_write_lat -d $dev -x 1 -F -s 64 -n 100
	run $srv "ib_atomic_bw fetch-and-add, $who" \
		ib_atomic_bw -d $dev -x 1 -F -A FETCH_AND_ADD -n 200
	run $srv "ibv_rc_pingpong over IPv6 (link-local GID 0), $who" \
		ibv_rc_pingpong -d $dev -g 0 -s 4096 -n 50
done

# UD and the RDMA CM (the GSI QPs of both talk), each side serving once.
# cm SERVER_ROLE NAME PORT SERVER_CMD CLIENT_CMD
cm() {
	if pair_cm "$1" "$3" "$4" "$5"; then
		ktap_ok "$2"
	else
		ktap_fail "$2"
		app_failed
	fi
}
peer=$SROCE_PEER_IP
for srv in a b; do
	who="server $([ $srv = a ] && echo rxe || echo sroce)"
	run $srv "ibv_ud_pingpong 1 KiB -c, $who" \
		ibv_ud_pingpong -d $dev -g 1 -s 1024 -n 200 -c
	run $srv "ibv_srq_pingpong -q 4 -c, $who" \
		ibv_srq_pingpong -d $dev -g 1 -q 4 -n 100 -c
	cm $srv "rping -V 4 KiB, $who" 7174 \
		"rping -s -a 0.0.0.0 -p 7174 -V -C 20 -S 4096" \
		"rping -c -a $peer -p 7174 -V -C 20 -S 4096"
	cm $srv "ucmatose 2 connections, $who" 7471 \
		"ucmatose -p 7471 -c 2 -C 10" "ucmatose -s $peer -p 7471 -c 2 -C 10"
	cm $srv "udaddy 2 connections, $who" 7174 \
		"udaddy -c 2 -C 10" "udaddy -s $peer -c 2 -C 10"
done

# UCX both ways: UCP (wire-up over UD, data over RC) and io_demo's
# checked data. (Not UCT: ucx_perftest's client hands the server its
# device name, and the two sides' differ.) rdma_rxe reports 0 as a datagram's SL where
# RoCE hardware and sroce report the packet type, so UCX's UD transport
# on the rxe side cannot tell IPv4 from IPv6 and drops every datagram
# as misaddressed: on that side only, the check is off.
[ "$dev" = rxe0 ] && export UCX_UD_VERBS_ETH_DGID_CHECK=n
ucx_run_all $dev "a b" "^UCP (tag_lat|put_bw)"
unset UCX_UD_VERBS_ETH_DGID_CHECK

# rc_verify's data and atomic cases, each side as server once.
prog=$SROCE_SRC/selftests/sroce/rc_verify
for srv in a b; do
	who="server $([ $srv = a ] && echo rxe || echo sroce)"
	sync_peer "verify$srv"
	if [ "$SROCE_ROLE" = $srv ]; then
		"$prog" -d $dev -g 1 -s -t data,burst,atomic > /tmp/verify.log 2>&1
	else
		sleep 1
		"$prog" -d $dev -g 1 -c "$SROCE_PEER_IP" -t data,burst,atomic \
			> /tmp/verify.log 2>&1
	fi
	rc=$?
	ktap_import "rc_verify ($who)" /tmp/verify.log
	check "rc_verify ($who) exit status" test "$rc" -eq 0
done
sync_peer done
check "rdma link delete" rdma link delete $dev
ktap_end
