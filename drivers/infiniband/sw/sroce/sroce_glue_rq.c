// SPDX-License-Identifier: GPL-2.0-only
/*
 * Glue around the engine's responder (sroce_rc_rq.c): hands it request
 * packets, answers its calls (is there a receive WQE; may the peer use
 * this rkey over this range; carry out this atomic), and carries out
 * what it decides: payload into the receive WQE's buffers or the Write's
 * MR (the MR is looked up again for every packet, so a half-written
 * message pins nothing), receive completions, ACKs and NAKs, READ
 * responses and ATOMIC ACKs.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce/rc_engine.h"
#include "sroce.h"
#include "sroce_cq.h"
#include "sroce_glue.h"
#include "sroce_mr.h"
#include "sroce_mw.h"
#include "sroce_net.h"
#include "sroce_param.h"
#include "sroce_qp.h"
#include "sroce_wqe.h"

static void sroce_resp_ack(struct sroce_qp *qp, struct sk_buff_head *out,
			   const struct sroce_tx_ack *ack)
{
	struct sroce_hdrs h;
	struct sk_buff *skb;
	u8 *payload;

	sroce_tx_ack_hdrs(ack, qp->dest_qpn, SROCE_DEFAULT_PKEY, &h);
	skb = sroce_pkt_new(qp, &h, 0, &payload);
	/* lost if either fails: the requester will time out and resend */
	if (skb && !sroce_pkt_seal(&qp->av, skb))
		__skb_queue_tail(out, skb);
}

/* Responder query: take the next receive WQE (RQ or SRQ) into qp->rwqe. */
static int sroce_resp_take_rwqe(void *ctx, u32 *len)
{
	struct sroce_qp *qp = ctx;

	if (sroce_wqe_take_recv(qp, 0) != SROCE_RECV_TAKEN)
		return -EAGAIN;
	*len = qp->rwqe->length;
	return 0;
}

/* Responder query: may the peer use @rkey for [@va, @va + @len)? */
static bool sroce_resp_rkey_ok(void *ctx, u32 rkey, u64 va, u32 len,
			       u32 access)
{
	struct sroce_qp *qp = ctx;
	struct sroce_mr *mr;

	mr = sroce_rkey_get(qp, rkey, access, va, len);
	if (!mr)
		return false;
	sroce_mr_put(mr);
	return true;
}

/*
 * Every atomic of the module runs under this lock: atomic against each
 * other (IB_ATOMIC_HCA), not against the CPU.  A lock rather than
 * cmpxchg because the 8 bytes need not be aligned in the kernel mapping
 * (an MR's iova may be aligned where its pages are not) and may then
 * straddle two pages.
 */
static DEFINE_SPINLOCK(sroce_atomic_lock);

/*
 * Responder call: execute @op if its rkey allows; the old value in @orig
 * (none for an ATOMIC WRITE, which needs REMOTE_WRITE, not ATOMIC)
 */
static bool sroce_resp_atomic(void *ctx, const struct sroce_atomic_op *op,
			      u64 *orig)
{
	struct sroce_qp *qp = ctx;
	struct sroce_mr *mr;
	u64 val;

	mr = sroce_rkey_get(qp, op->rkey, op->write ? IB_ACCESS_REMOTE_WRITE :
			    IB_ACCESS_REMOTE_ATOMIC, op->va, sizeof(val));
	if (!mr)
		return false;
	spin_lock(&sroce_atomic_lock);
	if (op->write) {
		/* ATOMIC WRITE: the 8 bytes, once, never torn */
		sroce_mr_store64(mr, op->va, op->swap_add);
		spin_unlock(&sroce_atomic_lock);
		sroce_mr_put(mr);
		sroce_qp_count(qp, SROCE_CNT_ATOMICS_EXECUTED);
		return true;
	}
	sroce_mr_copy(mr, op->va, &val, sizeof(val), SROCE_FROM_MR);
	*orig = val;
	if (!op->cmp_swap)
		val += op->swap_add;
	else if (val == op->compare)
		val = op->swap_add;
	if (val != *orig)
		sroce_mr_copy(mr, op->va, &val, sizeof(val), SROCE_TO_MR);
	spin_unlock(&sroce_atomic_lock);
	sroce_mr_put(mr);
	sroce_qp_count(qp, SROCE_CNT_ATOMICS_EXECUTED);
	return true;
}

/* Place the payload as the engine said; false if it could not be. */
static bool sroce_resp_place(struct sroce_qp *qp, const struct sroce_rxpkt *rx,
			     struct sroce_rq_act *act)
{
	struct sroce_rq_eng *e = &qp->rq_eng;
	u32 psn = rx->p.hdr.bth.psn;
	struct sroce_mr *mr;

