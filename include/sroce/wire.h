/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce wire format: RoCEv2 constants, the decoded (host-endian) forms of the
 * BTH and the extended transport headers, big-endian byte helpers, the header
 * codec and the BTH-level packet parser (implemented in sroce_hdr.c).
 *
 * Structs hold host-endian values; encode/decode convert to/from big-endian
 * wire bytes.  Codec functions take plain byte pointers and never check the
 * length: the caller (the parser or the builder) guarantees room for the
 * fixed size of the header.
 */
#ifndef _SROCE_WIRE_H
#define _SROCE_WIRE_H

#include "sroce/compat.h"

/* Network header sizes (fixed parts) */
#define SROCE_IPV4_HDR_LEN	20
#define SROCE_IPV6_HDR_LEN	40
#define SROCE_UDP_HDR_LEN	8

/* Transport header sizes */
#define SROCE_BTH_LEN		12
#define SROCE_RETH_LEN		16
#define SROCE_AETH_LEN		4
#define SROCE_IMMDT_LEN		4
#define SROCE_IETH_LEN		4
#define SROCE_DETH_LEN		8
#define SROCE_ATMETH_LEN	28
#define SROCE_ATMACK_LEN	8
#define SROCE_CNP_RSVD_LEN	16	/* reserved bytes after a CNP's BTH */
#define SROCE_ICRC_LEN		4

/* Largest BTH + extension headers of any supported opcode (BTH+AtomicETH) */
#define SROCE_MAX_HDR_LEN	(SROCE_BTH_LEN + SROCE_ATMETH_LEN)

/* Largest payload accepted by the parser: the largest IB path MTU */
#define SROCE_MAX_PAYLOAD	4096

/* Largest UDP payload (BTH .. ICRC) the parser can accept */
#define SROCE_MAX_PKT_LEN	(SROCE_MAX_HDR_LEN + SROCE_MAX_PAYLOAD + 3 + \
				 SROCE_ICRC_LEN)

/* BTH field masks (byte 1, byte 8) and 24-bit field masks */
#define SROCE_BTH_SE		0x80
#define SROCE_BTH_MIG		0x40
#define SROCE_BTH_PAD_MASK	0x30
#define SROCE_BTH_PAD_SHIFT	4
#define SROCE_BTH_TVER_MASK	0x0f
#define SROCE_BTH_ACKREQ	0x80
#define SROCE_BTH_RESV7_MASK	0x7f
#define SROCE_BTH_BECN		0x40	/* byte 4 (resv8a): a CNP's BECN */
#define SROCE_QPN_MASK		0x00ffffffU
#define SROCE_MULTICAST_QPN	0x00ffffffU
#define SROCE_MSN_MASK		0x00ffffffU
#define SROCE_TVER		0
#define SROCE_DEFAULT_PKEY	0xffff

/* AETH syndrome: bit 7 reserved, bits 6..5 type, bits 4..0 value */
#define SROCE_AETH_RSVD_BIT	0x80
#define SROCE_AETH_TYPE_SHIFT	5
#define SROCE_AETH_TYPE_MASK	0x60
#define SROCE_AETH_VALUE_MASK	0x1f
#define SROCE_AETH_TYPE_ACK	0
#define SROCE_AETH_TYPE_RNR	1
#define SROCE_AETH_TYPE_RSVD	2
#define SROCE_AETH_TYPE_NAK	3
#define SROCE_AETH_CREDIT_INVALID 0x1f	/* "no credit limit" */

/* NAK codes (AETH value when type == NAK) */
enum sroce_nak_code {
	SROCE_NAK_PSN_SEQ_ERR	= 0,
	SROCE_NAK_INVALID_REQ	= 1,
	SROCE_NAK_REM_ACCESS	= 2,
	SROCE_NAK_REM_OP	= 3,
	SROCE_NAK_INVALID_RD_REQ = 4,
};

/* Full syndrome bytes */
#define SROCE_AETH_SYN(type, val) \
	((u8)((((type) << SROCE_AETH_TYPE_SHIFT) & SROCE_AETH_TYPE_MASK) | \
	      ((val) & SROCE_AETH_VALUE_MASK)))
#define SROCE_AETH_ACK_UNLIMITED \
	SROCE_AETH_SYN(SROCE_AETH_TYPE_ACK, SROCE_AETH_CREDIT_INVALID)

static inline u8 sroce_aeth_type(u8 syndrome)
{
	return (syndrome & SROCE_AETH_TYPE_MASK) >> SROCE_AETH_TYPE_SHIFT;
}

