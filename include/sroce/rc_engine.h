/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce RC engine: the requester, completer and responder as plain state
 * and pure decisions.  The kernel module (and the host simulator) own
 * memory, keys, skbs, locks and timers; they feed the engine one event at
 * a time and carry out the actions it returns, in order.
 *
 * Send side (struct sroce_sq_eng; sroce_rc_sq.c, _req.c, _comp.c, _recover.c):
 *   WQE posted ......... the glue copies and validates a WQE into
 *                        wqe[fetch & mask] and calls sroce_sq_push()
 *   requester step ..... sroce_req_next(): one request packet to build,
 *                        a local operation to carry out, "fetch a WQE",
 *                        or idle
 *   local op done ...... sroce_sq_local_done()
 *   response received .. sroce_comp_rx(): ACK, NAK, RNR NAK, READ response,
 *                        ATOMIC ACK
 *   payload placed ..... sroce_comp_placed(): after the glue copied a READ
 *                        response's bytes (or an atomic's original value)
 *                        where the engine said
 *   timer fired ........ sroce_sq_timeout(), sroce_sq_rnr_done()
 * Receive side (struct sroce_rq_eng; sroce_rc_rq.c):
 *   request received ... sroce_rq_rx(), with three calls answered by the
 *                        glue (take a receive WQE, check an rkey, carry
 *                        out an atomic)
 *   payload not placed . sroce_rq_fail()
 *   responder step ..... sroce_rq_next(): READ responses and ATOMIC ACKs,
 *                        then a held ACK
 *
 * The same engines run UC QPs (sroce_sq_set_uc(), sroce_rq_set_uc()): Send
 * and Write only, no ACKs; a send WQE completes once its last packet is
 * built, and the responder drops a message whole when a PSN is missing
 * from it, or when it has no receive WQE, access or room for it.
 *
 * Indices are free-running u32 counters; the SQ slot is idx & mask.  PSNs
 * are 24-bit (psn.h).  Every event ends with the invariants checked
 * (sroce_sq_check(), sroce_rq_check()); a violation is reported through
 * SROCE_ENGINE_WARN (WARN_ON_ONCE in the kernel, abort() on the host) and
 * fails the QP.
 */
#ifndef _SROCE_RC_ENGINE_H
#define _SROCE_RC_ENGINE_H

#include "sroce/budget.h"
#include "sroce/dcqcn.h"
#include "sroce/rc.h"
#include "sroce/wire.h"

/* WQE flags the engine acts on */
#define SROCE_WQE_SIGNALED	BIT(0)
#define SROCE_WQE_SOLICITED	BIT(1)
#define SROCE_WQE_FENCE		BIT(2)
/* Starts only once every WQE before it has completed (LOCAL_INV) */
#define SROCE_WQE_ORDERED	BIT(3)

/* Largest window in PSNs (the READ reorder map is one u64) */
#define SROCE_MAX_WINDOW	64

/* READ responses seen beyond a hole before the hole is re-read */
#define SROCE_REREAD_THRESH	3

/*
 * Timeout backoff: each retransmit timeout doubles the next, up to 2^this
 * times the QP's timeout, so that a peer stalled for seconds (a busy
 * virtual machine) is waited for before retry_cnt runs out.  A peer that
 * answers late keeps the longer timer (see sq_after_progress()).
 */
#define SROCE_MAX_BACKOFF	6

/*
 * The retransmit timer learns the round trip (sq_timer_ns()): the larger
 * of the QP's timeout and srtt + 4 * rttvar (at least
 * SROCE_RTO_MIN_VAR_NS over srtt), the estimate at most
 * SROCE_RTO_MAX_NS, then doubled by the backoff.
 */
#define SROCE_RTO_MIN_VAR_NS	1000000ULL

/*
 * Bytes a request packet costs the pacing beyond its payload: Ethernet,
 * IPv4, UDP, BTH and ICRC, about (sroce_sq_set_cc()).
 */
#define SROCE_PACE_OVERHEAD	64

