// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce RC send side: the requester and the completer as one state
 * machine over the send queue (see rc_engine.h for the events). This
 * file holds the queue's state and lifecycle (configuration, state
 * changes, failing and flushing, invariants); the requester is in
 * sroce_rc_req.c, the completer in sroce_rc_comp.c, acknowledgment,
 * timers and recovery in sroce_rc_recover.c (rc_sq_int.h between them).
 *
 * WQEs [comp, req) are fully sent and not completed; req is being sent
 * (req_off bytes of it; for a READ, requested); [req, fetch) wait.  Every
 * WQE keeps the PSNs of its first transmission: a resend of PSN p is the
 * same packet (or, for a READ, the same responses) as the first one.
 *
 * Acceptance rules of the completer:
 *  - ACK p: una - 1 <= p < sent_psn (an ACK never covers what was not
 *    sent); completes every WQE it covers, a READ only once its data
 *    is all in.
 *  - NAK/RNR NAK p: una <= p < sent_psn; acknowledges p - 1.
 *  - READ response p: una <= p < sent_psn, p inside an outstanding READ
 *    (it acknowledges what precedes that READ), its payload exactly the
 *    bytes of that PSN, FIRST only where a request started and LAST only
 *    where one ended.  Responses within SROCE_MAX_WINDOW PSNs ahead of a
 *    READ's hole are placed out of order; after SROCE_REREAD_THRESH of
 *    them or on a timeout, the hole is re-requested up to the end of
 *    the original request holding it (never less, never beyond), so
 *    the re-request's LAST is that request's.  READs complete in order.
 *  - ATOMIC ACK p: as a one-packet READ response whose 8 bytes of
 *    "payload" are the original value; p must be an atomic's PSN.  An
 *    atomic is answered like a READ: a lost ATOMIC ACK is asked for
 *    again by sending the same request, which the responder replays.
 *  - ATOMIC WRITE (IBA 1.5) is an atomic in all of this, answered by a
 *    READ Response Only without payload (as rdma_rxe answers it).
 * Anything else is dropped and counted: a forged or stale response can
 * neither write nor complete.
 */
#include "sroce/rc_sq_int.h"

void sroce_sq_init(struct sroce_sq_eng *e, struct sroce_wqe *wqe, u32 size)
{
	memset(e, 0, sizeof(*e));
	e->wqe = wqe;
	e->size = size;
	sroce_sq_config(e, 256, 1, 0, 0, 0);
	sroce_sq_set_psn(e, 0);		/* nothing acknowledged: ack_psn = -1 */
}

/* Has the requester started anything not yet complete? */
static bool sq_started(const struct sroce_sq_eng *e)
{
	return e->comp != e->fetch && wqe_started(sq_wqe(e, e->comp));
}

void sroce_sq_config(struct sroce_sq_eng *e, u32 mtu, u32 max_rd,
		     u8 retry_cnt, u8 rnr_retry, u8 timeout)
{
	u32 window;

	/* PSNs of WQEs under way were laid out with the old path MTU */
	if (!sq_started(e))
		e->mtu = mtu;
	mtu = e->mtu;
	/*
	 * About 64 KiB in flight: what a receiver without flow control of
	 * its own absorbs; between 8 and SROCE_MAX_WINDOW packets.
	 */
	window = 65536 / mtu;
	if (window < 8)
		window = 8;
	if (window > SROCE_MAX_WINDOW)
		window = SROCE_MAX_WINDOW;
	e->window = window;
	/* a modify_qp while WQEs are under way keeps a cut cwnd */
	if (!sq_started(e) || e->cwnd > window)
		e->cwnd = window;
	if (!sq_started(e) || e->ssthresh > window)
		e->ssthresh = window;
	/* READs go out in half-window requests, clocked by the window */
	e->rd_chunk = window / 2 * mtu;
	e->max_rd = max_rd ? max_rd : 1;
	e->retry_cnt = retry_cnt;
	e->rnr_retry = rnr_retry;
	e->timeout = timeout;
}

void sroce_sq_set_uc(struct sroce_sq_eng *e)
{
	e->uc = true;
}

void sroce_sq_set_psn(struct sroce_sq_eng *e, u32 psn)
{
	if (sq_started(e))
		return;		/* WQEs under way keep their PSNs */
	psn = sroce_psn_mask(psn);
	e->next_psn = psn;
	e->una_psn = psn;
	e->sent_psn = psn;
	e->ack_psn = sroce_psn_prev(psn);
	e->rtt_timing = false;
}