static inline u8 sroce_aeth_value(u8 syndrome)
{
	return syndrome & SROCE_AETH_VALUE_MASK;
}

/* Number of pad bytes that bring @payload_len to a multiple of 4 */
static inline u8 sroce_pad_len(u32 payload_len)
{
	return (u8)((4 - (payload_len & 3)) & 3);
}

/* Big-endian (and ICRC little-endian) byte access, alignment free */
static inline u16 sroce_get_be16(const u8 *p)
{
	return (u16)((p[0] << 8) | p[1]);
}

static inline u32 sroce_get_be24(const u8 *p)
{
	return ((u32)p[0] << 16) | ((u32)p[1] << 8) | p[2];
}

static inline u32 sroce_get_be32(const u8 *p)
{
	return ((u32)p[0] << 24) | ((u32)p[1] << 16) | ((u32)p[2] << 8) | p[3];
}

static inline u64 sroce_get_be64(const u8 *p)
{
	return ((u64)sroce_get_be32(p) << 32) | sroce_get_be32(p + 4);
}

static inline u32 sroce_get_le32(const u8 *p)
{
	return ((u32)p[3] << 24) | ((u32)p[2] << 16) | ((u32)p[1] << 8) | p[0];
}

static inline void sroce_put_be16(u8 *p, u16 v)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
}

static inline void sroce_put_be24(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 16);
	p[1] = (u8)(v >> 8);
	p[2] = (u8)v;
}

static inline void sroce_put_be32(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 24);
	p[1] = (u8)(v >> 16);
	p[2] = (u8)(v >> 8);
	p[3] = (u8)v;
}

static inline void sroce_put_be64(u8 *p, u64 v)
{
	sroce_put_be32(p, (u32)(v >> 32));
	sroce_put_be32(p + 4, (u32)v);
}

static inline void sroce_put_le32(u8 *p, u32 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
	p[2] = (u8)(v >> 16);
	p[3] = (u8)(v >> 24);
}

/*
 * Decoded headers.  Reserved fields are kept so that decode followed by
 * encode reproduces the wire bytes exactly; senders should leave them 0.
 */
struct sroce_bth {
	u8 opcode;
	bool se;		/* solicited event */
	bool mig;		/* MigReq */
	u8 pad;			/* PadCnt, 0..3 */
	u8 tver;		/* transport version, 4 bits, must be 0 */
	u16 pkey;
	u8 resv8a;		/* byte 4 (FECN/BECN on IB), masked in ICRC */
	u32 dqpn;		/* 24 bits */
	bool ackreq;
	u8 resv7;		/* 7 reserved bits of byte 8 */
	u32 psn;		/* 24 bits */
};

struct sroce_reth {
	u64 va;
	u32 rkey;
	u32 len;		/* DMA length */
};

struct sroce_aeth {
	u8 syndrome;
	u32 msn;		/* 24 bits */
};

struct sroce_deth {
	u32 qkey;
	u8 resv8;
	u32 sqpn;		/* 24 bits */
};

struct sroce_atmeth {
	u64 va;
	u32 rkey;
	u64 swap_add;		/* swap (CmpSwap) or add (FetchAdd) data */
	u64 compare;		/* compare data, ignored by FetchAdd */
};

struct sroce_atmack {
	u64 orig;		/* original remote data */
};

/*
 * All transport headers of one packet.  Which members are meaningful is given
 * by the opcode's mask (SROCE_MASK_* in opcode.h); the others are zero after
 * parsing and ignored when building.
 *
 * @imm: the ImmDt field read as a big-endian number.  Verbs hand immediate
 *	 data around as __be32 (wc.ex.imm_data): convert with cpu_to_be32().
 * @ieth_rkey: the R_Key to invalidate carried in the IETH.
 */
struct sroce_hdrs {
	struct sroce_bth bth;
	struct sroce_reth reth;
	struct sroce_aeth aeth;
	struct sroce_deth deth;
	struct sroce_atmeth atmeth;
	struct sroce_atmack atmack;
	u32 imm;
	u32 ieth_rkey;
	/*
	 * ATOMIC WRITE: its 8 bytes of payload, as they go to memory (byte
	 * for byte; parsed only, the builder's caller writes the payload)
	 */
	u64 awrite;
};

struct sroce_opcode_info;

/*
 * Result of sroce_parse_bth_packet().  All offsets are from the BTH start,
 * i.e. from the start of the UDP payload given to the parser.
 */
