/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Host glue: carries out what the protocol core's RC and UC engines
 * decide, for the programs that run the core outside the kernel
 * (tools/unit/test_engine.c, tools/sim/).  It is the host's counterpart
 * of drivers/infiniband/sw/sroce/sroce_glue_{sq,rq}.c.
 *
 * One struct hg_side is one endpoint: its send engine and WQE ring, its
 * receive engine and READ resources, the memory its peer reaches through
 * MRs, its receive queue.  The glue owns the engine calls, the RQ
 * environment (receive WQEs, rkey checks, atomics), the carrying out of
 * sq and rq actions in the order struct sroce_sq_act documents, and the
 * packets built from the engines' decisions.
 *
 * What differs between the programs comes in through struct hg_ops: where
 * a packet goes (a queue the test drives by hand, or the simulator's
 * wire), what a WQE's buffers are, the timers, the program's own checks
 * and records.  The glue never calls into the program otherwise, so its
 * callers sit above it and nothing below calls up.
 */
#ifndef _SROCE_HOST_GLUE_H
#define _SROCE_HOST_GLUE_H

#include <stdarg.h>

#include "sroce/rc_engine.h"
#include "sroce/opcode.h"

#define HG_MAX_RES	16	/* READ resources per responder */
#define HG_MAX_MR	8	/* MRs per endpoint */

/* A memory region: [va, va + len) of the side's memory at off */
struct hg_mr {
	u64	va;
	u64	off;
	u64	len;
	u32	rkey;
	u32	access;		/* SROCE_ACC_* */
};

/* What the glue reports to ops->note (the simulator's trace) */
enum hg_note {
	HG_NOTE_TX_REQ,		/* a request, or a local WQE carried out */
	HG_NOTE_TX_ACK,
	HG_NOTE_TX_RSP,
	HG_NOTE_PLACE,		/* a READ response or atomic result placed */
	HG_NOTE_ERROR,		/* the QP went to error */
	HG_NOTE_REQ_IDLE,	/* the requester has nothing to send */
	HG_NOTE_RESULT,		/* what an engine made of a packet */
	HG_NOTE_NR
};

/* What the glue counts, per side (struct hg_side.cnt) */
enum hg_count {
	HG_CNT_RETRANSMITS,
	HG_CNT_RX_REQ,
	HG_CNT_RX_RESP,
	HG_CNT_ACKS,
	HG_CNT_READ_RESPS,
	HG_CNT_RKEY_DENIED,
	HG_CNT_RQ_EMPTY,
	HG_CNT_ATOMICS,		/* carried out by this responder */
	HG_CNT_ATOMIC_WRITES,	/* of which ATOMIC WRITEs */
	HG_CNT_EV_BASE,		/* + enum sroce_eng_event */
	HG_CNT_NR = HG_CNT_EV_BASE + SROCE_EV_NR
};

/* A send WQE as the packets need it: its local buffer, what it carries */
struct hg_wqe {
	u8	*buf;		/* the data of a Send or Write, READ's target */
	u32	imm;
	u32	inv_rkey;	/* Send with Invalidate */
};

struct hg_side;

/*
 * The program's side of the glue.  Send WQE indexes are the program's:
 * 0 is the first WQE the engine fetched after hg_start().  Hooks marked
 * optional may be NULL.
 */
struct hg_ops {
	/* A packet ready for the wire; the hook owns @buf (malloc()ed) */
	void (*xmit)(struct hg_side *s, u8 *buf, u32 len);
	/* Send WQE @i: buffer, immediate, key to invalidate */
	void (*wqe)(struct hg_side *s, u32 i, struct hg_wqe *out);
	/* Receive WQE @i: its buffer and length */
	u8 *(*rwqe)(struct hg_side *s, u32 i, u32 *len);
	/* A check failed: report it and set *s->failed */
	void (*fail)(struct hg_side *s, const char *fmt, va_list ap);

	/* optional: a trace record */
	void (*note)(struct hg_side *s, enum hg_note what, u8 opcode, u32 psn,
		     u64 a, u64 b);
	/* optional: send WQE @i completed with @status */
	void (*sq_comp)(struct hg_side *s, u32 i, u8 status);
	/*
	 * optional: the engine's WQEs are flushed; complete the ones the
	 * user posted that the engine has not fetched yet
	 */
	void (*sq_flushed)(struct hg_side *s);
	/* optional: SROCE_REQ_FETCH: fill @q with posted WQE @i, or false */
	bool (*fetch)(struct hg_side *s, u32 i, struct sroce_wqe *q);
	/* optional: the program's checks of a request; false: not sent */
	bool (*req_check)(struct hg_side *s, const struct sroce_tx_req *tx);
	/* optional: checks of a placement; false: not placed */
	bool (*place_check)(struct hg_side *s, const struct sroce_sq_act *act,
			    u32 plen);
	/* optional: carry out local WQE @i; false: refused (it failed) */
	bool (*local)(struct hg_side *s, u32 i, u8 *status);
	/* optional: act->timer (none: the program runs timeouts itself) */
	void (*timer)(struct hg_side *s, const struct sroce_sq_act *act);
	/* optional: after the send side acted: the user may post more */
	void (*sq_room)(struct hg_side *s);
	/* optional: may the engines send now (false: the link is full) */
	bool (*tx_room)(struct hg_side *s);
	/*
	 * optional: before a requester step (the device's budget: settle,
	 * then grant); after one the budget held (SROCE_REQ_BUDGET)
	 */
	void (*req_pre)(struct hg_side *s);
	void (*req_budget)(struct hg_side *s);
	/* optional: UD: the requester step (the glue has no datagrams) */
	bool (*ud_step)(struct hg_side *s);
	/* optional: receive WQE @i completed (act: status, length, imm) */
	void (*rq_comp)(struct hg_side *s, u32 i, const struct sroce_pkt *pkt,
			const struct sroce_rq_act *act);
	/* optional: receive WQE @i flushed */
	void (*rq_flushed)(struct hg_side *s, u32 i);
	/* optional: Send with Invalidate of @rkey; false: refused */
	bool (*invalidate)(struct hg_side *s, u32 rkey);
	/* optional: the QP went to error (stop its timers) */
	void (*error)(struct hg_side *s);
};

