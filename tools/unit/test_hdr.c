// SPDX-License-Identifier: GPL-2.0-only
/*
 * Header codec tests: known wire bytes for every header, decode/encode round
 * trips (reserved bits included), byte helpers, AETH helpers, the builder and
 * its errors, drop reason names.
 */
#include <string.h>

#include "sroce/wire.h"
#include "sroce/opcode.h"
#include "tap.h"
#include "tests.h"

static u32 lcg_state = 12345;

static u8 rnd8(void)
{
	lcg_state = lcg_state * 1103515245u + 12345u;
	return (u8)(lcg_state >> 16);
}

static void fill_rnd(u8 *p, size_t n)
{
	while (n--)
		*p++ = rnd8();
}

static void test_bth(void)
{
	static const u8 wire[12] = {
		0x0a, 0xe0, 0x80, 0x01, 0x00, 0xab, 0xcd, 0xef,
		0x80, 0x01, 0x23, 0x45,
	};
	struct sroce_bth b = {
		.opcode = 0x0a, .se = true, .mig = true, .pad = 2, .tver = 0,
		.pkey = 0x8001, .resv8a = 0, .dqpn = 0xabcdef, .ackreq = true,
		.resv7 = 0, .psn = 0x012345,
	};
	struct sroce_bth d;
	u8 buf[12];

	tap_begin("codec: BTH encodes to known bytes and decodes back");
	memset(buf, 0x5a, sizeof(buf));
	sroce_bth_encode(buf, &b);
	CHECK(memcmp(buf, wire, sizeof(wire)) == 0);
	sroce_bth_decode(wire, &d);
	CHECK_EQ(d.opcode, 0x0a);
	CHECK(d.se && d.mig && d.ackreq);
	CHECK_EQ(d.pad, 2);
	CHECK_EQ(d.tver, 0);
	CHECK_EQ(d.pkey, 0x8001);
	CHECK_EQ(d.resv8a, 0);
	CHECK_EQ(d.dqpn, 0xabcdef);
	CHECK_EQ(d.resv7, 0);
	CHECK_EQ(d.psn, 0x012345);
	tap_end();

	tap_begin("codec: BTH field bits are independent");
	memset(&b, 0, sizeof(b));
	b.pad = 3;
	sroce_bth_encode(buf, &b);
	CHECK_EQ(buf[1], 0x30);
	memset(&b, 0, sizeof(b));
	b.tver = 0xf;
	sroce_bth_encode(buf, &b);
	CHECK_EQ(buf[1], 0x0f);
	memset(&b, 0, sizeof(b));
	b.se = true;
	sroce_bth_encode(buf, &b);
	CHECK_EQ(buf[1], 0x80);
	memset(&b, 0, sizeof(b));
	b.mig = true;
	sroce_bth_encode(buf, &b);
	CHECK_EQ(buf[1], 0x40);
	memset(&b, 0, sizeof(b));
	b.ackreq = true;
	sroce_bth_encode(buf, &b);
	CHECK_EQ(buf[8], 0x80);
	/* out-of-range values are truncated to the field */
	memset(&b, 0, sizeof(b));
	b.dqpn = 0xff000001;
	b.psn = 0x7f000002;
	b.pad = 7;
	sroce_bth_encode(buf, &b);
	CHECK_EQ(sroce_get_be24(buf + 5), 1);
	CHECK_EQ(sroce_get_be24(buf + 9), 2);
	CHECK_EQ(buf[1], 0x30);
	CHECK_EQ(buf[4], 0);
	tap_end();
}

