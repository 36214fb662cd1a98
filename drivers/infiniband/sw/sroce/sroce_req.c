// SPDX-License-Identifier: GPL-2.0-only
/*
 * The requester: turns send queue entries into request packets.
 *
 * Glue around the engine's requester (sroce_rc_sq.c): each entry is
 * copied out of the (possibly user-mapped) ring once, when the requester
 * first reaches it, and validated on the copy (sroce_wqe_fetch_rc());
 * from then on only the copy is used, for the first transmission and
 * every retransmission.
 * The engine decides what each packet is (opcode, PSN, which bytes of the
 * WQE); this file builds it: headers, payload copied from the WQE's
 * SGEs (lkeys checked at use) or its inline bytes.
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

/*
 * Take the next posted WQE into the engine. False when none is posted.
 * A WQE that fails validation is taken too, and fails the QP.
 */
static bool sroce_req_take(struct sroce_qp *qp, unsigned int *res)
{
	struct sroce_sq_eng *e = &qp->sq_eng;
	u32 mask = qp->sq.index_mask;
	u32 prod = sroce_queue_producer(&qp->sq);
	enum ib_wc_status st;
	u32 idx = e->fetch;

	/*
	 * Only what the producer index says is posted beyond the entries we
	 * hold: a process moving it backwards must not make us wrap onto
	 * WQEs still in flight.
	 */
	if (!sroce_sq_room(e) ||
	    e->fetch - e->comp >= ((prod - e->comp) & mask))
		return false;
	st = sroce_wqe_fetch_rc(qp, idx);
	if (st != IB_WC_SUCCESS) {
		/* only failed: the engine sees an empty Send, nothing else */
		struct sroce_wqe *w = &qp->wqe[idx & mask];

		w->kind = SROCE_WR_SEND;
		w->length = 0;
	}
	sroce_sq_push(e);
	if (st != IB_WC_SUCCESS) {
		struct sroce_sq_act act = { .error = true };

		sroce_sq_fail(e, idx, st);
		*res = sroce_glue_sq_apply(qp, e->comp, &act);
		return false;
	}
	return true;
}

/* Build the request packet @tx the engine decided on. */
static int sroce_req_build(struct sroce_qp *qp, const struct sroce_tx_req *tx,
			   struct sk_buff_head *out)
{
	const struct sroce_swqe *w = &qp->swqe[tx->idx & qp->sq.index_mask];
	struct sroce_hdrs h;
	struct sk_buff *skb;
	u8 *payload;

	sroce_tx_req_hdrs(tx, qp->dest_qpn, SROCE_DEFAULT_PKEY,
			  be32_to_cpu(w->imm), w->inv_rkey, &h);
	skb = sroce_pkt_new(qp, &h, tx->len, &payload);
	if (!skb)
		return -ENOMEM;	/* lost like on the wire: resent later */
	if (tx->awrite) {
		memcpy(payload, &tx->swap_add, 8);	/* as the WQE had it */
	} else if (tx->len) {
		if (w->inlined) {
			memcpy(payload, w->data + tx->off, tx->len);
		} else if (sroce_wqe_sge_copy(qp, w->data, w->num_sge, tx->off,
					  payload, tx->len, SROCE_FROM_MR)) {
			kfree_skb(skb);
			return -EACCES;
		}
	}
	if (tx->retransmit)
		sroce_count(qp->sdev, SROCE_CNT_RETRANSMITS);
	sroce_pkt_seal(&qp->av, skb);
	__skb_queue_tail(out, skb);
	return 0;
}

/*
 * Carry out local WQE @idx (REG_MR, LOCAL_INV, BIND_MW) on the key
 * table; an ib_wc_status. A key the QP's PD does not own, a stale key
 * byte, an MR not free for REG_MR: IB_WC_LOC_QP_OP_ERR, as rdma_rxe; a
 * bind refused: IB_WC_MW_BIND_ERR.
 */
static u8 sroce_req_local(struct sroce_qp *qp, u32 idx)
{
	const struct sroce_swqe *w = &qp->swqe[idx & qp->sq.index_mask];
	int err;

	if (w->opcode == IB_WR_BIND_MW)
		return sroce_mw_bind(qp, w);
	if (w->opcode == IB_WR_REG_MR)
		err = sroce_mr_fast_reg(qp->sdev, qp->ibqp.pd, w->reg_mr,
					w->reg_key, w->reg_access);
	else
		err = sroce_key_invalidate(qp, w->inv_rkey);
	if (err) {
		sroce_count(qp->sdev, SROCE_CNT_LOCAL_OP_ERRORS);
		pr_warn_ratelimited("%s: QP %u: %s of key %#x refused\n",
				    dev_name(&qp->sdev->ibdev.dev),
				    qp->ibqp.qp_num,
				    w->opcode == IB_WR_REG_MR ? "REG_MR" :
								"LOCAL_INV",
				    w->opcode == IB_WR_REG_MR ? w->reg_key :
								w->inv_rkey);
		return IB_WC_LOC_QP_OP_ERR;
	}
	sroce_count(qp->sdev, w->opcode == IB_WR_REG_MR ? SROCE_CNT_FAST_REGS :
							  SROCE_CNT_LOCAL_INVS);
	return IB_WC_SUCCESS;
}

/*
 * Send up to @budget packets. SROCE_RUN_AGAIN if it stopped on the
 * budget with more to send (the caller reschedules), 0 when idle or
 * blocked (window, RNR wait): an ACK or a timer restarts it then;
 * SROCE_RUN_FATAL if a WQE failed the QP. qp->lock held.
 */
unsigned int sroce_glue_req_run(struct sroce_qp *qp, struct sk_buff_head *out,
				int budget)
{
	struct sroce_sq_eng *e = &qp->sq_eng;
	unsigned int res;

	while (budget > 0) {
		struct sroce_sq_act act;
		struct sroce_tx_req tx;
		u32 comp = e->comp;

		switch (sroce_req_next(e, &tx, &act)) {
		case SROCE_REQ_IDLE:
			return 0;
		case SROCE_REQ_FETCH:
			res = 0;
			if (!sroce_req_take(qp, &res))
				return res;
			continue;
		case SROCE_REQ_LOCAL:
			sroce_sq_local_done(e, tx.idx, sroce_req_local(qp, tx.idx),
					    &act);
			res = sroce_glue_sq_apply(qp, comp, &act);
			if (act.error || res)
				return res;
			budget--;
			continue;
		case SROCE_REQ_SEND:
			break;
		}
		budget--;
		if (sroce_req_build(qp, &tx, out) == -EACCES) {
			sroce_sq_fail(e, tx.idx, IB_WC_LOC_PROT_ERR);
			act.error = true;
		}
		res = sroce_glue_sq_apply(qp, comp, &act);
		if (act.error || res)
			return res;
	}
	return SROCE_RUN_AGAIN;
}
