// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce RC send side, acknowledgment and recovery: what an ACK, a NAK or
 * a Read response moves (una, completions in order, the Read hole to ask
 * again), the round trip and the retransmit timer (Jacobson/Karels, Karn,
 * backoff, the probe after a NAK), the window after a loss (AIMD) or a
 * CNP, going back to resend, and the timer and RNR expiries.
 */
#include "sroce/rc_sq_int.h"

/*
 * The period: the QP's local ACK timeout, or longer where the round trip
 * measured says a peer answers later than that (a receiver's queue that
 * many QPs fill, a starved virtual machine), so that a slow queue costs
 * time, not a spurious timeout and a window sent again into the same
 * queue.  Never shorter than the QP's timeout, as IBA requires.
 */
u64 sroce_sq_timer_ns(const struct sroce_sq_eng *e)
{
	u64 t = sroce_ack_timeout_ns(e->timeout);

	if (e->rtt_valid) {
		u64 var = 4 * e->rttvar, rto;

		if (var < SROCE_RTO_MIN_VAR_NS)
			var = SROCE_RTO_MIN_VAR_NS;
		rto = e->srtt + var;
		if (rto > SROCE_RTO_MAX_NS)
			rto = SROCE_RTO_MAX_NS;
		if (rto > t)
			t = rto;
	}
	return t << e->backoff;
}

void sroce_sq_clock(struct sroce_sq_eng *e, u64 now_ns)
{
	if (now_ns > e->now)
		e->now = now_ns;
}

/* A round-trip sample @r ns (RFC 6298's gains, 1/8 and 1/4) */
static void sq_rtt_sample(struct sroce_sq_eng *e, u64 r)
{
	if (!e->rtt_valid) {
		e->srtt = r;
		e->rttvar = r / 2;
		e->rtt_valid = true;
		return;
	}
	e->rttvar = (3 * e->rttvar + (e->srtt > r ? e->srtt - r : r - e->srtt)) / 4;
	e->srtt = (7 * e->srtt + r) / 8;
}

/*
 * The timer is first a probe where the round trip says an answer is
 * overdue long before the retransmit timeout, which IBA keeps at least
 * the QP's local ACK timeout (67 ms at the common 14, against a round
 * trip of a few ms). Its expiry resends without spending a retry, once,
 * and then the timer is the retransmit timeout again (sroce_sq_timeout()):
 * - recovering from a NAK, silence for twice the round trip after the
 *   resend means it was lost again (the NAKed packet, so the responder
 *   still drops the rest, or a NAK of a new gap): back to una;
 * - otherwise no answer at all came, most often because the last packets
 *   of a flight were lost, which no later packet makes the responder NAK
 *   (a tail loss): the last packet goes again (RFC 8985's tail loss
 *   probe), and the responder ACKs it, or NAKs the gap before it.
 */
void sroce_sqi_arm(struct sroce_sq_eng *e, struct sroce_sq_act *act, u8 op)
{
	u64 t, pto;

	if (e->timeout == 0)
		return;		/* no local ACK timeout: never fires */
	t = sroce_sq_timer_ns(e);
	if (op == SROCE_TIMER_ARM) {
		e->pto_armed = 0;
		pto = 2 * e->srtt + SROCE_RTO_MIN_VAR_NS;
		if (e->rtt_valid && pto < t) {
			if (e->pto_ok && e->recovering)
				e->pto_armed = SROCE_PTO_NAK;
			else if (e->tlp_ok && !e->tail_resp &&
				 !e->recovering && !e->probing && !e->late)
				e->pto_armed = SROCE_PTO_TAIL;
			if (e->pto_armed)
				t = pto;
		}
	}
	act->timer = op;
	act->timer_ns = t;
}

/*
 * Point the requester at PSN @psn: the WQE that holds it and the offset
 * where that PSN's payload starts.  Used to rewind (resend from @psn) and
 * to skip forward past what an ACK says arrived.  A READ resumes at its
 * hole: what is placed already is not asked for again.
 */
