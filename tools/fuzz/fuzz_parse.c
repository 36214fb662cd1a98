// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the sroce protocol core.  Feeds arbitrary bytes to
 *  1. the BTH-level parser (as a UDP payload) and checks the invariants of
 *     accepted packets, including that re-building the headers from the
 *     decoded structs reproduces the input bytes;
 *  2. the ICRC functions (as an IP packet);
 *  3. the ICRC functions again with the input wrapped in a well-formed
 *     IPv4 or IPv6 + UDP header, checking compute/verify agreement and that
 *     the masked fields do not change the result;
 *  4. the UD receive rules on every accepted packet, as a UD QP and as the
 *     GSI QP would apply them, against an oracle written here.
 * Any violated invariant aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sroce/wire.h"
#include "sroce/opcode.h"
#include "sroce/icrc.h"
#include "sroce/ud.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(c) do { if (!(c)) fuzz_fail(#c, __LINE__); } while (0)

static void fuzz_fail(const char *what, int line)
{
	fprintf(stderr, "fuzz_parse.c:%d: invariant failed: %s\n", line, what);
	abort();
}

static void check_ret(int ret)
{
	FUZZ_ASSERT(ret <= 0 && ret > -SROCE_DROP_NR);
	FUZZ_ASSERT(strcmp(sroce_drop_reason_name(ret), "unknown") != 0);
}

/* UD receive rules against an oracle, for a UD QP and the GSI QP */
static void fuzz_ud(const struct sroce_pkt *pkt)
{
	u8 op = pkt->hdr.bth.opcode;
	bool ud = op == SROCE_UD_SEND_ONLY || op == SROCE_UD_SEND_ONLY_IMM;
	const u32 qkeys[2] = { 0x11223344, SROCE_GSI_QKEY };
	const u32 qpns[2] = { 0x20, SROCE_GSI_QPN };
	int i;

	for (i = 0; i < 2; i++) {
		struct sroce_ud_cfg cfg = { .qpn = qpns[i], .qkey = qkeys[i],
					    .mtu = 1024, .pkey = 0xffff };
		enum sroce_ud_status st = sroce_ud_rx_check(&cfg, pkt);
		enum sroce_ud_status want;

		if (!ud)
			want = SROCE_UD_BAD_OPCODE;
		else if (pkt->hdr.deth.qkey != qkeys[i])
			want = SROCE_UD_BAD_QKEY;
		else if (pkt->payload_len > cfg.mtu)
			want = SROCE_UD_TOO_LONG;
		else
			want = SROCE_UD_OK;
		FUZZ_ASSERT(st == want);
		if (st != SROCE_UD_OK)
			continue;
		/* exactly GRH + payload bytes are needed */
		FUZZ_ASSERT(sroce_ud_rx_fits(pkt, SROCE_GRH_LEN +
					     pkt->payload_len) == SROCE_UD_OK);
		FUZZ_ASSERT(sroce_ud_rx_fits(pkt, SROCE_GRH_LEN +
					     pkt->payload_len - 1) ==
			    SROCE_UD_NO_ROOM);
	}
}

static void fuzz_parser(const u8 *data, size_t size)
{
	u8 out[SROCE_MAX_HDR_LEN];
	struct sroce_pkt pkt;
	size_t cmp;
	int ret;

	ret = sroce_parse_bth_packet(data, size, &pkt);
	check_ret(ret);
	if (ret) {
		FUZZ_ASSERT(!pkt.info);
		return;
	}
	FUZZ_ASSERT(pkt.info && pkt.info == sroce_opcode_get(data[0]));
	FUZZ_ASSERT(sroce_opcode_name(data[0]) == pkt.info->name);
	FUZZ_ASSERT(pkt.hdr_len == pkt.info->length);
	FUZZ_ASSERT(pkt.payload_off == pkt.hdr_len);
	FUZZ_ASSERT(pkt.pad <= 3 && pkt.pad == sroce_pad_len(pkt.payload_len));
	FUZZ_ASSERT(pkt.payload_len <= SROCE_MAX_PAYLOAD);
	FUZZ_ASSERT(size == (size_t)pkt.payload_off + pkt.payload_len +
		    pkt.pad + SROCE_ICRC_LEN);
	FUZZ_ASSERT(pkt.icrc_off + SROCE_ICRC_LEN == size);
	FUZZ_ASSERT(pkt.pkt_len == size);
	FUZZ_ASSERT(pkt.icrc == sroce_icrc_get(data + size - SROCE_ICRC_LEN));
	FUZZ_ASSERT(pkt.hdr.bth.tver == 0);
	FUZZ_ASSERT(pkt.payload_len == 0 ||
		    (pkt.info->mask & SROCE_MASK_PAYLOAD));
	FUZZ_ASSERT(sroce_pkt_len(data[0], pkt.payload_len) == (int)size);

	/* the decoded headers rebuild the exact input bytes */
	FUZZ_ASSERT(sroce_build_hdrs(out, sizeof(out), &pkt.hdr,
				     pkt.payload_len) == (int)pkt.hdr_len);
	cmp = (pkt.info->mask & SROCE_MASK_CNP_RSVD) ? SROCE_BTH_LEN :
						       pkt.hdr_len;
	FUZZ_ASSERT(memcmp(out, data, cmp) == 0);
	fuzz_ud(&pkt);
}

