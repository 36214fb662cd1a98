// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce RC send side: the requester and the completer as one state
 * machine over the send queue (see rc_engine.h for the events).
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
#include "sroce/rc_engine.h"

/* Engine-internal WQE flags: a READ's responses are all in; a local
 * WQE was carried out (it has no PSNs: first_psn is where it stands)
 */
#define SROCE_WQE_RD_DONE	BIT(7)
#define SROCE_WQE_LOCAL_DONE	BIT(6)

#define NO_REREAD		0xffffffffU

static inline struct sroce_wqe *sq_wqe(const struct sroce_sq_eng *e, u32 idx)
{
	return &e->wqe[idx & (e->size - 1)];
}

/* A READ or an atomic: answered by responses, not by ACKs */
static inline bool wqe_has_resp(const struct sroce_wqe *w)
{
	return w->kind == SROCE_WR_READ || w->kind == SROCE_WR_CMP_SWAP ||
	       w->kind == SROCE_WR_FETCH_ADD ||
	       w->kind == SROCE_WR_ATOMIC_WRITE;
}

/*
 * Started: first sent, or (a local WQE) carried out. WQEs from req on
 * that are not started have no PSNs yet.
 */
static inline bool wqe_started(const struct sroce_wqe *w)
{
	return w->npkts || (w->flags & SROCE_WQE_LOCAL_DONE);
}

static inline bool wqe_atomic(const struct sroce_wqe *w)
{
	return w->kind == SROCE_WR_CMP_SWAP || w->kind == SROCE_WR_FETCH_ADD ||
	       w->kind == SROCE_WR_ATOMIC_WRITE;
}

static inline bool sq_active(const struct sroce_sq_eng *e)
{
	return e->state == SROCE_SQ_RTS || e->state == SROCE_SQ_DRAIN;
}

static inline void ev(u32 *events, enum sroce_eng_event what)
{
	*events |= BIT(what);
}

static u32 sq_npkts(const struct sroce_sq_eng *e, u32 len)
{
	return sroce_msg_npkts(len, e->mtu);
}

/* Offset in its message of the payload of PSN @psn of @w */
static u32 psn_off(const struct sroce_sq_eng *e, const struct sroce_wqe *w,
		   u32 psn)
{
	return (u32)sroce_psn_diff(psn, w->first_psn) * e->mtu;
}

/* Has anything been sent that is not acknowledged (or answered)? */
static bool sq_in_flight(const struct sroce_sq_eng *e)
{
	return sroce_psn_diff(e->sent_psn, e->una_psn) > 0;
}

/* End of the READ request (original chunk) holding offset @off */
static u32 rd_chunk_end(const struct sroce_sq_eng *e,
			const struct sroce_wqe *w, u32 off)
{
	u64 end = ((u64)off / e->rd_chunk + 1) * e->rd_chunk;

	return end < w->length ? (u32)end : w->length;
}

/* Original READ requests of @w whose responses are all in */
static u32 rd_reqs_done(const struct sroce_sq_eng *e,
			const struct sroce_wqe *w)
{
	if (w->flags & SROCE_WQE_RD_DONE)
		return w->length ? (w->length - 1) / e->rd_chunk + 1 : 1;
	return w->rd_done / e->rd_chunk;
}

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
 * Recovering from a NAK, the timer is first a probe: silence for twice
 * the round trip after the resend means it was lost again (the NAKed
 * packet, so the responder still drops the rest, or a NAK of a new gap).
 * Its expiry goes back to una without spending a retry
 * (sroce_sq_timeout()); once per NAK, then the timer is the retransmit
 * timeout again.
 */
static void sq_arm(struct sroce_sq_eng *e, struct sroce_sq_act *act, u8 op)
{
	u64 t, pto;

	if (e->timeout == 0)
		return;		/* no local ACK timeout: never fires */
	t = sroce_sq_timer_ns(e);
	if (op == SROCE_TIMER_ARM) {
		e->pto_armed = false;
		if (e->pto_ok && e->recovering && e->rtt_valid) {
			pto = 2 * e->srtt + SROCE_RTO_MIN_VAR_NS;
			if (pto < t) {
				t = pto;
				e->pto_armed = true;
			}
		}
	}
	act->timer = op;
	act->timer_ns = t;
}

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

