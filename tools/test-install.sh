#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# "make install", staged with INSTALL_MOD_PATH so that it runs on any
# host: the module lands under updates/ for the kernel it was built for,
# and depmod indexes it with the alias that lets "rdma link add ... type
# sroce" load it. (That modprobe and the alias then work in a running
# kernel is what the load.sh selftest checks in a guest.) TAP output.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
cd "$SRC" || exit 2
STAGE=$SRC/build/install-test
KDIR=${KDIR:-$("$(dirname "$0")/kdir.sh")}
KVER=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
	"$KDIR/include/generated/utsrelease.h")
DIR=$STAGE/lib/modules/$KVER
n=0
fail=0
t() { # name cmd...
	local name=$1
	shift
	n=$((n + 1))
	if "$@" > /dev/null 2>&1; then
		echo "ok $n - install: $name"
	else
		echo "not ok $n - install: $name"
		fail=$((fail + 1))
	fi
}

rm -rf "$STAGE"
t "make install INSTALL_MOD_PATH=..." make -s -j"$(nproc)" install INSTALL_MOD_PATH="$STAGE"
t "module under updates/ for $KVER" \
	test -f "$DIR/updates/drivers/infiniband/sw/sroce/rdma_sroce.ko"
t "depmod indexed the rdma link alias" \
	grep -qx 'alias rdma-link-sroce rdma_sroce' "$DIR/modules.alias"
t "depmod listed the module" \
	grep -q '^updates/drivers/infiniband/sw/sroce/rdma_sroce.ko:' \
	"$DIR/modules.dep"
echo "1..$n"
[ $fail -eq 0 ]
