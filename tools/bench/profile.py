#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Where one counted case of make bench spends its guest kernel
instructions, by symbol, from a run with BENCH_PROFILE=1: the icount
plugin then writes, at each mark ID, cumulative per-block counts to
HOST/icount.txt.ID, and each guest saves /proc/kallsyms while each driver
is loaded (HOST/kallsyms-IMPL.txt). The marginal cost of the case's N
more iterations is split by the symbol each translation block starts in.

usage: profile.py OUTDIR IMPL TEST SIZE [MTU [TOP]]
e.g.   profile.py build/bench sroce ib_write_bw 1048576 1500 25"""
import bisect
import sys

MIB = 1 << 20


def load_sites(path):
    c = {}
    with open(path) as f:
        for line in f:
            a, n = line.split()
            c[int(a, 16)] = int(n)
    return c


def load_syms(path):
    syms = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) < 3 or w[1] not in 'tTwW':
                continue
            name = w[2] + (' ' + w[3] if len(w) > 3 else '')
            syms.append((int(w[0], 16), name))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def profile(out, host, impl, i):
    c = [load_sites(f'{out}/{host}/icount.txt.{i + j}') for j in range(3)]
    addrs, names = load_syms(f'{out}/{host}/kallsyms-{impl}.txt')
    by = {}
    for a in set(c[0]) | set(c[1]) | set(c[2]):
        v = [x.get(a, 0) for x in c]
        m = (v[2] - v[1]) - (v[1] - v[0])
        k = bisect.bisect_right(addrs, a) - 1
        name = names[k] if k >= 0 else f'{a:#x}'
        by[name] = by.get(name, 0) + m
    return by


def main():
    out, impl, test, size = sys.argv[1:5]
    mtu = sys.argv[5] if len(sys.argv) > 5 else '1500'
    top = int(sys.argv[6]) if len(sys.argv) > 6 else 25
    row = None
    with open(out + '/b/output.txt', errors='replace') as f:
        for line in f:
            w = line.split()
            if len(w) == 8 and w[0] == 'COUNT' and \
                    w[1:5] == [impl, mtu, test, size]:
                row = w
    if not row:
        print(f'no COUNT line for {impl} mtu {mtu} {test} {size}')
        return 1
    n, i = int(row[5]), int(row[6])
    mib = int(size) * n / MIB
    for host, what in (('b', 'client'), ('a', 'server')):
        by = profile(out, host, impl, i)
        total = sum(by.values())
        print(f'# {impl} mtu {mtu} {test} {size}, guest {host} ({what}): '
              f'{total / mib:.0f} instructions/MiB, {total / n:.0f}/iteration')
        for name, m in sorted(by.items(), key=lambda x: -x[1])[:top]:
            print(f'{100 * m / total:6.1f}% {m / mib:12.0f}/MiB  {name}')
        print()
    return 0


if __name__ == '__main__':
    sys.exit(main())
