#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": UD QPs and the RDMA CM between the guests' sroce
# devices (each guest serves once). ibv_ud_pingpong with its buffer
# check, polling and with events; then the programs that connect
# through rdma_cm, which needs the GSI QP: rping with data verification,
# ucmatose (several RC connections), udaddy (UD through SIDR), each guest
# serving once; rdma_server and rdma_client, rstream and riostream
# (rsockets) verifying data, and perftest's send and write bandwidth with
# -R, a serving. Each run must exit 0 on both sides. The device's UD
# drop counters must stay zero.
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0
sync_peer up
# The CM resolves the peer's MAC; a TCG guest may answer ARP late.
check "peer reachable" ping -c 2 -W 10 "$SROCE_PEER_IP"

step=0
# run SERVER_ROLE NAME CMD...: a TCP-rendezvous program (pair_app).
run() {
	local srv=$1 name=$2

	shift 2
	step=$((step + 1))
	pair_app "$srv" $((18800 + step)) "$@"
	app_report "$name" $?
}

# run_cm SERVER_ROLE NAME PORT SERVER_CMD CLIENT_CMD: an rdma_cm program.
run_cm() {
	local name=$2

	pair_cm "$1" "$3" "$4" "$5"
	app_report "$name" $?
}

peer=$SROCE_PEER_IP
for srv in a b; do
	who="server $srv"
	run $srv "ibv_ud_pingpong 1 KiB, $who" \
		ibv_ud_pingpong -d sroce0 -g 1 -s 1024 -n 500 -c
	run $srv "ibv_ud_pingpong 64 B -e, $who" \
		ibv_ud_pingpong -d sroce0 -g 1 -s 64 -n 200 -e -c
	run_cm $srv "rping -V 4 KiB, $who" 7174 \
		"rping -s -a 0.0.0.0 -p 7174 -V -C 50 -S 4096" \
		"rping -c -a $peer -p 7174 -V -C 50 -S 4096"
	run_cm $srv "ucmatose 4 connections, $who" 7471 \
		"ucmatose -p 7471 -c 4 -C 20" \
		"ucmatose -s $peer -p 7471 -c 4 -C 20"
	run_cm $srv "udaddy 4 connections, $who" 7174 \
		"udaddy -c 4 -C 20" "udaddy -s $peer -c 4 -C 20"
	# The rest once: the CM's roles were swapped above already
	[ $srv = a ] || continue
	run_cm $srv "rdma_server/rdma_client, $who" 7472 \
		"rdma_server -p 7472" "rdma_client -s $peer -p 7472"
	run_cm $srv "rstream -T v, $who" 7473 \
		"rstream -p 7473 -T v -S 65536 -C 50" \
		"rstream -s $peer -p 7473 -T v -S 65536 -C 50"
	run_cm $srv "riostream -T v, $who" 7474 \
		"riostream -p 7474 -T v -S 65536 -C 50" \
		"riostream -s $peer -p 7474 -T v -S 65536 -C 50"
	run_cm $srv "ib_send_bw -R, $who" 7475 \
		"ib_send_bw -d sroce0 -R -F -s 65536 -n 100 -p 7475" \
		"ib_send_bw -d sroce0 -R -F -s 65536 -n 100 -p 7475 $peer"
	run_cm $srv "ib_write_bw -R, $who" 7476 \
		"ib_write_bw -d sroce0 -R -F -s 65536 -n 100 -p 7476" \
		"ib_write_bw -d sroce0 -R -F -s 65536 -n 100 -p 7476 $peer"
done

for c in rx_drop_qkey rx_drop_ud_opcode rx_drop_ud_length ud_bad_sends \
	 ud_recv_errors; do
	check "counter $c is 0 after the programs" test "$(hw_counter $c)" -eq 0
done

