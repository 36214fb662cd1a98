// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce ICRC: computes and checks the RoCEv2 invariant CRC over an
 * (IPv4 | IPv6) + UDP + BTH + extension headers + payload + pad image.
 * Variant fields are masked in a small on-stack copy of the IP/UDP/BTH
 * headers; the caller's buffer is only read.  See icrc.h for the rules and
 * the byte order of the ICRC field.
 */
#include "sroce/icrc.h"

/* IPv4 byte offsets */
#define IPV4_VER_IHL		0
#define IPV4_TOS		1
#define IPV4_TTL		8
#define IPV4_PROTO		9
#define IPV4_CSUM		10
#define IPV4_VER_IHL_NOOPT	0x45

/* IPv6 byte offsets */
#define IPV6_NEXT_HDR		6
#define IPV6_HOP_LIMIT		7

/* UDP / BTH byte offsets */
#define UDP_CSUM		6
#define BTH_RESV8A		4

#define IPPROTO_UDP_NUM		17

int sroce_net_hdr_len(const u8 *ip, size_t len)
{
	if (!ip || !len)
		return -SROCE_DROP_BAD_NET_HDR;

	if (ip[0] >> 4 == 4) {
		/*
		 * RoCEv2 never uses IPv4 options; with them the UDP header
		 * would move and rdma_rxe would mask the wrong bytes, so they
		 * are refused rather than guessed at.
		 */
		if (len < SROCE_IPV4_HDR_LEN + SROCE_UDP_HDR_LEN ||
		    ip[IPV4_VER_IHL] != IPV4_VER_IHL_NOOPT ||
		    ip[IPV4_PROTO] != IPPROTO_UDP_NUM)
			return -SROCE_DROP_BAD_NET_HDR;
		return SROCE_IPV4_HDR_LEN + SROCE_UDP_HDR_LEN;
	}
	if (ip[0] >> 4 == 6) {
		/* UDP must follow the fixed header: no extension headers */
		if (len < SROCE_IPV6_HDR_LEN + SROCE_UDP_HDR_LEN ||
		    ip[IPV6_NEXT_HDR] != IPPROTO_UDP_NUM)
			return -SROCE_DROP_BAD_NET_HDR;
		return SROCE_IPV6_HDR_LEN + SROCE_UDP_HDR_LEN;
	}
	return -SROCE_DROP_BAD_NET_HDR;
}

int sroce_icrc_begin(const u8 *ip, size_t len, u32 *crc)
{
	u8 img[SROCE_IPV6_HDR_LEN + SROCE_UDP_HDR_LEN + SROCE_BTH_LEN];
	int net = sroce_net_hdr_len(ip, len);
	size_t n;

	if (net < 0)
		return net;
	n = (size_t)net + SROCE_BTH_LEN;
	if (len < n)
		return -SROCE_DROP_TOO_SHORT;

	memcpy(img, ip, n);
	if (net == SROCE_IPV4_HDR_LEN + SROCE_UDP_HDR_LEN) {
		img[IPV4_TOS] = 0xff;
		img[IPV4_TTL] = 0xff;
		img[IPV4_CSUM] = 0xff;
		img[IPV4_CSUM + 1] = 0xff;
	} else {
		/* version(4) | traffic class(8) | flow label(20) */
		img[0] |= 0x0f;
		img[1] = 0xff;
		img[2] = 0xff;
		img[3] = 0xff;
		img[IPV6_HOP_LIMIT] = 0xff;
	}
	img[net - SROCE_UDP_HDR_LEN + UDP_CSUM] = 0xff;
	img[net - SROCE_UDP_HDR_LEN + UDP_CSUM + 1] = 0xff;
	img[net + BTH_RESV8A] = 0xff;

	*crc = sroce_crc32_le(SROCE_ICRC_SEED, img, n);
	return (int)n;
}

int sroce_icrc_compute(const u8 *ip, size_t len, u32 *icrc)
{
	u32 crc;
	int n = sroce_icrc_begin(ip, len, &crc);

	if (n < 0)
		return n;
	crc = sroce_icrc_update(crc, ip + n, len - (size_t)n);
	*icrc = sroce_icrc_final(crc);
	return 0;
}

int sroce_icrc_verify(const u8 *ip, size_t len)
{
	u32 icrc;
	int err;

	if (len < SROCE_ICRC_LEN)
		return -SROCE_DROP_TOO_SHORT;
	err = sroce_icrc_compute(ip, len - SROCE_ICRC_LEN, &icrc);
	if (err)
		return err;
	if (icrc != sroce_icrc_get(ip + len - SROCE_ICRC_LEN))
		return -SROCE_DROP_BAD_ICRC;
	return 0;
}
