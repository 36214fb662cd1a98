#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# "make bench": sroce, rdma_rxe and kernel TCP between two QEMU guests,
# in the same run (tools/bench/guest.sh). Figures, not tests.
# First what each case costs, counted: both guests run under a TCG plugin
# that counts the instructions they execute in kernel space
# (tools/bench/icount.c), the same on a busy host as on an idle one; the
# table (tools/bench/report.py) gives the marginal cost per MiB and per
# message. Then timed perftest and iperf3 runs, several rounds each, a
# table of medians and spreads with the sroce/rxe ratio per row: TCG
# guests on a shared 2-core host are noisy; compare within one run.
# BENCH_MTUS (default "1500 9000") and BENCH_REPEAT (rounds, default 5)
# shape both parts, BENCH_IMPLS picks among sroce, sroce-copy (zero-copy
# transmit off, zcopy=off), rxe and tcp (tools/bench/guest.sh). SROCE_NET=tap wires
# the guests' NICs with checksum, scatter-gather and segmentation offload,
# as a cloud host's virtio NICs have (tools/testbed/vm.sh); the default
# socket netdev has none of them.
# Then many QPs at once (scale): 1 to 256 RC QPs of 64 KiB Writes with
# every byte checked, aggregate MB/s, the per-QP spread and Jain's index,
# and the counters that explain them (BENCH_SCALE_SECS per row).
# Then what MPI moves over UCX: 4 MiB tagged messages by rendezvous (ucx).
# Then the scale rows with the guests' NICs on tap devices (scale-tap).
# Then fan-in: 3 guests sending to a fourth at once, against one pair.
# Then a busy host: one QP of 4 KiB Writes and Reads between two guests,
# quiet, then with two more guests burning CPU beside them (busy.sh).
# Then RDMA and a TCP flow through one bottleneck that marks CE, with and
# without sroce's ECN handling, and rdma_rxe (ecn.sh).
# BENCH_PARTS names the parts to run (default "count time scale ucx
# scale-tap fanin busy ecn");
# BENCH_PROFILE=1 also
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
make -s -C selftests sroce/fan_verify || exit 1

OUT=$SRC/build/bench
rm -rf "$OUT" "$OUT-tap" "$OUT-fanin" "$OUT-busy" "$OUT-ecn"
export BENCH_PARTS=${BENCH_PARTS:-count time scale ucx scale-tap fanin busy ecn}
rc=0
case " $BENCH_PARTS " in
*" count "* | *" time "* | *" scale "* | *" ucx "*)
	SROCE_ICOUNT=$SRC/build/host/icount.so${BENCH_PROFILE:+,prof=on} \
	SROCE_GUEST_ENV="BENCH_IMPLS BENCH_PARTS BENCH_PROFILE BENCH_MTUS BENCH_REPEAT BENCH_SCALE_SECS ${SROCE_GUEST_ENV:-}" \
		tools/testbed/vm.sh --pair -t 9000 -m 2048 -o "$OUT" \
		tools/bench/guest.sh || rc=1
	;;
esac
# The scale rows again with tap NICs (offloads on, as a cloud host's
# virtio NICs have them): the issue's targets are for both NICs.
case " $BENCH_PARTS " in
*" scale-tap "*)
	BENCH_PARTS=scale SROCE_NET=tap \
	SROCE_GUEST_ENV="BENCH_IMPLS BENCH_PARTS BENCH_MTUS BENCH_SCALE_SECS ${SROCE_GUEST_ENV:-}" \
		tools/testbed/vm.sh --pair -t 9000 -m 2048 -o "$OUT-tap" \
		tools/bench/guest.sh || rc=1
	;;
esac
# Fan-in: BENCH_FANIN_GUESTS (default 4) guests on one bridge, all but
# one sending to it (tools/bench/fanin.sh), sroce then rdma_rxe.
case " $BENCH_PARTS " in
*" fanin "*)
	SROCE_GUEST_ENV="BENCH_FANIN_QPS BENCH_SCALE_SECS ${SROCE_GUEST_ENV:-}" \
		tools/testbed/vm.sh --guests "${BENCH_FANIN_GUESTS:-4}" -t 900 \
		-m 1024 -o "$OUT-fanin" tools/bench/fanin.sh || rc=1
	;;
esac
case " $BENCH_PARTS " in
*" busy "*)
	SROCE_GUEST_ENV="BENCH_BUSY_ITERS ${SROCE_GUEST_ENV:-}" \
		tools/testbed/vm.sh --guests 4 -t 1800 -m 1024 \
		-o "$OUT-busy" tools/bench/busy.sh || rc=1
	;;
esac
case " $BENCH_PARTS " in
*" ecn "*)
	SROCE_GUEST_ENV="BENCH_ECN_MBIT BENCH_ECN_QPS BENCH_ECN_SECS ${SROCE_GUEST_ENV:-}" \
		tools/testbed/vm.sh --pair -t 1800 -m 1024 \
		-o "$OUT-ecn" tools/bench/ecn.sh || rc=1
	;;
esac
tools/bench/report.py "$OUT" --tap "$OUT-tap" --fanin "$OUT-fanin" \
	--busy "$OUT-busy" --ecn "$OUT-ecn"

make -s -f tools/host.mk sim || exit 1
build/host/sim --bench
exit $rc
