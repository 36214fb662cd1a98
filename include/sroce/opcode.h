/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce opcode table API: opcode numbers, per-opcode flags, header layout.
 * The table itself (256 entries, indexed by the 8-bit BTH opcode) lives in
 * sroce_opcode.c; parsing and building read it instead of switching on the
 * opcode.
 */
#ifndef _SROCE_OPCODE_H
#define _SROCE_OPCODE_H

#include "sroce/wire.h"

/* Transport (bits 7..5 of the opcode) */
#define SROCE_TRANSPORT_MASK	0xe0
#define SROCE_TRANSPORT_RC	0x00
#define SROCE_TRANSPORT_UC	0x20
#define SROCE_TRANSPORT_RD	0x40
#define SROCE_TRANSPORT_UD	0x60
#define SROCE_TRANSPORT_CNP	0x80
#define SROCE_TRANSPORT_XRC	0xa0

/* Operation (bits 4..0 of the opcode) */
enum sroce_op {
	SROCE_OP_SEND_FIRST		= 0x00,
	SROCE_OP_SEND_MIDDLE		= 0x01,
	SROCE_OP_SEND_LAST		= 0x02,
	SROCE_OP_SEND_LAST_IMM		= 0x03,
	SROCE_OP_SEND_ONLY		= 0x04,
	SROCE_OP_SEND_ONLY_IMM		= 0x05,
	SROCE_OP_WRITE_FIRST		= 0x06,
	SROCE_OP_WRITE_MIDDLE		= 0x07,
	SROCE_OP_WRITE_LAST		= 0x08,
	SROCE_OP_WRITE_LAST_IMM		= 0x09,
	SROCE_OP_WRITE_ONLY		= 0x0a,
	SROCE_OP_WRITE_ONLY_IMM		= 0x0b,
	SROCE_OP_READ_REQ		= 0x0c,
	SROCE_OP_READ_RESP_FIRST	= 0x0d,
	SROCE_OP_READ_RESP_MIDDLE	= 0x0e,
	SROCE_OP_READ_RESP_LAST		= 0x0f,
	SROCE_OP_READ_RESP_ONLY		= 0x10,
	SROCE_OP_ACK			= 0x11,
	SROCE_OP_ATOMIC_ACK		= 0x12,
	SROCE_OP_CMP_SWAP		= 0x13,
	SROCE_OP_FETCH_ADD		= 0x14,
	SROCE_OP_SEND_LAST_INV		= 0x16,
	SROCE_OP_SEND_ONLY_INV		= 0x17,
	SROCE_OP_ATOMIC_WRITE		= 0x1d,	/* IBA 1.5: RETH + 8 bytes */
};

/* Full opcodes */
#define SROCE_OPCODE(transport, op)	((u8)((transport) | (op)))

#define SROCE_RC_SEND_FIRST	SROCE_OPCODE(SROCE_TRANSPORT_RC, SROCE_OP_SEND_FIRST)
#define SROCE_RC_SEND_ONLY	SROCE_OPCODE(SROCE_TRANSPORT_RC, SROCE_OP_SEND_ONLY)
#define SROCE_RC_ACK		SROCE_OPCODE(SROCE_TRANSPORT_RC, SROCE_OP_ACK)
#define SROCE_RC_ATOMIC_ACK	SROCE_OPCODE(SROCE_TRANSPORT_RC, SROCE_OP_ATOMIC_ACK)
#define SROCE_RC_CMP_SWAP	SROCE_OPCODE(SROCE_TRANSPORT_RC, SROCE_OP_CMP_SWAP)
#define SROCE_RC_FETCH_ADD	SROCE_OPCODE(SROCE_TRANSPORT_RC, SROCE_OP_FETCH_ADD)
#define SROCE_RC_ATOMIC_WRITE	SROCE_OPCODE(SROCE_TRANSPORT_RC, SROCE_OP_ATOMIC_WRITE)
#define SROCE_RC_READ_RESP_ONLY	SROCE_OPCODE(SROCE_TRANSPORT_RC, SROCE_OP_READ_RESP_ONLY)
#define SROCE_UD_SEND_ONLY	SROCE_OPCODE(SROCE_TRANSPORT_UD, SROCE_OP_SEND_ONLY)
#define SROCE_UD_SEND_ONLY_IMM	SROCE_OPCODE(SROCE_TRANSPORT_UD, SROCE_OP_SEND_ONLY_IMM)
#define SROCE_CNP_OPCODE	0x81

