#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": congestion control end to end, ECN and DCQCN. b's NIC
# is a bottleneck that marks instead of dropping: tbf at 40 Mbit/s with
# an fq_codel child (ECN on, as Linux's default qdisc has it). b sends
# to a:
#  1. rc_verify's data and burst cases, compared byte for byte;
#  2. ib_write_bw -q 4 of 64 KiB.
# b's requests are ECT(0); fq_codel marks them CE once its queue holds
# them too long; a counts the marks (ecn_marked) and answers with CNPs
# (cnp_sent); b takes them (cnp_received), cuts its QPs' rates
# (rate_cuts) and holds its requesters to them (tx_paced). Both programs
# must succeed: no QP may run out of retries. The ECN bits go out as
# the module parameter says: with ecn=0 no packet is marked.
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0

# fq_codel_marks: the CE marks eth0's fq_codel made
fq_codel_marks() {
	tc -s qdisc show dev eth0 |
		awk '{ for (i = 1; i < NF; i++) if ($i == "ecn_mark") { print $(i + 1); exit } }'
}

if [ "$SROCE_ROLE" = b ]; then
	# QPs start at 100 Mbit/s rather than 10 Gbit/s, not far above the
	# bottleneck: a few cuts bring a QP's rate below what it would
	# send, and pacing then shows however fast or slow the guest is
	# (from 10 Gbit/s, 72 cuts once left every QP above it: tx_paced 0)
	echo 100 > /sys/module/rdma_sroce/parameters/dcqcn_line_rate
	modprobe sch_tbf
	check "tbf at 40 Mbit/s on eth0" tc qdisc replace dev eth0 root \
		handle 1: tbf rate 40mbit burst 32kb latency 400ms
	check "fq_codel with ECN under it" tc qdisc add dev eth0 parent 1:1 \
		handle 10: fq_codel ecn
fi
sync_peer ready

prog=$SROCE_SRC/selftests/sroce/rc_verify
if [ "$SROCE_ROLE" = a ]; then
	timeout "$(app_timeout)" "$prog" -d sroce0 -g 1 -m 1024 -s -t data,burst \
		> /tmp/verify.log 2>&1
else
	timeout "$(app_timeout)" "$prog" -d sroce0 -g 1 -m 1024 \
		-c "$SROCE_PEER_IP" -t data,burst \
		> /tmp/verify.log 2>&1
fi
rc=$?
ktap_import rc_verify /tmp/verify.log
check "rc_verify through the bottleneck" test "$rc" -eq 0

pair_app a 18721 ib_write_bw -d sroce0 -x 1 -F -q 4 -s 65536 -n 60
rc=$?
app_report "ib_write_bw -q 4 -s 65536 through the bottleneck" $rc
[ $rc -eq 0 ] && grep -E '^ *[0-9]+ +[0-9]+ ' /tmp/app.log | head -n 1 |
	sed 's/^/# /'

if [ "$SROCE_ROLE" = a ]; then
	check "CE-marked packets arrived (ecn_marked > 0)" \
		test "$(hw_counter ecn_marked)" -gt 0
	check "CNPs sent for them (cnp_sent > 0)" \
		test "$(hw_counter cnp_sent)" -gt 0
else
	diag "fq_codel marked $(fq_codel_marks) packets CE"
	check "fq_codel marked packets CE" test "$(fq_codel_marks)" -gt 0
	check "CNPs arrived (cnp_received > 0)" \
		test "$(hw_counter cnp_received)" -gt 0
	check "they cut QPs' rates (rate_cuts > 0)" \
		test "$(hw_counter rate_cuts)" -gt 0
	check "requesters waited for their rate (tx_paced > 0)" \
		test "$(hw_counter tx_paced)" -gt 0
fi
diag "counters: $(rdma statistic show link sroce0/1 | tr -s ' ')"

# ecn=0: nothing says it is ECN-capable, so nothing is marked CE
sync_peer measured
if [ "$SROCE_ROLE" = b ]; then
	echo 0 > /sys/module/rdma_sroce/parameters/ecn
	m0=$(fq_codel_marks)
fi
pair_app a 18722 ib_write_bw -d sroce0 -x 1 -F -q 4 -s 65536 -n 20
app_report "ib_write_bw with ecn=0" $?
if [ "$SROCE_ROLE" = b ]; then
	check "ecn=0: fq_codel marked nothing more" \
		test "$(fq_codel_marks)" -eq "$m0"
	echo 1 > /sys/module/rdma_sroce/parameters/ecn
	tc qdisc del dev eth0 root
fi
sync_peer done
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
