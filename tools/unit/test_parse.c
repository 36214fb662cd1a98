// SPDX-License-Identifier: GPL-2.0-only
/*
 * Packet parser tests: accepted packets and their decoded layout, and one
 * test per drop rule checking the reason.  Packets live in exactly-sized heap
 * buffers so that ASan catches any read past the end.
 */
#include <stdlib.h>
#include <string.h>

#include "sroce/wire.h"
#include "sroce/opcode.h"
#include "tap.h"
#include "tests.h"

/*
 * Hand-built RC SEND Only: 13 payload bytes, PadCnt 3, ICRC bytes 11 22 33 44.
 * BTH: opcode 0x04, SE=0 M=0 Pad=3 TVer=0, P_Key 0xffff, DestQP 0x11,
 * A=1, PSN 0x123456.
 */
static const u8 send_only[] = {
	0x04, 0x30, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
	0x80, 0x12, 0x34, 0x56,
	0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
	0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0x00, 0x00, 0x00,
	0x11, 0x22, 0x33, 0x44,
};

/* Copy @len bytes of @src into a heap buffer of exactly @len bytes */
static u8 *dup_exact(const u8 *src, size_t len)
{
	u8 *p = malloc(len ? len : 1);

	if (p && len)
		memcpy(p, src, len);
	return p;
}

static int parse_exact(const u8 *src, size_t len, struct sroce_pkt *pkt)
{
	u8 *p = dup_exact(src, len);
	int ret = sroce_parse_bth_packet(p, len, pkt);

	free(p);
	return ret;
}

/* Build opcode @op with @plen payload bytes; returns the length */
static size_t make_pkt(u8 *buf, size_t cap, u8 op, u32 plen)
{
	struct sroce_hdrs h;
	int hl, total;

	memset(&h, 0, sizeof(h));
	h.bth.opcode = op;
	h.bth.pkey = 0xffff;
	h.bth.dqpn = 7;
	h.bth.psn = 100;
	h.deth.qkey = 0x80010000;
	h.deth.sqpn = 1;
	h.imm = 0x01020304;
	h.aeth.syndrome = 0x1f;
	h.aeth.msn = 9;
	total = sroce_pkt_len(op, plen);
	if (total < 0 || (size_t)total > cap)
		return 0;
	memset(buf, 0, (size_t)total);
	hl = sroce_build_hdrs(buf, cap, &h, plen);
	if (hl < 0)
		return 0;
	memset(buf + hl, 0x5c, plen);
	return (size_t)total;
}

static void expect_drop(const char *what, const u8 *buf, size_t len, int reason)
{
	struct sroce_pkt pkt;
	int ret;

	tap_begin("parse: %s -> %s", what, sroce_drop_reason_name(reason));
	ret = parse_exact(buf, len, &pkt);
	CHECK_EQ(ret, -reason);
	CHECK(!pkt.info);
	CHECK_EQ(pkt.payload_len, 0);
	tap_end();
}

