#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# "make install" puts the module where modprobe finds it, with its
# rdma-link alias indexed, for the running kernel. (Slow under TCG: it
# runs kbuild and a full depmod.)
. "$(dirname "$0")/../lib.sh"

ktap_begin
kver=$(uname -r)
check "make install" make -C "$SROCE_SRC" -s install
ko=/lib/modules/$kver/updates/drivers/infiniband/sw/sroce/rdma_sroce.ko
check "installed under updates/" test -f "$ko"
check "modprobe finds the installed module" \
	bash -c "[ \"\$(modinfo -n rdma_sroce)\" = $ko ]"
check "alias indexed for rdma link add" \
	bash -c 'modprobe -R rdma-link-sroce | grep -qx rdma_sroce'
modprobe ib_uverbs
sroce_setup_net
check "rdma link add loads it" rdma link add sroce0 type sroce netdev eth0
check "device listed" bash -c 'ibv_devices | grep -q sroce0'
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