static void sq_check_drained(struct sroce_sq_eng *e, struct sroce_sq_act *act)
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
	sq_check_drained(e, act);
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

/*
 * A CNP answers packets the QP sent: with nothing in flight it can only
 * be late or forged (it carries no PSN to check), and it cuts nothing.
 */
bool sroce_sq_cnp(struct sroce_sq_eng *e)
{
	if (!e->ccp || !sq_in_flight(e))
		return false;
	return sroce_dcqcn_cnp(&e->cc, e->ccp, e->now);
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

static void sq_error(struct sroce_sq_eng *e, u8 status,
		     struct sroce_sq_act *act)
{
	sroce_sq_fail(e, e->comp, status);
	act->error = true;
	act->timer = SROCE_TIMER_STOP;
	e->pto_armed = false;
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

static void sq_rewind(struct sroce_sq_eng *e, u32 psn, u32 *events)
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
static void sq_complete_head(struct sroce_sq_eng *e)
{
	e->comp++;
	if (e->req - e->comp > e->fetch - e->comp) {
		/* it was acknowledged before the requester resent it */
		e->req = e->comp;
		e->req_off = 0;
	}
}

/* Recompute una: the oldest PSN not acknowledged nor answered. */
static void sq_update_una(struct sroce_sq_eng *e)
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
static void rd_gap_evidence(struct sroce_sq_eng *e, u32 idx,
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
static bool sq_ack_through(struct sroce_sq_eng *e, struct sroce_sq_act *act)
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
					rd_gap_evidence(e, e->comp, act);
				break;
			}
			/* its responses acknowledge it */
			if (sroce_psn_after(last, e->ack_psn))
				e->ack_psn = last;
		} else if (!sroce_psn_covers(e->ack_psn, last)) {
			break;
		}
		sq_complete_head(e);
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
	sq_rewind(e, sroce_psn_prev(e->sent_psn), &act->events);
	act->kick = true;
}

/*
 * A loss (a NAK of a gap, a timeout that found one) halves what may be in
 * flight: where packets are lost, a queue overflowed, most often the
 * receiver's or the one its many QPs share, and a window sent again into
 * it at full size only loses more; a QP whose resends are dropped while
 * its neighbours keep the queue full would run out of retries. Once per
 * recovery: the NAKs of one window are one loss.
 */
static void sq_cwnd_cut(struct sroce_sq_eng *e)
{
	u32 half = e->cwnd / 2;

	e->ssthresh = half > SROCE_MIN_SSTHRESH ? half : SROCE_MIN_SSTHRESH;
	if (e->ssthresh > e->window)
		e->ssthresh = e->window;
	e->cwnd = e->ssthresh;
	e->ca_acc = 0;
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

static void sq_after_progress(struct sroce_sq_eng *e, bool progress,
			      struct sroce_sq_act *act)
{
	u32 una = e->una_psn, next = e->next_psn, adv;

	sq_update_una(e);
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
	if (e->recovering && sroce_psn_diff(e->una_psn, e->recover_psn) >= 0)
		e->recovering = false;
	sq_tail_probe(e, una, act);
	if (progress) {
		e->retries_left = e->retry_cnt;
		e->rnr_left = e->rnr_retry;
		act->kick = true;
	}
	if (!sq_in_flight(e)) {
		act->timer = SROCE_TIMER_STOP;
		e->pto_armed = false;
	} else if (progress) {
		sq_arm(e, act, SROCE_TIMER_ARM);
	}
	sq_check_drained(e, act);
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

/* ---- requester ---- */

/* PSNs sent and not yet acknowledged */
static u32 sq_out(const struct sroce_sq_eng *e)
{
	return (u32)sroce_psn_diff(e->next_psn, e->una_psn);
}

/*
 * May a request of @cost PSNs go out?  No more than cwnd PSNs in flight,
 * except that one request may always go when none is: a READ request
 * spans up to half a window, which a cwnd cut by a timeout may not hold.
 */
static bool sq_room(const struct sroce_sq_eng *e, u32 cost)
{
	u32 out = sq_out(e);

	return !out || out + cost <= e->cwnd;
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
	 * one for the packet that fills cwnd lets it grow.
	 */
	tx->ackreq = last || !(e->next_psn % (e->window / 2)) ||
		     (e->cwnd < e->window &&
		      sq_out(e) + 1 >= e->cwnd);
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
		e->pto_armed = false;
		return;
	}
	sq_after_progress(e, sq_ack_through(e, act), act);
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
			sq_arm(e, act, SROCE_TIMER_ARM_IF_IDLE);
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
			sq_complete_head(e);
		sq_check_drained(e, act);
		sroce_sq_check(e);
		return SROCE_REQ_SEND;
	}
	sq_arm(e, act, SROCE_TIMER_ARM_IF_IDLE);
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

	if (v == SROCE_REQ_SEND && e->ccp)
		sroce_dcqcn_sent(&e->cc, e->ccp, e->now,
				 tx->len + SROCE_PACE_OVERHEAD);
	return v;
}