static void test_ext_known(void)
{
	static const u8 reth_w[16] = {
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x11, 0x22, 0x33, 0x44, 0x00, 0x00, 0x10, 0x00,
	};
	static const u8 aeth_w[4] = { 0x61, 0x00, 0xab, 0xcd };
	static const u8 deth_w[8] = {
		0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	};
	static const u8 atm_w[28] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
		0xca, 0xfe, 0xba, 0xbe,
		0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0x22, 0x22,
		0x33, 0x33, 0x33, 0x33, 0x44, 0x44, 0x44, 0x44,
	};
	static const u8 ack_w[8] = {
		0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
	};
	static const u8 imm_w[4] = { 0xde, 0xad, 0xbe, 0xef };
	const struct sroce_reth reth = {
		.va = 0x0102030405060708ULL, .rkey = 0x11223344, .len = 0x1000,
	};
	const struct sroce_aeth aeth = { .syndrome = 0x61, .msn = 0xabcd };
	const struct sroce_deth deth = { .qkey = 0x80010000, .sqpn = 1 };
	const struct sroce_atmeth atm = {
		.va = 0x1000, .rkey = 0xcafebabe,
		.swap_add = 0x1111111122222222ULL,
		.compare = 0x3333333344444444ULL,
	};
	const struct sroce_atmack ack = { .orig = 0xfedcba9876543210ULL };
	struct sroce_reth reth2;
	struct sroce_aeth aeth2;
	struct sroce_deth deth2;
	struct sroce_atmeth atm2;
	struct sroce_atmack ack2;
	u8 buf[32];

	tap_begin("codec: RETH known bytes and decode");
	sroce_reth_encode(buf, &reth);
	CHECK(memcmp(buf, reth_w, sizeof(reth_w)) == 0);
	sroce_reth_decode(reth_w, &reth2);
	CHECK_EQ(reth2.va, reth.va);
	CHECK_EQ(reth2.rkey, reth.rkey);
	CHECK_EQ(reth2.len, reth.len);
	tap_end();

	tap_begin("codec: AETH known bytes and decode (syndrome 8 + MSN 24)");
	sroce_aeth_encode(buf, &aeth);
	CHECK(memcmp(buf, aeth_w, sizeof(aeth_w)) == 0);
	sroce_aeth_decode(aeth_w, &aeth2);
	CHECK_EQ(aeth2.syndrome, 0x61);
	CHECK_EQ(aeth2.msn, 0xabcd);
	tap_end();

	tap_begin("codec: DETH known bytes and decode (Q_Key, SrcQP 24)");
	sroce_deth_encode(buf, &deth);
	CHECK(memcmp(buf, deth_w, sizeof(deth_w)) == 0);
	sroce_deth_decode(deth_w, &deth2);
	CHECK_EQ(deth2.qkey, 0x80010000);
	CHECK_EQ(deth2.resv8, 0);
	CHECK_EQ(deth2.sqpn, 1);
	tap_end();

	tap_begin("codec: AtomicETH known bytes and decode");
	sroce_atmeth_encode(buf, &atm);
	CHECK(memcmp(buf, atm_w, sizeof(atm_w)) == 0);
	sroce_atmeth_decode(atm_w, &atm2);
	CHECK_EQ(atm2.va, atm.va);
	CHECK_EQ(atm2.rkey, atm.rkey);
	CHECK_EQ(atm2.swap_add, atm.swap_add);
	CHECK_EQ(atm2.compare, atm.compare);
	tap_end();

	tap_begin("codec: AtomicAckETH known bytes and decode");
	sroce_atmack_encode(buf, &ack);
	CHECK(memcmp(buf, ack_w, sizeof(ack_w)) == 0);
	sroce_atmack_decode(ack_w, &ack2);
	CHECK_EQ(ack2.orig, ack.orig);
	tap_end();

	tap_begin("codec: ImmDt and IETH are big-endian 32-bit");
	sroce_immdt_encode(buf, 0xdeadbeef);
	CHECK(memcmp(buf, imm_w, 4) == 0);
	CHECK_EQ(sroce_immdt_decode(imm_w), 0xdeadbeef);
	sroce_ieth_encode(buf, 0x12345678);
	CHECK_EQ(buf[0], 0x12);
	CHECK_EQ(buf[3], 0x78);
	CHECK_EQ(sroce_ieth_decode(buf), 0x12345678);
	tap_end();
}

