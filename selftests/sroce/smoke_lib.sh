# SPDX-License-Identifier: GPL-2.0-only
#
# smoke_traffic DEV: the traffic of the smoke tests, between the two
# guests of a pair, each with DEV up on eth0, data checked everywhere:
# RC (rc_verify's data, burst and atomic cases), UD (ibv_ud_pingpong -c),
# rdma_cm (rping -V), NVMe over Fabrics (a writes nothing: it is the
# nvmet-rdma target; b connects, writes 8 MiB of random data, reads it
# back with O_DIRECT and compares). Sourced after lib.sh and nvme_lib.sh.

smoke_traffic() {
	local dev=$1 prog=$SROCE_SRC/selftests/sroce/rc_verify rc

	sync_peer smoke-up
	check "peer reachable" ping -c 2 -W 10 "$SROCE_PEER_IP"
	sync_peer smoke-ready
	if [ "$SROCE_ROLE" = a ]; then
		"$prog" -d "$dev" -g 1 -s -t data,burst,atomic \
			> /tmp/verify.log 2>&1
	else
		"$prog" -d "$dev" -g 1 -c "$SROCE_PEER_IP" \
			-t data,burst,atomic > /tmp/verify.log 2>&1
	fi
	rc=$?
	ktap_import rc_verify /tmp/verify.log
	check "RC: rc_verify exit status" test "$rc" -eq 0

	pair_app a 18801 ibv_ud_pingpong -d "$dev" -g 1 -s 1024 -n 200 -c
	app_report "UD: ibv_ud_pingpong 1 KiB, buffers checked" $?
	pair_cm a 7174 "rping -s -a 0.0.0.0 -p 7174 -V -C 20 -S 4096" \
		"rping -c -a $SROCE_PEER_IP -p 7174 -V -C 20 -S 4096"
	app_report "rdma_cm: rping -V 4 KiB" $?

	nvme_modules
	if [ "$SROCE_ROLE" = a ]; then
		check "NVMe-oF: nvmet-rdma target on port 4420" target_up
		sync_peer smoke-target
		sync_peer smoke-host-done 900
		check "NVMe-oF: target torn down" target_down
		check "NVMe-oF: rmmod nvmet-rdma nvmet" rmmod nvmet_rdma nvmet
	else
		sync_peer smoke-target
		check "NVMe-oF: nvme connect -t rdma" host_connect
		head -c 8M /dev/urandom > /tmp/smoke.src
		check "NVMe-oF: 8 MiB written, read back (O_DIRECT), equal" \
			bash -c 'dev=$(ns_dev) &&
				 dd if=/tmp/smoke.src of="$dev" bs=1M oflag=direct status=none &&
				 dd if="$dev" of=/tmp/smoke.dst bs=1M count=8 iflag=direct status=none &&
				 cmp /tmp/smoke.src /tmp/smoke.dst'
		check "NVMe-oF: nvme disconnect" nvme disconnect -n $NQN
		check "NVMe-oF: rmmod nvme-rdma" rmmod nvme_rdma
		sync_peer smoke-host-done
	fi
}