/* ---- completer ---- */

/* ACK / NAK / RNR NAK */
static void comp_ack(struct sroce_sq_eng *e, const struct sroce_pkt *pkt,
		     struct sroce_sq_act *act)
{
	u8 syn = pkt->hdr.aeth.syndrome;
	enum sroce_ack_action what = sroce_comp_ack_action(syn);
	u32 psn = pkt->hdr.bth.psn;
	s32 lo = what == SROCE_ACK_COMPLETE_UP_TO_PSN ? -1 : 0;
	bool progress;
	u32 out;

	if (sroce_psn_diff(psn, e->una_psn) < lo) {
		ev(&act->events, SROCE_EV_STALE);
		return;
	}
	if (sroce_psn_diff(psn, e->sent_psn) >= 0) {
		ev(&act->events, SROCE_EV_GHOST);
		return;
	}
	if (what != SROCE_ACK_COMPLETE_UP_TO_PSN)
		psn = sroce_psn_prev(psn);	/* acknowledges what precedes */
	if (sroce_psn_after(psn, e->ack_psn))
		e->ack_psn = psn;
	progress = sq_ack_through(e, act);
	psn = sroce_psn_add(psn, 1);

	switch (what) {
	case SROCE_ACK_COMPLETE_UP_TO_PSN:
		break;
	case SROCE_ACK_RETRY_FROM_PSN:
		ev(&act->events, SROCE_EV_SEQ_NAK_RCVD);
		sq_update_una(e);
		if (!e->recovering ||
		    sroce_psn_diff(psn, e->recover_psn) >= 0)
			sq_cwnd_cut(e);		/* a loss, not one already seen */
		sq_rewind(e, psn, &act->events);
		e->nak_recover = true;
		e->nak_psn = psn;
		e->pto_ok = true;
		sq_arm(e, act, SROCE_TIMER_ARM);
		act->kick = true;
		break;
	case SROCE_ACK_RNR_WAIT:
		ev(&act->events, SROCE_EV_RNR_NAK_RCVD);
		sq_update_una(e);
		if (!sroce_rnr_retry_consume(&e->rnr_left)) {
			sq_error(e, SROCE_WC_RNR_RETRY_EXC_ERR, act);
			return;
		}
		sq_rewind(e, psn, &act->events);
		/* not congestion: what the NAK asks for may go at once */
		out = sq_out(e);
		if (e->cwnd <= out)
			e->cwnd = out + 1 < e->window ? out + 1 : e->window;
		e->rnr_wait = true;
		act->timer = SROCE_TIMER_RNR;
		e->pto_armed = false;
		act->timer_ns = (u64)sroce_rnr_timer_us(sroce_syndrome_value(syn)) *
				1000;
		sq_check_drained(e, act);
		return;
	default:
		sq_update_una(e);
		if (e->comp == e->fetch) {
			ev(&act->events, SROCE_EV_GHOST);
			return;
		}
		sq_error(e, sroce_ack_action_wc_status(what), act);
		return;
	}
	sq_after_progress(e, progress, act);
}