static void sq_point_at(struct sroce_sq_eng *e, u32 psn)
{
	u32 idx;

	for (idx = e->comp; idx != e->fetch; idx++) {
		struct sroce_wqe *w = sq_wqe(e, idx);
		u32 off;

		if (!wqe_started(w))
			break;		/* not sent yet: it starts at @psn */
		if (!w->npkts)
			continue;	/* local, carried out: not again */
		if (sroce_psn_diff(psn, w->first_psn) < 0)
			psn = w->first_psn;
		if (!sroce_psn_in_window(psn, w->first_psn, w->npkts))
			continue;
		off = psn_off(e, w, psn);
		if (wqe_has_resp(w) && off < w->rd_done)
			off = w->rd_done;
		if (off && off >= w->length) {
			/* a READ whose data is all in: nothing to ask */
			psn = sroce_psn_add(w->first_psn, w->npkts);
			continue;
		}
		e->req = idx;
		e->req_off = off;
		e->next_psn = sroce_psn_add(w->first_psn, off / e->mtu);
		return;
	}
	/* Past every WQE sent: next is the first PSN never sent */
	e->req = idx;
	e->req_off = 0;
	e->next_psn = psn;
}

void sroce_sqi_rewind(struct sroce_sq_eng *e, u32 psn, u32 *events)
{
	struct sroce_wqe *head = sq_wqe(e, e->comp);

	sq_point_at(e, psn);
	/* what is sent again may be what answers: no sample from it (Karn) */
	if (e->rtt_timing && sroce_psn_diff(e->rtt_psn, psn) >= 0)
		e->rtt_timing = false;
	/* recovering until everything sent before the rewind is answered */
	e->recover_psn = e->sent_psn;
	e->recovering = true;
	e->nak_recover = false;
	e->reread_owed = false;
	if (e->comp != e->fetch)
		head->rd_gap_seen = 0;
	ev(events, SROCE_EV_REWIND);
}

/* Retire the oldest WQE; the glue posts its completion. */
void sroce_sqi_complete_head(struct sroce_sq_eng *e)
{
	e->comp++;
	if (e->req - e->comp > e->fetch - e->comp) {
		/* it was acknowledged before the requester resent it */
		e->req = e->comp;
		e->req_off = 0;
	}
}

/* Recompute una: the oldest PSN not acknowledged nor answered. */
void sroce_sqi_update_una(struct sroce_sq_eng *e)
{
	u32 una = sroce_psn_add(e->ack_psn, 1);

	if (e->comp != e->fetch) {
		struct sroce_wqe *w = sq_wqe(e, e->comp);

		/* the oldest READ: answered as far as its data is in */
		if (w->npkts && wqe_has_resp(w))
			una = sroce_psn_add(w->first_psn, w->rd_done / e->mtu);
	}
	if (sroce_psn_after(una, e->una_psn))
		e->una_psn = una;
	if (e->rtt_timing && sroce_psn_after(e->una_psn, e->rtt_psn)) {
		e->rtt_timing = false;
		if (e->now >= e->rtt_t0)
			sq_rtt_sample(e, e->now - e->rtt_t0);
	}
	/* Nothing acknowledged is sent again */
	if (sroce_psn_before(e->next_psn, e->una_psn))
		sq_point_at(e, e->una_psn);
}

/*
 * READ hole of WQE @idx: re-request it before anything else, from the
 * hole to the end of the original request that holds it. A responder
 * matches a duplicate READ against the request whose PSNs it falls in
 * and answers it as that request's tail, LAST where the request ended
 * (IBTA 9.4.4): a re-request that stopped short (at the first response
 * already in) or ran past that end would not be answered the same way
 * by every responder. Responses already placed come again and are
 * dropped as stale.
 */
static void rd_schedule_reread(struct sroce_sq_eng *e, u32 idx, u32 *events)
{
	struct sroce_wqe *w = sq_wqe(e, idx);

	if (w->rd_reread == w->rd_done || e->reread_owed)
		return;		/* asked already */
	e->reread_idx = idx;
	e->reread_owed = true;
	w->rd_reread = w->rd_done;
	w->rd_gap_seen = 0;
	ev(events, SROCE_EV_REREAD);
}

/* Evidence that responses of the READ WQE @idx were lost */
void sroce_sqi_rd_gap_evidence(struct sroce_sq_eng *e, u32 idx,
			       struct sroce_sq_act *act)
{
	struct sroce_wqe *w = sq_wqe(e, idx);

	if (++w->rd_gap_seen >= SROCE_REREAD_THRESH) {
		rd_schedule_reread(e, idx, &act->events);
		act->kick |= e->reread_owed;
	}
}