/* cwnd after a loss halves it, never below this */
#define SROCE_MIN_SSTHRESH	2
/* of the window a CNP leaves (sroce_rc_recover.c): 4/5 */
#define SROCE_ECN_BETA_NUM	4
#define SROCE_ECN_BETA_DEN	5
#define SROCE_RTO_MAX_NS	2000000000ULL
/* What a probe timer (sroce_rc_recover.c) resends when it fires */
#define SROCE_PTO_NAK		1	/* after a NAK: from una */
#define SROCE_PTO_TAIL		2	/* no answer at all: the last packet */

/*
 * Engine events, as bits of act->events: what happened, for counters.
 * The glue maps each to a device counter.
 */
enum sroce_eng_event {
	SROCE_EV_STALE,		/* old ACK/response: already had it */
	SROCE_EV_GHOST,		/* response to nothing we sent: dropped */
	SROCE_EV_BAD_RESP,	/* response breaking the protocol: fatal */
	SROCE_EV_SEQ_NAK_RCVD,
	SROCE_EV_RNR_NAK_RCVD,
	SROCE_EV_REWIND,	/* requester resends from an earlier PSN */
	SROCE_EV_REREAD,	/* READ hole re-requested */
	SROCE_EV_TIMEOUT,
	SROCE_EV_DUP_REQ,	/* responder: duplicate request */
	SROCE_EV_OOS_REQ,	/* responder: request ahead of ePSN */
	SROCE_EV_SEQ_NAK_SENT,
	SROCE_EV_RNR_NAK_SENT,
	SROCE_EV_FATAL_NAK_SENT,
	SROCE_EV_BAD_REQ,	/* request dropped: wrong length/opcode/state */
	SROCE_EV_DUP_READ_BAD,	/* duplicate READ/atomic matching no resource */
	SROCE_EV_ATOMIC_REPLAY,	/* responder: duplicate atomic answered again */
	SROCE_EV_UC_DROP,	/* UC responder: a message dropped whole */
	SROCE_EV_ATOMIC_MISALIGNED, /* atomic NAKed: address not 8-aligned */
	SROCE_EV_ATOMIC_DENIED,	/* atomic NAKed: no REMOTE_ATOMIC (QP, rkey) */
	SROCE_EV_UC_LEN_ERR,	/* UC: a message too long for its receive WQE */
	SROCE_EV_NR
};

/* ---------------------------------------------------------------- */
/* Send side                                                          */

/* One send WQE as the engine sees it; the glue keeps wr_id and SGEs. */
struct sroce_wqe {
	/* Filled by the glue before sroce_sq_push() */
	u8	kind;		/* enum sroce_wr_kind */
	u8	flags;		/* SROCE_WQE_* */
	u32	length;		/* bytes, <= 2^31 and < 2^23 packets */
	u64	remote_addr;
	u32	rkey;
	u64	swap_add;	/* atomics: swap (CmpSwap) or add (FetchAdd);
				 * ATOMIC WRITE: the 8 bytes, as in memory
				 */
	u64	compare;	/* CmpSwap: compare data */
	/* Engine state */
	u32	first_psn;	/* valid once first sent */
	u32	npkts;		/* PSNs it spans, valid once first sent */
	u32	rd_done;	/* READ: bytes placed in order */
	u64	rd_map;		/* READ: bit i: PSN (hole + i) is placed */
	u32	rd_gap_seen;	/* READ: responses seen beyond the hole */
	u32	rd_reread;	/* READ: hole offset last re-requested, or ~0;
				 * the re-request ends with its request
				 */
};

enum sroce_sq_state {
	SROCE_SQ_IDLE,		/* RESET, INIT, RTR: sends nothing */
	SROCE_SQ_RTS,
	SROCE_SQ_DRAIN,		/* SQD: finishes what it started */
	SROCE_SQ_ERROR,
};

struct sroce_sq_eng {
	/* Configuration: set by sroce_sq_init() and sroce_sq_config() */
	struct sroce_wqe *wqe;	/* size entries, glue-owned */
	u32	size;		/* power of two */
	u32	mtu;		/* path MTU, bytes */
	u32	window;		/* PSNs in flight, 8..SROCE_MAX_WINDOW */
	u32	rd_chunk;	/* bytes per READ request, multiple of mtu */
	u32	max_rd;		/* READ requests outstanding, >= 1 */
	u8	retry_cnt;
	u8	rnr_retry;
	u8	timeout;	/* IBTA local ACK timeout code, 0 = none */
	bool	uc;		/* UC: nothing is acknowledged */

