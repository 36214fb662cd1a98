#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": NFS over RDMA, the kernel's file service. Guest a
# exports a tmpfs (NFSv4.2, nfsd with its RDMA listener on port 20049:
# svcrdma, which moves data with RDMA Read and Write through rdma_rw);
# guest b mounts it with "-o rdma,port=20049" (xprtrdma, which registers
# its buffers with IB_WR_REG_MR). The client writes files of several
# sizes, the server checks what it holds, the client remounts (a cold
# cache), reads them back and compares checksums, then unmounts; both
# sides unload the RPC/RDMA module and their RDMA device.
#
# Rounds: sroce at both ends; an rdma_rxe server with an sroce client;
# an sroce server with an rdma_rxe client.
# timeout: 1500
. "$(dirname "$0")/../lib.sh"

EXPORT=/srv/nfs
MNT=/mnt/nfs
SIZES="1 4095 65536 1048577 8388608"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
modprobe -a nfsd rpcrdma
mkdir -p $EXPORT $MNT /var/lib/nfs/v4recovery
if [ "$SROCE_ROLE" = a ]; then
	mount -t tmpfs tmpfs $EXPORT
	mount -t nfsd nfsd /proc/fs/nfsd
	echo "$EXPORT *(rw,no_root_squash,insecure,fsid=0)" > /etc/exports
	rpcbind -w
	exportfs -ra
	rpc.mountd
fi

server_up() {
	modprobe rpcrdma || return 1
	rpc.nfsd 2 || return 1
	echo "rdma 20049" > /proc/fs/nfsd/portlist
	grep -q "rdma 20049" /proc/fs/nfsd/portlist
}

nfs_mount() {
	timeout "$(app_timeout)" mount -t nfs4 -o rdma,port=20049,vers=4.2 \
		"$SROCE_PEER_IP:/" $MNT
}

remount() {
	umount $MNT && nfs_mount
}

# round NAME SERVER_TYPE CLIENT_TYPE
round() {
	local name=$1 stype=$2 ctype=$3 mine=$3 s ok

	[ "$SROCE_ROLE" = a ] && mine=$stype
	diag "round: $name"
	sroce_link_up eth0 "$mine"0
	modprobe rpcrdma
	sync_peer "$name-up"
	check "$name: peer reachable" ping -c 2 -W 10 "$SROCE_PEER_IP"
	if [ "$SROCE_ROLE" = a ]; then
		check "$name: nfsd, RDMA listener on port 20049" server_up
		sync_peer "$name-server"
		# the client writes, then the server checks what it holds
		sync_peer "$name-written" 1200
		for s in $SIZES; do
			sha256sum "$EXPORT/f$s" | cut -d' ' -f1 \
				> "$SROCE_SYNC/a.$name.sum$s"
		done
		sync_peer "$name-summed"
		sync_peer "$name-done" 1200
		check "$name: nfsd stopped" rpc.nfsd 0
		rm -f $EXPORT/f*
	else
		sync_peer "$name-server"
		check "$name: mount -t nfs4 -o rdma,port=20049" nfs_mount
		check "$name: the mount runs over RDMA" bash -c \
			"grep ' $MNT ' /proc/mounts | grep -q 'proto=rdma'"
		ok=1
		for s in $SIZES; do
			head -c "$s" /dev/urandom > "/tmp/f$s"
			sha256sum "/tmp/f$s" | cut -d' ' -f1 > "/tmp/sum$s"
			timeout "$(app_timeout)" cp "/tmp/f$s" "$MNT/f$s" || ok=0
		done
		check "$name: files of $SIZES bytes written" test $ok -eq 1
		check "$name: sync" timeout "$(app_timeout)" sync
		sync_peer "$name-written"
		sync_peer "$name-summed"
		for s in $SIZES; do
			check "$name: the server holds the $s bytes, checksum compared" \
				cmp -s "/tmp/sum$s" "$SROCE_SYNC/a.$name.sum$s"
		done
		# read back through RDMA, not from this guest's page cache
		check "$name: remount (cold cache)" remount
		echo 3 > /proc/sys/vm/drop_caches
		for s in $SIZES; do
			check "$name: $s bytes read back, checksum compared" \
				bash -c "timeout $(app_timeout) sha256sum $MNT/f$s |
					 cut -d' ' -f1 | cmp -s - /tmp/sum$s"
		done
		check "$name: umount" umount $MNT
		if [ "$mine" = sroce ]; then
			check "$name: xprtrdma registered by IB_WR_REG_MR" \
				test "$(hw_counter fast_regs)" -gt 0
		fi
		sync_peer "$name-done"
	fi
	# the transports go with the device: unload, then remove it
	check "$name: rmmod rpcrdma" wait_for 60 rmmod rpcrdma
	diag "counters: $(rdma statistic show link "$mine"0/1 | tr -s ' ')"
	check "$name: rdma link delete" rdma link delete "$mine"0
	check "$name: rmmod rdma_$mine" rmmod rdma_"$mine"
	sync_peer "$name-down"
}

round sroce sroce sroce
if have_rxe; then
	round rxe-server rxe sroce
	round rxe-client sroce rxe
else
	ktap_skip "rounds with rdma_rxe" "no rdma_rxe in $(uname -r)"
fi
ktap_end
