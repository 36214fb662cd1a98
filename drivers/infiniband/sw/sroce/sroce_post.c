// SPDX-License-Identifier: GPL-2.0-only
/*
 * Posting work: kernel callers' ib_post_send()/ib_post_recv() write
 * entries in the same ring format the provider uses, and the user
 * doorbell. In the error state what is posted completes flushed.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce.h"
#include "sroce_cq.h"
#include "sroce_param.h"
#include "sroce_qp.h"

/* Kernel callers: turn an ib_send_wr into an SQ entry. qp->lock held. */
static int sroce_post_one_send(struct sroce_qp *qp, const struct ib_send_wr *wr)
{
	u32 prod = qp->sq.buf->producer_index;
	struct rxe_send_wqe *wqe;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > qp->sq_max_sge)
		return -EINVAL;
	if (sroce_qp_is_ud(qp) && (!ud_wr(wr)->ah ||
				   ud_wr(wr)->ah->pd != qp->ibqp.pd ||
				   (wr->opcode != IB_WR_SEND &&
				    wr->opcode != IB_WR_SEND_WITH_IMM)))
		return -EINVAL;
	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		break;
	case IB_WR_SEND_WITH_INV:
		if (qp->ibqp.qp_type != IB_QPT_RC)
			return -EINVAL;
		break;
	case IB_WR_LOCAL_INV:
	case IB_WR_REG_MR:
		/* nothing to send: no data, no SGEs */
		if (sroce_qp_is_ud(qp) || wr->num_sge ||
		    (wr->send_flags & IB_SEND_INLINE) ||
		    (wr->opcode == IB_WR_REG_MR && !reg_wr(wr)->mr))
			return -EINVAL;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		/* refused now rather than failing the QP (or its peer's) */
		/* (and under 8 bytes of SGEs, below) */
		if ((wr->send_flags & IB_SEND_INLINE) ||
		    (atomic_wr(wr)->remote_addr & 7))
			return -EINVAL;
		fallthrough;
	case IB_WR_RDMA_READ:
		if (qp->ibqp.qp_type != IB_QPT_RC)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	wqe = sroce_queue_tail(&qp->sq, prod);
	if (!wqe)
		return -ENOMEM;

	memset(wqe, 0, SROCE_SWQE_HDR);
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.opcode = wr->opcode;
	wqe->wr.send_flags = wr->send_flags;
	if (wr->opcode == IB_WR_SEND_WITH_INV ||
	    wr->opcode == IB_WR_LOCAL_INV)
		wqe->wr.ex.invalidate_rkey = wr->ex.invalidate_rkey;
	else
		wqe->wr.ex.imm_data = wr->ex.imm_data;
	if (wr->opcode == IB_WR_REG_MR) {
		/* the ring is kernel memory: the ib_mr itself */
		wqe->wr.wr.reg.mr = reg_wr(wr)->mr;
		wqe->wr.wr.reg.key = reg_wr(wr)->key;
		wqe->wr.wr.reg.access = reg_wr(wr)->access;
	}
	if (wr->opcode == IB_WR_RDMA_WRITE ||
	    wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM ||
	    wr->opcode == IB_WR_RDMA_READ) {
		wqe->wr.wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.wr.rdma.rkey = rdma_wr(wr)->rkey;
	}
	if (sroce_wr_atomic(wr->opcode)) {
		wqe->wr.wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.wr.atomic.swap = atomic_wr(wr)->swap;
		wqe->wr.wr.atomic.rkey = atomic_wr(wr)->rkey;
	}
	if (sroce_qp_is_ud(qp)) {
		wqe->wr.wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		wqe->wr.wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		wqe->wr.wr.ud.pkey_index = ud_wr(wr)->pkey_index;
		/* The ring is kernel memory: the AV itself, not a number */
		BUILD_BUG_ON(sizeof(struct sroce_av) >
			     sizeof(wqe->wr.wr.ud.av));
		memcpy(&wqe->wr.wr.ud.av, &to_sah(ud_wr(wr)->ah)->av,
		       sizeof(struct sroce_av));
	}
	if (wr->send_flags & IB_SEND_INLINE) {
		u8 *p = wqe->dma.inline_data;
		u32 len = 0;

		for (i = 0; i < wr->num_sge; i++) {
			u32 n = wr->sg_list[i].length;

			/* The room left: a sum could wrap past the limit. */
			if (n > qp->sq_max_inline - len)
				return -EINVAL;
			/* Kernel callers hand kernel virtual addresses. */
			memcpy(p + len, (void *)(uintptr_t)wr->sg_list[i].addr, n);
			len += n;
		}
		wqe->dma.length = len;
	} else {
		u64 total = 0;

		for (i = 0; i < wr->num_sge; i++) {
			total += wr->sg_list[i].length;
			wqe->dma.sge[i].addr = wr->sg_list[i].addr;
			wqe->dma.sge[i].length = wr->sg_list[i].length;
			wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
		}
		/* Refused here rather than failed later with the QP. */
		if (total > SROCE_PORT_MAX_MSG_SZ ||
		    (sroce_wr_atomic(wr->opcode) && total < 8) ||
		    (sroce_qp_is_ud(qp) &&
		     total > ib_mtu_enum_to_int(sroce_active_mtu(qp->sdev))))
			return -EINVAL;
		wqe->dma.num_sge = wr->num_sge;
	}
	sroce_queue_publish(&qp->sq, &prod);
	return 0;
}

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
			return -EINVAL;
		}
		/*
		 * RESET, INIT and RTR cannot send: the verbs say the post
		 * fails at once (as for kernel callers below, and rdma_rxe).
		 * The WQE stays in the ring, which RESET empties.
		 */
		if (READ_ONCE(qp->state) < IB_QPS_RTS)
			return -EINVAL;
		if (sroce_sq_flushes(READ_ONCE(qp->state))) {
			/* What is posted in an error state completes flushed */
			spin_lock_irqsave(&qp->lock, flags);
			if (sroce_sq_flushes(qp->state))
				sroce_sq_flush(qp);
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
		return -EINVAL;
	}
	for (; wr; wr = wr->next) {
		err = sroce_post_one_send(qp, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	if (sroce_sq_flushes(qp->state))
		sroce_sq_flush(qp);
	sroce_qp_unlock(qp, flags);
	sroce_qp_kick(qp);
	return err;
}

/*
 * Kernel callers' receive WRs into ring @q, a QP's RQ or an SRQ, each of
 * at most @max_sge SGEs. The ring's lock is held. Returns 0, or the error
 * with *@bad_wr set to the WR refused.
 */
int sroce_post_recv_ring(struct sroce_queue *q, u32 max_sge,
			 const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr)
{
	int i;

	for (; wr; wr = wr->next) {
		u32 prod = q->buf->producer_index;
		struct rxe_recv_wqe *wqe = sroce_queue_tail(q, prod);

		if (!wqe || wr->num_sge < 0 || wr->num_sge > max_sge) {
			*bad_wr = wr;
			return wqe ? -EINVAL : -ENOMEM;
		}
		memset(wqe, 0, SROCE_RWQE_HDR);
		wqe->wr_id = wr->wr_id;
		wqe->dma.num_sge = wr->num_sge;
		for (i = 0; i < wr->num_sge; i++) {
			wqe->dma.sge[i].addr = wr->sg_list[i].addr;
			wqe->dma.sge[i].length = wr->sg_list[i].length;
			wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
		}
		sroce_queue_publish(q, &prod);
	}
	return 0;
}

int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	unsigned long flags;
	int err;

	if (qp->user || qp->srq) {
		*bad_wr = wr;
		return -EINVAL;		/* user RQs are posted in the ring */
	}
	spin_lock_irqsave(&qp->lock, flags);
	err = sroce_post_recv_ring(&qp->rq, qp->rq_max_sge, wr, bad_wr);
	if (qp->state == IB_QPS_ERR)
		sroce_rq_flush(qp);
	sroce_qp_unlock(qp, flags);
	return err;
}
