// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce opcode table: for every RC, UC and UD opcode (and the RoCEv2 CNP) the
 * flags (extension headers, payload, position, direction, class), the total
 * header length and the offset of each extension header from the BTH start.
 *
 * Lengths and offsets are derived at compile time from the header-present
 * bits, following the IBTA order: BTH, [AETH], [AtomicAckETH] for responses;
 * BTH, [DETH], [RETH | AtomicETH], [ImmDt | IETH] for requests.
 */
#include "sroce/opcode.h"

/* Size of header @bit if present in mask @m */
#define SZ(m, bit, size)	(((m) & (bit)) ? (size) : 0)

/* Offset of each extension header: BTH + every present header before it */
#define OFF_AETH(m)	(SROCE_BTH_LEN)
#define OFF_ATMACK(m)	(OFF_AETH(m) + SZ(m, SROCE_MASK_AETH, SROCE_AETH_LEN))
#define OFF_DETH(m)	(OFF_ATMACK(m) + SZ(m, SROCE_MASK_ATMACK, SROCE_ATMACK_LEN))
#define OFF_RETH(m)	(OFF_DETH(m) + SZ(m, SROCE_MASK_DETH, SROCE_DETH_LEN))
#define OFF_ATMETH(m)	(OFF_RETH(m) + SZ(m, SROCE_MASK_RETH, SROCE_RETH_LEN))
#define OFF_IMMDT(m)	(OFF_ATMETH(m) + SZ(m, SROCE_MASK_ATMETH, SROCE_ATMETH_LEN))
#define OFF_IETH(m)	(OFF_IMMDT(m) + SZ(m, SROCE_MASK_IMMDT, SROCE_IMMDT_LEN))
#define OFF_CNP_RSVD(m)	(OFF_IETH(m) + SZ(m, SROCE_MASK_IETH, SROCE_IETH_LEN))
#define OFF_END(m)	(OFF_CNP_RSVD(m) + SZ(m, SROCE_MASK_CNP_RSVD, SROCE_CNP_RSVD_LEN))

/* Offset if present, else 0 */
#define OFF(m, bit, off)	(((m) & (bit)) ? (off) : 0)

#define ENTRY(nm, m) {							\
	.name = (nm),							\
	.mask = (m) | SROCE_MASK_VALID,					\
	.length = OFF_END(m),						\
	.offset = {							\
		[SROCE_HDR_AETH] = OFF(m, SROCE_MASK_AETH, OFF_AETH(m)),	\
		[SROCE_HDR_ATMACK] = OFF(m, SROCE_MASK_ATMACK, OFF_ATMACK(m)), \
		[SROCE_HDR_DETH] = OFF(m, SROCE_MASK_DETH, OFF_DETH(m)),	\
		[SROCE_HDR_RETH] = OFF(m, SROCE_MASK_RETH, OFF_RETH(m)),	\
		[SROCE_HDR_ATMETH] = OFF(m, SROCE_MASK_ATMETH, OFF_ATMETH(m)), \
		[SROCE_HDR_IMMDT] = OFF(m, SROCE_MASK_IMMDT, OFF_IMMDT(m)),	\
		[SROCE_HDR_IETH] = OFF(m, SROCE_MASK_IETH, OFF_IETH(m)),	\
		[SROCE_HDR_CNP_RSVD] =						\
			OFF(m, SROCE_MASK_CNP_RSVD, OFF_CNP_RSVD(m)),		\
	},								\
}

/* Flags per operation (low 5 bits), shared by the transports */
#define SEND_REQ	(SROCE_MASK_SEND | SROCE_MASK_REQ)
#define WRITE_REQ	(SROCE_MASK_WRITE | SROCE_MASK_REQ)
#define READ_RESP	(SROCE_MASK_READ | SROCE_MASK_RESP)
#define DATA		SROCE_MASK_PAYLOAD			/* First, Middle */
#define DATA_END	(SROCE_MASK_PAYLOAD | SROCE_MASK_PAD_OK)	/* Last, Only */

#define M_SEND_FIRST		(SEND_REQ | DATA | SROCE_MASK_FIRST)
#define M_SEND_MIDDLE		(SEND_REQ | DATA | SROCE_MASK_MIDDLE)
#define M_SEND_LAST		(SEND_REQ | DATA_END | SROCE_MASK_LAST)
#define M_SEND_LAST_IMM		(M_SEND_LAST | SROCE_MASK_IMMDT)
#define M_SEND_ONLY		(SEND_REQ | DATA_END | SROCE_MASK_ONLY)
#define M_SEND_ONLY_IMM		(M_SEND_ONLY | SROCE_MASK_IMMDT)
#define M_WRITE_FIRST		(WRITE_REQ | DATA | SROCE_MASK_FIRST | SROCE_MASK_RETH)
#define M_WRITE_MIDDLE		(WRITE_REQ | DATA | SROCE_MASK_MIDDLE)
#define M_WRITE_LAST		(WRITE_REQ | DATA_END | SROCE_MASK_LAST)
#define M_WRITE_LAST_IMM	(M_WRITE_LAST | SROCE_MASK_IMMDT)
#define M_WRITE_ONLY		(WRITE_REQ | DATA_END | SROCE_MASK_ONLY | SROCE_MASK_RETH)
#define M_WRITE_ONLY_IMM	(M_WRITE_ONLY | SROCE_MASK_IMMDT)
#define M_READ_REQ		(SROCE_MASK_READ | SROCE_MASK_REQ | SROCE_MASK_ONLY | \
				 SROCE_MASK_RETH)
