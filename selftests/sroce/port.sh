#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Port state follows the netdev: carrier and admin state (with port
# events delivered to userspace), active MTU from the netdev MTU, and a
# GID table that tracks the netdev's IPv4/IPv6 addresses; RC traffic over
# IPv6 on a veth, whose headroom is an Ethernet header's only.
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
make_veth
modprobe rdma_sroce
check "link add on va" rdma link add s_va type sroce netdev va

state() { port_attr s_va state; }
phys() { ibv_devinfo -v -d s_va | awk '$1 == "phys_state:" { print $2 }'; }
export -f state phys

check "port active with carrier" bash -c '[ "$(state)" = PORT_ACTIVE ]'
check "phys state LINK_UP" bash -c '[ "$(phys)" = LINK_UP ]'

stdbuf -oL ibv_asyncwatch -d s_va > /tmp/events 2>&1 &
watcher=$!
# The watcher has its context once it prints its event FD.
wait_for 20 grep -q "async event FD" /tmp/events

ip link set vb down
check "peer down: port DOWN" wait_for 20 bash -c '[ "$(state)" = PORT_DOWN ]'
check "peer down: phys state POLLING" bash -c '[ "$(phys)" = POLLING ]'
check "PORT_ERR event delivered" \
	wait_for 20 grep -q "IBV_EVENT_PORT_ERR" /tmp/events
ip link set vb up
check "peer up: port ACTIVE" wait_for 20 bash -c '[ "$(state)" = PORT_ACTIVE ]'
check "PORT_ACTIVE event delivered" \
	wait_for 20 grep -q "IBV_EVENT_PORT_ACTIVE" /tmp/events
ip link set va down
check "admin down: port DOWN" wait_for 20 bash -c '[ "$(state)" = PORT_DOWN ]'
check "admin down: phys state DISABLED" bash -c '[ "$(phys)" = DISABLED ]'
check "second PORT_ERR event" \
	wait_for 20 bash -c '[ $(grep -c IBV_EVENT_PORT_ERR /tmp/events) -eq 2 ]'
ip link set va up
check "admin up: port ACTIVE" wait_for 20 bash -c '[ "$(state)" = PORT_ACTIVE ]'
check "one event per change, no more" \
	wait_for 20 bash -c '[ $(grep -c IBV_EVENT_PORT_ACTIVE /tmp/events) -eq 2 ]'
kill "$watcher"
diag "events seen: $(grep -c event_type /tmp/events)"

# Active MTU: the largest IB MTU whose packets fit, headers included.
for pair in 1500:1024 9000:4096 4180:4096 4179:2048 1107:512 1108:1024 \
	    600:512 595:256; do
	m=${pair%%:*}
	want=${pair##*:}
	ip link set va mtu "$m"
	check "netdev MTU $m gives active_mtu $want" \
		bash -c "[ \"\$(port_attr s_va active_mtu)\" = $want ]"
done

ip link set va mtu 1500
# GIDs as ibv_devinfo -v lists them: "GID[  1]:  ::ffff:10.20.0.1, RoCE v2"
gids() { ibv_devinfo -v -d s_va | sed -n 's/^[[:space:]]*GID\[ *[0-9]*\]:[[:space:]]*//p'; }
export -f gids

guid=$(cat /sys/class/infiniband/s_va/node_guid | tr -d ':' |
	sed 's/\(....\)\(....\)\(....\)\(....\)/\1:\2:\3:\4/;s/\(^\|:\)0*\([0-9a-f]\)/\1\2/g')
check "default GID is fe80:: + node GUID, RoCE v2" \
	bash -c "gids | grep -qx 'fe80::$guid, RoCE v2'"

ip addr add 10.20.0.1/24 dev va
check "IPv4 address adds a RoCE v2 GID" \
	wait_for 20 bash -c "gids | grep -qx '::ffff:10.20.0.1, RoCE v2'"
ip addr del 10.20.0.1/24 dev va
check "IPv4 address removal drops its GID" \
	wait_for 20 bash -c "! gids | grep -q '::ffff:10.20.0.1,'"

ip -6 addr add fd00::1/64 dev va nodad
check "IPv6 address adds a RoCE v2 GID" \
	wait_for 20 bash -c "gids | grep -qx 'fd00::1, RoCE v2'"
# RoCE over IPv6 on a netdev that asks for no headroom beyond its
# Ethernet header (veth): the IPv6 and UDP headers must still fit in
# front of each packet (a debug kernel's KASAN sees a write below the
# skb's head). Two QPs of s_va, through its own address, data checked.
gid6=$(ibv_devinfo -v -d s_va |
	sed -n 's/^[[:space:]]*GID\[ *\([0-9]*\)\]:[[:space:]]*fd00::1, RoCE v2$/\1/p')
ibv_rc_pingpong -d s_va -g "$gid6" -s 4096 -n 50 -c -p 18999 \
	> /tmp/pp6.log 2>&1 &
server=$!
wait_for 20 bash -c "ss -ltn | grep -q ':18999 '"
check "IPv6 RC Sends over a veth (GID $gid6), data checked" \
	timeout 300 ibv_rc_pingpong -d s_va -g "$gid6" -s 4096 -n 50 -c \
		-p 18999 localhost
wait "$server"
rc=$?
check "IPv6 RC Sends over a veth: server exit status ($rc)" test "$rc" -eq 0
ip -6 addr del fd00::1/64 dev va
check "IPv6 address removal drops its GID" \
	wait_for 20 bash -c "! gids | grep -q '^fd00::1,'"
check "only RoCE v2 GIDs (no RoCE v1)" bash -c "! gids | grep -q 'RoCE v1'"
diag "GIDs: $(gids | tr '\n' ';')"

check "link delete" rdma link delete s_va
check "rmmod" rmmod rdma_sroce
ktap_end