	switch (act->place) {
	case SROCE_PLACE_RWQE:
		if (!act->len ||
		    !sroce_wqe_sge_copy(qp, qp->rwqe->sge, qp->rwqe->num_sge,
				    act->off, (void *)sroce_rx_payload(rx),
				    act->len, SROCE_TO_MR))
			return true;
		sroce_rq_fail(e, psn, SROCE_NAK_REM_OP, IB_WC_LOC_PROT_ERR,
			      act);
		return false;
	case SROCE_PLACE_MR:
		mr = sroce_rkey_get(qp, act->rkey, IB_ACCESS_REMOTE_WRITE,
				    act->va, act->len);
		if (!mr) {	/* deregistered in the middle of the Write */
			sroce_rq_fail(e, psn, SROCE_NAK_REM_ACCESS,
				      IB_WC_SUCCESS, act);
			return false;
		}
		sroce_mr_copy(mr, act->va, (void *)sroce_rx_payload(rx),
			      act->len, SROCE_TO_MR);
		sroce_mr_put(mr);
		return true;
	default:
		return true;
	}
}

/*
 * Send with Invalidate, its data in place: free the MR or window the IETH
 * names. Only a fast-registration MR of this QP's PD, or a type 2 window
 * bound to this QP; anything else is the requester's error (NAK invalid
 * request), and this receive completes with IB_WC_REM_INV_REQ_ERR.
 */
static void sroce_resp_invalidate(struct sroce_qp *qp,
				  const struct sroce_rxpkt *rx,
				  struct sroce_rq_act *act)
{
	if (!sroce_key_invalidate(qp, act->inv_rkey)) {
		sroce_qp_count(qp, SROCE_CNT_REMOTE_INVS);
		return;
	}
	sroce_qp_count(qp, SROCE_CNT_REMOTE_INV_ERRORS);
	pr_warn_ratelimited("%s: QP %u: Send with Invalidate of key %#x refused\n",
			    dev_name(&qp->sdev->ibdev.dev), qp->ibqp.qp_num,
			    act->inv_rkey);
	sroce_rq_fail(&qp->rq_eng, rx->p.hdr.bth.psn, SROCE_NAK_INVALID_REQ,
		      IB_WC_REM_INV_REQ_ERR, act);
}

static void sroce_resp_wc(struct sroce_qp *qp, const struct sroce_rxpkt *rx,
			  const struct sroce_rq_act *act)
{
	struct ib_wc wc = {
		.wr_id = qp->rwqe->wr_id,
		.status = act->wc_status,
		.opcode = act->wc_rdma_imm ? IB_WC_RECV_RDMA_WITH_IMM :
					     IB_WC_RECV,
		.byte_len = act->wc_byte_len,
		.qp = &qp->ibqp,
		.src_qp = qp->dest_qpn,
		.port_num = SROCE_PORT,
	};

	if (act->wc_status == IB_WC_SUCCESS && act->wc_imm) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = cpu_to_be32(rx->p.hdr.imm);
	}
	if (act->wc_status == IB_WC_SUCCESS && act->wc_inv) {
		wc.wc_flags |= IB_WC_WITH_INVALIDATE;
		wc.ex.invalidate_rkey = act->inv_rkey;
	}
	qp->rwqe_valid = false;
	sroce_qp_post_cqe(qp, qp->rcq, &wc, act->wc_solicited);
}

/*
 * A request packet for this QP. SROCE_RUN_AGAIN if READ responses or
 * ATOMIC ACKs are waiting to be sent; SROCE_RUN_FATAL if the QP must
 * fail. qp->lock held.
 */
unsigned int sroce_glue_resp_rcv(struct sroce_qp *qp,
				 const struct sroce_rxpkt *rx,
				 struct sk_buff_head *out)
{
	const struct sroce_rq_env env = {
		.ctx = qp,
		.take_rwqe = sroce_resp_take_rwqe,
		.rkey_ok = sroce_resp_rkey_ok,
		.atomic = sroce_resp_atomic,
	};
	struct sroce_rq_act act;