	u8	state;		/* enum sroce_sq_state */
	u32	comp;		/* oldest WQE not completed */
	u32	req;		/* WQE being sent */
	u32	req_off;	/* its bytes sent (READ: requested) */
	u32	fetch;		/* next slot the glue fills */
	u32	next_psn;	/* PSN of the next request packet */
	u32	una_psn;	/* oldest PSN not acknowledged */
	u32	sent_psn;	/* one past the highest PSN ever sent */
	u32	ack_psn;	/* highest PSN acknowledged by an ACK */
	u32	recover_psn;	/* recovering: sent_psn when it rewound */
	u32	cwnd;		/* PSNs in flight allowed now, 1..window */
	u32	ssthresh;	/* slow start below, +1 per cwnd above */
	u32	ca_acc;		/* PSNs acknowledged towards cwnd + 1 */
	bool	recovering;
	bool	nak_recover;	/* rewound on a NAK of nak_psn */
	bool	pto_ok;		/* ... and the probe timer may fire */
	bool	tlp_ok;		/* a tail loss probe may fire (no NAK) */
	bool	tail_resp;	/* the last PSN sent asks a READ or atomic */
	u8	pto_armed;	/* the timer armed is a probe: SROCE_PTO_* */
	u32	nak_psn;
	u32	reread_idx;	/* READ hole to request before anything */
	bool	reread_owed;
	u8	retries_left;
	u8	rnr_left;
	u8	backoff;
	u32	probe_psn;	/* sent_psn at the last timeout */
	bool	probing;	/* a timeout fired; no progress since */
	bool	late;		/* ... and was answered past the resend */
	bool	rnr_wait;
	bool	drained_owed;	/* SQ_DRAINED event not given yet */
	/*
	 * Round trip (Jacobson/Karels): one packet first sent at rtt_t0 is
	 * timed until una passes rtt_psn; a rewind over it cancels the
	 * sample (Karn).  now is the glue's clock (sroce_sq_clock()).
	 */
	u64	now;
	u64	rtt_t0;
	u32	rtt_psn;
	bool	rtt_timing;
	bool	rtt_valid;	/* srtt and rttvar hold a sample */
	u64	srtt;		/* ns */
	u64	rttvar;		/* ns */
	u32	drain_limit;	/* DRAIN: first WQE not to start */
	/*
	 * Congestion control (DCQCN's reaction point), when the glue turned
	 * it on (sroce_sq_set_cc()): the requester sends no faster than
	 * cc's rate.
	 */
	const struct sroce_dcqcn_params *ccp;
	struct sroce_dcqcn cc;
	bool	ecn_cwr;	/* cwnd cut for a CNP, until una passes */
	u32	ecn_cwr_psn;	/* ... sent_psn at that cut */
	/*
	 * The device's budget of packets in flight (budget.h), when the
	 * glue grants one (sroce_sq_budget_grant()): new PSNs only before
	 * budget_end; budget_held says the last step waited for it.
	 */
	bool	budgeted;
	bool	budget_held;
	u32	budget_end;
	u32	err_idx;	/* ERROR: WQE that carries err_status */
	u8	err_status;	/* SROCE_WC_*, or SUCCESS for a pure flush */
	bool	err_set;
};

/* Timer requests in an action */
enum sroce_timer_op {
	SROCE_TIMER_KEEP,	/* leave the retransmit timer as it is */
	SROCE_TIMER_ARM,	/* (re)arm it for timer_ns */
	SROCE_TIMER_ARM_IF_IDLE, /* arm it for timer_ns unless running */
	SROCE_TIMER_STOP,
	SROCE_TIMER_RNR,	/* stop it; arm the RNR timer for timer_ns */
};

/*
 * What one send-side event asks the glue to do, in this order (the
 * kernel glue, the simulator and the unit tests all follow it):
 *   1. events: count them; the WQEs before e->comp completed (the glue
 *      knew comp before the event): complete them in queue order;
 *      drained: raise IB_EVENT_SQ_DRAINED;
 *   2. error: the QP goes to the error state (e->err_* say which WQE),
 *      and nothing below is carried out;
 *   3. timer: the retransmit or RNR timer;
 *   4. kick: the requester may have packets to send;
 *   5. place, last and only if the QP did not fail: copy the payload,
 *      then call sroce_comp_placed() and carry out what it returns in
 *      the same order (the WQE placed into completes there). The WQEs
 *      that complete in step 1 are all before the one placed into.
 */
