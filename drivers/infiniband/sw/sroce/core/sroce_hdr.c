// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce header codec and packet parser: big-endian encode/decode of the BTH
 * and every extended transport header, the table-driven header builder and
 * the validating parser of a RoCEv2 UDP payload (BTH .. ICRC).
 */
#include "sroce/wire.h"
#include "sroce/opcode.h"

static const char * const sroce_drop_names[SROCE_DROP_NR] = {
	[SROCE_OK]		= "ok",
	[SROCE_DROP_TOO_SHORT]	= "too_short",
	[SROCE_DROP_BAD_OPCODE]	= "bad_opcode",
	[SROCE_DROP_BAD_TVER]	= "bad_tver",
	[SROCE_DROP_TRUNC_HDR]	= "truncated_header",
	[SROCE_DROP_BAD_PAD]	= "bad_pad",
	[SROCE_DROP_BAD_LEN]	= "bad_length",
	[SROCE_DROP_TOO_LONG]	= "too_long",
	[SROCE_DROP_BAD_NET_HDR] = "bad_net_header",
	[SROCE_DROP_BAD_ICRC]	= "bad_icrc",
	[SROCE_DROP_NOSPACE]	= "no_space",
};

const char *sroce_drop_reason_name(int reason)
{
	if (reason <= -SROCE_DROP_NR || reason >= SROCE_DROP_NR)
		return "unknown";
	if (reason < 0)
		reason = -reason;
	return sroce_drop_names[reason];
}

/* BTH: opcode | SE M Pad(2) TVer(4) | P_Key | resv8a | DestQP | A resv7 | PSN */
void sroce_bth_encode(u8 *p, const struct sroce_bth *bth)
{
	p[0] = bth->opcode;
	p[1] = (bth->se ? SROCE_BTH_SE : 0) |
	       (bth->mig ? SROCE_BTH_MIG : 0) |
	       ((bth->pad << SROCE_BTH_PAD_SHIFT) & SROCE_BTH_PAD_MASK) |
	       (bth->tver & SROCE_BTH_TVER_MASK);
	sroce_put_be16(p + 2, bth->pkey);
	p[4] = bth->resv8a;
	sroce_put_be24(p + 5, bth->dqpn);
	p[8] = (bth->ackreq ? SROCE_BTH_ACKREQ : 0) |
	       (bth->resv7 & SROCE_BTH_RESV7_MASK);
	sroce_put_be24(p + 9, bth->psn);
}

void sroce_bth_decode(const u8 *p, struct sroce_bth *bth)
{
	bth->opcode = p[0];
	bth->se = !!(p[1] & SROCE_BTH_SE);
	bth->mig = !!(p[1] & SROCE_BTH_MIG);
	bth->pad = (p[1] & SROCE_BTH_PAD_MASK) >> SROCE_BTH_PAD_SHIFT;
	bth->tver = p[1] & SROCE_BTH_TVER_MASK;
	bth->pkey = sroce_get_be16(p + 2);
	bth->resv8a = p[4];
	bth->dqpn = sroce_get_be24(p + 5);
	bth->ackreq = !!(p[8] & SROCE_BTH_ACKREQ);
	bth->resv7 = p[8] & SROCE_BTH_RESV7_MASK;
	bth->psn = sroce_get_be24(p + 9);
}

/* RETH: VA(64) R_Key(32) DMA length(32) */
void sroce_reth_encode(u8 *p, const struct sroce_reth *reth)
{
	sroce_put_be64(p, reth->va);
	sroce_put_be32(p + 8, reth->rkey);
	sroce_put_be32(p + 12, reth->len);
}

void sroce_reth_decode(const u8 *p, struct sroce_reth *reth)
{
	reth->va = sroce_get_be64(p);
	reth->rkey = sroce_get_be32(p + 8);
	reth->len = sroce_get_be32(p + 12);
}

/* AETH: syndrome(8) MSN(24) */
void sroce_aeth_encode(u8 *p, const struct sroce_aeth *aeth)
{
	p[0] = aeth->syndrome;
	sroce_put_be24(p + 1, aeth->msn);
}

void sroce_aeth_decode(const u8 *p, struct sroce_aeth *aeth)
{
	aeth->syndrome = p[0];
	aeth->msn = sroce_get_be24(p + 1);
}

/* DETH: Q_Key(32) resv(8) SrcQP(24) */
void sroce_deth_encode(u8 *p, const struct sroce_deth *deth)
{
	sroce_put_be32(p, deth->qkey);
	p[4] = deth->resv8;
	sroce_put_be24(p + 5, deth->sqpn);
}

