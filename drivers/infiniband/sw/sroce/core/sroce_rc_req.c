// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce RC send side, the requester: the next packet of the send queue
 * (a request, a resend, a Read hole asked again, or a local WQE), as far
 * as the window, cwnd, max_rd_atomic, fences, the QP's rate and the
 * device's budget allow.
 */
#include "sroce/rc_sq_int.h"

/*
 * Does the device's budget let a request of @cost PSNs go?  A resend
 * holds what its first transmission was charged; new PSNs must end
 * before budget_end.
 */
static bool sq_budget_room(struct sroce_sq_eng *e, u32 cost)
{
	u32 end = sroce_psn_add(e->next_psn, cost);

	if (!e->budgeted || e->uc || !sroce_psn_after(end, e->sent_psn) ||
	    sroce_psn_diff(end, e->budget_end) <= 0)
		return true;
	e->budget_held = true;
	return false;
}

/*
 * May a request of @cost PSNs go out?  No more than cwnd PSNs in flight,
 * and what the device's budget grants, except that one request may always
 * go when none is: a READ request spans up to half a window, which a cwnd
 * cut by a timeout or a budget shared by many QPs may not hold.
 */
static bool sq_room(struct sroce_sq_eng *e, u32 cost)
{
	u32 out = sq_out(e);

	if (!out)
		return true;
	return out + cost <= e->cwnd && sq_budget_room(e, cost);
}

/* The request of atomic @w (sent first or again: always the same) */
static void req_atomic_fill(const struct sroce_wqe *w, struct sroce_tx_req *tx)
{
	tx->opcode = sroce_rc_req_opcode(w->kind, true, true);
	tx->ackreq = true;
	tx->va = w->remote_addr;
	tx->rkey = w->rkey;
	tx->swap_add = w->swap_add;
	if (w->kind == SROCE_WR_ATOMIC_WRITE) {
		/* a RETH for the 8 bytes it carries */
		tx->awrite = true;
		tx->reth = true;
		tx->dma_len = 8;
		tx->len = 8;
		return;
	}
	tx->atomic = true;
	tx->compare = w->compare;
}

static enum sroce_req_verdict req_reread(struct sroce_sq_eng *e,
					 struct sroce_tx_req *tx)
{
	struct sroce_wqe *w = sq_wqe(e, e->reread_idx);

	e->reread_owed = false;
	if (e->reread_idx - e->comp > e->req - e->comp ||
	    e->reread_idx == e->fetch || !wqe_has_resp(w) ||
	    w->rd_reread != w->rd_done ||
	    rd_chunk_end(e, w, w->rd_done) <= w->rd_done)
		return SROCE_REQ_IDLE;	/* overtaken by a completion */
	memset(tx, 0, sizeof(*tx));
	tx->idx = e->reread_idx;
	if (wqe_atomic(w)) {
		/* its ATOMIC ACK is missing: the responder replays it */
		req_atomic_fill(w, tx);
		tx->psn = w->first_psn;
		tx->retransmit = true;
		return SROCE_REQ_SEND;
	}
	tx->opcode = sroce_rc_req_opcode(SROCE_WR_READ, true, true);
	tx->psn = sroce_psn_add(w->first_psn, w->rd_done / e->mtu);
	tx->ackreq = true;
	tx->reth = true;
	tx->va = w->remote_addr + w->rd_done;
	tx->rkey = w->rkey;
	tx->dma_len = rd_chunk_end(e, w, w->rd_done) - w->rd_done;
	tx->retransmit = true;
	return SROCE_REQ_SEND;
}

static enum sroce_req_verdict req_read(struct sroce_sq_eng *e,
				       struct sroce_wqe *w,
				       struct sroce_tx_req *tx, bool resend)
{
	u32 len = w->length - e->req_off;
	u32 room = e->rd_chunk - e->req_off % e->rd_chunk;
	u32 cost;

	if (len > room)
		len = room;
	cost = sq_npkts(e, len);
	if (!resend && sroce_sq_reads_out(e) >= e->max_rd)
		return SROCE_REQ_IDLE;
	if (!sq_room(e, cost))
		return SROCE_REQ_IDLE;

