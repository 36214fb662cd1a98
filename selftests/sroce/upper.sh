#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": upper devices. Each guest's sroce0 is bound to eth0,
# which carries a VLAN, eth0.7, with an IPv4 and an IPv6 address. The
# RDMA core gives sroce0 the VLAN's GIDs (as a RoCE NIC has them); RC
# and UD traffic between those GIDs and rdma_cm (rping) between the
# VLAN's addresses, data checked, must come in and leave tagged,
# through eth0.7: its packet counters show it. Packets forged into an
# eth0 connection through eth0.7 are dropped. A VLAN moved into
# another namespace keeps its GIDs on sroce0 (the core adds them
# whatever the namespace) but is no path: a QP cannot use them, and
# nothing of it reaches sroce0's QPs. Last, the VLAN between sroce and
# rdma_rxe, each serving once.
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
if ! modprobe 8021q 2> /dev/null; then
	ktap_skip "the whole test" "no 8021q in $(uname -r)"
	ktap_end
fi
modprobe rdma_sroce

me=1 peer=2
[ "$SROCE_ROLE" = b ] && me=2 peer=1
check "VLAN 7 on eth0" bash -c \
	"ip link add link eth0 name eth0.7 type vlan id 7 &&
	 ip link set eth0.7 up &&
	 ip addr add 10.7.0.$me/24 dev eth0.7 &&
	 ip addr add fd07::$me/64 dev eth0.7 nodad"
sroce_link_up eth0 sroce0

# gid_index DEV ADDR: the index of DEV's RoCE v2 GID for ADDR
gid_index() {
	ibv_devinfo -v -d "$1" | awk -v a="$2," '$2 == a || $3 == a {
		sub(/.*GID\[ */, ""); sub(/\].*/, ""); print; exit }'
}
check "the VLAN's IPv4 and IPv6 GIDs on sroce0" wait_for 30 bash -c \
	"ibv_devinfo -v -d sroce0 | grep -q '::ffff:10.7.0.$me, RoCE v2' &&
	 ibv_devinfo -v -d sroce0 | grep -q 'fd07::$me, RoCE v2'"
