#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# check-kernel.sh FLAVOUR [--smoke | TEST...]
#
# The guest selftests on another of Debian's kernels (FLAVOUR: 6.1,
# 6.1-cloud, 6.12, 6.12-cloud; see kernel.sh): all of them, the smoke
# subset ("make -C selftests list-smoke") with --smoke, or the TESTs
# named; with --peer, guest a of each pair boots the peer flavour's
# kernel instead (interop between kernels). The kernel is fetched once (kernel.sh); the module, the kernel
# test modules and the selftest programs are built for it in a copy of
# this tree, build/kernel-trees/KVER, so the ordinary build is left
# alone. Guests of a kernel without 9p reach the host by virtiofs
# (vm.sh). Prints one TAP stream whose points are named after the kernel,
# and ends with "N passed, N failed, N skipped".
set -uo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
cd "$SRC" || exit 2
FLAVOUR=${1:?usage: check-kernel.sh FLAVOUR [--peer FLAVOUR] [--smoke | TEST...]}
shift
PEER=
if [ "${1:-}" = --peer ]; then
	PEER=${2:?--peer FLAVOUR}
	shift 2
fi

env=$(tools/testbed/kernel.sh "$FLAVOUR") || {
	echo "not ok 1 - $FLAVOUR: kernel and headers fetched"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
}
if [ -n "$PEER" ]; then
	# Guest a of each pair boots the peer's kernel (it runs rdma_rxe in
	# rxe_interop.sh): its variables first, then ours over them.
	penv=$(tools/testbed/kernel.sh "$PEER") || exit 1
	eval "$penv"
	export SROCE_A_KVER=$KVER SROCE_A_KERNEL=$SROCE_KERNEL \
		SROCE_A_MODBASE=$SROCE_MODBASE
	FLAVOUR="$FLAVOUR, peer $PEER"
fi
eval "$env"
export KVER SROCE_KERNEL SROCE_MODBASE
TREE=$SRC/build/kernel-trees/$KVER
echo "# kernel $FLAVOUR: $KVER, tree $TREE"

# The sources only: objects built here for the default kernel would be
# taken for this one's (kbuild rebuilds on a changed command line, but
# the generated compat header is per kernel already).
mkdir -p "$TREE"
rsync -a --delete --exclude /build --exclude /.git --exclude '*.o' \
	--exclude '*.ko' --exclude '*.mod' --exclude '*.mod.c' \
	--exclude '.*.cmd' --exclude Module.symvers --exclude modules.order \
	--exclude /drivers/infiniband/sw/sroce/compat/generated \
	"$SRC/" "$TREE/"
if ! make -s -C "$TREE" KDIR="$KDIR" modules > "$TREE/build.log" 2>&1 ||
   ! make -s -C "$TREE/selftests" KDIR="$KDIR" >> "$TREE/build.log" 2>&1; then
	tail -n 30 "$TREE/build.log" | sed 's/^/# /'
	echo "not ok 1 - $FLAVOUR: module and selftests build for $KVER"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

tests=("$@")
if [ "${1:-}" = --smoke ]; then
	mapfile -t tests < <(make -s -C selftests list-smoke)
	# NVMe-oF: the sroce-to-sroce round only.
	export SROCE_NVME_ROUNDS=${SROCE_NVME_ROUNDS:-sroce}
	export SROCE_GUEST_ENV="${SROCE_GUEST_ENV:-} SROCE_NVME_ROUNDS"
fi
# Each point names the kernel, so that a run over several kernels reads.
"$TREE/tools/testbed/run-selftests.sh" "${tests[@]}" |
	sed -u -e "s/^\(ok [0-9]* - \)/\1[$FLAVOUR] /" \
		-e "s/^\(not ok [0-9]* - \)/\1[$FLAVOUR] /"
exit "${PIPESTATUS[0]}"
