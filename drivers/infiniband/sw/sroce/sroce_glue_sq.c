// SPDX-License-Identifier: GPL-2.0-only
/*
 * Engine glue of the RC send queue (the core's sroce_rc_sq.c,
 * sroce_rc_req.c, sroce_rc_comp.c, sroce_rc_recover.c), both its halves.
 *
 * The requester turns send queue entries into request packets. Each
 * entry is copied out of the (possibly user-mapped) ring once, when the
 * requester first reaches it, and validated on the copy
 * (sroce_wqe_fetch_rc()); from then on only the copy is used, for the
 * first transmission and every retransmission. The engine decides what
 * each packet is (opcode, PSN, which bytes of the WQE); this file builds
 * it: headers, payload copied from the WQE's SGEs (lkeys checked at use)
 * or its inline bytes. Local WQEs (REG_MR, LOCAL_INV, BIND_MW) are carried
 * out here, on the key tables.
 *
 * The completer hands the engine ACKs, NAKs and READ responses, copies
 * READ payload where it says, and carries out what every send-side event
 * asks for (sroce_glue_sq_apply()): completions in queue order, the
 * retransmit and RNR timers, the SQ_DRAINED event; a fatal event is
 * reported to the caller (SROCE_RUN_FATAL), which fails the QP, whose
 * flush (sroce_glue_sq_flush()) is here too. The engine decides; nothing
 * here looks at a PSN.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce/rc_engine.h"
#include "sroce.h"
#include "sroce_cc.h"
#include "sroce_cq.h"
#include "sroce_glue.h"
#include "sroce_mr.h"
#include "sroce_mw.h"
#include "sroce_net.h"
#include "sroce_param.h"
#include "sroce_qp.h"
#include "sroce_wqe.h"

/* ---- Requester ---- */

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
	 * hold, completed or not (sroce_sq_report()): a process moving it
	 * backwards must not make us wrap onto WQEs still in flight, or
	 * acknowledged but not yet reported.
	 */
	if (!sroce_sq_room(e) ||
	    e->fetch - qp->sq_done >= ((prod - qp->sq_done) & mask))
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

/*
 * The request packet @tx with its payload as page fragments of the
 * WQE's user MRs, holding the WQE's ubuf_info (sroce_tx_zc_attach()).
 * NULL where it cannot be: *@err is 0 when the payload may be copied
 * instead, -ENOMEM, or -EACCES for an lkey that fails. A payload of
 * fewer than SROCE_ZCOPY_PER_PAGE bytes per page it would pin is
 * copied, and so is one whose pages are over the owner's locked memory
 * limit.
 */
static struct sk_buff *sroce_req_build_zcopy(struct sroce_qp *qp,
					     const struct sroce_tx_req *tx,
					     const struct sroce_swqe *w,
					     struct sroce_hdrs *h, int *err)
{
	struct sk_buff *skb = sroce_pkt_new(qp, h, tx->len, NULL);
	u32 pages;

	if (!skb) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = sroce_wqe_sge_frags(qp, w->data, w->num_sge, tx->off, tx->len,
				   skb);
	pages = skb_shinfo(skb)->nr_frags;
	if (!*err && tx->len >= pages * SROCE_ZCOPY_PER_PAGE) {
		if (sroce_tx_zc_attach(qp->tx, tx->idx, skb, pages))
			return skb;
		sroce_qp_count(qp, SROCE_CNT_TX_ZCOPY_OVER_LIMIT);
	}
	kfree_skb(skb);
	*err = !*err || *err == -EOPNOTSUPP || *err == -EMSGSIZE ? 0 : -EACCES;
	return NULL;
}

/* Copy @tx's payload into @payload: -EACCES for an lkey that fails. */
static int sroce_req_copy(struct sroce_qp *qp, const struct sroce_tx_req *tx,
			  const struct sroce_swqe *w, u8 *payload)
{
	if (tx->awrite)
		memcpy(payload, &tx->swap_add, 8);	/* as the WQE had it */
	else if (w->inlined)
		memcpy(payload, w->data + tx->off, tx->len);
	else if (tx->len &&
		 sroce_wqe_sge_copy(qp, w->data, w->num_sge, tx->off, payload,
				    tx->len, SROCE_FROM_MR))
		return -EACCES;
	return 0;
}