	tx->opcode = sroce_rc_req_opcode(SROCE_WR_READ, true, true);
	tx->ackreq = true;
	tx->reth = true;
	tx->va = w->remote_addr + e->req_off;
	tx->rkey = w->rkey;
	tx->dma_len = len;
	if (e->req_off % e->rd_chunk) {
		/*
		 * From inside a request (a resend from the hole): its
		 * responses start with FIRST here and end where it does.
		 */
		w->rd_reread = e->req_off;
	}
	e->next_psn = sroce_psn_add(e->next_psn, cost);
	e->req_off += len;
	return SROCE_REQ_SEND;
}

static enum sroce_req_verdict req_atomic(struct sroce_sq_eng *e,
					 struct sroce_wqe *w,
					 struct sroce_tx_req *tx, bool resend)
{
	if (!resend && sroce_sq_reads_out(e) >= e->max_rd)
		return SROCE_REQ_IDLE;
	if (!sq_room(e, 1))
		return SROCE_REQ_IDLE;
	req_atomic_fill(w, tx);
	e->next_psn = sroce_psn_add(e->next_psn, 1);
	e->req_off = w->length;
	return SROCE_REQ_SEND;
}

static enum sroce_req_verdict req_data(struct sroce_sq_eng *e,
				       struct sroce_wqe *w,
				       struct sroce_tx_req *tx)
{
	u32 len = w->length - e->req_off;
	bool first = e->req_off == 0, last;

	if (len > e->mtu)
		len = e->mtu;
	last = e->req_off + len == w->length;
	if (!sq_room(e, 1))
		return SROCE_REQ_IDLE;

	tx->opcode = sroce_rc_req_opcode(w->kind, first, last);
	tx->se = last && (w->flags & SROCE_WQE_SOLICITED);
	/*
	 * An ACK twice per window keeps the window open; after a timeout,
	 * one for the packet that fills cwnd lets it grow; one for the last
	 * packet the device's budget grants gives the budget back; one for
	 * the last packet sent, sent again (a probe), says what arrived.
	 */
	tx->ackreq = last || !(e->next_psn % (e->window / 2)) ||
		     sroce_psn_add(e->next_psn, 1) == e->sent_psn ||
		     (e->cwnd < e->window &&
		      sq_out(e) + 1 >= e->cwnd) ||
		     (e->budgeted &&
		      sroce_psn_diff(sroce_psn_add(e->next_psn, 1),
				     e->budget_end) >= 0);
	if (e->uc) {
		/* the same opcode numbers, in the UC range; nothing ACKed */
		tx->opcode = (tx->opcode & ~SROCE_TRANSPORT_MASK) |
			     SROCE_TRANSPORT_UC;
		tx->ackreq = false;
	}
	if (first && (w->kind == SROCE_WR_WRITE ||
		      w->kind == SROCE_WR_WRITE_IMM)) {
		tx->reth = true;
		tx->va = w->remote_addr;
		tx->rkey = w->rkey;
		tx->dma_len = w->length;
	}
	tx->imm = last && (w->kind == SROCE_WR_SEND_IMM ||
			   w->kind == SROCE_WR_WRITE_IMM);
	tx->ieth = last && w->kind == SROCE_WR_SEND_INV;
	tx->off = e->req_off;
	tx->len = len;
	e->next_psn = sroce_psn_add(e->next_psn, 1);
	e->req_off += len;
	return SROCE_REQ_SEND;
}

/*
 * A local WQE (not carried out yet): it has no PSNs and stands before
 * next_psn. ORDERED waits until every WQE before it has completed, so
 * that nothing before it is sent again (a resend reads its SGEs anew).
 */
static enum sroce_req_verdict req_local(struct sroce_sq_eng *e,
					struct sroce_wqe *w,
					struct sroce_tx_req *tx)
{
	if (((w->flags & SROCE_WQE_ORDERED) && e->comp != e->req) ||
	    ((w->flags & SROCE_WQE_FENCE) && sroce_sq_reads_out(e)))
		return SROCE_REQ_IDLE;
	w->first_psn = e->next_psn;
	w->flags |= SROCE_WQE_LOCAL_DONE;
	memset(tx, 0, sizeof(*tx));
	tx->idx = e->req;
	e->req++;
	sroce_sq_check(e);
	return SROCE_REQ_LOCAL;
}