/* Extension headers, in the order they follow the BTH */
enum sroce_hdr_type {
	SROCE_HDR_AETH,
	SROCE_HDR_ATMACK,
	SROCE_HDR_DETH,
	SROCE_HDR_RETH,
	SROCE_HDR_ATMETH,
	SROCE_HDR_IMMDT,
	SROCE_HDR_IETH,
	SROCE_HDR_CNP_RSVD,
	SROCE_HDR_NR
};

/* Opcode mask bits */
#define SROCE_MASK_VALID	BIT(0)	/* entry describes a known opcode */
/* extension headers present (bit = 1 + enum sroce_hdr_type) */
#define SROCE_MASK_AETH		BIT(1 + SROCE_HDR_AETH)
#define SROCE_MASK_ATMACK	BIT(1 + SROCE_HDR_ATMACK)
#define SROCE_MASK_DETH		BIT(1 + SROCE_HDR_DETH)
#define SROCE_MASK_RETH		BIT(1 + SROCE_HDR_RETH)
#define SROCE_MASK_ATMETH	BIT(1 + SROCE_HDR_ATMETH)
#define SROCE_MASK_IMMDT	BIT(1 + SROCE_HDR_IMMDT)
#define SROCE_MASK_IETH		BIT(1 + SROCE_HDR_IETH)
#define SROCE_MASK_CNP_RSVD	BIT(1 + SROCE_HDR_CNP_RSVD)
/* payload */
#define SROCE_MASK_PAYLOAD	BIT(10)	/* may carry payload bytes */
#define SROCE_MASK_PAD_OK	BIT(11)	/* PadCnt may be non-zero */
/* position in the message */
#define SROCE_MASK_FIRST	BIT(12)	/* starts a message (First or Only) */
#define SROCE_MASK_MIDDLE	BIT(13)
#define SROCE_MASK_LAST		BIT(14)	/* ends a message (Last or Only) */
#define SROCE_MASK_ONLY		(SROCE_MASK_FIRST | SROCE_MASK_LAST)
/* direction */
#define SROCE_MASK_REQ		BIT(15)	/* requester -> responder */
#define SROCE_MASK_RESP		BIT(16)	/* responder -> requester */
/* class (exactly one per opcode) */
#define SROCE_MASK_SEND		BIT(17)
#define SROCE_MASK_WRITE	BIT(18)
#define SROCE_MASK_READ		BIT(19)	/* READ request and READ responses */
#define SROCE_MASK_ATOMIC	BIT(20)	/* CmpSwap, FetchAdd, ATOMIC WRITE, ATOMIC ACK */
#define SROCE_MASK_ACK		BIT(21)	/* plain ACKNOWLEDGE */
#define SROCE_MASK_CNP		BIT(22)	/* congestion notification */
#define SROCE_MASK_CLASS	(SROCE_MASK_SEND | SROCE_MASK_WRITE | \
				 SROCE_MASK_READ | SROCE_MASK_ATOMIC | \
				 SROCE_MASK_ACK | SROCE_MASK_CNP)

struct sroce_opcode_info {
	const char *name;
	u32 mask;		/* SROCE_MASK_* */
	u8 length;		/* BTH + extension headers, bytes */
	u8 offset[SROCE_HDR_NR]; /* from BTH start; valid if in mask */
};

/* Indexed by the BTH opcode; entries without SROCE_MASK_VALID are unknown */
extern const struct sroce_opcode_info sroce_opcode_table[256];

/* O(1) lookup: table entry of @opcode or NULL if not a known opcode */
static inline const struct sroce_opcode_info *sroce_opcode_get(u8 opcode)
{
	const struct sroce_opcode_info *info = &sroce_opcode_table[opcode];

	return (info->mask & SROCE_MASK_VALID) ? info : NULL;
}

static inline bool sroce_opcode_has(const struct sroce_opcode_info *info,
				    u32 mask)
{
	return (info->mask & mask) == mask;
}

/* Bit in the opcode mask that says extension header @type is present */
static inline u32 sroce_hdr_mask(enum sroce_hdr_type type)
{
	return (u32)BIT(1 + (unsigned int)type);
}

/* Size in bytes of extension header @type, 0 for an unknown type */
u8 sroce_hdr_size(enum sroce_hdr_type type);

/* Name of @opcode ("RC SEND_FIRST"...), "UNKNOWN" when not in the table */
const char *sroce_opcode_name(u8 opcode);

static inline u8 sroce_opcode_transport(u8 opcode)
{
	return opcode & SROCE_TRANSPORT_MASK;
}

#endif /* _SROCE_OPCODE_H */