/* decode(random bytes) then encode gives the same bytes, for every header */
static void test_roundtrip_bytes(void)
{
	u8 in[32], out[32];
	int i;

	tap_begin("codec: decode+encode reproduces any bytes (all headers)");
	for (i = 0; i < 2000; i++) {
		struct sroce_bth bth;
		struct sroce_reth reth;
		struct sroce_aeth aeth;
		struct sroce_deth deth;
		struct sroce_atmeth atm;
		struct sroce_atmack ack;

		if (i == 0)
			memset(in, 0xff, sizeof(in));
		else if (i == 1)
			memset(in, 0, sizeof(in));
		else
			fill_rnd(in, sizeof(in));

		sroce_bth_decode(in, &bth);
		sroce_bth_encode(out, &bth);
		CHECK(memcmp(in, out, SROCE_BTH_LEN) == 0);
		sroce_reth_decode(in, &reth);
		sroce_reth_encode(out, &reth);
		CHECK(memcmp(in, out, SROCE_RETH_LEN) == 0);
		sroce_aeth_decode(in, &aeth);
		sroce_aeth_encode(out, &aeth);
		CHECK(memcmp(in, out, SROCE_AETH_LEN) == 0);
		sroce_deth_decode(in, &deth);
		sroce_deth_encode(out, &deth);
		CHECK(memcmp(in, out, SROCE_DETH_LEN) == 0);
		sroce_atmeth_decode(in, &atm);
		sroce_atmeth_encode(out, &atm);
		CHECK(memcmp(in, out, SROCE_ATMETH_LEN) == 0);
		sroce_atmack_decode(in, &ack);
		sroce_atmack_encode(out, &ack);
		CHECK(memcmp(in, out, SROCE_ATMACK_LEN) == 0);
		sroce_immdt_encode(out, sroce_immdt_decode(in));
		CHECK(memcmp(in, out, SROCE_IMMDT_LEN) == 0);
		sroce_ieth_encode(out, sroce_ieth_decode(in));
		CHECK(memcmp(in, out, SROCE_IETH_LEN) == 0);
		if (tap.cur_failed)
			break;
	}
	tap_end();
}