/*
 * Complete, in order, every WQE that ack_psn covers and every READ whose
 * data is all in.  Returns true if anything completed.  A READ blocks
 * until its data is in: an ACK past it says its responses were all
 * sent, so some were lost.
 */
bool sroce_sqi_ack_through(struct sroce_sq_eng *e, struct sroce_sq_act *act)
{
	bool progress = false;

	while (e->comp != e->fetch) {
		struct sroce_wqe *w = sq_wqe(e, e->comp);
		/* (a local WQE: the PSN before it) */
		u32 last = sroce_psn_add(w->first_psn, w->npkts - 1);

		if (!wqe_started(w))
			break;
		if (wqe_has_resp(w)) {
			if (!(w->flags & SROCE_WQE_RD_DONE)) {
				if (sroce_psn_covers(e->ack_psn, last))
					sroce_sqi_rd_gap_evidence(e, e->comp, act);
				break;
			}
			/* its responses acknowledge it */
			if (sroce_psn_after(last, e->ack_psn))
				e->ack_psn = last;
		} else if (!sroce_psn_covers(e->ack_psn, last)) {
			break;
		}
		sroce_sqi_complete_head(e);
		progress = true;
	}
	return progress;
}

/*
 * Is una inside a READ chunk whose responses are still coming (not at the
 * end of one)?  They come one by one: each is no sign of a loss.
 */
static bool sq_head_mid_read(const struct sroce_sq_eng *e)
{
	const struct sroce_wqe *w = sq_wqe(e, e->comp);

	if (e->comp == e->fetch || !wqe_started(w) || !w->npkts ||
	    !wqe_has_resp(w) || wqe_atomic(w))
		return false;
	return w->rd_done % e->rd_chunk;
}

/*
 * The responder NAKs a PSN gap once, then drops what follows in silence
 * until the packet it NAKed arrives.  A resent packet that overtook that
 * one (a reordering wire) is lost so, and only a later packet, making a
 * new gap, would say it: at the tail of the queue none comes, and the
 * timer would have to (with retry_cnt 0, fatally).  So once a NAK's PSN
 * is answered past (@una was the oldest unanswered PSN before this
 * answer), everything was sent again and nothing new waits, the last
 * packet goes once more: the responder ACKs it as a duplicate, or NAKs
 * the gap before it.  One packet, once per NAK: on a wire that keeps
 * order a partial answer is progress, not a loss, and resending the
 * window at each (as this rule once did) made every recovery send it
 * many times over.  Not inside a READ request: its responses come one by
 * one.
 */
static void sq_tail_probe(struct sroce_sq_eng *e, u32 una,
			  struct sroce_sq_act *act)
{
	if (!e->nak_recover || e->una_psn == una ||
	    sroce_psn_diff(e->una_psn, e->nak_psn) <= 0 ||
	    e->next_psn != e->sent_psn || e->req != e->fetch ||
	    !sq_in_flight(e) || sq_head_mid_read(e))
		return;
	sroce_sqi_rewind(e, sroce_psn_prev(e->sent_psn), &act->events);
	act->kick = true;
}

/*
 * The tail loss probe fired (sroce_sqi_arm()): send the last packet sent
 * again, asking for an ACK (sroce_rc_req.c); then the retransmit timer
 * runs. No window cut: nothing says a packet was lost yet, and the probe
 * may go past cwnd (a CNP may have cut it below what is in flight). The
 * responder's answer says: an ACK past una, or a NAK of the gap before
 * the probe.
 *
 * Not where the last request is a READ or an atomic (tail_resp; checked
 * here too, for a request a rewind made the last); their tails wait for
 * the timeout, as before. A responder answers a duplicate READ exactly
 * and ends the run of responses it was sending, so a probe would have to
 * ask from the hole to the end, and the responses of a long READ pause
 * often for longer than twice the round trip: probed so, UCX's 4 MiB
 * rendezvous Reads sent 2 % of their packets twice. A duplicate atomic
 * is answered from the responder's replay cache, which forgets.
 */
static void sq_tail_loss_probe(struct sroce_sq_eng *e,
			       struct sroce_sq_act *act)
{
	u32 last = sroce_psn_prev(e->sent_psn);
	u32 idx = sq_wqe_of_psn(e, last), out;