void sroce_deth_decode(const u8 *p, struct sroce_deth *deth)
{
	deth->qkey = sroce_get_be32(p);
	deth->resv8 = p[4];
	deth->sqpn = sroce_get_be24(p + 5);
}

/* AtomicETH: VA(64) R_Key(32) swap/add data(64) compare data(64) */
void sroce_atmeth_encode(u8 *p, const struct sroce_atmeth *atmeth)
{
	sroce_put_be64(p, atmeth->va);
	sroce_put_be32(p + 8, atmeth->rkey);
	sroce_put_be64(p + 12, atmeth->swap_add);
	sroce_put_be64(p + 20, atmeth->compare);
}

void sroce_atmeth_decode(const u8 *p, struct sroce_atmeth *atmeth)
{
	atmeth->va = sroce_get_be64(p);
	atmeth->rkey = sroce_get_be32(p + 8);
	atmeth->swap_add = sroce_get_be64(p + 12);
	atmeth->compare = sroce_get_be64(p + 20);
}

/* AtomicAckETH: original remote data(64) */
void sroce_atmack_encode(u8 *p, const struct sroce_atmack *atmack)
{
	sroce_put_be64(p, atmack->orig);
}

void sroce_atmack_decode(const u8 *p, struct sroce_atmack *atmack)
{
	atmack->orig = sroce_get_be64(p);
}

/* ImmDt: 32 opaque bits */
void sroce_immdt_encode(u8 *p, u32 imm)
{
	sroce_put_be32(p, imm);
}

u32 sroce_immdt_decode(const u8 *p)
{
	return sroce_get_be32(p);
}

/* IETH: R_Key to invalidate */
void sroce_ieth_encode(u8 *p, u32 rkey)
{
	sroce_put_be32(p, rkey);
}

u32 sroce_ieth_decode(const u8 *p)
{
	return sroce_get_be32(p);
}

/*
 * Decode every extension header @info says is present; @buf holds at least
 * info->length bytes.
 */
static void sroce_decode_ext(const struct sroce_opcode_info *info,
			     const u8 *buf, struct sroce_hdrs *h)
{
	u32 m = info->mask;

	if (m & SROCE_MASK_AETH)
		sroce_aeth_decode(buf + info->offset[SROCE_HDR_AETH], &h->aeth);
	if (m & SROCE_MASK_ATMACK)
		sroce_atmack_decode(buf + info->offset[SROCE_HDR_ATMACK],
				    &h->atmack);
	if (m & SROCE_MASK_DETH)
		sroce_deth_decode(buf + info->offset[SROCE_HDR_DETH], &h->deth);
	if (m & SROCE_MASK_RETH)
		sroce_reth_decode(buf + info->offset[SROCE_HDR_RETH], &h->reth);
	if (m & SROCE_MASK_ATMETH)
		sroce_atmeth_decode(buf + info->offset[SROCE_HDR_ATMETH],
				    &h->atmeth);
	if (m & SROCE_MASK_IMMDT)
		h->imm = sroce_immdt_decode(buf + info->offset[SROCE_HDR_IMMDT]);
	if (m & SROCE_MASK_IETH)
		h->ieth_rkey = sroce_ieth_decode(buf + info->offset[SROCE_HDR_IETH]);
	/* CNP reserved bytes: ignored on receive */
}

/* Counterpart of sroce_decode_ext(); reserved CNP bytes are written as 0 */
static void sroce_encode_ext(const struct sroce_opcode_info *info,
			     u8 *buf, const struct sroce_hdrs *h)
{
	u32 m = info->mask;

	if (m & SROCE_MASK_AETH)
		sroce_aeth_encode(buf + info->offset[SROCE_HDR_AETH], &h->aeth);
	if (m & SROCE_MASK_ATMACK)
		sroce_atmack_encode(buf + info->offset[SROCE_HDR_ATMACK],
				    &h->atmack);
	if (m & SROCE_MASK_DETH)
		sroce_deth_encode(buf + info->offset[SROCE_HDR_DETH], &h->deth);
	if (m & SROCE_MASK_RETH)
		sroce_reth_encode(buf + info->offset[SROCE_HDR_RETH], &h->reth);
	if (m & SROCE_MASK_ATMETH)
		sroce_atmeth_encode(buf + info->offset[SROCE_HDR_ATMETH],
				    &h->atmeth);
	if (m & SROCE_MASK_IMMDT)
		sroce_immdt_encode(buf + info->offset[SROCE_HDR_IMMDT], h->imm);
	if (m & SROCE_MASK_IETH)
		sroce_ieth_encode(buf + info->offset[SROCE_HDR_IETH],
				  h->ieth_rkey);
	if (m & SROCE_MASK_CNP_RSVD)
		memset(buf + info->offset[SROCE_HDR_CNP_RSVD], 0,
		       SROCE_CNP_RSVD_LEN);
}

