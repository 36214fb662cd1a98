#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# "make check-debug [TESTS=...]": the guest selftests on a debug kernel
# built from Debian's linux-source-6.1 with KASAN, UBSAN, lockdep
# (PROVE_LOCKING), DEBUG_OBJECTS and KMEMLEAK (tools/debug/kernel.config).
# Any report in a guest's kernel log, or a leak kmemleak finds after the
# test, fails that test. The kernel is built once and cached in
# build/debug-kernel; the module and the selftest programs are built for
# it in a copy of this tree (build/debug-tree), so the ordinary build is
# left alone. Ends with "N passed, N failed, N skipped".
set -uo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
cd "$SRC" || exit 2
KOUT=$SRC/build/debug-kernel
TREE=$SRC/build/debug-tree

tools/testbed/deps.sh || exit 1
echo "# debug kernel: build or reuse $KOUT"
start=$SECONDS
tools/debug/build-kernel.sh "$KOUT" > "$SRC/build/debug-kernel.log" 2>&1 || {
	tail -n 30 "$SRC/build/debug-kernel.log"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
}
echo "# debug kernel ready in $((SECONDS - start)) s: $(cat "$KOUT/kernelrelease")"

mkdir -p "$TREE"
rsync -a --delete --exclude /build --exclude /.git "$SRC/" "$TREE/"
make -s -C "$TREE" KDIR="$KOUT/src" modules || exit 1
make -s -C "$TREE/selftests" KDIR="$KOUT/src" || exit 1

export KVER SROCE_KERNEL=$KOUT/bzImage SROCE_MODBASE=$KOUT/modroot
KVER=$(cat "$KOUT/kernelrelease")
# TCG's "-cpu max" offers 5-level paging; an interrupt that arrives while
# 6.1 still identifies the boot CPU then made KASAN report a wild access
# to the (5-level) direct map in do_raw_spin_lock(), before any of our
# code ran, and another guest stopped booting at the same point. 6.1 has
# no no5lvl parameter: the guests get a CPU without LA57, four levels
# being what Debian's kernels use on most hosts.
export SROCE_TCG_CPU=max,la57=off
# KASAN reports only its first bad access unless told otherwise: a known
# report of another driver (vm.sh's KNOWN) must not hide one of ours.
# Without address randomisation, a hung guest's RIP from the monitor
# (vm.sh) is found in build/debug-kernel/src/System.map as it is.
export SROCE_APPEND="${SROCE_APPEND:-} kasan_multi_shot nokaslr"
# KASAN's shadow and quarantine and the debug objects' pool need room: at
# 1 GiB a guest ran debug objects out of memory ("ODEBUG: Out of memory").
export SROCE_MIN_MEM=${SROCE_MIN_MEM:-2048}
# Tests that size their work to the kernel read this (rc_huge, apps).
export SROCE_DEBUG_KERNEL=1
# KASAN under TCG is slow: give each guest twice the usual time.
export SROCE_TEST_TIMEOUT=${SROCE_TEST_TIMEOUT:-1200}
# shellcheck disable=SC2086
exec "$TREE/tools/testbed/run-selftests.sh" ${TESTS:-}