	sroce_rq_rx(&qp->rq_eng, &rx->p, &env, &act);
	if (sroce_resp_place(qp, rx, &act) && act.wc_inv)
		sroce_resp_invalidate(qp, rx, &act);
	if (act.complete && qp->rwqe_valid)
		sroce_resp_wc(qp, rx, &act);
	if (act.ack)
		sroce_resp_ack(qp, out, &act.tx);
	if (act.events)
		sroce_count_qp_events(qp, qp->rq_eng.epsn, act.events);
	if (unlikely(!act.error && !sroce_rq_check(&qp->rq_eng))) {
		/* a broken engine invariant (it warned once) fails the QP */
		return SROCE_RUN_FATAL;
	}
	if (act.error) {
		if (act.ack)
			pr_warn_ratelimited("%s: QP %u: NAK %#x for PSN %u\n",
					    dev_name(&qp->sdev->ibdev.dev),
					    qp->ibqp.qp_num, act.tx.syndrome,
					    act.tx.psn);
		else	/* UC: our own receive WQE was bad */
			pr_warn_ratelimited("%s: QP %u: receive failed for PSN %u\n",
					    dev_name(&qp->sdev->ibdev.dev),
					    qp->ibqp.qp_num,
					    rx->p.hdr.bth.psn);
		return SROCE_RUN_FATAL | (act.kick ? SROCE_RUN_AGAIN : 0);
	}
	return act.kick ? SROCE_RUN_AGAIN : 0;
}

/*
 * A READ response (payload copied from the MR) or an ATOMIC ACK, from
 * @rsp. Always a copy: the MR's owner (or another peer with
 * REMOTE_WRITE) may write the memory while it is read, which gives the
 * reader torn data on any HCA; pages attached as fragments would give
 * it a packet whose ICRC fails, again on every retry.
 */
static int sroce_resp_read_build(struct sroce_qp *qp,
				 const struct sroce_tx_rsp *rsp,
				 struct sk_buff_head *out)
{
	struct sroce_hdrs h;
	struct sk_buff *skb;
	struct sroce_mr *mr;
	u8 *payload;

	sroce_tx_rsp_hdrs(rsp, qp->dest_qpn, SROCE_DEFAULT_PKEY, &h);
	skb = sroce_pkt_new(qp, &h, rsp->len, &payload);
	if (!skb)
		return -ENOMEM;	/* lost: the requester asks again */
	if (rsp->len) {
		mr = sroce_rkey_get(qp, rsp->rkey, IB_ACCESS_REMOTE_READ,
				    rsp->va, rsp->len);
		if (!mr) {	/* deregistered under the reader */
			kfree_skb(skb);
			return -EACCES;
		}
		sroce_mr_copy(mr, rsp->va, payload, rsp->len, SROCE_FROM_MR);
		sroce_mr_put(mr);
	}
	if (sroce_pkt_seal(&qp->av, skb))
		return -ENOMEM;
	__skb_queue_tail(out, skb);
	return 0;
}

/*
 * Send pending READ responses and ATOMIC ACKs, up to @budget packets,
 * then an ACK held back behind them. SROCE_RUN_AGAIN if some remain;
 * SROCE_RUN_FATAL if the QP must fail. qp->lock held.
 */
unsigned int sroce_glue_read_run(struct sroce_qp *qp, struct sk_buff_head *out,
				 int budget)
{
	struct sroce_rq_eng *e = &qp->rq_eng;
	struct sroce_tx_rsp rsp;

	while (budget-- > 0 && sroce_rq_next(e, &rsp)) {
		struct sroce_tx_ack nak;

		if (rsp.is_ack) {
			sroce_resp_ack(qp, out, &rsp.ack);
			continue;
		}
		if (sroce_resp_read_build(qp, &rsp, out) != -EACCES)
			continue;
		sroce_rq_read_failed(e, rsp.psn, &nak);
		sroce_qp_count(qp, SROCE_CNT_FATAL_NAKS_SENT);
		sroce_resp_ack(qp, out, &nak);
		return SROCE_RUN_FATAL;
	}
	return e->state == SROCE_RQ_ACTIVE && (e->cur >= 0 || e->ack_owed) ?
	       SROCE_RUN_AGAIN : 0;
}

/* The error state: the held receive WQE and the RQ complete flushed. */
void sroce_glue_rq_flush(struct sroce_qp *qp)
{
	struct ib_wc wc = {
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
		.qp = &qp->ibqp,
		.port_num = SROCE_PORT,
	};
	u32 n;

	sroce_rq_error(&qp->rq_eng);
	if (qp->rwqe_valid) {
		wc.wr_id = qp->rwqe->wr_id;
		sroce_qp_post_cqe(qp, qp->rcq, &wc, false);
		qp->rwqe_valid = false;
	}
	/*
	 * What is posted now, counted once: a process moving its producer
	 * index while we flush must not keep us here.
	 */
	for (n = sroce_queue_count(&qp->rq); n; n--) {
		const struct rxe_recv_wqe *rwqe = sroce_queue_head(&qp->rq);

		wc.wr_id = READ_ONCE(rwqe->wr_id);
		sroce_qp_post_cqe(qp, qp->rcq, &wc, false);
		sroce_queue_pop(&qp->rq);
	}
}
