#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# "make bench": perftest between two QEMU guests, sroce and rdma_rxe in
# the same run, and a table with the sroce/rxe ratio per row (bandwidth:
# higher is better; latency: lower is better, the ratio is rxe/sroce so
# that above 1 always means sroce is faster). Figures, not tests: TCG
# guests on a shared 2-core host are noisy; compare within one run.
# Then the engine's loss recovery in the host simulator (tools/sim):
# goodput and completion time lossless, at 2% and 10% loss and with 5 ms
# +- 5 ms of jitter, in simulated time (the same on any machine).
set -uo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
cd "$SRC" || exit 2
tools/testbed/deps.sh || exit 1
make -s modules || exit 1

OUT=$SRC/build/bench
tools/testbed/vm.sh --pair -t 3000 -m 2048 -o "$OUT" tools/bench-guest.sh
rc=$?
grep '^RESULT' "$OUT/b/output.txt" > "$OUT/results.txt" 2>/dev/null

printf '%-12s %9s %14s %14s %8s\n' test size sroce rxe speedup
awk '
	$1 == "RESULT" { v[$2 "," $3 "," $4] = $5; key[$3 "," $4] = 1;
			 order[++n] = $3 "," $4 }
	END {
		for (i = 1; i <= n; i++) {
			k = order[i]
			if (seen[k]++) continue
			split(k, p, ",")
			s = v["sroce," k]; r = v["rxe," k]
			unit = p[1] ~ /_bw$/ ? "MB/s" : "us"
			if (s + 0 > 0 && r + 0 > 0)
				ratio = sprintf("%.2fx", p[1] ~ /_bw$/ ? s / r : r / s)
			else
				ratio = "n/a"
			printf "%-12s %9s %9s %-4s %9s %-4s %8s\n", p[1], p[2], s, unit, r, unit, ratio
		}
	}' "$OUT/results.txt"

echo
make -s -f tools/host.mk sim || exit 1
build/host/sim --bench
exit $rc