static void test_accept(void)
{
	static u8 buf[SROCE_MAX_PKT_LEN + 8];
	struct sroce_pkt pkt;
	size_t len;
	int ret;

	tap_begin("parse: RC SEND Only, 13 B payload, pad 3");
	ret = parse_exact(send_only, sizeof(send_only), &pkt);
	CHECK_EQ(ret, 0);
	CHECK(pkt.info == sroce_opcode_get(0x04));
	CHECK_EQ(pkt.hdr_len, 12);
	CHECK_EQ(pkt.payload_off, 12);
	CHECK_EQ(pkt.payload_len, 13);
	CHECK_EQ(pkt.pad, 3);
	CHECK_EQ(pkt.icrc_off, 28);
	CHECK_EQ(pkt.icrc, 0x44332211);
	CHECK_EQ(pkt.pkt_len, sizeof(send_only));
	CHECK_EQ(pkt.hdr.bth.dqpn, 0x11);
	CHECK_EQ(pkt.hdr.bth.psn, 0x123456);
	CHECK_EQ(pkt.hdr.bth.pkey, 0xffff);
	CHECK(pkt.hdr.bth.ackreq);
	CHECK(!pkt.hdr.bth.se);
	tap_end();

	tap_begin("parse: zero-length SEND Only (BTH + ICRC only)");
	len = make_pkt(buf, sizeof(buf), SROCE_RC_SEND_ONLY, 0);
	CHECK_EQ(len, 16);
	CHECK_EQ(parse_exact(buf, len, &pkt), 0);
	CHECK_EQ(pkt.payload_len, 0);
	CHECK_EQ(pkt.pad, 0);
	tap_end();

	tap_begin("parse: UD SEND Only with Immediate decodes DETH and ImmDt");
	len = make_pkt(buf, sizeof(buf), SROCE_UD_SEND_ONLY_IMM, 6);
	CHECK_EQ(len, 24 + 6 + 2 + 4);
	CHECK_EQ(parse_exact(buf, len, &pkt), 0);
	CHECK_EQ(pkt.hdr.deth.qkey, 0x80010000);
	CHECK_EQ(pkt.hdr.deth.sqpn, 1);
	CHECK_EQ(pkt.hdr.imm, 0x01020304);
	CHECK_EQ(pkt.payload_off, 24);
	CHECK_EQ(pkt.payload_len, 6);
	CHECK_EQ(pkt.pad, 2);
	tap_end();

	tap_begin("parse: ACK decodes AETH, no payload");
	len = make_pkt(buf, sizeof(buf), SROCE_RC_ACK, 0);
	CHECK_EQ(len, 20);
	CHECK_EQ(parse_exact(buf, len, &pkt), 0);
	CHECK_EQ(pkt.hdr.aeth.syndrome, 0x1f);
	CHECK_EQ(pkt.hdr.aeth.msn, 9);
	tap_end();

	tap_begin("parse: CNP (BTH + 16 reserved + ICRC) is recognised");
	len = make_pkt(buf, sizeof(buf), SROCE_CNP_OPCODE, 0);
	CHECK_EQ(len, 32);
	CHECK_EQ(parse_exact(buf, len, &pkt), 0);
	CHECK(pkt.info && (pkt.info->mask & SROCE_MASK_CNP));
	tap_end();

	tap_begin("parse: payload of exactly SROCE_MAX_PAYLOAD accepted");
	len = make_pkt(buf, sizeof(buf), SROCE_RC_SEND_FIRST, SROCE_MAX_PAYLOAD);
	CHECK_EQ(len, 12 + 4096 + 4);
	CHECK_EQ(parse_exact(buf, len, &pkt), 0);
	CHECK_EQ(pkt.payload_len, 4096);
	len = make_pkt(buf, sizeof(buf), SROCE_OPCODE(0, SROCE_OP_SEND_LAST_INV), 4093);
	CHECK_EQ(parse_exact(buf, len, &pkt), 0);
	CHECK_EQ(pkt.payload_len, 4093);
	CHECK_EQ(pkt.pad, 3);
	tap_end();

	tap_begin("parse: MigReq and reserved bits are ignored");
	memcpy(buf, send_only, sizeof(send_only));
	buf[1] |= SROCE_BTH_MIG;
	buf[4] = 0xc0;		/* FECN/BECN */
	buf[8] |= 0x7f;
	CHECK_EQ(parse_exact(buf, sizeof(send_only), &pkt), 0);
	CHECK(pkt.hdr.bth.mig);
	CHECK_EQ(pkt.hdr.bth.resv8a, 0xc0);
	CHECK_EQ(pkt.hdr.bth.resv7, 0x7f);
	tap_end();
}

