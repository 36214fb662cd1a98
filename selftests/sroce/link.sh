#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Device lifecycle: "rdma link add/delete" on every kind of netdev we
# support, what stock rdma-core sees of the device, and the bad inputs
# that must be refused with an error (and no kernel warning).
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
modprobe veth
modprobe 8021q
ip link add va type veth peer name vb
ip link set va up
ip link set vb up
ip link add link eth0 name eth0.7 type vlan id 7
ip link set eth0.7 up

check "modprobe rdma_sroce" modprobe rdma_sroce

# One device per kind of netdev: loopback, veth, VLAN, the virtio NIC.
for nd in lo va eth0.7 eth0; do
	dev=s_$(echo "$nd" | tr -c 'a-z0-9\n' _)
	check "link add on $nd" rdma link add "$dev" type sroce netdev "$nd"
done

check "rdma link show names the netdev" \
	bash -c 'rdma link show s_eth0/1 | grep -q "netdev eth0"'
check "ibv_devices lists all four" \
	bash -c '[ $(ibv_devices | grep -c "s_") -eq 4 ]'
check "ibv_devinfo -v works" ibv_devinfo -v -d s_eth0
check "transport and link layer" \
	bash -c 'ibv_devinfo -v -d s_eth0 | grep -q "transport:.*InfiniBand" &&
		 ibv_devinfo -d s_eth0 | grep -q "link_layer:.*Ethernet"'
check "rxe provider bound (driver_id)" \
	bash -c 'rdma dev show s_eth0 | grep -q "node_type ca" &&
		 cat /sys/class/infiniband_verbs/uverbs*/abi_version | grep -qx 2'

want=$(mac_to_guid "$SROCE_MAC")
check "node GUID is the MAC's EUI-64" \
	bash -c "[ \"\$(cat /sys/class/infiniband/s_eth0/node_guid)\" = '$want' ]"
check "parent attribute" \
	bash -c '[ "$(cat /sys/class/infiniband/s_eth0/parent)" = eth0 ]'
check "port active on the virtio NIC" \
	bash -c '[ "$(port_attr s_eth0 state)" = PORT_ACTIVE ]'

# A verb's refusal says why under dynamic debug: a CQ over the limit.
dmesg -C
has_dyndbg=0
dyndbg on && has_dyndbg=1
check_fails "a CQ of 40001 entries refused" \
	ibv_rc_pingpong -d s_eth0 -g 1 -r 40000 -p 18001
if [ $has_dyndbg = 1 ]; then
	check "and the log says why" bash -c \
		"dmesg | grep -q 'create_cq: 40001 entries (1 to 32767)'"
	dyndbg off
else
	ktap_skip "and the log says why" "no dynamic debug in $(uname -r)"
fi

# Bad inputs: each must fail cleanly.
check_fails "unknown netdev refused" \
	rdma link add s_bad type sroce netdev nosuchdev
check_fails "duplicate device name refused" \
	rdma link add s_eth0 type sroce netdev vb
check_fails "second device on one netdev refused" \
	rdma link add s_again type sroce netdev va
modprobe tun
ip tuntap add dev tun0 mode tun
modprobe ipip
ip link add ipip0 type ipip local 10.11.0.1 remote 10.11.0.2
check_fails "tun device refused" rdma link add s_tun type sroce netdev tun0
check_fails "ipip device refused" rdma link add s_ipip type sroce netdev ipip0
check "the log says why (no Ethernet framing)" bash -c \
	'dmesg | grep -q "tun0 is not an Ethernet device (type 65534): RoCE needs Ethernet frames" &&
	 dmesg | grep -q "ipip0 is not an Ethernet device (type 768)"'
check_fails "deleting an unknown name refused" rdma link delete s_nosuch
check "no device left behind by refusals" \
	bash -c '! ls /sys/class/infiniband | grep -Eq "s_(bad|again|tun|ipip)"'

# Delete each; the name becomes free again and can be reused.
for nd in lo va eth0.7 eth0; do
	dev=s_$(echo "$nd" | tr -c 'a-z0-9\n' _)
	check "link delete $dev" rdma link delete "$dev"
	check "$dev gone" bash -c "! ibdev_exists $dev"
done
check "name reusable after delete" rdma link add s_lo type sroce netdev lo
check "delete again" rdma link delete s_lo

# Netdev unregistration removes the device (queued in the core).
check "link add on va" rdma link add s_va type sroce netdev va
ip link del va
check "device gone with its netdev" wait_for 20 bash -c '! ibdev_exists s_va'

check "rmmod" rmmod rdma_sroce
ktap_end