struct sroce_sq_act {
	/*
	 * 5. READ response payload: copy it to WQE place_idx at place_off;
	 *    ATOMIC ACK (atomic): write atomic_orig, 8 bytes in CPU order,
	 *    to the atomic WQE's local buffer (place_off 0, place_len 8);
	 *    the answer to an ATOMIC WRITE (awrite): nothing to copy.
	 */
	bool	place;
	bool	atomic;
	bool	awrite;
	u32	place_idx;
	u32	place_off;
	u32	place_len;
	u64	atomic_orig;
	/* 2. error: the QP goes to error (e->err_* say which WQE) */
	bool	error;
	/* 3. timers */
	u8	timer;		/* enum sroce_timer_op */
	u64	timer_ns;
	/* 4. the requester may have packets to send */
	bool	kick;
	/* 1. SQD drained: raise IB_EVENT_SQ_DRAINED */
	bool	drained;
	u32	events;		/* 1. BIT(enum sroce_eng_event) */
};

/* One request packet to build: headers, then payload from the WQE. */
struct sroce_tx_req {
	u32	idx;		/* WQE */
	u8	opcode;
	u32	psn;
	bool	ackreq;
	bool	se;
	bool	reth;		/* carries a RETH */
	u64	va;
	u32	rkey;
	u32	dma_len;
	bool	imm;		/* carries ImmDt (glue has the value) */
	bool	ieth;		/* carries an IETH (glue has the R_Key) */
	bool	atomic;		/* carries an AtomicETH: va, rkey, these */
	u64	swap_add;
	u64	compare;
	bool	awrite;		/* ATOMIC WRITE: RETH, payload swap_add's 8 bytes */
	u32	off;		/* payload: WQE bytes [off, off + len) */
	u32	len;
	bool	retransmit;	/* PSN was sent before */
};

/*
 * The headers of request @tx to QP @dqpn under @pkey: the one step from
 * the requester's decision to the wire's headers, for every glue. @imm
 * (ImmDt, in CPU order) and @ieth_rkey (the R_Key to invalidate) are the
 * WQE's, used where @tx carries them.
 */
void sroce_tx_req_hdrs(const struct sroce_tx_req *tx, u32 dqpn, u16 pkey,
		       u32 imm, u32 ieth_rkey, struct sroce_hdrs *h);

enum sroce_req_verdict {
	SROCE_REQ_SEND,		/* build and send tx */
	SROCE_REQ_FETCH,	/* need WQE 'fetch': push it, or stop if none */
	SROCE_REQ_IDLE,		/* nothing to send until an event */
	SROCE_REQ_PACED,	/* not before sroce_sq_pace_at(): the rate */
	SROCE_REQ_LOCAL,	/* carry out local WQE tx->idx, then call
				 * sroce_sq_local_done()
				 */
	SROCE_REQ_BUDGET,	/* the device's budget: run it again when
				 * its packets in flight fall
				 */
};

void sroce_sq_init(struct sroce_sq_eng *e, struct sroce_wqe *wqe, u32 size);

/*
 * Path attributes (mtu 256..4096, a power of two).  The path MTU, and the
 * PSN (sroce_sq_set_psn()), change only while no WQE is under way.
 */
void sroce_sq_config(struct sroce_sq_eng *e, u32 mtu, u32 max_rd,
		     u8 retry_cnt, u8 rnr_retry, u8 timeout);

/* Make this a UC send queue (after init, kept across resets) */
void sroce_sq_set_uc(struct sroce_sq_eng *e);

/* SQ PSN (modify_qp IB_QP_SQ_PSN) */
void sroce_sq_set_psn(struct sroce_sq_eng *e, u32 psn);