static void test_helpers(void)
{
	u8 b[8];

	tap_begin("wire: big-endian and little-endian byte helpers");
	sroce_put_be16(b, 0x1234);
	CHECK(b[0] == 0x12 && b[1] == 0x34);
	CHECK_EQ(sroce_get_be16(b), 0x1234);
	sroce_put_be24(b, 0xabcdef);
	CHECK(b[0] == 0xab && b[1] == 0xcd && b[2] == 0xef);
	CHECK_EQ(sroce_get_be24(b), 0xabcdef);
	sroce_put_be32(b, 0x89abcdef);
	CHECK(b[0] == 0x89 && b[3] == 0xef);
	CHECK_EQ(sroce_get_be32(b), 0x89abcdef);
	CHECK_EQ(sroce_get_le32(b), 0xefcdab89);
	sroce_put_be64(b, 0x0123456789abcdefULL);
	CHECK(b[0] == 0x01 && b[7] == 0xef);
	CHECK_EQ(sroce_get_be64(b), 0x0123456789abcdefULL);
	sroce_put_le32(b, 0x11223344);
	CHECK(b[0] == 0x44 && b[3] == 0x11);
	tap_end();

	tap_begin("wire: pad length = (4 - len %% 4) %% 4");
	CHECK_EQ(sroce_pad_len(0), 0);
	CHECK_EQ(sroce_pad_len(1), 3);
	CHECK_EQ(sroce_pad_len(2), 2);
	CHECK_EQ(sroce_pad_len(3), 1);
	CHECK_EQ(sroce_pad_len(4), 0);
	CHECK_EQ(sroce_pad_len(4093), 3);
	tap_end();

	tap_begin("wire: AETH syndrome type/value split and constants");
	CHECK_EQ(SROCE_AETH_ACK_UNLIMITED, 0x1f);
	CHECK_EQ(SROCE_AETH_SYN(SROCE_AETH_TYPE_RNR, 14), 0x2e);
	CHECK_EQ(SROCE_AETH_SYN(SROCE_AETH_TYPE_NAK, SROCE_NAK_PSN_SEQ_ERR), 0x60);
	CHECK_EQ(SROCE_AETH_SYN(SROCE_AETH_TYPE_NAK, SROCE_NAK_INVALID_REQ), 0x61);
	CHECK_EQ(SROCE_AETH_SYN(SROCE_AETH_TYPE_NAK, SROCE_NAK_REM_ACCESS), 0x62);
	CHECK_EQ(SROCE_AETH_SYN(SROCE_AETH_TYPE_NAK, SROCE_NAK_REM_OP), 0x63);
	CHECK_EQ(sroce_aeth_type(0x1f), SROCE_AETH_TYPE_ACK);
	CHECK_EQ(sroce_aeth_type(0x2e), SROCE_AETH_TYPE_RNR);
	CHECK_EQ(sroce_aeth_type(0x41), SROCE_AETH_TYPE_RSVD);
	CHECK_EQ(sroce_aeth_type(0x63), SROCE_AETH_TYPE_NAK);
	CHECK_EQ(sroce_aeth_value(0x63), 3);
	CHECK_EQ(sroce_aeth_value(0x2e), 14);
	tap_end();

	tap_begin("wire: drop reason names");
	CHECK(strcmp(sroce_drop_reason_name(0), "ok") == 0);
	CHECK(strcmp(sroce_drop_reason_name(-SROCE_DROP_BAD_ICRC),
		     "bad_icrc") == 0);
	CHECK(strcmp(sroce_drop_reason_name(SROCE_DROP_BAD_PAD), "bad_pad") == 0);
	CHECK(strcmp(sroce_drop_reason_name(SROCE_DROP_NR), "unknown") == 0);
	CHECK(strcmp(sroce_drop_reason_name(-SROCE_DROP_NR), "unknown") == 0);
	CHECK(strcmp(sroce_drop_reason_name(-2147483647 - 1), "unknown") == 0);
	tap_end();
}

/* Payload length to use with an opcode in the build/parse round trip */
static u32 test_payload_len(const struct sroce_opcode_info *info)
{
	if (!(info->mask & SROCE_MASK_PAYLOAD))
		return 0;
	return (info->mask & SROCE_MASK_PAD_OK) ? 13 : 256;
}

static void fill_hdrs(struct sroce_hdrs *h, u8 opcode)
{
	memset(h, 0, sizeof(*h));
	h->bth.opcode = opcode;
	h->bth.se = true;
	h->bth.pkey = 0xffff;
	h->bth.dqpn = 0x000abc;
	h->bth.ackreq = true;
	h->bth.psn = 0xfffffd;
	h->reth.va = 0x7f0000001000ULL;
	h->reth.rkey = 0x1234;
	h->reth.len = 8192;
	h->aeth.syndrome = 0x1f;
	h->aeth.msn = 0x345678;
	h->deth.qkey = 0x11110000;
	h->deth.sqpn = 0x000042;
	h->atmeth.va = 0x2000;
	h->atmeth.rkey = 0x99;
	h->atmeth.swap_add = 5;
	h->atmeth.compare = 6;
	h->atmack.orig = 0x0102030405060708ULL;
	h->imm = 0xa5a5a5a5;
	h->ieth_rkey = 0x5555;
}

