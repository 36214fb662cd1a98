# SPDX-License-Identifier: GPL-2.0-only
#
# NVMe over Fabrics on RDMA, for the tests that run it (nvme.sh, the
# smoke tests): an nvmet-rdma target exporting a 64 MiB file through
# configfs on port 4420, and the host's connect. Sourced after lib.sh.

NQN=nqn.2026-12.org.sroce:test
CFS=/sys/kernel/config/nvmet
IMG=/tmp/nvme.img

nvme_modules() {
	modprobe -a nvmet nvmet-rdma nvme-rdma 2>/dev/null
	mount -t configfs none /sys/kernel/config 2>/dev/null
	return 0
}

target_up() {
	truncate -s 64M $IMG
	mkdir $CFS/subsystems/$NQN &&
	echo 1 > $CFS/subsystems/$NQN/attr_allow_any_host &&
	mkdir $CFS/subsystems/$NQN/namespaces/1 &&
	echo -n $IMG > $CFS/subsystems/$NQN/namespaces/1/device_path &&
	echo 1 > $CFS/subsystems/$NQN/namespaces/1/buffered_io &&
	echo 1 > $CFS/subsystems/$NQN/namespaces/1/enable &&
	mkdir $CFS/ports/1 &&
	echo rdma > $CFS/ports/1/addr_trtype &&
	echo ipv4 > $CFS/ports/1/addr_adrfam &&
	echo "$SROCE_IP" > $CFS/ports/1/addr_traddr &&
	echo 4420 > $CFS/ports/1/addr_trsvcid &&
	ln -s $CFS/subsystems/$NQN $CFS/ports/1/subsystems/$NQN
}

target_down() {
	rm -f $CFS/ports/1/subsystems/$NQN &&
	rmdir $CFS/ports/1 &&
	echo 0 > $CFS/subsystems/$NQN/namespaces/1/enable &&
	rmdir $CFS/subsystems/$NQN/namespaces/1 &&
	rmdir $CFS/subsystems/$NQN &&
	rm -f $IMG
}

# The namespace's block device (native multipath: nvmeXnY, the
# subsystem's; the per-path nvmeXcZnY has no node). The guest has no
# other NVMe device.
ns_dev() {
	local b

	b=$(ls /sys/block | grep -E '^nvme[0-9]+n[0-9]+$' | head -n 1)
	[ -n "$b" ] && echo "/dev/$b"
}
export -f ns_dev

# The keep-alive timeout is generous (-k 60; nvme-cli's default is 5 s):
# 6.1's host sends no keep-alive until every I/O queue is connected, and
# the target gives up on a controller 5 s after its last admin command.
# One CM MAD lost on a lossy link costs more than that before ib_cm
# resends it (its timeout comes from the CM response timeout, 4.3 s,
# and twice the packet lifetime), and a TCG guest on a busy host is
# slow to begin with: a deadline, not the thing tested.
host_connect() {
	nvme connect -t rdma -a "$SROCE_PEER_IP" -s 4420 -n $NQN -i 1 -W 1 \
		-k 60 &&
	wait_for 120 bash -c '[ -b "$(ns_dev)" ]'
}