/*
 * Check that @payload_len bytes (pad excluded) may travel with @info.
 * Returns the pad count or -enum sroce_drop_reason.
 */
static int sroce_check_payload(const struct sroce_opcode_info *info,
			       u32 payload_len)
{
	u8 pad = sroce_pad_len(payload_len);

	if (payload_len && !(info->mask & SROCE_MASK_PAYLOAD))
		return -SROCE_DROP_BAD_LEN;
	if (payload_len > SROCE_MAX_PAYLOAD)
		return -SROCE_DROP_TOO_LONG;
	if (pad && !(info->mask & SROCE_MASK_PAD_OK))
		return -SROCE_DROP_BAD_PAD;
	return pad;
}

int sroce_parse_bth_packet(const u8 *buf, size_t len, struct sroce_pkt *out)
{
	const struct sroce_opcode_info *info;
	struct sroce_bth *bth = &out->hdr.bth;
	size_t body;	/* payload + pad */
	u32 payload;

	memset(out, 0, sizeof(*out));

	if (!buf || len < SROCE_BTH_LEN + SROCE_ICRC_LEN)
		return -SROCE_DROP_TOO_SHORT;

	info = sroce_opcode_get(buf[0]);
	if (!info)
		return -SROCE_DROP_BAD_OPCODE;

	sroce_bth_decode(buf, bth);
	if (bth->tver != SROCE_TVER)
		return -SROCE_DROP_BAD_TVER;

	if (len < (size_t)info->length + SROCE_ICRC_LEN)
		return -SROCE_DROP_TRUNC_HDR;
	body = len - info->length - SROCE_ICRC_LEN;

	/* A non-zero PadCnt is only legal where the table allows it */
	if (bth->pad && !(info->mask & SROCE_MASK_PAD_OK))
		return -SROCE_DROP_BAD_PAD;
	/* Bytes after the headers only where the opcode carries payload */
	if (body && !(info->mask & SROCE_MASK_PAYLOAD))
		return -SROCE_DROP_BAD_LEN;
	if (body > SROCE_MAX_PAYLOAD + (size_t)bth->pad)
		return -SROCE_DROP_TOO_LONG;
	/*
	 * The pad must fit in the bytes present and bring the payload to a
	 * 4-byte boundary; this also rules out pad without payload.
	 */
	if (body < bth->pad || (body & 3))
		return -SROCE_DROP_BAD_PAD;
	payload = (u32)body - bth->pad;

	sroce_decode_ext(info, buf, &out->hdr);
	if (buf[0] == SROCE_RC_ATOMIC_WRITE && payload == 8)
		memcpy(&out->hdr.awrite, buf + info->length, 8);

	out->info = info;
	out->hdr_len = info->length;
	out->payload_off = info->length;
	out->payload_len = payload;
	out->pad = bth->pad;
	out->icrc_off = (u32)len - SROCE_ICRC_LEN;
	out->icrc = sroce_get_le32(buf + out->icrc_off);
	out->pkt_len = (u32)len;
	return 0;
}

int sroce_build_hdrs(u8 *buf, size_t cap, const struct sroce_hdrs *h,
		     u32 payload_len)
{
	const struct sroce_opcode_info *info;
	struct sroce_bth bth;
	int pad;

	info = sroce_opcode_get(h->bth.opcode);
	if (!info)
		return -SROCE_DROP_BAD_OPCODE;
	pad = sroce_check_payload(info, payload_len);
	if (pad < 0)
		return pad;
	if (!buf || cap < info->length)
		return -SROCE_DROP_NOSPACE;

	bth = h->bth;
	bth.pad = (u8)pad;
	sroce_bth_encode(buf, &bth);
	sroce_encode_ext(info, buf, h);
	return info->length;
}

int sroce_pkt_len(u8 opcode, u32 payload_len)
{
	const struct sroce_opcode_info *info = sroce_opcode_get(opcode);
	int pad;

	if (!info)
		return -SROCE_DROP_BAD_OPCODE;
	pad = sroce_check_payload(info, payload_len);
	if (pad < 0)
		return pad;
	return info->length + (int)payload_len + pad + SROCE_ICRC_LEN;
}

void sroce_cnp_hdrs(u32 dqpn, struct sroce_hdrs *h)
{
	memset(h, 0, sizeof(*h));
	h->bth.opcode = SROCE_CNP_OPCODE;
	h->bth.tver = SROCE_TVER;
	h->bth.pkey = SROCE_DEFAULT_PKEY;
	h->bth.resv8a = SROCE_BTH_BECN;
	h->bth.dqpn = dqpn & SROCE_QPN_MASK;
}
