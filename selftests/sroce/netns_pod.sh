#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": each guest moves its NIC into a namespace "pod", as a
# container runtime hands a pod its interface, and makes its sroce
# device there. RC (ibv_rc_pingpong) and rdma_cm (rping) between the two
# pods, data checked. Then the pod is deleted with its link alive: the
# NIC goes home to the initial namespace, the device that was bound to
# it ends (the namespace's end waits for it), the pod's sockets close;
# a new link on the returned NIC carries RC traffic again. Last, a pod
# holding a macvlan child of the NIC (Kubernetes' shared-device
# pattern): RC between the two guests' pods over the macvlans; then the
# same over ipvlans.
. "$(dirname "$0")/../lib.sh"

pod() { ip netns exec pod "$@"; }

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
modprobe rdma_sroce

ip netns add pod
check "eth0 into the pod" ip link set eth0 netns pod
pod ip link set lo up
pod ip link set eth0 up
pod ip addr add "$SROCE_IP/24" dev eth0
check "rdma link add in the pod" pod rdma link add sroce0 type sroce netdev eth0
check "the pod's GID" wait_for 30 bash -c \
	"ip netns exec pod ibv_devinfo -v -d sroce0 | grep -q '::ffff:$SROCE_IP, RoCE v2'"
check "the pod binds port 4791, the host does not" \
	bash -c '[ "$(ip netns exec pod ss -Huln "sport = :4791" | wc -l)" -eq 2 ] &&
		 [ "$(ss -Huln "sport = :4791" | wc -l)" -eq 0 ]'

# pair_app's server waits for its port with ss in our namespace: serve
# from the pod, with the port polled there.
pod_app() { # SERVER_ROLE PORT CMD...
	local srv=$1 port=$2 pid rc

	shift 2
	if [ "$SROCE_ROLE" = "$srv" ]; then
		pod timeout "$(app_timeout)" "$@" -p "$port" > /tmp/app.log 2>&1 &
		pid=$!
		wait_for 60 bash -c "ip netns exec pod ss -ltn | grep -q ':$port '"
		sync_peer "start$port"
		wait "$pid"
		rc=$?
	else
		sync_peer "start$port"
		pod timeout "$(app_timeout)" "$@" -p "$port" "$SROCE_PEER_IP" \
			> /tmp/app.log 2>&1
		rc=$?
	fi
	sync_peer "end$port"
	return $rc
}

pod_app a 18991 ibv_rc_pingpong -d sroce0 -g 1 -s 4096 -n 200 -c
app_report "pod to pod: ibv_rc_pingpong 4 KiB x 200, buffers checked" $?

if [ "$SROCE_ROLE" = a ]; then
	pod timeout "$(app_timeout)" rping -s -a "$SROCE_IP" -p 18992 -C 20 -V \
		> /tmp/rping.log 2>&1 &
	pid=$!
	wait_for 60 bash -c "rdma res show cm_id | grep -q 'LISTEN .*:18992'"
	sync_peer rping
	wait "$pid"
	app_report "pod to pod: rping server, 20 verified transfers" $?
else
	sync_peer rping
	pod timeout "$(app_timeout)" rping -c -a "$SROCE_PEER_IP" -p 18992 \
		-C 20 -V > /tmp/app.log 2>&1
	app_report "pod to pod: rping client, 20 verified transfers" $?
fi
sync_peer rping-done

check "ip netns delete pod, its link alive" ip netns delete pod
check "eth0 is home" wait_for 60 ip link show eth0
check "the device bound to it ended" wait_for 60 bash -c '! ibdev_exists sroce0'
check "no socket left on port 4791" \
	test "$(ss -Huan 'sport = :4791' | wc -l)" -eq 0
ip link set eth0 up
ip addr replace "$SROCE_IP/24" dev eth0
sroce_link_up eth0 sroce0
sync_peer home
if pair_app a 18993 ibv_rc_pingpong -d sroce0 -g 1 -s 4096 -n 50 -c; then
	ktap_ok "at home again: ibv_rc_pingpong, buffers checked"
else
	ktap_fail "at home again: ibv_rc_pingpong, buffers checked"
	tail -n 5 /tmp/app.log | sed 's/^/#   /'
fi
check "rdma link delete" rdma link delete sroce0

# child_pod KIND MODE NET PORT: a pod holding a KIND child of eth0 (in
# mode MODE) with the address NET.1 (on a) or NET.2 (on b) and its own
# device there: ibv_rc_pingpong between the two guests' pods, buffers
# checked; the child and its device go with the pod. Without KIND in the
# kernel, the rest of the test is skipped.
child_pod() {
	local kind=$1 mode=$2 net=$3 port=$4 dev=${1:0:1}v0 a=a ip peer

	[ "${kind#[aeiou]}" != "$kind" ] && a=an
	if ! modprobe "$kind" 2> /dev/null; then
		ktap_skip "the $kind pod" "no $kind in $(uname -r)"
		rmmod rdma_sroce
		ktap_end
	fi
	ip netns add pod
	ip=$net.1 peer=$net.2
	[ "$SROCE_ROLE" = b ] && ip=$net.2 peer=$net.1
	check "$a $kind child of eth0 into the pod" bash -c \
		"ip link add $dev link eth0 type $kind mode $mode &&
		 ip link set $dev netns pod"
	pod ip link set lo up
	pod ip link set "$dev" up
	pod ip addr add "$ip/24" dev "$dev"
	check "rdma link add on the $kind, in the pod" \
		pod rdma link add "s$dev" type sroce netdev "$dev"
	check "its GID" wait_for 30 bash -c \
		"ip netns exec pod ibv_devinfo -v -d s$dev | grep -q '::ffff:$ip, RoCE v2'"
	SROCE_PEER_IP=$peer pod_app a "$port" \
		ibv_rc_pingpong -d "s$dev" -g 1 -s 4096 -n 100 -c
	app_report "$kind pod to $kind pod: ibv_rc_pingpong, buffers checked" $?
	check "ip netns delete pod: the $kind and its device go" bash -c \
		"ip netns delete pod && wait_for 60 bash -c '! ibdev_exists s$dev'"
}

# The Kubernetes shared-device pattern: the pod gets a macvlan child of
# the host's NIC (its own MAC and address), the host keeps the NIC.
child_pod macvlan bridge 10.77.0 18994
# The same with an ipvlan child (L2 mode): the pod shares the NIC's MAC
# and is told apart by its address, as CNIs that cannot add MACs do.
child_pod ipvlan l2 10.78.0 18995
check "rmmod" rmmod rdma_sroce
ktap_end