static void test_build_parse(void)
{
	static u8 pkt[SROCE_MAX_PKT_LEN];
	unsigned int op;

	tap_begin("build: headers for every opcode parse back identically");
	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode_get((u8)op);
		struct sroce_hdrs h;
		struct sroce_pkt p;
		u32 m, plen;
		int hl, total, err;

		if (!info)
			continue;
		m = info->mask;
		plen = test_payload_len(info);
		fill_hdrs(&h, (u8)op);
		total = sroce_pkt_len((u8)op, plen);
		CHECK_EQ(total, info->length + plen + sroce_pad_len(plen) + 4);
		memset(pkt, 0, sizeof(pkt));
		hl = sroce_build_hdrs(pkt, sizeof(pkt), &h, plen);
		CHECK_EQ(hl, info->length);
		memset(pkt + hl, 0x77, plen);
		err = sroce_parse_bth_packet(pkt, (size_t)total, &p);
		if (!CHECK_EQ(err, 0)) {
			printf("# opcode 0x%02x\n", op);
			continue;
		}
		CHECK(p.info == info);
		CHECK_EQ(p.payload_len, plen);
		CHECK_EQ(p.pad, sroce_pad_len(plen));
		CHECK_EQ(p.hdr.bth.pad, sroce_pad_len(plen));
		CHECK_EQ(p.hdr.bth.psn, 0xfffffd);
		CHECK_EQ(p.hdr.bth.dqpn, 0xabc);
		CHECK(p.hdr.bth.se && p.hdr.bth.ackreq);
		CHECK_EQ(p.hdr.reth.rkey, (m & SROCE_MASK_RETH) ? 0x1234 : 0);
		CHECK_EQ(p.hdr.reth.va, (m & SROCE_MASK_RETH) ? h.reth.va : 0);
		CHECK_EQ(p.hdr.aeth.msn, (m & SROCE_MASK_AETH) ? 0x345678 : 0);
		CHECK_EQ(p.hdr.deth.sqpn, (m & SROCE_MASK_DETH) ? 0x42 : 0);
		CHECK_EQ(p.hdr.deth.qkey, (m & SROCE_MASK_DETH) ? 0x11110000 : 0);
		CHECK_EQ(p.hdr.atmeth.compare, (m & SROCE_MASK_ATMETH) ? 6 : 0);
		CHECK_EQ(p.hdr.atmack.orig,
			 (m & SROCE_MASK_ATMACK) ? h.atmack.orig : 0);
		CHECK_EQ(p.hdr.imm, (m & SROCE_MASK_IMMDT) ? 0xa5a5a5a5 : 0);
		CHECK_EQ(p.hdr.ieth_rkey, (m & SROCE_MASK_IETH) ? 0x5555 : 0);
		CHECK_EQ(pkt[p.payload_off], plen ? 0x77 : 0);
	}
	tap_end();
}

