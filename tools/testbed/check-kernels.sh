#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# "make check-kernels [KERNELS=...]": every guest selftest, the storage
# consumers' too, on each of Debian's kernels (default: 6.1 6.1-cloud
# 6.12 6.12-cloud; check-kernel.sh), one after the other, then the
# package's test (tools/packaging/test-deb.sh). Prints the counts per
# kernel and ends with "N passed, N failed, N skipped".
set -uo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
cd "$SRC" || exit 2
LOG=$SRC/build/check-kernels
mkdir -p "$LOG"
pass=0
fail=0
skip=0
summary=()

count() { # name log
	local p f s
	p=$(grep -cE '^ok ' "$2")
	s=$(grep -cE '^ok .*# SKIP' "$2")
	f=$(grep -cE '^not ok ' "$2")
	pass=$((pass + p - s))
	skip=$((skip + s))
	fail=$((fail + f))
	summary+=("# $1: $((p - s)) passed, $f failed, $s skipped")
}

for k in ${KERNELS:-6.1 6.1-cloud 6.12 6.12-cloud}; do
	for set in all ulp; do
		args=()
		[ $set = ulp ] && args=(--ulp)
		echo "# check-kernels: $k, $set"
		tools/testbed/check-kernel.sh "$k" "${args[@]}" 2>&1 |
			tee "$LOG/$k-$set.log"
		count "$k ($set)" "$LOG/$k-$set.log"
	done
done
echo "# check-kernels: the Debian package"
tools/packaging/test-deb.sh 2>&1 | tee "$LOG/deb.log"
count "package" "$LOG/deb.log"
printf '%s\n' "${summary[@]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
