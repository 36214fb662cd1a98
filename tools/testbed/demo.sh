#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# "make demo": install what is missing, build, boot two guests wired back
# to back, bring up an sroce device on each and show them.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
cd "$SRC" || exit 2
tools/testbed/deps.sh || exit 1
make -s modules || exit 1

OUT=$SRC/build/testbed/demo
echo "demo: booting two guests (QEMU, TCG); this takes a minute"
tools/testbed/vm.sh --pair -t 300 -o "$OUT" tools/testbed/demo-guest.sh
rc=$?
for h in a b; do
	echo
	echo "######## guest $h"
	cat "$OUT/$h/output.txt" 2>/dev/null
done
echo
if [ $rc -eq 0 ]; then
	echo "demo: OK (logs in $OUT)"
else
	echo "demo: FAILED (logs in $OUT)"
fi
exit $rc
