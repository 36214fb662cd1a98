#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": rc_verify between the two guests' sroce devices (a
# serves, b drives): every operation and size class compared byte for
# byte, bursts, the RNR, retry-exceeded and remote-access error cases, the
# QP state machine (path MTU above the port's refused), unaligned MRs, CQ
# arming and resize, revoked rkeys staying dead.
# With SROCE_NETEM set (e.g. "loss 2% duplicate 1% delay 1ms reorder 25%")
# both NICs impair the wire first and only the data cases run; with
# SROCE_MTU set (256..4096) the NICs get MTU 9000 and the QPs that path MTU.
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0
cases=data,burst,sig,rnr,retry,access,qp,mr,cq,garbage,rkey
mtu=1024
if [ -n "${SROCE_MTU:-}" ]; then
	# Path MTU 4096 needs room for 4096 bytes of payload plus headers.
	check "netdev MTU 9000" ip link set eth0 mtu 9000
	check "active MTU 4096" wait_for 10 bash -c \
		'[ "$(port_attr sroce0 active_mtu)" = 4096 ]'
	mtu=$SROCE_MTU
	cases=data,burst
fi
if [ -n "${SROCE_NETEM:-}" ]; then
	modprobe sch_netem
	# shellcheck disable=SC2086
	check "netem on eth0: $SROCE_NETEM" \
		tc qdisc add dev eth0 root netem $SROCE_NETEM
	cases=data,burst
fi
sync_peer ready

prog=$SROCE_SRC/selftests/sroce/rc_verify
if [ "$SROCE_ROLE" = a ]; then
	"$prog" -d sroce0 -g 1 -m "$mtu" -s -t "$cases" > /tmp/verify.log 2>&1
else
	"$prog" -d sroce0 -g 1 -m "$mtu" -c "$SROCE_PEER_IP" -t "$cases" \
		> /tmp/verify.log 2>&1
fi
rc=$?
ktap_import rc_verify /tmp/verify.log
check "rc_verify exit status" test "$rc" -eq 0
diag "counters: $(rdma statistic show link sroce0/1 | tr -s ' ')"
sync_peer done
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
