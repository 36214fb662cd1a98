/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce ICRC (RoCEv2 Invariant CRC) API, implemented in sroce_icrc.c.
 *
 * The ICRC is the standard CRC-32 (IEEE 802.3: reflected poly 0xEDB88320,
 * register preset to all ones, result inverted) over:
 *   8 bytes of 0xff (stand-in for the IB LRH),
 *   the IP header with variant fields set to all ones (IPv4: TOS, TTL,
 *   header checksum; IPv6: traffic class, flow label, hop limit),
 *   the UDP header with the checksum set to 0xffff,
 *   the BTH with byte 4 (resv8a) set to 0xff,
 *   the extension headers, the payload and the pad bytes.
 *
 * Byte order on the wire: the 32-bit result is stored least significant
 * byte first (little-endian), exactly like an Ethernet FCS.  Evidence:
 *  - rdma_rxe (rxe_icrc.c) keeps the CRC in a host u32 produced by
 *    crc32_le() and stores "~crc" with a plain 32-bit store into the packet
 *    (the __be32 annotation there is a sparse cast, no byte swap), i.e. LSB
 *    first on x86, and x86 rxe interoperates with RoCE HCAs;
 *  - scapy.contrib.roce (2.5.0) packs the zlib.crc32() value with
 *    struct.pack("!I", icrc)[::-1], i.e. little-endian;
 *  - with the value stored LSB first, the CRC-32 of image + ICRC bytes is
 *    the CRC-32 residue (0x2144df1c, raw register 0xdebb20e3), the
 *    property of a correctly serialised reflected CRC.
 * Wireshark shows the field as the four wire bytes read big-endian, i.e.
 * byte-swapped relative to the numeric value computed here.
 */
#ifndef _SROCE_ICRC_H
#define _SROCE_ICRC_H

#include "sroce/wire.h"

/* Raw CRC register after presetting ~0 and feeding 8 bytes of 0xff */
#define SROCE_ICRC_SEED		0xdebb20e3U

/*
 * Length of the IP + UDP headers at @ip (28 for IPv4, 48 for IPv6), or
 * -SROCE_DROP_BAD_NET_HDR if @len bytes do not hold them, the IP version is
 * neither 4 nor 6, IPv4 carries options, or the next protocol is not UDP.
 */
int sroce_net_hdr_len(const u8 *ip, size_t len);

/*
 * Start an ICRC: feed the masked IP, UDP and BTH headers at @ip (@len bytes
 * available) into the CRC and store the raw register in *@crc.  Returns the
 * number of bytes consumed (IP + UDP + BTH) or -enum sroce_drop_reason.
 * The caller's buffer is never written.
 */
int sroce_icrc_begin(const u8 *ip, size_t len, u32 *crc);

/* Continue an ICRC over @len further (unmasked) bytes */
static inline u32 sroce_icrc_update(u32 crc, const u8 *p, size_t len)
{
	return sroce_crc32_le(crc, p, len);
}

/* Finish an ICRC: the value to put on the wire with sroce_icrc_put() */
static inline u32 sroce_icrc_final(u32 crc)
{
	return ~crc;
}

/* Read / write the 4 ICRC bytes in wire (little-endian) order */
static inline u32 sroce_icrc_get(const u8 *p)
{
	return sroce_get_le32(p);
}

static inline void sroce_icrc_put(u8 *p, u32 icrc)
{
	sroce_put_le32(p, icrc);
}

/*
 * ICRC of a packet image from the IP header through the last pad byte
 * (@len bytes, ICRC field excluded).  Returns 0 with *@icrc set, or
 * -enum sroce_drop_reason.
 */
int sroce_icrc_compute(const u8 *ip, size_t len, u32 *icrc);

/*
 * Check the ICRC of a packet image from the IP header through the ICRC
 * field (@len bytes).  Returns 0 if it matches, -SROCE_DROP_BAD_ICRC if not,
 * another -enum sroce_drop_reason if the headers are unusable.
 */
int sroce_icrc_verify(const u8 *ip, size_t len);

#endif /* _SROCE_ICRC_H */
