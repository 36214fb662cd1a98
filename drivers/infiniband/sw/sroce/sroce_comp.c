// SPDX-License-Identifier: GPL-2.0-only
/*
 * The completer: consumes ACKs, NAKs and RDMA Read responses, retires
 * send WQEs in order with completions, and decides on resends.
 *
 * - An ACK for PSN p completes every WQE whose last PSN is at or before
 *   p (a Read completes only with its last response).
 * - NAK PSN sequence error: what precedes its PSN is acknowledged, resend
 *   from it. RNR NAK: the same, after the RNR timer, while rnr_retry lasts.
 *   Other NAKs fail the WQE with the matching remote error.
 * - Read responses are placed in order; a gap makes the requester re-read
 *   from the first missing byte.
 * - The retransmit timer (sroce_retrans_timer()) resends from the oldest
 *   unacknowledged PSN while retry_cnt lasts.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce/rc.h"
#include "sroce.h"
#include "sroce_cq.h"
#include "sroce_mr.h"
#include "sroce_param.h"
#include "sroce_qp.h"

/* Recount Read requests in flight: sent, responses not all in. */
static void sroce_recount_reads(struct sroce_qp *qp)
{
	u32 chunk = sroce_read_chunk(qp->mtu);
	u32 i;

	qp->rd_inflight = 0;
	for (i = qp->comp_idx; ; i = (i + 1) & qp->sq.index_mask) {
		struct sroce_swqe *w = &qp->swqe[i];
		u32 sent = i == qp->req_idx ? qp->req_off : w->length;

		if (w->opcode == IB_WR_RDMA_READ && sent > w->rd_done)
			qp->rd_inflight += DIV_ROUND_UP(sent - w->rd_done,
							chunk);
		if (i == qp->req_idx)
			break;
	}
}

/*
 * Make the requester resend from @psn: find the WQE that holds it and
 * the byte offset where that PSN starts (for a Read, what has arrived).
 */
static void sroce_req_rewind(struct sroce_qp *qp, u32 psn)
{
	u32 i = qp->comp_idx;

	for (;;) {
		struct sroce_swqe *w = &qp->swqe[i];
		bool partly_sent = i == qp->req_idx;

		if (partly_sent && qp->req_off == 0)
			return;		/* nothing sent from @psn on */
		if (!partly_sent && sroce_psn_diff(psn, w->last_psn) > 0) {
			i = (i + 1) & qp->sq.index_mask;
			continue;
		}
		if (w->opcode == IB_WR_RDMA_READ) {
			/* Re-read what has not arrived. */
			qp->req_off = w->rd_done;
			psn = sroce_psn_add(w->first_psn,
					    w->rd_done / qp->mtu);
		} else if (sroce_psn_diff(psn, w->first_psn) <= 0) {
			qp->req_off = 0;
			psn = w->first_psn;
		} else {
			qp->req_off = sroce_psn_diff(psn, w->first_psn) *
				      qp->mtu;
		}
		qp->req_idx = i;
		qp->req_psn = psn;
		sroce_recount_reads(qp);
		sroce_count(qp->sdev, SROCE_CNT_RETRANSMITS);
		return;
	}
}

static void sroce_comp_wqe(struct sroce_qp *qp, struct sroce_swqe *w)
{
	if (qp->sig_all || (w->send_flags & IB_SEND_SIGNALED)) {
		struct ib_wc wc = {
			.wr_id = w->wr_id,
			.status = IB_WC_SUCCESS,
			.opcode = sroce_wc_opcode(w->opcode),
			.byte_len = w->length,
			.qp = &qp->ibqp,
			.port_num = SROCE_PORT,
		};

		sroce_qp_post_cqe(qp, qp->scq, &wc, false);
	}
	qp->comp_idx = (qp->comp_idx + 1) & qp->sq.index_mask;
	qp->sq.own = qp->comp_idx;
	sroce_queue_set_consumer(&qp->sq, qp->comp_idx);
}

