#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fast registration and invalidation for kernel ULPs (nvme-rdma, NFS over
# RDMA): selftests/kmod/sroce_frwr_test.ko maps three separate pages into
# an IB_MR_TYPE_MEM_REG MR, registers it with IB_WR_REG_MR, lets the peer
# QP write and read it, invalidates it by Send with Invalidate and by
# LOCAL_INV, and checks every refusal (stale key byte, key used after
# invalidation, REG_MR of a valid MR, other PD's key, bad alloc_mr).
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0
kmod_test sroce_frwr_test dev=sroce0
# What the module did, as the device counted it
check "fast_regs counted (4)" test "$(hw_counter fast_regs)" -eq 4
check "local_invalidates counted (1)" test "$(hw_counter local_invalidates)" -eq 1
check "remote_invalidates counted (1)" test "$(hw_counter remote_invalidates)" -eq 1
check "local_op_errors counted (4)" test "$(hw_counter local_op_errors)" -eq 4
check "remote_invalidate_errors counted (1)" \
	test "$(hw_counter remote_invalidate_errors)" -eq 1
diag "counters: $(rdma statistic show link sroce0/1 | tr -s ' ')"
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
