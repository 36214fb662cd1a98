#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Kernel rdma_cm: selftests/kmod/sroce_kcm_test.ko connects two RC QPs of
# the guest's sroce device through rdma_cm (listen, resolve address and
# route, connect, accept), as NVMe-oF and NFS/RDMA do, so the CM's MADs
# travel through the GSI QP; it moves 4 KiB each way with a byte-for-byte
# check, disconnects, and sees a connect to a port without a listener
# rejected.
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0
check "rdma_cm loaded" modprobe rdma_cm
kmod_test sroce_kcm_test ip="$SROCE_IP"
diag "counters: $(rdma statistic show link sroce0/1 | tr -s ' ')"
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