/*
 * Retire the WQEs an acknowledgment of @psn covers. A Read it covers
 * whose data has not all arrived lost responses: re-read it.
 */
static void sroce_comp_ack(struct sroce_qp *qp, u32 psn)
{
	while (qp->comp_idx != qp->req_idx) {
		struct sroce_swqe *w = &qp->swqe[qp->comp_idx];

		if (!sroce_psn_covers(psn, w->last_psn))
			break;
		if (w->opcode == IB_WR_RDMA_READ) {
			sroce_req_rewind(qp, w->first_psn);
			return;
		}
		sroce_comp_wqe(qp, w);
	}
	if (sroce_psn_diff(psn, qp->acked_psn) > 0)
		qp->acked_psn = psn;
}

static void sroce_comp_timers(struct sroce_qp *qp)
{
	sroce_qp_check_drained(qp);
	if (qp->comp_idx == qp->req_idx && qp->req_off == 0)
		del_timer(&qp->retrans_timer);
	else
		sroce_req_arm_timer(qp);
}

static void sroce_comp_read_resp(struct sroce_qp *qp,
				 const struct sroce_rxpkt *rx)
{
	u32 psn = rx->p.hdr.bth.psn;
	u32 len = rx->p.payload_len;
	struct sroce_swqe *w;
	u32 expected;

	/* A response to a Read acknowledges everything sent before it. */
	while (qp->comp_idx != qp->req_idx) {
		w = &qp->swqe[qp->comp_idx];
		if (w->opcode == IB_WR_RDMA_READ)
			break;
		if (!sroce_psn_covers(sroce_psn_prev(psn), w->last_psn))
			return;
		sroce_comp_wqe(qp, w);
	}
	/* A Read still being requested in chunks is outstanding too. */
	if (qp->comp_idx == qp->req_idx && qp->req_off == 0)
		return;
	w = &qp->swqe[qp->comp_idx];
	if (sroce_psn_diff(psn, w->first_psn) < 0 ||
	    sroce_psn_diff(psn, w->last_psn) > 0)
		return;
	/*
	 * In order only: the expected PSN is where the data stands. A later
	 * one means responses were lost: re-read from the gap at once (once
	 * per gap) rather than wait for the retransmit timer.
	 */
	expected = sroce_psn_add(w->first_psn, w->rd_done / qp->mtu);
	if (psn != expected) {
		sroce_count(qp->sdev, SROCE_CNT_STALE_RESPONSES);
		if (sroce_psn_diff(psn, expected) > 0 &&
		    w->rd_gap_psn != expected) {
			w->rd_gap_psn = expected;
			sroce_req_rewind(qp, expected);
		}
		return;
	}
	if (len > w->length - w->rd_done ||
	    (len != qp->mtu && w->rd_done + len != w->length)) {
		sroce_req_fail(qp, qp->comp_idx, IB_WC_BAD_RESP_ERR);
		return;
	}
	if (sroce_sge_copy(qp, w->data, w->num_sge, w->rd_done,
			   (void *)sroce_rx_payload(rx), len, SROCE_TO_MR)) {
		sroce_req_fail(qp, qp->comp_idx, IB_WC_LOC_PROT_ERR);
		return;
	}
	w->rd_done += len;
	/* The last response of one Read request (chunk). */
	if ((rx->p.info->mask & SROCE_MASK_LAST) && qp->rd_inflight)
		qp->rd_inflight--;
	qp->retries_left = qp->retry_cnt;
	if (sroce_psn_diff(psn, qp->acked_psn) > 0)
		qp->acked_psn = psn;
	if (w->rd_done == w->length)
		sroce_comp_wqe(qp, w);
}

