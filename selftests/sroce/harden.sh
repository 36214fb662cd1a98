#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": what an attacker review and standard programs found.
#
# Guest a runs harden_verify's verbs checks (a flow label of ~0, as UCX
# passes, taken by create_ah and modify_qp; a Send doorbell on a QP in
# RESET refused; QP numbers not reused at once), then a UD QP that must
# receive exactly two datagrams while these are forged at it with
# ordinary UDP sockets by unprivileged processes:
#   - from b, to the segment's broadcast address and to 224.0.0.1
#     (all hosts): not for a UD QP, dropped (rx_drop_ud_dest);
#   - from a process on a itself, to a's own address: it comes through
#     the stack's loopback, which sroce never uses for its own packets
#     (it delivers them inside), so it is dropped (rx_drop_loopback);
#   - from b as root through a raw socket, to a's unicast address but
#     from the segment's broadcast address, to which an answer would go
#     to every host: dropped (rx_drop_ud_dest);
#   - from b, to a's unicast address: the control, received;
# and then its own datagram to its own address, delivered inside the
# host (tx_local_packets), received.
. "$(dirname "$0")/../lib.sh"

N=5
BCAST=10.11.0.255

counter() {
	rdma statistic show link sroce0/1 |
		awk -v c="$1" '{ for (i = 1; i < NF; i++) if ($i == c) print $(i + 1) }'
}
export -f counter

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0

prog=$SROCE_SRC/selftests/sroce/harden_verify
forge_ud=(/usr/bin/python3 "$SROCE_SRC/selftests/sroce/roce_forge.py"
	  --op ud --qkey 0x11111111 --sqpn 77 --psn 0 --len 64)
forge=(setpriv --reuid=nobody --regid=nogroup --clear-groups "${forge_ud[@]}")
info=$SROCE_SYNC/ud.info
go=$SROCE_SYNC/ud.go
if [ "$SROCE_ROLE" = a ]; then
	# The kernel's default: with reverse-path filtering on, the stack
	# itself drops the packet from a broadcast source.
	sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.eth0.rp_filter=0
	"$prog" -d sroce0 -g 1 verbs > /tmp/verbs.log 2>&1
	ktap_import verbs /tmp/verbs.log
	dest0=$(counter rx_drop_ud_dest)
	loop0=$(counter rx_drop_loopback)
	local0=$(counter tx_local_packets)
	"$prog" -d sroce0 -g 1 -f "$info.tmp" -w "$go" ud > /tmp/ud.log 2>&1 &
	pid=$!
	check "UD receiver ready" wait_for 120 test -s "$info.tmp"
	mv "$info.tmp" "$info"
	read -r qpn < "$info"
	sync_peer forged_remote
	check "forge $N to own address through lo, as nobody" "${forge[@]}" \
		--src "$SROCE_IP" --dst "$SROCE_IP" --qpn "$qpn" --count $N \
		--fill 0xee
	check "rx_drop_loopback +$N" wait_for 30 bash -c \
		"[ \$((\$(counter rx_drop_loopback) - $loop0)) -eq $N ]"
	sync_peer control
	sync_peer sent
	touch "$go"
	wait "$pid"
	ktap_import ud /tmp/ud.log
	check "rx_drop_ud_dest +$((3 * N)) (broadcast, all-hosts, broadcast source)" \
		test $(($(counter rx_drop_ud_dest) - dest0)) -eq $((3 * N))
	check "rx_drop_loopback went up by exactly $N" \
		test $(($(counter rx_drop_loopback) - loop0)) -eq $N
	check "own datagram delivered inside (tx_local_packets +1)" \
		test $(($(counter tx_local_packets) - local0)) -eq 1
	sync_peer done
else
	check "a's UD QP known" wait_for 300 test -s "$info"
	read -r qpn < "$info"
	check "forge $N to broadcast $BCAST, as nobody" "${forge[@]}" \
		--broadcast --src "$SROCE_IP" --dst "$BCAST" --qpn "$qpn" \
		--count $N --fill 0xbb
	check "forge $N to 224.0.0.1, as nobody" "${forge[@]}" \
		--src "$SROCE_IP" --dst 224.0.0.1 --qpn "$qpn" --count $N \
		--fill 0xcc
	check "forge $N from broadcast source $BCAST, raw socket" \
		"${forge_ud[@]}" --raw --src "$BCAST" --dst "$SROCE_PEER_IP" --qpn "$qpn" --count $N \
		--fill 0xdd
	sync_peer forged_remote
	sync_peer control
	check "forge 1 to a's address (the control), as nobody" "${forge[@]}" \
		--src "$SROCE_IP" --dst "$SROCE_PEER_IP" --qpn "$qpn" --fill 0x5a
	sync_peer sent
	sync_peer done
fi
check "link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
