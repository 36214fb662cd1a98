#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Memory windows through the stock rxe provider: mw_verify binds type 1
# (ibv_bind_mw) and type 2 (IBV_WR_BIND_MW) windows over part of an MR
# and uses them from other QPs of the same device, connected through its
# own address: access inside the window only and within its rights, a
# type 2 window only from its QP, rebinding, LOCAL_INV and Send with
# Invalidate of a type 2 window, refused binds, and an MR that cannot be
# deregistered while a window is bound to it.
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0
gid=$(gid_index_v4 sroce0)
diag "IPv4 GID index $gid"
timeout "$(app_timeout)" "$SROCE_SRC/selftests/sroce/mw_verify" \
	-d sroce0 -g "$gid" > /tmp/mw.log 2>&1
rc=$?
ktap_import mw_verify /tmp/mw.log
check "mw_verify exit status" test "$rc" -eq 0
check "mw_binds counted" test "$(hw_counter mw_binds)" -gt 0
diag "counters: $(rdma statistic show link sroce0/1 | tr -s ' ')"
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
