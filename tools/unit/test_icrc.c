// SPDX-License-Identifier: GPL-2.0-only
/*
 * ICRC tests: the host CRC32, known answers for IPv4 and IPv6 packets from
 * independent implementations, wire byte order, masked fields not affecting
 * the ICRC, unmasked ones affecting it, header validation.
 */
#include <stdlib.h>
#include <string.h>

#include "sroce/icrc.h"
#include "sroce/opcode.h"
#include "tap.h"
#include "tests.h"

/*
 * KAT 1: IPv4, RC RDMA WRITE Only, built and ICRC'd by scapy 2.5.0
 * (Debian python3-scapy, scapy.contrib.roce BTH.post_build), cross-checked
 * against a zlib.crc32 reference; see tools/unit/gen_icrc_kat.py.
 * IP 10.0.0.1 -> 10.0.0.2, TOS 0x0a, ID 0x4242, DF, TTL 64, UDP 0xc0de ->
 * 4791 with a real (non-zero) UDP checksum 0x95bd, BTH opcode 0x0a, PadCnt 3,
 * DestQP 0x123, A=1, PSN 0xfffffe, RETH VA 0x123456789abc R_Key 0xc0ffee
 * len 13, payload "ABCDEFGHIJKLM", 3 pad bytes.  ICRC 0xd51230ec.
 */
static const u8 kat_v4[] = {
	0x45, 0x0a, 0x00, 0x4c, 0x42, 0x42, 0x40, 0x00, 0x40, 0x11, 0xe4, 0x52,
	0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02, 0xc0, 0xde, 0x12, 0xb7,
	0x00, 0x38, 0x95, 0xbd, 0x0a, 0x30, 0xff, 0xff, 0x00, 0x00, 0x01, 0x23,
	0x80, 0xff, 0xff, 0xfe, 0x00, 0x00, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc,
	0x00, 0xc0, 0xff, 0xee, 0x00, 0x00, 0x00, 0x0d, 0x41, 0x42, 0x43, 0x44,
	0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x00, 0x00, 0x00,
	0xec, 0x30, 0x12, 0xd5,
};

#define KAT_V4_ICRC	0xd51230ecU

/*
 * KAT 2: the frame of roce-wire.md section 6 without its Ethernet header:
 * IPv4 192.168.1.1 -> .2, TOS 0x02, TTL 64, UDP 0xc123 -> 4791 checksum 0,
 * RC SEND Only, PadCnt 3, DestQP 0x11, A=1, PSN 0x123456, 13 x 0xaa.
 * Re-checked here with scapy 2.5.0 (rebuilding the ICRC of the parsed
 * frame) and with the zlib.crc32 reference: ICRC 0x91d20d54.
 */
static const u8 kat_v4_doc[] = {
	0x45, 0x02, 0x00, 0x3c, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11, 0xa5, 0x27,
	0xc0, 0xa8, 0x01, 0x01, 0xc0, 0xa8, 0x01, 0x02, 0xc1, 0x23, 0x12, 0xb7,
	0x00, 0x28, 0x00, 0x00, 0x04, 0x30, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
	0x80, 0x12, 0x34, 0x56, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
	0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0x00, 0x00, 0x00, 0x54, 0x0d, 0xd2, 0x91,
};

#define KAT_V4_DOC_ICRC	0x91d20d54U

/*
 * KAT 3: IPv6, UD SEND Only with Immediate.  scapy 2.5.0 has no IPv6 ICRC,
 * so the ICRC comes from the zlib.crc32 reference of gen_icrc_kat.py
 * (8 x 0xff + header image with TC, flow label, hop limit, UDP checksum
 * and BTH byte 4 set to ones, as rdma_rxe masks them); the IPv6 header
 * itself was built by scapy.
 * fe80::1 -> fe80::2, TC 0x28, flow label 0x12345, hop limit 64, UDP 0xc123
 * -> 4791 checksum 0xabcd, BTH 0x65 SE=1 PadCnt 2 DestQP 7 PSN 0x1020,
 * DETH Q_Key 0x80010000 SrcQP 1, ImmDt 0xdeadbeef, "hello!", 2 pad bytes.
 * ICRC 0x96bf5fcd.
 */