/* Check READ response @pkt for head READ @w; 0 to place it. */
static int comp_check_read(struct sroce_sq_eng *e, struct sroce_wqe *w,
			   const struct sroce_pkt *pkt, u32 off)
{
	u32 mask = pkt->info->mask;
	u32 len = w->length - off;
	u32 end = rd_chunk_end(e, w, off);
	bool at_start = off % e->rd_chunk == 0;
	bool reread = w->rd_reread != NO_REREAD;

	if (len > e->mtu)
		len = e->mtu;
	if (pkt->payload_len != len)
		return -1;
	if ((mask & SROCE_MASK_FIRST) && !at_start &&
	    !(reread && off == w->rd_reread))
		return -1;
	if (!(mask & SROCE_MASK_FIRST) && at_start)
		return -1;
	if (off + len == end)
		return (mask & SROCE_MASK_LAST) ? 0 : -1;
	/* a re-request ends where its request does: LAST only there */
	if (mask & SROCE_MASK_LAST)
		return -1;
	return 0;
}

static void comp_read_resp(struct sroce_sq_eng *e, const struct sroce_pkt *pkt,
			   struct sroce_sq_act *act)
{
	u32 psn = pkt->hdr.bth.psn;
	struct sroce_wqe *w;
	u32 idx, off, k;

	if (sroce_psn_diff(psn, e->una_psn) < 0) {
		ev(&act->events, SROCE_EV_STALE);
		return;
	}
	if (sroce_psn_diff(psn, e->sent_psn) >= 0) {
		ev(&act->events, SROCE_EV_GHOST);
		return;
	}
	/* The WQE holding @psn */
	for (idx = e->comp; idx != e->fetch; idx++) {
		w = sq_wqe(e, idx);
		if (!wqe_started(w))
			break;
		if (sroce_psn_in_window(psn, w->first_psn, w->npkts))
			goto found;
	}
	ev(&act->events, SROCE_EV_GHOST);
	return;
found:
	if (!wqe_has_resp(w)) {
		ev(&act->events, SROCE_EV_GHOST);	/* not a READ's PSN */
		return;
	}
	if (w->kind == SROCE_WR_ATOMIC_WRITE ?
	    pkt->hdr.bth.opcode != SROCE_RC_READ_RESP_ONLY ||
	    pkt->payload_len ||
	    sroce_syndrome_kind(pkt->hdr.aeth.syndrome) != SROCE_AETH_KIND_ACK :
	    wqe_atomic(w) != !!(pkt->info->mask & SROCE_MASK_ATOMIC) ||
	    ((pkt->info->mask & SROCE_MASK_ATOMIC) &&
	     sroce_syndrome_kind(pkt->hdr.aeth.syndrome) !=
	     SROCE_AETH_KIND_ACK)) {
		/*
		 * an ATOMIC ACK for a READ, or the other way round; an
		 * ATOMIC WRITE's answer is a READ Response Only, empty
		 */
		ev(&act->events, SROCE_EV_BAD_RESP);
		return;
	}
	/* It acknowledges every request before it */
	if (idx != e->comp) {
		u32 before = sroce_psn_prev(w->first_psn);

		if (sroce_psn_after(before, e->ack_psn))
			e->ack_psn = before;
		sq_after_progress(e, sq_ack_through(e, act), act);
		if (idx - e->comp >= e->fetch - e->comp) {
			ev(&act->events, SROCE_EV_STALE);
			return;
		}
	}
	if (w->flags & SROCE_WQE_RD_DONE) {
		ev(&act->events, SROCE_EV_STALE);
		return;
	}
	off = psn_off(e, w, psn);
	if (off < w->rd_done) {
		ev(&act->events, SROCE_EV_STALE);
		return;
	}
	k = (off - w->rd_done) / e->mtu;
	if (k >= SROCE_MAX_WINDOW) {
		ev(&act->events, SROCE_EV_GHOST);
		return;
	}
	if (k && (w->rd_map & (1ULL << k))) {
		ev(&act->events, SROCE_EV_STALE);
		return;
	}
	if (wqe_atomic(w)) {
		/* one PSN: off is 0 and nothing is in yet */
		act->place = true;
		act->awrite = w->kind == SROCE_WR_ATOMIC_WRITE;
		act->atomic = !act->awrite;
		act->place_idx = idx;
		act->place_len = w->length;
		act->atomic_orig = pkt->hdr.atmack.orig;
		return;
	}
	if (comp_check_read(e, w, pkt, off)) {
		ev(&act->events, SROCE_EV_BAD_RESP);
		return;
	}
	act->place = true;
	act->place_idx = idx;
	act->place_off = off;
	act->place_len = pkt->payload_len;
}

