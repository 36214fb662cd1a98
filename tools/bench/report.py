#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""make bench's tables, from guest b's output (tools/bench/guest.sh) and,
for the counted part, both guests' icount plugin output (a/icount.txt,
b/icount.txt: "mark ID KERNEL OTHER" lines).

Counted: "COUNT impl mtu test size N ID rc". A case ran N iterations
between marks ID and ID+1 and 2N between ID+1 and ID+2; its marginal cost
is (c[ID+2] - c[ID+1]) - (c[ID+1] - c[ID]) per guest: the cost of N more
iterations, with start-up and teardown gone. Per MiB moved and per
message, guest kernel instructions.

Timed: "RESULT impl mtu test size qps metric value", several rounds of
each; the table gives the median and the spread (min-max) over them, and
sroce against rdma_rxe (bandwidth sroce/rxe, latency sroce/rxe: the
issue's targets are >= 3x and <= 0.5x).

usage: report.py OUTDIR [--tap DIR] [--fanin DIR] [--busy DIR] [--ecn DIR]
(the other parts' output directories, each read if given)"""
import argparse
import statistics
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


def counted(out, lines):
    ka = marks(out + '/a/icount.txt')
    kb = marks(out + '/b/icount.txt')
    rows = []
    for w in lines:
        if len(w) == 8 and w[0] == 'COUNT':
            impl, mtu, test, size, n, i, rc = w[1], w[2], w[3], int(w[4]), \
                int(w[5]), int(w[6]), w[7]
            rows.append((impl, mtu, test, size, n, rc, marginal(ka, i),
                         marginal(kb, i)))
    if not rows:
        return
    both = {}
    print('Counted: guest kernel instructions, marginal cost of N more'
          ' iterations')
    print('(b: perftest/iperf3 client, which sends for write, send and tcp'
          ' and reads for read; a: server)')
    print(f'{"impl":10} {"mtu":>5} {"test":12} {"size":>8} {"N":>5} '
          f'{"b/MiB":>10} {"a/MiB":>10} {"both/MiB":>10} {"both/msg":>10}')
    for impl, mtu, test, size, n, rc, ma, mb in rows:
        mib = size * n / MIB
        if rc != '0' or ma is None or mb is None:
            print(f'{impl:10} {mtu:>5} {test:12} {size:8} {n:5} '
                  f'{"FAILED":>10}')
            continue
        both[(impl, mtu, test, size)] = (ma + mb, n, mib)
        print(f'{impl:10} {mtu:>5} {test:12} {size:8} {n:5} {mb / mib:10.0f} '
              f'{ma / mib:10.0f} {(ma + mb) / mib:10.0f} '
              f'{(ma + mb) / n:10.0f}')
    print()
    print('Counted, sroce against rdma_rxe and kernel TCP (both guests;'
          ' targets: bulk <= 0.33x of rxe and < 1x of tcp, 64 B <= 0.5x'
          ' of rxe)')
    for (impl, mtu, test, size), (c, n, mib) in both.items():
        if impl != 'sroce':
            continue
        r = both.get(('rxe', mtu, test, size))
        vs_rxe = f'{c / r[0]:.2f}x' if r else 'n/a'
        if size <= 64:
            print(f'mtu {mtu:>5} {test:12} {size:>8} per message: {vs_rxe}'
                  ' of rxe')
            continue
        tcp = both.get(('tcp', mtu, 'iperf3', MIB))
        vs_tcp = f'{(c / mib) / (tcp[0] / tcp[2]):.2f}x' if tcp else 'n/a'
        print(f'mtu {mtu:>5} {test:12} {size:>8} per MiB: {vs_rxe} of rxe, '
              f'{vs_tcp} of tcp')
    print()


def timed(lines):
    v = {}
    order = []
    for w in lines:
        if len(w) == 8 and w[0] == 'RESULT':
            impl, key = w[1], tuple(w[2:7])
            if key not in order:
                order.append(key)
            try:
                v.setdefault((impl, key), []).append(float(w[7]))
            except ValueError:
                v.setdefault((impl, key), [])
    if not order:
        return
    print('Timed: median over rounds (min-max); bw in MB/s, p50/p99 in usec')
    print(f'{"mtu":>5} {"test":12} {"size":>8} {"qps":>3} {"metric":6} '
          f'{"sroce":>20} {"rxe":>20} {"tcp":>20} {"sroce/rxe":>9}')

    def cell(x):
        if not x:
            return 'n/a' if x is None else 'FAILED'
        return f'{statistics.median(x):.1f} ({min(x):.0f}-{max(x):.0f})'

    for key in order:
        mtu, test, size, qps, metric = key
        s, r, t = (v.get((i, key)) for i in ('sroce', 'rxe', 'tcp'))
        ratio = 'n/a'
        if s and r:
            ratio = f'{statistics.median(s) / statistics.median(r):.2f}x'
        print(f'{mtu:>5} {test:12} {size:>8} {qps:>3} {metric:6} '
              f'{cell(s):>20} {cell(r):>20} {cell(t) if t else "":>20} '
              f'{ratio:>9}')
    print()


SCALE_SHOWN = ('b:retransmit_timeouts', 'b:retransmits', 'b:requester_rewinds',
               'b:tx_budget_held', 'a:seq_naks_sent', 'a:duplicate_requests',
               'a:rx_packets')


def words(path):
    """A guest's output as lines of words, or None if there is none."""
    try:
        with open(path, errors='replace') as f:
            return [line.split() for line in f]
    except OSError:
        return None


def scale(lines, nic='socket'):
    """"SCALE impl mtu qps MB/s min median max jain" and
    "SCALECNT impl mtu qps SIDE:NAME DELTA" lines: one row per QP count,
    with its bandwidth against one QP's of the same impl and MTU; @nic
    names the guests' NICs."""
    rows, cnt, order = {}, {}, []
    for w in lines:
        if len(w) >= 5 and w[0] == 'SCALE':
            key = (w[1], w[2], int(w[3]))
            rows[key] = w[4:9] if len(w) >= 9 else None
            if key[1:] not in order:
                order.append(key[1:])
        elif len(w) == 6 and w[0] == 'SCALECNT':
            cnt.setdefault((w[1], w[2], int(w[3])), {})[w[4]] = int(w[5])
    if not order:
        return
    print(f'Scale, {nic} NIC: RC QPs of 64 KiB RDMA Writes at once'
          ' (fan_verify, data checked); MB/s in all, x one QP, per-QP'
          ' min/median/max, Jain')
    print(f'{"mtu":>5} {"qps":>4} {"impl":6} {"MB/s":>7} {"x1QP":>5} '
          f'{"min/median/max":>20} {"Jain":>6}  counters')
    for mtu, qps in order:
        for impl in ('sroce', 'sroce-copy', 'rxe'):
            if (impl, mtu, qps) not in rows:
                continue
            r = rows[(impl, mtu, qps)]
            if not r or r[0] == 'FAILED':
                print(f'{mtu:>5} {qps:4} {impl:6} {"FAILED":>7}')
                continue
            one = rows.get((impl, mtu, 1))
            x = (f'{float(r[0]) / float(one[0]):.2f}'
                 if one and one[0] != 'FAILED' and float(one[0]) else 'n/a')
            c = cnt.get((impl, mtu, qps), {})
            shown = ' '.join(f'{k.split(":")[1]} {c[k]}' for k in SCALE_SHOWN
                             if k in c)
            dup = c.get('a:duplicate_requests')
            rx = c.get('a:rx_packets')
            if dup is not None and rx:
                shown += f' ({100.0 * dup / rx:.1f} % dup)'
            # b's packets that never reached a's device: what the wire
            # (the guests' rings, the host's socket or tap) dropped
            tx = c.get('b:tx_packets')
            if tx and rx is not None and tx >= rx:
                shown += f'; wire lost {tx - rx} ({100.0 * (tx - rx) / tx:.1f} %)'
            print(f'{mtu:>5} {qps:4} {impl:6} {float(r[0]):7.2f} {x:>5} '
                  f'{r[1] + "/" + r[2] + "/" + r[3]:>20} {r[4]:>6}  {shown}')
    print()


def fanin(path):
    """Guest a's output of the fan-in part (tools/bench/fanin.sh): per
    driver, one pair against all senders at once, their MB/s summed,
    Jain's index over the senders, a's check of every region."""
    lines = words(path)
    if lines is None:
        return
    mbs, chk, cnt = {}, {}, {}
    for w in lines:
        if len(w) >= 5 and w[0] == 'FANIN':
            try:
                mbs.setdefault((w[1], w[2]), []).append(float(w[4]))
            except ValueError:
                mbs.setdefault((w[1], w[2]), []).append(None)
        elif len(w) == 5 and w[0] == 'FANINCHK':
            chk.setdefault((w[1], w[2]), []).append(w[4] == 'ok')
        elif len(w) == 5 and w[0] == 'FANINCNT':
            d = cnt.setdefault((w[1], w[2]), {})
            name = w[3].split(':')[1]
            d[name] = d.get(name, 0) + int(w[4])
    if not mbs:
        return
    print('Fan-in: senders to one receiver at once, RC QPs of 64 KiB RDMA'
          ' Writes (fan_verify); MB/s summed over senders, x one pair,'
          ' Jain over senders; counters summed over all guests')
    for impl in ('sroce', 'rxe'):
        pair = mbs.get((impl, 'pair'))
        for rnd in ('pair', 'fanin'):
            v = mbs.get((impl, rnd))
            if not v:
                continue
            ok = all(chk.get((impl, rnd), [False]))
            if None in v:
                print(f'{impl:6} {rnd:6} {len(v)} senders: FAILED')
                continue
            tot = sum(v)
            jain = tot * tot / (len(v) * sum(x * x for x in v)) if tot else 0
            x = (f'{tot / sum(pair):.2f}x'
                 if pair and None not in pair and sum(pair) else 'n/a')
            c = cnt.get((impl, rnd), {})
            shown = ' '.join(f'{k} {c[k]}' for k in sorted(c) if c[k])
            if not ok:
                shown = 'DATA CHECK FAILED (a\'s output says why); ' + shown
            print(f'{impl:6} {rnd:6} {len(v)} senders: {tot:7.2f} MB/s'
                  f' {x:>6}, Jain {jain:.3f}, each'
                  f' {"/".join(f"{y:.1f}" for y in v)}; {shown}')
    print()


def busy(path):
    """Guest b's output of the busy-host part (tools/bench/busy.sh): per
    driver and case, one QP's time for its messages on a quiet host and
    with two more guests burning CPU, the ratio, and the counters of the
    busy run (both sides summed)."""
    lines = words(path)
    if lines is None:
        return
    secs, cnt, iters = {}, {}, {}
    for w in lines:
        if len(w) >= 6 and w[0] == 'BUSY':
            key = (w[1], w[2], w[3])
            iters[key] = w[4]
            try:
                secs[key] = (float(w[5]), float(w[6]))
            except (ValueError, IndexError):
                secs[key] = None
        elif len(w) == 6 and w[0] == 'BUSYCNT':
            d = cnt.setdefault((w[1], w[2], w[3]), {})
            name = w[4].split(':')[1]
            d[name] = d.get(name, 0) + int(w[5])
    if not secs:
        return
    print('Busy host: one RC QP of 4 KiB messages (perftest), quiet, then'
          ' with two more guests burning CPU; seconds for the messages,'
          ' busy / quiet (target: at most 2x); counters of the busy run')
    for impl in ('sroce', 'rxe'):
        for test in ('ib_write_bw', 'ib_read_bw'):
            q = secs.get((impl, 'quiet', test))
            b = secs.get((impl, 'busy', test))
            if (impl, 'quiet', test) not in secs:
                continue
            n = iters.get((impl, 'quiet', test), '?')
            qs = f'{q[0]:7.2f} s ({q[1]:.1f} MB/s)' if q else 'FAILED'
            bs = f'{b[0]:7.2f} s ({b[1]:.1f} MB/s)' if b else 'FAILED'
            x = f'{b[0] / q[0]:.2f}x' if q and b and q[0] else 'n/a'
            c = cnt.get((impl, 'busy', test), {})
            shown = ' '.join(f'{k} {c[k]}' for k in sorted(c) if c[k])
            print(f'{impl:6} {test:12} {n} msgs: quiet {qs}, busy {bs}'
                  f' {x:>6}; {shown}')
    print()


def ucx(lines):
    """"UCX impl mtu scheme MB/s" and "UCXCNT impl mtu scheme SIDE:NAME
    DELTA" lines: MPI's large messages over UCX, with what was received
    twice (the target: at most 1 % of packets) and sent again."""
    rows, cnt = [], {}
    for w in lines:
        if len(w) >= 5 and w[0] == 'UCX':
            rows.append(w[1:5])
        elif len(w) == 6 and w[0] == 'UCXCNT':
            cnt.setdefault(tuple(w[1:4]), {})[w[4]] = int(w[5])
    if not rows:
        return
    print('UCX, as MPI uses it: ucx_perftest tag_bw of 4 MiB messages,'
          ' rendezvous by RDMA Write (put_zcopy) or Read (get_zcopy);'
          ' MB/s, packets received twice and sent again (both sides)')
    for impl, mtu, scheme, bw in rows:
        c = cnt.get((impl, mtu, scheme), {})
        extra = ''
        rx = c.get('a:rx_packets', 0) + c.get('b:rx_packets', 0)
        if rx:
            dup = c.get('a:duplicate_requests', 0) + \
                c.get('b:duplicate_requests', 0)
            resent = c.get('a:retransmits', 0) + c.get('b:retransmits', 0)
            tmo = c.get('a:retransmit_timeouts', 0) + \
                c.get('b:retransmit_timeouts', 0)
            extra = (f'; duplicates {dup} ({100.0 * dup / rx:.2f} % of'
                     f' {rx} received), resent {resent}, timeouts {tmo}')
        print(f'{mtu:>5} {impl:6} {scheme:10} {bw:>9} MB/s{extra}')
    print()


ECN_SHOWN = ('a:ecn_marked', 'a:cnp_sent', 'b:cnp_received', 'b:rate_cuts',
             'b:tx_paced', 'b:retransmits', 'b:retransmit_timeouts')


def ecn(path):
    """Guest b's output of the ECN part (tools/bench/ecn.sh): per case,
    RDMA and TCP through one marking bottleneck, each one's share of the
    link, the queue's delay and what it marked and dropped."""
    lines = words(path)
    if lines is None:
        return
    rows, cnt = [], {}
    for w in lines:
        if len(w) >= 3 and w[0] == 'ECN':
            rows.append(w[1:])
        elif len(w) == 5 and w[0] == 'ECNCNT':
            cnt.setdefault((w[1], w[2]), {})[w[3]] = int(w[4])
    if not rows:
        return
    print('ECN: RC QPs of 64 KiB RDMA Writes and one TCP flow (ECN on) at'
          ' once through a tbf + RED/ECN bottleneck; MB/s and share of the'
          ' link (target: each at least 1/3), queue delay p50/p99/max ms'
          ' (samples), RED marks and drops, RDMA packets lost (target'
          ' with ECN: none)')
    for r in rows:
        case, qps = r[0], r[1]
        try:
            rdma, tcp, link = float(r[2]), float(r[3]), float(r[4])
            delay = f'{r[5]}/{r[6]}/{r[7]} ({r[8]})'
            marked, dropped = r[9], r[10]
        except (ValueError, IndexError):
            print(f'{case:10} {qps:>3} FAILED {" ".join(r[2:])}')
            continue
        c = cnt.get((case, qps), {})
        shown = ' '.join(f'{k.split(":")[1]} {c[k]}' for k in ECN_SHOWN
                         if k in c)
        tx, rx = c.get('b:tx_packets'), c.get('a:rx_packets')
        lost = f'{tx - rx}' if tx is not None and rx is not None else 'n/a'
        print(f'{case:10} {qps:>3} QPs: rdma {rdma:5.2f} ({rdma / link:.2f})'
              f' tcp {tcp:5.2f} ({tcp / link:.2f}) of {link:.2f} MB/s;'
              f' delay {delay}; marked {marked} dropped {dropped};'
              f' rdma lost {lost}{"; " + shown if shown else ""}')
    print()


def main():
    ap = argparse.ArgumentParser(description='make bench\'s tables')
    ap.add_argument('out')
    for part in ('tap', 'fanin', 'busy', 'ecn'):
        ap.add_argument('--' + part, metavar='DIR')
    args = ap.parse_args()
    lines = words(args.out + '/b/output.txt')
    if lines is None:
        print(f'report.py: no {args.out}/b/output.txt')
    else:
        counted(args.out, lines)
        timed(lines)
        scale(lines)
        ucx(lines)
    if args.tap:
        scale(words(args.tap + '/b/output.txt') or [], 'tap')
    if args.fanin:
        fanin(args.fanin + '/a/output.txt')
    if args.busy:
        busy(args.busy + '/b/output.txt')
    if args.ecn:
        ecn(args.ecn + '/b/output.txt')
    return 0


if __name__ == '__main__':
    sys.exit(main())