static const u8 kat_v6[] = {
	0x62, 0x81, 0x23, 0x45, 0x00, 0x2c, 0x11, 0x40, 0xfe, 0x80, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02, 0xc1, 0x23, 0x12, 0xb7, 0x00, 0x2c, 0xab, 0xcd,
	0x65, 0xa0, 0xff, 0xff, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x10, 0x20,
	0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xde, 0xad, 0xbe, 0xef,
	0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x21, 0x00, 0x00, 0xcd, 0x5f, 0xbf, 0x96,
};

#define KAT_V6_ICRC	0x96bf5fcdU

/* Bitwise reflected CRC32, no inversion: reference for the table code */
static u32 crc32_bitwise(u32 crc, const u8 *p, size_t len)
{
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ ((crc & 1) ? 0xedb88320U : 0);
	}
	return crc;
}

static u8 *dup_exact(const u8 *src, size_t len)
{
	u8 *p = malloc(len);

	if (p)
		memcpy(p, src, len);
	return p;
}

static void test_crc32(void)
{
	static const u8 check[] = "123456789";
	u8 buf[300];
	size_t i, len;

	tap_begin("crc32: host crc32_le gives the CRC-32 check value");
	CHECK_EQ(~sroce_crc32_le(~0U, check, 9), 0xcbf43926);
	CHECK_EQ(sroce_crc32_le(0x1234, check, 0), 0x1234);
	tap_end();

	tap_begin("crc32: table code equals bitwise code, chaining works");
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (u8)(i * 37 + 11);
	for (len = 0; len <= sizeof(buf); len += 13) {
		u32 seed = (u32)len * 0x9e3779b9U;
		u32 a = sroce_crc32_le(seed, buf, len);

		CHECK_EQ(a, crc32_bitwise(seed, buf, len));
		CHECK_EQ(a, sroce_crc32_le(sroce_crc32_le(seed, buf, len / 3),
					   buf + len / 3, len - len / 3));
	}
	tap_end();

	tap_begin("icrc: seed is ~0 advanced over 8 bytes of 0xff");
	memset(buf, 0xff, 8);
	CHECK_EQ(sroce_crc32_le(~0U, buf, 8), SROCE_ICRC_SEED);
	tap_end();
}

static void kat(const char *name, const u8 *pkt, size_t len, u32 expect)
{
	u8 *p = dup_exact(pkt, len);
	u32 icrc = 0;

	tap_begin("icrc: known answer %s", name);
	CHECK_EQ(sroce_icrc_compute(p, len - 4, &icrc), 0);
	CHECK_EQ(icrc, expect);
	CHECK_EQ(sroce_icrc_get(p + len - 4), expect);
	CHECK_EQ(sroce_icrc_verify(p, len), 0);
	CHECK(memcmp(p, pkt, len) == 0);	/* buffer untouched */
	tap_end();
	free(p);
}

static void test_byte_order(const char *name, const u8 *pkt, size_t len)
{
	u8 *p = dup_exact(pkt, len);
	u32 crc, icrc = 0;
	int n;

	tap_begin("icrc: %s: LSB first on the wire, big-endian copy rejected",
		  name);
	CHECK_EQ(sroce_icrc_compute(p, len - 4, &icrc), 0);
	CHECK_EQ(p[len - 4], icrc & 0xff);
	CHECK_EQ(p[len - 1], icrc >> 24);
	sroce_put_be32(p + len - 4, icrc);
	CHECK_EQ(sroce_icrc_verify(p, len), -SROCE_DROP_BAD_ICRC);
	sroce_icrc_put(p + len - 4, icrc);
	CHECK_EQ(sroce_icrc_verify(p, len), 0);
	/* CRC over image + ICRC bytes lands on the CRC-32 residue */
	n = sroce_icrc_begin(p, len, &crc);
	CHECK(n > 0);
	if (n > 0) {
		crc = sroce_icrc_update(crc, p + n, len - (size_t)n);
		CHECK_EQ(crc, 0xdebb20e3);
		CHECK_EQ(~crc, 0x2144df1c);
	}
	tap_end();
	free(p);
}

/* Every value of byte @off (mask @mask of it) leaves the ICRC unchanged */
static void masked(const char *what, const u8 *pkt, size_t len, size_t off,
		   u8 mask, u32 expect)
{
	u8 *p = dup_exact(pkt, len);
	unsigned int v;
	u32 icrc;

	tap_begin("icrc: %s is masked", what);
	for (v = 0; v < 256; v++) {
		p[off] = (u8)((pkt[off] & ~mask) | (v & mask));
		icrc = 0;
		CHECK_EQ(sroce_icrc_compute(p, len - 4, &icrc), 0);
		if (!CHECK_EQ(icrc, expect))
			break;
		CHECK_EQ(sroce_icrc_verify(p, len), 0);
	}
	tap_end();
	free(p);
}

