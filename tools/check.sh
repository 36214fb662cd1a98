#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# "make check": install what is missing, build, and run every test:
#   - quality gates: W=1 build without warnings, sparse, checkpatch
#   - host unit tests of the pure protocol core (ASan + UBSan)
#   - a libFuzzer run over the packet parser and ICRC
#   - the selftests, each in fresh QEMU guests (tools/testbed)
#   - the Debian package and a smoke test on Debian's other kernels
# Every assertion counts once in the closing "N passed, N failed" line.
# SROCE_FUZZ_SECONDS (default 30) sets the fuzz run's length.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
cd "$SRC" || exit 2
LOG=$SRC/build/check
mkdir -p "$LOG"

pass=0
fail=0
skip=0

# step NAME CMD...: one assertion, passing when CMD exits 0.
step() {
	local name=$1 log=$LOG/${1//[^a-zA-Z0-9]/_}.log
	shift
	echo "# check: $name"
	if "$@" > "$log" 2>&1; then
		pass=$((pass + 1))
		echo "ok - $name"
	else
		fail=$((fail + 1))
		echo "not ok - $name (log: $log)"
		tail -n 30 "$log" | sed 's/^/#   /'
	fi
}

# tap_step NAME CMD...: CMD prints TAP; each of its points counts. A
# command that fails without reporting a failed point counts one more.
tap_step() {
	local name=$1 log=$LOG/${1//[^a-zA-Z0-9]/_}.log rc p f s
	shift
	echo "# check: $name"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	p=$(grep -cE '^ok ' "$log")
	s=$(grep -cE '^ok .*# SKIP' "$log")
	f=$(grep -cE '^not ok ' "$log")
	pass=$((pass + p - s))
	skip=$((skip + s))
	fail=$((fail + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		fail=$((fail + 1))
		echo "not ok - $name exited $rc"
	fi
}

step "dependencies installed" tools/testbed/deps.sh
step "module builds with W=1, no warnings" tools/lint.sh build
step "layers: calls and includes run one way" tools/lint.sh layers
step "sparse clean" tools/lint.sh sparse
step "checkpatch --strict clean" tools/lint.sh checkpatch
tap_step "host unit tests" make -s unit
tap_step "make install (staged)" tools/test-install.sh
step "selftest programs build" make -s -C selftests
step "fuzz packet parser and ICRC" \
	make -s fuzz FUZZ_SECONDS="${SROCE_FUZZ_SECONDS:-30}"
tap_step "guest selftests" tools/testbed/run-selftests.sh
# Debian's other kernels: the package installed beside the 6.1 cloud
# kernel and then the 6.12 one, used in guests of each (DKMS's module,
# smoke traffic, removal), and the smoke test on the 6.12 cloud kernel
# (make check-kernels runs everything on all four).
tap_step "Debian package on 6.1-cloud and 6.12" tools/packaging/test-deb.sh
tap_step "smoke test on 6.12-cloud" \
	tools/testbed/check-kernel.sh 6.12-cloud --smoke
# The storage consumers' tests (NVMe-oF, NFS over RDMA) take about
# SROCE_ULP_MINUTES more: run when that keeps the whole run within
# SROCE_CHECK_MINUTES (default 30), or always with SROCE_CHECK_ULP=1;
# otherwise one skipped point says so ("make check-ulp" runs them).
ulp_need=$(( (SECONDS + ${SROCE_ULP_MINUTES:-15} * 60) / 60 ))
if [ "${SROCE_CHECK_ULP:-0}" = 1 ] ||
   [ "$ulp_need" -le "${SROCE_CHECK_MINUTES:-30}" ]; then
	tap_step "guest selftests: storage consumers" \
		tools/testbed/run-selftests.sh --ulp
else
	skip=$((skip + 1))
	echo "ok - storage consumer tests # SKIP $ulp_need minutes needed, over ${SROCE_CHECK_MINUTES:-30}: make check-ulp"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
