#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What "make demo" runs in each of its two guests: bring up an sroce
# device on the NIC and show what stock rdma-core sees of it.
. "$SROCE_SRC/selftests/lib.sh"

set -e
sroce_install_module
sroce_setup_net
echo "== $SROCE_HOST ($SROCE_IP): rdma link add sroce0 type sroce netdev eth0"
rdma link add sroce0 type sroce netdev eth0
echo "== rdma link show"
rdma link show
echo "== ibv_devices"
ibv_devices
echo "== ibv_devinfo -d sroce0"
ibv_devinfo -d sroce0
echo "== GIDs"
ibv_devinfo -v -d sroce0 | grep 'GID\['
sync_peer up
echo "== ping $SROCE_PEER_IP"
ping -c 3 -W 10 "$SROCE_PEER_IP"
sync_peer done
rdma link delete sroce0
rmmod rdma_sroce
echo "== $SROCE_HOST: clean teardown"