void sroce_comp_rx(struct sroce_sq_eng *e, const struct sroce_pkt *pkt,
		   struct sroce_sq_act *act)
{
	u32 mask = pkt->info->mask;

	memset(act, 0, sizeof(*act));
	if (!sq_active(e))
		return;
	if (!(mask & SROCE_MASK_RESP) || e->uc)
		ev(&act->events, SROCE_EV_GHOST);	/* not a response */
	else if (mask & (SROCE_MASK_READ | SROCE_MASK_ATOMIC))
		comp_read_resp(e, pkt, act);
	else if ((mask & SROCE_MASK_ACK) && (mask & SROCE_MASK_AETH))
		comp_ack(e, pkt, act);
	else
		ev(&act->events, SROCE_EV_GHOST);
	sroce_sq_check(e);
}

void sroce_comp_placed(struct sroce_sq_eng *e, const struct sroce_sq_act *req,
		       bool ok, struct sroce_sq_act *act)
{
	struct sroce_wqe *w = sq_wqe(e, req->place_idx);
	u32 k;

	memset(act, 0, sizeof(*act));
	if (!sq_active(e))
		return;
	if (SROCE_ENGINE_WARN(req->place_idx - e->comp >= e->fetch - e->comp ||
			      !w->npkts || !wqe_has_resp(w) ||
			      req->place_off < w->rd_done)) {
		sq_error(e, SROCE_WC_BAD_RESP_ERR, act);
		return;
	}
	if (!ok) {
		sq_error(e, SROCE_WC_LOC_PROT_ERR, act);
		return;
	}
	k = (req->place_off - w->rd_done) / e->mtu;
	if (k) {
		/* out of order: keep it, count it against the hole */
		w->rd_map |= 1ULL << k;
		rd_gap_evidence(e, req->place_idx, act);
		sroce_sq_check(e);
		return;
	}
	w->rd_done += req->place_len;
	w->rd_map >>= 1;
	while (w->rd_map & 1) {
		u32 n = w->length - w->rd_done;

		w->rd_done += n < e->mtu ? n : e->mtu;
		w->rd_map >>= 1;
	}
	w->rd_gap_seen = 0;
	if (w->rd_done == w->length)
		w->flags |= SROCE_WQE_RD_DONE;
	/* a READ done completes in order, when all before it have */
	sq_ack_through(e, act);
	sq_after_progress(e, true, act);
	sroce_sq_check(e);
}

void sroce_sq_timeout(struct sroce_sq_eng *e, struct sroce_sq_act *act)
{
	memset(act, 0, sizeof(*act));
	if (!sq_active(e) || e->rnr_wait || e->uc)
		return;
	if (!sq_in_flight(e)) {
		act->timer = SROCE_TIMER_STOP;
		e->pto_armed = false;
		return;
	}
	if (e->pto_armed) {
		/* the probe (sq_arm()): not a timeout */
		e->pto_armed = false;
		e->pto_ok = false;
		sq_rewind(e, e->una_psn, &act->events);
		sq_arm(e, act, SROCE_TIMER_ARM);
		act->kick = true;
		sroce_sq_check(e);
		return;
	}
	ev(&act->events, SROCE_EV_TIMEOUT);
	if (!sroce_retry_consume(&e->retries_left)) {
		sq_error(e, SROCE_WC_RETRY_EXC_ERR, act);
		return;
	}
	/*
	 * Resend one packet, not the window: a peer that is only slow (a
	 * starved virtual machine) has the rest queued already, and its
	 * ACK of this one says so; a window resent per timeout is what
	 * keeps it slow.  sq_after_progress() tells the two apart.
	 */
	sq_cwnd_cut(e);		/* where ssthresh goes */
	e->cwnd = 1;
	e->probing = true;
	e->late = false;
	e->probe_psn = e->sent_psn;
	if (e->backoff < SROCE_MAX_BACKOFF)
		e->backoff++;
	sq_rewind(e, e->una_psn, &act->events);
	sq_arm(e, act, SROCE_TIMER_ARM);
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
		sq_arm(e, act, SROCE_TIMER_ARM);
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