/* Build the request packet @tx the engine decided on. */
static int sroce_req_build(struct sroce_qp *qp, const struct sroce_tx_req *tx,
			   struct sk_buff_head *out)
{
	const struct sroce_swqe *w = &qp->swqe[tx->idx & qp->sq.index_mask];
	struct sroce_hdrs h;
	struct sk_buff *skb = NULL;
	u8 *payload;
	int err;

	sroce_tx_req_hdrs(tx, qp->dest_qpn, SROCE_DEFAULT_PKEY,
			  be32_to_cpu(w->imm), w->inv_rkey, &h);
	if (!tx->awrite && !w->inlined && sroce_pkt_zcopy(qp, tx->len)) {
		skb = sroce_req_build_zcopy(qp, tx, w, &h, &err);
		if (err)
			return err;	/* -ENOMEM: lost, resent later */
	}
	if (!skb) {
		skb = sroce_pkt_new(qp, &h, tx->len, &payload);
		if (!skb)
			return -ENOMEM;	/* lost like on the wire: resent later */
		err = sroce_req_copy(qp, tx, w, payload);
		if (err) {
			kfree_skb(skb);
			return err;
		}
	}
	if (tx->retransmit)
		sroce_qp_count(qp, SROCE_CNT_RETRANSMITS);
	if (sroce_pkt_seal(&qp->av, skb))
		return -ENOMEM;
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
		sroce_qp_count(qp, SROCE_CNT_LOCAL_OP_ERRORS);
		pr_warn_ratelimited("%s: QP %u: %s of key %#x refused\n",
				    dev_name(&qp->sdev->ibdev.dev),
				    qp->ibqp.qp_num,
				    w->opcode == IB_WR_REG_MR ? "REG_MR" :
								"LOCAL_INV",
				    w->opcode == IB_WR_REG_MR ? w->reg_key :
								w->inv_rkey);
		return IB_WC_LOC_QP_OP_ERR;
	}
	sroce_qp_count(qp, w->opcode == IB_WR_REG_MR ? SROCE_CNT_FAST_REGS :
							  SROCE_CNT_LOCAL_INVS);
	return IB_WC_SUCCESS;
}

/*
 * Send up to @budget packets. SROCE_RUN_AGAIN if it stopped on the
 * budget with more to send (the caller reschedules), 0 when idle or
 * blocked (window, RNR wait, the rate): an ACK or a timer restarts it then;
 * SROCE_RUN_FATAL if a WQE failed the QP. qp->lock held.
 */