static void fuzz_icrc_raw(const u8 *data, size_t size)
{
	u32 icrc;
	int ret;

	check_ret(sroce_icrc_verify(data, size));
	ret = sroce_icrc_compute(data, size, &icrc);
	check_ret(ret);
	ret = sroce_net_hdr_len(data, size);
	FUZZ_ASSERT(ret == -SROCE_DROP_BAD_NET_HDR || ret == 28 || ret == 48);
	if (ret > 0)
		fuzz_parser(data + ret, size - (size_t)ret);
}

/* Wrap @data in IPv4/IPv6 + UDP, then exercise compute/verify/masks */
static void fuzz_icrc_wrapped(const u8 *data, size_t size)
{
	static const u8 v4[28] = {
		0x45, 0x00, 0x00, 0x00, 0x12, 0x34, 0x40, 0x00,
		0x40, 0x11, 0x00, 0x00, 10, 0, 0, 1, 10, 0, 0, 2,
		0xc0, 0x00, 0x12, 0xb7, 0x00, 0x00, 0x00, 0x00,
	};
	static const u8 v6[48] = {
		0x60, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0x40,
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
		0xc0, 0x00, 0x12, 0xb7, 0x00, 0x00, 0x00, 0x00,
	};
	u8 img[48 + SROCE_MAX_PKT_LEN + SROCE_ICRC_LEN];
	bool is_v6 = size && (data[size - 1] & 1);
	size_t net = is_v6 ? sizeof(v6) : sizeof(v4);
	size_t len;
	u32 icrc, icrc2, crc;
	int ret, n;

	if (size > SROCE_MAX_PKT_LEN)
		size = SROCE_MAX_PKT_LEN;
	memcpy(img, is_v6 ? v6 : v4, net);
	if (size)
		memcpy(img + net, data, size);
	len = net + size;

	ret = sroce_icrc_compute(img, len, &icrc);
	check_ret(ret);
	if (size < SROCE_BTH_LEN) {
		FUZZ_ASSERT(ret == -SROCE_DROP_TOO_SHORT);
		return;
	}
	FUZZ_ASSERT(ret == 0);

	/* chained computation agrees */
	n = sroce_icrc_begin(img, len, &crc);
	FUZZ_ASSERT(n == (int)(net + SROCE_BTH_LEN));
	crc = sroce_icrc_update(crc, img + n, (len - (size_t)n) / 2);
	crc = sroce_icrc_update(crc, img + n + (len - (size_t)n) / 2,
				len - (size_t)n - (len - (size_t)n) / 2);
	FUZZ_ASSERT(sroce_icrc_final(crc) == icrc);

	/* appended ICRC verifies; a flipped bit does not */
	sroce_icrc_put(img + len, icrc);
	FUZZ_ASSERT(sroce_icrc_verify(img, len + SROCE_ICRC_LEN) == 0);
	img[len] ^= 0x01;
	FUZZ_ASSERT(sroce_icrc_verify(img, len + SROCE_ICRC_LEN) ==
		    -SROCE_DROP_BAD_ICRC);
	img[len] ^= 0x01;

	/* masked fields take values from the input: ICRC unchanged */
	if (is_v6) {
		img[0] = (u8)(0x60 | (data[0] & 0x0f));
		img[1] = data[1 % size];
		img[2] = data[2 % size];
		img[3] = data[3 % size];
		img[7] = data[4 % size];
	} else {
		img[1] = data[0];
		img[8] = data[1 % size];
		img[10] = data[2 % size];
		img[11] = data[3 % size];
	}
	img[net - 2] = data[5 % size];
	img[net - 1] = data[6 % size];
	img[net + 4] = data[7 % size];
	FUZZ_ASSERT(sroce_icrc_compute(img, len, &icrc2) == 0);
	FUZZ_ASSERT(icrc2 == icrc);

	fuzz_parser(img + net, size + SROCE_ICRC_LEN);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_parser(data, size);
	fuzz_icrc_raw(data, size);
	fuzz_icrc_wrapped(data, size);
	return 0;
}