# Datagrams forged by an unprivileged process on b at a's GSI QP (QPN 1,
# which every RoCE device has): a wrong Q_Key, an RC opcode and one over
# the MTU are dropped and counted; well-formed ones carrying garbage
# reach the MAD layer, which must drop them too, quietly.
N=10
if [ "$SROCE_ROLE" = a ]; then
	qkey0=$(hw_counter rx_drop_qkey)
	op0=$(hw_counter rx_drop_ud_opcode)
	len0=$(hw_counter rx_drop_ud_length)
	sync_peer counted
	sync_peer forged
	# grown NAME BEFORE N: the counter went up by exactly N
	grown() { [ $(($(hw_counter "$1") - $2)) -eq "$3" ]; }
	export -f grown
	check "forged Q_Key: rx_drop_qkey +$N" \
		wait_for 60 grown rx_drop_qkey "$qkey0" $N
	check "RC opcode to the GSI QP: rx_drop_ud_opcode +$N" \
		wait_for 60 grown rx_drop_ud_opcode "$op0" $N
	check "datagram over the MTU: rx_drop_ud_length +$N" \
		wait_for 60 grown rx_drop_ud_length "$len0" $N
	sync_peer checked
	# 600 datagrams too big for a MAD buffer, more than the MAD layer
	# posts (512): had they used up its receive WQEs, the rping below
	# could not connect. Each one that reaches the device must be
	# dropped and counted; the link between two TCG guests may lose
	# some on the way, which is no fault of ours and is not counted.
	rx0=$(hw_counter rx_packets)
	room0=$(hw_counter rx_drop_ud_no_room)
	sync_peer big
	sync_peer big-sent
	# all_room BEFORE_RX BEFORE_ROOM: every packet the device received
	# since was dropped for want of room (room read first: a packet
	# counts in rx_packets before it is dropped)
	all_room() {
		local room=$(($(hw_counter rx_drop_ud_no_room) - $2))

		[ $(($(hw_counter rx_packets) - $1)) -eq "$room" ]
	}
	at_least() { [ $(($(hw_counter "$1") - $2)) -ge "$3" ]; }
	export -f all_room at_least
	wait_for 30 at_least rx_packets "$rx0" 600	# the most that may come
	check "every 512 B datagram that arrived: rx_drop_ud_no_room" \
		wait_for 60 all_room "$rx0" "$room0"
	got=$(($(hw_counter rx_packets) - rx0))
	diag "$got of 600 arrived, rx_drop_ud_no_room +$(($(hw_counter rx_drop_ud_no_room) - room0))"
	if [ "$got" -gt 512 ]; then
		ktap_ok "more datagrams than the MAD layer's 512 receive WQEs arrived"
	else
		ktap_skip "more datagrams than the MAD layer's 512 receive WQEs arrived" \
			"only $got of 600 crossed the link"
	fi
else
	forge=(setpriv --reuid=nobody --regid=nogroup --clear-groups
	       /usr/bin/python3 "$SROCE_SRC/selftests/sroce/roce_forge.py"
	       --src "$SROCE_IP" --dst "$peer" --qpn 1 --psn 0 --count $N)
	sync_peer counted
	check "forge $N with Q_Key 0x80010001, as nobody" \
		"${forge[@]}" --op ud --qkey 0x80010001 --len 256
	check "forge $N RC WRITE_ONLY, as nobody" "${forge[@]}" --op only
	check "forge $N of 1200 B (active MTU 1024), as nobody" \
		"${forge[@]}" --op ud --len 1200
	check "forge $N garbage MADs with the GSI Q_Key, as nobody" \
		"${forge[@]}" --op ud --len 256 --fill 0x01
	check "forge $N empty datagrams with the GSI Q_Key, as nobody" \
		"${forge[@]}" --op ud --len 0
	sync_peer forged
	sync_peer checked
	sync_peer big
	check "forge 600 of 512 B with the GSI Q_Key, as nobody" \
		"${forge[@]}" --op ud --len 512 --count 600
	sync_peer big-sent
fi
run_cm a "rping -V after the forgeries" 7174 \
	"rping -s -a 0.0.0.0 -p 7174 -V -C 10 -S 512" \
	"rping -c -a $peer -p 7174 -V -C 10 -S 512"
diag "counters: $(rdma statistic show link sroce0/1 | tr -s ' ')"
sync_peer done
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