	e->tlp_ok = false;
	if (idx != e->fetch && !wqe_has_resp(sq_wqe(e, idx))) {
		sq_point_at(e, last);
		if (e->rtt_timing && sroce_psn_diff(e->rtt_psn, last) >= 0)
			e->rtt_timing = false;	/* Karn */
		out = sq_out(e);
		if (e->cwnd <= out)
			e->cwnd = out + 1 < e->window ? out + 1 : e->window;
		ev(&act->events, SROCE_EV_REWIND);
		act->kick = true;
	}
	sroce_sqi_arm(e, act, SROCE_TIMER_ARM);
}

/*
 * A loss (a NAK of a gap, a timeout that found one) halves what may be in
 * flight (@num / @den = 1 / 2): where packets are lost, a queue
 * overflowed, most often the receiver's or the one its many QPs share,
 * and a window sent again into it at full size only loses more; a QP
 * whose resends are dropped while its neighbours keep the queue full
 * would run out of retries. Once per recovery: the NAKs of one window are
 * one loss.
 *
 * A CE mark says a queue is building, not that one overflowed: an AQM
 * marks early, with room left. So a CNP takes less of the window than a
 * loss does: four fifths of it (SROCE_ECN_BETA_NUM / _DEN) where a loss
 * leaves half (RFC 8511's alternative backoff with ECN). A QP halving at
 * every mark would leave a marking queue to the flows beside it that do
 * not: a TCP CUBIC flow keeps 0.7 of its window on a mark, and carries
 * more per packet than a RoCE path MTU does.
 */
void sroce_sqi_cwnd_cut(struct sroce_sq_eng *e, u32 num, u32 den)
{
	u32 keep = e->cwnd * num / den;

	e->ssthresh = keep > SROCE_MIN_SSTHRESH ? keep : SROCE_MIN_SSTHRESH;
	if (e->ssthresh > e->window)
		e->ssthresh = e->window;
	e->cwnd = e->ssthresh;
	e->ca_acc = 0;
}

/*
 * A CNP answers packets the QP sent: with nothing in flight it can only
 * be late or forged (it carries no PSN to check), and it cuts nothing.
 * It cuts the rate (DCQCN), and the window too, once per window of data
 * (as TCP answers ECN, RFC 3168): the rate alone does not bound what a
 * QP keeps queued while its rate is still above its share (a rate starts
 * at the line's, far above a soft device's, and DCQCN's timers, made for
 * microsecond round trips, raise it again many times per round trip of
 * milliseconds), the window does.
 */
bool sroce_sq_cnp(struct sroce_sq_eng *e)
{
	if (!e->ccp || !sq_in_flight(e))
		return false;
	if (!e->recovering &&
	    (!e->ecn_cwr || sroce_psn_diff(e->una_psn, e->ecn_cwr_psn) >= 0)) {
		sroce_sqi_cwnd_cut(e, SROCE_ECN_BETA_NUM, SROCE_ECN_BETA_DEN);
		e->ecn_cwr = true;
		e->ecn_cwr_psn = e->sent_psn;
	}
	return sroce_dcqcn_cnp(&e->cc, e->ccp, e->now);
}

/*
 * @adv PSNs answered: below ssthresh cwnd grows by as much (slow start),
 * above by one per cwnd answered (congestion avoidance), up to the window.
 */
static void sq_cwnd_grow(struct sroce_sq_eng *e, u32 adv)
{
	if (e->cwnd < e->ssthresh) {
		e->cwnd += adv;
		if (e->cwnd > e->ssthresh) {
			e->ca_acc += e->cwnd - e->ssthresh;
			e->cwnd = e->ssthresh;
		}
	} else {
		e->ca_acc += adv;
	}
	while (e->cwnd < e->window && e->ca_acc >= e->cwnd) {
		e->ca_acc -= e->cwnd;
		e->cwnd++;
	}
	if (e->cwnd >= e->window) {
		e->cwnd = e->window;
		e->ca_acc = 0;
	}
}

void sroce_sqi_after_progress(struct sroce_sq_eng *e, bool progress,
			      struct sroce_sq_act *act)
{
	u32 una = e->una_psn, next = e->next_psn, adv;

