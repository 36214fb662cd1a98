#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Kernel callers: selftests/kmod/sroce_kverbs_test.ko acts as an in-kernel
# ULP on an sroce device (two RC QPs of one device connected through its
# own address, so packets loop back through the host's stack): Send,
# Send with immediate, RDMA Write and Read through ib_post_send and
# ib_post_recv, a post with interrupts disabled, IB_EVENT_CQ_ERR from an
# overflowing CQ delivered in process context, work requests refused
# (over 2 GiB, negative SGE count, inline lengths wrapping 32 bits),
# ib_drain_qp; Sends received through a kernel SRQ (ib_post_srq_recv);
# SRQs and PDs refused with ENOMEM exactly at max_srq / max_pd.
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0
kmod_test sroce_kverbs_test dev=sroce0
diag "counters: $(rdma statistic show link sroce0/1 | tr -s ' ')"
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