void sroce_sq_local_done(struct sroce_sq_eng *e, u32 idx, u8 status,
			 struct sroce_sq_act *act)
{
	struct sroce_wqe *w = sq_wqe(e, idx);

	memset(act, 0, sizeof(*act));
	if (!sq_active(e))
		return;
	if (SROCE_ENGINE_WARN(idx - e->comp >= e->req - e->comp ||
			      w->kind != SROCE_WR_LOCAL ||
			      !(w->flags & SROCE_WQE_LOCAL_DONE)))
		status = SROCE_WC_LOC_QP_OP_ERR;
	if (status != SROCE_WC_SUCCESS) {
		sroce_sq_fail(e, idx, status);
		act->error = true;
		act->timer = SROCE_TIMER_STOP;
		e->pto_armed = 0;
		return;
	}
	sroce_sqi_after_progress(e, sroce_sqi_ack_through(e, act), act);
	sroce_sq_check(e);
}

static enum sroce_req_verdict req_next(struct sroce_sq_eng *e,
				       struct sroce_tx_req *tx,
				       struct sroce_sq_act *act)
{
	enum sroce_req_verdict v;
	struct sroce_wqe *w;
	bool resend, fresh;

	memset(act, 0, sizeof(*act));
	e->budget_held = false;
	if (!sq_active(e) || e->rnr_wait)
		return SROCE_REQ_IDLE;
	if (e->ccp) {
		sroce_dcqcn_update(&e->cc, e->ccp, e->now);
		if (!sroce_dcqcn_ready(&e->cc, e->now))
			return SROCE_REQ_PACED;
	}
	if (e->reread_owed) {
		v = req_reread(e, tx);
		if (v == SROCE_REQ_SEND) {
			sroce_sqi_arm(e, act, SROCE_TIMER_ARM_IF_IDLE);
			return v;
		}
	}
	/* Local WQEs carried out already: a resend passes them by */
	while (e->req != e->fetch &&
	       (sq_wqe(e, e->req)->flags & SROCE_WQE_LOCAL_DONE))
		e->req++;
	if (e->req == e->fetch)
		return e->state == SROCE_SQ_DRAIN ? SROCE_REQ_IDLE :
						    SROCE_REQ_FETCH;
	if (e->state == SROCE_SQ_DRAIN &&
	    e->req - e->comp >= e->drain_limit - e->comp)
		return SROCE_REQ_IDLE;

	w = sq_wqe(e, e->req);
	if (w->kind == SROCE_WR_LOCAL)
		return req_local(e, w, tx);
	fresh = !w->npkts;
	if (fresh) {
		/* First transmission: its PSNs start here */
		if ((w->flags & SROCE_WQE_FENCE) && sroce_sq_reads_out(e))
			return SROCE_REQ_IDLE;
		w->first_psn = e->next_psn;
		w->npkts = sq_npkts(e, w->length);
	}
	resend = sroce_psn_before(e->next_psn, e->sent_psn);