/* State changes; sroce_sq_drain() may set act->drained at once */
void sroce_sq_start(struct sroce_sq_eng *e);
/* The time now, in ns from any origin, before an event (never goes back) */
void sroce_sq_clock(struct sroce_sq_eng *e, u64 now_ns);
/* The retransmit timer's period now (RTT estimate and backoff included) */
u64 sroce_sq_timer_ns(const struct sroce_sq_eng *e);
void sroce_sq_drain(struct sroce_sq_eng *e, struct sroce_sq_act *act);

/*
 * Congestion control: pace the requester to a DCQCN rate that starts at
 * @line_mbps, with knobs @p (read at each decision; NULL: off). Kept
 * across sroce_sq_reset(), which starts the rate over.
 */
void sroce_sq_set_cc(struct sroce_sq_eng *e,
		     const struct sroce_dcqcn_params *p, u32 line_mbps);
/* A CNP for this QP (the clock set): true if it cut the rate */
bool sroce_sq_cnp(struct sroce_sq_eng *e);
/* After SROCE_REQ_PACED: when the next packet may go (the clock's ns) */
u64 sroce_sq_pace_at(const struct sroce_sq_eng *e);

/*
 * The device's budget (budget.h): before a requester step, grant the QP
 * what @b lets it add in flight; after any step that moved what it has
 * in flight (sending, an acknowledgment, an error), settle its charge.
 * Settle returns the packets it gave back. UC holds no charge.
 */
void sroce_sq_budget_grant(struct sroce_sq_eng *e,
			   const struct sroce_budget *b,
			   const struct sroce_budget_qp *q);
u32 sroce_sq_budget_settle(struct sroce_sq_eng *e, struct sroce_budget *b,
			   struct sroce_budget_qp *q);

void sroce_sq_reset(struct sroce_sq_eng *e);

/*
 * Fail the QP: WQE @idx (comp <= idx < fetch; a WQE that failed the
 * glue's validation is pushed first) completes with @status, every other
 * uncompleted WQE with a flush error.  The first error wins.  On UC, @idx
 * may be the WQE the last sroce_req_next() completed (comp - 1): its
 * completion is taken back, to be reported with @status.
 */
void sroce_sq_fail(struct sroce_sq_eng *e, u32 idx, u8 status);

/* Room for one more WQE (fetch - comp < size) */
bool sroce_sq_room(const struct sroce_sq_eng *e);

/* The glue filled wqe[fetch & mask]: take it */
void sroce_sq_push(struct sroce_sq_eng *e);

/*
 * Requester step.  SROCE_REQ_SEND fills @tx and advances; the glue builds
 * the packet (a lost or unbuildable one is recovered like a wire loss),
 * and on a local protection error calls sroce_sq_fail().
 */
enum sroce_req_verdict sroce_req_next(struct sroce_sq_eng *e,
				      struct sroce_tx_req *tx,
				      struct sroce_sq_act *act);

/*
 * Local WQE @idx (a SROCE_WR_LOCAL that sroce_req_next() handed out) was
 * carried out with @status (SROCE_WC_*). It completes in order, once
 * every WQE before it has; on an error the QP fails with it. A local
 * WQE is carried out once: a resend from before it passes it by.
 */
void sroce_sq_local_done(struct sroce_sq_eng *e, u32 idx, u8 status,
			 struct sroce_sq_act *act);

/*
 * Completer: an RC ACK, ATOMIC ACK, or READ response @pkt (parsed; ICRC,
 * addresses and P_Key already checked).  Fills @act.
 */
void sroce_comp_rx(struct sroce_sq_eng *e, const struct sroce_pkt *pkt,
		   struct sroce_sq_act *act);

/* The payload act->place asked for is in place (@ok) or could not be */
void sroce_comp_placed(struct sroce_sq_eng *e, const struct sroce_sq_act *req,
		       bool ok, struct sroce_sq_act *act);

void sroce_sq_timeout(struct sroce_sq_eng *e, struct sroce_sq_act *act);
void sroce_sq_rnr_done(struct sroce_sq_eng *e, struct sroce_sq_act *act);

/* The flush is done: WQEs [comp, fetch) were completed by the glue */
void sroce_sq_flushed(struct sroce_sq_eng *e);

/* Invariants; false (and SROCE_ENGINE_WARN) if one is broken */
bool sroce_sq_check(const struct sroce_sq_eng *e);

/* READ and atomic requests outstanding (held against max_rd_atomic) */
u32 sroce_sq_reads_out(const struct sroce_sq_eng *e);