static bool is_masked(const u8 *mask_tbl, size_t off, unsigned int bit)
{
	return mask_tbl[off] & (1u << bit);
}

/*
 * Flipping any bit outside the masks changes the ICRC (or makes the
 * network header unusable, for the version / protocol bytes).
 */
static void unmasked(const char *what, const u8 *pkt, size_t len,
		     const u8 *mask_tbl, size_t mask_len, u32 expect)
{
	u8 *p = dup_exact(pkt, len);
	size_t off;
	unsigned int bit;
	int ret;
	u32 icrc;

	tap_begin("icrc: %s: every unmasked bit is covered", what);
	for (off = 0; off < len - 4; off++) {
		for (bit = 0; bit < 8; bit++) {
			if (off < mask_len && is_masked(mask_tbl, off, bit))
				continue;
			p[off] ^= (u8)(1u << bit);
			icrc = expect;
			ret = sroce_icrc_compute(p, len - 4, &icrc);
			if (ret == 0) {
				if (!CHECK(icrc != expect))
					printf("# byte %zu bit %u\n", off, bit);
				CHECK_EQ(sroce_icrc_verify(p, len),
					 -SROCE_DROP_BAD_ICRC);
			} else {
				CHECK_EQ(ret, -SROCE_DROP_BAD_NET_HDR);
				CHECK(off == 0 || off == 6 || off == 9);
			}
			p[off] ^= (u8)(1u << bit);
		}
	}
	tap_end();
	free(p);
}

static void test_masks(void)
{
	/* per-byte masks of the IP+UDP+BTH image (1 bits are masked) */
	u8 m4[40] = { 0 }, m6[60] = { 0 };

	masked("IPv4 TOS (DSCP+ECN)", kat_v4, sizeof(kat_v4), 1, 0xff,
	       KAT_V4_ICRC);
	masked("IPv4 TTL", kat_v4, sizeof(kat_v4), 8, 0xff, KAT_V4_ICRC);
	masked("IPv4 header checksum (high byte)", kat_v4, sizeof(kat_v4), 10,
	       0xff, KAT_V4_ICRC);
	masked("IPv4 header checksum (low byte)", kat_v4, sizeof(kat_v4), 11,
	       0xff, KAT_V4_ICRC);
	masked("IPv4 UDP checksum (high byte)", kat_v4, sizeof(kat_v4), 26,
	       0xff, KAT_V4_ICRC);
	masked("IPv4 UDP checksum (low byte)", kat_v4, sizeof(kat_v4), 27,
	       0xff, KAT_V4_ICRC);
	masked("IPv4 BTH resv8a (FECN/BECN)", kat_v4, sizeof(kat_v4), 32,
	       0xff, KAT_V4_ICRC);
	masked("IPv6 traffic class (high nibble)", kat_v6, sizeof(kat_v6), 0,
	       0x0f, KAT_V6_ICRC);
	masked("IPv6 traffic class low nibble + flow label", kat_v6,
	       sizeof(kat_v6), 1, 0xff, KAT_V6_ICRC);
	masked("IPv6 flow label (byte 2)", kat_v6, sizeof(kat_v6), 2, 0xff,
	       KAT_V6_ICRC);
	masked("IPv6 flow label (byte 3)", kat_v6, sizeof(kat_v6), 3, 0xff,
	       KAT_V6_ICRC);
	masked("IPv6 hop limit", kat_v6, sizeof(kat_v6), 7, 0xff, KAT_V6_ICRC);
	masked("IPv6 UDP checksum (high byte)", kat_v6, sizeof(kat_v6), 46,
	       0xff, KAT_V6_ICRC);
	masked("IPv6 UDP checksum (low byte)", kat_v6, sizeof(kat_v6), 47,
	       0xff, KAT_V6_ICRC);
	masked("IPv6 BTH resv8a (FECN/BECN)", kat_v6, sizeof(kat_v6), 52,
	       0xff, KAT_V6_ICRC);

	m4[1] = 0xff;
	m4[8] = 0xff;
	m4[10] = 0xff;
	m4[11] = 0xff;
	m4[26] = 0xff;
	m4[27] = 0xff;
	m4[32] = 0xff;
	unmasked("IPv4", kat_v4, sizeof(kat_v4), m4, sizeof(m4), KAT_V4_ICRC);

	m6[0] = 0x0f;
	m6[1] = 0xff;
	m6[2] = 0xff;
	m6[3] = 0xff;
	m6[7] = 0xff;
	m6[46] = 0xff;
	m6[47] = 0xff;
	m6[52] = 0xff;
	unmasked("IPv6", kat_v6, sizeof(kat_v6), m6, sizeof(m6), KAT_V6_ICRC);
}

