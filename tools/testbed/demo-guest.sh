#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What "make demo" runs in each of its two guests: bring up an sroce
# device on the NIC, show what stock rdma-core sees of it, and move data
# between the guests with ibv_rc_pingpong and perftest's ib_write_bw.
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

# pair NAME CMD...: guest a serves CMD, guest b runs it against a.
pair() {
	local name=$1
	shift
	echo "== $name"
	if [ "$SROCE_ROLE" = a ]; then
		"$@" &
		local pid=$!
		wait_for 60 bash -c "ss -ltn | grep -q ':18515 '"
		sync_peer "$name"
		wait "$pid"
	else
		sync_peer "$name"
		"$@" "$SROCE_PEER_IP"
	fi
}
pair pingpong ibv_rc_pingpong -d sroce0 -g 1 -s 4096 -n 100
sync_peer pingpong-done
pair write_bw ib_write_bw -d sroce0 -x 1 -F -s 65536 -n 200
sync_peer done
rdma link delete sroce0
rmmod rdma_sroce
echo "== $SROCE_HOST: clean teardown"