struct sroce_pkt {
	const struct sroce_opcode_info *info;
	struct sroce_hdrs hdr;
	u32 hdr_len;		/* BTH + extension headers */
	u32 payload_off;	/* == hdr_len */
	u32 payload_len;	/* payload bytes, pad excluded */
	u8 pad;			/* pad bytes after the payload */
	u32 icrc_off;		/* offset of the 4 ICRC bytes */
	u32 icrc;		/* ICRC as carried (little-endian wire order) */
	u32 pkt_len;		/* BTH .. end of ICRC */
};

/*
 * Drop reasons.  Parser, builder and ICRC functions return 0 or the negated
 * value of one of these, so the module can count drops per reason.
 */
enum sroce_drop_reason {
	SROCE_OK = 0,
	SROCE_DROP_TOO_SHORT,	/* shorter than BTH + ICRC */
	SROCE_DROP_BAD_OPCODE,	/* opcode not in the table */
	SROCE_DROP_BAD_TVER,	/* transport version != 0 */
	SROCE_DROP_TRUNC_HDR,	/* shorter than headers + ICRC */
	SROCE_DROP_BAD_PAD,	/* PadCnt inconsistent with the payload */
	SROCE_DROP_BAD_LEN,	/* payload on an opcode that carries none */
	SROCE_DROP_TOO_LONG,	/* payload larger than SROCE_MAX_PAYLOAD */
	SROCE_DROP_BAD_NET_HDR,	/* IP/UDP header unusable for the ICRC */
	SROCE_DROP_BAD_ICRC,	/* ICRC mismatch */
	SROCE_DROP_NOSPACE,	/* builder: output buffer too small */
	SROCE_DROP_NR
};

/* Printable name of a drop reason (accepts either sign), never NULL */
const char *sroce_drop_reason_name(int reason);

/* Header codec: @p must have room for the header's fixed size */
void sroce_bth_encode(u8 *p, const struct sroce_bth *bth);
void sroce_bth_decode(const u8 *p, struct sroce_bth *bth);
void sroce_reth_encode(u8 *p, const struct sroce_reth *reth);
void sroce_reth_decode(const u8 *p, struct sroce_reth *reth);
void sroce_aeth_encode(u8 *p, const struct sroce_aeth *aeth);
void sroce_aeth_decode(const u8 *p, struct sroce_aeth *aeth);
void sroce_deth_encode(u8 *p, const struct sroce_deth *deth);
void sroce_deth_decode(const u8 *p, struct sroce_deth *deth);
void sroce_atmeth_encode(u8 *p, const struct sroce_atmeth *atmeth);
void sroce_atmeth_decode(const u8 *p, struct sroce_atmeth *atmeth);
void sroce_atmack_encode(u8 *p, const struct sroce_atmack *atmack);
void sroce_atmack_decode(const u8 *p, struct sroce_atmack *atmack);
void sroce_immdt_encode(u8 *p, u32 imm);
u32 sroce_immdt_decode(const u8 *p);
void sroce_ieth_encode(u8 *p, u32 rkey);
u32 sroce_ieth_decode(const u8 *p);

/*
 * Parse a RoCEv2 UDP payload (BTH .. ICRC, @len bytes).  Validates length,
 * opcode, transport version, pad count and payload size, decodes every header
 * the opcode carries.  The ICRC is extracted, not checked (see icrc.h).
 * Safe for any input.  Returns 0 or -enum sroce_drop_reason.
 */
int sroce_parse_bth_packet(const u8 *buf, size_t len, struct sroce_pkt *out);

/*
 * Write BTH + extension headers for @h->bth.opcode into @buf (@cap bytes),
 * taking the fields the opcode's table entry says are present.  PadCnt is
 * computed from @payload_len (the BTH pad in @h is ignored).  Other BTH
 * fields, reserved ones included, are written as given.
 * Returns the header length or -enum sroce_drop_reason.
 */
int sroce_build_hdrs(u8 *buf, size_t cap, const struct sroce_hdrs *h,
		     u32 payload_len);

/*
 * The headers of a RoCEv2 CNP to QP @dqpn: BTH with opcode 0x81, BECN
 * set, the default P_Key and PSN 0 (the 16 reserved bytes that follow
 * come from sroce_build_hdrs()).
 */
void sroce_cnp_hdrs(u32 dqpn, struct sroce_hdrs *h);

/*
 * Length of a whole UDP payload (headers + payload + pad + ICRC) for
 * @opcode carrying @payload_len bytes, or -enum sroce_drop_reason.
 */
int sroce_pkt_len(u8 opcode, u32 payload_len);

#endif /* _SROCE_WIRE_H */