void sroce_comp_rcv(struct sroce_qp *qp, const struct sroce_rxpkt *rx,
		    struct sk_buff_head *out)
{
	const struct sroce_opcode_info *info = rx->p.info;
	u32 psn = rx->p.hdr.bth.psn;
	enum sroce_ack_action act;
	u32 rnr_us;
	u8 syn;

	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD)
		return;
	/* Only PSNs we sent and that are not acknowledged yet matter. */
	if (sroce_psn_diff(psn, qp->req_psn) >= 0 ||
	    sroce_psn_diff(psn, qp->acked_psn) <= 0) {
		sroce_count(qp->sdev, SROCE_CNT_STALE_RESPONSES);
		return;
	}

	if (info->mask & SROCE_MASK_READ) {
		sroce_comp_read_resp(qp, rx);
		sroce_comp_timers(qp);
		return;
	}
	if (!(info->mask & SROCE_MASK_AETH))
		return;

	syn = rx->p.hdr.aeth.syndrome;
	act = sroce_comp_ack_action(syn);
	switch (act) {
	case SROCE_ACK_COMPLETE_UP_TO_PSN:
		qp->retries_left = qp->retry_cnt;
		qp->rnr_left = qp->rnr_retry;
		sroce_comp_ack(qp, psn);
		break;
	case SROCE_ACK_RETRY_FROM_PSN:
		sroce_count(qp->sdev, SROCE_CNT_SEQ_NAKS_RCVD);
		sroce_comp_ack(qp, sroce_psn_prev(psn));
		sroce_req_rewind(qp, psn);
		break;
	case SROCE_ACK_RNR_WAIT:
		sroce_count(qp->sdev, SROCE_CNT_RNR_NAKS_RCVD);
		sroce_comp_ack(qp, sroce_psn_prev(psn));
		if (!sroce_rnr_retry_consume(&qp->rnr_left)) {
			sroce_req_fail(qp, qp->comp_idx,
				       IB_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		sroce_req_rewind(qp, psn);
		qp->rnr_wait = true;
		del_timer(&qp->retrans_timer);
		rnr_us = sroce_rnr_timer_us(sroce_syndrome_value(syn));
		mod_timer(&qp->rnr_timer, jiffies + 1 + usecs_to_jiffies(rnr_us));
		return;
	default:
		sroce_comp_ack(qp, sroce_psn_prev(psn));
		if (qp->comp_idx != qp->req_idx)
			sroce_req_fail(qp, qp->comp_idx,
				       sroce_ack_action_wc_status(act));
		return;
	}
	sroce_comp_timers(qp);
}

/* Softirq: no acknowledgment came in time. */
void sroce_retrans_timer(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, retrans_timer);
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	if ((qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD) ||
	    (qp->comp_idx == qp->req_idx && qp->req_off == 0)) {
		sroce_qp_unlock(qp, flags);
		return;
	}
	sroce_count(qp->sdev, SROCE_CNT_RETRANSMIT_TIMEOUTS);
	pr_debug_ratelimited("QP %u: timeout: comp %u req %u/%u fetch %u psn %u acked %u rd %u wqe %u..%u done %u len %u\n",
			     qp->ibqp.qp_num, qp->comp_idx, qp->req_idx,
			     qp->req_off, qp->fetch_idx, qp->req_psn,
			     qp->acked_psn, qp->rd_inflight,
			     qp->swqe[qp->comp_idx].first_psn,
			     qp->swqe[qp->comp_idx].last_psn,
			     qp->swqe[qp->comp_idx].rd_done,
			     qp->swqe[qp->comp_idx].length);
	if (!sroce_retry_consume(&qp->retries_left)) {
		sroce_req_fail(qp, qp->comp_idx, IB_WC_RETRY_EXC_ERR);
		sroce_qp_unlock(qp, flags);
		return;
	}
	sroce_req_rewind(qp, sroce_psn_add(qp->acked_psn, 1));
	sroce_qp_unlock(qp, flags);
	sroce_qp_kick(qp);
}

/* Softirq: the RNR wait is over, resend. */
void sroce_rnr_timer(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, rnr_timer);
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	qp->rnr_wait = false;
	sroce_qp_unlock(qp, flags);
	sroce_qp_kick(qp);
}
