#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": a remote Write whose last packet never comes must not
# pin its MR (rc_verify's "halfwrite" case). a registers a fresh MR and
# publishes its QP, expected PSN and rkey; b, as nobody through an
# ordinary UDP socket (roce_forge.py), sends a WRITE_FIRST of a 4 KiB
# Write into it from b's own address. a then deregisters the MR, which
# must return (it used to sleep in state D until the QP was destroyed);
# b sends the Write's last packet, which must fail a's QP with a remote
# access NAK (fatal_naks_sent).
. "$(dirname "$0")/../lib.sh"

info=$SROCE_SYNC/halfwrite.info

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0
sync_peer ready

prog=$SROCE_SRC/selftests/sroce/rc_verify
if [ "$SROCE_ROLE" = a ]; then
	naks0=$(hw_counter fatal_naks_sent)
	"$prog" -d sroce0 -g 1 -s -t halfwrite -f "$info" > /tmp/verify.log 2>&1
	rc=$?
	check "remote access NAK sent (fatal_naks_sent +1)" \
		test $(($(hw_counter fatal_naks_sent) - naks0)) -ge 1
else
	forge=(setpriv --reuid=nobody --regid=nogroup --clear-groups
	       /usr/bin/python3 "$SROCE_SRC/selftests/sroce/roce_forge.py")
	"$prog" -d sroce0 -g 1 -c "$SROCE_PEER_IP" -t halfwrite \
		> /tmp/verify.log 2>&1 &
	pid=$!
	check "a published its MR" wait_for "$(app_timeout)" test -s "$info"
	read -r qpn psn va rkey < "$info"
	diag "a's QP $qpn, expected PSN $psn, MR $va rkey $rkey"
	aim=(--src "$SROCE_IP" --dst "$SROCE_PEER_IP" --qpn "$qpn" --va "$va"
	     --rkey "$rkey" --len 1024)
	check "forge WRITE_FIRST of 4096 bytes, as nobody" "${forge[@]}" \
		"${aim[@]}" --op first --total 4096 --psn "$psn"
	touch "$info.first"
	check "a deregistered the MR" wait_for "$(app_timeout)" \
		test -e "$info.dereg"
	check "forge the Write's last packet, as nobody" "${forge[@]}" \
		"${aim[@]}" --op last --psn $(((psn + 1) & 0xffffff))
	wait "$pid"
	rc=$?
fi
ktap_import rc_verify /tmp/verify.log
check "rc_verify exit status" test "$rc" -eq 0
diag "counters: $(rdma statistic show link sroce0/1 | tr -s ' ')"
sync_peer done
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