void sroce_sq_start(struct sroce_sq_eng *e)
{
	if (e->state == SROCE_SQ_IDLE) {
		e->retries_left = e->retry_cnt;
		e->rnr_left = e->rnr_retry;
		e->backoff = 0;
		e->probing = false;
		e->late = false;
	}
	if (e->state != SROCE_SQ_ERROR)
		e->state = SROCE_SQ_RTS;
}

void sroce_sqi_check_drained(struct sroce_sq_eng *e, struct sroce_sq_act *act)
{
	if (e->state == SROCE_SQ_DRAIN && e->drained_owed &&
	    e->comp == e->drain_limit) {
		e->drained_owed = false;
		act->drained = true;
	}
}

void sroce_sq_drain(struct sroce_sq_eng *e, struct sroce_sq_act *act)
{
	memset(act, 0, sizeof(*act));
	if (e->state != SROCE_SQ_RTS)
		return;
	/* Finish what was started (resends included), start nothing new */
	e->drain_limit = e->req;
	while (e->drain_limit != e->fetch &&
	       wqe_started(sq_wqe(e, e->drain_limit)))
		e->drain_limit++;
	e->drained_owed = true;
	e->state = SROCE_SQ_DRAIN;
	sroce_sqi_check_drained(e, act);
}

void sroce_sq_reset(struct sroce_sq_eng *e)
{
	struct sroce_wqe *wqe = e->wqe;
	u32 size = e->size, mtu = e->mtu, max_rd = e->max_rd;
	u8 retry = e->retry_cnt, rnr = e->rnr_retry, timeout = e->timeout;
	const struct sroce_dcqcn_params *ccp = e->ccp;
	u32 line_mbps = e->cc.line_kbps / 1000;
	bool uc = e->uc;

	sroce_sq_init(e, wqe, size);
	sroce_sq_config(e, mtu, max_rd, retry, rnr, timeout);
	e->uc = uc;
	sroce_sq_set_cc(e, ccp, line_mbps);
}

void sroce_sq_set_cc(struct sroce_sq_eng *e,
		     const struct sroce_dcqcn_params *p, u32 line_mbps)
{
	e->ccp = p;
	sroce_dcqcn_init(&e->cc, line_mbps);
}

u64 sroce_sq_pace_at(const struct sroce_sq_eng *e)
{
	return e->cc.limited ? e->cc.next_tx : e->now;
}

void sroce_sq_fail(struct sroce_sq_eng *e, u32 idx, u8 status)
{
	if (e->err_set)
		return;		/* the first error is the one reported */
	/*
	 * UC completed the WQE when its last packet was decided; the glue
	 * could not build that packet, and has not reported the completion
	 * yet: take it back, the WQE completes with @status.
	 */
	if (e->uc && idx == e->comp - 1)
		e->comp = idx;
	SROCE_ENGINE_WARN(idx - e->comp >= e->fetch - e->comp &&
			  e->fetch != e->comp);
	e->state = SROCE_SQ_ERROR;
	e->err_idx = idx;
	e->err_status = status;
	e->err_set = true;
}

void sroce_sqi_error(struct sroce_sq_eng *e, u8 status,
		     struct sroce_sq_act *act)
{
	sroce_sq_fail(e, e->comp, status);
	act->error = true;
	act->timer = SROCE_TIMER_STOP;
	e->pto_armed = 0;
	act->kick = false;
}

bool sroce_sq_room(const struct sroce_sq_eng *e)
{
	return e->fetch - e->comp < e->size;
}

void sroce_sq_push(struct sroce_sq_eng *e)
{
	struct sroce_wqe *w = sq_wqe(e, e->fetch);

	if (SROCE_ENGINE_WARN(!sroce_sq_room(e)))
		return;
	/* The glue validated it; the engine trusts no length beyond 2 GiB */
	SROCE_ENGINE_WARN(w->length > 0x80000000U ||
			  sq_npkts(e, w->length) >= SROCE_PSN_HALF ||
			  w->kind > SROCE_WR_LOCAL ||
			  (wqe_atomic(w) && w->length != 8) ||
			  (w->kind == SROCE_WR_LOCAL && w->length) ||
			  (e->uc && (wqe_has_resp(w) ||
				     w->kind == SROCE_WR_SEND_INV)));
	w->flags &= ~(SROCE_WQE_RD_DONE | SROCE_WQE_LOCAL_DONE);
	w->first_psn = 0;
	w->npkts = 0;
	w->rd_done = 0;
	w->rd_map = 0;
	w->rd_gap_seen = 0;
	w->rd_reread = NO_REREAD;
	e->fetch++;
}

