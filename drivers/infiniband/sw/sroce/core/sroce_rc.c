// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce RC transport decisions (IBTA Vol 1 ch. 9): PSN classes, request
 * opcode sequencing, AETH syndromes, RNR and ACK timers, retry counters,
 * segmentation opcodes and the completer's reading of ACKs.  Pure
 * functions over plain values; see rc.h.
 */
#include "sroce/rc.h"

#define CODE5_MASK	0x1f	/* credit, RNR timer and ACK timeout codes */

/* RNR NAK timer code (enum ib_rnr_timeout) -> microseconds; 0 is the longest */
static const u32 sroce_rnr_table_us[CODE5_MASK + 1] = {
	655360, 10, 20, 30, 40, 60, 80, 120,
	160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/* 4.096 us, the unit of the local ACK timeout */
#define ACK_TIMEOUT_UNIT_NS	4096ULL

enum sroce_psn_class sroce_resp_psn_class(u32 epsn, u32 psn)
{
	s32 diff = sroce_psn_diff(psn, epsn);

	if (diff == 0)
		return SROCE_PSN_EXPECTED;
	return diff < 0 ? SROCE_PSN_DUPLICATE : SROCE_PSN_OUT_OF_SEQ;
}

int sroce_resp_check_seq(enum sroce_rx_seq *state, u8 opcode)
{
	const struct sroce_opcode_info *info = sroce_opcode_get(opcode);
	enum sroce_rx_seq msg;

	if (!info || sroce_opcode_transport(opcode) != SROCE_TRANSPORT_RC ||
	    !(info->mask & SROCE_MASK_REQ))
		return -SROCE_NAK_INVALID_REQ;

	/* Only SENDs and WRITEs span packets; READ and atomics are Only */
	if (info->mask & SROCE_MASK_SEND)
		msg = SROCE_SEQ_SEND;
	else if (info->mask & SROCE_MASK_WRITE)
		msg = SROCE_SEQ_WRITE;
	else
		msg = SROCE_SEQ_NONE;

	if (*state == SROCE_SEQ_NONE) {
		if (!(info->mask & SROCE_MASK_FIRST))
			return -SROCE_NAK_INVALID_REQ;
	} else if ((info->mask & SROCE_MASK_FIRST) || msg != *state) {
		/* RC requests never interleave: finish the message first */
		return -SROCE_NAK_INVALID_REQ;
	}

	*state = (info->mask & SROCE_MASK_LAST) ? SROCE_SEQ_NONE : msg;
	return 0;
}

bool sroce_resp_ack_now(bool ackreq, u32 unacked_pkts, u32 coalesce_max)
{
	return ackreq || unacked_pkts >= coalesce_max;
}

u8 sroce_syndrome_ack(u8 credit_code)
{
	return SROCE_AETH_SYN(SROCE_AETH_TYPE_ACK, credit_code);
}

u8 sroce_syndrome_rnr(u8 timer_code)
{
	return SROCE_AETH_SYN(SROCE_AETH_TYPE_RNR, timer_code);
}

u8 sroce_syndrome_nak(enum sroce_nak_code code)
{
	return SROCE_AETH_SYN(SROCE_AETH_TYPE_NAK, (u8)code);
}

enum sroce_aeth_kind sroce_syndrome_kind(u8 syn)
{
	if (syn & SROCE_AETH_RSVD_BIT)
		return SROCE_AETH_KIND_RESERVED;

	switch (sroce_aeth_type(syn)) {
	case SROCE_AETH_TYPE_ACK:
		return SROCE_AETH_KIND_ACK;
	case SROCE_AETH_TYPE_RNR:
		return SROCE_AETH_KIND_RNR;
	case SROCE_AETH_TYPE_NAK:
		return SROCE_AETH_KIND_NAK;
	default:
		return SROCE_AETH_KIND_RESERVED;
	}
}

u8 sroce_syndrome_value(u8 syn)
{
	return sroce_aeth_value(syn);
}

u32 sroce_rnr_timer_us(u8 code)
{
	return sroce_rnr_table_us[code & CODE5_MASK];
}

u64 sroce_ack_timeout_ns(u8 timeout)
{
	timeout &= CODE5_MASK;
	if (!timeout)
		return SROCE_ACK_TIMEOUT_INFINITE;
	return ACK_TIMEOUT_UNIT_NS << timeout;
}

bool sroce_retry_consume(u8 *counter)
{
	/* retry_cnt 7 is an ordinary count, unlike rnr_retry 7 */
	if (!*counter)
		return false;
	(*counter)--;
	return true;
}

bool sroce_rnr_retry_consume(u8 *counter)
{
	if (*counter == SROCE_RNR_RETRY_INFINITE)
		return true;
	if (!*counter)
		return false;
	(*counter)--;
	return true;
}

/* Opcode of a SEND-like or WRITE-like family by position in the message */
static u8 sroce_seg_op(bool first, bool last, enum sroce_op op_first,
		       enum sroce_op op_middle, enum sroce_op op_last,
		       enum sroce_op op_only)
{
	enum sroce_op op;

	if (first)
		op = last ? op_only : op_first;
	else
		op = last ? op_last : op_middle;
	return SROCE_OPCODE(SROCE_TRANSPORT_RC, op);
}

u8 sroce_rc_req_opcode(enum sroce_wr_kind kind, bool first, bool last)
{
	switch (kind) {
	case SROCE_WR_SEND:
		return sroce_seg_op(first, last, SROCE_OP_SEND_FIRST,
				    SROCE_OP_SEND_MIDDLE, SROCE_OP_SEND_LAST,
				    SROCE_OP_SEND_ONLY);
	case SROCE_WR_SEND_IMM:
		return sroce_seg_op(first, last, SROCE_OP_SEND_FIRST,
				    SROCE_OP_SEND_MIDDLE,
				    SROCE_OP_SEND_LAST_IMM,
				    SROCE_OP_SEND_ONLY_IMM);
	case SROCE_WR_SEND_INV:
		return sroce_seg_op(first, last, SROCE_OP_SEND_FIRST,
				    SROCE_OP_SEND_MIDDLE,
				    SROCE_OP_SEND_LAST_INV,
				    SROCE_OP_SEND_ONLY_INV);
	case SROCE_WR_WRITE:
		return sroce_seg_op(first, last, SROCE_OP_WRITE_FIRST,
				    SROCE_OP_WRITE_MIDDLE, SROCE_OP_WRITE_LAST,
				    SROCE_OP_WRITE_ONLY);
	case SROCE_WR_WRITE_IMM:
		return sroce_seg_op(first, last, SROCE_OP_WRITE_FIRST,
				    SROCE_OP_WRITE_MIDDLE,
				    SROCE_OP_WRITE_LAST_IMM,
				    SROCE_OP_WRITE_ONLY_IMM);
	case SROCE_WR_READ:
		return SROCE_OPCODE(SROCE_TRANSPORT_RC, SROCE_OP_READ_REQ);
	case SROCE_WR_CMP_SWAP:
		return SROCE_OPCODE(SROCE_TRANSPORT_RC, SROCE_OP_CMP_SWAP);
	case SROCE_WR_FETCH_ADD:
		return SROCE_OPCODE(SROCE_TRANSPORT_RC, SROCE_OP_FETCH_ADD);
	case SROCE_WR_ATOMIC_WRITE:
		return SROCE_RC_ATOMIC_WRITE;
	default:
		return SROCE_OPCODE_NONE;
	}
}

u32 sroce_msg_npkts(u64 len, u32 mtu)
{
	unsigned int shift;
	u64 n;

	if (!mtu || (mtu & (mtu - 1)))
		return 0;
	/* one instruction (tzcnt/bsf), where the loop took up to 32 rounds */
	shift = (unsigned int)__builtin_ctz(mtu);

	/* (len - 1) / mtu + 1 without a 64-bit division; len 0 is 1 packet */
	if (!len)
		return 1;
	n = ((len - 1) >> shift) + 1;
	return n > 0xffffffffULL ? 0xffffffffU : (u32)n;
}

u8 sroce_read_resp_opcode(bool first, bool last)
{
	return sroce_seg_op(first, last, SROCE_OP_READ_RESP_FIRST,
			    SROCE_OP_READ_RESP_MIDDLE, SROCE_OP_READ_RESP_LAST,
			    SROCE_OP_READ_RESP_ONLY);
}

bool sroce_psn_covers(u32 ack_psn, u32 wqe_last_psn)
{
	return !sroce_psn_after(wqe_last_psn, ack_psn);
}

enum sroce_ack_action sroce_comp_ack_action(u8 syn)
{
	switch (sroce_syndrome_kind(syn)) {
	case SROCE_AETH_KIND_ACK:
		return SROCE_ACK_COMPLETE_UP_TO_PSN;
	case SROCE_AETH_KIND_RNR:
		return SROCE_ACK_RNR_WAIT;
	case SROCE_AETH_KIND_NAK:
		break;
	default:
		return SROCE_ACK_FATAL_BAD_RESP;
	}

	switch (sroce_syndrome_value(syn)) {
	case SROCE_NAK_PSN_SEQ_ERR:
		return SROCE_ACK_RETRY_FROM_PSN;
	case SROCE_NAK_INVALID_REQ:
		return SROCE_ACK_FATAL_INVALID_REQ;
	case SROCE_NAK_REM_ACCESS:
		return SROCE_ACK_FATAL_REMOTE_ACCESS;
	default:
		/*
		 * Remote operational error; also Invalid RD Request (an RD
		 * code) and the reserved codes, as rdma_rxe does.
		 */
		return SROCE_ACK_FATAL_REMOTE_OP;
	}
}

u8 sroce_ack_action_wc_status(enum sroce_ack_action action)
{
	switch (action) {
	case SROCE_ACK_FATAL_INVALID_REQ:
		return SROCE_WC_REM_INV_REQ_ERR;
	case SROCE_ACK_FATAL_REMOTE_ACCESS:
		return SROCE_WC_REM_ACCESS_ERR;
	case SROCE_ACK_FATAL_REMOTE_OP:
		return SROCE_WC_REM_OP_ERR;
	case SROCE_ACK_FATAL_BAD_RESP:
		return SROCE_WC_BAD_RESP_ERR;
	default:
		return SROCE_WC_SUCCESS;
	}
}
