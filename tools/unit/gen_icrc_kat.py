#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Regenerates the ICRC known-answer vectors of tools/unit/test_icrc.c.
# Needs Debian's python3-scapy (2.5.0).  Not used by the build.
#
# IPv4: scapy.contrib.roce computes the ICRC itself (BTH.post_build); the
# result is cross-checked with the hand-written zlib.crc32 reference below.
# IPv6: scapy 2.5 has no IPv6 ICRC ("TODO support IPv6"), so the vector comes
# from the zlib reference alone (masks per IBTA A17 / rdma_rxe).
import struct
import zlib

from scapy.contrib.roce import BTH
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.packet import Raw, raw


def ref_icrc(ip_to_pad):
    """CRC-32 of 8 x 0xff + masked IP/UDP/BTH + rest, as an integer."""
    b = bytearray(ip_to_pad)
    if b[0] >> 4 == 4:
        b[1] = 0xff                       # TOS
        b[8] = 0xff                       # TTL
        b[10:12] = b'\xff\xff'            # header checksum
        udp = (b[0] & 15) * 4
    else:
        b[0] |= 0x0f                      # traffic class (high nibble)
        b[1:4] = b'\xff\xff\xff'          # traffic class low + flow label
        b[7] = 0xff                       # hop limit
        udp = 40
    b[udp + 6:udp + 8] = b'\xff\xff'      # UDP checksum
    b[udp + 8 + 4] = 0xff                 # BTH resv8a
    return zlib.crc32(b'\xff' * 8 + bytes(b)) & 0xffffffff


def show(name, pkt):
    print('/* %s: %d bytes, ICRC = 0x%08x */' % (name, len(pkt),
                                                  struct.unpack('<I', pkt[-4:])[0]))
    for i in range(0, len(pkt), 12):
        print('\t' + ' '.join('0x%02x,' % c for c in pkt[i:i + 12]))


# RC RDMA WRITE Only (0x0a): RETH + 13 payload bytes + 3 pad bytes
reth = struct.pack('>QII', 0x0000123456789abc, 0x00c0ffee, 13)
v4 = (IP(src='10.0.0.1', dst='10.0.0.2', tos=0x0a, id=0x4242, flags='DF',
         ttl=64) /
      UDP(sport=0xc0de, dport=4791) /
      BTH(opcode=0x0a, solicited=0, migreq=0, padcount=3, pkey=0xffff,
          dqpn=0x000123, ackreq=1, psn=0xfffffe) /
      Raw(reth + bytes(range(0x41, 0x41 + 13)) + b'\0\0\0'))
v4 = raw(v4)
assert ref_icrc(v4[:-4]) == struct.unpack('<I', v4[-4:])[0], 'scapy != ref'
show('IPv4 RC WRITE_ONLY (scapy)', v4)

# UD SEND Only with Immediate (0x65): DETH + ImmDt + 6 bytes + 2 pad bytes
deth = struct.pack('>IBBH', 0x80010000, 0, 0x00, 0x0001)
imm = struct.pack('>I', 0xdeadbeef)
body = (struct.pack('>BBHBBBBBBBB', 0x65, 0xa0, 0xffff, 0, 0x00, 0x00, 0x07,
                    0, 0x00, 0x10, 0x20) +
        deth + imm + b'hello!' + b'\0\0')
udp_len = 8 + len(body) + 4
ip6 = raw(IPv6(src='fe80::1', dst='fe80::2', tc=0x28, fl=0x12345, hlim=64,
               nh=17, plen=udp_len))
udph = struct.pack('>HHHH', 0xc123, 4791, udp_len, 0xabcd)
v6 = ip6 + udph + body
v6 += struct.pack('<I', ref_icrc(v6))
show('IPv6 UD SEND_ONLY_IMM (zlib reference)', v6)