static void test_chain(void)
{
	u32 crc, icrc = 0;
	int n;

	tap_begin("icrc: begin/update/final in pieces equals compute");
	n = sroce_icrc_begin(kat_v4, sizeof(kat_v4) - 4, &crc);
	CHECK_EQ(n, 20 + 8 + 12);
	crc = sroce_icrc_update(crc, kat_v4 + n, 16);	/* RETH */
	crc = sroce_icrc_update(crc, kat_v4 + n + 16, 5);
	crc = sroce_icrc_update(crc, kat_v4 + n + 21, 0);
	crc = sroce_icrc_update(crc, kat_v4 + n + 21, sizeof(kat_v4) - 4 - 21 -
				(size_t)n);
	CHECK_EQ(sroce_icrc_final(crc), KAT_V4_ICRC);
	n = sroce_icrc_begin(kat_v6, sizeof(kat_v6), &crc);
	CHECK_EQ(n, 40 + 8 + 12);
	CHECK_EQ(sroce_icrc_compute(kat_v6, sizeof(kat_v6) - 4, &icrc), 0);
	crc = sroce_icrc_update(crc, kat_v6 + n, sizeof(kat_v6) - 4 - (size_t)n);
	CHECK_EQ(sroce_icrc_final(crc), icrc);
	tap_end();
}

static void test_corrupt(void)
{
	u8 *p = dup_exact(kat_v4, sizeof(kat_v4));
	size_t i;

	tap_begin("icrc: corrupted ICRC byte or payload -> bad_icrc");
	for (i = sizeof(kat_v4) - 4; i < sizeof(kat_v4); i++) {
		p[i] ^= 0x01;
		CHECK_EQ(sroce_icrc_verify(p, sizeof(kat_v4)), -SROCE_DROP_BAD_ICRC);
		p[i] ^= 0x01;
	}
	p[60] ^= 0x80;	/* payload */
	CHECK_EQ(sroce_icrc_verify(p, sizeof(kat_v4)), -SROCE_DROP_BAD_ICRC);
	p[60] ^= 0x80;
	p[sizeof(kat_v4) - 5] = 1;	/* pad byte */
	CHECK_EQ(sroce_icrc_verify(p, sizeof(kat_v4)), -SROCE_DROP_BAD_ICRC);
	tap_end();
	free(p);
}

static void test_bad_hdr(void)
{
	u8 b4[sizeof(kat_v4)], b6[sizeof(kat_v6)];
	u32 crc, icrc;

	tap_begin("icrc: net header length for IPv4 / IPv6");
	CHECK_EQ(sroce_net_hdr_len(kat_v4, sizeof(kat_v4)), 28);
	CHECK_EQ(sroce_net_hdr_len(kat_v6, sizeof(kat_v6)), 48);
	CHECK_EQ(sroce_net_hdr_len(kat_v4, 28), 28);
	CHECK_EQ(sroce_net_hdr_len(kat_v6, 48), 48);
	tap_end();

	tap_begin("icrc: unusable IP header -> bad_net_header");
	memcpy(b4, kat_v4, sizeof(b4));
	memcpy(b6, kat_v6, sizeof(b6));
	CHECK_EQ(sroce_net_hdr_len(NULL, 100), -SROCE_DROP_BAD_NET_HDR);
	CHECK_EQ(sroce_net_hdr_len(b4, 0), -SROCE_DROP_BAD_NET_HDR);
	CHECK_EQ(sroce_net_hdr_len(b4, 27), -SROCE_DROP_BAD_NET_HDR);
	CHECK_EQ(sroce_net_hdr_len(b6, 47), -SROCE_DROP_BAD_NET_HDR);
	b4[0] = 0x46;		/* IPv4 with options */
	CHECK_EQ(sroce_icrc_compute(b4, sizeof(b4) - 4, &icrc),
		 -SROCE_DROP_BAD_NET_HDR);
	b4[0] = 0x55;		/* version 5 */
	CHECK_EQ(sroce_icrc_verify(b4, sizeof(b4)), -SROCE_DROP_BAD_NET_HDR);
	b4[0] = 0x45;
	b4[9] = 6;		/* TCP */
	CHECK_EQ(sroce_icrc_verify(b4, sizeof(b4)), -SROCE_DROP_BAD_NET_HDR);
	b6[6] = 0;		/* hop-by-hop extension header */
	CHECK_EQ(sroce_icrc_verify(b6, sizeof(b6)), -SROCE_DROP_BAD_NET_HDR);
	b6[6] = 17;
	b6[0] = 0x02;		/* version 0 */
	CHECK_EQ(sroce_icrc_begin(b6, sizeof(b6), &crc), -SROCE_DROP_BAD_NET_HDR);
	tap_end();

	tap_begin("icrc: image shorter than IP + UDP + BTH -> too_short");
	CHECK_EQ(sroce_icrc_begin(kat_v4, 39, &crc), -SROCE_DROP_TOO_SHORT);
	CHECK_EQ(sroce_icrc_begin(kat_v6, 59, &crc), -SROCE_DROP_TOO_SHORT);
	CHECK_EQ(sroce_icrc_verify(kat_v4, 3), -SROCE_DROP_TOO_SHORT);
	CHECK_EQ(sroce_icrc_verify(kat_v4, 43), -SROCE_DROP_TOO_SHORT);
	CHECK_EQ(sroce_icrc_begin(kat_v4, 40, &crc), 40);
	tap_end();
}

