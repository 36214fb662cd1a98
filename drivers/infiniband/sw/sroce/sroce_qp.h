/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Queue pairs: the object, and the per-QP state of the packet engines.
 * The engine glue's calls are in sroce_glue.h, the scheduler's in
 * sroce_sched.h, the QP verbs in sroce_verbs.h.
 *
 * Execution model (Documentation/design.rst has the full picture):
 * - qp->lock (irqsave) guards all engine state below it. Engines run
 *   under it and only queue packets on a local list; packets are sent
 *   after the lock is dropped, because the IP output path must not run
 *   with interrupts disabled.
 * - The requester runs in the caller of post_send (the user doorbell is
 *   process context), from the retransmit timer, after ACKs, or from
 *   qp->work when called where it cannot send (hard irq, irqs off) or
 *   when it ran out of budget.
 * - The responder and completer run in the softirq that received the
 *   packet (UDP encap_rcv).
 */
#ifndef SROCE_QP_H
#define SROCE_QP_H

#include <linux/hrtimer.h>
#include <linux/in6.h>
#include <linux/minmax.h>
#include <linux/refcount.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "sroce/rc_engine.h"
#include "sroce/wire.h"
#include "sroce_ah.h"
#include "sroce_mr.h"
#include "sroce_queue.h"
#include "sroce_srq.h"

struct sroce_dev;
struct sroce_cq;
struct sroce_tx_ctx;

/*
 * A connected QP's route, for the packets built for one version of its
 * path (sroce_av.gen): a packet built before an address change is routed
 * with the address it carries, never with the route of the new one.
 * The wire layer (sroce_net.c) keeps it.
 */
struct sroce_route {
	spinlock_t		lock;		/* dst, cookie, gen */
	struct dst_entry	*dst;		/* referenced, or NULL */
	u32			cookie;		/* IPv6 route validity */
	u32			gen;		/* sroce_av.gen it was built for */
};

/*
 * The glue's half of a send WQE, copied and validated once: what the
 * engine does not need (struct sroce_wqe holds the rest).
 */
struct sroce_swqe {
	u64		wr_id;
	u32		opcode;		/* IB_WR_* */
	__be32		imm;
	u32		num_sge;	/* 0 for inline */
	bool		inlined;
	void		*data;		/* struct rxe_sge[] or inline bytes */
	u32		inv_rkey;	/* SEND_WITH_INV, LOCAL_INV */
	struct ib_mr	*reg_mr;	/* REG_MR (kernel QPs only) */
	u32		reg_key;
	u32		reg_access;
	/* BIND_MW (user QPs): window, new key, MR and range, rights */
	u32		mw_rkey;
	u32		bind_rkey;
	u32		mr_lkey;
	u64		bind_addr;
	u64		bind_length;
	u32		bind_access;
	u8		status;		/* IB_WC_*, once the engine is done */
};

/* A validated copy of one receive WQE. */
struct sroce_rwqe {
	u64		wr_id;
	u32		length;
	u32		num_sge;
	struct rxe_sge	sge[];
};

struct sroce_qp {
	struct ib_qp		ibqp;
	struct sroce_dev	*sdev;
	u64			uid;		/* never reused, unlike QPNs */
	refcount_t		refs;		/* lookups from the rx path */
	struct completion	released;
	struct work_struct	work;
	struct sroce_tx_ctx	*tx;		/* pacing, see sroce_net.h */
	/* its counts while bound to a counter (ibqp.counter), or NULL */
	struct sroce_qstats	*qstats;
	struct list_head	counter_node;	/* on its counter's list */
	spinlock_t		lock;		/* everything below */
	u8			notify;		/* SROCE_NOTIFY_* to call */
	/* Built, not yet handed to the stack (sroce_qp_queue()) */
	struct sk_buff_head	txq;
	bool			tx_busy;	/* a context is sending txq */

	/* Set at create. */
	bool			user;
	bool			sig_all;
	struct sroce_cq		*scq;
	struct sroce_cq		*rcq;
	struct sroce_queue	sq;
	struct sroce_queue	rq;		/* unused with an SRQ */
	struct sroce_srq	*srq;
	u32			sq_max_sge;
	u32			sq_max_inline;
	u32			sq_data_size;	/* bytes after the WQE header */
	u32			rq_max_sge;

	/* Attributes (modify_qp). */
	enum ib_qp_state	state;
	u32			dest_qpn;
	u32			mtu;		/* path MTU in bytes */
	enum ib_mtu		path_mtu;
	u8			timeout;
	u8			retry_cnt;
	u8			rnr_retry;
	u8			min_rnr_timer;
	u8			max_rd_atomic;
	u8			max_dest_rd_atomic;
	int			access;
	u32			qkey;
	u16			pkey_index;
	u32			sq_psn;		/* as set, for query_qp */
	u32			ud_psn;		/* next UD datagram's PSN */
	struct rdma_ah_attr	ah_attr;
	struct sroce_av		av;
	struct sroce_route	route;		/* of av, for the transmit path */
	struct list_head	mca_list;	/* its group attachments; mcg_lock */

	/* Requester and completer: the engine, and the WQE copies. */
	struct sroce_sq_eng	sq_eng;
	struct sroce_budget_qp	bq;		/* its part of sdev->budget */
	struct list_head	budget_node;	/* on sdev->budget_wait */
	struct sroce_wqe	*wqe;		/* engine's, one per SQ slot */
	struct sroce_swqe	*swqe;		/* glue's, one per SQ slot */
	u32			sq_done;	/* oldest WQE not reported */
	bool			sq_drained_owed; /* SQ_DRAINED after them */
	u8			*swqe_data;
	struct timer_list	retrans_timer;
	struct timer_list	rnr_timer;
	struct hrtimer		pace_timer;	/* the rate lets it send */
	u64			cnp_last;	/* last CNP sent (ns), 0: none */

	/* Responder: the engine, the receive WQE it holds, READ resources. */
	struct sroce_rq_eng	rq_eng;
	struct sroce_rwqe	*rwqe;
	bool			rwqe_valid;	/* rwqe holds a taken WQE */
	bool			last_wqe_sent;	/* LAST_WQE_REACHED raised */
	struct sroce_rd_res	*rd_res;
};

static inline struct sroce_qp *to_sqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, ibqp);
}

#define SROCE_NOTIFY_SCQ	BIT(0)
#define SROCE_NOTIFY_RCQ	BIT(1)
#define SROCE_NOTIFY_SQ_DRAINED	BIT(2)
#define SROCE_NOTIFY_SRQ_LIMIT	BIT(3)
#define SROCE_NOTIFY_LAST_WQE	BIT(4)

/* sroce_qp.c */
void sroce_qp_post_cqe(struct sroce_qp *qp, struct sroce_cq *cq,
		       const struct ib_wc *wc, bool solicited);
struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn);
void sroce_qp_put(struct sroce_qp *qp);

/* States in which what is posted to the SQ completes flushed */
static inline bool sroce_sq_flushes(enum ib_qp_state state)
{
	return state == IB_QPS_ERR || state == IB_QPS_SQE;
}

/* IB_WR_* of an atomic (compare-and-swap, fetch-and-add) */
static inline bool sroce_wr_atomic(u32 opcode)
{
	return opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

static inline bool sroce_qp_is_ud(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
}

#endif /* SROCE_QP_H */
