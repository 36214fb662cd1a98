#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Two guests wired back to back (topology "pair"): each creates an sroce
# device on its NIC; each sees its own and the peer's address as RoCE v2
# GIDs on the right sides, and the IP path between them works.
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1

check "rdma link add sroce0 on eth0" \
	rdma link add sroce0 type sroce netdev eth0
check "port active" bash -c '[ "$(port_attr sroce0 state)" = PORT_ACTIVE ]'
check "own IPv4 address is a RoCE v2 GID" wait_for 30 bash -c \
	"ibv_devinfo -v -d sroce0 | grep -q '::ffff:$SROCE_IP, RoCE v2'"
sync_peer up
check "peer reachable over the wire" ping -c 3 -W 10 "$SROCE_PEER_IP"
sync_peer pinged
check "link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
