#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# roce_capture.py: hold on to what a packet socket sees leave a netdev,
# and only later look at it, as a slow capture tool would. It opens the
# socket (every protocol, the way tcpdump does: only those see outgoing
# packets), writes --ready, reads nothing until --stop exists, then reads
# everything queued and checks the ICRC of each outgoing RoCEv2 packet
# over IPv4.
#
# A zero-copy packet whose payload is a user MR's pages must reach the
# socket as a copy made when it was sent: if the socket's clone shared
# the pages, its bytes are what the application wrote there since, and
# the ICRC computed over the old bytes no longer matches.
#
#   roce_capture.py --dev eth0 --ready FILE --stop FILE [--min BYTES]
#
# Prints "checked N big M bad K": N RoCE packets checked, M of them with
# at least --min bytes (default 256) after the UDP header, K whose ICRC
# did not match. Exits 1 if any did not.
import argparse
import os
import select
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from roce_forge import icrc  # noqa: E402

ETH_P_ALL = 0x0003
ETH_P_IP = 0x0800
PACKET_OUTGOING = 4
SO_RCVBUFFORCE = 33
ROCE_PORT = 4791


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dev', required=True)
    ap.add_argument('--ready', required=True)
    ap.add_argument('--stop', required=True)
    ap.add_argument('--min', type=int, default=256)
    a = ap.parse_args()

    s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM,
                      socket.htons(ETH_P_ALL))
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
    s.bind((a.dev, ETH_P_ALL))
    open(a.ready, 'w').close()
    while not os.path.exists(a.stop):
        time.sleep(0.1)

    checked = big = bad = 0
    while select.select([s], [], [], 0)[0]:
        data, addr = s.recvfrom(65536)
        if addr[1] != ETH_P_IP or addr[2] != PACKET_OUTGOING:
            continue
        if len(data) < 20 + 8 + 12 + 4 or data[0] != 0x45 or data[9] != 17:
            continue
        if int.from_bytes(data[22:24], 'big') != ROCE_PORT:
            continue
        total = int.from_bytes(data[2:4], 'big')
        pkt = data[:total]
        checked += 1
        if total - 28 >= a.min:
            big += 1
        if icrc(pkt[:-4]) != pkt[-4:]:
            bad += 1
    print(f'checked {checked} big {big} bad {bad}')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