/* ---------------------------------------------------------------- */
/* Receive side                                                       */

/* Remote access rights granted by the QP (IB_ACCESS_REMOTE_*) */
#define SROCE_ACC_REMOTE_WRITE	BIT(1)
#define SROCE_ACC_REMOTE_READ	BIT(2)
#define SROCE_ACC_REMOTE_ATOMIC	BIT(3)

/*
 * One accepted RDMA READ or atomic, kept to answer it and its duplicates.
 * An atomic keeps its result: a duplicate is answered from it, never
 * executed again.
 */
struct sroce_rd_res {
	bool	valid;
	bool	pending;	/* responses left to send */
	bool	atomic;		/* an atomic: orig is its answer */
	bool	awrite;		/* an ATOMIC WRITE: answered without data */
	u64	orig;
	u32	first_psn;
	u32	npkts;
	u64	va;
	u32	rkey;
	u32	length;
	u32	start_psn;	/* first response of this run (FIRST) */
	u32	next_off;	/* next response's offset */
	u32	end_off;	/* this run ends here (LAST) */
};

enum sroce_rq_state {
	SROCE_RQ_IDLE,		/* RESET, INIT: drops everything */
	SROCE_RQ_ACTIVE,	/* RTR, RTS, SQD */
	SROCE_RQ_ERROR,
};

struct sroce_rq_eng {
	/* Configuration */
	struct sroce_rd_res *res;	/* nres_max entries, glue-owned */
	u32	nres_max;
	u32	nres;		/* max_dest_rd_atomic, >= 1 */
	u32	mtu;
	u32	access;		/* SROCE_ACC_* */
	u8	min_rnr_timer;
	bool	uc;		/* UC: no ACKs, lost messages dropped */

	u8	state;		/* enum sroce_rq_state */
	u32	epsn;
	u32	msn;
	u8	seq;		/* enum sroce_rx_seq */
	bool	nak_sent;	/* PSN sequence NAK for this ePSN */
	u32	unacked;
	bool	ack_owed;	/* an ACK waits behind READ responses */
	/* Message in progress */
	bool	rwqe_held;	/* receive WQE taken for a Send */
	u32	rwqe_len;
	u32	msg_off;	/* Send: bytes placed; Write: bytes written */
	u32	wr_len;		/* Write: RETH DMA length */
	u64	wr_va;
	u32	wr_rkey;
	/* READ resources, a ring of nres */
	u32	res_next;
	s32	cur;		/* resource being answered, or -1 */
};

/* An atomic the responder asks the glue to carry out */
struct sroce_atomic_op {
	bool	write;		/* ATOMIC WRITE: store swap_add (as in memory)
				 * under REMOTE_WRITE; orig is not used
				 */
	bool	cmp_swap;	/* else FetchAdd */
	u64	va;		/* 8-byte aligned */
	u32	rkey;
	u64	swap_add;
	u64	compare;
};

/* Calls the responder makes to the glue while deciding */
struct sroce_rq_env {
	void	*ctx;
	/* Take a receive WQE: 0 and its length, nonzero if none */
	int	(*take_rwqe)(void *ctx, u32 *len);
	/* May the peer @access [va, va + len) with @rkey? */
	bool	(*rkey_ok)(void *ctx, u32 rkey, u64 va, u32 len, u32 access);
	/*
	 * Execute @op atomically (against every other atomic of the device)
	 * on the 8 bytes at op->va, if @rkey grants REMOTE_ATOMIC there:
	 * true and the value found there in @orig (CPU order), else false
	 * and nothing changed.  Called once per accepted atomic.
	 */
	bool	(*atomic)(void *ctx, const struct sroce_atomic_op *op,
			  u64 *orig);
};

/* One ACK / NAK / RNR NAK to send */
struct sroce_tx_ack {
	u8	syndrome;
	u32	psn;
	u32	msn;
};

enum sroce_place_dst {
	SROCE_PLACE_NONE,
	SROCE_PLACE_RWQE,	/* held receive WQE, at off */
	SROCE_PLACE_MR,		/* Write: rkey, va, checked again per packet */
};

