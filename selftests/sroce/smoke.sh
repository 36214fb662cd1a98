#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": the smoke test check-kernel.sh --smoke runs on each
# kernel besides the default one, in one boot: link add, RC, UD, rdma_cm
# and NVMe-oF traffic with data checked (smoke_lib.sh), then teardown
# (link delete, rmmod).
# timeout: 900
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/nvme_lib.sh"
. "$(dirname "$0")/smoke_lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0
smoke_traffic sroce0
check "rdma link delete sroce0" rdma link delete sroce0
check "rmmod rdma_sroce" rmmod rdma_sroce
ktap_end