static void test_build_errors(void)
{
	struct sroce_hdrs h;
	u8 buf[64];

	tap_begin("build: rejects unknown opcode");
	fill_hdrs(&h, 0x15);
	CHECK_EQ(sroce_build_hdrs(buf, sizeof(buf), &h, 0), -SROCE_DROP_BAD_OPCODE);
	CHECK_EQ(sroce_pkt_len(0x15, 0), -SROCE_DROP_BAD_OPCODE);
	tap_end();

	tap_begin("build: rejects payload on an opcode without payload");
	fill_hdrs(&h, SROCE_RC_ACK);
	CHECK_EQ(sroce_build_hdrs(buf, sizeof(buf), &h, 4), -SROCE_DROP_BAD_LEN);
	CHECK_EQ(sroce_pkt_len(SROCE_OPCODE(0, SROCE_OP_READ_REQ), 1),
		 -SROCE_DROP_BAD_LEN);
	tap_end();

	tap_begin("build: rejects unaligned payload on First/Middle");
	fill_hdrs(&h, SROCE_RC_SEND_FIRST);
	CHECK_EQ(sroce_build_hdrs(buf, sizeof(buf), &h, 1022), -SROCE_DROP_BAD_PAD);
	CHECK_EQ(sroce_build_hdrs(buf, sizeof(buf), &h, 1024), 12);
	tap_end();

	tap_begin("build: rejects payload over SROCE_MAX_PAYLOAD");
	fill_hdrs(&h, SROCE_RC_SEND_ONLY);
	CHECK_EQ(sroce_build_hdrs(buf, sizeof(buf), &h, 4097), -SROCE_DROP_TOO_LONG);
	CHECK_EQ(sroce_build_hdrs(buf, sizeof(buf), &h, 4096), 12);
	CHECK_EQ(sroce_pkt_len(SROCE_RC_SEND_ONLY, 4096), 12 + 4096 + 4);
	tap_end();

	tap_begin("build: rejects a buffer smaller than the headers");
	fill_hdrs(&h, SROCE_OPCODE(0, SROCE_OP_CMP_SWAP));
	CHECK_EQ(sroce_build_hdrs(buf, 39, &h, 0), -SROCE_DROP_NOSPACE);
	CHECK_EQ(sroce_build_hdrs(NULL, 64, &h, 0), -SROCE_DROP_NOSPACE);
	CHECK_EQ(sroce_build_hdrs(buf, 40, &h, 0), 40);
	tap_end();

	tap_begin("build: PadCnt comes from the payload length");
	fill_hdrs(&h, SROCE_RC_SEND_ONLY);
	h.bth.pad = 3;
	CHECK_EQ(sroce_build_hdrs(buf, sizeof(buf), &h, 8), 12);
	CHECK_EQ(buf[1] & SROCE_BTH_PAD_MASK, 0);
	CHECK_EQ(sroce_build_hdrs(buf, sizeof(buf), &h, 6), 12);
	CHECK_EQ((buf[1] & SROCE_BTH_PAD_MASK) >> SROCE_BTH_PAD_SHIFT, 2);
	tap_end();

	tap_begin("build: CNP reserved bytes are zeroed");
	fill_hdrs(&h, SROCE_CNP_OPCODE);
	memset(buf, 0xee, sizeof(buf));
	CHECK_EQ(sroce_build_hdrs(buf, sizeof(buf), &h, 0), 28);
	CHECK_EQ(buf[0], 0x81);
	CHECK_EQ(buf[12], 0);
	CHECK_EQ(buf[27], 0);
	CHECK_EQ(buf[28], 0xee);
	tap_end();
}

/* A CNP as sroce sends it: 32 bytes, BECN, default P_Key, PSN 0 */
static void test_cnp(void)
{
	struct sroce_hdrs h;
	struct sroce_pkt p;
	u8 pkt[64];
	int len, hl;

	tap_begin("hdr: a CNP is BTH (0x81, BECN, P_Key 0xffff, PSN 0), 16 zero bytes, ICRC");
	memset(pkt, 0xee, sizeof(pkt));
	sroce_cnp_hdrs(0x1234567, &h);
	len = sroce_pkt_len(h.bth.opcode, 0);
	CHECK_EQ(len, 32);
	hl = sroce_build_hdrs(pkt, sizeof(pkt), &h, 0);
	CHECK_EQ(hl, 28);
	CHECK_EQ(pkt[0], 0x81);
	CHECK_EQ(pkt[4], 0x40);
	CHECK_EQ(pkt[2] << 8 | pkt[3], 0xffff);
	CHECK_EQ(pkt[5] << 16 | pkt[6] << 8 | pkt[7], 0x234567);
	CHECK_EQ(pkt[9] | pkt[10] | pkt[11], 0);
	for (hl = 12; hl < 28; hl++)
		CHECK_EQ(pkt[hl], 0);
	CHECK_EQ(sroce_parse_bth_packet(pkt, 32, &p), 0);
	CHECK(p.info && (p.info->mask & SROCE_MASK_CNP));
	CHECK_EQ(p.payload_len, 0);
	tap_end();
}

void test_hdr(void)
{
	test_bth();
	test_ext_known();
	test_roundtrip_bytes();
	test_helpers();
	test_build_parse();
	test_build_errors();
	test_cnp();
}
