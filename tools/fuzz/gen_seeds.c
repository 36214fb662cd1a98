// SPDX-License-Identifier: GPL-2.0-only
/*
 * Seed corpus generator for fuzz_parse: writes, for every known opcode, a
 * valid UDP payload (BTH .. ICRC) and the same packet behind an IPv4 and an
 * IPv6 header with a correct ICRC.  Usage: gen_seeds DIR
 */
#include <stdio.h>
#include <string.h>

#include "sroce/wire.h"
#include "sroce/opcode.h"
#include "sroce/icrc.h"

static int write_file(const char *dir, const char *tag, unsigned int op,
		      const u8 *p, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-%s-%02x", dir, tag, op);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len) {
		perror(path);
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f);
}

int main(int argc, char **argv)
{
	static const u8 v4[28] = {
		0x45, 0x00, 0x00, 0x00, 0x00, 0x01, 0x40, 0x00,
		0x40, 0x11, 0x00, 0x00, 10, 0, 0, 1, 10, 0, 0, 2,
		0xc0, 0x00, 0x12, 0xb7, 0x00, 0x00, 0x00, 0x00,
	};
	static const u8 v6[48] = {
		0x60, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0x40,
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
		0xc0, 0x00, 0x12, 0xb7, 0x00, 0x00, 0x00, 0x00,
	};
	static u8 pkt[48 + SROCE_MAX_PKT_LEN];
	unsigned int op;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode_get((u8)op);
		struct sroce_hdrs h;
		u32 plen;
		int total, v;

		if (!info)
			continue;
		plen = 0;
		if (info->mask & SROCE_MASK_PAYLOAD)
			plen = (info->mask & SROCE_MASK_PAD_OK) ? 5 : 16;
		memset(&h, 0, sizeof(h));
		h.bth.opcode = (u8)op;
		h.bth.pkey = 0xffff;
		h.bth.dqpn = 0x11;
		h.bth.psn = 0x123456;
		h.aeth.syndrome = 0x1f;
		h.deth.qkey = 0x80010000;	/* the GSI Q_Key: delivered */
		h.deth.sqpn = 1;
		total = sroce_pkt_len((u8)op, plen);
		for (v = 0; v < 3; v++) {
			size_t net = v == 0 ? 0 : v == 1 ? 28 : 48;
			u32 icrc;

			memset(pkt, 0, sizeof(pkt));
			if (v)
				memcpy(pkt, v == 1 ? v4 : v6, net);
			if (sroce_build_hdrs(pkt + net, SROCE_MAX_HDR_LEN, &h,
					     plen) < 0)
				return 1;
			memset(pkt + net + info->length, 0xab, plen);
			if (v) {
				if (sroce_icrc_compute(pkt, net + (size_t)total - 4,
						       &icrc))
					return 1;
				sroce_icrc_put(pkt + net + total - 4, icrc);
				/* the fuzzer picks IPv6 on an odd last byte */
				if (v == 1 && (icrc >> 24) & 1)
					continue;
				if (v == 2 && !((icrc >> 24) & 1))
					continue;
			}
			if (write_file(argv[1], v == 0 ? "udp" : v == 1 ? "ip4" : "ip6",
				       op, pkt, net + (size_t)total))
				return 1;
		}
	}
	return 0;
}