/* What one receive-side event asks the glue to do, in this order. */
struct sroce_rq_act {
	/* 1. payload placement; failure -> sroce_rq_fail() and stop */
	u8	place;		/* enum sroce_place_dst */
	u32	off;
	u64	va;
	u32	rkey;
	u32	len;
	/* 2. receive completion of the held WQE */
	bool	complete;
	u8	wc_status;	/* SROCE_WC_* (success or a local error) */
	bool	wc_rdma_imm;	/* RECV_RDMA_WITH_IMM, else RECV */
	u32	wc_byte_len;
	bool	wc_imm;		/* the packet's ImmDt goes into the WC */
	bool	wc_solicited;
	/*
	 * Send with Invalidate: after placing, before completing, the glue
	 * invalidates inv_rkey (IB_WC_WITH_INVALIDATE); if it cannot, it
	 * calls sroce_rq_fail() (NAK invalid request, REM_INV_REQ_ERR)
	 */
	bool	wc_inv;
	u32	inv_rkey;
	/* 3. an ACK/NAK to send now */
	bool	ack;
	struct sroce_tx_ack tx;
	/* 4. the QP goes to error (after the NAK above) */
	bool	error;
	/* 5. READ responses to send: call sroce_rq_next() */
	bool	kick;
	u32	events;		/* BIT(enum sroce_eng_event) */
};

/* One response from sroce_rq_next() */
struct sroce_tx_rsp {
	bool	is_ack;		/* plain ACK (tx_ack) instead of READ data */
	struct sroce_tx_ack ack;
	u8	opcode;		/* READ response or ATOMIC ACK opcode */
	u64	orig;		/* ATOMIC ACK: original remote data */
	u32	psn;
	u32	msn;
	u8	syndrome;
	u64	va;		/* payload: [va, va + len) under rkey */
	u32	rkey;
	u32	len;
};

/* The headers of ACK or NAK @ack, and of READ response or ATOMIC ACK @rsp */
void sroce_tx_ack_hdrs(const struct sroce_tx_ack *ack, u32 dqpn, u16 pkey,
		       struct sroce_hdrs *h);
void sroce_tx_rsp_hdrs(const struct sroce_tx_rsp *rsp, u32 dqpn, u16 pkey,
		       struct sroce_hdrs *h);

void sroce_rq_init(struct sroce_rq_eng *e, struct sroce_rd_res *res,
		   u32 nres_max);
void sroce_rq_config(struct sroce_rq_eng *e, u32 mtu, u32 nres, u32 access,
		     u8 min_rnr_timer);
void sroce_rq_set_psn(struct sroce_rq_eng *e, u32 psn);
/* Make this a UC receive queue (after init, kept across resets) */
void sroce_rq_set_uc(struct sroce_rq_eng *e);
void sroce_rq_start(struct sroce_rq_eng *e);	/* to RTR */
void sroce_rq_reset(struct sroce_rq_eng *e);
/* The QP went to error: drop what is held (glue flushes the RWQE) */
void sroce_rq_error(struct sroce_rq_eng *e);

/*
 * A request packet (an RC request opcode, or UC for a UC queue; ICRC,
 * address, P_Key checked)
 */
void sroce_rq_rx(struct sroce_rq_eng *e, const struct sroce_pkt *pkt,
		 const struct sroce_rq_env *env, struct sroce_rq_act *act);

/*
 * The glue could not carry out @act's placement (@nak: the NAK code;
 * @wc_status: the receive completion, SUCCESS for none).  Rewrites @act:
 * no ACK, a NAK instead, QP to error.  On UC: the message is dropped,
 * and only a receive completion in error fails the QP.
 */
void sroce_rq_fail(struct sroce_rq_eng *e, u32 psn, enum sroce_nak_code nak,
		   u8 wc_status, struct sroce_rq_act *act);

/* Next READ response, ATOMIC ACK or held ACK to send; false when none */
bool sroce_rq_next(struct sroce_rq_eng *e, struct sroce_tx_rsp *rsp);

/* A READ response's data could not be read: NAK remote access, error */
void sroce_rq_read_failed(struct sroce_rq_eng *e, u32 psn,
			  struct sroce_tx_ack *nak);

bool sroce_rq_check(const struct sroce_rq_eng *e);

#endif /* _SROCE_RC_ENGINE_H */
