#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# "make bench": sroce, rdma_rxe and kernel TCP between two QEMU guests,
# in the same run (tools/bench/guest.sh). Figures, not tests.
# First what each case costs, counted: both guests run under a TCG plugin
# that counts the instructions they execute in kernel space
# (tools/bench/icount.c), the same on a busy host as on an idle one; the
# table (tools/bench/report.py) gives the marginal cost per MiB and per
# message. Then timed perftest runs, a table with the sroce/rxe ratio per
# row (bandwidth: higher is better; latency: lower is better, the ratio
# is rxe/sroce so that above 1 always means sroce is faster): TCG guests
# on a shared 2-core host are noisy; compare within one run.
# BENCH_PARTS="count" or "time" runs one part only; BENCH_PROFILE=1 also
# counts by symbol, for tools/bench/profile.py.
# Then the engine's loss recovery in the host simulator (tools/sim):
# goodput and completion time lossless, at 2% and 10% loss and with 5 ms
# +- 5 ms of jitter, in simulated time (the same on any machine).
set -uo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
cd "$SRC" || exit 2
tools/testbed/deps.sh || exit 1
make -s modules || exit 1
make -s -f tools/host.mk bench-tools || exit 1

OUT=$SRC/build/bench
rm -rf "$OUT"
export BENCH_PARTS=${BENCH_PARTS:-count time}
SROCE_ICOUNT=$SRC/build/host/icount.so${BENCH_PROFILE:+,prof=on} \
SROCE_GUEST_ENV="BENCH_PARTS BENCH_PROFILE ${SROCE_GUEST_ENV:-}" \
	tools/testbed/vm.sh --pair -t 5000 -m 2048 -o "$OUT" tools/bench/guest.sh
rc=$?
grep '^RESULT' "$OUT/b/output.txt" > "$OUT/results.txt" 2>/dev/null

tools/bench/report.py "$OUT"
echo

if [ -s "$OUT/results.txt" ]; then
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
fi
make -s -f tools/host.mk sim || exit 1
build/host/sim --bench
exit $rc
