#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Network namespaces, in one guest (the RDMA core's shared mode, its
# default). Two namespaces joined by a veth pair, each with an sroce
# device made inside it ("ip netns exec NS rdma link add"): port 4791 is
# bound in a namespace exactly while it has a link, never in the initial
# one; RC (ibv_rc_pingpong), UD (ibv_ud_pingpong) and rdma_cm (rping)
# traffic between the two with data checked; a namespace deleted with
# its link ends the devices of both ends of the veth, leaks no socket
# and logs nothing; a link of type rxe (rxe_compat) in a namespace, as
# scripts written for rdma_rxe make them.
. "$(dirname "$0")/../lib.sh"

# nsx NS CMD...: run CMD in namespace NS
nsx() { ip netns exec "$@"; }

# gid_of NS DEV IP: DEV's GID index of IPv4 address IP, seen from NS
gid_of() {
	nsx "$1" ibv_devinfo -v -d "$2" |
		sed -n "s/.*GID\[ *\([0-9]*\)\]:.*::ffff:$3, RoCE v2.*/\1/p"
}

# port_bound NS: how many sockets of NS are bound to UDP port 4791
port_bound() { nsx "$1" ss -Huln 'sport = :4791' | wc -l; }
export -f nsx gid_of port_bound

# pair_ns CMD...: CMD as a server in ns1 and a client in ns2 to ns1's
# address; both must succeed. Output in /tmp/ns1.log and /tmp/ns2.log.
pair_ns() {
	local pid rc=0

	nsx ns1 timeout "$(app_timeout)" "$@" > /tmp/ns1.log 2>&1 &
	pid=$!
	wait_for 60 bash -c "nsx ns1 ss -Hltn | grep -q ':18515 '"
	nsx ns2 timeout "$(app_timeout)" "$@" 10.9.0.1 > /tmp/ns2.log 2>&1 ||
		rc=1
	wait "$pid" || rc=1
	[ "$rc" = 0 ] || tail -n 5 /tmp/ns1.log /tmp/ns2.log
	return "$rc"
}

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1

ip netns add ns1
ip netns add ns2
ip link add v1 netns ns1 type veth peer name v2 netns ns2
nsx ns1 ip addr add 10.9.0.1/24 dev v1
nsx ns2 ip addr add 10.9.0.2/24 dev v2
for n in 1 2; do
	nsx ns$n ip link set lo up
	nsx ns$n ip link set v$n up
done

check "modprobe rdma_sroce: no socket bound at load" \
	bash -c 'modprobe rdma_sroce && [ "$(ss -Huln "sport = :4791" | wc -l)" -eq 0 ]'
check "rdma link add in ns1, on ns1's v1" \
	nsx ns1 rdma link add s1 type sroce netdev v1
check "rdma link add in ns2, on ns2's v2" \
	nsx ns2 rdma link add s2 type sroce netdev v2
check_fails "rdma link add in ns1 on ns2's v2 (no such netdev there)" \
	nsx ns1 rdma link add s3 type sroce netdev v2
check "port 4791 bound in ns1 (IPv4 and IPv6)" \
	test "$(port_bound ns1)" -eq 2
check "port 4791 bound in ns2" test "$(port_bound ns2)" -eq 2
check "port 4791 not bound in the initial namespace" \
	test "$(ss -Huln 'sport = :4791' | wc -l)" -eq 0
check "s1's IPv4 GID, from v1's address in ns1" \
	wait_for 30 bash -c '[ -n "$(gid_of ns1 s1 10.9.0.1)" ]'
check "s2's IPv4 GID" wait_for 30 bash -c '[ -n "$(gid_of ns2 s2 10.9.0.2)" ]'
g1=$(gid_of ns1 s1 10.9.0.1)
g2=$(gid_of ns2 s2 10.9.0.2)
diag "GID indexes: s1 $g1, s2 $g2"

# The devices are in every namespace's view (shared mode); each side
# names its own with -d and its GID index with -g.
check "RC: ibv_rc_pingpong ns2 -> ns1, 4 KiB x 100, buffers checked" \
	pair_ns bash -c "
		[ \"\$(ip netns identify)\" = ns1 ] && d=s1 g=$g1 || d=s2 g=$g2
		exec ibv_rc_pingpong -d \$d -g \$g -s 4096 -n 100 -c -p 18515 \"\$@\"
	" rc
check "UD: ibv_ud_pingpong ns2 -> ns1, 1 KiB x 100, buffers checked" \
	pair_ns bash -c "
		[ \"\$(ip netns identify)\" = ns1 ] && d=s1 g=$g1 || d=s2 g=$g2
		exec ibv_ud_pingpong -d \$d -g \$g -s 1024 -n 100 -c -p 18515 \"\$@\"
	" ud
# rping: rdma_cm resolves each address in the caller's namespace
nsx ns1 timeout "$(app_timeout)" rping -s -a 10.9.0.1 -p 18516 -C 20 -V \
	> /tmp/rping1.log 2>&1 &
rping_srv=$!
wait_for 60 bash -c "rdma res show cm_id | grep -q 'LISTEN .*10.9.0.1:18516'"
check "rdma_cm: rping ns2 -> ns1, 20 verified transfers" \
	nsx ns2 timeout "$(app_timeout)" rping -c -a 10.9.0.1 -p 18516 -C 20 -V
wait "$rping_srv"
rc=$?
check "rping server done, exit $rc" test "$rc" -eq 0
[ "$rc" -eq 0 ] || sed 's/^/#   /' /tmp/rping1.log | tail -n 5
check "the packets went between the two devices" \
	test "$(hw_counter tx_packets s2)" -gt 200 -a \
	"$(hw_counter rx_packets s1)" -gt 200

# ns2 goes with its link and its veth end; v1 goes with it (its peer),
# and so s1; ns1 is left with no link and its port free.
check "ip netns delete ns2, its link alive" ip netns delete ns2
check "s2 is gone" wait_for 60 bash -c '! ibdev_exists s2'
check "s1 is gone with v1, its veth peer" wait_for 60 bash -c '! ibdev_exists s1'
check "ns1 binds port 4791 no more" \
	wait_for 30 bash -c '[ "$(port_bound ns1)" -eq 0 ]'

# A new veth in ns1: link, then namespace, deleted together.
ip link add v3 netns ns1 type veth peer name v4 netns ns1
check "rdma link add s3 in ns1" nsx ns1 rdma link add s3 type sroce netdev v3
check "ip netns delete ns1, its link alive" ip netns delete ns1
check "s3 is gone" wait_for 60 bash -c '! ibdev_exists s3'
check "rmmod rdma_sroce" rmmod rdma_sroce

# Scripts written for rdma_rxe make "type rxe" links inside namespaces.
ip netns add ns5
ip link add v5 netns ns5 type veth peer name v6 netns ns5
nsx ns5 ip link set v5 up
check "modprobe rdma_sroce rxe_compat=1" modprobe rdma_sroce rxe_compat=1
check "rdma link add type rxe in a namespace" \
	nsx ns5 rdma link add rxe5 type rxe netdev v5
check "port 4791 bound in ns5" test "$(port_bound ns5)" -eq 2
check "rdma link delete rxe5" nsx ns5 rdma link delete rxe5
check "ns5 binds port 4791 no more" \
	wait_for 30 bash -c '[ "$(port_bound ns5)" -eq 0 ]'
ip netns delete ns5
check "rmmod rdma_sroce" rmmod rdma_sroce
ktap_end