/* The parser applied to the UDP payloads of the known-answer packets */
static void test_parse_kat(void)
{
	struct sroce_pkt pkt;

	tap_begin("icrc+parse: IPv4 KAT parses as RC WRITE Only");
	CHECK_EQ(sroce_parse_bth_packet(kat_v4 + 28, sizeof(kat_v4) - 28, &pkt), 0);
	CHECK(pkt.info == sroce_opcode_get(0x0a));
	CHECK_EQ(pkt.hdr.reth.va, 0x123456789abcULL);
	CHECK_EQ(pkt.hdr.reth.rkey, 0xc0ffee);
	CHECK_EQ(pkt.hdr.reth.len, 13);
	CHECK_EQ(pkt.hdr.bth.psn, 0xfffffe);
	CHECK_EQ(pkt.payload_off, 28);
	CHECK_EQ(pkt.payload_len, 13);
	CHECK_EQ(pkt.pad, 3);
	CHECK_EQ(pkt.icrc, KAT_V4_ICRC);
	CHECK(memcmp(kat_v4 + 28 + pkt.payload_off, "ABCDEFGHIJKLM", 13) == 0);
	tap_end();

	tap_begin("icrc+parse: IPv6 KAT parses as UD SEND Only with Immediate");
	CHECK_EQ(sroce_parse_bth_packet(kat_v6 + 48, sizeof(kat_v6) - 48, &pkt), 0);
	CHECK(pkt.info == sroce_opcode_get(SROCE_UD_SEND_ONLY_IMM));
	CHECK(pkt.hdr.bth.se);
	CHECK_EQ(pkt.hdr.deth.qkey, 0x80010000);
	CHECK_EQ(pkt.hdr.deth.sqpn, 1);
	CHECK_EQ(pkt.hdr.imm, 0xdeadbeef);
	CHECK_EQ(pkt.payload_len, 6);
	CHECK_EQ(pkt.pad, 2);
	CHECK_EQ(pkt.icrc, KAT_V6_ICRC);
	CHECK(memcmp(kat_v6 + 48 + pkt.payload_off, "hello!", 6) == 0);
	tap_end();
}

void test_icrc(void)
{
	test_crc32();
	kat("IPv4 RC WRITE Only (scapy)", kat_v4, sizeof(kat_v4), KAT_V4_ICRC);
	kat("IPv4 RC SEND Only (roce-wire.md 6)", kat_v4_doc,
	    sizeof(kat_v4_doc), KAT_V4_DOC_ICRC);
	kat("IPv6 UD SEND Only Imm (zlib reference)", kat_v6, sizeof(kat_v6),
	    KAT_V6_ICRC);
	test_byte_order("IPv4", kat_v4, sizeof(kat_v4));
	test_byte_order("IPv6", kat_v6, sizeof(kat_v6));
	test_masks();
	test_chain();
	test_corrupt();
	test_bad_hdr();
	test_parse_kat();
}
