// SPDX-License-Identifier: GPL-2.0-only
/* UD decisions: datagram headers, Q_Key rules, receive checks */
#include "sroce/opcode.h"
#include "sroce/ud.h"
#include "tap.h"
#include "tests.h"

/* Build the datagram @s from @cfg, then parse it back into @p */
static int ud_roundtrip(const struct sroce_ud_cfg *cfg,
			const struct sroce_ud_send *s, struct sroce_pkt *p)
{
	static u8 buf[SROCE_MAX_PKT_LEN];
	struct sroce_hdrs h;
	int len, hlen;

	if (sroce_ud_tx_hdrs(cfg, s, 0x1234567, &h) != SROCE_UD_OK)
		return -1;
	len = sroce_pkt_len(h.bth.opcode, s->length);
	if (len < 0)
		return -1;
	hlen = sroce_build_hdrs(buf, sizeof(buf), &h, s->length);
	if (hlen < 0)
		return -1;
	memset(buf + hlen, 0xab, len - hlen);
	return sroce_parse_bth_packet(buf, len, p);
}

void test_ud(void)
{
	struct sroce_ud_cfg a = { .qpn = 0x12, .qkey = 0x11112222, .mtu = 1024,
				  .pkey = 0xffff };
	struct sroce_ud_cfg b = { .qpn = 0x34, .qkey = 0x11112222, .mtu = 1024,
				  .pkey = 0xffff };
	struct sroce_ud_cfg gsi = { .qpn = SROCE_GSI_QPN,
				    .qkey = SROCE_GSI_QKEY, .mtu = 1024,
				    .pkey = 0xffff };
	struct sroce_ud_send s = { .length = 100, .remote_qpn = 0xff000034,
				   .remote_qkey = 0x11112222 };
	struct sroce_hdrs h;
	/*
	 * Zeroed: a failed round trip is counted and the checks after it
	 * read zeros, not whatever the stack held.
	 */
	struct sroce_pkt p = { 0 };

	tap_begin("ud: a send is one SEND_ONLY with a DETH");
	CHECK_EQ(ud_roundtrip(&a, &s, &p), 0);
	CHECK_EQ(p.hdr.bth.opcode, SROCE_UD_SEND_ONLY);
	CHECK_EQ(p.hdr.bth.dqpn, 0x34);
	CHECK_EQ(p.hdr.bth.psn, 0x234567);
	CHECK_EQ(p.hdr.bth.pkey, 0xffff);
	CHECK_EQ(p.hdr.deth.qkey, 0x11112222);
	CHECK_EQ(p.hdr.deth.sqpn, 0x12);
	CHECK_EQ(p.payload_len, 100);
	CHECK_EQ(sroce_ud_rx_check(&b, &p), SROCE_UD_OK);
	tap_end();

	tap_begin("ud: immediate data and solicited event travel");
	s.imm = true;
	s.se = true;
	s.imm_data = 0xdeadbeef;
	CHECK_EQ(ud_roundtrip(&a, &s, &p), 0);
	CHECK_EQ(p.hdr.bth.opcode, SROCE_UD_SEND_ONLY_IMM);
	CHECK(p.hdr.bth.se);
	CHECK_EQ(p.hdr.imm, 0xdeadbeef);
	CHECK_EQ(sroce_ud_rx_check(&b, &p), SROCE_UD_OK);
	s.imm = false;
	s.se = false;
	tap_end();

	tap_begin("ud: a controlled Q_Key in the WR means the QP's own");
	s.remote_qkey = 0x80000005;
	CHECK_EQ(sroce_ud_tx_hdrs(&a, &s, 0, &h), SROCE_UD_OK);
	CHECK_EQ(h.deth.qkey, 0x11112222);
	CHECK_EQ(sroce_ud_tx_hdrs(&gsi, &s, 0, &h), SROCE_UD_OK);
	CHECK_EQ(h.deth.qkey, SROCE_GSI_QKEY);
	CHECK_EQ(h.deth.sqpn, 1);
	s.remote_qkey = 0x11112222;
	tap_end();

	tap_begin("ud: a datagram over the MTU is refused, at the MTU sent");
	s.length = 1025;
	CHECK_EQ(sroce_ud_tx_hdrs(&a, &s, 0, &h), SROCE_UD_TOO_LONG);
	s.length = 1024;
	CHECK_EQ(ud_roundtrip(&a, &s, &p), 0);
	CHECK_EQ(sroce_ud_rx_check(&b, &p), SROCE_UD_OK);
	b.mtu = 512;	/* a peer with a larger MTU */
	CHECK_EQ(sroce_ud_rx_check(&b, &p), SROCE_UD_TOO_LONG);
	b.mtu = 1024;
	s.length = 100;
	tap_end();

	tap_begin("ud: wrong Q_Key dropped; the GSI QP takes only 0x80010000");
	s.remote_qkey = 0x11112223;
	CHECK_EQ(ud_roundtrip(&a, &s, &p), 0);
	CHECK_EQ(sroce_ud_rx_check(&b, &p), SROCE_UD_BAD_QKEY);
	s.remote_qkey = SROCE_GSI_QKEY;	/* controlled: the GSI QP's own */
	CHECK_EQ(ud_roundtrip(&gsi, &s, &p), 0);
	CHECK_EQ(p.hdr.deth.qkey, SROCE_GSI_QKEY);
	CHECK_EQ(sroce_ud_rx_check(&gsi, &p), SROCE_UD_OK);
	gsi.qkey = 0x11112223;	/* whatever the GSI QP was set to */
	CHECK_EQ(sroce_ud_rx_check(&gsi, &p), SROCE_UD_OK);
	s.remote_qkey = 0x11112223;
	CHECK_EQ(ud_roundtrip(&a, &s, &p), 0);
	CHECK_EQ(sroce_ud_rx_check(&gsi, &p), SROCE_UD_BAD_QKEY);
	s.remote_qkey = 0x11112222;
	tap_end();

	tap_begin("ud: only UD SEND_ONLY(_IMM) is delivered");
	memset(&p, 0, sizeof(p));
	p.hdr.deth.qkey = b.qkey;
	p.hdr.bth.opcode = SROCE_OPCODE(SROCE_TRANSPORT_RC,
					SROCE_OP_SEND_ONLY);
	CHECK_EQ(sroce_ud_rx_check(&b, &p), SROCE_UD_BAD_OPCODE);
	p.hdr.bth.opcode = SROCE_OPCODE(SROCE_TRANSPORT_UD,
					SROCE_OP_SEND_FIRST);
	CHECK_EQ(sroce_ud_rx_check(&b, &p), SROCE_UD_BAD_OPCODE);
	p.hdr.bth.opcode = SROCE_UD_SEND_ONLY;
	CHECK_EQ(sroce_ud_rx_check(&b, &p), SROCE_UD_OK);
	tap_end();

	tap_begin("ud: the receive WQE must hold the GRH and the payload");
	p.payload_len = 100;
	CHECK_EQ(sroce_ud_rx_fits(&p, 140), SROCE_UD_OK);
	CHECK_EQ(sroce_ud_rx_fits(&p, 139), SROCE_UD_NO_ROOM);
	CHECK_EQ(sroce_ud_rx_fits(&p, 39), SROCE_UD_NO_ROOM);
	p.payload_len = 0;
	CHECK_EQ(sroce_ud_rx_fits(&p, 40), SROCE_UD_OK);
	CHECK_EQ(sroce_ud_rx_fits(&p, 0), SROCE_UD_NO_ROOM);
	tap_end();
}