void sroce_sq_flushed(struct sroce_sq_eng *e)
{
	e->comp = e->fetch;
	e->req = e->fetch;
	e->req_off = 0;
	e->reread_owed = false;
	e->next_psn = e->sent_psn;
	e->una_psn = e->sent_psn;
	e->rtt_timing = false;
}

/*
 * READ requests outstanding, as the responder's ring of max_dest_rd_atomic
 * resources sees them: it drops its oldest for each new READ, so a
 * request is retired only when it and every READ request before it are
 * answered (a later READ done early still holds its place).  At most a
 * window of WQEs is walked.
 */
u32 sroce_sq_reads_out(const struct sroce_sq_eng *e)
{
	u32 chunk_pkts = e->rd_chunk / e->mtu, n = 0, idx;
	bool blocked = false;

	for (idx = e->comp; idx != e->fetch; idx++) {
		const struct sroce_wqe *w = sq_wqe(e, idx);
		u32 sent;

		if (!wqe_started(w))
			break;
		if (!wqe_has_resp(w))
			continue;
		sent = (u32)sroce_psn_diff(e->sent_psn, w->first_psn);
		if (sent > w->npkts)
			sent = w->npkts;
		n += (sent + chunk_pkts - 1) / chunk_pkts;
		if (!blocked)
			n -= rd_reqs_done(e, w);
		if (!(w->flags & SROCE_WQE_RD_DONE))
			blocked = true;
	}
	return n;
}

bool sroce_sq_check(const struct sroce_sq_eng *e)
{
	u32 queued = e->fetch - e->comp;
	bool bad = false;

	bad |= SROCE_ENGINE_WARN(!e->size || (e->size & (e->size - 1)));
	bad |= SROCE_ENGINE_WARN(queued > e->size);
	/* comp <= req <= fetch */
	bad |= SROCE_ENGINE_WARN(e->req - e->comp > queued);
	bad |= SROCE_ENGINE_WARN(e->req == e->fetch && e->req_off);
	if (e->req != e->fetch) {
		const struct sroce_wqe *w = sq_wqe(e, e->req);

		/* req_off within the WQE; a resent WQE keeps its PSNs */
		bad |= SROCE_ENGINE_WARN(e->req_off && e->req_off >= w->length);
		bad |= SROCE_ENGINE_WARN(w->npkts &&
					e->next_psn !=
					sroce_psn_add(w->first_psn,
						      e->req_off / e->mtu));
	}
	/* una <= next <= sent, and no more in flight than the window */
	bad |= SROCE_ENGINE_WARN(sroce_psn_diff(e->next_psn, e->una_psn) < 0);
	bad |= SROCE_ENGINE_WARN(sroce_psn_diff(e->sent_psn, e->next_psn) < 0);
	bad |= SROCE_ENGINE_WARN((u32)sroce_psn_diff(e->sent_psn, e->una_psn) >
				e->window);
	bad |= SROCE_ENGINE_WARN(sroce_psn_diff(e->ack_psn, e->sent_psn) >= 0);
	bad |= SROCE_ENGINE_WARN(!e->cwnd || e->cwnd > e->window);
	bad |= SROCE_ENGINE_WARN(!e->ssthresh || e->ssthresh > e->window);
	/* a probe timer is one of the two kinds (sroce_sqi_arm()) */
	bad |= SROCE_ENGINE_WARN(e->pto_armed > SROCE_PTO_TAIL);
	/* the packet timed is in flight: sent, not yet answered */
	bad |= SROCE_ENGINE_WARN(e->rtt_timing &&
				 (sroce_psn_diff(e->rtt_psn, e->una_psn) < 0 ||
				  sroce_psn_diff(e->sent_psn, e->rtt_psn) <= 0));
	if (e->comp != e->fetch) {
		const struct sroce_wqe *w = sq_wqe(e, e->comp);

		bad |= SROCE_ENGINE_WARN(w->rd_done > w->length);
		bad |= SROCE_ENGINE_WARN(w->rd_map & 1);
		/* a local WQE carried out has no PSNs */
		bad |= SROCE_ENGINE_WARN((w->flags & SROCE_WQE_LOCAL_DONE) &&
					(w->kind != SROCE_WR_LOCAL ||
					 w->npkts));
	}
	bad |= SROCE_ENGINE_WARN(e->state == SROCE_SQ_ERROR && !e->err_set);
	if (e->ccp)
		bad |= !sroce_dcqcn_check(&e->cc, e->ccp);
	return !bad;
}
