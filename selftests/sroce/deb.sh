#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair", on a root where dpkg installed sroce-dkms (run by
# tools/packaging/test-deb.sh, never from the lists make check walks):
# the module DKMS built for this kernel is the one modprobe finds; it
# makes a working device (smoke_lib.sh: RC, UD, rdma_cm and NVMe-oF
# traffic between the guests, data checked), and it unloads. The
# harness removes the package afterwards, outside the guests: DKMS's
# removal runs depmod for every kernel, minutes each under TCG.
# timeout: 900
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/nvme_lib.sh"
. "$(dirname "$0")/smoke_lib.sh"

KV=$(uname -r)
CONF=/etc/modprobe.d/sroce-rxe.conf

ktap_begin
check "dkms status: sroce installed for $KV" bash -c \
	"dkms status | grep -q '^sroce/.*, $KV, x86_64: installed'"
# (compressed where the kernel's own modules are: xz on 6.12)
check "modprobe finds DKMS's module" bash -c \
	"modinfo -n rdma_sroce | grep -qx '/lib/modules/$KV/updates/dkms/rdma_sroce.ko\(.xz\|.zst\|.gz\)\?'"
check "built for this kernel" bash -c \
	"modinfo -F vermagic rdma_sroce | grep -q '^$KV '"
check "the drop-in file is installed, disabled" bash -c \
	"[ -f $CONF ] && ! grep -q '^[a-z]' $CONF"
modprobe ib_uverbs
sroce_setup_net || exit 1
check "modprobe rdma_sroce" modprobe rdma_sroce
sroce_link_up eth0 sroce0
smoke_traffic sroce0
check "rdma link delete sroce0" rdma link delete sroce0
check "rmmod rdma_sroce" rmmod rdma_sroce
ktap_end
