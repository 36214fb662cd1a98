#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": an unprivileged process on b forges RoCEv2 packets into
# the RC connection between a and b (rc_verify's "forge" case: verified
# Writes and Sends streaming) through an ordinary UDP socket
# (roce_forge.py, run as nobody): RDMA Writes to a's QP with its real
# rkey, first from a second address of b's, then from b's own address
# with a wrong P_Key, then with the right address and P_Key but a PSN far
# from the expected one. a must drop the first two kinds and count them
# (rx_drop_address, rx_drop_pkey), treat the last as out of sequence or
# duplicate without executing it, and the legitimate stream must go on
# with its data intact. Last, a FETCH_ADD at a PSN behind: a duplicate of
# no atomic a ran, dropped (rx_drop_bad_dup_read), never executed.
. "$(dirname "$0")/../lib.sh"

N=20			# packets of each forged kind
OTHER_IP=10.11.0.99	# a second address of b's, not the peer a knows

# counter NAME: its current value on this guest's sroce0
counter() {
	rdma statistic show link sroce0/1 |
		awk -v c="$1" '{ for (i = 1; i < NF; i++) if ($i == c) print $(i + 1) }'
}
# grown NAME BEFORE N: the counter went up by at least N since BEFORE
grown() { [ $(($(counter "$1") - $2)) -ge "$3" ]; }
export -f counter grown

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0
sync_peer ready

stream_start
if [ "$SROCE_ROLE" = a ]; then
	addr0=$(counter rx_drop_address)
	pkey0=$(counter rx_drop_pkey)
	oos0=$(counter out_of_sequence_requests)
	dup0=$(counter duplicate_requests)
	baddup0=$(counter rx_drop_bad_dup_read)
	sync_peer counted
	sync_peer forged
	check "forged source address: rx_drop_address +$N" \
		wait_for 60 grown rx_drop_address "$addr0" $N
	check "forged P_Key: rx_drop_pkey +$N" \
		wait_for 60 grown rx_drop_pkey "$pkey0" $N
	# Counted (and, rc_verify checks, not executed).
	check "forged PSN ahead: out_of_sequence_requests +1" \
		wait_for 60 grown out_of_sequence_requests "$oos0" 1
	check "forged PSN behind: duplicate_requests +1" \
		wait_for 60 grown duplicate_requests "$dup0" 1
	check "forged FETCH_ADD behind: rx_drop_bad_dup_read +1" \
		wait_for 60 grown rx_drop_bad_dup_read "$baddup0" 1
	check "no atomic executed (atomics_executed 0)" \
		test "$(counter atomics_executed)" -eq 0
	# Nothing else counts as these: exactly what was forged.
	check "rx_drop_address went up by exactly $N" \
		test $(($(counter rx_drop_address) - addr0)) -eq $N
	check "rx_drop_pkey went up by exactly $N" \
		test $(($(counter rx_drop_pkey) - pkey0)) -eq $N
	sync_peer checked
else
	forge=(setpriv --reuid=nobody --regid=nogroup --clear-groups
	       /usr/bin/python3 "$SROCE_SRC/selftests/sroce/roce_forge.py")
	read -r qpn psn va rkey < /tmp/forge.info
	diag "a's QP $qpn, first PSN $psn, target $va rkey $rkey"
	sync_peer counted
	check "a second address on eth0" ip addr add "$OTHER_IP/24" dev eth0
	aim=(--dst "$SROCE_PEER_IP" --qpn "$qpn" --va "$va" --rkey "$rkey")
	check "forge $N from $OTHER_IP, as nobody" "${forge[@]}" "${aim[@]}" \
		--src "$OTHER_IP" --psn "$psn" --count $N
	check "forge $((N / 2)) with P_Key 0x1234, as nobody" "${forge[@]}" \
		"${aim[@]}" --src "$SROCE_IP" --psn "$psn" --pkey 0x1234 \
		--count $((N / 2))
	check "forge $((N - N / 2)) with P_Key 0x7ffe, as nobody" "${forge[@]}" \
		"${aim[@]}" --src "$SROCE_IP" --psn "$psn" --pkey 0x7ffe \
		--count $((N - N / 2))
	check "forge PSN first + 2^22 and first - 2^22 from $SROCE_IP, as nobody" \
		bash -c "$(printf '%q ' "${forge[@]}" "${aim[@]}") --src $SROCE_IP --psn $(((psn + 0x400000) & 0xffffff)) &&
			 $(printf '%q ' "${forge[@]}" "${aim[@]}") --src $SROCE_IP --psn $(((psn - 0x400000) & 0xffffff))"
	check "forge a FETCH_ADD at first - 2^22, as nobody" "${forge[@]}" \
		"${aim[@]}" --src "$SROCE_IP" --op fadd \
		--psn $(((psn - 0x400000) & 0xffffff))
	sync_peer forged
	sync_peer checked
fi
stream_stop
diag "counters: $(rdma statistic show link sroce0/1 | tr -s ' ')"
sync_peer done
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
