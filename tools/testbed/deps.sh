#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install, from Debian's apt, whatever the build, the tests and the QEMU
# testbed need and this machine lacks. Idempotent and quiet when all is
# there. Needs root (or sudo) only when something is missing.
set -euo pipefail

PKGS=(
	build-essential bc bison flex kmod cpio gzip
	linux-headers-amd64 linux-image-amd64 linux-source-6.1
	sparse clang llvm cppcheck libelf-dev libssl-dev dwarves
	qemu-system-x86 busybox-static
	rdma-core ibverbs-utils ibverbs-providers perftest rdmacm-utils ucx-utils
	libibverbs-dev
	iproute2 iputils-ping ethtool python3 rsync
	nvme-cli fio nfs-kernel-server
	dkms dh-dkms debhelper
	iperf3 trace-cmd
)

missing=()
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
# The guests use these packages' programs (nfs-kernel-server, rpcbind):
# their services must not start on this machine. policy-rc.d tells
# invoke-rc.d to leave them stopped, only while we install.
policy=
if [ ! -e /usr/sbin/policy-rc.d ]; then
	policy=/usr/sbin/policy-rc.d
	printf '#!/bin/sh\nexit 101\n' | $SUDO tee $policy > /dev/null
	$SUDO chmod 755 $policy
fi
trap '[ -z "$policy" ] || $SUDO rm -f "$policy"' EXIT
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
