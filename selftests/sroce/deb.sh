#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair", on a root where dpkg installed sroce-dkms (run by
# tools/packaging/test-deb.sh, never from the lists make check walks):
# the module DKMS built for this kernel is the one modprobe finds; the
# sroce@.service template's commands (for eth0) make a working device (smoke_lib.sh: RC, UD, rdma_cm and NVMe-oF
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

# The unit template's commands, for instance eth0, as systemd runs them
# (the guests' init is not systemd): ExecStart lines in order, then
# ExecStop; a leading "-" lets a command fail.
UNIT=/lib/systemd/system/sroce@.service
unit_run() { # Start|Stop
	local cmd

	while IFS= read -r cmd; do
		cmd=${cmd//%I/eth0}
		cmd=${cmd//%i/eth0}
		if [ "${cmd#-}" != "$cmd" ]; then
			${cmd#-} || true
		else
			$cmd || return 1
		fi
	done < <(sed -n "s/^Exec$1=//p" "$UNIT")
}
check "the unit template sroce@.service is installed" test -f "$UNIT"
check "its start commands: modprobe, link add sroce_eth0" unit_run Start
check "sroce_eth0's IPv4 GID" wait_for 30 bash -c \
	"ibv_devinfo -v -d sroce_eth0 | grep -q '::ffff:$SROCE_IP, RoCE v2'"
smoke_traffic sroce_eth0
check "its stop command: the link is deleted" \
	bash -c "$(declare -f unit_run); UNIT=$UNIT unit_run Stop &&
		 ! test -e /sys/class/infiniband/sroce_eth0"
check "rmmod rdma_sroce" rmmod rdma_sroce
ktap_end