g4=$(gid_index sroce0 "::ffff:10.7.0.$me")
g6=$(gid_index sroce0 "fd07::$me")
check "their netdev is eth0.7" bash -c \
	"[ \"\$(cat /sys/class/infiniband/sroce0/ports/1/gid_attrs/ndevs/$g4)\" = eth0.7 ] &&
	 [ \"\$(cat /sys/class/infiniband/sroce0/ports/1/gid_attrs/ndevs/$g6)\" = eth0.7 ]"
ping -c 1 -W 5 "10.7.0.$peer" > /dev/null 2>&1
ping -c 1 -W 5 "fd07::$peer" > /dev/null 2>&1

vlan_pkts() { # rx|tx: eth0.7's packet count
	cat "/sys/class/net/eth0.7/statistics/$1_packets"
}
# tagged NAME MIN RX0 TX0: eth0.7 took and sent at least MIN packets
tagged() {
	local rx=$(($(vlan_pkts rx) - $3)) tx=$(($(vlan_pkts tx) - $4))

	if [ "$rx" -ge "$2" ] && [ "$tx" -ge "$2" ]; then
		ktap_ok "$1: through eth0.7 ($rx in, $tx out)"
	else
		ktap_fail "$1: through eth0.7 ($rx in, $tx out, $2 each wanted)"
	fi
}

rx0=$(vlan_pkts rx) tx0=$(vlan_pkts tx)
pair_app a 18961 ibv_rc_pingpong -d sroce0 -g "$g4" -s 4096 -n 200 -c
app_report "RC over the VLAN's IPv4 GID: ibv_rc_pingpong 4 KiB x 200, buffers checked" $?
tagged "RC, IPv4" 200 "$rx0" "$tx0"

rx0=$(vlan_pkts rx) tx0=$(vlan_pkts tx)
pair_app a 18962 ibv_rc_pingpong -d sroce0 -g "$g6" -s 4096 -n 200 -c
app_report "RC over the VLAN's IPv6 GID: ibv_rc_pingpong 4 KiB x 200, buffers checked" $?
tagged "RC, IPv6" 200 "$rx0" "$tx0"

rx0=$(vlan_pkts rx) tx0=$(vlan_pkts tx)
pair_app a 18963 ibv_ud_pingpong -d sroce0 -g "$g4" -s 1024 -n 200 -c
app_report "UD over the VLAN's IPv4 GID: ibv_ud_pingpong 1 KiB x 200, buffers checked" $?
tagged "UD, IPv4" 200 "$rx0" "$tx0"

# rdma_cm resolves the VLAN's address to sroce0 and its GID; the CM's
# MADs go over the GSI QP, tagged, and its answers find the VLAN again
# from the completions (IB_WC_WITH_VLAN).
rx0=$(vlan_pkts rx) tx0=$(vlan_pkts tx)
for addr in 10.7.0 fd07:; do
	[ "$addr" = 10.7.0 ] && s=10.7.0.1 name=IPv4 port=18964
	[ "$addr" = fd07: ] && s=fd07::1 name=IPv6 port=18965
	pair_cm a "$port" \
		"rping -s -a $s -p $port -C 20 -V -S 4096" \
		"rping -c -a $s -p $port -C 20 -V -S 4096"
	app_report "rdma_cm over the VLAN, $name: rping, 20 verified transfers" $?
done
tagged "rdma_cm" 40 "$rx0" "$tx0"

drops="$(hw_counter rx_drop_address) $(hw_counter rx_drop_ud_dest) $(hw_counter tx_drop)"
check "no packet refused as not from its peer or not for us, none unsent ($drops)" \
	test "$drops" = "0 0 0"
sync_peer traffic-done

# Another link of the same port is another link: b forges Writes into
# the RC connection between the two eth0 GIDs with every field right
# (addresses, P_Key, PSN, rkey) but sends them tagged, through eth0.7
# (a host route on b; sroce's own packets keep to eth0, their path's
# link). a must drop each on the address check (rx_drop_address) and
# the stream's data must stay intact.
N=10
addr_grown() { [ $(($(hw_counter rx_drop_address) - $1)) -ge "$2" ]; }
stream_start
if [ "$SROCE_ROLE" = a ]; then
	addr0=$(hw_counter rx_drop_address)
	sync_peer forged
	check "forged through VLAN 7: rx_drop_address +$N" \
		wait_for 60 addr_grown "$addr0" $N
	sync_peer checked
else
	read -r qpn psn va rkey < /tmp/forge.info
	ip route add "$SROCE_PEER_IP/32" dev eth0.7
	check "forge $N from $SROCE_IP through eth0.7, as nobody" \
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		/usr/bin/python3 "$SROCE_SRC/selftests/sroce/roce_forge.py" \
		--dst "$SROCE_PEER_IP" --qpn "$qpn" --va "$va" --rkey "$rkey" \
		--src "$SROCE_IP" --psn "$psn" --count $N
	sync_peer forged
	sync_peer checked
	ip route del "$SROCE_PEER_IP/32" dev eth0.7
fi
stream_stop
sync_peer forge-done

# A VLAN in another namespace: its GIDs are no path of sroce0's.
ip netns add other
check "VLAN 8 into another namespace" bash -c \
	"ip link add link eth0 name eth0.8 type vlan id 8 &&
	 ip link set eth0.8 netns other &&
	 ip netns exec other ip link set eth0.8 up &&
	 ip netns exec other ip addr add 10.8.0.$me/24 dev eth0.8"
has_dyndbg=0
dyndbg on && has_dyndbg=1
if wait_for 10 bash -c \
	"ibv_devinfo -v -d sroce0 | grep -q '::ffff:10.8.0.$me, RoCE v2'"; then
	g8=$(gid_index sroce0 "::ffff:10.8.0.$me")
	# a serves and fails at RTR, before it answers; b then fails too
	dmesg -C
	if [ "$SROCE_ROLE" = a ]; then
		timeout 60 ibv_rc_pingpong -d sroce0 -g "$g8" -p 18966 \
			> /tmp/app.log 2>&1 &
		pid=$!
		wait_for 60 bash -c "ss -ltn | grep -q ':18966 '"
		sync_peer other
		wait "$pid"
		rc=$?
		check "a QP cannot take the other namespace's GID" bash -c \
			"[ $rc -ne 0 ] && grep -q 'to RTR' /tmp/app.log"
		if [ $has_dyndbg = 1 ]; then
			check "and the refusal says why (dynamic debug)" bash -c \
				"dmesg | grep -q 'GID $g8.s netdev is gone or in another namespace'"
		else
			ktap_skip "and the refusal says why" \
				"no dynamic debug in $(uname -r)"
		fi
	else
		sync_peer other
		timeout 60 ibv_rc_pingpong -d sroce0 -g "$g8" -p 18966 \
			"$SROCE_PEER_IP" > /tmp/app.log 2>&1
		check "no connection through the other namespace's GID" \
			test $? -ne 0
	fi
	sync_peer other-done
else
	ktap_skip "a QP cannot take the other namespace's GID" \
		"the RDMA core of $(uname -r) gave sroce0 no GID for it"
	sync_peer other
	sync_peer other-done
fi
dyndbg off
ip netns delete other


# The same VLAN against the kernel's rdma_rxe, the reference for the
# wire: b's device becomes rxe0, each side serves once.
if ! have_rxe; then
	ktap_skip "against rdma_rxe over the VLAN" "no rdma_rxe in $(uname -r)"
	dev=sroce0
elif [ "$SROCE_ROLE" = b ]; then
	check "sroce0 makes way for rdma_rxe" bash -c \
		'rdma link delete sroce0 && rmmod rdma_sroce && modprobe rdma_rxe'
	dev=rxe0
	check "rdma link add rxe0 type rxe netdev eth0" \
		rdma link add rxe0 type rxe netdev eth0
	check "rxe0 has the VLAN's GID" wait_for 30 bash -c \
		"ibv_devinfo -v -d rxe0 | grep -q '::ffff:10.7.0.$me, RoCE v2'"
else
	dev=sroce0
fi
if have_rxe; then
	g=$(gid_index "$dev" "::ffff:10.7.0.$me")
	for srv in a b; do
		who="server $([ $srv = a ] && echo sroce || echo rxe)"
		port=18971
		[ $srv = b ] && port=18972
		pair_app $srv $port \
			ibv_rc_pingpong -d "$dev" -g "$g" -s 4096 -n 100 -c
		app_report "against rdma_rxe over the VLAN: ibv_rc_pingpong, $who, buffers checked" $?
	done
	pair_cm a 18975 \
		"rping -s -a 10.7.0.1 -p 18975 -C 20 -V -S 4096" \
		"rping -c -a 10.7.0.1 -p 18975 -C 20 -V -S 4096"
	app_report "against rdma_rxe over the VLAN: rping, 20 verified transfers" $?
fi
if [ "$dev" = rxe0 ]; then
	check "rdma link delete rxe0" rdma link delete rxe0
	check "rmmod rdma_rxe" rmmod rdma_rxe
else
	check "rdma link delete" rdma link delete sroce0
	check "rmmod" rmmod rdma_sroce
fi
ktap_end
