/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce RC transport decisions: the IBTA reliable-connected rules as pure
 * functions over plain values, for the requester, responder and completer
 * to call.  Implemented in sroce_rc.c.  Owns:
 *
 *  - responder: PSN class (expected / duplicate / out of sequence), request
 *    opcode sequencing, when to send a coalesced ACK;
 *  - AETH: syndrome build and decode;
 *  - timers: the RNR NAK timer table, the local ACK timeout;
 *  - retry counters: retry_cnt and rnr_retry (7 = infinite) consumption;
 *  - requester: message segmentation into packets and opcodes;
 *  - completer: ACK coverage, what an ACK, NAK or RNR NAK asks for, and
 *    the work completion status of a fatal one.
 *
 * The engines that use these rules keep their state in rc_engine.h.
 *
 * PSN arguments may carry garbage in bits 31..24 (see psn.h); 5-bit codes
 * (credit, RNR timer, ACK timeout) ignore bits 7..5.
 */
#ifndef _SROCE_RC_H
#define _SROCE_RC_H

#include "sroce/opcode.h"
#include "sroce/psn.h"

/* Responder: where a request PSN lies relative to the expected PSN */
enum sroce_psn_class {
	SROCE_PSN_EXPECTED,	/* == ePSN: execute */
	SROCE_PSN_DUPLICATE,	/* 1..2^23 before: replay, never re-execute */
	SROCE_PSN_OUT_OF_SEQ,	/* 1..2^23-1 after: NAK PSN seq error once */
};

/* Responder: multi-packet request message in progress */
enum sroce_rx_seq {
	SROCE_SEQ_NONE,		/* between messages: First or Only next */
	SROCE_SEQ_SEND,		/* after SEND First/Middle */
	SROCE_SEQ_WRITE,	/* after RDMA WRITE First/Middle */
};

/* Decoded AETH syndrome type; bit 7 set counts as reserved, as in rxe */
enum sroce_aeth_kind {
	SROCE_AETH_KIND_ACK,
	SROCE_AETH_KIND_RNR,
	SROCE_AETH_KIND_NAK,
	SROCE_AETH_KIND_RESERVED,
};

/* sroce_ack_timeout_ns() of timeout 0: the ACK timer never fires */
#define SROCE_ACK_TIMEOUT_INFINITE	0

/* rnr_retry value that never runs out */
#define SROCE_RNR_RETRY_INFINITE	7

/* Requester work request kinds that RC segments into packets */
enum sroce_wr_kind {
	SROCE_WR_SEND,
	SROCE_WR_SEND_IMM,
	SROCE_WR_SEND_INV,
	SROCE_WR_WRITE,
	SROCE_WR_WRITE_IMM,
	SROCE_WR_READ,
	SROCE_WR_CMP_SWAP,
	SROCE_WR_FETCH_ADD,
	SROCE_WR_ATOMIC_WRITE,	/* 8 bytes (swap_add, as in memory) at remote_addr */
	SROCE_WR_LOCAL,		/* no packets: the glue carries it out */
};

/* sroce_rc_req_opcode() of an unknown kind: not a valid opcode */
#define SROCE_OPCODE_NONE		0xff

/* Completer: what an ACK / NAK / RNR NAK syndrome asks for */
enum sroce_ack_action {
	SROCE_ACK_COMPLETE_UP_TO_PSN,	/* ACK: complete WQEs it covers */
	SROCE_ACK_RETRY_FROM_PSN,	/* NAK PSN seq error: resend from PSN */
	SROCE_ACK_RNR_WAIT,		/* RNR NAK: wait, resend from PSN */
	SROCE_ACK_FATAL_INVALID_REQ,	/* NAK invalid request */
	SROCE_ACK_FATAL_REMOTE_ACCESS,	/* NAK remote access error */
	SROCE_ACK_FATAL_REMOTE_OP,	/* NAK remote op error, other codes */
	SROCE_ACK_FATAL_BAD_RESP,	/* reserved syndrome type */
};