	memset(tx, 0, sizeof(*tx));
	tx->idx = e->req;
	tx->psn = e->next_psn;
	tx->retransmit = resend;
	if (w->kind == SROCE_WR_READ)
		v = req_read(e, w, tx, resend);
	else if (wqe_atomic(w))
		v = req_atomic(e, w, tx, resend);
	else
		v = req_data(e, w, tx);
	if (v != SROCE_REQ_SEND) {
		if (fresh)
			w->npkts = 0;	/* not started after all */
		return v;
	}
	if (sroce_psn_after(e->next_psn, e->sent_psn)) {
		e->sent_psn = e->next_psn;
		e->tlp_ok = true;
		e->tail_resp = wqe_has_resp(w);
		if (!resend && !e->rtt_timing && !e->uc) {
			e->rtt_timing = true;
			e->rtt_psn = tx->psn;
			e->rtt_t0 = e->now;
		}
	}
	if (e->req_off == w->length) {
		e->req++;
		e->req_off = 0;
	}
	if (e->uc) {
		/* Sent is done: no answer will come */
		e->ack_psn = sroce_psn_prev(e->next_psn);
		e->una_psn = e->next_psn;
		while (e->comp != e->req)
			sroce_sqi_complete_head(e);
		sroce_sqi_check_drained(e, act);
		sroce_sq_check(e);
		return SROCE_REQ_SEND;
	}
	/*
	 * The first packet in flight: the timer is idle (stopped whenever
	 * nothing is in flight) and starts, as a tail loss probe if the round
	 * trip is known, so that a lone message's lost tail costs twice the
	 * round trip, not the QP's timeout. A tail loss probe starts again
	 * with each new packet (RFC 8985): a requester that sends slower than
	 * its round trip (paced, or a long message) is not probed while it
	 * sends. Otherwise the timer runs already.
	 */
	sroce_sqi_arm(e, act, !resend && (tx->psn == e->una_psn ||
					  e->pto_armed == SROCE_PTO_TAIL) ?
		      SROCE_TIMER_ARM : SROCE_TIMER_ARM_IF_IDLE);
	sroce_sq_check(e);
	return SROCE_REQ_SEND;
}

/*
 * The requester's next step; what it sends counts against the QP's rate
 * (congestion control on), whose pacing may hold it (SROCE_REQ_PACED).
 */
enum sroce_req_verdict sroce_req_next(struct sroce_sq_eng *e,
				      struct sroce_tx_req *tx,
				      struct sroce_sq_act *act)
{
	enum sroce_req_verdict v = req_next(e, tx, act);

	if (v == SROCE_REQ_IDLE && e->budget_held)
		return SROCE_REQ_BUDGET;
	if (v == SROCE_REQ_SEND && e->ccp)
		sroce_dcqcn_sent(&e->cc, e->ccp, e->now,
				 tx->len + SROCE_PACE_OVERHEAD);
	return v;
}

void sroce_sq_budget_grant(struct sroce_sq_eng *e,
			   const struct sroce_budget *b,
			   const struct sroce_budget_qp *q)
{
	u32 g = sroce_budget_grant(b, q);

	if (g > e->window)
		g = e->window;		/* more could never be used */
	/*
	 * After a timeout the QP is charged its probe only (settle): no new
	 * PSNs on that discount until an ACK says what is really out.
	 */
	if (e->probing)
		g = 0;
	e->budgeted = true;
	e->budget_end = sroce_psn_add(e->sent_psn, g);
}

/*
 * What a QP holds in flight: PSNs sent and not acknowledged, while live.
 * After a timeout they are presumed lost, and until an ACK says otherwise
 * the QP holds one packet, its probe: a QP whose peer never answers does
 * not keep a window of the device's budget through all its retries.
 */
u32 sroce_sq_budget_settle(struct sroce_sq_eng *e, struct sroce_budget *b,
			   struct sroce_budget_qp *q)
{
	u32 out = 0;

	if (sq_active(e) && !e->uc)
		out = (u32)sroce_psn_diff(e->sent_psn, e->una_psn);
	if (e->probing && out > 1)
		out = 1;
	return sroce_budget_settle(b, q, out);
}

void sroce_tx_req_hdrs(const struct sroce_tx_req *tx, u32 dqpn, u16 pkey,
		       u32 imm, u32 ieth_rkey, struct sroce_hdrs *h)
{
	memset(h, 0, sizeof(*h));
	h->bth.opcode = tx->opcode;
	h->bth.se = tx->se;
	h->bth.ackreq = tx->ackreq;
	h->bth.pkey = pkey;
	h->bth.dqpn = dqpn;
	h->bth.psn = tx->psn;
	if (tx->reth) {
		h->reth.va = tx->va;
		h->reth.rkey = tx->rkey;
		h->reth.len = tx->dma_len;
	}
	if (tx->imm)
		h->imm = imm;
	if (tx->ieth)
		h->ieth_rkey = ieth_rkey;
	if (tx->atomic) {
		h->atmeth.va = tx->va;
		h->atmeth.rkey = tx->rkey;
		h->atmeth.swap_add = tx->swap_add;
		h->atmeth.compare = tx->compare;
	}
}
