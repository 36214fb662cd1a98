// SPDX-License-Identifier: GPL-2.0-only
/*
 * Posting work: kernel callers' ib_post_send(), ib_post_recv() and
 * ib_post_srq_recv() write entries in the ring format the provider uses
 * (sroce_wqe.c), and the user doorbell. In the error state what is
 * posted completes flushed.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce.h"
#include "sroce_cq.h"
#include "sroce_glue.h"
#include "sroce_param.h"
#include "sroce_qp.h"
#include "sroce_sched.h"
#include "sroce_srq.h"
#include "sroce_verbs.h"
#include "sroce_wqe.h"

int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	unsigned long flags;
	int err = 0;

	if (qp->user) {
		/* The doorbell: the provider moved the SQ producer index. */
		if (wr) {
			*bad_wr = wr;
			return sroce_refuse(ibqp->device, -EINVAL,
					    "QP %u: post_send with a list: a user QP posts in its ring\n",
					    ibqp->qp_num);
		}
		/*
		 * RESET, INIT and RTR cannot send: the verbs say the post
		 * fails at once (as for kernel callers below, and rdma_rxe).
		 * The WQE stays in the ring, which RESET empties.
		 */
		if (READ_ONCE(qp->state) < IB_QPS_RTS)
			return sroce_refuse(ibqp->device, -EINVAL,
					    "QP %u: post_send before RTS\n",
					    ibqp->qp_num);
		if (sroce_sq_flushes(READ_ONCE(qp->state))) {
			/* What is posted in an error state completes flushed */
			spin_lock_irqsave(&qp->lock, flags);
			if (sroce_sq_flushes(qp->state))
				sroce_glue_sq_flush(qp);
			sroce_qp_unlock(qp, flags);
			return 0;
		}
		sroce_qp_kick(qp);
		return 0;
	}

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state < IB_QPS_RTS) {
		*bad_wr = wr;
		sroce_qp_unlock(qp, flags);
		return sroce_refuse(ibqp->device, -EINVAL,
				    "QP %u: post_send before RTS\n",
				    ibqp->qp_num);
	}
	for (; wr; wr = wr->next) {
		err = sroce_wqe_post_send(qp, wr);
		if (err) {
			*bad_wr = wr;
			ibdev_dbg(ibqp->device,
				  "QP %u: send WR refused (%d): opcode %d, %d SGEs, flags %#x\n",
				  ibqp->qp_num, err, wr->opcode, wr->num_sge,
				  wr->send_flags);
			break;
		}
	}
	if (sroce_sq_flushes(qp->state))
		sroce_glue_sq_flush(qp);
	sroce_qp_unlock(qp, flags);
	sroce_qp_kick(qp);
	return err;
}

int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	unsigned long flags;
	int err;

	if (qp->user || qp->srq) {
		*bad_wr = wr;
		/* user RQs are posted in the ring */
		return sroce_refuse(ibqp->device, -EINVAL,
				    "QP %u: post_recv to a %s\n", ibqp->qp_num,
				    qp->srq ? "QP with an SRQ" : "user QP");
	}
	spin_lock_irqsave(&qp->lock, flags);
	err = sroce_wqe_post_recv(&qp->rq, qp->rq_max_sge, wr, bad_wr);
	if (err)
		ibdev_dbg(ibqp->device,
			  "QP %u: receive WR refused (%d): %d SGEs of at most %u, or the queue is full\n",
			  ibqp->qp_num, err, (*bad_wr)->num_sge, qp->rq_max_sge);
	if (qp->state == IB_QPS_ERR)
		sroce_glue_rq_flush(qp);
	sroce_qp_unlock(qp, flags);
	return err;
}

/* Kernel SRQs: user SRQs are posted in the ring. Any context. */
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	int err;

	if (srq->user) {
		*bad_wr = wr;
		return sroce_refuse(ibsrq->device, -EINVAL,
				    "post_srq_recv to a user SRQ: it posts in its ring\n");
	}
	spin_lock_irqsave(&srq->lock, flags);
	err = sroce_wqe_post_recv(&srq->q, srq->max_sge, wr, bad_wr);
	if (err)
		ibdev_dbg(ibsrq->device,
			  "SRQ: receive WR refused (%d): %d SGEs of at most %u, or the queue is full\n",
			  err, (*bad_wr)->num_sge, srq->max_sge);
	spin_unlock_irqrestore(&srq->lock, flags);
	return err;
}
