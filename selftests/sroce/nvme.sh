#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": NVMe over Fabrics on RDMA, the kernel's own storage
# consumers. Guest a is the target (nvmet-rdma exporting a file on tmpfs
# through configfs, port 4420), guest b the host (nvme-rdma, connected by
# nvme-cli with one read and one write I/O queue: two queues on a one-CPU
# guest). The host runs fio with --verify=crc32c: random 4 KiB and
# sequential 128 KiB writes, each read back and checked, then, after a
# disconnect and a new connection, the sequential data read and checked
# once more. nvme-rdma registers every I/O's pages with IB_WR_REG_MR and
# the target answers with Send with Invalidate, so this runs fast
# registration and remote invalidation under load.
#
# (tmpfs has no O_DIRECT on 6.1: the target does buffered I/O.)
#
# Rounds: sroce at both ends; rdma_rxe target with an sroce host; sroce
# target with an rdma_rxe host; sroce at both ends with 1% of the
# packets lost on each link (netem). Each round ends with the
# disconnect, the target torn down and the RDMA modules unloaded.
# timeout: 2400
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/nvme_lib.sh"

# fio: enough to keep queues full, small enough for a TCG guest
FIO_SIZE=${SROCE_NVME_FIO_SIZE:-16M}

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
nvme_modules

# link_up TYPE: this guest's RDMA device over eth0, of TYPE sroce or rxe
link_up() {
	sroce_link_up eth0 "$1"0
}

# link_down TYPE: remove the device and unload its module
link_down() {
	local mod=rdma_sroce

	[ "$1" = rxe ] && mod=rdma_rxe
	check "rdma link delete $1""0" rdma link delete "$1"0
	check "rmmod $mod" rmmod $mod
}

# fio_job NAME ARGS...: one verified fio job on the namespace
fio_job() {
	local name=$1

	shift
	timeout "$(app_timeout)" fio --name="$name" --filename="$(ns_dev)" \
		--ioengine=libaio --direct=1 --size="$FIO_SIZE" \
		--verify=crc32c --verify_fatal=1 --output=/tmp/fio.log "$@"
}

# round NAME TARGET_TYPE HOST_TYPE [LOSS]
round() {
	local name=$1 ttype=$2 htype=$3 loss=${4:-}
	local mine=$htype

	[ "$SROCE_ROLE" = a ] && mine=$ttype
	diag "round: $name"
	link_up "$mine"
	if [ -n "$loss" ]; then
		check "$name: netem loss $loss on eth0" \
			tc qdisc replace dev eth0 root netem loss "$loss"
	fi
	sync_peer "$name-up"
	check "$name: peer reachable" ping -c 2 -W 10 "$SROCE_PEER_IP"
	if [ "$SROCE_ROLE" = a ]; then
		check "$name: nvmet-rdma target on port 4420" target_up
		sync_peer "$name-target"
		sync_peer "$name-host-done" 1800
		check "$name: target torn down" target_down
	else
		sync_peer "$name-target"
		check "$name: nvme discover lists the subsystem" bash -c \
			"nvme discover -t rdma -a $SROCE_PEER_IP -s 4420 | grep -q $NQN"
		dmesg -C
		check "$name: nvme connect -t rdma (1 read, 1 write I/O queue)" \
			host_connect
		check "$name: two I/O queues created" bash -c \
			"dmesg | grep -q 'creating 2 I/O queues'"
		[ -n "$loss" ] && FIO_SIZE=8M	# 1% loss: slower
		check "$name: fio random 4 KiB write, read back, crc32c" \
			fio_job randw --rw=randwrite --bs=4k --iodepth=16
		check "$name: fio sequential 128 KiB write, read back, crc32c" \
			fio_job seqw --rw=write --bs=128k --iodepth=8 \
			--offset=32M
		check "$name: nvme disconnect" nvme disconnect -n $NQN
		check "$name: nvme connect again" host_connect
		check "$name: sequential data read again after reconnect" \
			fio_job seqw --rw=read --bs=128k --iodepth=8 \
			--offset=32M --verify_only=1
		check "$name: nvme disconnect" nvme disconnect -n $NQN
		if [ "$htype" = sroce ]; then
			check "$name: I/O registered by IB_WR_REG_MR, freed by Send with Invalidate" \
				bash -c '[ "$(hw_counter fast_regs)" -gt 0 ] &&
					 [ "$(hw_counter remote_invalidates)" -gt 0 ]'
		fi
		[ -s /tmp/fio.log ] && grep -E "IOPS|err=" /tmp/fio.log |
			head -n 4 | sed 's/^/# /'
		sync_peer "$name-host-done"
	fi
	[ -n "$loss" ] && tc qdisc del dev eth0 root
	diag "counters: $(rdma statistic show link "$mine"0/1 2>/dev/null |
			  tr -s ' ' | cut -c1-400)"
	link_down "$mine"
	sync_peer "$name-down"
}

# SROCE_NVME_ROUNDS picks rounds (check-kernel.sh --smoke runs "sroce");
# a kernel without rdma_rxe (Debian's cloud kernels) skips its rounds.
for r in ${SROCE_NVME_ROUNDS:-sroce rxe-target rxe-host lossy}; do
	case $r in
	rxe-*)
		if ! have_rxe; then
			ktap_skip "$r" "no rdma_rxe in $(uname -r)"
			continue
		fi ;;
	esac
	case $r in
	sroce) round sroce sroce sroce ;;
	rxe-target) round rxe-target rxe sroce ;;
	rxe-host) round rxe-host sroce rxe ;;
	lossy) round lossy sroce sroce 1% ;;
	esac
done
if [ "$SROCE_ROLE" = a ]; then
	check "rmmod nvmet-rdma nvmet" rmmod nvmet_rdma nvmet
else
	check "rmmod nvme-rdma" rmmod nvme_rdma
fi
ktap_end
