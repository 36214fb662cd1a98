// SPDX-License-Identifier: GPL-2.0-only
/*
 * Scheduling: where the engines run. The requester and READ responses run
 * in the caller's context when it may send (sroce_qp_kick()), else on
 * the workqueue; the retransmit and RNR timers hand their events to the
 * engine, the pace timer runs a requester its rate held; a fatal event
 * the engine glue reports (SROCE_RUN_FATAL) moves the QP to the error
 * state here, with its flush (sroce_qp_fail());
 * completion handlers and QP events run once qp->lock is dropped
 * (sroce_qp_unlock()). Packets leave in the order they were built, one
 * context at a time (sroce_qp_queue()).
 *
 * Calls run one way: entry points (verbs, posting, receive) -> here ->
 * engine glue (sroce_glue_sq.c, sroce_glue_rq.c, sroce_glue_ud.c)
 * -> wire, work-queue formats, objects -> the core. The glue reports,
 * it never calls up. The one way back is the consumer's: a completion
 * handler or event handler called from sroce_qp_unlock() may post to
 * the QP, which enters at the top again (Documentation/design.rst).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce.h"
#include "sroce_cq.h"
#include "sroce_glue.h"
#include "sroce_net.h"
#include "sroce_qp.h"
#include "sroce_sched.h"
#include "sroce_trace.h"

#define SROCE_RUN_BATCH	64

/*
 * To the error state, and flush: every outstanding and newly posted WQE
 * completes with a flush error, which ib_drain_qp() and friends rely on.
 * A QP on an SRQ takes no more of its WQEs: IB_EVENT_QP_LAST_WQE_REACHED
 * tells its owner. Called by modify_qp, and by every caller of the engine
 * glue that reports SROCE_RUN_FATAL, before it drops qp->lock. qp->lock
 * held.
 */
void sroce_qp_fail(struct sroce_qp *qp)
{
	if (qp->srq && !qp->last_wqe_sent) {
		qp->last_wqe_sent = true;
		qp->notify |= SROCE_NOTIFY_LAST_WQE;
	}
	if (qp->state != IB_QPS_ERR)
		trace_sroce_qp_state(qp->ibqp.device, qp->ibqp.qp_num,
				     qp->state, IB_QPS_ERR);
	WRITE_ONCE(qp->state, IB_QPS_ERR);
	if (qp->sq_eng.state != SROCE_SQ_ERROR)
		sroce_sq_fail(&qp->sq_eng, qp->sq_eng.comp,
			      IB_WC_WR_FLUSH_ERR);
	sroce_glue_sq_flush(qp);
	sroce_glue_rq_flush(qp);
}

/*
 * Drop qp->lock, then call the completion handlers the engines asked
 * for while they held it: a handler may post to this QP.
 */