	sroce_sqi_update_una(e);
	adv = (u32)sroce_psn_diff(e->una_psn, una);
	/* a partial ACK of a long message opens the window too */
	progress |= adv != 0;
	if (progress && e->probing) {
		e->probing = false;
		/*
		 * Only what was sent again is acknowledged: the timeout
		 * found a loss.  The timer fits, and the whole window may
		 * go again.  Otherwise the peer is slower than the timer
		 * (or an ACK was lost): "late", below.
		 */
		e->late = e->next_psn != next;
		if (!e->late) {
			e->backoff = 0;
			e->cwnd = e->ssthresh;
		}
	}
	if (e->late && sroce_psn_diff(e->una_psn, e->probe_psn) > 0) {
		/*
		 * Something first sent after the timeout is acknowledged:
		 * the timer may come down (Karn).  Until then it stays,
		 * so that a peer slower than the QP's timeout (a starved
		 * virtual machine) is not sent a window every round trip.
		 */
		e->late = false;
		e->backoff = 0;
	}
	/*
	 * What the peer took makes room for twice as much (slow start);
	 * while a late peer works off what it holds, one more per ACK:
	 * go-back-N resends from una what the ACKs have not reached yet.
	 */
	if (e->late && sroce_psn_before(e->una_psn, e->probe_psn))
		adv = !!adv;
	sq_cwnd_grow(e, adv);
	if (e->recovering && sroce_psn_diff(e->una_psn, e->recover_psn) >= 0) {
		e->recovering = false;
		e->pto_ok = false;	/* the NAK's probe is for its recovery */
	}
	sq_tail_probe(e, una, act);
	if (progress) {
		e->retries_left = e->retry_cnt;
		e->rnr_left = e->rnr_retry;
		e->tlp_ok = true;	/* answered: the next silence may probe */
		act->kick = true;
	}
	if (!sq_in_flight(e)) {
		act->timer = SROCE_TIMER_STOP;
		e->pto_armed = 0;
	} else if (progress) {
		sroce_sqi_arm(e, act, SROCE_TIMER_ARM);
	}
	sroce_sqi_check_drained(e, act);
}

void sroce_sq_timeout(struct sroce_sq_eng *e, struct sroce_sq_act *act)
{
	memset(act, 0, sizeof(*act));
	if (!sq_active(e) || e->rnr_wait || e->uc)
		return;
	if (!sq_in_flight(e)) {
		act->timer = SROCE_TIMER_STOP;
		e->pto_armed = 0;
		return;
	}
	if (e->pto_armed == SROCE_PTO_TAIL) {
		e->pto_armed = 0;
		sq_tail_loss_probe(e, act);
		sroce_sq_check(e);
		return;
	}
	if (e->pto_armed) {
		/* the probe after a NAK (sroce_sqi_arm()): not a timeout */
		e->pto_armed = 0;
		e->pto_ok = false;
		sroce_sqi_rewind(e, e->una_psn, &act->events);
		sroce_sqi_arm(e, act, SROCE_TIMER_ARM);
		act->kick = true;
		sroce_sq_check(e);
		return;
	}
	ev(&act->events, SROCE_EV_TIMEOUT);
	e->pto_ok = false;		/* the timeout backs off, no probe */
	if (!sroce_retry_consume(&e->retries_left)) {
		sroce_sqi_error(e, SROCE_WC_RETRY_EXC_ERR, act);
		return;
	}
	/*
	 * Resend one packet, not the window: a peer that is only slow (a
	 * starved virtual machine) has the rest queued already, and its
	 * ACK of this one says so; a window resent per timeout is what
	 * keeps it slow.  sroce_sqi_after_progress() tells the two apart.
	 */
	sroce_sqi_cwnd_cut(e, 1, 2);	/* where ssthresh goes */
	e->cwnd = 1;
	e->probing = true;
	e->late = false;
	e->probe_psn = e->sent_psn;
	if (e->backoff < SROCE_MAX_BACKOFF)
		e->backoff++;
	sroce_sqi_rewind(e, e->una_psn, &act->events);
	sroce_sqi_arm(e, act, SROCE_TIMER_ARM);
	act->kick = true;
	sroce_sq_check(e);
}

void sroce_sq_rnr_done(struct sroce_sq_eng *e, struct sroce_sq_act *act)
{
	memset(act, 0, sizeof(*act));
	if (!e->rnr_wait)
		return;
	e->rnr_wait = false;
	act->kick = true;
	/*
	 * The RNR NAK stopped the retransmit timer.  What it asks for may
	 * not fit in cwnd (a READ hole below it still counts): keep a
	 * timer running whenever something is in flight.
	 */
	if (sq_in_flight(e))
		sroce_sqi_arm(e, act, SROCE_TIMER_ARM);
}
