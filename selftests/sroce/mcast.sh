#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": multicast over UD QPs through rdma_cm (mckey). a runs
# a receiver with two QPs joined to 239.1.2.3, b a receiver with one; once
# both hosts are members of the group (IGMP), b's sender sends 10
# datagrams, which every attached QP on both hosts must receive (b's own
# by sroce's local delivery: the stack does not loop multicast back to
# the RoCE socket). The groups are left once the programs exit. (The RDMA
# CM of 6.1 refuses IPv6 multicast joins on RoCE v2, so mckey cannot
# test IPv6 groups.) Then mcast_verify on a: a QP attached twice to one
# group is destroyed without detaching; one datagram to an IPv4 and to an
# IPv6 group reaches the sending device's attached QP exactly once.
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0
sync_peer up
check "peer reachable" ping -c 2 -W 10 "$SROCE_PEER_IP"

# member GROUP: this host's eth0 has joined GROUP
member() { ip maddr show dev eth0 | grep -q "$1"; }
export -f member

# mc NAME GROUP BIND RECV_A RECV_B: receivers with RECV_A / RECV_B
# connections (0: none) on a / b, then b sends 10 datagrams.
mc() {
	local name=$1 grp=$2 bind=$3 n rc=0 pid=

	n=$4
	[ "$SROCE_ROLE" = b ] && n=$5
	if [ "$n" -gt 0 ]; then
		timeout "$(app_timeout)" mckey -m "$grp" -b "$bind" -c "$n" \
			-C 10 > /tmp/recv.log 2>&1 &
		pid=$!
		check "$name: receiver member of $grp" wait_for 120 member "$grp"
	fi
	sync_peer "joined$name"
	if [ "$SROCE_ROLE" = b ]; then
		timeout "$(app_timeout)" mckey -m "$grp" -b "$bind" -s -C 10 \
			> /tmp/send.log 2>&1
		rc=$?
		check "$name: sender exit status" test "$rc" -eq 0 ||
			tail -n 10 /tmp/send.log | sed 's/^/#   /'
	fi
	if [ -n "$pid" ]; then
		wait "$pid"
		rc=$?
		if [ "$rc" -eq 0 ]; then
			ktap_ok "$name: $n receiver QP(s) got all 10 datagrams"
		else
			ktap_fail "$name: receiver (exit $rc)"
			tail -n 10 /tmp/recv.log | sed 's/^/#   /'
		fi
		check "$name: group left after the receiver exited" \
			wait_for 60 bash -c "! member $grp"
	fi
	sync_peer "done$name"
}

mc "IPv4" 239.1.2.3 "$SROCE_IP" 2 1

if [ "$SROCE_ROLE" = a ]; then
	check "no datagram for an unjoined group: rx_drop_mcast_no_group is 0" \
		test "$(hw_counter rx_drop_mcast_no_group)" -eq 0
	# mcast_verify: attachments counted, IPv4 and IPv6 local delivery
	g4=$(gid_index_v4 sroce0)
	timeout "$(app_timeout)" "$SROCE_SRC/selftests/sroce/mcast_verify" \
		-d sroce0 -4 "$g4" -6 0 > /tmp/mv.log 2>&1
	rc=$?
	ktap_import mcast_verify /tmp/mv.log
	check "mcast_verify exit status" test "$rc" -eq 0
fi
diag "counters: $(rdma statistic show link sroce0/1 | tr -s ' ')"
sync_peer done
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