void sroce_qp_unlock(struct sroce_qp *qp, unsigned long flags)
	__releases(&qp->lock)
{
	u8 notify = qp->notify;

	qp->notify = 0;
	spin_unlock_irqrestore(&qp->lock, flags);
	if (notify & SROCE_NOTIFY_SCQ)
		sroce_cq_notify(qp->scq);
	if (notify & SROCE_NOTIFY_RCQ)
		sroce_cq_notify(qp->rcq);
	if ((notify & SROCE_NOTIFY_SQ_DRAINED) && qp->ibqp.event_handler) {
		struct ib_event ev = {
			.device = qp->ibqp.device,
			.element.qp = &qp->ibqp,
			.event = IB_EVENT_SQ_DRAINED,
		};

		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
	if ((notify & SROCE_NOTIFY_LAST_WQE) && qp->ibqp.event_handler) {
		struct ib_event ev = {
			.device = qp->ibqp.device,
			.element.qp = &qp->ibqp,
			.event = IB_EVENT_QP_LAST_WQE_REACHED,
		};

		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
	if ((notify & SROCE_NOTIFY_SRQ_LIMIT) &&
	    qp->srq->ibsrq.event_handler) {
		struct ib_event ev = {
			.device = qp->ibqp.device,
			.element.srq = &qp->srq->ibsrq,
			.event = IB_EVENT_SRQ_LIMIT_REACHED,
		};

		qp->srq->ibsrq.event_handler(&ev, qp->srq->ibsrq.srq_context);
	}
}

/*
 * Queue what the engines built, in the order they built it: packets are
 * built under qp->lock but sent without it, and the contexts that run a
 * QP's engines (a posting task, the receive softirq on any CPU, the
 * workqueue, the timers) would otherwise put a later batch on the wire
 * before an earlier one, whenever one runs between another's unlock and
 * its send. The responder NAKs the PSN gap that makes, and the requester
 * sends the window again. So every batch joins qp->txq under the lock,
 * and the context that finds nobody sending becomes the sender: it sends
 * qp->txq until it is empty (sroce_qp_xmit()), batches the others queue
 * meanwhile included, and they return at once. @paced packets (the
 * requester's and READ responses) count in qp->tx->inflight from here
 * until the stack frees them; ACKs and other responses are not paced:
 * they are one per request packet or fewer (sroce_tx.c).
 *
 * qp->lock held. True if the caller is the sender: it must call
 * sroce_qp_xmit() once it has dropped the lock.
 */
bool sroce_qp_queue(struct sroce_qp *qp, struct sk_buff_head *out, bool paced)
{
	struct sk_buff *skb;

	if (skb_queue_empty(out))
		return false;
	if (paced)
		skb_queue_walk(out, skb)
			sroce_tx_paced(qp->tx, skb);
	skb_queue_splice_tail_init(out, &qp->txq);
	if (qp->tx_busy)
		return false;
	qp->tx_busy = true;
	return true;
}

/* The sender's part (see sroce_qp_queue()): qp->lock not held. */
void sroce_qp_xmit(struct sroce_qp *qp)
{
	struct sk_buff_head out;
	unsigned long flags;

	__skb_queue_head_init(&out);
	spin_lock_irqsave(&qp->lock, flags);
	while (!skb_queue_empty(&qp->txq)) {
		skb_queue_splice_tail_init(&qp->txq, &out);
		spin_unlock_irqrestore(&qp->lock, flags);
		sroce_xmit(qp, &out);
		spin_lock_irqsave(&qp->lock, flags);
	}
	qp->tx_busy = false;
	spin_unlock_irqrestore(&qp->lock, flags);
}

/*
 * How many packets @qp may hand the stack now (see SROCE_TX_HIGH). At
 * none, the QP is marked as waiting (a fully ordered test_and_set_bit())
 * before the count is read again, so that the destructor that brings it
 * down to SROCE_TX_LOW sees the mark and wakes it.
 */
static int sroce_qp_tx_room(struct sroce_qp *qp)
{
	struct sroce_tx_ctx *ctx = qp->tx;
	int room = SROCE_TX_HIGH - atomic_read(&ctx->inflight);

	if (room > 0)
		return room;
	if (!test_and_set_bit(SROCE_TX_THROTTLED, &ctx->flags))
		sroce_qp_count(qp, SROCE_CNT_TX_THROTTLED);
	return SROCE_TX_HIGH - atomic_read(&ctx->inflight);
}

/*
 * Run the engines that send: requester and pending read responses, as
 * much as the QP's room in the stack allows. Work left over is picked up
 * by the work item, or by the destructor of a packet when there is no
 * room.
 */
static void sroce_qp_run(struct sroce_qp *qp)
{
	struct sk_buff_head out;
	unsigned int res, rd;
	unsigned long flags;
	bool send;
	int room;

	room = sroce_qp_tx_room(qp);
	if (room <= 0)
		return;
	__skb_queue_head_init(&out);
	spin_lock_irqsave(&qp->lock, flags);
	if (sroce_qp_is_ud(qp)) {
		res = sroce_glue_ud_run(qp, &out, min(room, SROCE_RUN_BATCH));
	} else {
		res = sroce_glue_req_run(qp, &out, min(room, SROCE_RUN_BATCH));
		if (res & SROCE_RUN_FATAL)
			sroce_qp_fail(qp);
		room -= skb_queue_len(&out);
		rd = sroce_glue_read_run(qp, &out,
					 clamp(room, 0, SROCE_RUN_BATCH));
		if (rd & SROCE_RUN_FATAL)
			sroce_qp_fail(qp);
		res |= rd;
	}
	send = sroce_qp_queue(qp, &out, true);
	sroce_qp_unlock(qp, flags);
	if (send)
		sroce_qp_xmit(qp);
	if ((res & SROCE_RUN_AGAIN) && sroce_qp_tx_room(qp) > 0)
		queue_work(sroce_wq, &qp->work);
}

/*
 * The workqueue's run of a QP: woken by a packet that made room, or by
 * the last zero-copy packet of a WQE whose completion waited for it.
 */
void sroce_qp_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, work);
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	sroce_glue_sq_reap(qp);
	sroce_qp_unlock(qp, flags);
	sroce_qp_run(qp);
}

void sroce_qp_kick(struct sroce_qp *qp)
{
	if (in_hardirq() || irqs_disabled())
		queue_work(sroce_wq, &qp->work);
	else
		sroce_qp_run(qp);
}

/* Softirq: no acknowledgment came in time. */
void sroce_retrans_timer(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, retrans_timer);
	struct sroce_sq_act act;
	unsigned long flags;
	u32 comp;

	spin_lock_irqsave(&qp->lock, flags);
	comp = qp->sq_eng.comp;
	sroce_sq_timeout(&qp->sq_eng, &act);
	if (sroce_glue_sq_apply(qp, comp, &act) & SROCE_RUN_FATAL)
		sroce_qp_fail(qp);
	sroce_qp_unlock(qp, flags);
	if (act.kick)
		sroce_qp_kick(qp);
}

/* Softirq (a soft hrtimer): the QP's rate lets its requester send again. */
enum hrtimer_restart sroce_pace_timer(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, pace_timer);

	sroce_qp_kick(qp);
	return HRTIMER_NORESTART;
}

/* Softirq: the RNR wait is over, resend. */
void sroce_rnr_timer(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, rnr_timer);
	struct sroce_sq_act act;
	unsigned long flags;
	u32 comp;

	spin_lock_irqsave(&qp->lock, flags);
	comp = qp->sq_eng.comp;
	sroce_sq_rnr_done(&qp->sq_eng, &act);
	if (sroce_glue_sq_apply(qp, comp, &act) & SROCE_RUN_FATAL)
		sroce_qp_fail(qp);
	sroce_qp_unlock(qp, flags);
	if (act.kick)
		sroce_qp_kick(qp);
}