/* Engine parameters of a side, as modify_qp would set them */
struct hg_cfg {
	u32	mtu;
	u32	sq_size;
	u32	max_rd;		/* this requester's max_rd_atomic */
	u32	peer_max_rd;	/* the peer's: this responder's resources */
	u8	retry_cnt;
	u8	rnr_retry;
	u8	timeout;
	u8	min_rnr_timer;
	u32	psn;		/* first request PSN */
	u32	peer_psn;	/* the peer's first request PSN */
	u32	access;		/* SROCE_ACC_* the responder allows */
	u8	transport;	/* SROCE_TRANSPORT_RC, _UC or _UD */
};

struct hg_side {
	const struct hg_ops *ops;
	bool	*failed;	/* a check failed: carry out nothing more */
	char	name;		/* 'A', 'B': in failure reports */
	u32	qpn;
	u32	peer_qpn;
	u8	transport;	/* what hg_parse() lets in */
	u32	mtu;
	/* memory the peer reaches */
	u8	*mem;
	struct hg_mr mr[HG_MAX_MR];
	u32	nmr;
	/* send side */
	struct sroce_sq_eng sq;
	struct sroce_wqe *ring;
	u32	sq_base;	/* engine index of WQE 0 */
	u32	comp_seen;	/* sq.comp last reported */
	/* receive side */
	struct sroce_rq_eng rq;
	struct sroce_rd_res res[HG_MAX_RES];
	u32	nrwqes;		/* receive WQEs there will be, at most */
	u32	rposted;
	u32	rtaken;
	bool	rheld;		/* the engine holds receive rheld_idx */
	u32	rheld_idx;
	/* rkey_ok approval of the Write in progress (MR placement) */
	bool	ok_valid;
	u32	ok_rkey;
	u64	ok_va;
	u64	ok_len;
	/* QP */
	bool	qp_err;
	bool	sq_err;		/* the send side failed itself */
	/* transmit: one link, requester and responder take turns */
	bool	want_req;
	bool	want_rsp;
	bool	rsp_turn;
	bool	in_pump;
	u64	cnt[HG_CNT_NR];
};

/* Set up and start both engines; s->ring and s->ops are set already */
void hg_start(struct hg_side *s, const struct hg_cfg *cfg);

/* A packet for @s: parse it, refuse another QP's or transport's */
int hg_parse(const struct hg_side *s, const u8 *buf, u32 len,
	     struct sroce_pkt *pkt);
/* A parsed RC or UC packet reached @s: run its engine, carry it out */
void hg_rx(struct hg_side *s, const struct sroce_pkt *pkt,
	   const u8 *payload);
/* The two halves of a request's reception, for tests that look between */
void hg_rq_rx(struct hg_side *s, const struct sroce_pkt *pkt,
	      struct sroce_rq_act *act);
void hg_rq_exec(struct hg_side *s, const struct sroce_pkt *pkt,
		const u8 *payload, struct sroce_rq_act *act);
/* Carry out a send-side action (@payload: a READ response's) */
void hg_sq_exec(struct hg_side *s, const struct sroce_sq_act *act,
		const u8 *payload, u32 plen);

/* Run the engines while they have something to send */
void hg_pump(struct hg_side *s);
/* The requester may have something new (posted WQEs, a timeout) */
void hg_kick(struct hg_side *s);
/* Fail the QP: flush both queues */
void hg_qp_error(struct hg_side *s);

/* Build headers @h plus @plen payload bytes and hand them to ops->xmit */
void hg_send_pkt(struct hg_side *s, struct sroce_hdrs *h, const u8 *payload,
		 u32 plen);

/* Engine invariants after @call; a failure goes to ops->fail */
void hg_sq_checked(struct hg_side *s, const char *call);
void hg_rq_checked(struct hg_side *s, const char *call);

static inline bool hg_failed(const struct hg_side *s)
{
	return *s->failed;
}

#endif /* _SROCE_HOST_GLUE_H */