unsigned int sroce_glue_req_run(struct sroce_qp *qp, struct sk_buff_head *out,
				int budget)
{
	struct sroce_sq_eng *e = &qp->sq_eng;
	unsigned int res;

	sroce_sq_clock(e, ktime_get_ns());	/* the round trip starts */
	sroce_cc_budget_grant(qp);
	while (budget > 0) {
		struct sroce_sq_act act;
		struct sroce_tx_req tx;
		u32 comp = e->comp;

		switch (sroce_req_next(e, &tx, &act)) {
		case SROCE_REQ_IDLE:
			return 0;
		case SROCE_REQ_BUDGET:
			/* the device's QPs hold it: freed budget runs it */
			sroce_qp_count(qp, SROCE_CNT_TX_BUDGET_HELD);
			sroce_cc_budget_hold(qp);
			return 0;
		case SROCE_REQ_PACED:
			/* the QP's rate: the pace timer runs it again */
			sroce_qp_count(qp, SROCE_CNT_TX_PACED);
			hrtimer_start(&qp->pace_timer,
				      ns_to_ktime(sroce_sq_pace_at(e)),
				      HRTIMER_MODE_ABS_SOFT);
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

/* ---- Completer ---- */

static void sroce_sq_wc(struct sroce_qp *qp, u32 idx, enum ib_wc_status st)
{
	const struct sroce_wqe *w = &qp->wqe[idx & qp->sq.index_mask];
	const struct sroce_swqe *sw = &qp->swqe[idx & qp->sq.index_mask];
	struct ib_wc wc = {
		.wr_id = sw->wr_id,
		.status = st,
		.opcode = sroce_wqe_wc_opcode(sw->opcode),
		.byte_len = st == IB_WC_SUCCESS ? w->length : 0,
		.qp = &qp->ibqp,
		.port_num = SROCE_PORT,
	};

	sroce_qp_post_cqe(qp, qp->scq, &wc, false);
}

/*
 * Report the WQEs the engine completed, [sq_done, comp), in queue order,
 * and give their slots back to the ring: each only once no zero-copy
 * packet reads its buffers any more, however early the peer acknowledged
 * it (the verbs promise the application its buffers back at completion).
 * One still read stops the walk; the packet that lets go of it last
 * wakes the QP (sroce_qp_work()), which calls this again. Flushed WQEs
 * wait their turn the same way. qp->lock held.
 */
static void sroce_sq_report(struct sroce_qp *qp)
{
	u32 mask = qp->sq.index_mask;
	u32 done = qp->sq_done;

	/* the engine never completes what was not taken after sq_done */
	if (WARN_ON_ONCE(qp->sq_eng.comp - done > mask))
		return;
	while (done != qp->sq_eng.comp && !sroce_tx_zc_busy(qp->tx, done)) {
		u8 st = qp->swqe[done & mask].status;

		if (st != IB_WC_SUCCESS || qp->sig_all ||
		    (qp->wqe[done & mask].flags & SROCE_WQE_SIGNALED))
			sroce_sq_wc(qp, done, st);
		done++;
	}
	if (done != qp->sq_done) {
		qp->sq_done = done;
		qp->sq.own = done & mask;
		sroce_queue_set_consumer(&qp->sq, qp->sq.own);
	}
	/* SQ_DRAINED says the completions are there: raise it after them */
	if (qp->sq_drained_owed && done == qp->sq_eng.comp) {
		qp->sq_drained_owed = false;
		qp->notify |= SROCE_NOTIFY_SQ_DRAINED;
	}
}

/* The QP was woken: report what its zero-copy packets held. qp->lock held. */
void sroce_glue_sq_reap(struct sroce_qp *qp)
{
	if (!sroce_qp_is_ud(qp))
		sroce_sq_report(qp);
}

/*
 * The engine says the SQ is drained (SQD): raise IB_EVENT_SQ_DRAINED
 * once every completion before it is reported. qp->lock held.
 */
void sroce_glue_sq_drained(struct sroce_qp *qp)
{
	qp->sq_drained_owed = true;
	if (sroce_qp_is_ud(qp)) {
		qp->sq_drained_owed = false;
		qp->notify |= SROCE_NOTIFY_SQ_DRAINED;
		return;
	}
	sroce_sq_report(qp);
}

static unsigned int sroce_sq_act_apply(struct sroce_qp *qp, u32 comp_before,
				       const struct sroce_sq_act *act)
{
	struct sroce_sq_eng *e = &qp->sq_eng;
	u32 i;

	if (comp_before != e->comp) {
		for (i = comp_before; i != e->comp; i++)
			qp->swqe[i & qp->sq.index_mask].status = IB_WC_SUCCESS;
		sroce_sq_report(qp);
	}
	if (act->events)
		sroce_count_qp_events(qp, e->una_psn, act->events);
	if (act->drained)
		sroce_glue_sq_drained(qp);
	/* A broken engine invariant (it warned once) fails the QP */
	if (unlikely(!act->error && (e->state == SROCE_SQ_RTS ||
				     e->state == SROCE_SQ_DRAIN) &&
		     !sroce_sq_check(e))) {
		sroce_sq_fail(e, e->comp, IB_WC_LOC_QP_OP_ERR);
		return SROCE_RUN_FATAL;
	}
	if (act->error) {
		if (e->err_set && e->err_status != IB_WC_WR_FLUSH_ERR)
			pr_warn_ratelimited("%s: QP %u: work request failed with status %d\n",
					    dev_name(&qp->sdev->ibdev.dev),
					    qp->ibqp.qp_num, e->err_status);
		return SROCE_RUN_FATAL;
	}
	switch (act->timer) {
	case SROCE_TIMER_ARM:
		mod_timer(&qp->retrans_timer,
			  jiffies + nsecs_to_jiffies(act->timer_ns) + 1);
		break;
	case SROCE_TIMER_ARM_IF_IDLE:
		if (!timer_pending(&qp->retrans_timer))
			mod_timer(&qp->retrans_timer,
				  jiffies + nsecs_to_jiffies(act->timer_ns) + 1);
		break;
	case SROCE_TIMER_STOP:
		del_timer(&qp->retrans_timer);
		break;
	case SROCE_TIMER_RNR:
		del_timer(&qp->retrans_timer);
		mod_timer(&qp->rnr_timer,
			  jiffies + nsecs_to_jiffies(act->timer_ns) + 1);
		break;
	default:
		break;
	}
	return 0;
}

/*
 * Carry out a send-side action; @comp_before is the engine's comp before
 * the event. Then the device's budget is charged what the QP has in
 * flight now. SROCE_RUN_FATAL if the QP must fail, else 0. qp->lock held.
 */
unsigned int sroce_glue_sq_apply(struct sroce_qp *qp, u32 comp_before,
				 const struct sroce_sq_act *act)
{
	unsigned int res = sroce_sq_act_apply(qp, comp_before, act);

	sroce_cc_budget_settle(qp);
	return res;
}

/*
 * In the error state every WQE not completed and every one still in the
 * ring completes: the failed one with its status, the rest flushed, in
 * queue order, after those completed before (sroce_sq_report()). Those
 * never taken are read from the ring once, into their slots. qp->lock
 * held.
 */
void sroce_glue_sq_flush(struct sroce_qp *qp)
{
	struct sroce_sq_eng *e = &qp->sq_eng;
	u32 mask = qp->sq.index_mask;
	u32 posted, i;

	if (sroce_qp_is_ud(qp)) {
		sroce_glue_ud_flush(qp);
		return;
	}
	del_timer(&qp->retrans_timer);
	del_timer(&qp->rnr_timer);
	for (i = e->comp; i != e->fetch; i++)
		qp->swqe[i & mask].status =
			e->err_set && i == e->err_idx ? e->err_status :
							IB_WC_WR_FLUSH_ERR;
	/* Then what is posted but was never taken: straight from the ring */
	posted = (sroce_queue_producer(&qp->sq) - qp->sq_done) & mask;
	for (i = e->fetch - qp->sq_done; i < posted; i++) {
		const struct rxe_send_wqe *w =
			sroce_queue_slot(&qp->sq, qp->sq_done + i);
		struct sroce_swqe *sw = &qp->swqe[(qp->sq_done + i) & mask];

		sw->wr_id = READ_ONCE(w->wr.wr_id);
		sw->opcode = READ_ONCE(w->wr.opcode);
		sw->status = IB_WC_WR_FLUSH_ERR;
		e->fetch++;
	}
	sroce_sq_flushed(e);
	sroce_sq_report(qp);
	sroce_cc_budget_settle(qp);	/* nothing in flight any more */
}

/*
 * Copy a READ response's payload into the READ's local buffers, or an
 * atomic's original value into the atomic's (an ATOMIC WRITE has none).
 */
static bool sroce_comp_place(struct sroce_qp *qp, const struct sroce_rxpkt *rx,
			     const struct sroce_sq_act *act)
{
	const struct sroce_swqe *sw = &qp->swqe[act->place_idx &
						 qp->sq.index_mask];
	u64 orig = act->atomic_orig;

	if (act->awrite)
		return true;	/* answered: nothing comes back */
	if (act->atomic)
		return !sroce_wqe_sge_copy(qp, sw->data, sw->num_sge, 0, &orig,
				       sizeof(orig), SROCE_TO_MR);
	if (!act->place_len)
		return true;
	return !sroce_wqe_sge_copy(qp, sw->data, sw->num_sge, act->place_off,
			       (void *)sroce_rx_payload(rx), act->place_len,
			       SROCE_TO_MR);
}

/*
 * An ACK, NAK, READ response or ATOMIC ACK for this QP. SROCE_RUN_AGAIN
 * if the requester may have packets to send; SROCE_RUN_FATAL if the QP
 * must fail. qp->lock held.
 */
unsigned int sroce_glue_comp_rcv(struct sroce_qp *qp,
				 const struct sroce_rxpkt *rx)
{
	struct sroce_sq_eng *e = &qp->sq_eng;
	struct sroce_sq_act act, placed;
	u32 comp = e->comp;
	bool kick = false;
	unsigned int res;

	sroce_sq_clock(e, ktime_get_ns());	/* ... and ends */
	sroce_comp_rx(e, &rx->p, &act);
	if (act.place) {
		res = sroce_glue_sq_apply(qp, comp, &act);
		/* failed (a broken invariant too): placed nowhere */
		if (res || act.error || e->state == SROCE_SQ_ERROR)
			return res;
		kick = act.kick;
		comp = e->comp;
		sroce_comp_placed(e, &act, sroce_comp_place(qp, rx, &act),
				  &placed);
		act = placed;
	}
	res = sroce_glue_sq_apply(qp, comp, &act);
	return res | (kick || act.kick ? SROCE_RUN_AGAIN : 0);
}