#define M_READ_RESP_FIRST	(READ_RESP | DATA | SROCE_MASK_FIRST | SROCE_MASK_AETH)
#define M_READ_RESP_MIDDLE	(READ_RESP | DATA | SROCE_MASK_MIDDLE)
#define M_READ_RESP_LAST	(READ_RESP | DATA_END | SROCE_MASK_LAST | SROCE_MASK_AETH)
#define M_READ_RESP_ONLY	(READ_RESP | DATA_END | SROCE_MASK_ONLY | SROCE_MASK_AETH)
#define M_ACK			(SROCE_MASK_ACK | SROCE_MASK_RESP | SROCE_MASK_ONLY | \
				 SROCE_MASK_AETH)
#define M_ATOMIC_ACK		(SROCE_MASK_ATOMIC | SROCE_MASK_RESP | SROCE_MASK_ONLY | \
				 SROCE_MASK_AETH | SROCE_MASK_ATMACK)
#define M_CMP_SWAP		(SROCE_MASK_ATOMIC | SROCE_MASK_REQ | SROCE_MASK_ONLY | \
				 SROCE_MASK_ATMETH)
#define M_FETCH_ADD		M_CMP_SWAP
/* an atomic (ordered, answered and replayed like one) with a RETH and 8 bytes */
#define M_ATOMIC_WRITE		(SROCE_MASK_ATOMIC | SROCE_MASK_REQ | SROCE_MASK_ONLY | \
				 SROCE_MASK_RETH | SROCE_MASK_PAYLOAD)
#define M_SEND_LAST_INV		(M_SEND_LAST | SROCE_MASK_IETH)
#define M_SEND_ONLY_INV		(M_SEND_ONLY | SROCE_MASK_IETH)
#define M_CNP			(SROCE_MASK_CNP | SROCE_MASK_ONLY | SROCE_MASK_CNP_RSVD)

/* Entry for operation @op of transport @tr: "RC SEND_FIRST" etc. */
#define OP(tr, op) \
	[SROCE_TRANSPORT_##tr | SROCE_OP_##op] = ENTRY(#tr " " #op, M_##op)

/* UD carries a DETH after the BTH */
#define UD_OP(op) \
	[SROCE_TRANSPORT_UD | SROCE_OP_##op] = \
		ENTRY("UD " #op, M_##op | SROCE_MASK_DETH)

const struct sroce_opcode_info sroce_opcode_table[256] = {
	/* Reliable Connected */
	OP(RC, SEND_FIRST),
	OP(RC, SEND_MIDDLE),
	OP(RC, SEND_LAST),
	OP(RC, SEND_LAST_IMM),
	OP(RC, SEND_ONLY),
	OP(RC, SEND_ONLY_IMM),
	OP(RC, WRITE_FIRST),
	OP(RC, WRITE_MIDDLE),
	OP(RC, WRITE_LAST),
	OP(RC, WRITE_LAST_IMM),
	OP(RC, WRITE_ONLY),
	OP(RC, WRITE_ONLY_IMM),
	OP(RC, READ_REQ),
	OP(RC, READ_RESP_FIRST),
	OP(RC, READ_RESP_MIDDLE),
	OP(RC, READ_RESP_LAST),
	OP(RC, READ_RESP_ONLY),
	OP(RC, ACK),
	OP(RC, ATOMIC_ACK),
	OP(RC, CMP_SWAP),
	OP(RC, FETCH_ADD),
	OP(RC, SEND_LAST_INV),
	OP(RC, SEND_ONLY_INV),
	OP(RC, ATOMIC_WRITE),

	/* Unreliable Connected: SEND and RDMA WRITE only */
	OP(UC, SEND_FIRST),
	OP(UC, SEND_MIDDLE),
	OP(UC, SEND_LAST),
	OP(UC, SEND_LAST_IMM),
	OP(UC, SEND_ONLY),
	OP(UC, SEND_ONLY_IMM),
	OP(UC, WRITE_FIRST),
	OP(UC, WRITE_MIDDLE),
	OP(UC, WRITE_LAST),
	OP(UC, WRITE_LAST_IMM),
	OP(UC, WRITE_ONLY),
	OP(UC, WRITE_ONLY_IMM),

	/* Unreliable Datagram: single-packet SENDs with a DETH */
	UD_OP(SEND_ONLY),
	UD_OP(SEND_ONLY_IMM),

	/* RoCEv2 Congestion Notification Packet: BTH + 16 reserved bytes */
	[SROCE_CNP_OPCODE] = ENTRY("CNP", M_CNP),
};

static const u8 sroce_hdr_sizes[SROCE_HDR_NR] = {
	[SROCE_HDR_AETH] = SROCE_AETH_LEN,
	[SROCE_HDR_ATMACK] = SROCE_ATMACK_LEN,
	[SROCE_HDR_DETH] = SROCE_DETH_LEN,
	[SROCE_HDR_RETH] = SROCE_RETH_LEN,
	[SROCE_HDR_ATMETH] = SROCE_ATMETH_LEN,
	[SROCE_HDR_IMMDT] = SROCE_IMMDT_LEN,
	[SROCE_HDR_IETH] = SROCE_IETH_LEN,
	[SROCE_HDR_CNP_RSVD] = SROCE_CNP_RSVD_LEN,
};

u8 sroce_hdr_size(enum sroce_hdr_type type)
{
	if ((unsigned int)type >= SROCE_HDR_NR)
		return 0;
	return sroce_hdr_sizes[type];
}

const char *sroce_opcode_name(u8 opcode)
{
	const struct sroce_opcode_info *info = sroce_opcode_get(opcode);

	return info ? info->name : "UNKNOWN";
}
