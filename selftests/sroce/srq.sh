#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Shared receive queues through the stock rxe provider: srq_verify, on
# the guest's sroce device looped back through its own address (two
# QPs share one SRQ; the limit event; a resize with WQEs pending; every
# WQE consumed once with its data intact; LAST_WQE_REACHED when a QP on
# the SRQ fails). With zcopy=on, the Sends' payloads leave as their MR's
# pages (tx_zcopy_packets), which local delivery reads when the
# receiving QP takes the packet: each Send completes only after that.
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0
check "zcopy=on" sroce_zcopy on
gid=$(gid_index_v4 sroce0)
diag "IPv4 GID index $gid"
timeout "$(app_timeout)" "$SROCE_SRC/selftests/sroce/srq_verify" \
	-d sroce0 -g "$gid" > /tmp/srq.log 2>&1
rc=$?
ktap_import srq_verify /tmp/srq.log
check "srq_verify exit status" test "$rc" -eq 0
# Its 4 KiB Sends left as their MR's pages (zcopy=on) and were
# delivered inside sroce (local delivery copies them out of the pages).
check "local sends from the MR's pages (tx_zcopy_packets > 0)" \
	test "$(hw_counter tx_zcopy_packets)" -gt 0
diag "counters: $(rdma statistic show link sroce0/1 | tr -s ' ')"
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