/* Work completion status numbers: the values of enum ib_wc_status */
#define SROCE_WC_SUCCESS		0
#define SROCE_WC_LOC_LEN_ERR		1
#define SROCE_WC_LOC_QP_OP_ERR		2
#define SROCE_WC_LOC_PROT_ERR		4
#define SROCE_WC_WR_FLUSH_ERR		5
#define SROCE_WC_BAD_RESP_ERR		7
#define SROCE_WC_REM_INV_REQ_ERR	9
#define SROCE_WC_REM_ACCESS_ERR		10
#define SROCE_WC_REM_OP_ERR		11
#define SROCE_WC_RETRY_EXC_ERR		12
#define SROCE_WC_RNR_RETRY_EXC_ERR	13

/* Responder: class of request @psn against expected PSN @epsn */
enum sroce_psn_class sroce_resp_psn_class(u32 epsn, u32 psn);

/*
 * Responder: check in-sequence RC request @opcode against @state and advance
 * it.  Call only for PSN == ePSN.  Returns 0, or -SROCE_NAK_INVALID_REQ (state
 * unchanged) for a non-RC or non-request opcode, a Middle/Last outside a
 * message, a First/Only inside one, or a Middle/Last of the other class.
 */
int sroce_resp_check_seq(enum sroce_rx_seq *state, u8 opcode);

/*
 * Responder: send an ACK for this packet now?  Yes when the requester set
 * AckReq (ours does on the last packet of every message) or when
 * @unacked_pkts (this one included) reached @coalesce_max (0 or 1: ACK every
 * packet).  NAKs, READ responses and atomic ACKs are never coalesced.
 */
bool sroce_resp_ack_now(bool ackreq, u32 unacked_pkts, u32 coalesce_max);

/* AETH syndrome of an ACK carrying credit code @credit_code */
u8 sroce_syndrome_ack(u8 credit_code);

/* AETH syndrome of an RNR NAK carrying RNR timer code @timer_code */
u8 sroce_syndrome_rnr(u8 timer_code);

/* AETH syndrome of a NAK with code @code */
u8 sroce_syndrome_nak(enum sroce_nak_code code);

/* Type of AETH syndrome @syn */
enum sroce_aeth_kind sroce_syndrome_kind(u8 syn);

/* Value field (bits 4..0) of @syn: credit code, RNR timer code or NAK code */
u8 sroce_syndrome_value(u8 syn);

/* Minimum RNR NAK timer of @code (enum ib_rnr_timeout) in microseconds */
u32 sroce_rnr_timer_us(u8 code);

/* Local ACK timeout 4.096 us * 2^@timeout in ns; 0 = infinite, returns 0 */
u64 sroce_ack_timeout_ns(u8 timeout);

/* Take one retry_cnt (0..7) retry: false when it is 0, else decrement */
bool sroce_retry_consume(u8 *counter);

/* Take one rnr_retry (0..7) retry: false when 0; 7 = infinite, kept as is */
bool sroce_rnr_retry_consume(u8 *counter);

/*
 * Requester: RC opcode of a packet of a @kind message, @first / @last saying
 * where it lies (both for a one-packet message).  READ and atomics are one
 * request packet whatever the flags.  SROCE_OPCODE_NONE for an unknown kind.
 */
u8 sroce_rc_req_opcode(enum sroce_wr_kind kind, bool first, bool last);

/*
 * Packets (= PSNs) of a @len byte message, or of the responses to a @len byte
 * READ: max(1, ceil(len / mtu)).  @mtu a power of two (256..4096), else 0.
 */
u32 sroce_msg_npkts(u64 len, u32 mtu);

/* RC READ response opcode of a packet at @first / @last of the response */
u8 sroce_read_resp_opcode(bool first, bool last);

/* Completer: does an ACK of @ack_psn cover a WQE ending at @wqe_last_psn? */
bool sroce_psn_covers(u32 ack_psn, u32 wqe_last_psn);

/*
 * Completer: action for an ACK or NAK with syndrome @syn.  A NAK or RNR NAK
 * with PSN p also acknowledges every request before p.
 */
enum sroce_ack_action sroce_comp_ack_action(u8 syn);

/* Work completion status (SROCE_WC_*) of @action, SUCCESS when not fatal */
u8 sroce_ack_action_wc_status(enum sroce_ack_action action);

#endif /* _SROCE_RC_H */
