#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""make bench's counted table: guest kernel instructions per MiB moved and
per message, from the two guests' icount plugin output (a/icount.txt,
b/icount.txt: "mark ID KERNEL OTHER" lines) and guest b's "COUNT impl test
size N ID rc" lines (tools/bench/guest.sh).

A case ran N iterations between marks ID and ID+1 and 2N between ID+1
and ID+2; its marginal cost is (c[ID+2] - c[ID+1]) - (c[ID+1] - c[ID]) per
guest: the cost of N more iterations, with start-up and teardown gone.

usage: report.py OUTDIR"""
import sys

MIB = 1 << 20


def marks(path):
    k = {}
    try:
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) == 4 and w[0] == 'mark':
                    k[int(w[1])] = int(w[2])
    except OSError:
        pass
    return k


def marginal(k, i):
    if i in k and i + 1 in k and i + 2 in k:
        return (k[i + 2] - k[i + 1]) - (k[i + 1] - k[i])
    return None


def main():
    out = sys.argv[1]
    ka = marks(out + '/a/icount.txt')
    kb = marks(out + '/b/icount.txt')
    rows = []
    with open(out + '/b/output.txt', errors='replace') as f:
        for line in f:
            w = line.split()
            if len(w) == 7 and w[0] == 'COUNT':
                impl, test, size, n, i, rc = w[1], w[2], int(w[3]), \
                    int(w[4]), int(w[5]), w[6]
                ma, mb = marginal(ka, i), marginal(kb, i)
                rows.append((impl, test, size, n, rc, ma, mb))
    if not rows:
        print('no counted cases (BENCH_PARTS without "count"?)')
        return 0

    both = {}
    print('Guest kernel instructions, marginal cost of N more iterations')
    print('(b: perftest/iperf3 client, which sends for write, send and tcp'
          ' and reads for read; a: server)')
    print(f'{"impl":6} {"test":10} {"size":>8} {"N":>5} '
          f'{"b/MiB":>10} {"a/MiB":>10} {"both/MiB":>10} {"both/msg":>10}')
    for impl, test, size, n, rc, ma, mb in rows:
        mib = size * n / MIB
        if rc != '0' or ma is None or mb is None:
            print(f'{impl:6} {test:10} {size:8} {n:5} {"FAILED":>10}')
            continue
        both[(impl, test, size)] = (ma + mb, n, mib)
        print(f'{impl:6} {test:10} {size:8} {n:5} {mb / mib:10.0f} '
              f'{ma / mib:10.0f} {(ma + mb) / mib:10.0f} '
              f'{(ma + mb) / n:10.0f}')

    print()
    print('sroce relative to rdma_rxe and to kernel TCP (both guests;'
          ' below 1 is cheaper)')
    tcp = both.get(('tcp', 'iperf3', MIB))
    for (impl, test, size), (c, n, mib) in both.items():
        if impl != 'sroce':
            continue
        r = both.get(('rxe', test, size))
        vs_rxe = f'{c / r[0]:.2f}x' if r else 'n/a'
        if size <= 64:
            print(f'{test:10} {size:>8} per message: {vs_rxe} of rxe')
            continue
        vs_tcp = f'{(c / mib) / (tcp[0] / tcp[2]):.2f}x' if tcp else 'n/a'
        print(f'{test:10} {size:>8} per MiB: {vs_rxe} of rxe, '
              f'{vs_tcp} of tcp')
    return 0


if __name__ == '__main__':
    sys.exit(main())
