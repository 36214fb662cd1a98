// SPDX-License-Identifier: GPL-2.0-only
/*
 * Glue around the engine's completer (sroce_rc_sq.c): hands it ACKs, NAKs
 * and READ responses, copies READ payload where it says, and carries out
 * what every send-side event asks for (sroce_glue_sq_apply()): completions in
 * queue order, the retransmit and RNR timers, the error state with its
 * flush, the SQ_DRAINED event. The engine decides; nothing here looks at
 * a PSN.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce/rc_engine.h"
#include "sroce.h"
#include "sroce_cq.h"
#include "sroce_glue.h"
#include "sroce_mr.h"
#include "sroce_net.h"
#include "sroce_param.h"
#include "sroce_qp.h"
#include "sroce_wqe.h"

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

static void sroce_sq_release(struct sroce_qp *qp)
{
	qp->sq.own = qp->sq_eng.comp & qp->sq.index_mask;
	sroce_queue_set_consumer(&qp->sq, qp->sq.own);
}

/*
 * Carry out a send-side action; @comp_before is the engine's comp before
 * the event. SROCE_RUN_FATAL if the QP must fail, else 0. qp->lock held.
 */
unsigned int sroce_glue_sq_apply(struct sroce_qp *qp, u32 comp_before,
				 const struct sroce_sq_act *act)
{
	struct sroce_sq_eng *e = &qp->sq_eng;
	u32 i;

	for (i = comp_before; i != e->comp; i++) {
		if (qp->sig_all ||
		    (qp->wqe[i & qp->sq.index_mask].flags & SROCE_WQE_SIGNALED))
			sroce_sq_wc(qp, i, IB_WC_SUCCESS);
	}
	if (comp_before != e->comp)
		sroce_sq_release(qp);
	if (act->events)
		sroce_count_events(qp->sdev, act->events);
	if (act->drained)
		qp->notify |= SROCE_NOTIFY_SQ_DRAINED;
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
 * In the error state every WQE not completed and every one still in the
 * ring completes: the failed one with its status, the rest flushed, in
 * queue order. qp->lock held.
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
		sroce_sq_wc(qp, i, e->err_set && i == e->err_idx ?
				   e->err_status : IB_WC_WR_FLUSH_ERR);
	/* Then what is posted but was never taken: straight from the ring */
	posted = (sroce_queue_producer(&qp->sq) - e->comp) & mask;
	for (i = e->fetch - e->comp; i < posted; i++) {
		const struct rxe_send_wqe *w =
			sroce_queue_slot(&qp->sq, e->comp + i);
		struct ib_wc wc = {
			.wr_id = READ_ONCE(w->wr.wr_id),
			.status = IB_WC_WR_FLUSH_ERR,
			.opcode = sroce_wqe_wc_opcode(READ_ONCE(w->wr.opcode)),
			.qp = &qp->ibqp,
			.port_num = SROCE_PORT,
		};

		sroce_qp_post_cqe(qp, qp->scq, &wc, false);
		e->fetch++;
	}
	sroce_sq_flushed(e);
	sroce_sq_release(qp);
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

	sroce_comp_rx(e, &rx->p, &act);
	if (act.place) {
		res = sroce_glue_sq_apply(qp, comp, &act);
		/* failed (a broken invariant too): placed nowhere */
		if (act.error || e->state == SROCE_SQ_ERROR)
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