static void test_drops(void)
{
	static u8 buf[SROCE_MAX_PKT_LEN + 64];
	struct sroce_pkt pkt;
	size_t len, i;

	tap_begin("parse: every length below BTH + ICRC -> too_short");
	for (i = 0; i < SROCE_BTH_LEN + SROCE_ICRC_LEN; i++)
		CHECK_EQ(parse_exact(send_only, i, &pkt), -SROCE_DROP_TOO_SHORT);
	CHECK_EQ(sroce_parse_bth_packet(NULL, 100, &pkt), -SROCE_DROP_TOO_SHORT);
	tap_end();

	memcpy(buf, send_only, sizeof(send_only));
	buf[0] = 0x15;
	expect_drop("reserved RC opcode 0x15", buf, sizeof(send_only),
		    SROCE_DROP_BAD_OPCODE);
	buf[0] = 0x2c;	/* UC READ request does not exist */
	expect_drop("UC opcode 0x2c", buf, sizeof(send_only),
		    SROCE_DROP_BAD_OPCODE);
	buf[0] = 0x44;	/* RD */
	expect_drop("RD opcode 0x44", buf, sizeof(send_only),
		    SROCE_DROP_BAD_OPCODE);

	tap_begin("parse: all 218 unknown opcodes -> bad_opcode");
	for (i = 0; i < 256; i++) {
		if (sroce_opcode_get((u8)i))
			continue;
		buf[0] = (u8)i;
		CHECK_EQ(parse_exact(buf, sizeof(send_only), &pkt),
			 -SROCE_DROP_BAD_OPCODE);
	}
	tap_end();

	memcpy(buf, send_only, sizeof(send_only));
	buf[1] |= 0x01;
	expect_drop("transport version 1", buf, sizeof(send_only),
		    SROCE_DROP_BAD_TVER);
	buf[1] |= 0x0f;
	expect_drop("transport version 15", buf, sizeof(send_only),
		    SROCE_DROP_BAD_TVER);

	/* WRITE First needs 12 + 16 + 4 bytes */
	len = make_pkt(buf, sizeof(buf), SROCE_OPCODE(0, SROCE_OP_WRITE_FIRST), 0);
	expect_drop("RDMA WRITE First cut inside the RETH", buf, len - 1,
		    SROCE_DROP_TRUNC_HDR);
	len = make_pkt(buf, sizeof(buf), SROCE_OPCODE(0, SROCE_OP_CMP_SWAP), 0);
	expect_drop("CmpSwap without room for the ICRC", buf, len - 1,
		    SROCE_DROP_TRUNC_HDR);
	len = make_pkt(buf, sizeof(buf), SROCE_CNP_OPCODE, 0);
	expect_drop("CNP shorter than 32 bytes", buf, len - 12,
		    SROCE_DROP_TRUNC_HDR);

	/* pad larger than the bytes after the headers */
	len = make_pkt(buf, sizeof(buf), SROCE_RC_SEND_ONLY, 0);
	buf[1] |= 1 << SROCE_BTH_PAD_SHIFT;
	expect_drop("pad 1 with no payload bytes", buf, len, SROCE_DROP_BAD_PAD);

	/* payload + pad not a multiple of 4 */
	len = make_pkt(buf, sizeof(buf), SROCE_RC_SEND_ONLY, 8);
	expect_drop("payload+pad not 4-byte aligned", buf, len - 1,
		    SROCE_DROP_BAD_PAD);
	len = make_pkt(buf, sizeof(buf), SROCE_RC_SEND_ONLY, 1);
	CHECK_EQ(len, 20);
	expect_drop("pad 3 covering 3 bytes only (payload 0)", buf, 19,
		    SROCE_DROP_BAD_PAD);

	/* non-zero pad where the table forbids it */
	len = make_pkt(buf, sizeof(buf), SROCE_RC_SEND_FIRST, 256);
	buf[1] |= 1 << SROCE_BTH_PAD_SHIFT;
	expect_drop("pad on SEND First", buf, len, SROCE_DROP_BAD_PAD);
	len = make_pkt(buf, sizeof(buf), SROCE_OPCODE(0, SROCE_OP_READ_RESP_MIDDLE), 256);
	buf[1] |= 2 << SROCE_BTH_PAD_SHIFT;
	expect_drop("pad on READ Response Middle", buf, len, SROCE_DROP_BAD_PAD);
	len = make_pkt(buf, sizeof(buf), SROCE_RC_ACK, 0);
	buf[1] |= 3 << SROCE_BTH_PAD_SHIFT;
	expect_drop("pad on ACK", buf, len, SROCE_DROP_BAD_PAD);

	/* bytes after the headers of an opcode without payload */
	len = make_pkt(buf, sizeof(buf), SROCE_RC_ACK, 0);
	memset(buf + len, 0, 4);
	expect_drop("ACK with 4 payload bytes", buf, len + 4, SROCE_DROP_BAD_LEN);
	len = make_pkt(buf, sizeof(buf), SROCE_OPCODE(0, SROCE_OP_READ_REQ), 0);
	memset(buf + len, 0, 8);
	expect_drop("READ request with payload", buf, len + 8, SROCE_DROP_BAD_LEN);
	len = make_pkt(buf, sizeof(buf), SROCE_OPCODE(0, SROCE_OP_ATOMIC_ACK), 0);
	memset(buf + len, 0, 4);
	expect_drop("ATOMIC ACK with payload", buf, len + 4, SROCE_DROP_BAD_LEN);
	len = make_pkt(buf, sizeof(buf), SROCE_CNP_OPCODE, 0);
	memset(buf + len, 0, 4);
	expect_drop("CNP longer than 32 bytes", buf, len + 4, SROCE_DROP_BAD_LEN);

	/* too long */
	len = make_pkt(buf, sizeof(buf), SROCE_RC_SEND_FIRST, SROCE_MAX_PAYLOAD);
	memset(buf + len, 0, 4);
	expect_drop("SEND First with 4100 payload bytes", buf, len + 4,
		    SROCE_DROP_TOO_LONG);
	len = make_pkt(buf, sizeof(buf), SROCE_RC_SEND_ONLY, SROCE_MAX_PAYLOAD - 3);
	buf[1] = (u8)(buf[1] & ~SROCE_BTH_PAD_MASK);	/* pad 0 */
	expect_drop("SEND Only, 4100 bytes with pad 0", buf, len + 4,
		    SROCE_DROP_TOO_LONG);

	tap_begin("parse: every truncation of a valid packet is safe");
	len = make_pkt(buf, sizeof(buf), SROCE_OPCODE(0, SROCE_OP_WRITE_ONLY_IMM), 21);
	for (i = 0; i <= len; i++) {
		int ret = parse_exact(buf, i, &pkt);

		CHECK(ret <= 0);
		/* a cut that still looks valid must be self-consistent */
		if (ret == 0)
			CHECK_EQ(pkt.payload_off + pkt.payload_len + pkt.pad +
				 SROCE_ICRC_LEN, i);
		if (i == len)
			CHECK_EQ(ret, 0);
	}
	tap_end();
}

void test_parse(void)
{
	test_accept();
	test_drops();
}
