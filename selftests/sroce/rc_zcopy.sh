#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": zero-copy transmit with someone holding on to the
# packets. b's sroce0 sits on a bridge over eth0 (and a dummy port), so
# its netdev does scatter-gather and the default zcopy=auto sends
# payloads as the MRs' pages (eth0 alone, QEMU's socket NIC, does not).
# While rc_verify's data and burst cases run (b sends every size class
# from MRs it refills between cases), a packet socket on br0 queues a
# clone of every packet b sends and reads them only at the end
# (roce_capture.py): each outgoing RoCE packet must still carry a valid
# ICRC, so the socket got the pages as they were when the packet left,
# not as the application rewrote them since (the QP's ubuf_info makes
# the stack copy them out). The data itself is compared by rc_verify.
# Then a peer that acknowledges early (zc_verify -t early): b's packets
# wait in a slow tbf on br0 while a forges an ACK of b's whole 16 KiB
# Send as soon as it is posted; b rewrites its buffer the moment the
# Send completes. The completion must wait for the last packet to leave
# with the bytes as posted: a receives every byte as posted, and the
# capture still sees no packet whose ICRC does not match.
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
if [ "$SROCE_ROLE" = b ]; then
	ip link add br0 type bridge &&
		ip link add zc0 type dummy &&
		ip link set eth0 master br0 &&
		ip link set zc0 master br0 &&
		ip addr flush dev eth0 &&
		ip addr add "$SROCE_IP/24" dev br0 &&
		ip link set zc0 up &&
		ip link set br0 up
	check "bridge br0 over eth0 and a dummy port" test $? -eq 0
	check "br0 does scatter-gather" test "$(netdev_sg br0)" = on
	sroce_link_up br0 sroce0
	check "zcopy by default: auto" test \
		"$(cat /sys/module/rdma_sroce/parameters/zcopy)" = auto
	rm -f /tmp/capture.ready /tmp/capture.stop
	/usr/bin/python3 "$SROCE_SRC/selftests/sroce/roce_capture.py" \
		--dev br0 --ready /tmp/capture.ready --stop /tmp/capture.stop \
		> /tmp/capture.log 2>&1 &
	capture=$!
	check "packet socket open on br0" wait_for 60 test -e /tmp/capture.ready
	sync_peer up
	# QPs resolve the peer's MAC at RTR, and the RDMA core gives up
	# sooner than a TCG guest may answer: warm the neighbour cache.
	check "peer reachable over br0" ping -c 2 -W 10 "$SROCE_PEER_IP"
else
	sroce_link_up eth0 sroce0
	sync_peer up
fi
sync_peer ready

prog=$SROCE_SRC/selftests/sroce/rc_verify
if [ "$SROCE_ROLE" = a ]; then
	"$prog" -d sroce0 -g 1 -s -t data,burst > /tmp/verify.log 2>&1
else
	"$prog" -d sroce0 -g 1 -c "$SROCE_PEER_IP" -t data,burst \
		> /tmp/verify.log 2>&1
fi
rc=$?
ktap_import rc_verify /tmp/verify.log
check "rc_verify exit status" test "$rc" -eq 0

# The early ACK. The TCP exchange of the QPs runs before b's packets
# queue; the ACK's target, b's QPN and last PSN, passes through the
# shared directory, which the qdisc does not slow down.
zc=$SROCE_SRC/selftests/sroce/zc_verify
peer_file=$SROCE_SYNC/zc_early.peer
if [ "$SROCE_ROLE" = b ]; then
	check "tbf at 20 kbit/s on br0" \
		tc qdisc add dev br0 root tbf rate 20kbit burst 4kb limit 4mb
	sync_peer early
	"$zc" -t early -c "$SROCE_PEER_IP" -o "$peer_file" -l 16384 \
		> /tmp/early.log 2>&1
	rc=$?
	ktap_import zc_verify /tmp/early.log
	check "zc_verify exit status" test "$rc" -eq 0
	diag "early: stale $(hw_counter stale_responses), ghost $(hw_counter ghost_responses), zcopy $(hw_counter tx_zcopy_packets)"
	check "tbf removed" tc qdisc del dev br0 root
else
	rm -f "$peer_file"
	# the forger waits for the file, started already: it fires at once
	/usr/bin/python3 "$SROCE_SRC/selftests/sroce/roce_forge.py" \
		--src "$SROCE_IP" --dst "$SROCE_PEER_IP" --target "$peer_file" \
		--op ack > /tmp/forge.log 2>&1 &
	forge=$!
	sync_peer early
	"$zc" -t early -s -l 16384 > /tmp/early.log 2>&1 &
	early=$!
	check "b posted its Send" wait_for 300 test -s "$peer_file"
	wait "$forge"
	check "an ACK of b's whole Send forged ($(cat "$peer_file"))" \
		test $? -eq 0
	diag "forge: $(cat /tmp/forge.log)"
	wait "$early"
	rc=$?
	ktap_import zc_verify /tmp/early.log
	check "zc_verify exit status" test "$rc" -eq 0
fi

if [ "$SROCE_ROLE" = b ]; then
	check "payloads sent from the MR's pages (tx_zcopy_packets > 0)" \
		test "$(hw_counter tx_zcopy_packets)" -gt 0
	touch /tmp/capture.stop
	wait "$capture"
	crc=$?
	diag "capture: $(cat /tmp/capture.log)"
	read -r _ checked _ big _ bad < /tmp/capture.log
	check "captured RoCE packets: ${big:-none} of ${checked:-none} of 256 bytes and more" \
		test "${big:-0}" -gt 100
	check "every captured packet's ICRC matches (${bad:-?} did not)" \
		test "$crc" -eq 0 -a "${bad:-1}" -eq 0
fi
diag "counters: $(rdma statistic show link sroce0/1 | tr -s ' ')"
sync_peer done
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
