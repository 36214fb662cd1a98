/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Queue pairs: the object, its state machine, and the per-QP state of the
 * three packet engines.
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

#include <linux/in6.h>
#include <linux/minmax.h>
#include <linux/refcount.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>

#include "sroce/wire.h"
#include "sroce_mr.h"
#include "sroce_queue.h"

struct sroce_dev;
struct sroce_cq;

/*
 * The requester's window: how many PSNs may be unacknowledged. About
 * 64 KiB of packets, so that a burst fits the queues of a receiver that
 * has no flow control of its own, between 8 and 64 packets.
 */
#define SROCE_WINDOW_BYTES	SZ_64K

static inline u32 sroce_window(u32 mtu)
{
	return clamp_t(u32, SROCE_WINDOW_BYTES / mtu, 8, 64);
}

/* Largest Read request in bytes: half a window (sroce_req.c). */
static inline u32 sroce_read_chunk(u32 mtu)
{
	return sroce_window(mtu) / 2 * mtu;
}

/* Bytes of the provider's send and receive WQEs before their SGE lists. */
#define SROCE_SWQE_HDR		offsetof(struct rxe_send_wqe, dma.sge)
#define SROCE_RWQE_HDR		offsetof(struct rxe_recv_wqe, dma.sge)

/* A validated, kernel-private copy of one send WQE. */
struct sroce_swqe {
	u64		wr_id;
	u32		opcode;		/* IB_WR_* */
	u32		send_flags;	/* IB_SEND_* */
	__be32		imm;
	u64		remote_addr;
	u32		rkey;
	u32		length;		/* whole message */
	u32		num_sge;	/* 0 for inline */
	bool		inlined;
	u32		first_psn;
	u32		last_psn;
	u32		rd_done;	/* Read: bytes placed so far */
	u32		rd_gap_psn;	/* Read: last gap re-read from */
	void		*data;		/* struct rxe_sge[] or inline bytes */
};

/* A validated copy of one receive WQE. */
struct sroce_rwqe {
	u64		wr_id;
	u32		length;
	u32		num_sge;
	struct rxe_sge	sge[];
};

/* One RDMA Read the responder accepted, kept to answer duplicates. */
struct sroce_rd_res {
	u32		first_psn;
	u32		last_psn;
	u64		va;
	u32		rkey;
	u32		length;
	bool		valid;
	bool		pending;	/* responses still to send */
	u32		next_psn;	/* of the next response to send */
	u32		next_off;	/* its offset in the Read */
};

struct sroce_av {
	bool		ipv6;
	__be32		saddr;
	__be32		daddr;
	struct in6_addr	saddr6;
	struct in6_addr	daddr6;
	u32		flow_label;
	u8		tos;		/* or IPv6 traffic class */
	u8		ttl;		/* or IPv6 hop limit */
	__be16		sport;
};

struct sroce_qp {
	struct ib_qp		ibqp;
	struct sroce_dev	*sdev;
	refcount_t		refs;		/* lookups from the rx path */
	struct completion	released;
	struct work_struct	work;
	spinlock_t		lock;		/* everything below */
	u8			notify;		/* SROCE_NOTIFY_* to call */

	/* Set at create. */
	bool			user;
	bool			sig_all;
	struct sroce_cq		*scq;
	struct sroce_cq		*rcq;
	struct sroce_queue	sq;
	struct sroce_queue	rq;
	u32			sq_max_sge;
	u32			sq_max_inline;
	u32			sq_data_size;	/* bytes after the WQE header */
	u32			rq_max_sge;
	struct sroce_swqe	*swqe;		/* one per SQ slot */
	u8			*swqe_data;
	struct sroce_rwqe	*rwqe;		/* responder's current RQ WQE */

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
	struct rdma_ah_attr	ah_attr;
	struct sroce_av		av;
	struct dst_cache	dst_cache;

	/* Requester. SQ entries [comp_idx, fetch_idx) are copied. */
	u32			fetch_idx;
	u32			req_idx;	/* WQE being sent */
	u32			req_off;	/* its bytes already sent */
	u32			req_psn;	/* next PSN */
	u32			rd_inflight;	/* reads/atomics outstanding */
	u8			retries_left;
	u8			rnr_left;
	bool			rnr_wait;
	bool			sqd_pending;	/* SQ_DRAINED event owed */
	u32			sqd_limit;	/* SQD: first WQE not to start */
	struct timer_list	retrans_timer;
	struct timer_list	rnr_timer;

	/* Completer. comp_idx is also the SQ consumer index. */
	u32			comp_idx;
	u32			acked_psn;	/* last PSN acknowledged */

	/* Responder. */
	u32			epsn;
	u32			msn;
	u8			rx_seq;		/* enum sroce_rx_seq */
	bool			nak_sent;
	bool			rwqe_valid;
	u32			rwqe_off;
	struct sroce_mr		*wr_mr;		/* WRITE in progress */
	u64			wr_va;
	u32			wr_resid;
	u32			wr_len;
	u32			unacked;
	bool			ack_pending;	/* after the read responses */
	struct sroce_rd_res	*rd_res;	/* max_dest_rd_atomic slots */
	u32			rd_res_next;
	int			rd_cur;		/* resource being answered */
};

static inline struct sroce_qp *to_sqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, ibqp);
}

#define SROCE_NOTIFY_SCQ	BIT(0)
#define SROCE_NOTIFY_RCQ	BIT(1)
#define SROCE_NOTIFY_SQ_DRAINED	BIT(2)

void sroce_qp_post_cqe(struct sroce_qp *qp, struct sroce_cq *cq,
		       const struct ib_wc *wc, bool solicited);
void sroce_qp_unlock(struct sroce_qp *qp, unsigned long flags)
	__releases(&qp->lock);
void sroce_qp_check_drained(struct sroce_qp *qp);

struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn);
void sroce_qp_put(struct sroce_qp *qp);

int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);

/* A received packet: parsed headers and where its BTH starts. */
struct sroce_rxpkt {
	struct sroce_pkt	p;
	const u8		*bth;
};

static inline const u8 *sroce_rx_payload(const struct sroce_rxpkt *rx)
{
	return rx->bth + rx->p.payload_off;
}

/* Engines (sroce_req.c, sroce_resp.c, sroce_comp.c); qp->lock held. */
bool sroce_req_run(struct sroce_qp *qp, struct sk_buff_head *out, int budget);
void sroce_resp_rcv(struct sroce_qp *qp, const struct sroce_rxpkt *rx,
		    struct sk_buff_head *out);
bool sroce_resp_read_run(struct sroce_qp *qp, struct sk_buff_head *out,
			 int budget);
void sroce_comp_rcv(struct sroce_qp *qp, const struct sroce_rxpkt *rx,
		    struct sk_buff_head *out);
void sroce_qp_error(struct sroce_qp *qp);
enum ib_wc_opcode sroce_wc_opcode(u32 wr_opcode);
void sroce_req_fail(struct sroce_qp *qp, u32 idx, enum ib_wc_status status);
void sroce_req_arm_timer(struct sroce_qp *qp);
int sroce_sge_copy(struct sroce_qp *qp, const struct rxe_sge *sge, u32 nsge,
		   u32 off, void *buf, u32 len, enum sroce_copy_dir dir);
void sroce_qp_flush(struct sroce_qp *qp);
void sroce_retrans_timer(struct timer_list *t);
void sroce_rnr_timer(struct timer_list *t);

/* Run the requester now if this context may send, else later. */
void sroce_qp_kick(struct sroce_qp *qp);
void sroce_qp_work(struct work_struct *work);

#endif /* SROCE_QP_H */
